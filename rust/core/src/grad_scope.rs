//! `torch.no_grad()` as a scope guard: ops run while the guard lives record no graph.
#![warn(missing_docs)]

use crate::autograd::GradModeGuard;

/// Turns gradient recording off until the returned guard is dropped, as `with torch.no_grad():`.
///
/// Use it for inference and for updating parameters in place. The previous mode comes back
/// when the guard goes out of scope, also on early return.
///
/// # Examples
///
/// ```
/// let w = ferrotorch::ones(&[2])?.requires_grad_(true)?;
/// {
///     let _guard = ferrotorch::no_grad();
///     assert!(!(&w * 2.0).requires_grad());
/// }
/// assert!((&w * 2.0).requires_grad());
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[must_use = "gradients are off only while the guard lives"]
pub fn no_grad() -> GradModeGuard {
    GradModeGuard::new(false)
}
