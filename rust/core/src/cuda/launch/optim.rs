//! Fused optimizer steps on the device (kernels/optim.cu): the formulas of
//! `crate::optim::fused_step`, in the same order and without FMA contraction, so float32 and
//! float64 results match the CPU bit for bit. Half types (which the CPU's fused step does not
//! take) compute in float32 with their state kept in the parameter dtype.
//!
//! Every buffer (parameter, gradient, state) is contiguous, pointer at element 0, `n`
//! elements of the parameter's `dtype`; parameter and state are updated in place.

use super::ew::{launch, unsupported};
use super::{suffix, Kernels};
use crate::cuda::kernels::elementwise::OPTIM;
use crate::optim::Rule;
use crate::{DType, Error, Result};
use cudarc::driver::CudaStream;

/// The kernel of `rule` ("sgd", "adam", "rmsprop", "adagrad") for `dtype` (floating only).
pub fn kernel_name(rule: &str, dtype: DType) -> Result<String> {
    if !dtype.is_float() {
        return Err(unsupported(rule, dtype));
    }
    Ok(format!("{rule}_{}", suffix(dtype)))
}

fn flag(b: bool) -> i32 {
    i32::from(b)
}

/// One SGD step (PyTorch's algorithm, as `Rule::Sgd`): d = ±g (+ weight_decay * p);
/// with momentum, buf = d on the `first` step, else momentum * buf + (1 - dampening) * d, and
/// the step is d + momentum * buf (nesterov) or buf; p -= lr * step. `momentum_buf` is unused
/// (pass 0) when momentum == 0.
#[allow(clippy::too_many_arguments)]
pub fn sgd_step(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    param: u64,
    grad: u64,
    momentum_buf: u64,
    n: usize,
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    maximize: bool,
    first: bool,
) -> Result<()> {
    let name = kernel_name("sgd", dtype)?;
    if momentum != 0.0 && momentum_buf == 0 {
        return Err(Error::runtime("sgd_step: momentum needs a momentum buffer"));
    }
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    let damp = 1.0 - dampening;
    let (decay, nest, maxi, fst) = (
        flag(weight_decay != 0.0),
        flag(nesterov),
        flag(maximize),
        flag(first),
    );
    launch!(
        k,
        stream,
        &OPTIM,
        name,
        n,
        [
            &param,
            &grad,
            &momentum_buf,
            &n64,
            &lr,
            &momentum,
            &damp,
            &weight_decay,
            &decay,
            &nest,
            &maxi,
            &fst
        ]
    );
    Ok(())
}

/// One Adam (`decoupled = false`) or AdamW (`decoupled = true`) step, as `Rule::Adam`:
/// `step` is the step count after this update (1 on the first step); Adam adds
/// weight_decay * p to the gradient, AdamW scales p by 1 - lr * weight_decay first;
/// m = b1 m + (1 - b1) d, v = b2 v + (1 - b2) d d, with amsgrad vmax = max(vmax, v) (NaN
/// propagating) replaces v in the denominator; p -= (lr / (1 - b1^step)) m /
/// (sqrt(v) / sqrt(1 - b2^step) + eps). `max_exp_avg_sq` is unused (pass 0) without amsgrad.
#[allow(clippy::too_many_arguments)]
pub fn adam_step(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    param: u64,
    grad: u64,
    exp_avg: u64,
    exp_avg_sq: u64,
    max_exp_avg_sq: u64,
    n: usize,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    amsgrad: bool,
    maximize: bool,
    decoupled: bool,
    step: f64,
) -> Result<()> {
    let name = kernel_name("adam", dtype)?;
    if amsgrad && max_exp_avg_sq == 0 {
        return Err(Error::runtime(
            "adam_step: amsgrad needs a max_exp_avg_sq buffer",
        ));
    }
    if n == 0 {
        return Ok(());
    }
    // Combined in f64 exactly as optim.rs does before rounding to the compute type.
    let bc1 = 1.0 - beta1.powf(step);
    let bc2_sqrt = (1.0 - beta2.powf(step)).sqrt();
    let (inv_bc2, step_size) = (1.0 / bc2_sqrt, lr / bc1);
    let (nb1, nb2) = (1.0 - beta1, 1.0 - beta2);
    let coupled = !decoupled && weight_decay != 0.0;
    let (wd, shrink) = if decoupled {
        (0.0, 1.0 - lr * weight_decay)
    } else {
        (weight_decay, 1.0)
    };
    let (cpl, ams, maxi) = (flag(coupled), flag(amsgrad), flag(maximize));
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &OPTIM,
        name,
        n,
        [
            &param,
            &grad,
            &exp_avg,
            &exp_avg_sq,
            &max_exp_avg_sq,
            &n64,
            &beta1,
            &nb1,
            &beta2,
            &nb2,
            &eps,
            &wd,
            &shrink,
            &step_size,
            &inv_bc2,
            &cpl,
            &ams,
            &maxi
        ]
    );
    Ok(())
}

