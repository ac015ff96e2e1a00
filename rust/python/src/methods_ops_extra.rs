//! Bindings of softmax-family, statistics, sorting, clamp and other parameterized ops, plus
//! the in-place fillers (`fill_`, `zero_`, `copy_`).

use crate::convert::{extract_dims, extract_scalar};
use crate::dtype::extract_dtype;
use crate::errors::IntoPy;
use crate::tensor::{maybe_detach, PyTensor};
use ferrotorch::ops::{BinaryOp, UnaryOp};
use ferrotorch::{DType, Scalar, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

fn cast_opt(t: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    match dtype {
        Some(d) if !d.is_none() => t.to_dtype(extract_dtype(d)?).py(),
        _ => Ok(t.clone()),
    }
}

/// A clamp bound: absent, a Python number, or a tensor.
enum Bnd {
    None,
    S(Scalar),
    T(Tensor),
}

fn bound(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Bnd> {
    match ob {
        None => Ok(Bnd::None),
        Some(o) if o.is_none() => Ok(Bnd::None),
        Some(o) => {
            if let Ok(t) = o.cast::<PyTensor>() {
                return Ok(Bnd::T(t.borrow().t.clone()));
            }
            let s = extract_scalar(o)?.ok_or_else(|| {
                PyTypeError::new_err("clamp(): min and max must be numbers or Tensors")
            })?;
            Ok(Bnd::S(s))
        }
    }
}

/// Number bounds take the scalar path (PyTorch's clamp.Scalar); any tensor bound makes the
/// numbers 0-d tensors and takes the tensor path (clamp.Tensor).
fn clamp_any(x: &Tensor, lo: Bnd, hi: Bnd) -> ferrotorch::Result<Tensor> {
    let as_scalar = |b: &Bnd| match b {
        Bnd::S(s) => Some(*s),
        _ => None,
    };
    if !matches!(lo, Bnd::T(_)) && !matches!(hi, Bnd::T(_)) {
        return x.clamp(as_scalar(&lo), as_scalar(&hi));
    }
    let as_tensor = |b: Bnd| match b {
        Bnd::None => None,
        Bnd::T(t) => Some(t),
        Bnd::S(s) => Some(Tensor::scalar(
            s,
            ferrotorch::dtype::result_type(
                &[
                    ferrotorch::dtype::Operand::Dim(x.dtype()),
                    ferrotorch::dtype::Operand::Scalar(s.category()),
                ],
                crate::tensor::default_dtype(),
            ),
        )),
    };
    let (lo, hi) = (as_tensor(lo), as_tensor(hi));
    x.clamp_t(lo.as_ref(), hi.as_ref())
}

fn correction_of(unbiased: Option<bool>, correction: Option<f64>) -> f64 {
    correction.unwrap_or(if unbiased.unwrap_or(true) { 1.0 } else { 0.0 })
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim=None, dtype=None, *, _stacklevel=None))]
    fn softmax(
        &self,
        py: Python<'_>,
        dim: Option<i64>,
        dtype: Option<&Bound<'_, PyAny>>,
        _stacklevel: Option<i64>,
    ) -> PyResult<PyTensor> {
        let src = crate::autocast::cast_unless_dtype("softmax", &self.t, dtype)?;
        let t = cast_opt(&src, dtype)?;
        let d =
            dim.ok_or_else(|| PyTypeError::new_err("softmax() missing required argument 'dim'"))?;
        let r = ferrotorch::profiler::run("aten::softmax", &[&t], || {
            maybe_detach(py, t.numel(), || t.softmax(d))
        });
        Ok(PyTensor::new(r.py()?))
    }
    #[pyo3(signature = (dim=None, dtype=None, *, _stacklevel=None))]
    fn log_softmax(
        &self,
        py: Python<'_>,
        dim: Option<i64>,
        dtype: Option<&Bound<'_, PyAny>>,
        _stacklevel: Option<i64>,
    ) -> PyResult<PyTensor> {
        let src = crate::autocast::cast_unless_dtype("log_softmax", &self.t, dtype)?;
        let t = cast_opt(&src, dtype)?;
        let d = dim
            .ok_or_else(|| PyTypeError::new_err("log_softmax() missing required argument 'dim'"))?;
        let r = ferrotorch::profiler::run("aten::log_softmax", &[&t], || {
            maybe_detach(py, t.numel(), || t.log_softmax(d))
        });
        Ok(PyTensor::new(r.py()?))
    }
    #[pyo3(signature = (dim, keepdim=false))]
    fn logsumexp(&self, dim: &Bound<'_, PyAny>, keepdim: bool) -> PyResult<PyTensor> {
        let t = crate::autocast::cast_one("logsumexp", &self.t)?;
        Ok(PyTensor::new(
            t.logsumexp(&extract_dims(Some(dim))?, keepdim).py()?,
        ))
    }
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn var(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<PyTensor> {
        let (dims, unb) = dims_and_unbiased(dim, unbiased)?;
        Ok(PyTensor::new(
            self.t
                .var_dims(&dims, correction_of(unb, correction), keepdim)
                .py()?,
        ))
    }
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn std(
        &self,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<PyTensor> {
        let (dims, unb) = dims_and_unbiased(dim, unbiased)?;
        Ok(PyTensor::new(
            self.t
                .std_dims(&dims, correction_of(unb, correction), keepdim)
                .py()?,
        ))
    }
    /// `norm(p='fro', dim=None, keepdim=False)`.
    #[pyo3(signature = (p=None, dim=None, keepdim=false, dtype=None))]
    fn norm(
        &self,
        p: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let pv = match p {
            None => 2.0,
            Some(o) if o.is_none() => 2.0,
            Some(o) => match o.extract::<String>() {
                Ok(s) if s == "fro" => 2.0,
                Ok(s) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                        "norm: p='{s}' is not supported (numbers, 'fro')"
                    )))
                }
                Err(_) => o.extract::<f64>()?,
            },
        };
        let t = cast_opt(&self.t, dtype)?;
        Ok(PyTensor::new(
            t.norm_p(pv, &extract_dims(dim)?, keepdim).py()?,
        ))
    }
    #[pyo3(name = "_sort", signature = (dim=-1, descending=false))]
    fn sort_raw(&self, dim: i64, descending: bool) -> PyResult<(PyTensor, PyTensor)> {
        let (v, i) = self.t.sort(dim, descending).py()?;
        Ok((PyTensor::new(v), PyTensor::new(i)))
    }
    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    fn argsort(&self, dim: i64, descending: bool, stable: bool) -> PyResult<PyTensor> {
        let _ = stable;
        Ok(PyTensor::new(self.t.sort(dim, descending).py()?.1))
    }
    #[pyo3(name = "_topk", signature = (k, dim=-1, largest=true))]
    fn topk_raw(&self, k: i64, dim: i64, largest: bool) -> PyResult<(PyTensor, PyTensor)> {
        // A negative k is out of range like a too large one (a RuntimeError, not OverflowError).
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        let (v, i) = self.t.topk(k, dim, largest).py()?;
        Ok((PyTensor::new(v), PyTensor::new(i)))
    }
    #[pyo3(name = "_max_dim", signature = (dim, keepdim=false, is_max=true))]
    fn max_dim_raw(&self, dim: i64, keepdim: bool, is_max: bool) -> PyResult<(PyTensor, PyTensor)> {
        let (v, i) = self.t.max_dim(dim, keepdim, is_max).py()?;
        Ok((PyTensor::new(v), PyTensor::new(i)))
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clamp(
        &self,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let (lo, hi) = (bound(min)?, bound(max)?);
        Ok(PyTensor::new(clamp_any(&self.t, lo, hi).py()?))
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clip(
        &self,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        self.clamp(min, max)
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clamp_<'py>(
        slf: PyRef<'py, Self>,
        min: Option<&Bound<'py, PyAny>>,
        max: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        if slf.t.dtype().is_complex() {
            // PyTorch refuses a complex self before it looks at the memory it would write.
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                "clamp_: clamp is not supported for complex types",
            ));
        }
        let (lo, hi) = (bound(min)?, bound(max)?);
        let deps: Vec<Tensor> = [&lo, &hi]
            .into_iter()
            .filter_map(|b| match b {
                Bnd::T(t) => Some(t.clone()),
                _ => None,
            })
            .collect();
        let deps: Vec<&Tensor> = deps.iter().collect();
        slf.t
            .apply_inplace("clamp_", &deps, |s| clamp_any(s, lo, hi))
            .py()?;
        Ok(slf)
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clip_<'py>(
        slf: PyRef<'py, Self>,
        min: Option<&Bound<'py, PyAny>>,
        max: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        Self::clamp_(slf, min, max)
    }
    fn clamp_min(&self, min: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.clamp(Some(min), None)
    }
    fn clamp_max(&self, max: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.clamp(None, Some(max))
    }
    fn clamp_min_<'py>(
        slf: PyRef<'py, Self>,
        min: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        Self::clamp_(slf, Some(min), None)
    }
    fn clamp_max_<'py>(
        slf: PyRef<'py, Self>,
        max: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        Self::clamp_(slf, None, Some(max))
    }
    fn lerp(&self, end: PyRef<'_, PyTensor>, weight: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let w = crate::tensor::operand_tensor(&self.t, weight, "lerp")?;
        if weight.cast::<PyTensor>().is_ok() && w.ndim() == 0 && end.t.dtype() == self.t.dtype() {
            // A 0-d weight tensor promotes like a number (PyTorch 2.15): int inputs with a
            // float weight give a float result, a float64 weight with float32 inputs float32.
            let dt = ferrotorch::dtype::result_type(
                &[
                    ferrotorch::dtype::Operand::Dim(self.t.dtype()),
                    ferrotorch::dtype::Operand::ZeroDim(w.dtype()),
                ],
                crate::tensor::default_dtype(),
            );
            let (a, e, w) = (
                self.t.to_dtype(dt).py()?,
                end.t.to_dtype(dt).py()?,
                w.to_dtype(dt).py()?,
            );
            lerp_check(&a, &e, &w)?;
            return Ok(PyTensor::new(a.lerp(&e, &w).py()?));
        }
        lerp_check(&self.t, &end.t, &w)?;
        Ok(PyTensor::new(self.t.lerp(&end.t, &w).py()?))
    }
    fn lerp_<'py>(
        slf: PyRef<'py, Self>,
        end: PyRef<'py, PyTensor>,
        weight: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let w = crate::tensor::operand_tensor(&slf.t, weight, "lerp_")?;
        lerp_check(&slf.t, &end.t, &w)?;
        let e = end.t.clone();
        slf.t
            .apply_inplace("lerp_", &[&e, &w], |s| s.lerp(&e, &w))
            .py()?;
        Ok(slf)
    }
    fn isnan(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.isnan().py()?))
    }
    fn isinf(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.isinf().py()?))
    }
    fn isfinite(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.isfinite().py()?))
    }
    fn isposinf(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.isposinf().py()?))
    }
    fn isneginf(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.isneginf().py()?))
    }
    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.nan_to_num(nan, posinf, neginf).py()?))
    }
    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num_<'py>(
        slf: PyRef<'py, Self>,
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t
            .apply_inplace("nan_to_num_", &[], |s| s.nan_to_num(nan, posinf, neginf))
            .py()?;
        Ok(slf)
    }
    #[pyo3(signature = (approximate="none"))]
    fn gelu(&self, approximate: &str) -> PyResult<PyTensor> {
        let op = match approximate {
            "none" => UnaryOp::Gelu,
            "tanh" => UnaryOp::GeluTanh,
            a => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "gelu: approximate argument must be either none or tanh (got '{a}')"
                )))
            }
        };
        Ok(PyTensor::new(self.t.unary(op).py()?))
    }
    #[pyo3(signature = (decimals=0))]
    fn round(&self, decimals: i64) -> PyResult<PyTensor> {
        if decimals == 0 {
            return Ok(PyTensor::new(self.t.unary(UnaryOp::Round).py()?));
        }
        if !self.t.dtype().is_float() {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "round: \"round_cpu\" not implemented for '{}' with decimals={decimals}",
                self.t.dtype().name()
            )));
        }
        // As PyTorch: half types compute in float32, and negative decimals divide first
        // (10^-d is not exact), so the values round the same way.
        let dt = self.t.dtype();
        let x = if matches!(dt, DType::F16 | DType::BF16) {
            self.t.to_dtype(DType::F32).py()?
        } else {
            self.t.clone()
        };
        let scale = Scalar::Float(10f64.powi(decimals.unsigned_abs() as i32));
        let r = if decimals > 0 {
            x.mul_scalar(scale)
                .and_then(|t| t.unary(UnaryOp::Round))
                .and_then(|t| t.div_scalar(scale))
        } else {
            x.div_scalar(scale)
                .and_then(|t| t.unary(UnaryOp::Round))
                .and_then(|t| t.mul_scalar(scale))
        };
        Ok(PyTensor::new(r.and_then(|t| t.to_dtype(dt)).py()?))
    }
    #[pyo3(signature = (decimals=0))]
    fn round_<'py>(slf: PyRef<'py, Self>, decimals: i64) -> PyResult<PyRef<'py, Self>> {
        let r = slf.round(decimals)?;
        slf.t
            .apply_inplace("round_", &[], |_| Ok(r.t.clone()))
            .py()?;
        Ok(slf)
    }
    fn square(&self) -> PyResult<PyTensor> {
        // bool squares in int64, like bool ** 2 in PyTorch.
        let t = if self.t.dtype() == ferrotorch::DType::Bool {
            self.t.to_dtype(ferrotorch::DType::I64).py()?
        } else {
            self.t.clone()
        };
        Ok(PyTensor::new(t.mul(&t).py()?))
    }
    fn square_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        slf.t.apply_inplace("square_", &[], |s| s.mul(s)).py()?;
        Ok(slf)
    }
    /// C-style remainder (the sign of the dividend), unlike `remainder` (sign of the divisor).
    fn fmod(&self, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.binop_extra(other, BinaryOp::Fmod)
    }
    fn fmod_<'py>(slf: PyRef<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, Self>> {
        Self::binop_extra_(slf, other, BinaryOp::Fmod)
    }
    fn logaddexp(&self, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.binop_extra(other, BinaryOp::LogAddExp)
    }
    fn hypot(&self, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.binop_extra(other, BinaryOp::Hypot)
    }
    fn hypot_<'py>(slf: PyRef<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, Self>> {
        Self::binop_extra_(slf, other, BinaryOp::Hypot)
    }
    fn copysign(&self, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.binop_extra(other, BinaryOp::Copysign)
    }
    fn copysign_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        Self::binop_extra_(slf, other, BinaryOp::Copysign)
    }
    fn xlogy(&self, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.binop_extra(other, BinaryOp::Xlogy)
    }
    fn xlogy_<'py>(slf: PyRef<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, Self>> {
        Self::binop_extra_(slf, other, BinaryOp::Xlogy)
    }
    #[pyo3(name = "_cum_extreme")]
    fn cum_extreme_raw(&self, dim: i64, is_max: bool) -> PyResult<(PyTensor, PyTensor)> {
        let (v, i) = self.t.cum_extreme(dim, is_max).py()?;
        Ok((PyTensor::new(v), PyTensor::new(i)))
    }
    fn logcumsumexp(&self, dim: i64) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.logcumsumexp(dim).py()?))
    }
    #[pyo3(signature = (dim=None))]
    fn count_nonzero(&self, dim: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let nz = self
            .t
            .binary_scalar(ferrotorch::ops::BinaryOp::Ne, Scalar::Int(0))
            .py()?;
        Ok(PyTensor::new(nz.sum_dims(&extract_dims(dim)?, false).py()?))
    }
    fn fill_<'py>(slf: PyRef<'py, Self>, value: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, Self>> {
        let v = if let Ok(t) = value.cast::<PyTensor>() {
            let v = t.borrow().t.clone();
            if v.ndim() != 0 {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                    v.ndim()
                )));
            }
            v
        } else {
            let s = extract_scalar(value)?
                .ok_or_else(|| PyTypeError::new_err("fill_(): value must be a number"))?;
            ferrotorch::scalar_range::check_fill("fill_", s, slf.t.dtype(), slf.t.numel()).py()?;
            Tensor::scalar(s, slf.t.dtype())
        };
        let shape = slf.t.shape().to_vec();
        slf.t
            .apply_inplace("fill_", &[&v], |_| {
                v.to_dtype(slf.t.dtype())?.broadcast_to(&shape)
            })
            .py()?;
        Ok(slf)
    }
    fn zero_(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        let z = Tensor::zeros(slf.t.shape(), slf.t.dtype()).py()?;
        slf.t.apply_inplace("zero_", &[], |_| Ok(z.clone())).py()?;
        Ok(slf)
    }
    /// `copy_(src)`: broadcast and cast `src` into this tensor; gradients flow to `src`.
    #[pyo3(signature = (src, non_blocking=false))]
    fn copy_<'py>(
        slf: PyRef<'py, Self>,
        src: PyRef<'py, PyTensor>,
        non_blocking: bool,
    ) -> PyResult<PyRef<'py, Self>> {
        let _ = non_blocking;
        let s = src.t.clone();
        let shape = slf.t.shape().to_vec();
        let dt = slf.t.dtype();
        slf.t.check_no_internal_overlap("copy_").py()?;
        slf.t
            .apply_inplace("copy_", &[&s], |_| s.to_dtype(dt)?.broadcast_to(&shape))
            .py()?;
        Ok(slf)
    }
}

