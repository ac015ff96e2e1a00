//! `as_strided(size, stride, storage_offset)`: a view with any geometry over the input's
//! storage. Output elements may alias each other, so the backward sums the gradient of every
//! output element into the input element at the same storage position (`index_add`).

use crate::autograd::record;
use crate::layout::{for_each_offset, Layout};
use crate::{bail, Result, Scalar, Tensor};
use std::collections::HashMap;

fn fmt_list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// PyTorch's checks, in its order; returns the view's layout.
fn strided_layout(t: &Tensor, size: &[i64], stride: &[i64], offset: i64) -> Result<Layout> {
    if size.len() != stride.len() {
        bail!(Runtime, "mismatch in length of strides and shape");
    }
    if stride.iter().any(|&s| s < 0) {
        bail!(
            Runtime,
            "as_strided: Negative strides are not supported at the moment, got strides: {}",
            fmt_list(stride)
        );
    }
    if let Some(&s) = size.iter().find(|&&s| s < 0) {
        bail!(
            Runtime,
            "Trying to create tensor with negative dimension {s}: {}",
            fmt_list(size)
        );
    }
    if offset < 0 {
        bail!(Runtime, "Tensor: invalid storage offset {offset}");
    }
    let item = t.dtype().size();
    let needed = if size.contains(&0) {
        0
    } else {
        let span: i64 = size.iter().zip(stride).map(|(&n, &s)| (n - 1) * s).sum();
        item as i64 * (offset + span + 1)
    };
    let have = t.storage().nbytes() as i64;
    if needed > have {
        bail!(
            Runtime,
            "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {item} requiring a storage size of {needed} are out of bounds for storage of size {have}",
            fmt_list(size),
            fmt_list(stride)
        );
    }
    Ok(Layout {
        shape: size.iter().map(|&s| s as usize).collect(),
        strides: stride.iter().map(|&s| s as usize).collect(),
        offset: offset as usize,
    })
}

/// For each element of `out` (row-major) whose storage position is an element of `input`,
/// the pair (output flat index, input flat index).
fn aliased_pairs(input: &Layout, out: &Layout) -> (Vec<i64>, Vec<i64>) {
    let mut at: HashMap<usize, i64> = HashMap::new();
    let mut i = 0i64;
    for_each_offset(&input.shape, &input.strides, input.offset, |p| {
        at.entry(p).or_insert(i);
        i += 1;
    });
    let (mut outs, mut ins) = (Vec::new(), Vec::new());
    let mut k = 0i64;
    for_each_offset(&out.shape, &out.strides, out.offset, |p| {
        if let Some(&j) = at.get(&p) {
            outs.push(k);
            ins.push(j);
        }
        k += 1;
    });
    (outs, ins)
}

impl Tensor {
    /// A view of this tensor's storage with the given sizes, strides (in elements) and
    /// offset (this tensor's own offset when `None`).
    pub fn as_strided(
        &self,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
        let offset = storage_offset.unwrap_or(self.offset() as i64);
        let layout = strided_layout(self, size, stride, offset)?;
        let out = self.view_alias(layout.clone());
        let in_layout = self.layout().clone();
        let in_shape: Vec<i64> = self.shape().iter().map(|&s| s as i64).collect();
        let n_in = self.numel();
        Ok(record(
            "AsStridedBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                let (outs, ins) = aliased_pairs(&in_layout, &layout);
                let flat = g.reshape(&[-1])?;
                let outs = Tensor::from_vec(outs.clone(), &[outs.len()])?.to_device(g.device())?;
                let picked = flat.index_select(0, &outs)?;
                let zeros = Tensor::zeros(&[n_in], g.dtype())?.to_device(g.device())?;
                let idx = Tensor::from_vec(ins.clone(), &[ins.len()])?.to_device(g.device())?;
                let gin = zeros.index_add(0, &idx, &picked, Scalar::Int(1))?;
                Ok(vec![Some(gin.reshape(&in_shape)?)])
            },
        ))
    }
}
