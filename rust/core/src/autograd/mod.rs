//! Reverse-mode automatic differentiation: a graph of nodes owned by the outputs (`grad_fn`),
//! built as ops run and freed when they die, run backward by a small engine.

mod engine;
mod grad_mode;
mod node;

pub use engine::{backward, backward_to, grad};
pub use grad_mode::{
    is_grad_enabled, is_inference_mode, set_grad_enabled, GradModeGuard, InferenceModeGuard,
};
pub use node::{
    next_hook_id, record, record_named, BackwardFn, Edge, GradHook, Node, PostAccumulateHook,
};
