//! Thread-local grad mode (`no_grad`, `enable_grad`, `inference_mode`).

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    static INFERENCE: Cell<bool> = const { Cell::new(false) };
}

pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

pub fn set_grad_enabled(on: bool) {
    GRAD_ENABLED.with(|g| g.set(on));
}

pub fn is_inference_mode() -> bool {
    INFERENCE.with(|g| g.get())
}

/// Sets grad mode for a scope and restores the previous mode when dropped.
pub struct GradModeGuard(bool);

impl GradModeGuard {
    pub fn new(on: bool) -> GradModeGuard {
        let prev = is_grad_enabled();
        set_grad_enabled(on);
        GradModeGuard(prev)
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.0);
    }
}

/// Inference mode: no graph is recorded, as under no_grad.
pub struct InferenceModeGuard(bool, bool);

impl InferenceModeGuard {
    pub fn new(on: bool) -> InferenceModeGuard {
        let prev = (is_grad_enabled(), is_inference_mode());
        if on {
            set_grad_enabled(false);
        }
        INFERENCE.with(|g| g.set(on));
        InferenceModeGuard(prev.0, prev.1)
    }
}

impl Drop for InferenceModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.0);
        INFERENCE.with(|g| g.set(self.1));
    }
}
