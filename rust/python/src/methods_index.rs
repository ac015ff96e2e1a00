//! `t[...]`, `t[...] = v`, and the index-driven methods (gather/scatter family, masked ops).

use crate::convert::{extract_scalar, int_list};
use crate::creation::tensor_from_data;
use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::ops::index::TensorIndex;
use ferrotorch::{DType, Scalar, Tensor};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyTuple};

fn slice_part(v: Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if v.is_none() {
        return Ok(None);
    }
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(Some(t.borrow().t.item().py()?.to_i64()));
    }
    Ok(Some(v.call_method0("__index__")?.extract::<i64>()?))
}

fn one_index(ob: &Bound<'_, PyAny>) -> PyResult<TensorIndex> {
    if ob.is_none() {
        return Ok(TensorIndex::NewAxis);
    }
    if ob.is_instance_of::<PyEllipsis>() {
        return Ok(TensorIndex::Ellipsis);
    }
    if ob.is_instance_of::<PyBool>() {
        return Ok(TensorIndex::Bool(ob.extract()?));
    }
    if ob.is_instance_of::<PyInt>() {
        return Ok(TensorIndex::Int(ob.extract()?));
    }
    if let Ok(s) = ob.cast::<PySlice>() {
        let step = slice_part(s.getattr("step")?)?.unwrap_or(1);
        return Ok(TensorIndex::Slice {
            start: slice_part(s.getattr("start")?)?,
            stop: slice_part(s.getattr("stop")?)?,
            step,
        });
    }
    if let Ok(t) = ob.cast::<PyTensor>() {
        let t = t.borrow().t.clone();
        // As PyTorch: a 0-d integer tensor indexes as its number, a 0-d bool/uint8 as True/False.
        if t.ndim() == 0 && !t.dtype().is_float() && !t.dtype().is_complex() {
            let v = t.item().py()?.to_i64();
            return Ok(if matches!(t.dtype(), DType::Bool | DType::U8) {
                TensorIndex::Bool(v != 0)
            } else {
                TensorIndex::Int(v)
            });
        }
        if !matches!(t.dtype(), DType::I64 | DType::I32 | DType::U8 | DType::Bool) {
            // Reading and writing alike (a float mask must not select silently).
            return Err(PyIndexError::new_err(format!(
                "tensors used as indices must be long, int, byte or bool tensors (got {})",
                t.dtype().name()
            )));
        }
        return Ok(TensorIndex::Tensor(t));
    }
    if ob.is_instance_of::<PyList>() || ob.hasattr("__array__")? {
        let t = tensor_from_data(ob, None)?;
        if t.numel() == 0 {
            return Ok(TensorIndex::Tensor(t.copy_as(DType::I64).py()?));
        }
        return Ok(TensorIndex::Tensor(t));
    }
    if let Ok(i) = ob.call_method0("__index__") {
        return Ok(TensorIndex::Int(i.extract()?));
    }
    Err(PyIndexError::new_err(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
        ob.get_type().name()?
    )))
}

/// Parses a Python index key (a tuple means several indices).
/// `e`, a value's error in `t[items] = value`, unless a mask in `items` has the wrong shape:
/// PyTorch finds that while slicing, before it looks at the value.
fn mask_shape_error_first(t: &Tensor, items: &[TensorIndex], e: PyErr) -> PyErr {
    match t.index(items) {
        Err(ie) if ie.to_string().contains("shape of the mask") => crate::errors::to_py(ie),
        _ => e,
    }
}

pub fn parse_index(key: &Bound<'_, PyAny>) -> PyResult<Vec<TensorIndex>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        return t.iter().map(|k| one_index(&k)).collect();
    }
    Ok(vec![one_index(key)?])
}

fn value_tensor(v: &Bound<'_, PyAny>, like: &Tensor) -> PyResult<Tensor> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(t.borrow().t.clone());
    }
    // An int beyond 64 bits assigned by indexing: PyTorch's ValueError from unpacking it.
    let scalar = extract_scalar(v).map_err(|e| {
        if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(v.py()) {
            pyo3::exceptions::PyValueError::new_err("Overflow when unpacking long long")
        } else {
            e
        }
    })?;
    if let Some(s) = scalar {
        // A number assigned by indexing is converted as a one-element fill.
        ferrotorch::scalar_range::check_fill("__setitem__", s, like.dtype(), 1).py()?;
        return Ok(Tensor::scalar(s, like.dtype()));
    }
    tensor_from_data(v, Some(like.dtype()))
}

