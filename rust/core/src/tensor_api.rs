//! The PyTorch-named conveniences on `Tensor` that the lower-level ops do not spell the same
//! way: `backward()`, `sum()`, `mean()`, `gelu()`, `requires_grad_()`.
#![warn(missing_docs)]

use crate::error::fmt_shape;
use crate::ops::UnaryOp;
use crate::{bail, Result, Tensor};

impl Tensor {
    /// Computes the gradient of this scalar with respect to every leaf that requires grad and
    /// adds it to their `.grad`, as `loss.backward()`. The graph is freed afterwards.
    ///
    /// # Errors
    ///
    /// If the tensor has more than one element (PyTorch needs an explicit gradient then) or
    /// does not require grad.
    ///
    /// # Examples
    ///
    /// ```
    /// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0], &[3])?.requires_grad_(true)?;
    /// (&x * &x).sum()?.backward()?;
    /// assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn backward(&self) -> Result<()> {
        if self.numel() != 1 {
            bail!(
                Runtime,
                "backward: grad can be implicitly created only for scalar outputs (got shape {})",
                fmt_shape(self.shape())
            );
        }
        if !self.requires_grad() {
            bail!(
                Runtime,
                "backward: element 0 of tensors does not require grad and does not have a grad_fn"
            );
        }
        let seed = Tensor::ones_like_tensor(self)?;
        crate::autograd::backward(std::slice::from_ref(self), &[seed], false, false)
    }

    /// Sets whether autograd records operations on this tensor and returns it, so that it
    /// chains as `torch.randn(3).requires_grad_()` does.
    ///
    /// # Examples
    ///
    /// ```
    /// let w = ferrotorch::zeros(&[3])?.requires_grad_(true)?;
    /// assert!(w.requires_grad() && w.is_leaf());
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn requires_grad_(&self, flag: bool) -> Result<Tensor> {
        self.set_requires_grad(flag)?;
        Ok(self.clone())
    }

    /// The sum of all elements as a 0-d tensor, as `t.sum()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0], &[3])?;
    /// assert_eq!(x.sum()?.item()?.to_f64(), 6.0);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn sum(&self) -> Result<Tensor> {
        self.sum_all()
    }

    /// The sum over `dim` (negative counts from the end), as `t.sum(dim, keepdim)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(x.sum_dim(-1, false)?.to_vec::<f32>(), vec![3.0, 7.0]);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn sum_dim(&self, dim: i64, keepdim: bool) -> Result<Tensor> {
        self.sum_dims(&[dim], keepdim)
    }

    /// The mean of all elements as a 0-d tensor, as `t.mean()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0, 6.0], &[2, 2])?;
    /// assert_eq!(x.mean()?.item()?.to_f64(), 3.0);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn mean(&self) -> Result<Tensor> {
        self.mean_dims(&[], false)
    }

    /// The mean over `dim`, as `t.mean(dim, keepdim)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0, 6.0], &[2, 2])?;
    /// assert_eq!(x.mean_dim(0, true)?.to_vec::<f32>(), vec![2.0, 4.0]);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn mean_dim(&self, dim: i64, keepdim: bool) -> Result<Tensor> {
        self.mean_dims(&[dim], keepdim)
    }

    /// The Gaussian error linear unit `x * Φ(x)` (exact erf form), as `F.gelu(x)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let y = ferrotorch::tensor(&[0.0, 1.0], &[2])?.gelu()?.to_vec::<f32>();
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 0.841_344_7).abs() < 1e-6);
    /// # Ok::<(), ferrotorch::Error>(())
    /// ```
    pub fn gelu(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Gelu)
    }
}
