//! `nn.Linear`: `y = x W^T + b`.

use super::init::{default_bound, uniform};
use super::Module;
use crate::{Result, Tensor};

/// A fully connected layer, `y = x @ weight.T + bias`, as `torch.nn.Linear`.
///
/// `weight` is `[out_features, in_features]`, `bias` is `[out_features]`, both drawn from
/// `U(-1/sqrt(in_features), 1/sqrt(in_features))` as in PyTorch.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Linear, Module};
/// let fc = Linear::new(20, 30)?;
/// let y = fc.forward(&ferrotorch::randn(&[128, 20])?)?;
/// assert_eq!(y.shape(), &[128, 30]);
/// assert_eq!(fc.weight().shape(), &[30, 20]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Linear {
    weight: Tensor,
    bias: Option<Tensor>,
}

impl Linear {
    /// A layer with a bias, initialized as PyTorch does.
    pub fn new(in_features: usize, out_features: usize) -> Result<Linear> {
        Linear::with_bias(in_features, out_features, true)
    }

    /// A layer with or without a bias (`bias=False`).
    pub fn with_bias(in_features: usize, out_features: usize, bias: bool) -> Result<Linear> {
        let bound = default_bound(in_features);
        Ok(Linear {
            weight: uniform(&[out_features, in_features], bound)?,
            bias: if bias {
                Some(uniform(&[out_features], bound)?)
            } else {
                None
            },
        })
    }

    /// The `[out_features, in_features]` weight (shares storage with the layer).
    pub fn weight(&self) -> &Tensor {
        &self.weight
    }

    /// The `[out_features]` bias, if the layer has one.
    pub fn bias(&self) -> Option<&Tensor> {
        self.bias.as_ref()
    }
}

impl Module for Linear {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.linear(&self.weight, self.bias.as_ref())
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut p = vec![("weight".to_string(), self.weight.clone())];
        p.extend(self.bias.iter().map(|b| ("bias".to_string(), b.clone())));
        p
    }
}
