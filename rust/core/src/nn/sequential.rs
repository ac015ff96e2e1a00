//! `nn.Sequential`: modules applied one after the other, named by position.

use super::{prefixed, Module};
use crate::{Result, Tensor};

/// Runs its modules in order, as `torch.nn.Sequential`; parameters are named by position
/// (`0.weight`, `2.bias`), so a state dict matches the Python model's.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Linear, Module, Sequential, GELU};
/// let mlp = Sequential::new().add(Linear::new(3, 5)?).add(GELU).add(Linear::new(5, 1)?);
/// assert_eq!(mlp.len(), 3);
/// assert_eq!(mlp.forward(&ferrotorch::randn(&[7, 3])?)?.shape(), &[7, 1]);
/// assert_eq!(mlp.state_dict()[2].0, "2.weight");
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Default)]
pub struct Sequential {
    layers: Vec<Box<dyn Module>>,
}

impl Sequential {
    /// An empty sequence (its forward returns the input).
    pub fn new() -> Sequential {
        Sequential::default()
    }

    /// Appends a module and returns the sequence, for chaining.
    #[allow(clippy::should_implement_trait)]
    pub fn add<M: Module + 'static>(mut self, module: M) -> Sequential {
        self.layers.push(Box::new(module));
        self
    }

    /// The number of modules.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether the sequence has no modules.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl Module for Sequential {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let mut x = input.clone();
        for layer in &self.layers {
            x = layer.forward(&x)?;
        }
        Ok(x)
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        self.layers
            .iter()
            .enumerate()
            .flat_map(|(i, m)| prefixed(&i.to_string(), m.as_ref()))
            .collect()
    }
}
