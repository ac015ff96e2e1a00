//! Fused optimizer steps: one call updates every parameter of a group in place, one pass over
//! each parameter's memory (the Python optimizers call these instead of a loop of small ops).
//! [`AdamW`], [`Adam`] and [`Sgd`] are the Rust optimizers built on them, as `torch.optim`.

mod adam;
mod optimizer;
mod sgd;

pub use adam::{Adam, AdamConfig, AdamW};
pub use optimizer::Optimizer;
pub use sgd::{Sgd, SgdConfig};

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

impl Rule {
    /// How many state buffers the rule reads, in the order `fused_step` documents.
    fn states_needed(&self) -> usize {
        match *self {
            Rule::Sgd { momentum, .. } => usize::from(momentum != 0.0),
            Rule::Adam { amsgrad, .. } => 2 + usize::from(amsgrad),
            Rule::RmsProp {
                momentum, centered, ..
            } => 1 + usize::from(centered) + usize::from(momentum > 0.0),
            Rule::Adagrad { .. } => 1,
        }
    }
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

/// Elements per task: enough to amortize handing the chunk to a thread, few enough to balance.
const CHUNK: usize = 1 << 14;

/// The update of one chunk. `s` holds the chunk of each state buffer the caller passed, in
/// the order `fused_step` documents; each rule runs its own loop so the compiler vectorizes it.
fn step_chunk<F: Float>(rule: Rule, p: &mut [F], g: &[F], s: &mut [&mut [F]]) {
    let c = F::from_f64c;
    let sign = |maximize: bool| if maximize { c(-1.0) } else { c(1.0) };
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
            let (sg, wd, lr, mu, damp) = (
                sign(maximize),
                c(weight_decay),
                c(lr),
                c(momentum),
                c(1.0 - dampening),
            );
            let decay = weight_decay != 0.0;
            if momentum == 0.0 {
                for (p, &g) in p.iter_mut().zip(g) {
                    let d = if decay { sg * g + wd * *p } else { sg * g };
                    *p = *p - lr * d;
                }
                return;
            }
            for ((p, &g), a) in p.iter_mut().zip(g).zip(s[0].iter_mut()) {
                let d = if decay { sg * g + wd * *p } else { sg * g };
                *a = if first { d } else { mu * *a + damp * d };
                let step = if nesterov { d + mu * *a } else { *a };
                *p = *p - lr * step;
            }
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
            // Bias corrections depend on the step only: computed once, not per element.
            let bc1 = 1.0 - beta1.powf(step);
            let bc2_sqrt = (1.0 - beta2.powf(step)).sqrt();
            let (sg, b1, nb1, b2, nb2, eps) = (
                sign(maximize),
                c(beta1),
                c(1.0 - beta1),
                c(beta2),
                c(1.0 - beta2),
                c(eps),
            );
            let (inv_bc2, step_size) = (c(1.0 / bc2_sqrt), c(lr / bc1));
            // Coupled decay adds to the gradient; decoupled (AdamW) shrinks the parameter.
            let coupled = !decoupled && weight_decay != 0.0;
            let (wd, shrink) = if decoupled {
                (c(0.0), c(1.0 - lr * weight_decay))
            } else {
                (c(weight_decay), c(1.0))
            };
            let (m, rest) = s.split_first_mut().expect("adam: exp_avg");
            let (v, rest) = rest.split_first_mut().expect("adam: exp_avg_sq");
            if amsgrad {
                let vmax = &mut rest[0];
                for (((p, &g), m), (v, vm)) in p
                    .iter_mut()
                    .zip(g)
                    .zip(m.iter_mut())
                    .zip(v.iter_mut().zip(vmax.iter_mut()))
                {
                    let d = if coupled { sg * g + wd * *p } else { sg * g };
                    *p = *p * shrink;
                    *m = b1 * *m + nb1 * d;
                    *v = b2 * *v + nb2 * d * d;
                    *vm = vm.max_nan(*v);
                    *p = *p - step_size * *m / (vm.sqrt() * inv_bc2 + eps);
                }
            } else {
                for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                    let d = if coupled { sg * g + wd * *p } else { sg * g };
                    *p = *p * shrink;
                    *m = b1 * *m + nb1 * d;
                    *v = b2 * *v + nb2 * d * d;
                    *p = *p - step_size * *m / (v.sqrt() * inv_bc2 + eps);
                }
            }
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
            let (sg, wd, al, nal, eps, lr, mu) = (
                sign(maximize),
                c(weight_decay),
                c(alpha),
                c(1.0 - alpha),
                c(eps),
                c(lr),
                c(momentum),
            );
            let mut bufs = s.iter_mut();
            let sq = bufs.next().expect("rmsprop: square_avg");
            let mut avg = if centered { bufs.next() } else { None };
            let mut mom = if momentum > 0.0 { bufs.next() } else { None };
            let decay = weight_decay != 0.0;
            for i in 0..p.len() {
                let d = if decay {
                    sg * g[i] + wd * p[i]
                } else {
                    sg * g[i]
                };
                sq[i] = al * sq[i] + nal * d * d;
                let denom = match avg.as_deref_mut() {
                    Some(ga) => {
                        ga[i] = al * ga[i] + nal * d;
                        (sq[i] - ga[i] * ga[i]).sqrt() + eps
                    }
                    None => sq[i].sqrt() + eps,
                };
                match mom.as_deref_mut() {
                    Some(mb) => {
                        mb[i] = mu * mb[i] + d / denom;
                        p[i] = p[i] - lr * mb[i];
                    }
                    None => p[i] = p[i] - lr * d / denom,
                }
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
            let (sg, wd, eps) = (sign(maximize), c(weight_decay), c(eps));
            let clr = c(lr / (1.0 + (step - 1.0) * lr_decay));
            let decay = weight_decay != 0.0;
            for ((p, &g), sum) in p.iter_mut().zip(g).zip(s[0].iter_mut()) {
                let d = if decay { sg * g + wd * *p } else { sg * g };
                *sum = *sum + d * d;
                *p = *p - clr * d / (sum.sqrt() + eps);
            }
        }
    }
}

