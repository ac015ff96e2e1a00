//! Stochastic gradient descent on the fused CPU step, with PyTorch's defaults.
#![warn(missing_docs)]

use super::optimizer::{check_params, grad_of, Optimizer};
use super::{fused_step, Rule};
use crate::{Result, Tensor};

/// Hyper-parameters of [`Sgd`], named as in PyTorch; `Default` gives `torch.optim.SGD`'s
/// (`lr = 1e-3`, no momentum, no weight decay).
///
/// # Examples
///
/// ```
/// let cfg = ferrotorch::optim::SgdConfig { lr: 0.1, momentum: 0.9, ..Default::default() };
/// assert!(!cfg.nesterov);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdConfig {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor (0 turns momentum off).
    pub momentum: f64,
    /// Dampening of the momentum.
    pub dampening: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

impl Default for SgdConfig {
    fn default() -> Self {
        SgdConfig {
            lr: 1e-3,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        }
    }
}

/// Stochastic gradient descent with optional momentum, as `torch.optim.SGD`.
///
/// # Examples
///
/// ```
/// use ferrotorch::optim::{Optimizer, Sgd};
/// let w = ferrotorch::ones(&[2])?.requires_grad_(true)?;
/// let mut opt = Sgd::new(vec![w.clone()], 0.5)?;
/// (&w * &w).sum()?.backward()?;
/// opt.step()?;
/// assert_eq!(w.to_vec::<f32>(), vec![0.0, 0.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub struct Sgd {
    params: Vec<Tensor>,
    config: SgdConfig,
    momentum_buffers: Vec<Option<Tensor>>,
}

impl Sgd {
    /// Plain SGD with learning rate `lr`.
    ///
    /// # Errors
    ///
    /// If a parameter is not a contiguous float32/float64 CPU leaf tensor.
    pub fn new(params: Vec<Tensor>, lr: f64) -> Result<Sgd> {
        Sgd::with_config(
            params,
            SgdConfig {
                lr,
                ..SgdConfig::default()
            },
        )
    }

    /// With the given hyper-parameters.
    ///
    /// # Errors
    ///
    /// As [`Sgd::new`], and if `nesterov` is set without momentum or with dampening.
    pub fn with_config(params: Vec<Tensor>, config: SgdConfig) -> Result<Sgd> {
        if config.nesterov && (config.momentum <= 0.0 || config.dampening != 0.0) {
            crate::bail!(
                Value,
                "SGD: Nesterov momentum requires a momentum and zero dampening"
            );
        }
        check_params("SGD", &params)?;
        let momentum_buffers = params.iter().map(|_| None).collect();
        Ok(Sgd {
            params,
            config,
            momentum_buffers,
        })
    }

    /// The hyper-parameters.
    pub fn config(&self) -> &SgdConfig {
        &self.config
    }
}

impl Optimizer for Sgd {
    fn step(&mut self) -> Result<()> {
        let c = self.config;
        for (p, buf) in self.params.iter().zip(self.momentum_buffers.iter_mut()) {
            let Some(g) = grad_of(p)? else { continue };
            let first = buf.is_none();
            if first && c.momentum != 0.0 {
                *buf = Some(p.detach().zeros_like()?);
            }
            let rule = Rule::Sgd {
                lr: c.lr,
                momentum: c.momentum,
                dampening: c.dampening,
                weight_decay: c.weight_decay,
                nesterov: c.nesterov,
                maximize: c.maximize,
                first,
            };
            let states: Vec<Tensor> = buf.iter().cloned().collect();
            fused_step(rule, std::slice::from_ref(p), &[g], &[states])?;
        }
        Ok(())
    }
    fn params(&self) -> &[Tensor] {
        &self.params
    }
    fn lr(&self) -> f64 {
        self.config.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.config.lr = lr;
    }
}