/// The key's only index tensor is a uint8 mask.
fn is_lone_byte_mask(items: &[TensorIndex]) -> bool {
    let tensors: Vec<&Tensor> = items
        .iter()
        .filter_map(|i| match i {
            TensorIndex::Tensor(t) => Some(t),
            _ => None,
        })
        .collect();
    tensors.len() == 1 && tensors[0].dtype() == DType::U8
}

fn scalar_or_tensor(v: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(t.borrow().t.clone());
    }
    let s =
        extract_scalar(v)?.ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    ferrotorch::scalar_range::check_fits("fill", s, dtype).py()?;
    Ok(Tensor::scalar(s, dtype))
}

#[pymethods]
impl PyTensor {
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        // Fast path for the most common key: a single int.
        if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
            let i: i64 = key.extract()?;
            if self.t.ndim() == 0 {
                return Err(PyIndexError::new_err("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"));
            }
            let size = self.t.shape()[0] as i64;
            if i < -size || i >= size {
                return Err(PyIndexError::new_err(format!(
                    "index {i} is out of bounds for dimension 0 with size {size}"
                )));
            }
            return Ok(PyTensor::new(self.t.select(0, i).py()?));
        }
        let items = parse_index(key)?;
        Ok(PyTensor::new(self.t.index(&items).py()?))
    }

    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // PyTorch converts the value before it looks at index tensors (advanced indexing),
        // but after basic indices (ints, slices): order the errors the same way.
        // A 0-d integer tensor indexes as an int does (a select), not as an index tensor.
        let advanced = |k: &Bound<'_, PyAny>| {
            k.cast::<PyTensor>().is_ok_and(|t| {
                let t = &t.borrow().t;
                t.ndim() > 0 || t.dtype().is_float() || matches!(t.dtype(), DType::U8 | DType::Bool)
            }) || k.is_instance_of::<PyList>()
        };
        let has_advanced = advanced(key)
            || key
                .cast::<PyTuple>()
                .is_ok_and(|t| t.iter().any(|k| advanced(&k)));
        let parsed = parse_index(key);
        // An int beyond int64 fails as Python unpacks it, before any index is looked at.
        let unpackable = !value.is_instance_of::<PyInt>() || value.extract::<i64>().is_ok();
        if has_advanced {
            // Only the count of indexed dims (and a mask's shape) is checked before the value.
            let v = value_tensor(value, &self.t).map_err(|e| {
                if unpackable {
                    index_error_first(&self.t, key, parsed.as_deref().ok(), e)
                } else {
                    e
                }
            })?;
            let items = parsed?;
            if matches!(self.t.dtype(), DType::F16 | DType::BF16)
                && value.cast::<PyTensor>().is_err()
            {
                // With an index tensor PyTorch makes the number a tensor of the dtype first,
                // a checked conversion even for one element.
                if let Ok(Some(s)) = extract_scalar(value) {
                    ferrotorch::scalar_range::check_fits("__setitem__", s, self.t.dtype())
                        .py()
                        .map_err(|e| index_error_first(&self.t, key, Some(&items), e))?;
                }
            }
            if v.numel() == 1 && is_lone_byte_mask(&items) {
                // One value through one mask is PyTorch's masked_fill_, which takes only bool
                // masks (after it has checked the mask's shape).
                self.t.index(&items).py()?;
                return Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char",
                ));
            }
            return self.t.index_put_(&items, &v, false).py();
        }
        let items = parsed?;
        let v = value_tensor(value, &self.t).map_err(|e| {
            // PyTorch reports a bad basic index before a value the dtype cannot hold.
            match self.t.index(&items) {
                Err(_) if !unpackable => e,
                Err(ie) => crate::errors::to_py(ie),
                Ok(_) => e,
            }
        })?;
        if matches!(self.t.dtype(), DType::F16 | DType::BF16) && value.cast::<PyTensor>().is_err() {
            // A number filling other than one half-precision element (none included) must
            // fit (one element rounds to inf instead), as PyTorch's fill checks it.
            if let (Ok(Some(s)), Ok(dst)) = (extract_scalar(value), self.t.index(&items)) {
                if dst.numel() != 1 {
                    ferrotorch::scalar_range::check_fits("__setitem__", s, self.t.dtype()).py()?;
                }
            }
        }
        self.t.index_put_(&items, &v, false).py()
    }

    /// `index_put_(indices, values, accumulate=False)` with a tuple of index tensors.
    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put_<'py>(
        slf: PyRef<'py, Self>,
        indices: &Bound<'py, PyAny>,
        values: PyRef<'py, PyTensor>,
        accumulate: bool,
    ) -> PyResult<PyRef<'py, Self>> {
        let items = parse_index(indices)?;
        slf.t.index_put_(&items, &values.t, accumulate).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put(
        &self,
        indices: &Bound<'_, PyAny>,
        values: PyRef<'_, PyTensor>,
        accumulate: bool,
    ) -> PyResult<PyTensor> {
        let items = parse_index(indices)?;
        Ok(PyTensor::new(
            self.t.index_put(&items, &values.t, accumulate).py()?,
        ))
    }

    fn masked_fill(
        &self,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyTensor> {
        let v = scalar_or_tensor(value, self.t.dtype())?;
        Ok(PyTensor::new(self.t.masked_fill(&mask.t, &v).py()?))
    }
    fn masked_fill_<'py>(
        slf: PyRef<'py, Self>,
        mask: PyRef<'py, PyTensor>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let v = scalar_or_tensor(value, slf.t.dtype())?;
        let m = mask.t.clone();
        slf.t
            .apply_inplace("masked_fill_", &[&v], |s| s.masked_fill(&m, &v))
            .py()?;
        Ok(slf)
    }
    fn masked_select(&self, mask: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        if mask.t.dtype() != DType::Bool {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "masked_select: expected BoolTensor for mask, got {}",
                mask.t.dtype().name()
            )));
        }
        let shape =
            ferrotorch::layout::broadcast_shapes("masked_select", self.t.shape(), mask.t.shape())
                .py()?;
        let x = self.t.broadcast_to(&shape).py()?;
        let m = mask.t.broadcast_to(&shape).py()?.contiguous_copy().py()?;
        Ok(PyTensor::new(x.index(&[TensorIndex::Tensor(m)]).py()?))
    }
    #[pyo3(signature = (dim, index, src=None, *, value=None, reduce=None))]
    fn scatter(
        &self,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<PyTensor> {
        let s = scatter_src(&self.t, &index.t, src, value)?;
        let r = match reduce {
            None => self.t.scatter(dim, &index.t, &s),
            Some("add") => self.t.scatter_add(
                dim,
                &index.t,
                &s.broadcast_to(index.t.shape()).py()?.contiguous().py()?,
            ),
            Some(m) => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "scatter: reduce='{m}' is not supported (only 'add')"
                )))
            }
        };
        Ok(PyTensor::new(r.py()?))
    }
    #[pyo3(signature = (dim, index, src=None, *, value=None, reduce=None))]
    fn scatter_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'py, PyTensor>,
        src: Option<&Bound<'py, PyAny>>,
        value: Option<&Bound<'py, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<PyRef<'py, Self>> {
        let s = scatter_src(&slf.t, &index.t, src, value)?;
        let idx = index.t.clone();
        let add = match reduce {
            None => false,
            Some("add") => true,
            Some(m) => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "scatter_: reduce='{m}' is not supported (only 'add')"
                )))
            }
        };
        slf.t
            .apply_inplace("scatter_", &[&s], |t| {
                if add {
                    t.scatter_add(dim, &idx, &s.broadcast_to(idx.shape())?.contiguous()?)
                } else {
                    t.scatter(dim, &idx, &s)
                }
            })
            .py()?;
        Ok(slf)
    }
    fn scatter_add(
        &self,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.scatter_add(dim, &index.t, &src.t).py()?,
        ))
    }
    fn scatter_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'py, PyTensor>,
        src: PyRef<'py, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let (i, s) = (index.t.clone(), src.t.clone());
        slf.t
            .apply_inplace("scatter_add_", &[&s], |t| t.scatter_add(dim, &i, &s))
            .py()?;
        Ok(slf)
    }
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add(
        &self,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let a = alpha
            .map(extract_scalar)
            .transpose()?
            .flatten()
            .unwrap_or(Scalar::Int(1));
        Ok(PyTensor::new(
            self.t.index_add(dim, &index.t, &source.t, a).py()?,
        ))
    }
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'py, PyTensor>,
        source: PyRef<'py, PyTensor>,
        alpha: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let a = alpha
            .map(extract_scalar)
            .transpose()?
            .flatten()
            .unwrap_or(Scalar::Int(1));
        let (i, s) = (index.t.clone(), source.t.clone());
        slf.t
            .apply_inplace("index_add_", &[&s], |t| t.index_add(dim, &i, &s, a))
            .py()?;
        Ok(slf)
    }
    fn index_fill_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'py, PyTensor>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        // The dim is checked before the value is converted (PyTorch's order of errors).
        ferrotorch::layout::wrap_dim("index_fill", dim, slf.t.ndim()).py()?;
        index_dtype_first(&index.t)?;
        let v = scalar_or_tensor(value, slf.t.dtype())?;
        slf.t.index_fill_(dim, &index.t, &v).py()?;
        Ok(slf)
    }
    fn index_fill(
        &self,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyTensor> {
        // The dim is checked before the value is converted (PyTorch's order of errors).
        ferrotorch::layout::wrap_dim("index_fill", dim, self.t.ndim()).py()?;
        index_dtype_first(&index.t)?;
        let v = scalar_or_tensor(value, self.t.dtype())?;
        Ok(PyTensor::new(self.t.index_fill(dim, &index.t, &v).py()?))
    }
    #[pyo3(signature = (as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let nz = self.t.nonzero().py()?;
        if as_tuple {
            let cols: Vec<PyTensor> = if self.t.ndim() == 0 {
                vec![PyTensor::new(nz.reshape(&[-1]).py()?)]
            } else {
                (0..self.t.ndim())
                    .map(|k| {
                        nz.select(1, k as i64)
                            .and_then(|c| c.contiguous_copy())
                            .map(PyTensor::new)
                    })
                    .collect::<ferrotorch::Result<_>>()
                    .py()?
            };
            return Ok(PyTuple::new(
                py,
                cols.into_iter()
                    .map(|c| Py::new(py, c))
                    .collect::<PyResult<Vec<_>>>()?,
            )?
            .into_any()
            .unbind());
        }
        Ok(Py::new(py, PyTensor::new(nz))?.into_any())
    }
    fn argwhere(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.nonzero().py()?))
    }
}

