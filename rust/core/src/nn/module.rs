//! The `Module` trait: a forward pass and named parameters, from which `parameters`,
//! `state_dict`, `load_state_dict` and `zero_grad` follow.

use crate::{Error, Result, Tensor};
use std::collections::HashMap;

/// Named tensors in registration order, as PyTorch's `OrderedDict` state dicts.
pub type StateDict = Vec<(String, Tensor)>;

/// What [`Module::load_state_dict`] did not match, as PyTorch's `_IncompatibleKeys`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IncompatibleKeys {
    /// Parameters of the module that the state dict lacks.
    pub missing_keys: Vec<String>,
    /// Entries of the state dict that name no parameter of the module.
    pub unexpected_keys: Vec<String>,
}

/// A layer or a model: `forward` plus its parameters by name, as `torch.nn.Module`.
///
/// Implement [`forward`](Module::forward) and [`named_parameters`](Module::named_parameters);
/// the rest is provided. A model made of submodules lists their parameters under the field
/// names with [`prefixed`], so its keys match the Python model's.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{prefixed, Linear, Module};
/// use ferrotorch::{Result, Tensor};
///
/// struct Mlp {
///     fc1: Linear,
///     fc2: Linear,
/// }
///
/// impl Module for Mlp {
///     fn forward(&self, x: &Tensor) -> Result<Tensor> {
///         self.fc2.forward(&self.fc1.forward(x)?.relu()?)
///     }
///     fn named_parameters(&self) -> Vec<(String, Tensor)> {
///         let mut p = prefixed("fc1", &self.fc1);
///         p.extend(prefixed("fc2", &self.fc2));
///         p
///     }
/// }
///
/// let mlp = Mlp { fc1: Linear::new(2, 4)?, fc2: Linear::new(4, 1)? };
/// assert_eq!(mlp.state_dict()[2].0, "fc2.weight");
/// assert_eq!(mlp.forward(&ferrotorch::randn(&[5, 2])?)?.shape(), &[5, 1]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub trait Module: Send + Sync {
    /// Runs the module on `input`, as `module(input)`.
    fn forward(&self, input: &Tensor) -> Result<Tensor>;

    /// The parameters with their dotted names (`weight`, `fc1.bias`, `0.weight`).
    fn named_parameters(&self) -> Vec<(String, Tensor)>;

    /// The parameters in the order of [`named_parameters`](Module::named_parameters), sharing
    /// storage with the module, for an optimizer.
    fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters()
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// The parameters detached from autograd under their names, as `module.state_dict()`.
    ///
    /// The tensors share storage with the module: save them, or copy them if the module will
    /// keep training.
    fn state_dict(&self) -> StateDict {
        self.named_parameters()
            .into_iter()
            .map(|(n, t)| (n, t.detach()))
            .collect()
    }

    /// Copies values from `state` into the parameters of the same name (casting dtype), as
    /// `module.load_state_dict(state, strict)`.
    ///
    /// # Errors
    ///
    /// If a shape differs, or if `strict` and a key is missing or unexpected; then nothing is
    /// copied.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferrotorch::nn::{Linear, Module};
    /// let (a, b) = (Linear::new(3, 2)?, Linear::new(3, 2)?);
    /// b.load_state_dict(&a.state_dict(), true)?;
    /// assert_eq!(a.weight().to_vec::<f32>(), b.weight().to_vec::<f32>());
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    fn load_state_dict(
        &self,
        state: &[(String, Tensor)],
        strict: bool,
    ) -> Result<IncompatibleKeys> {
        load_into(&self.named_parameters(), state, strict)
    }

    /// Clears the `.grad` of every parameter, as `module.zero_grad()` (set_to_none=True).
    fn zero_grad(&self) -> Result<()> {
        for p in self.parameters() {
            p.set_grad(None)?;
        }
        Ok(())
    }
}

/// The parameters of `module` named `"{prefix}.{name}"`, for a model's
/// [`Module::named_parameters`] over its fields.
///
/// # Examples
///
/// ```
/// let names: Vec<String> = ferrotorch::nn::prefixed("fc1", &ferrotorch::nn::Linear::new(2, 2)?)
///     .into_iter()
///     .map(|(n, _)| n)
///     .collect();
/// assert_eq!(names, ["fc1.weight", "fc1.bias"]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn prefixed(prefix: &str, module: &dyn Module) -> Vec<(String, Tensor)> {
    module
        .named_parameters()
        .into_iter()
        .map(|(n, t)| (format!("{prefix}.{n}"), t))
        .collect()
}

fn load_into(
    params: &[(String, Tensor)],
    state: &[(String, Tensor)],
    strict: bool,
) -> Result<IncompatibleKeys> {
    let given: HashMap<&str, &Tensor> = state.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let ours: HashMap<&str, &Tensor> = params.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let keys = IncompatibleKeys {
        missing_keys: params
            .iter()
            .filter(|(n, _)| !given.contains_key(n.as_str()))
            .map(|(n, _)| n.clone())
            .collect(),
        unexpected_keys: state
            .iter()
            .filter(|(n, _)| !ours.contains_key(n.as_str()))
            .map(|(n, _)| n.clone())
            .collect(),
    };
    let mut errors = Vec::new();
    if strict {
        if !keys.unexpected_keys.is_empty() {
            errors.push(format!(
                "Unexpected key(s) in state_dict: {}.",
                quoted(&keys.unexpected_keys)
            ));
        }
        if !keys.missing_keys.is_empty() {
            errors.push(format!(
                "Missing key(s) in state_dict: {}.",
                quoted(&keys.missing_keys)
            ));
        }
    }
    for (name, p) in params {
        if let Some(src) = given.get(name.as_str()) {
            if src.shape() != p.shape() {
                errors.push(format!(
                    "size mismatch for {name}: copying a param with shape {:?} from checkpoint, the shape in current model is {:?}.",
                    src.shape(),
                    p.shape()
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(Error::runtime(format!(
            "Error(s) in loading state_dict:\n\t{}",
            errors.join("\n\t")
        )));
    }
    let _no_grad = crate::no_grad();
    for (name, p) in params {
        if let Some(src) = given.get(name.as_str()) {
            let src = src.to_device(p.device())?;
            let dt = p.dtype();
            p.apply_inplace("copy_", &[], |_| src.to_dtype(dt))?;
        }
    }
    Ok(keys)
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