/// PyTorch's lerp takes float tensors of one dtype (weight may be a Python number).
fn lerp_check(a: &Tensor, end: &Tensor, w: &Tensor) -> PyResult<()> {
    use pyo3::exceptions::PyRuntimeError;
    if !a.dtype().is_float() && !a.dtype().is_complex() {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "lerp: \"lerp_kernel\" not implemented for '{}' (expected a floating point input)",
            a.dtype().name()
        )));
    }
    for (what, t) in [("end", end), ("weight", w)] {
        if t.dtype() != a.dtype() {
            return Err(PyRuntimeError::new_err(format!(
                "lerp: expected dtype {} for `{what}` but got dtype {}",
                a.dtype().name(),
                t.dtype().name()
            )));
        }
    }
    Ok(())
}

impl PyTensor {
    fn binop_extra(&self, other: &Bound<'_, PyAny>, op: BinaryOp) -> PyResult<PyTensor> {
        let b = crate::tensor::operand_tensor(&self.t, other, op.name())?;
        Ok(PyTensor::new(self.t.binary(op, &b).py()?))
    }
    fn binop_extra_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'py, PyAny>,
        op: BinaryOp,
    ) -> PyResult<PyRef<'py, Self>> {
        let b = crate::tensor::operand_tensor(&slf.t, other, op.name())?;
        let name = format!("{}_", op.name());
        slf.t
            .apply_inplace(&name, &[&b], |s| s.binary(op, &b))
            .py()?;
        Ok(slf)
    }
}

