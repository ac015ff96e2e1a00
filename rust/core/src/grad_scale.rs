//! The two kernels behind `GradScaler`: unscale a list of gradients while looking for inf/NaN,
//! and grow or back off the loss scale (PyTorch's `_amp_foreach_non_finite_check_and_unscale_`
//! and `_amp_update_scale_`). One call covers every gradient of an optimizer.

use crate::autograd::GradModeGuard;
use crate::{bail, DType, Result, Scalar, Tensor};

fn check_one_element(op: &str, what: &str, t: &Tensor, float: bool) -> Result<()> {
    if t.numel() != 1 {
        bail!(Runtime, "{op}: {what} must be a one-element tensor.");
    }
    if float && t.dtype() != DType::F32 {
        bail!(Runtime, "{op}: {what} must be a float tensor.");
    }
    if !float && t.dtype() != DType::I32 {
        bail!(Runtime, "{op}: {what} must be an int tensor.");
    }
    Ok(())
}

/// Writes the number `v` into the one-element tensor `t`.
fn store(op: &str, t: &Tensor, v: Scalar) -> Result<()> {
    let value = Tensor::scalar(v, t.dtype()).broadcast_to(t.shape())?;
    t.apply_inplace(op, &[], |_| Ok(value))
}

fn all_finite(t: &Tensor) -> Result<bool> {
    if t.numel() == 0 {
        return Ok(true);
    }
    let ok = t.isfinite()?.all_any(&[], false, true)?.item()?;
    Ok(matches!(ok, Scalar::Bool(true)))
}

/// Multiplies every gradient by `inv_scale` in place and sets `found_inf` to 1 if any of them
/// holds an inf or NaN.
pub fn non_finite_check_and_unscale_(
    grads: &[Tensor],
    found_inf: &Tensor,
    inv_scale: &Tensor,
) -> Result<()> {
    const OP: &str = "_amp_foreach_non_finite_check_and_unscale_";
    check_one_element(OP, "found_inf", found_inf, true)?;
    check_one_element(OP, "inv_scale", inv_scale, true)?;
    let _no_graph = GradModeGuard::new(false);
    let unit = inv_scale.item()?.to_f64() == 1.0;
    let mut found = false;
    for g in grads {
        if !g.dtype().is_float() {
            bail!(
                Runtime,
                "{OP}: expected floating point gradients, got {} {:?}",
                g.dtype().name(),
                g.shape()
            );
        }
        found |= !all_finite(g)?;
        if !unit {
            g.apply_inplace(OP, &[], |s| s.mul(inv_scale))?;
        }
    }
    if found {
        store(OP, found_inf, Scalar::Float(1.0))?;
    }
    Ok(())
}

/// After a step: back the scale off (and reset the tracker) if `found_inf`, otherwise count a
/// good step and grow the scale once `growth_interval` good steps have run in a row. A grown
/// scale that would overflow float32 is kept as it was.
pub fn update_scale_(
    scale: &Tensor,
    growth_tracker: &Tensor,
    found_inf: &Tensor,
    growth_factor: f64,
    backoff_factor: f64,
    growth_interval: i64,
) -> Result<()> {
    const OP: &str = "_amp_update_scale_";
    check_one_element(OP, "current_scale", scale, true)?;
    check_one_element(OP, "growth_tracker", growth_tracker, false)?;
    check_one_element(OP, "found_inf", found_inf, true)?;
    let _no_graph = GradModeGuard::new(false);
    let current = scale.item()?.to_f64() as f32;
    if found_inf.item()?.to_f64() != 0.0 {
        store(
            OP,
            scale,
            Scalar::Float((current as f64 * backoff_factor) as f32 as f64),
        )?;
        return store(OP, growth_tracker, Scalar::Int(0));
    }
    let successful = growth_tracker.item()?.to_i64() + 1;
    if successful == growth_interval {
        let grown = (current as f64 * growth_factor) as f32;
        if grown.is_finite() {
            store(OP, scale, Scalar::Float(grown as f64))?;
        }
        store(OP, growth_tracker, Scalar::Int(0))
    } else {
        store(OP, growth_tracker, Scalar::Int(successful))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar_f32(v: f32) -> Tensor {
        Tensor::from_vec(vec![v], &[]).unwrap()
    }

    #[test]
    fn unscales_and_flags_non_finite() {
        let g1 = Tensor::from_vec(vec![2.0f32, 4.0], &[2]).unwrap();
        let g2 = Tensor::from_vec(vec![f32::INFINITY, 1.0], &[2]).unwrap();
        let found = scalar_f32(0.0);
        non_finite_check_and_unscale_(std::slice::from_ref(&g1), &found, &scalar_f32(0.5)).unwrap();
        assert_eq!(g1.to_vec::<f32>(), vec![1.0, 2.0]);
        assert_eq!(found.to_vec::<f32>(), vec![0.0]);
        non_finite_check_and_unscale_(&[g1, g2], &found, &scalar_f32(0.5)).unwrap();
        assert_eq!(found.to_vec::<f32>(), vec![1.0]);
    }

    #[test]
    fn grows_after_interval_and_backs_off_on_inf() {
        let scale = scalar_f32(8.0);
        let tracker = Tensor::from_vec(vec![0i32], &[]).unwrap();
        let (ok, bad) = (scalar_f32(0.0), scalar_f32(1.0));
        update_scale_(&scale, &tracker, &ok, 2.0, 0.5, 2).unwrap();
        assert_eq!(
            (scale.to_vec::<f32>()[0], tracker.to_vec::<i32>()[0]),
            (8.0, 1)
        );
        update_scale_(&scale, &tracker, &ok, 2.0, 0.5, 2).unwrap();
        assert_eq!(
            (scale.to_vec::<f32>()[0], tracker.to_vec::<i32>()[0]),
            (16.0, 0)
        );
        update_scale_(&scale, &tracker, &bad, 2.0, 0.5, 2).unwrap();
        assert_eq!(
            (scale.to_vec::<f32>()[0], tracker.to_vec::<i32>()[0]),
            (8.0, 0)
        );
        let huge = scalar_f32(f32::MAX);
        update_scale_(&huge, &tracker, &ok, 2.0, 0.5, 1).unwrap();
        assert_eq!(
            huge.to_vec::<f32>()[0],
            f32::MAX,
            "growth never overflows to inf"
        );
        assert!(update_scale_(&scale, &scalar_f32(0.0), &ok, 2.0, 0.5, 2).is_err());
    }
}