/// One RMSprop step, as `Rule::RmsProp`: sq = alpha sq + (1 - alpha) d d; centered keeps
/// grad_avg = alpha grad_avg + (1 - alpha) d and uses sqrt(sq - grad_avg^2) + eps as the
/// denominator (else sqrt(sq) + eps); with momentum > 0, buf = momentum buf + d / denom and
/// p -= lr buf, else p -= lr d / denom. `grad_avg` (without centered) and `momentum_buf`
/// (without momentum) are unused: pass 0.
#[allow(clippy::too_many_arguments)]
pub fn rmsprop_step(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    param: u64,
    grad: u64,
    square_avg: u64,
    grad_avg: u64,
    momentum_buf: u64,
    n: usize,
    lr: f64,
    alpha: f64,
    eps: f64,
    weight_decay: f64,
    momentum: f64,
    centered: bool,
    maximize: bool,
) -> Result<()> {
    let name = kernel_name("rmsprop", dtype)?;
    if (centered && grad_avg == 0) || (momentum > 0.0 && momentum_buf == 0) {
        return Err(Error::runtime("rmsprop_step: a state buffer is missing"));
    }
    if n == 0 {
        return Ok(());
    }
    let nalpha = 1.0 - alpha;
    let (decay, cen, mom, maxi) = (
        flag(weight_decay != 0.0),
        flag(centered),
        flag(momentum > 0.0),
        flag(maximize),
    );
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &OPTIM,
        name,
        n,
        [
            &param,
            &grad,
            &square_avg,
            &grad_avg,
            &momentum_buf,
            &n64,
            &alpha,
            &nalpha,
            &eps,
            &weight_decay,
            &lr,
            &momentum,
            &decay,
            &cen,
            &mom,
            &maxi
        ]
    );
    Ok(())
}

/// One Adagrad step, as `Rule::Adagrad`: sum += d d; p -= clr d / (sqrt(sum) + eps) with
/// clr = lr / (1 + (step - 1) lr_decay), `step` counting this update.
#[allow(clippy::too_many_arguments)]
pub fn adagrad_step(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    param: u64,
    grad: u64,
    sum: u64,
    n: usize,
    lr: f64,
    lr_decay: f64,
    weight_decay: f64,
    eps: f64,
    maximize: bool,
    step: f64,
) -> Result<()> {
    let name = kernel_name("adagrad", dtype)?;
    if n == 0 {
        return Ok(());
    }
    let clr = lr / (1.0 + (step - 1.0) * lr_decay);
    let (decay, maxi) = (flag(weight_decay != 0.0), flag(maximize));
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &OPTIM,
        name,
        n,
        [
            &param,
            &grad,
            &sum,
            &n64,
            &clr,
            &weight_decay,
            &eps,
            &decay,
            &maxi
        ]
    );
    Ok(())
}

/// `crate::optim::fused_step` for one parameter on the device: `states` holds the state
/// buffers in the order that function documents (SGD: momentum_buffer when momentum != 0;
/// Adam: exp_avg, exp_avg_sq, then max_exp_avg_sq with amsgrad; RMSprop: square_avg, then
/// grad_avg when centered, then momentum_buffer when momentum > 0; Adagrad: sum).
#[allow(clippy::too_many_arguments)]
pub fn fused_step(
    k: &dyn Kernels,
    stream: &CudaStream,
    rule: Rule,
    dtype: DType,
    param: u64,
    grad: u64,
    states: &[u64],
    n: usize,
) -> Result<()> {
    let mut it = states.iter().copied();
    let mut next = |want: bool| -> Result<u64> {
        if !want {
            return Ok(0);
        }
        it.next()
            .ok_or_else(|| Error::runtime(format!("fused_step: {rule:?} needs more state buffers")))
    };
    match rule {
        Rule::Sgd {
            lr,
            momentum,
            dampening,
            weight_decay,
            nesterov,
            maximize,
            first,
        } => {
            let buf = next(momentum != 0.0)?;
            sgd_step(
                k,
                stream,
                dtype,
                param,
                grad,
                buf,
                n,
                lr,
                momentum,
                dampening,
                weight_decay,
                nesterov,
                maximize,
                first,
            )
        }
        Rule::Adam {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            amsgrad,
            maximize,
            decoupled,
            step,
        } => {
            let (m, v, vmax) = (next(true)?, next(true)?, next(amsgrad)?);
            adam_step(
                k,
                stream,
                dtype,
                param,
                grad,
                m,
                v,
                vmax,
                n,
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                amsgrad,
                maximize,
                decoupled,
                step,
            )
        }
        Rule::RmsProp {
            lr,
            alpha,
            eps,
            weight_decay,
            momentum,
            centered,
            maximize,
        } => {
            let (sq, ga, mb) = (next(true)?, next(centered)?, next(momentum > 0.0)?);
            rmsprop_step(
                k,
                stream,
                dtype,
                param,
                grad,
                sq,
                ga,
                mb,
                n,
                lr,
                alpha,
                eps,
                weight_decay,
                momentum,
                centered,
                maximize,
            )
        }
        Rule::Adagrad {
            lr,
            lr_decay,
            weight_decay,
            eps,
            maximize,
            step,
        } => {
            let sum = next(true)?;
            adagrad_step(
                k,
                stream,
                dtype,
                param,
                grad,
                sum,
                n,
                lr,
                lr_decay,
                weight_decay,
                eps,
                maximize,
                step,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_optimizer_kernel_name_exists() {
        for rule in ["sgd", "adam", "rmsprop", "adagrad"] {
            for dt in DType::REAL {
                match kernel_name(rule, dt) {
                    Ok(name) => assert!(OPTIM.functions.contains(&name.as_str()), "{name}"),
                    Err(_) => assert!(!dt.is_float()),
                }
            }
        }
    }
}
