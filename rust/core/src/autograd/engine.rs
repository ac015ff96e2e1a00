//! The backward engine: count dependencies, then run each node once all the gradient for its
//! output has arrived, summing contributions. In `backward`, a leaf's `.grad` is written (and
//! its post-accumulate hooks run) as soon as its last contribution arrives, so that hooks can
//! start work (a gradient all-reduce) while the rest of the graph is still running.

use super::node::{edge_of, Edge, Node};
use super::GradModeGuard;
use crate::{Error, Result, Tensor};
use std::collections::HashMap;
use std::sync::Arc;

type Key = usize;

fn key(n: &Arc<Node>) -> Key {
    Arc::as_ptr(n) as usize
}

fn accumulate(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        Some(prev) => prev.add(&g)?,
        None => g,
    });
    Ok(())
}

struct Run {
    retain: bool,
    create: bool,
    /// Keys (node or leaf ids) whose incoming gradient autograd.grad returns.
    capture: HashMap<Key, usize>,
    /// Write each leaf's `.grad` as soon as its gradient is complete (plain `backward`).
    eager_leaves: bool,
    captured: Vec<Option<Tensor>>,
}

fn run(roots: &[Tensor], grads: &[Tensor], r: &mut Run) -> Result<Vec<(Tensor, Tensor)>> {
    if roots.len() != grads.len() {
        return Err(Error::runtime(format!(
            "grad can be implicitly created only for scalar outputs; got {} outputs and {} gradients",
            roots.len(),
            grads.len()
        )));
    }
    let _mode = GradModeGuard::new(r.create);
    let mut buffers: HashMap<Key, Option<Tensor>> = HashMap::new();
    let mut leaves: HashMap<Key, (Tensor, Option<Tensor>)> = HashMap::new();
    let mut ready: Vec<Arc<Node>> = Vec::new();
    let mut deps: HashMap<Key, usize> = HashMap::new();
    let mut leaf_deps: HashMap<Key, usize> = HashMap::new();

    // Count, for each node reachable from the roots, how many edges point at it.
    let mut stack: Vec<Arc<Node>> = Vec::new();
    let mut seen: HashMap<Key, Arc<Node>> = HashMap::new();
    for (i, t) in roots.iter().enumerate() {
        match edge_of(t) {
            None => {
                return Err(Error::runtime(format!(
                    "element {i} of tensors does not require grad and does not have a grad_fn"
                )))
            }
            Some(Edge::Node(n)) => {
                if seen.insert(key(&n), n.clone()).is_none() {
                    stack.push(n);
                }
            }
            Some(Edge::Leaf(_)) => {}
        }
    }
    while let Some(n) = stack.pop() {
        for e in n.edges().iter().flatten() {
            match e {
                Edge::Node(c) => {
                    *deps.entry(key(c)).or_insert(0) += 1;
                    if seen.insert(key(c), c.clone()).is_none() {
                        stack.push(c.clone());
                    }
                }
                Edge::Leaf(l) => *leaf_deps.entry(l.id()).or_insert(0) += 1,
            }
        }
    }
    for (t, g) in roots.iter().zip(grads) {
        if g.shape() != t.shape() {
            return Err(Error::runtime(format!(
                "Mismatch in shape: grad_output[0] has a shape of {:?} and output[0] has a shape of {:?}.",
                g.shape(),
                t.shape()
            )));
        }
        match edge_of(t) {
            Some(Edge::Node(n)) => accumulate(buffers.entry(key(&n)).or_default(), g.clone())?,
            Some(Edge::Leaf(l)) => accumulate(
                &mut leaves.entry(l.id()).or_insert((l.clone(), None)).1,
                g.clone(),
            )?,
            None => {}
        }
    }
    for n in seen.values() {
        if deps.get(&key(n)).copied().unwrap_or(0) == 0 {
            ready.push(n.clone());
        }
    }

    while let Some(node) = ready.pop() {
        let k = key(&node);
        let grad = buffers.remove(&k).flatten();
        let mut outs: Vec<Option<Tensor>> = vec![None; node.edges().len()];
        if let Some(g) = grad {
            let _evaluate = crate::profiler::scope_with(
                || format!("autograd::engine::evaluate_function: {}", node.name()),
                &[&g],
            );
            let g = node.run_pre_hooks(g)?;
            if let Some(&slot) = r.capture.get(&k) {
                r.captured[slot] = Some(g.clone());
            }
            if r.capture.is_empty() {
                if let Some(t) = node.retained() {
                    let g = if r.create { g.clone() } else { g.detach() };
                    let mut m = t.meta();
                    let prev = m.grad.take();
                    drop(m);
                    let mut slot = prev;
                    accumulate(&mut slot, g)?;
                    t.meta().grad = slot;
                }
            }
            let _apply = crate::profiler::scope_with(|| node.name().to_string(), &[&g]);
            outs = node.apply(&g, r.retain)?;
        }
        for (edge, g) in node.edges().iter().zip(outs) {
            match edge {
                Some(Edge::Node(c)) => {
                    let ck = key(c);
                    if let Some(g) = g {
                        accumulate(buffers.entry(ck).or_default(), g)?;
                    }
                    let d = deps.get_mut(&ck).expect("dependency counted");
                    *d -= 1;
                    if *d == 0 {
                        ready.push(c.clone());
                    }
                }
                Some(Edge::Leaf(l)) => {
                    if let Some(g) = g {
                        accumulate(&mut leaves.entry(l.id()).or_insert((l.clone(), None)).1, g)?;
                    }
                    let d = leaf_deps.get_mut(&l.id()).expect("leaf dependency counted");
                    *d -= 1;
                    // Roots that are leaves also get gradient straight from `grads`: keep those for the end.
                    let is_root = roots.iter().any(|t| t.id() == l.id());
                    if *d == 0 && r.eager_leaves && !is_root {
                        if let Some((t, Some(g))) = leaves.remove(&l.id()) {
                            finish_leaf(&t, g, r.create)?;
                        }
                    }
                }
                None => {}
            }
        }
    }
    Ok(leaves
        .into_values()
        .filter_map(|(t, g)| g.map(|g| (t, g)))
        .collect())
}

