//! Elementwise unary methods (`t.exp()`, `t.exp_()`, ...), generated from one table.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::ops::UnaryOp;
use pyo3::prelude::*;

macro_rules! unary_methods {
    ($($name:ident, $name_:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>) -> PyResult<PyTensor> {
                    let t = crate::autocast::cast_one($op.name(), &self.t)?;
                    let name = concat!("aten::", stringify!($name));
                    let r = ferrotorch::profiler::run(name, &[&t], || py.detach(|| t.unary($op)));
                    Ok(PyTensor::new(r.py()?))
                }
                fn $name_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
                    if $op == UnaryOp::Abs && slf.t.dtype().is_complex() {
                        return Err(pyo3::exceptions::PyRuntimeError::new_err(
                            "In-place abs is not supported for complex tensors.",
                        ));
                    }
                    slf.t.apply_inplace(concat!(stringify!($name), "_"), &[], |s| s.unary($op)).py()?;
                    Ok(slf)
                }
            )*
        }
    };
}

unary_methods! {
    neg, neg_ => UnaryOp::Neg;
    negative, negative_ => UnaryOp::Neg;
    abs, abs_ => UnaryOp::Abs;
    absolute, absolute_ => UnaryOp::Abs;
    sign, sign_ => UnaryOp::Sign;
    relu, relu_ => UnaryOp::Relu;
    floor, floor_ => UnaryOp::Floor;
    ceil, ceil_ => UnaryOp::Ceil;
    trunc, trunc_ => UnaryOp::Trunc;
    fix, fix_ => UnaryOp::Trunc;
    frac, frac_ => UnaryOp::Frac;
    exp, exp_ => UnaryOp::Exp;
    exp2, exp2_ => UnaryOp::Exp2;
    expm1, expm1_ => UnaryOp::Expm1;
    log, log_ => UnaryOp::Log;
    log2, log2_ => UnaryOp::Log2;
    log10, log10_ => UnaryOp::Log10;
    log1p, log1p_ => UnaryOp::Log1p;
    sqrt, sqrt_ => UnaryOp::Sqrt;
    rsqrt, rsqrt_ => UnaryOp::Rsqrt;
    sin, sin_ => UnaryOp::Sin;
    cos, cos_ => UnaryOp::Cos;
    tan, tan_ => UnaryOp::Tan;
    asin, asin_ => UnaryOp::Asin;
    arcsin, arcsin_ => UnaryOp::Asin;
    acos, acos_ => UnaryOp::Acos;
    arccos, arccos_ => UnaryOp::Acos;
    atan, atan_ => UnaryOp::Atan;
    arctan, arctan_ => UnaryOp::Atan;
    sinh, sinh_ => UnaryOp::Sinh;
    cosh, cosh_ => UnaryOp::Cosh;
    tanh, tanh_ => UnaryOp::Tanh;
    sigmoid, sigmoid_ => UnaryOp::Sigmoid;
    silu, silu_ => UnaryOp::Silu;
    erf, erf_ => UnaryOp::Erf;
    erfinv, erfinv_ => UnaryOp::Erfinv;
    reciprocal, reciprocal_ => UnaryOp::Reciprocal;
}
