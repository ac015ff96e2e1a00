//! `torch._amp_foreach_non_finite_check_and_unscale_` and `torch._amp_update_scale_`: the
//! GradScaler kernels, one call for all of an optimizer's gradients.

use crate::errors::IntoPy;
use crate::tensor::PyTensor;
use ferrotorch::grad_scale;
use ferrotorch::Tensor;
use pyo3::prelude::*;

#[pyfunction]
fn _amp_foreach_non_finite_check_and_unscale_(
    py: Python<'_>,
    grads: Vec<PyRef<'_, PyTensor>>,
    found_inf: PyRef<'_, PyTensor>,
    inv_scale: PyRef<'_, PyTensor>,
) -> PyResult<()> {
    let grads: Vec<Tensor> = grads.iter().map(|g| g.t.clone()).collect();
    let (found, inv) = (found_inf.t.clone(), inv_scale.t.clone());
    py.detach(|| grad_scale::non_finite_check_and_unscale_(&grads, &found, &inv))
        .py()
}

/// Updates `scale` and `growth_tracker` in place and returns `scale`, as PyTorch does.
#[pyfunction]
fn _amp_update_scale_<'py>(
    scale: Bound<'py, PyTensor>,
    growth_tracker: PyRef<'py, PyTensor>,
    found_inf: PyRef<'py, PyTensor>,
    scale_growth_factor: f64,
    scale_backoff_factor: f64,
    growth_interval: i64,
) -> PyResult<Bound<'py, PyTensor>> {
    grad_scale::update_scale_(
        &scale.borrow().t,
        &growth_tracker.t,
        &found_inf.t,
        scale_growth_factor,
        scale_backoff_factor,
        growth_interval,
    )
    .py()?;
    Ok(scale)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(
        _amp_foreach_non_finite_check_and_unscale_,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(_amp_update_scale_, m)?)?;
    Ok(())
}
