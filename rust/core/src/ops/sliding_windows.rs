//! `Tensor.unfold(dim, size, step)`: every window of `size` elements along `dim`, `step` apart,
//! as a view (the windows become dim `dim`, their elements a new last dim).
//! Windows overlap when `step < size`, so the backward accumulates with `index_add`.

use crate::autograd::record;
use crate::layout::{wrap_dim, Layout};
use crate::{bail, Result, Scalar, Tensor};

impl Tensor {
    /// The sliding windows of `size` along `dim`, `step` apart (PyTorch's checks and errors).
    pub fn unfold(&self, dim: i64, size: i64, step: i64) -> Result<Tensor> {
        let d = wrap_dim("unfold", dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] } as i64;
        if size > n {
            bail!(
                Runtime,
                "maximum size for tensor at dimension {d} is {n} but size is {size}"
            );
        }
        if step <= 0 {
            bail!(Runtime, "step is {step} but must be > 0");
        }
        if size < 0 {
            bail!(Runtime, "size is {size} but must be >= 0");
        }
        let (size, step) = (size as usize, step as usize);
        let windows = (n as usize - size) / step + 1;
        let x = self.as_1d_if_scalar();
        let l = x.layout();
        let mut shape = l.shape.clone();
        let mut strides = l.strides.clone();
        let elem_stride = strides[d];
        shape[d] = windows;
        strides[d] = elem_stride * step;
        if self.ndim() > 0 {
            shape.push(size);
            strides.push(elem_stride);
        } else {
            // A 0-d input gives the window itself: shape [size].
            shape = vec![size];
            strides = vec![elem_stride];
        }
        let out = self.view_alias(Layout {
            shape,
            strides,
            offset: l.offset,
        });
        let in_shape = self.shape().to_vec();
        let in_1d = x.shape().to_vec();
        let scalar_in = self.ndim() == 0;
        Ok(record(
            "UnfoldBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                // Window k's element j sits at k*step + j along `d`: gather the gradient there.
                let idx: Vec<i64> = (0..windows)
                    .flat_map(|k| (0..size).map(move |j| (k * step + j) as i64))
                    .collect();
                let idx = Tensor::from_vec(idx, &[windows * size])?.to_device(g.device())?;
                let g = if scalar_in {
                    g.reshape(&[1, size as i64])?
                } else {
                    g.clone()
                };
                // [.., windows, .., size] -> [.., windows * size, ..] with the window dims adjacent.
                let nd = g.ndim();
                let mut perm: Vec<i64> = (0..nd as i64 - 1).collect();
                perm.insert(d + 1, nd as i64 - 1);
                let g = g.permute(&perm)?;
                let mut merged: Vec<i64> = in_1d.iter().map(|&s| s as i64).collect();
                merged[d] = (windows * size) as i64;
                let g = g.reshape(&merged)?;
                let zeros = Tensor::zeros(&in_1d, g.dtype())?.to_device(g.device())?;
                let gin = zeros.index_add(d as i64, &idx, &g, Scalar::Int(1))?;
                let shape: Vec<i64> = in_shape.iter().map(|&s| s as i64).collect();
                Ok(vec![Some(gin.reshape(&shape)?)])
            },
        ))
    }
}
