//! The `Tensor` class: a thin handle on the core tensor. Operators and hot methods go straight
//! from the Python call to the Rust op.

use crate::convert::{extract_operand, extract_scalar, scalar_to_py, sizes_from_args, Operand};
use crate::dtype::{dtype_obj, extract_dtype, PyDType};
use crate::errors::IntoPy;
use ferrotorch::ops::BinaryOp;
use ferrotorch::profiler;
use ferrotorch::{DType, Scalar, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::atomic::{AtomicU8, Ordering};

static DEFAULT_DTYPE: AtomicU8 = AtomicU8::new(0);

/// The dtype of floats created without an explicit dtype (`torch.get_default_dtype()`).
pub fn default_dtype() -> DType {
    DType::ALL[DEFAULT_DTYPE.load(Ordering::Relaxed) as usize]
}

/// The dtype of complex numbers created without an explicit dtype: complex64 when the
/// default float type is float32 (or narrower), complex128 when it is float64.
pub fn default_complex_dtype() -> DType {
    ferrotorch::dtype::default_of(ferrotorch::dtype::Category::Complex, default_dtype())
}

#[pyfunction]
pub fn set_default_dtype(d: &Bound<'_, PyAny>) -> PyResult<()> {
    let d = extract_dtype(d)?;
    if !matches!(d, DType::F32 | DType::F64 | DType::F16 | DType::BF16) {
        return Err(PyTypeError::new_err(
            "only floating-point types are supported as the default type",
        ));
    }
    DEFAULT_DTYPE.store(
        DType::ALL.iter().position(|&x| x == d).unwrap() as u8,
        Ordering::Relaxed,
    );
    Ok(())
}

#[pyfunction]
pub fn get_default_dtype(py: Python<'_>) -> Py<PyDType> {
    dtype_obj(py, default_dtype())
}

/// Runs `f` with the GIL released when the work (in elements) is large enough to pay for it;
/// releasing and re-taking the GIL costs more than a small kernel.
pub fn maybe_detach<T: Send>(py: Python<'_>, work: usize, f: impl FnOnce() -> T + Send) -> T {
    if work >= 1 << 15 {
        py.detach(f)
    } else {
        f()
    }
}

#[pyclass(name = "Tensor", module = "ferrotorch", subclass, dict, weakref)]
pub struct PyTensor {
    pub t: Tensor,
}

impl PyTensor {
    pub fn new(t: Tensor) -> PyTensor {
        PyTensor { t }
    }
}

/// The value of a one-element tensor as a real number; a complex value must have no
/// imaginary part (PyTorch's rule for `float(t)` and `int(t)`).
fn real_item(t: &Tensor) -> PyResult<f64> {
    if t.numel() != 1 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "only one element tensors can be converted to Python scalars",
        ));
    }
    match t.item().py()? {
        Scalar::Complex(re, 0.0) => Ok(re),
        Scalar::Complex(..) => Err(PyRuntimeError::new_err(
            "value cannot be converted to type double without overflow",
        )),
        s => Ok(s.to_f64()),
    }
}

/// `a op b` (or `b op a` when reflected) for a tensor or scalar `b`.
#[inline]
fn apply_binary(
    a: &Tensor,
    b: &Operand,
    op: BinaryOp,
    reflected: bool,
) -> ferrotorch::Result<Tensor> {
    match (b, reflected) {
        (Operand::T(b), false) => a.binary(op, b),
        (Operand::T(b), true) => b.binary(op, a),
        (Operand::S(s), false) => a.binary_scalar(op, *s),
        (Operand::S(s), true) => a.rbinary_scalar(op, *s),
    }
}

/// [`apply_binary`] timed by the profiler; kept out of line so the dunders' fast path only
/// tests the profiler flag.
#[cold]
#[inline(never)]
fn apply_binary_profiled(
    a: &Tensor,
    b: &Operand,
    op: BinaryOp,
    reflected: bool,
) -> ferrotorch::Result<Tensor> {
    let inputs: Vec<&Tensor> = match b {
        Operand::T(t) => vec![a, t],
        Operand::S(_) => vec![a],
    };
    profiler::run_named(
        || format!("aten::{}", op.name()),
        &inputs,
        || apply_binary(a, b, op, reflected),
    )
}

/// A real number operand of mul/div on a half tensor, kept in float32 as the operator does
/// (`t.mul(70000.0)` of 0 is 0, not 0 * inf); None for anything else.
fn half_opmath_number(a: &Tensor, other: &Bound<'_, PyAny>) -> PyResult<Option<Operand>> {
    if !matches!(a.dtype(), DType::F16 | DType::BF16) {
        return Ok(None);
    }
    Ok(match extract_operand(other)? {
        Some(Operand::S(s @ (Scalar::Float(_) | Scalar::Int(_)))) => Some(Operand::S(s)),
        Some(Operand::T(t)) => opmath_scalar_tensor(a, &t)?,
        _ => None,
    })
}

/// A 0-d float32/float64 tensor as the second operand of mul/div/floor-div on a half tensor
/// with dims: PyTorch's kernel reads its original value in float32 instead of rounding it to
/// the half type first (bf16 x // 1.9587 is not x // 1.9609).
fn opmath_scalar_tensor(a: &Tensor, t: &Tensor) -> PyResult<Option<Operand>> {
    let applies = matches!(a.dtype(), DType::F16 | DType::BF16)
        && a.ndim() > 0
        && t.ndim() == 0
        && matches!(t.dtype(), DType::F32 | DType::F64)
        && !t.requires_grad()
        && t.device() == ferrotorch::Device::Cpu;
    Ok(if applies {
        Some(Operand::S(Scalar::Float(
            t.item().py()?.to_f64() as f32 as f64
        )))
    } else {
        None
    })
}