/// One chunk of a parameter, of its gradient and of each state buffer.
type Chunk<'a, F> = (&'a mut [F], &'a [F], Vec<&'a mut [F]>);

/// Runs `step_chunk` over the parameter in chunks, on the pool when it is large enough.
fn run<F: Float>(rule: Rule, p: &mut [F], g: &[F], states: Vec<&mut [F]>) {
    let mut state_chunks: Vec<_> = states.into_iter().map(|s| s.chunks_mut(CHUNK)).collect();
    let chunks: Vec<Chunk<'_, F>> = p
        .chunks_mut(CHUNK)
        .zip(g.chunks(CHUNK))
        .map(|(p, g)| {
            let s = state_chunks
                .iter_mut()
                .map(|it| it.next().expect("state as long as the parameter"))
                .collect();
            (p, g, s)
        })
        .collect();
    let body = |(p, g, mut s): Chunk<'_, F>| step_chunk(rule, p, g, &mut s);
    if chunks.len() > 1 && crate::cpu::parallel::worth(g.len()) {
        crate::cpu::thread_pool::run(|| chunks.into_par_iter().for_each(body));
    } else {
        chunks.into_iter().for_each(body);
    }
}

/// Applies `rule` to each parameter with its gradient and state buffers, in place.
/// `states[i]` holds the buffers the rule uses (SGD: momentum when momentum != 0; Adam:
/// exp_avg, exp_avg_sq and, with amsgrad, max_exp_avg_sq; RMSprop: square_avg, then grad_avg
/// when centered, then momentum_buffer when momentum > 0; Adagrad: sum).
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
    for ((p, g), st) in params.iter().zip(grads).zip(states) {
        let others: Vec<&Tensor> = std::iter::once(g).chain(st.iter()).collect();
        check("fused_step", p, &others)?;
        let needed = rule.states_needed();
        if st.len() < needed {
            bail!(
                Runtime,
                "fused_step: {:?} needs {needed} state buffers per parameter, got {}",
                rule,
                st.len()
            );
        }
        let on_cuda: Option<Result<()>> = crate::cuda_forward!("fused_step", [p, g], |dev| {
            crate::cuda::ops::optim::fused_step(&dev, rule, p, g, &st[..needed])
        });
        if let Some(done) = on_cuda {
            done?;
            p.storage().bump_version();
            st.iter().for_each(|b| b.storage().bump_version());
            continue;
        }
        macro_rules! go {
            ($F:ty) => {
                unsafe {
                    let bufs: Vec<&mut [$F]> = st[..needed]
                        .iter()
                        .map(|b| b.storage().slice_mut::<$F>(b.offset(), b.numel()))
                        .collect();
                    run::<$F>(rule, p.contiguous_slice_mut(), g.contiguous_slice(), bufs)
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
