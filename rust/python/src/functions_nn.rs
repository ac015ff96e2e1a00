//! Kernels behind `nn.functional`: convolutions, unfold/fold and max pooling.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::ops::unfold::Window;
use ferrotorch::Tensor;
use pyo3::prelude::*;

type Pair = (usize, usize);

/// The tensor arguments of a weighted op, for the profiler's input shapes.
fn inputs_of<'a>(x: &'a Tensor, w: &'a Tensor, b: Option<&'a Tensor>) -> Vec<&'a Tensor> {
    [x, w].into_iter().chain(b).collect()
}

fn win(kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Window {
    Window {
        kernel: [kernel.0, kernel.1],
        dilation: [dilation.0, dilation.1],
        padding: [padding.0, padding.1],
        stride: [stride.0, stride.1],
    }
}

/// `linear(input, weight, bias)`: one fused node for x W^T + b.
#[pyfunction]
#[pyo3(signature = (input, weight, bias=None))]
pub fn _linear(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
) -> PyResult<PyTensor> {
    let (mut x, mut w, mut b) = (input.t.clone(), weight.t.clone(), bias.map(|b| b.t.clone()));
    let inputs = inputs_of(&x, &w, b.as_ref());
    if let Some(mut cast) = crate::autocast::cast_inputs("linear", &inputs)? {
        b = b.map(|_| cast.pop().expect("bias"));
        w = cast.pop().expect("weight");
        x = cast.pop().expect("input");
    }
    let r = ferrotorch::profiler::run("aten::linear", &inputs_of(&x, &w, b.as_ref()), || {
        py.detach(|| x.linear(&w, b.as_ref()))
    });
    Ok(PyTensor::new(r.py()?))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _conv2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
    stride: Pair,
    padding: Pair,
    dilation: Pair,
    groups: usize,
) -> PyResult<PyTensor> {
    let (x, w, b) = (input.t.clone(), weight.t.clone(), bias.map(|b| b.t.clone()));
    let r = py.detach(|| {
        x.conv2d(
            &w,
            b.as_ref(),
            [stride.0, stride.1],
            [padding.0, padding.1],
            [dilation.0, dilation.1],
            groups,
        )
    });
    Ok(PyTensor::new(r.py()?))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _conv_transpose2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
    stride: Pair,
    padding: Pair,
    output_padding: Pair,
    groups: usize,
    dilation: Pair,
) -> PyResult<PyTensor> {
    let (x, w, b) = (input.t.clone(), weight.t.clone(), bias.map(|b| b.t.clone()));
    let r = py.detach(|| {
        x.conv_transpose2d(
            &w,
            b.as_ref(),
            [stride.0, stride.1],
            [padding.0, padding.1],
            [output_padding.0, output_padding.1],
            groups,
            [dilation.0, dilation.1],
        )
    });
    Ok(PyTensor::new(r.py()?))
}

#[pyfunction]
pub fn _unfold(
    input: PyRef<'_, PyTensor>,
    kernel_size: Pair,
    dilation: Pair,
    padding: Pair,
    stride: Pair,
) -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        input
            .t
            .im2col(win(kernel_size, dilation, padding, stride))
            .py()?,
    ))
}

#[pyfunction]
pub fn _fold(
    input: PyRef<'_, PyTensor>,
    output_size: Pair,
    kernel_size: Pair,
    dilation: Pair,
    padding: Pair,
    stride: Pair,
) -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        input
            .t
            .col2im(
                [output_size.0, output_size.1],
                win(kernel_size, dilation, padding, stride),
            )
            .py()?,
    ))
}

#[pyfunction]
pub fn _max_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel_size: Pair,
    stride: Pair,
    padding: Pair,
    dilation: Pair,
    ceil_mode: bool,
) -> PyResult<(PyTensor, PyTensor)> {
    let x = input.t.clone();
    let window = win(kernel_size, dilation, padding, stride);
    let (v, i) = ferrotorch::profiler::run("aten::max_pool2d_with_indices", &[&x], || {
        py.detach(|| x.max_pool2d(window, ceil_mode))
    })
    .py()?;
    Ok((PyTensor::new(v), PyTensor::new(i)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_linear, m)?)?;
    m.add_function(wrap_pyfunction!(_conv2d, m)?)?;
    m.add_function(wrap_pyfunction!(_conv_transpose2d, m)?)?;
    m.add_function(wrap_pyfunction!(_unfold, m)?)?;
    m.add_function(wrap_pyfunction!(_fold, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool2d, m)?)?;
    Ok(())
}

/// Normalizes over the last `k` dims; returns (y, mean, rstd).
#[pyfunction]
pub fn _normalize_last(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    k: usize,
    eps: f64,
) -> PyResult<(PyTensor, PyTensor, PyTensor)> {
    let x = input.t.clone();
    let (y, m, r) = py.detach(|| x.normalize_last(k, eps)).py()?;
    Ok((PyTensor::new(y), PyTensor::new(m), PyTensor::new(r)))
}

pub fn register_norm(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_normalize_last, m)?)
}