fn run_leaf_hooks(t: &Tensor, mut g: Tensor) -> Result<Tensor> {
    let hooks: Vec<_> = t.meta().hooks.iter().map(|(_, h)| h.clone()).collect();
    for h in hooks {
        if let Some(new) = h(&g)? {
            g = new;
        }
    }
    Ok(g)
}

/// `Tensor.backward` / `torch.autograd.backward`: accumulates into the leaves' `.grad`.
pub fn backward(
    roots: &[Tensor],
    grads: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
) -> Result<()> {
    let mut r = Run {
        retain: retain_graph,
        create: create_graph,
        capture: HashMap::new(),
        eager_leaves: true,
        captured: vec![],
    };
    let leaves = run(roots, grads, &mut r)?;
    let _mode = GradModeGuard::new(create_graph);
    for (t, g) in leaves {
        finish_leaf(&t, g, create_graph)?;
    }
    Ok(())
}

/// A leaf's complete gradient: its hooks, then `.grad`, then its post-accumulate hooks.
fn finish_leaf(t: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    let g = run_leaf_hooks(t, g)?;
    let g = if create_graph { g } else { g.detach() };
    accumulate_into_grad(t, g, create_graph)?;
    run_post_accumulate_hooks(t)
}

fn run_post_accumulate_hooks(t: &Tensor) -> Result<()> {
    let hooks: Vec<_> = t
        .meta()
        .post_accumulate_hooks
        .iter()
        .map(|(_, h)| h.clone())
        .collect();
    for h in hooks {
        h(t)?;
    }
    Ok(())
}

/// Adds `g` to `t.grad`: in place when no graph is being built (keeps `.grad`'s identity).
fn accumulate_into_grad(t: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    let prev = t.meta().grad.take();
    let new = match prev {
        Some(p) if !create_graph => {
            p.add_(&g)?;
            p
        }
        Some(p) => p.add(&g)?,
        None if !create_graph => g.contiguous_copy()?,
        None => g,
    };
    t.meta().grad = Some(new);
    Ok(())
}

/// `torch.autograd.grad`: the gradients of `roots` with respect to `inputs`, without
/// touching any `.grad`.
pub fn grad(
    roots: &[Tensor],
    grads: &[Tensor],
    inputs: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    let mut capture = HashMap::new();
    let mut leaf_slots = HashMap::new();
    for (i, t) in inputs.iter().enumerate() {
        match edge_of(t) {
            Some(Edge::Node(n)) => {
                capture.insert(key(&n), i);
            }
            Some(Edge::Leaf(l)) => {
                leaf_slots.insert(l.id(), i);
            }
            None => {
                return Err(Error::runtime(format!(
                    "One of the differentiated Tensors (input {i}) does not require grad"
                )))
            }
        }
    }
    let mut r = Run {
        retain: retain_graph,
        create: create_graph,
        capture,
        eager_leaves: false,
        captured: vec![None; inputs.len()],
    };
    // A marker so that `run` never writes `.grad` of retained tensors during autograd.grad.
    if r.capture.is_empty() {
        r.capture.insert(0, usize::MAX);
    }
    let leaves = run(roots, grads, &mut r)?;
    let mut out = std::mem::take(&mut r.captured);
    out.resize(inputs.len(), None);
    for (t, g) in leaves {
        if let Some(&i) = leaf_slots.get(&t.id()) {
            let _mode = GradModeGuard::new(create_graph);
            out[i] = Some(run_leaf_hooks(&t, g)?);
        }
    }
    if !allow_unused {
        if let Some(i) = out.iter().position(|g| g.is_none()) {
            return Err(Error::runtime(format!(
                "One of the differentiated Tensors (input {i}) appears to not have been used in the \
                 graph. Set allow_unused=True if this is the desired behavior."
            )));
        }
    }
    if !create_graph {
        out = out.into_iter().map(|g| g.map(|g| g.detach())).collect();
    }
    Ok(out)
}

/// `backward(inputs=...)`: accumulates only into the `.grad` of the given tensors (leaves or not).
pub fn backward_to(
    roots: &[Tensor],
    grads: &[Tensor],
    inputs: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
) -> Result<()> {
    let gs = grad(roots, grads, inputs, retain_graph, create_graph, true)?;
    let _mode = GradModeGuard::new(create_graph);
    for (t, g) in inputs.iter().zip(gs) {
        if let Some(g) = g {
            accumulate_into_grad(t, g, create_graph)?;
            run_post_accumulate_hooks(t)?;
        }
    }
    Ok(())
}
