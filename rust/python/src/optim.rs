//! Binding of the fused optimizer steps: one call per parameter group.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::optim::{fused_step, Rule};
use ferrotorch::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn get<'py, T: FromPyObjectOwned<'py>>(h: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    h.get_item(key)?
        .ok_or_else(|| {
            PyValueError::new_err(format!("_fused_step: missing hyper-parameter '{key}'"))
        })?
        .extract()
        .map_err(Into::into)
}

use pyo3::conversion::FromPyObjectOwned;

/// `_fused_step(rule, params, grads, states, hyper)`: updates parameters and states in place.
#[pyfunction]
pub fn _fused_step(
    py: Python<'_>,
    rule: &str,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    states: Vec<Vec<PyRef<'_, PyTensor>>>,
    hyper: &Bound<'_, PyDict>,
) -> PyResult<()> {
    let r = match rule {
        "sgd" => Rule::Sgd {
            lr: get(hyper, "lr")?,
            momentum: get(hyper, "momentum")?,
            dampening: get(hyper, "dampening")?,
            weight_decay: get(hyper, "weight_decay")?,
            nesterov: get(hyper, "nesterov")?,
            maximize: get(hyper, "maximize")?,
            first: get(hyper, "first")?,
        },
        "adam" | "adamw" => Rule::Adam {
            lr: get(hyper, "lr")?,
            beta1: get(hyper, "beta1")?,
            beta2: get(hyper, "beta2")?,
            eps: get(hyper, "eps")?,
            weight_decay: get(hyper, "weight_decay")?,
            amsgrad: get(hyper, "amsgrad")?,
            maximize: get(hyper, "maximize")?,
            decoupled: rule == "adamw",
            step: get(hyper, "step")?,
        },
        "rmsprop" => Rule::RmsProp {
            lr: get(hyper, "lr")?,
            alpha: get(hyper, "alpha")?,
            eps: get(hyper, "eps")?,
            weight_decay: get(hyper, "weight_decay")?,
            momentum: get(hyper, "momentum")?,
            centered: get(hyper, "centered")?,
            maximize: get(hyper, "maximize")?,
        },
        "adagrad" => Rule::Adagrad {
            lr: get(hyper, "lr")?,
            lr_decay: get(hyper, "lr_decay")?,
            weight_decay: get(hyper, "weight_decay")?,
            eps: get(hyper, "eps")?,
            maximize: get(hyper, "maximize")?,
            step: get(hyper, "step")?,
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "_fused_step: unknown rule '{other}'"
            )))
        }
    };
    let ps: Vec<Tensor> = params.iter().map(|p| p.t.clone()).collect();
    let gs: Vec<Tensor> = grads.iter().map(|g| g.t.clone()).collect();
    let ss: Vec<Vec<Tensor>> = states
        .iter()
        .map(|s| s.iter().map(|t| t.t.clone()).collect())
        .collect();
    py.detach(|| fused_step(r, &ps, &gs, &ss)).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fused_step, m)?)
}
