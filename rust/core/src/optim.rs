//! Fused optimizer steps: one call updates every parameter of a group in place, one pass over
//! each parameter's memory (the Python optimizers call these instead of a loop of small ops).

use crate::cpu::math::Float;
use crate::{bail, DType, Result, Tensor};
use rayon::prelude::*;

/// Hyper-parameters of the supported update rules (PyTorch's documented algorithms).
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// `first` marks the step that initializes the momentum buffer with the gradient.
    Sgd {
        lr: f64,
        momentum: f64,
        dampening: f64,
        weight_decay: f64,
        nesterov: bool,
        maximize: bool,
        first: bool,
    },
    /// Adam and AdamW (`decoupled`); `step` is the step count after this update.
    Adam {
        lr: f64,
        beta1: f64,
        beta2: f64,
        eps: f64,
        weight_decay: f64,
        amsgrad: bool,
        maximize: bool,
        decoupled: bool,
        step: f64,
    },
    RmsProp {
        lr: f64,
        alpha: f64,
        eps: f64,
        weight_decay: f64,
        momentum: f64,
        centered: bool,
        maximize: bool,
    },
    Adagrad {
        lr: f64,
        lr_decay: f64,
        weight_decay: f64,
        eps: f64,
        maximize: bool,
        step: f64,
    },
}

fn check(op: &str, p: &Tensor, others: &[&Tensor]) -> Result<()> {
    if !matches!(p.dtype(), DType::F32 | DType::F64) || !p.is_contiguous() {
        bail!(
            Runtime,
            "{op}: fused step needs contiguous float32/float64 parameters (got {} {:?})",
            p.dtype().name(),
            p.shape()
        );
    }
    for t in others {
        if t.shape() != p.shape() || t.dtype() != p.dtype() || !t.is_contiguous() {
            bail!(
                Runtime,
                "{op}: state or gradient of shape {:?} ({}) does not match parameter {:?} ({})",
                t.shape(),
                t.dtype().name(),
                p.shape(),
                p.dtype().name()
            );
        }
    }
    Ok(())
}

/// One element of a parameter, its gradient and three state slots, as the zipped loop yields it.
type Slot<'a, F> = ((((&'a mut F, &'a F), &'a mut F), &'a mut F), &'a mut F);

/// Per-element update with up to three state buffers (unused ones are the gradient itself).
fn run<F: Float>(rule: Rule, p: &mut [F], g: &[F], s1: &mut [F], s2: &mut [F], s3: &mut [F]) {
    let c = F::from_f64c;
    // Bias corrections depend on the step only: computed once, not per element.
    let (bc1, bc2_sqrt) = match rule {
        Rule::Adam {
            beta1, beta2, step, ..
        } => (1.0 - beta1.powf(step), (1.0 - beta2.powf(step)).sqrt()),
        _ => (1.0, 1.0),
    };
    let body = |((((p, &g), a), b), m): Slot<'_, F>| match rule {
        Rule::Sgd {
            lr,
            momentum,
            dampening,
            weight_decay,
            nesterov,
            maximize,
            first,
        } => {
            let mut d = if maximize { -g } else { g };
            if weight_decay != 0.0 {
                d = d + c(weight_decay) * *p;
            }
            if momentum != 0.0 {
                *a = if first {
                    d
                } else {
                    c(momentum) * *a + c(1.0 - dampening) * d
                };
                d = if nesterov { d + c(momentum) * *a } else { *a };
            }
            *p = *p - c(lr) * d;
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
            ..
        } => {
            let mut d = if maximize { -g } else { g };
            if weight_decay != 0.0 {
                if decoupled {
                    *p = *p * c(1.0 - lr * weight_decay);
                } else {
                    d = d + c(weight_decay) * *p;
                }
            }
            *a = c(beta1) * *a + c(1.0 - beta1) * d;
            *b = c(beta2) * *b + c(1.0 - beta2) * d * d;
            let v = if amsgrad {
                *m = m.max_nan(*b);
                *m
            } else {
                *b
            };
            let denom = v.sqrt() / c(bc2_sqrt) + c(eps);
            *p = *p - c(lr / bc1) * *a / denom;
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
            let mut d = if maximize { -g } else { g };
            if weight_decay != 0.0 {
                d = d + c(weight_decay) * *p;
            }
            *a = c(alpha) * *a + c(1.0 - alpha) * d * d;
            let avg = if centered {
                *b = c(alpha) * *b + c(1.0 - alpha) * d;
                (*a - *b * *b).sqrt() + c(eps)
            } else {
                a.sqrt() + c(eps)
            };
            if momentum > 0.0 {
                *m = c(momentum) * *m + d / avg;
                *p = *p - c(lr) * *m;
            } else {
                *p = *p - c(lr) * d / avg;
            }
        }
        Rule::Adagrad {
            lr,
            lr_decay,
            weight_decay,
            eps,
            maximize,
            step,
        } => {
            let mut d = if maximize { -g } else { g };
            if weight_decay != 0.0 {
                d = d + c(weight_decay) * *p;
            }
            let clr = lr / (1.0 + (step - 1.0) * lr_decay);
            *a = *a + d * d;
            *p = *p - c(clr) * d / (a.sqrt() + c(eps));
        }
    };
    if crate::cpu::parallel::worth(g.len()) {
        crate::cpu::thread_pool::run(|| {
            p.par_iter_mut()
                .zip(g.par_iter())
                .zip(s1.par_iter_mut())
                .zip(s2.par_iter_mut())
                .zip(s3.par_iter_mut())
                .for_each(body)
        });
    } else {
        p.iter_mut()
            .zip(g.iter())
            .zip(s1.iter_mut())
            .zip(s2.iter_mut())
            .zip(s3.iter_mut())
            .for_each(body);
    }
}