/// The result of a binary dunder: a tensor, or NotImplemented for foreign operands.
fn binary_dunder(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(b) = extract_operand(other)? else {
        return Ok(py.NotImplemented());
    };
    // PyTorch's __radd__/__rmul__ are add/mul with the tensor first (`t + alpha * number`).
    let reflected = reflected && !matches!(op, BinaryOp::Add | BinaryOp::Mul);
    let b = match b {
        Operand::T(t)
            if !reflected && matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDiv) =>
        {
            opmath_scalar_tensor(a, &t)?.unwrap_or(Operand::T(t))
        }
        b => b,
    };
    if reflected && op == BinaryOp::Sub && matches!(a.dtype(), DType::F16 | DType::BF16) {
        if let Operand::S(s) = &b {
            // (A bool number goes on to the refusal of bool subtraction.)
            if !matches!(s, Scalar::Complex(..) | Scalar::Bool(_)) {
                // `number - t` is rsub: the number becomes a tensor of t's half type first
                // (70000.0 is inf in float16), unlike `t - number`, which keeps it in float32.
                let n = Tensor::scalar(*s, a.dtype());
                let r = n.binary(BinaryOp::Sub, a).py()?;
                return Ok(Py::new(py, PyTensor::new(r))?.into_any());
            }
        }
    }
    if reflected && op == BinaryOp::Div {
        // PyTorch's `number / t` is `t.reciprocal() * number` (same rounding, and 0 / tiny
        // is NaN where the reciprocal overflows).
        let r = a.unary(ferrotorch::ops::unary::UnaryOp::Reciprocal).py()?;
        return binary_dunder(py, &r, other, BinaryOp::Mul, true);
    }
    // The core promotes scalars against float32; another default dtype decides here.
    let b = match b {
        Operand::S(s)
            if matches!(
                s.category(),
                ferrotorch::dtype::Category::Float | ferrotorch::dtype::Category::Complex
            ) && default_dtype() != DType::F32 =>
        {
            Operand::T(operand_tensor(a, other, op.name())?)
        }
        b => b,
    };
    let work = match &b {
        Operand::T(t) => a.numel().max(t.numel()),
        Operand::S(_) => a.numel(),
    };
    let r = maybe_detach(py, work, || {
        if profiler::is_enabled() {
            return apply_binary_profiled(a, &b, op, reflected);
        }
        apply_binary(a, &b, op, reflected)
    });
    Ok(Py::new(py, PyTensor::new(r.py()?))?.into_any())
}

/// The other operand of a method like `t.add(other)`; scalars become 0-d tensors.
pub fn operand_tensor(a: &Tensor, other: &Bound<'_, PyAny>, op: &str) -> PyResult<Tensor> {
    match extract_operand(other)? {
        Some(Operand::T(b)) => Ok(b),
        Some(Operand::S(s)) => {
            let dt = ferrotorch::dtype::result_type(
                &[
                    if a.ndim() == 0 {
                        ferrotorch::dtype::Operand::ZeroDim(a.dtype())
                    } else {
                        ferrotorch::dtype::Operand::Dim(a.dtype())
                    },
                    ferrotorch::dtype::Operand::Scalar(s.category()),
                ],
                default_dtype(),
            );
            Ok(Tensor::scalar(s, dt))
        }
        None => Err(PyTypeError::new_err(format!(
            "{op}(): argument 'other' must be Tensor or Number, not {}",
            other.get_type().name()?
        ))),
    }
}

/// `operand_tensor` for an op that computes integers in float (`div`, `true_divide`): an int
/// scalar keeps its value instead of taking the tensor's integer dtype (`uint8.div(-1)` is -1).
fn float_op_operand(a: &Tensor, other: &Bound<'_, PyAny>, op: BinaryOp) -> PyResult<Tensor> {
    if op.int_to_float() && !a.dtype().is_float() && !a.dtype().is_complex() {
        if let Some(Operand::S(s @ Scalar::Int(_))) = extract_operand(other)? {
            return Ok(Tensor::scalar(s, DType::I64));
        }
    }
    operand_tensor(a, other, op.name())
}

/// The dtype of `a + alpha * b` (0-d operands weigh less, as in PyTorch's result_type).
fn alpha_result_type(a: &Tensor, b: &Tensor) -> DType {
    let zero_dim = |t: &Tensor| {
        if t.ndim() == 0 {
            ferrotorch::dtype::Operand::ZeroDim(t.dtype())
        } else {
            ferrotorch::dtype::Operand::Dim(t.dtype())
        }
    };
    ferrotorch::dtype::result_type(&[zero_dim(a), zero_dim(b)], default_dtype())
}

/// `a + alpha * other` (`op` Add) or `a - alpha * other` (Sub), in PyTorch's result dtype:
/// a half sum computed in float32 (see [`apply_alpha`]) is rounded once, to the half type.
fn alpha_sum(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    op: BinaryOp,
) -> PyResult<Tensor> {
    let (name, aten) = if op == BinaryOp::Add {
        ("add", "aten::add")
    } else {
        ("sub", "aten::sub")
    };
    let operand = operand_tensor(a, other, name)?;
    let rt = alpha_result_type(a, &operand);
    let b = apply_alpha(a, operand, alpha)?;
    if rt.is_complex() && alpha.is_some() {
        return profiler::run(aten, &[a, &b], || complex_scaled_sum(a, &b, op, rt)).py();
    }
    let r = maybe_detach(py, a.numel(), || {
        profiler::run(aten, &[a, &b], || a.binary(op, &b))
    })
    .py()?;
    if r.dtype() != rt {
        return r.to_dtype(rt).py();
    }
    Ok(r)
}