fn dims_and_unbiased(
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<i64>, Option<bool>)> {
    // `t.var(False)` passes `unbiased` positionally in PyTorch's legacy overload.
    if let Some(d) = dim {
        if d.is_instance_of::<pyo3::types::PyBool>() {
            return Ok((vec![], Some(d.extract()?)));
        }
    }
    let unb = match unbiased {
        Some(u) if !u.is_none() => Some(u.extract::<bool>()?),
        _ => None,
    };
    Ok((extract_dims(dim)?, unb))
}

#[pyfunction]
#[pyo3(signature = (input, beta=1.0, threshold=20.0))]
pub fn _softplus(input: PyRef<'_, PyTensor>, beta: f64, threshold: f64) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.softplus(beta, threshold).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, negative_slope=0.01))]
pub fn _leaky_relu(input: PyRef<'_, PyTensor>, negative_slope: f64) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.leaky_relu(negative_slope).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, alpha=1.0))]
pub fn _elu(input: PyRef<'_, PyTensor>, alpha: f64) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.elu(alpha).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, min_val=-1.0, max_val=1.0))]
pub fn _hardtanh(input: PyRef<'_, PyTensor>, min_val: f64, max_val: f64) -> PyResult<PyTensor> {
    Ok(PyTensor::new(input.t.hardtanh(min_val, max_val).py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_softplus, m)?)?;
    m.add_function(wrap_pyfunction!(_leaky_relu, m)?)?;
    m.add_function(wrap_pyfunction!(_elu, m)?)?;
    m.add_function(wrap_pyfunction!(_hardtanh, m)?)?;
    Ok(())
}