/// Applies `rule` to each parameter with its gradient and state buffers, in place.
/// `states[i]` holds the buffers the rule uses (SGD: momentum; Adam: exp_avg, exp_avg_sq and
/// optionally max_exp_avg_sq; RMSprop: square_avg, grad_avg, momentum_buffer; Adagrad: sum).
pub fn fused_step(
    rule: Rule,
    params: &[Tensor],
    grads: &[Tensor],
    states: &[Vec<Tensor>],
) -> Result<()> {
    if params.len() != grads.len() || params.len() != states.len() {
        bail!(
            Runtime,
            "fused_step: got {} parameters, {} gradients and {} state lists",
            params.len(),
            grads.len(),
            states.len()
        );
    }
    let mut scratch: Vec<Tensor> = Vec::new();
    for ((p, g), st) in params.iter().zip(grads).zip(states) {
        let others: Vec<&Tensor> = std::iter::once(g).chain(st.iter()).collect();
        check("fused_step", p, &others)?;
        let n = p.numel();
        // Missing buffers get scratch space the rule never reads, shared by the parameters.
        if scratch.len() < (3 - st.len().min(3))
            || scratch
                .first()
                .is_some_and(|t| t.numel() < n || t.dtype() != p.dtype())
        {
            let most = params.iter().map(|q| q.numel()).max().unwrap_or(0);
            scratch = (0..3).map(|_| Tensor::zeros(&[most], p.dtype())).collect();
        }
        let bufs: Vec<&Tensor> = st.iter().chain(scratch.iter()).collect();
        macro_rules! go {
            ($F:ty) => {
                unsafe {
                    run::<$F>(
                        rule,
                        p.contiguous_slice_mut(),
                        g.contiguous_slice(),
                        &mut bufs[0]
                            .storage()
                            .slice_mut::<$F>(bufs[0].offset(), bufs[0].numel())[..n],
                        &mut bufs[1]
                            .storage()
                            .slice_mut::<$F>(bufs[1].offset(), bufs[1].numel())[..n],
                        &mut bufs[2]
                            .storage()
                            .slice_mut::<$F>(bufs[2].offset(), bufs[2].numel())[..n],
                    )
                }
            };
        }
        if p.dtype() == DType::F64 {
            go!(f64)
        } else {
            go!(f32)
        }
        p.storage().bump_version();
        for b in st {
            b.storage().bump_version();
        }
    }
    Ok(())
}
