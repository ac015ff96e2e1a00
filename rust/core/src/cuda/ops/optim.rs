//! Fused optimizer steps on the device: one launch per parameter updates it and its state
//! buffers in place on the current stream (`crate::optim::fused_step` dispatches here).

use super::first_element;
use crate::cuda::launch::optim::fused_step as launch;
use crate::cuda::runtime::{with_context, DeviceState};
use crate::optim::Rule;
use crate::{Result, Tensor};
use std::sync::Arc;

/// `rule` applied to `param` with `grad` and `states` (all contiguous, same dtype and size).
pub fn fused_step(
    dev: &Arc<DeviceState>,
    rule: Rule,
    param: &Tensor,
    grad: &Tensor,
    states: &[Tensor],
) -> Result<()> {
    if let Some(t) = states.iter().find(|t| t.device() != param.device()) {
        return Err(crate::Error::runtime(format!(
            "fused_step: a state buffer is on {} while the parameter is on {}",
            t.device(),
            param.device()
        )));
    }
    let bufs = states
        .iter()
        .map(first_element)
        .collect::<Result<Vec<u64>>>()?;
    let stream = dev.streams.current()?;
    with_context(dev, || {
        launch(
            dev.as_ref(),
            &stream,
            rule,
            param.dtype(),
            first_element(param)?,
            first_element(grad)?,
            &bufs,
            param.numel(),
        )
    })
}
