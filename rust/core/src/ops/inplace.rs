//! In-place ops: computed out of place, written back into the tensor's memory, and, when
//! autograd is recording, the tensor's history is rebased onto the new node.

use crate::autograd::is_grad_enabled;
use crate::error::fmt_shape;
use crate::{Error, Result, Tensor};

impl Tensor {
    /// Runs `f` on this tensor (or a snapshot of it, when autograd needs the old values) and
    /// writes the result back. `others` are the other inputs of the op.
    pub fn apply_inplace(
        &self,
        op: &str,
        others: &[&Tensor],
        f: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        let tracking =
            is_grad_enabled() && (self.requires_grad() || others.iter().any(|t| t.requires_grad()));
        if tracking && self.is_leaf() && self.requires_grad() {
            return Err(Error::runtime(format!(
                "{op}: a leaf Variable that requires grad is being used in an in-place operation."
            )));
        }
        // The op's node may save its input; give it a snapshot the write below cannot change.
        let src = if tracking {
            self.clone_tensor()
        } else {
            self.clone()
        };
        let r = f(&src)?;
        if r.shape() != self.shape() {
            return Err(Error::runtime(format!(
                "{op}: output with shape {} doesn't match the broadcast shape {}",
                fmt_shape(self.shape()),
                fmt_shape(r.shape())
            )));
        }
        if r.dtype() != self.dtype()
            && crate::dtype::promote_types(r.dtype(), self.dtype()) != self.dtype()
        {
            return Err(Error::runtime(format!(
                "{op}: result type {} can't be cast to the desired output type {}",
                r.dtype().name(),
                self.dtype().name()
            )));
        }
        self.write_from(&r)?;
        if tracking && r.requires_grad() {
            let r = r.to_dtype(self.dtype())?;
            self.set_grad_fn(r.grad_fn());
        }
        Ok(())
    }
}