/// Complex `a + alpha * b` given `alpha * b` (or `a - alpha * b`): PyTorch multiplies and
/// adds once, so the scaled operand's parts are added part by part (the plain complex sum
/// multiplies by 1 + 0i again, and inf - 0 * inf is NaN).
fn complex_scaled_sum(
    a: &Tensor,
    scaled: &Tensor,
    op: BinaryOp,
    rt: DType,
) -> ferrotorch::Result<Tensor> {
    let q = if op == BinaryOp::Sub {
        scaled.neg()?
    } else {
        scaled.clone()
    };
    let (ar, qr) = (
        a.to_dtype(rt)?.view_as_real()?,
        q.to_dtype(rt)?.view_as_real()?,
    );
    ar.add(&qr)?.view_as_complex()
}

/// In-place [`alpha_sum`] into `t`.
fn alpha_sum_(
    t: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    op: BinaryOp,
) -> PyResult<()> {
    let name = if op == BinaryOp::Add { "add_" } else { "sub_" };
    let operand = operand_tensor(t, other, name)?;
    let operand_dtype = operand.dtype();
    let b = apply_alpha(t, operand, alpha)?;
    if b.dtype() != operand_dtype && matches!(t.dtype(), DType::F16 | DType::BF16) {
        // alpha * b came back in float32 (see apply_alpha): sum there, round once.
        return t
            .apply_inplace(name, &[&b], |s| s.binary(op, &b)?.to_dtype(s.dtype()))
            .py();
    }
    if t.dtype().is_complex() && alpha.is_some() {
        let rt = t.dtype();
        return t
            .apply_inplace(name, &[&b], |s| complex_scaled_sum(s, &b, op, rt))
            .py();
    }
    if op == BinaryOp::Add {
        t.add_(&b).py()
    } else {
        t.binary_(BinaryOp::Sub, &b).py()
    }
}

fn apply_alpha(a: &Tensor, b: Tensor, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let Some(alpha) = alpha else { return Ok(b) };
    let s = extract_scalar(alpha)?.ok_or_else(|| PyTypeError::new_err("alpha must be a number"))?;
    // PyTorch refuses an alpha of a higher category than the result.
    let zero_dim = |t: &Tensor| {
        if t.ndim() == 0 {
            ferrotorch::dtype::Operand::ZeroDim(t.dtype())
        } else {
            ferrotorch::dtype::Operand::Dim(t.dtype())
        }
    };
    let rt = ferrotorch::dtype::result_type(&[zero_dim(a), zero_dim(&b)], default_dtype());
    let refusal = match s {
        Scalar::Bool(_) if rt != DType::Bool => {
            Some("Boolean alpha only supported for Boolean results.")
        }
        Scalar::Float(_) if !rt.is_float() && !rt.is_complex() => {
            Some("For integral input tensors, argument alpha must not be a floating point number.")
        }
        Scalar::Complex(..) if !rt.is_complex() => {
            Some("For non-complex input tensors, argument alpha must not be a complex number.")
        }
        _ => None,
    };
    if let Some(msg) = refusal {
        return Err(PyRuntimeError::new_err(msg));
    }
    ferrotorch::scalar_range::check_fits("add", s, rt).py()?;
    match s {
        Scalar::Int(1) | Scalar::Bool(true) => Ok(b),
        // A half result: alpha * b in float32, as PyTorch's kernel multiplies and adds in
        // float32 (inf + 2 * -35648 is inf, not inf - inf); the caller rounds the sum back.
        // alpha itself is first rounded to the half type.
        s if matches!(rt, DType::F16 | DType::BF16) => {
            let alpha = Tensor::scalar(s, rt).item().py()?;
            b.to_dtype(DType::F32)
                .and_then(|b| b.mul_scalar(alpha))
                .py()
        }
        // A bool sum is a logical or: any nonzero alpha keeps `b`, zero drops it.
        s if rt == DType::Bool => match s.to_i64() {
            0 => Tensor::zeros(b.shape(), DType::Bool).py(),
            _ => Ok(b),
        },
        // Scaled in the result dtype, so alpha does not promote `b` past it.
        s if b.dtype() != rt => b.to_dtype(rt).and_then(|b| b.mul_scalar(s)).py(),
        s => b.mul_scalar(s).py(),
    }
}

macro_rules! dunders {
    ($($name:ident, $rname:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    binary_dunder(py, &self.t, other, $op, false)
                }
                fn $rname(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    binary_dunder(py, &self.t, other, $op, true)
                }
            )*
        }
    };
}

dunders! {
    __add__, __radd__ => BinaryOp::Add;
    __sub__, __rsub__ => BinaryOp::Sub;
    __mul__, __rmul__ => BinaryOp::Mul;
    __truediv__, __rtruediv__ => BinaryOp::Div;
    __floordiv__, __rfloordiv__ => BinaryOp::FloorDiv;
    __mod__, __rmod__ => BinaryOp::Rem;
    __and__, __rand__ => BinaryOp::BitAnd;
    __or__, __ror__ => BinaryOp::BitOr;
    __xor__, __rxor__ => BinaryOp::BitXor;
    __lshift__, __rlshift__ => BinaryOp::Shl;
    __rshift__, __rrshift__ => BinaryOp::Shr;
}

