//! A node of the graph: the backward of one op, the tensors it saved, and edges to the
//! nodes (or leaves) that produced its inputs.

use crate::tensor::TensorImpl;
use crate::{Error, Result, Tensor};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Maps the gradient of the output (and the saved tensors) to one gradient per input.
pub type BackwardFn = Box<dyn Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync>;
/// Called with a gradient; may return a replacement.
pub type GradHook = Arc<dyn Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync>;

/// Called with a leaf once backward has accumulated its gradient into `.grad`.
pub type PostAccumulateHook = Arc<dyn Fn(&Tensor) -> Result<()> + Send + Sync>;

/// Where the gradient of one input goes.
#[derive(Clone)]
pub enum Edge {
    Node(Arc<Node>),
    Leaf(Tensor),
}

static HOOK_IDS: AtomicUsize = AtomicUsize::new(1);

pub fn next_hook_id() -> usize {
    HOOK_IDS.fetch_add(1, Ordering::Relaxed)
}

pub struct Node {
    name: Cow<'static, str>,
    pub(crate) edges: Vec<Option<Edge>>,
    backward: BackwardFn,
    /// Saved tensors with the storage version seen when saved; `None` once freed.
    saved: Mutex<Option<Vec<(Tensor, u64)>>>,
    pre_hooks: Mutex<Vec<(usize, GradHook)>>,
    retained: Mutex<Option<Weak<TensorImpl>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Node {
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        edges: Vec<Option<Edge>>,
        saved: Vec<Tensor>,
        backward: BackwardFn,
    ) -> Node {
        let saved = saved.into_iter().map(|t| {
            let v = t.version();
            (t, v)
        });
        Node {
            name: name.into(),
            edges,
            backward,
            saved: Mutex::new(Some(saved.collect())),
            pre_hooks: Mutex::new(Vec::new()),
            retained: Mutex::new(None),
        }
    }

    /// PyTorch-style name, e.g. `MulBackward0`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn edges(&self) -> &[Option<Edge>] {
        &self.edges
    }

    pub(crate) fn add_pre_hook(&self, id: usize, hook: GradHook) {
        lock(&self.pre_hooks).push((id, hook));
    }

    pub(crate) fn remove_pre_hook(&self, id: usize) {
        lock(&self.pre_hooks).retain(|(i, _)| *i != id);
    }

    pub(crate) fn set_retained(&self, t: Weak<TensorImpl>) {
        *lock(&self.retained) = Some(t);
    }

    pub(crate) fn retained(&self) -> Option<Tensor> {
        lock(&self.retained)
            .as_ref()
            .and_then(|w| w.upgrade())
            .map(Tensor)
    }

    pub(crate) fn run_pre_hooks(&self, mut g: Tensor) -> Result<Tensor> {
        let hooks: Vec<GradHook> = lock(&self.pre_hooks)
            .iter()
            .map(|(_, h)| h.clone())
            .collect();
        for h in hooks {
            if let Some(new) = h(&g)? {
                g = new;
            }
        }
        Ok(g)
    }

    /// Runs the backward; frees the saved tensors unless `retain`.
    pub(crate) fn apply(&self, grad: &Tensor, retain: bool) -> Result<Vec<Option<Tensor>>> {
        let saved = {
            let mut guard = lock(&self.saved);
            let Some(saved) = guard.as_ref() else {
                return Err(Error::runtime(
                    "Trying to backward through the graph a second time (or directly access saved \
                     tensors after they have already been freed). Saved intermediate values of the \
                     graph are freed when you call .backward() or autograd.grad(). Specify \
                     retain_graph=True if you need to backward through the graph a second time or \
                     if you need to access saved tensors after calling backward.",
                ));
            };
            for (i, (t, v)) in saved.iter().enumerate() {
                if t.version() != *v {
                    return Err(Error::runtime(format!(
                        "one of the variables needed for gradient computation has been modified by \
                         an inplace operation: [torch.{} {:?}], which is saved tensor {i} of {}, is \
                         at version {}; expected version {v} instead. Hint: the backtrace further \
                         above can show the operation that failed to compute its gradient. The \
                         variable in question was changed in there or anywhere later. Good luck!",
                        t.dtype().legacy_name(),
                        t.shape(),
                        self.name,
                        t.version()
                    )));
                }
            }
            let tensors: Vec<Tensor> = saved.iter().map(|(t, _)| t.clone()).collect();
            // Graphs that saved nothing can be run again, as in PyTorch.
            if !retain && !tensors.is_empty() {
                *guard = None;
            }
            tensors
        };
        let grads = (self.backward)(grad, &saved)?;
        if grads.len() != self.edges.len() {
            return Err(Error::runtime(format!(
                "function {} returned an incorrect number of gradients (expected {}, got {})",
                self.name,
                self.edges.len(),
                grads.len()
            )));
        }
        Ok(grads)
    }
}

/// Attaches a backward node to `out` when grad mode is on and some input requires grad.
/// `saved` are kept (with version checks) and handed back to `backward`; with `save_output`
/// a detached alias of `out` is appended (detached, so the graph has no cycle).
pub fn record(
    name: &'static str,
    out: Tensor,
    inputs: &[&Tensor],
    saved: &[&Tensor],
    save_output: bool,
    backward: impl Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    if !super::is_grad_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return out;
    }
    let edges = inputs.iter().map(|t| edge_of(t)).collect();
    let mut keep: Vec<Tensor> = saved.iter().map(|t| (*t).clone()).collect();
    if save_output {
        keep.push(out.detach());
    }
    let node = Arc::new(Node::new(name, edges, keep, Box::new(backward)));
    out.set_grad_fn(Some(node));
    out
}

/// The edge through which gradient reaches `t`, or None if it does not require grad.
pub(crate) fn edge_of(t: &Tensor) -> Option<Edge> {
    let m = t.meta();
    if let Some(node) = &m.grad_fn {
        Some(Edge::Node(node.clone()))
    } else if m.requires_grad {
        Some(Edge::Leaf(t.clone()))
    } else {
        None
    }
}

/// Like [`record`], with a name chosen at run time and nothing saved (custom Functions).
pub fn record_named(
    name: String,
    out: Tensor,
    inputs: &[&Tensor],
    backward: impl Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    if !super::is_grad_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return out;
    }
    let edges = inputs.iter().map(|t| edge_of(t)).collect();
    let node = Arc::new(Node::new(name, edges, Vec::new(), Box::new(backward)));
    out.set_grad_fn(Some(node));
    out
}
