//! `nn.LayerNorm`: normalization over the trailing dims, then a learned scale and shift.

use super::init::constant;
use super::Module;
use crate::error::fmt_shape;
use crate::{bail, Result, Tensor};

/// Layer normalization over the trailing `normalized_shape` dims, as `torch.nn.LayerNorm`:
/// `(x - mean) / sqrt(var + eps) * weight + bias`, with the biased variance.
///
/// `weight` starts at ones and `bias` at zeros, both of `normalized_shape`.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{LayerNorm, Module};
/// let ln = LayerNorm::new(&[4])?;
/// let y = ln.forward(&ferrotorch::tensor(&[1.0, 2.0, 3.0, 4.0], &[1, 4])?)?;
/// let y = y.to_vec::<f32>();
/// assert!((y[0] + 1.341_635_9).abs() < 1e-5 && (y[3] - 1.341_635_9).abs() < 1e-5);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LayerNorm {
    normalized_shape: Vec<usize>,
    eps: f64,
    weight: Option<Tensor>,
    bias: Option<Tensor>,
}

impl LayerNorm {
    /// With PyTorch's defaults: `eps = 1e-5`, learned weight and bias.
    pub fn new(normalized_shape: &[usize]) -> Result<LayerNorm> {
        LayerNorm::with_options(normalized_shape, 1e-5, true, true)
    }

    /// With every option: `elementwise_affine = false` drops both weight and bias; `bias =
    /// false` keeps only the weight.
    pub fn with_options(
        normalized_shape: &[usize],
        eps: f64,
        elementwise_affine: bool,
        bias: bool,
    ) -> Result<LayerNorm> {
        if normalized_shape.is_empty() {
            bail!(
                Value,
                "LayerNorm: normalized_shape must name at least one dim"
            );
        }
        let (weight, bias) = if elementwise_affine {
            let b = if bias {
                Some(constant(normalized_shape, 0.0)?)
            } else {
                None
            };
            (Some(constant(normalized_shape, 1.0)?), b)
        } else {
            (None, None)
        };
        Ok(LayerNorm {
            normalized_shape: normalized_shape.to_vec(),
            eps,
            weight,
            bias,
        })
    }

    /// The scale, if the layer is affine.
    pub fn weight(&self) -> Option<&Tensor> {
        self.weight.as_ref()
    }

    /// The shift, if the layer has one.
    pub fn bias(&self) -> Option<&Tensor> {
        self.bias.as_ref()
    }

    /// The small constant added to the variance.
    pub fn eps(&self) -> f64 {
        self.eps
    }
}

impl Module for LayerNorm {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let k = self.normalized_shape.len();
        let nd = input.ndim();
        if nd < k || input.shape()[nd - k..] != self.normalized_shape[..] {
            bail!(
                Runtime,
                "layer_norm: Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
                fmt_shape(&self.normalized_shape),
                fmt_shape(&self.normalized_shape).trim_matches(['[', ']']),
                fmt_shape(input.shape())
            );
        }
        let mut y = input.normalize_last(k, self.eps)?.0;
        if let Some(w) = &self.weight {
            y = y.mul(w)?;
        }
        if let Some(b) = &self.bias {
            y = y.add(b)?;
        }
        y.to_dtype(input.dtype())
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let w = self
            .weight
            .iter()
            .map(|t| ("weight".to_string(), t.clone()));
        w.chain(self.bias.iter().map(|t| ("bias".to_string(), t.clone())))
            .collect()
    }
}