/// Methods `t.add(other)` with the PyTorch name of each binary op.
macro_rules! binary_methods {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                    let b = operand_tensor(&self.t, other, stringify!($name))?;
                    Ok(PyTensor::new(maybe_detach(py, self.t.numel(), || self.t.binary($op, &b)).py()?))
                }
            )*
        }
    };
}

#[pymethods]
impl PyTensor {
    fn true_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let b = float_op_operand(&self.t, other, BinaryOp::Div)?;
        Ok(PyTensor::new(
            maybe_detach(py, self.t.numel(), || self.t.binary(BinaryOp::Div, &b)).py()?,
        ))
    }
}

binary_methods! {
    floor_divide => BinaryOp::FloorDiv;
    remainder => BinaryOp::Rem;
    maximum => BinaryOp::Maximum;
    minimum => BinaryOp::Minimum;
    atan2 => BinaryOp::Atan2;
    arctan2 => BinaryOp::Atan2;
    bitwise_and => BinaryOp::BitAnd;
    bitwise_or => BinaryOp::BitOr;
    bitwise_xor => BinaryOp::BitXor;
    bitwise_left_shift => BinaryOp::Shl;
    bitwise_right_shift => BinaryOp::Shr;
    eq => BinaryOp::Eq;
    ne => BinaryOp::Ne;
    lt => BinaryOp::Lt;
    le => BinaryOp::Le;
    gt => BinaryOp::Gt;
    ge => BinaryOp::Ge;
    less => BinaryOp::Lt;
    greater => BinaryOp::Gt;
    less_equal => BinaryOp::Le;
    greater_equal => BinaryOp::Ge;
    not_equal => BinaryOp::Ne;
    logical_and => BinaryOp::LogicalAnd;
    logical_or => BinaryOp::LogicalOr;
    logical_xor => BinaryOp::LogicalXor;
}

/// In-place forms `t.mul_(other)`; they return the tensor itself.
/// `t.op_(other)`: a number (or untracked 0-d float tensor) times or over a half tensor
/// stays in float32, as in `mul`/`div` (`x.mul_(70000.0)` of 0.82 is 57536, not inf).
fn inplace_binary(t: &Tensor, other: &Bound<'_, PyAny>, op: BinaryOp, name: &str) -> PyResult<()> {
    if matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDiv) {
        if let Some(s) = half_opmath_number(t, other)? {
            return t
                .apply_inplace(&format!("{}_", op.name()), &[], |x| {
                    apply_binary(x, &s, op, false)
                })
                .py();
        }
    }
    let b = operand_tensor(t, other, name)?;
    t.binary_(op, &b).py()
}

macro_rules! inplace_binary_methods {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name<'py>(slf: PyRef<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, Self>> {
                    inplace_binary(&slf.t, other, $op, stringify!($name))?;
                    Ok(slf)
                }
            )*
        }
    };
}

inplace_binary_methods! {
    mul_ => BinaryOp::Mul;
    div_ => BinaryOp::Div;
    pow_ => BinaryOp::Pow;
    floor_divide_ => BinaryOp::FloorDiv;
    remainder_ => BinaryOp::Rem;
    bitwise_and_ => BinaryOp::BitAnd;
    bitwise_or_ => BinaryOp::BitOr;
    bitwise_xor_ => BinaryOp::BitXor;
    maximum_ => BinaryOp::Maximum;
    minimum_ => BinaryOp::Minimum;
}

/// Augmented assignment (`t *= 2`): PyO3 hands back `self` when these return `()`.
macro_rules! inplace_dunders {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
                    inplace_binary(&self.t, other, $op, stringify!($name))
                }
            )*
        }
    };
}

inplace_dunders! {
    __imul__ => BinaryOp::Mul;
    __itruediv__ => BinaryOp::Div;
    __ifloordiv__ => BinaryOp::FloorDiv;
    __imod__ => BinaryOp::Rem;
    __iand__ => BinaryOp::BitAnd;
    __ior__ => BinaryOp::BitOr;
    __ixor__ => BinaryOp::BitXor;
    __isub__ => BinaryOp::Sub;
}

#[pymethods]
impl PyTensor {
    fn __ipow__(&self, other: &Bound<'_, PyAny>, _mod: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let b = operand_tensor(&self.t, other, "pow_")?;
        self.t.binary_(BinaryOp::Pow, &b).py()
    }
    fn __iadd__(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = operand_tensor(&self.t, other, "add_")?;
        self.t.add_(&b).py()
    }