/// index_fill checks the index's dtype before it converts the value (PyTorch's order).
fn index_dtype_first(index: &Tensor) -> PyResult<()> {
    if index.dtype() != DType::I64 {
        return Err(PyIndexError::new_err(format!(
            "index_fill_(): Expected dtype int64 for index, got {}",
            index.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

/// The dims an index expression names, counted as PyTorch does before it converts a value:
/// a bool/uint8 mask counts its dims, None, `...` and True/False none, anything else one.
/// A value error of an advanced-index write, unless the index is wrong first: too many
/// indexed dims, or a mask whose shape does not fit (PyTorch checks those before the value).
fn index_error_first(
    t: &Tensor,
    key: &Bound<'_, PyAny>,
    items: Option<&[TensorIndex]>,
    e: PyErr,
) -> PyErr {
    if specified_dims(key) > t.ndim() {
        return PyIndexError::new_err(format!(
            "too many indices for tensor of dimension {}",
            t.ndim()
        ));
    }
    match items {
        Some(items) => mask_shape_error_first(t, items, e),
        None => e,
    }
}

fn specified_dims(key: &Bound<'_, PyAny>) -> usize {
    let one = |k: &Bound<'_, PyAny>| -> usize {
        if let Ok(t) = k.cast::<PyTensor>() {
            let t = &t.borrow().t;
            return match t.dtype() {
                DType::Bool | DType::U8 => t.ndim(),
                _ => 1,
            };
        }
        if k.is_none() || k.is_instance_of::<PyEllipsis>() || k.is_instance_of::<PyBool>() {
            return 0;
        }
        1
    };
    match key.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|k| one(&k)).sum(),
        Err(_) => one(key),
    }
}

/// The source of a scatter: a tensor as given, or a number in `t`'s dtype broadcast to the
/// index's shape (a 0-d *tensor* source is only as large as one element, as in PyTorch).
fn scatter_src(
    t: &Tensor,
    index: &Tensor,
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let given = match (src, value) {
        (Some(s), _) => s,
        (None, Some(v)) => v,
        (None, None) => return Err(PyTypeError::new_err("scatter() missing 'src' or 'value'")),
    };
    if let Ok(s) = given.cast::<PyTensor>() {
        return Ok(s.borrow().t.clone());
    }
    // The number is placed on t's device: broadcast, it is no 0-d scalar a CUDA op would take.
    scalar_or_tensor(given, t.dtype())?
        .to_device(t.device())
        .and_then(|s| s.broadcast_to(index.shape()))
        .py()
}

/// `torch.cat(tensors, dim=0)`.
#[pyfunction]
#[pyo3(signature = (tensors, dim=0, *, out=None))]
pub fn cat(
    py: Python<'_>,
    tensors: Vec<PyRef<'_, PyTensor>>,
    dim: i64,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ts: Vec<Tensor> = tensors.iter().map(|t| t.t.clone()).collect();
    match out {
        Some(o) if !o.is_none() => {
            let o = o.cast::<PyTensor>()?;
            Tensor::cat_out(&ts, dim, &o.borrow().t).py()?;
            Ok(o.clone().into_any().unbind())
        }
        _ => {
            let ts = crate::autocast::cast_list("cat", ts)?;
            let r = ferrotorch::profiler::run_list("aten::cat", &ts, || Tensor::cat(&ts, dim));
            Ok(Py::new(py, PyTensor::new(r.py()?))?.into_any())
        }
    }
}

/// `torch.stack(tensors, dim=0)`.
#[pyfunction]
#[pyo3(signature = (tensors, dim=0, *, out=None))]
pub fn stack(
    py: Python<'_>,
    tensors: Vec<PyRef<'_, PyTensor>>,
    dim: i64,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ts: Vec<Tensor> = tensors.iter().map(|t| t.t.clone()).collect();
    match out {
        Some(o) if !o.is_none() => {
            let o = o.cast::<PyTensor>()?;
            Tensor::stack_out(&ts, dim, &o.borrow().t).py()?;
            Ok(o.clone().into_any().unbind())
        }
        _ => {
            let ts = crate::autocast::cast_list("stack", ts)?;
            let r = ferrotorch::profiler::run_list("aten::stack", &ts, || Tensor::stack(&ts, dim));
            Ok(Py::new(py, PyTensor::new(r.py()?))?.into_any())
        }
    }
}

/// `stack` into a new tensor in shared memory (what DataLoader workers send back).
#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
pub fn _stack_shared(tensors: Vec<PyRef<'_, PyTensor>>, dim: i64) -> PyResult<PyTensor> {
    let ts: Vec<Tensor> = tensors.iter().map(|t| t.t.clone()).collect();
    Ok(PyTensor::new(Tensor::stack_shared(&ts, dim).py()?))
}

/// PyTorch's check of a number beside tensor `t` in `where`: it must fit the result dtype
/// (a half result takes it as inf instead).
fn where_number_fits(t: &Tensor, number: &Bound<'_, PyAny>) -> PyResult<()> {
    use ferrotorch::dtype::{result_type, Operand};
    if let Some(s) = extract_scalar(number)? {
        let me = if t.ndim() == 0 {
            Operand::ZeroDim(t.dtype())
        } else {
            Operand::Dim(t.dtype())
        };
        let dt = result_type(
            &[me, Operand::Scalar(s.category())],
            crate::tensor::default_dtype(),
        );
        if !matches!(dt, DType::F16 | DType::BF16) {
            ferrotorch::scalar_range::check_fits("where", s, dt).py()?;
        }
    }
    Ok(())
}

/// `torch.where(condition, input, other)` (numbers allowed for input/other).
#[pyfunction]
#[pyo3(name = "_where3")]
pub fn where3(
    condition: PyRef<'_, PyTensor>,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<PyTensor> {
    let (a, b) = match (input.cast::<PyTensor>(), other.cast::<PyTensor>()) {
        (Ok(a), Ok(b)) => (a.borrow().t.clone(), b.borrow().t.clone()),
        (Ok(a), Err(_)) => {
            let a = a.borrow().t.clone();
            where_number_fits(&a, other)?;
            let b = crate::tensor::operand_tensor(&a, other, "where")?;
            (a, b)
        }
        (Err(_), Ok(b)) => {
            let b = b.borrow().t.clone();
            where_number_fits(&b, input)?;
            let a = crate::tensor::operand_tensor(&b, input, "where")?;
            (a, b)
        }
        (Err(_), Err(_)) => {
            let sa = extract_scalar(input)?
                .ok_or_else(|| PyTypeError::new_err("where(): expected Tensors or numbers"))?;
            let sb = extract_scalar(other)?
                .ok_or_else(|| PyTypeError::new_err("where(): expected Tensors or numbers"))?;
            let dt = ferrotorch::dtype::result_type(
                &[
                    ferrotorch::dtype::Operand::Scalar(sa.category()),
                    ferrotorch::dtype::Operand::Scalar(sb.category()),
                ],
                crate::tensor::default_dtype(),
            );
            (Tensor::scalar(sa, dt), Tensor::scalar(sb, dt))
        }
    };
    Ok(PyTensor::new(condition.t.where_(&a, &b).py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(_stack_shared, m)?)?;
    m.add_function(wrap_pyfunction!(where3, m)?)?;
    let _ = int_list;
    Ok(())
}
