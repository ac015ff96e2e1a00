//! Kernels behind `nn.functional`: convolutions, unfold/fold, pooling, nll_loss and dropout.

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

/// `avg_pool2d` over [N, C, H, W] in one kernel each way (the Python composition of unfold
/// and sums serves the host).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _avg_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel_size: Pair,
    stride: Pair,
    padding: Pair,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> PyResult<PyTensor> {
    let x = input.t.clone();
    let y = ferrotorch::profiler::run("aten::avg_pool2d", &[&x], || {
        py.detach(|| {
            x.avg_pool2d(
                [kernel_size.0, kernel_size.1],
                [stride.0, stride.1],
                [padding.0, padding.1],
                ceil_mode,
                count_include_pad,
                divisor_override,
            )
        })
    })
    .py()?;
    Ok(PyTensor::new(y))
}

/// `nll_loss` of log-probabilities [N, C] at int targets [N] (reduction "none", "mean" or
/// "sum"), one fused kernel each way on a GPU.
#[pyfunction]
#[pyo3(signature = (input, target, weight, ignore_index, reduction))]
pub fn _nll_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    ignore_index: i64,
    reduction: &str,
) -> PyResult<PyTensor> {
    use ferrotorch::nn::functional::{nll_loss, Reduction};
    let red = match reduction {
        "none" => Reduction::None,
        "sum" => Reduction::Sum,
        _ => Reduction::Mean,
    };
    let (x, t, w) = (
        input.t.clone(),
        target.t.clone(),
        weight.map(|w| w.t.clone()),
    );
    let y = py
        .detach(|| nll_loss(&x, &t, w.as_ref(), ignore_index, red))
        .py()?;
    Ok(PyTensor::new(y))
}

/// `dropout` while training: mask and scale in one kernel on a GPU.
#[pyfunction]
pub fn _dropout(py: Python<'_>, input: PyRef<'_, PyTensor>, p: f64) -> PyResult<PyTensor> {
    let x = input.t.clone();
    let y = py
        .detach(|| ferrotorch::nn::functional::dropout(&x, p, true, None))
        .py()?;
    Ok(PyTensor::new(y))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_avg_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_dropout, m)?)?;
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
    m.add_function(wrap_pyfunction!(_normalize_last, m)?)?;
    m.add_function(wrap_pyfunction!(_fused_attention, m)?)
}

/// `softmax(q k^T * scale + mask) v` (causal: top-left mask) as one fused node;
/// float32/float64 CPU operands with equal batch dims, an additive mask of their dtype
/// (`scaled_dot_product_attention` checks first).
#[pyfunction]
#[pyo3(signature = (query, key, value, scale, is_causal, attn_mask=None))]
pub fn _fused_attention(
    py: Python<'_>,
    query: PyRef<'_, PyTensor>,
    key: PyRef<'_, PyTensor>,
    value: PyRef<'_, PyTensor>,
    scale: f64,
    is_causal: bool,
    attn_mask: Option<PyRef<'_, PyTensor>>,
) -> PyResult<PyTensor> {
    let (q, k, v) = (query.t.clone(), key.t.clone(), value.t.clone());
    let m = attn_mask.map(|m| m.t.clone());
    let y = py
        .detach(|| Tensor::fused_attention(&q, &k, &v, m.as_ref(), scale, is_causal))
        .py()?;
    Ok(PyTensor::new(y))
}
