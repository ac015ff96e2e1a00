//! In-place view ops (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `as_strided_`): the tensor
//! object is rebound to the view by the binding; this is the check and version bump they share.

use crate::autograd::is_grad_enabled;
use crate::{bail, Result, Tensor};

impl Tensor {
    /// PyTorch refuses an in-place op on a leaf that requires grad while grad mode is on; the
    /// metadata change counts as a modification (saved copies of this tensor become stale).
    pub fn begin_inplace_view(&self, op: &str) -> Result<()> {
        if is_grad_enabled() && self.is_leaf() && self.requires_grad() {
            bail!(
                Runtime,
                "{op}: a leaf Variable that requires grad is being used in an in-place operation."
            );
        }
        self.storage().bump_version();
        Ok(())
    }
}