    /// `Tensor(data)`: like `ferrotorch.tensor(data)` with the default float dtype;
    /// `Tensor(t)` aliases `t` (used by `nn.Parameter`).
    #[new]
    #[pyo3(signature = (*args))]
    fn py_new(args: &Bound<'_, PyTuple>) -> PyResult<Self> {
        if args.is_empty() {
            return Ok(PyTensor::new(Tensor::zeros(&[0], default_dtype()).py()?));
        }
        let a0 = args.get_item(0)?;
        if args.len() == 1 {
            if let Ok(t) = a0.cast::<PyTensor>() {
                return Ok(PyTensor::new(t.borrow().t.detach()));
            }
            if a0.is_instance_of::<PyList>() || a0.is_instance_of::<PyTuple>() {
                let t = crate::creation::tensor_from_data(&a0, Some(default_dtype()))?;
                return Ok(PyTensor::new(t));
            }
        }
        let sizes = sizes_from_args(args)?;
        let shape = crate::convert::to_usize_shape("Tensor", &sizes)?;
        Ok(PyTensor::new(Tensor::zeros(&shape, default_dtype()).py()?))
    }

    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        _mod: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        binary_dunder(py, &self.t, other, BinaryOp::Pow, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        _mod: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        binary_dunder(py, &self.t, other, BinaryOp::Pow, true)
    }
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(o) = other.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let o = o.borrow();
        let (a, b) = crate::autocast::cast_pair("matmul", &self.t, &o.t)?;
        let r = profiler::run("aten::matmul", &[&a, &b], || py.detach(|| a.matmul(&b))).py()?;
        Ok(Py::new(py, PyTensor::new(r))?.into_any())
    }
    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(o) = other.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let o = o.borrow();
        let (b, a) = crate::autocast::cast_pair("matmul", &o.t, &self.t)?;
        let r = profiler::run("aten::matmul", &[&b, &a], || py.detach(|| b.matmul(&a))).py()?;
        Ok(Py::new(py, PyTensor::new(r))?.into_any())
    }
    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: pyo3::basic::CompareOp,
    ) -> PyResult<Py<PyAny>> {
        use pyo3::basic::CompareOp::*;
        let bop = match op {
            Lt => BinaryOp::Lt,
            Le => BinaryOp::Le,
            Eq => BinaryOp::Eq,
            Ne => BinaryOp::Ne,
            Gt => BinaryOp::Gt,
            Ge => BinaryOp::Ge,
        };
        binary_dunder(py, &self.t, other, bop, false)
    }
    fn __neg__(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.neg().py()?))
    }
    fn __pos__(&self) -> PyTensor {
        PyTensor::new(self.t.clone())
    }
    fn __abs__(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.abs().py()?))
    }
    fn __invert__(&self) -> PyResult<PyTensor> {
        // The operator refuses floats with a TypeError; bitwise_not() with NotImplementedError.
        if self.t.dtype().is_float() || self.t.dtype().is_complex() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        self.bitwise_not()
    }
    /// `~t`: logical not for bool, bitwise not for integers.
    fn bitwise_not(&self) -> PyResult<PyTensor> {
        let t = &self.t;
        let r = match t.dtype() {
            DType::Bool => t.binary_scalar(BinaryOp::Eq, Scalar::Bool(false)),
            d if d.is_float() => {
                return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                    "bitwise_not: \"bitwise_not_cpu\" not implemented for '{}'",
                    d.name()
                )))
            }
            _ => t.binary_scalar(BinaryOp::BitXor, Scalar::Int(-1)),
        };
        Ok(PyTensor::new(r.py()?))
    }
    fn logical_not(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t
                .binary_scalar(BinaryOp::Eq, Scalar::Int(0))
                .and_then(|r| r.to_dtype(DType::Bool))
                .py()?,
        ))
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn add(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        Ok(PyTensor::new(alpha_sum(
            py,
            &self.t,
            other,
            alpha,
            BinaryOp::Add,
        )?))
    }
    #[pyo3(signature = (other, *, alpha=None))]
    fn sub(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        Ok(PyTensor::new(alpha_sum(
            py,
            &self.t,
            other,
            alpha,
            BinaryOp::Sub,
        )?))
    }
    #[pyo3(signature = (other, *, alpha=None))]
    fn subtract(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        self.sub(py, other, alpha)
    }
    fn mul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        if let Some(s) = half_opmath_number(&self.t, other)? {
            let r = maybe_detach(py, self.t.numel(), || {
                apply_binary(&self.t, &s, BinaryOp::Mul, false)
            });
            return Ok(PyTensor::new(r.py()?));
        }
        let b = operand_tensor(&self.t, other, "mul")?;
        let r = maybe_detach(py, self.t.numel(), || {
            profiler::run("aten::mul", &[&self.t, &b], || self.t.mul(&b))
        });
        Ok(PyTensor::new(r.py()?))
    }
    fn multiply(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.mul(py, other)
    }
    /// `div(other, rounding_mode=None|'trunc'|'floor')`.
    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn div(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        rounding_mode: Option<&str>,
    ) -> PyResult<PyTensor> {
        let op = match rounding_mode {
            None => BinaryOp::Div,
            Some("floor") => BinaryOp::FloorDiv,
            Some("trunc") => BinaryOp::TruncDiv,
            Some(m) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
            )))
            }
        };
        if op == BinaryOp::Div {
            if let Some(s) = half_opmath_number(&self.t, other)? {
                let r = maybe_detach(py, self.t.numel(), || {
                    apply_binary(&self.t, &s, BinaryOp::Div, false)
                });
                return Ok(PyTensor::new(r.py()?));
            }
        }
        let b = float_op_operand(&self.t, other, op)?;
        let r = profiler::run("aten::div", &[&self.t, &b], || match op {
            BinaryOp::Div => py.detach(|| self.t.div(&b)),
            _ => self.t.binary(op, &b),
        });
        Ok(PyTensor::new(r.py()?))
    }
    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn divide(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        rounding_mode: Option<&str>,
    ) -> PyResult<PyTensor> {
        self.div(py, other, rounding_mode)
    }
    fn pow(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        // A scalar exponent goes through binary_scalar, which rejects negative integer powers.
        if let Some(Operand::S(s)) = extract_operand(exponent)? {
            return Ok(PyTensor::new(self.t.binary_scalar(BinaryOp::Pow, s).py()?));
        }
        let b = operand_tensor(&self.t, exponent, "pow")?;
        Ok(PyTensor::new(py.detach(|| self.t.pow(&b)).py()?))
    }
    fn float_power(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let b = operand_tensor(&self.t, exponent, "float_power")?;
        // Double precision: complex128 when either side is complex, else float64.
        let dt = if self.t.dtype().is_complex() || b.dtype().is_complex() {
            DType::C128
        } else {
            DType::F64
        };
        let a = self.t.to_dtype(dt).py()?;
        let b = b.to_dtype(dt).py()?;
        Ok(PyTensor::new(py.detach(|| a.pow(&b)).py()?))
    }
    #[pyo3(signature = (other, *, alpha=None))]
    fn add_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        alpha_sum_(&slf.t, other, alpha, BinaryOp::Add)?;
        Ok(slf)
    }
    #[pyo3(signature = (other, *, alpha=None))]
    fn sub_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        alpha_sum_(&slf.t, other, alpha, BinaryOp::Sub)?;
        Ok(slf)
    }

    fn matmul(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let (a, b) = crate::autocast::cast_pair("matmul", &self.t, &other.t)?;
        let r = profiler::run("aten::matmul", &[&a, &b], || py.detach(|| a.matmul(&b)));
        Ok(PyTensor::new(r.py()?))
    }
    fn mm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let (a, b) = crate::autocast::cast_pair("mm", &self.t, &mat2.t)?;
        let r = profiler::run("aten::mm", &[&a, &b], || py.detach(|| a.mm(&b)));
        Ok(PyTensor::new(r.py()?))
    }
    fn bmm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let (a, b) = crate::autocast::cast_pair("bmm", &self.t, &mat2.t)?;
        let r = profiler::run("aten::bmm", &[&a, &b], || py.detach(|| a.bmm(&b)));
        Ok(PyTensor::new(r.py()?))
    }
    fn mv(&self, vec: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let (a, b) = crate::autocast::cast_pair("mv", &self.t, &vec.t)?;
        Ok(PyTensor::new(a.mv(&b).py()?))
    }
    fn dot(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        let (a, b) = crate::autocast::cast_pair("dot", &self.t, &other.t)?;
        Ok(PyTensor::new(a.dot(&b).py()?))
    }
    fn inner(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.dot(&other.t).py()?))
    }
    fn outer(&self, vec2: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.outer(&vec2.t).py()?))
    }
    fn ger(&self, vec2: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        self.outer(vec2)
    }

    // ---- properties ----

    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::size::make_size(py, self.t.shape())
    }
    /// `size()` or `size(dim)`.
    #[pyo3(signature = (dim=None))]
    fn size(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        match dim {
            None => crate::size::make_size(py, self.t.shape()),
            Some(d) => Ok(self
                .t
                .size_at(d)
                .py()?
                .into_pyobject(py)?
                .into_any()
                .unbind()),
        }
    }
    #[getter]
    fn dtype(&self, py: Python<'_>) -> Py<PyDType> {
        dtype_obj(py, self.t.dtype())
    }
    #[getter]
    fn device(&self) -> crate::device::PyDevice {
        crate::device::PyDevice { d: self.t.device() }
    }
    #[getter]
    fn is_cuda(&self) -> bool {
        !matches!(self.t.device(), ferrotorch::Device::Cpu)
    }
    #[getter]
    fn is_cpu(&self) -> bool {
        matches!(self.t.device(), ferrotorch::Device::Cpu)
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.t.ndim()
    }
    fn dim(&self) -> usize {
        self.t.ndim()
    }
    fn ndimension(&self) -> usize {
        self.t.ndim()
    }
    fn numel(&self) -> usize {
        self.t.numel()
    }
    fn nelement(&self) -> usize {
        self.t.numel()
    }
    fn element_size(&self) -> usize {
        self.t.dtype().size()
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.t.dtype().size()
    }
    #[getter]
    fn nbytes(&self) -> usize {
        self.t.dtype().size() * self.t.numel()
    }
    #[pyo3(signature = (dim=None))]
    fn stride(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        match dim {
            None => Ok(PyTuple::new(py, self.t.strides())?.into_any().unbind()),
            Some(d) => {
                let d = ferrotorch::layout::wrap_dim("stride", d, self.t.ndim()).py()?;
                Ok(self.t.strides()[d].into_pyobject(py)?.into_any().unbind())
            }
        }
    }
    fn storage_offset(&self) -> usize {
        self.t.offset()
    }
    fn data_ptr(&self) -> usize {
        self.t.data_ptr()
    }
    /// Version counter of the storage (bumped by in-place ops).
    #[getter]
    fn _version(&self) -> u64 {
        self.t.version()
    }
    fn is_contiguous(&self) -> bool {
        self.t.is_contiguous()
    }
    fn is_floating_point(&self) -> bool {
        self.t.dtype().is_float()
    }
    fn is_signed(&self) -> bool {
        !matches!(self.t.dtype(), DType::U8 | DType::Bool)
    }
    /// `get_device()` (attached under that name in Python): -1 for CPU.
    fn _device_index(&self) -> i64 {
        match self.t.device() {
            ferrotorch::Device::Cpu => -1,
            ferrotorch::Device::Cuda(i) => i as i64,
        }
    }
    #[getter]
    fn is_sparse(&self) -> bool {
        false
    }
    #[getter]
    fn is_quantized(&self) -> bool {
        false
    }
    #[getter]
    fn is_meta(&self) -> bool {
        false
    }
    #[getter]
    fn layout(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.import("ferrotorch")?.getattr("strided")?.unbind())
    }
    /// Two tensors are the same object when they wrap the same core tensor.
    fn _cdata(&self) -> usize {
        self.t.id()
    }
    fn untyped_storage_ptr(&self) -> usize {
        self.t.storage().ptr() as usize
    }

    // ---- conversion ----

    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_to_py(py, self.t.item().py()?)
    }
    fn __float__(&self) -> PyResult<f64> {
        real_item(&self.t)
    }
    fn __int__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = real_item(&self.t)?;
        if self.t.dtype().is_float() || self.t.dtype().is_complex() {
            // Python's int(float): NaN is a ValueError, inf an OverflowError, big values exact.
            return Ok(pyo3::types::PyFloat::new(py, v)
                .call_method0("__int__")?
                .unbind());
        }
        Ok(self
            .t
            .item()
            .py()?
            .to_i64()
            .into_pyobject(py)?
            .into_any()
            .unbind())
    }
    fn __index__(&self) -> PyResult<i64> {
        if self.t.dtype().is_float() || self.t.numel() != 1 {
            return Err(PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(self.t.item().py()?.to_i64())
    }
    fn __bool__(&self) -> PyResult<bool> {
        if self.t.numel() != 1 {
            return Err(PyRuntimeError::new_err(format!(
                "Boolean value of Tensor with more than one value is ambiguous (shape {:?})",
                self.t.shape()
            )));
        }
        let (re, im) = self.t.item().py()?.to_complex();
        Ok(re != 0.0 || im != 0.0)
    }
    fn __len__(&self) -> PyResult<usize> {
        if self.t.ndim() == 0 {
            return Err(PyTypeError::new_err("len() of a 0-d tensor"));
        }
        Ok(self.t.shape()[0])
    }
    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::creation::to_list(py, &self.t)
    }
    fn __hash__(&self) -> usize {
        self.t.id()
    }

    /// `to(dtype)`, `to(device)`, `to(other)`, `to(device, dtype)`, with `copy=`.
    #[pyo3(signature = (*args, dtype=None, device=None, non_blocking=false, copy=false))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
        copy: bool,
    ) -> PyResult<Py<PyAny>> {
        let mut target = dtype.map(extract_dtype).transpose()?;
        let mut dev = crate::creation::check_device(device)?;
        for a in args.iter() {
            if let Ok(t) = a.cast::<PyTensor>() {
                let o = t.borrow();
                target = Some(o.t.dtype());
                dev = Some(o.t.device());
            } else if let Ok(d) = extract_dtype(&a) {
                target = Some(d);
            } else if a.is_none() {
            } else {
                let d = crate::device::extract_device(&a)?;
                crate::device::ensure_available(slf.py(), d)?;
                dev = Some(d);
            }
        }
        let t = slf.borrow().t.clone();
        let moved = match dev {
            Some(d) if d != t.device() => Some(t.to_device_with(d, non_blocking).py()?),
            _ => None,
        };
        let src = moved.clone().unwrap_or(t);
        let out = match target {
            Some(d) if d != src.dtype() => src.to_dtype(d).py()?,
            _ if moved.is_some() => src,
            _ if copy => src.clone_tensor().py()?,
            _ => return Ok(slf.clone().into_any().unbind()),
        };
        Ok(Py::new(slf.py(), PyTensor::new(out))?.into_any())
    }
    #[pyo3(signature = (dtype=None))]
    fn r#type(&self, py: Python<'_>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        match dtype {
            None => Ok(format!("torch.{}", self.t.dtype().legacy_name())
                .into_pyobject(py)?
                .into_any()
                .unbind()),
            Some(d) => Ok(
                Py::new(py, PyTensor::new(self.t.to_dtype(extract_dtype(d)?).py()?))?.into_any(),
            ),
        }
    }
    fn type_as(&self, other: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(other.t.dtype()).py()?))
    }
    /// `cpu()`: self when already on the host, else a copy (waits for the device).
    #[pyo3(signature = (memory_format=None))]
    fn cpu(slf: PyRef<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format;
        if slf.t.device() == ferrotorch::Device::Cpu {
            let py = slf.py();
            return Ok(slf.into_pyobject(py)?.into_any().unbind());
        }
        let out = slf.t.to_device(ferrotorch::Device::Cpu).py()?;
        Ok(Py::new(slf.py(), PyTensor::new(out))?.into_any())
    }
    /// `cuda(device=None, non_blocking=False)`: self when already on that GPU, else a copy.
    #[pyo3(signature = (device=None, non_blocking=false, memory_format=None))]
    fn cuda(
        slf: PyRef<'_, Self>,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = memory_format;
        let dev = match device {
            Some(d) if !d.is_none() => match crate::device::extract_device(d)? {
                ferrotorch::Device::Cpu => {
                    return Err(PyRuntimeError::new_err(
                        "Invalid device, must be cuda device",
                    ))
                }
                d => d,
            },
            _ => ferrotorch::Device::Cuda(ferrotorch::cuda::api::current_device().unwrap_or(0)),
        };
        crate::device::ensure_available(slf.py(), dev)?;
        if slf.t.device() == dev {
            let py = slf.py();
            return Ok(slf.into_pyobject(py)?.into_any().unbind());
        }
        let out = slf.t.to_device_with(dev, non_blocking).py()?;
        Ok(Py::new(slf.py(), PyTensor::new(out))?.into_any())
    }
    /// `is_pinned()`: whether the tensor is in page-locked host memory.
    #[pyo3(signature = (device=None))]
    fn is_pinned(&self, device: Option<&Bound<'_, PyAny>>) -> bool {
        let _ = device;
        self.t.storage().is_pinned()
    }
    /// `pin_memory()`: a copy in page-locked host memory (self when pinned already).
    #[pyo3(signature = (device=None))]
    fn pin_memory(slf: PyRef<'_, Self>, device: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = device;
        let py = slf.py();
        crate::device::ensure_available(py, ferrotorch::Device::Cuda(0)).map_err(|_| {
            PyRuntimeError::new_err(
                "pin_memory: cannot pin memory without an accelerator (found no NVIDIA driver on your system)",
            )
        })?;
        if slf.t.storage().is_pinned() {
            return Ok(slf.into_pyobject(py)?.into_any().unbind());
        }
        let out = slf.t.pin_memory().py()?;
        Ok(Py::new(py, PyTensor::new(out))?.into_any())
    }
    fn float(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::F32).py()?))
    }
    fn double(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::F64).py()?))
    }
    fn half(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::F16).py()?))
    }
    fn bfloat16(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::BF16).py()?))
    }
    fn long(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::I64).py()?))
    }
    fn int(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::I32).py()?))
    }
    fn short(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::I16).py()?))
    }
    fn char(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::I8).py()?))
    }
    fn byte(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::U8).py()?))
    }
    fn bool(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(self.t.to_dtype(DType::Bool).py()?))
    }
    #[pyo3(signature = (*, memory_format=None))]
    fn clone(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let _ = memory_format;
        Ok(PyTensor::new(self.t.clone_tensor().py()?))
    }
    #[pyo3(signature = (memory_format=None))]
    fn contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let _ = memory_format;
        Ok(PyTensor::new(self.t.contiguous().py()?))
    }

    // ---- autograd ----

    #[getter]
    fn requires_grad(&self) -> bool {
        self.t.requires_grad()
    }
    #[setter(requires_grad)]
    fn set_requires_grad_attr(&self, flag: bool) -> PyResult<()> {
        self.t.set_requires_grad(flag).py()
    }
    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(slf: PyRef<'_, Self>, requires_grad: bool) -> PyResult<PyRef<'_, Self>> {
        slf.t.set_requires_grad(requires_grad).py()?;
        Ok(slf)
    }
    #[getter]
    fn grad(&self) -> Option<PyTensor> {
        self.t.grad().map(PyTensor::new)
    }
    #[setter(grad)]
    fn set_grad(&self, g: Option<PyRef<'_, PyTensor>>) -> PyResult<()> {
        self.t.set_grad(g.map(|g| g.t.clone())).py()
    }
    #[getter]
    fn grad_fn(&self) -> Option<crate::autograd::PyNode> {
        self.t
            .grad_fn()
            .map(|n| crate::autograd::PyNode { node: n })
    }
    #[getter]
    fn is_leaf(&self) -> bool {
        self.t.is_leaf()
    }
    #[getter]
    fn retains_grad(&self) -> bool {
        self.t.retains_grad()
    }
    fn retain_grad(&self) -> PyResult<()> {
        self.t.retain_grad().py()
    }
    fn detach(&self) -> PyTensor {
        PyTensor::new(self.t.detach())
    }
    fn detach_(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf.t.detach_in_place();
        slf
    }
    /// `.data`: the same memory without history.
    #[getter]
    fn data(&self) -> PyTensor {
        PyTensor::new(self.t.detach())
    }
    /// `t.data = other`: this object now shows `other`'s memory, whatever its shape and dtype
    /// (PyTorch rebinds the storage, so the two share it; grad and requires_grad stay).
    #[setter(data)]
    fn set_data(mut slf: PyRefMut<'_, Self>, other: PyRef<'_, PyTensor>) -> PyResult<()> {
        if slf.t.requires_grad() && !other.t.dtype().is_differentiable() {
            return Err(PyRuntimeError::new_err(format!(
                "data set to a tensor that requires gradients must be floating point or complex dtype (got {})",
                other.t.dtype().name()
            )));
        }
        slf.t = slf.t.with_data_of(&other.t);
        Ok(())
    }
    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<PyRef<'_, PyTensor>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let g = match gradient {
            Some(g) => g.t.clone(),
            None => {
                if self.t.numel() != 1 {
                    return Err(PyRuntimeError::new_err(format!(
                        "grad can be implicitly created only for scalar outputs (got shape {:?})",
                        self.t.shape()
                    )));
                }
                Tensor::ones_like_tensor(&self.t).py()?
            }
        };
        let root = self.t.clone();
        let retain = retain_graph.unwrap_or(create_graph);
        let inputs = inputs.map(crate::autograd::tensors_of).transpose()?;
        py.detach(|| match inputs {
            Some(ins) => {
                ferrotorch::autograd::backward_to(&[root], &[g], &ins, retain, create_graph)
            }
            None => ferrotorch::autograd::backward(&[root], &[g], retain, create_graph),
        })
        .map_err(crate::autograd::take_error)
    }
    /// Registers `hook(grad)`; returns a handle with `remove()`.
    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let id = self.t.register_hook(crate::autograd::py_hook(hook)).py()?;
        let t = PyTensor::new(self.t.clone());
        crate::autograd::make_handle(py, t, id)
    }
    /// Registers `hook(tensor)`, called after backward accumulated this leaf's `.grad`.
    fn register_post_accumulate_grad_hook(
        &self,
        py: Python<'_>,
        hook: Py<PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let id = self
            .t
            .register_post_accumulate_grad_hook(crate::autograd::py_post_accumulate_hook(hook))
            .py()?;
        crate::autograd::make_handle(py, PyTensor::new(self.t.clone()), id)
    }
    fn _remove_hook(&self, id: usize) {
        self.t.remove_hook(id);
    }
}
