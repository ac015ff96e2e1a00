//! One graph node for an op with several differentiable outputs (qr, eigh, svd): the
//! outputs are packed into one flat tensor that carries the node and are handed out as views
//! of it, so that backward runs once with every output's gradient (zeros for unused ones).

use crate::autograd::{is_grad_enabled, record};
use crate::{Result, Tensor};

/// Maps the gradients of all outputs (and the saved tensors) to one gradient per input.
pub(crate) type MultiBackward =
    dyn Fn(&[Tensor], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

fn as_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// `outs` (computed outside autograd) attached to the graph under one node named `name`.
pub(crate) fn record_outputs(
    name: &'static str,
    outs: Vec<Tensor>,
    inputs: &[&Tensor],
    saved: &[&Tensor],
    backward: Box<MultiBackward>,
) -> Result<Vec<Tensor>> {
    if !is_grad_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return Ok(outs);
    }
    let shapes: Vec<Vec<usize>> = outs.iter().map(|o| o.shape().to_vec()).collect();
    let flat = outs
        .iter()
        .map(|o| o.reshape(&[-1]))
        .collect::<Result<Vec<_>>>()?;
    let packed = Tensor::cat(&flat, 0)?;
    let pieces = shapes.clone();
    let packed = record(name, packed, inputs, saved, false, move |g, s| {
        let grads = split(g, &pieces)?;
        backward(&grads, s)
    });
    split(&packed, &shapes)
}

/// The pieces of a packed tensor, shaped as the outputs.
fn split(packed: &Tensor, shapes: &[Vec<usize>]) -> Result<Vec<Tensor>> {
    let mut start = 0;
    shapes
        .iter()
        .map(|s| {
            let n: usize = s.iter().product();
            let piece = packed
                .narrow(0, start as i64, n as i64)?
                .reshape(&as_i64(s));
            start += n;
            piece
        })
        .collect()
}
