//! Adam and AdamW on the fused CPU step (`crate::optim::fused_step`), with PyTorch's defaults.
#![warn(missing_docs)]

use super::optimizer::{check_params, grad_of, Optimizer};
use super::{fused_step, Rule};
use crate::{Result, Tensor};

/// Hyper-parameters of [`Adam`] and [`AdamW`], named as in PyTorch.
///
/// `Default` gives AdamW's defaults (`lr = 1e-3`, `betas = (0.9, 0.999)`, `eps = 1e-8`,
/// `weight_decay = 1e-2`); [`Adam::new`] uses `weight_decay = 0` as `torch.optim.Adam` does.
///
/// # Examples
///
/// ```
/// let cfg = ferrotorch::optim::AdamConfig { lr: 1e-2, ..Default::default() };
/// assert_eq!((cfg.betas, cfg.weight_decay), ((0.9, 0.999), 1e-2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamConfig {
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first and second moment estimates.
    pub betas: (f64, f64),
    /// Added to the denominator for numerical stability.
    pub eps: f64,
    /// Weight decay: decoupled (shrinks the parameter) in AdamW, added to the gradient in Adam.
    pub weight_decay: f64,
    /// Use the maximum of past second moments (the AMSGrad variant).
    pub amsgrad: bool,
    /// Maximize the objective instead of minimizing it.
    pub maximize: bool,
}

impl Default for AdamConfig {
    fn default() -> Self {
        AdamConfig {
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 1e-2,
            amsgrad: false,
            maximize: false,
        }
    }
}

/// Per-parameter state: the step count and exp_avg, exp_avg_sq (and max_exp_avg_sq).
struct ParamState {
    step: u64,
    buffers: Vec<Tensor>,
}

/// The shared body of Adam and AdamW.
struct AdamCore {
    params: Vec<Tensor>,
    config: AdamConfig,
    decoupled: bool,
    state: Vec<Option<ParamState>>,
}

impl AdamCore {
    fn new(name: &str, params: Vec<Tensor>, config: AdamConfig, decoupled: bool) -> Result<Self> {
        check_params(name, &params)?;
        let state = params.iter().map(|_| None).collect();
        Ok(AdamCore {
            params,
            config,
            decoupled,
            state,
        })
    }

    fn step(&mut self) -> Result<()> {
        let c = self.config;
        for (p, st) in self.params.iter().zip(self.state.iter_mut()) {
            let Some(g) = grad_of(p)? else { continue };
            if st.is_none() {
                let n = 2 + usize::from(c.amsgrad);
                let buffers = (0..n)
                    .map(|_| p.detach().zeros_like())
                    .collect::<Result<_>>()?;
                *st = Some(ParamState { step: 0, buffers });
            }
            let st = st.as_mut().expect("state was just created");
            st.step += 1;
            let rule = Rule::Adam {
                lr: c.lr,
                beta1: c.betas.0,
                beta2: c.betas.1,
                eps: c.eps,
                weight_decay: c.weight_decay,
                amsgrad: c.amsgrad,
                maximize: c.maximize,
                decoupled: self.decoupled,
                step: st.step as f64,
            };
            fused_step(
                rule,
                std::slice::from_ref(p),
                &[g],
                std::slice::from_ref(&st.buffers),
            )?;
        }
        Ok(())
    }
}

/// Adam with decoupled weight decay (Loshchilov & Hutter), as `torch.optim.AdamW`.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Linear, Module};
/// use ferrotorch::optim::{AdamW, Optimizer};
///
/// let model = Linear::new(3, 1)?;
/// let mut opt = AdamW::new(model.parameters())?;
/// let (x, y) = (ferrotorch::randn(&[16, 3])?, ferrotorch::randn(&[16, 1])?);
/// let before = model.weight().to_vec::<f32>();
/// let loss = ferrotorch::nn::functional::mse_loss(&model.forward(&x)?, &y)?;
/// opt.zero_grad()?;
/// loss.backward()?;
/// opt.step()?;
/// assert_ne!(before, model.weight().to_vec::<f32>());
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub struct AdamW(AdamCore);

impl AdamW {
    /// With PyTorch's defaults (`lr = 1e-3`, `weight_decay = 1e-2`).
    ///
    /// # Errors
    ///
    /// If a parameter is not a contiguous float32/float64 CPU leaf tensor.
    pub fn new(params: Vec<Tensor>) -> Result<AdamW> {
        AdamW::with_config(params, AdamConfig::default())
    }

    /// With the given hyper-parameters.
    ///
    /// # Errors
    ///
    /// As [`AdamW::new`].
    pub fn with_config(params: Vec<Tensor>, config: AdamConfig) -> Result<AdamW> {
        Ok(AdamW(AdamCore::new("AdamW", params, config, true)?))
    }

    /// The hyper-parameters.
    pub fn config(&self) -> &AdamConfig {
        &self.0.config
    }
}

/// Adam (Kingma & Ba), weight decay added to the gradient, as `torch.optim.Adam`.
///
/// # Examples
///
/// ```
/// use ferrotorch::optim::{Adam, Optimizer};
/// let w = ferrotorch::ones(&[2])?.requires_grad_(true)?;
/// let mut opt = Adam::new(vec![w.clone()])?;
/// w.sum()?.backward()?;
/// opt.step()?;
/// // The first Adam step moves each weight by lr against its gradient's sign.
/// assert!((w.to_vec::<f32>()[0] - (1.0 - 1e-3)).abs() < 1e-6);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub struct Adam(AdamCore);

impl Adam {
    /// With PyTorch's defaults (`lr = 1e-3`, `weight_decay = 0`).
    ///
    /// # Errors
    ///
    /// If a parameter is not a contiguous float32/float64 CPU leaf tensor.
    pub fn new(params: Vec<Tensor>) -> Result<Adam> {
        let config = AdamConfig {
            weight_decay: 0.0,
            ..AdamConfig::default()
        };
        Adam::with_config(params, config)
    }

    /// With the given hyper-parameters.
    ///
    /// # Errors
    ///
    /// As [`Adam::new`].
    pub fn with_config(params: Vec<Tensor>, config: AdamConfig) -> Result<Adam> {
        Ok(Adam(AdamCore::new("Adam", params, config, false)?))
    }

    /// The hyper-parameters.
    pub fn config(&self) -> &AdamConfig {
        &self.0.config
    }
}

macro_rules! adam_optimizer {
    ($T:ty) => {
        impl Optimizer for $T {
            fn step(&mut self) -> Result<()> {
                self.0.step()
            }
            fn params(&self) -> &[Tensor] {
                &self.0.params
            }
            fn lr(&self) -> f64 {
                self.0.config.lr
            }
            fn set_lr(&mut self, lr: f64) {
                self.0.config.lr = lr;
            }
        }
    };
}

adam_optimizer!(AdamW);
adam_optimizer!(Adam);
