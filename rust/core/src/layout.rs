//! Shape, strides (in elements) and offset: how a tensor sees its storage.

use crate::error::fmt_shape;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
}

pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1usize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1);
    }
    strides
}

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Wraps a possibly negative dim into `0..ndim`, as PyTorch does; 0-d tensors accept -1 and 0.
pub fn wrap_dim(op: &str, dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::index(format!(
            "{op}: Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// The broadcast of two shapes, or PyTorch's error naming both.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::runtime(format!(
                "{op}: The size of tensor a ({da}) must match the size of tensor b ({db}) at \
                 non-singleton dimension {i} (shapes {} and {})",
                fmt_shape(a),
                fmt_shape(b)
            )));
        };
    }
    Ok(out)
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// True when the elements are laid out row-major without gaps (size-1 dims ignored).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for i in (0..self.shape.len()).rev() {
            if self.shape[i] == 1 {
                continue;
            }
            if self.strides[i] != expected {
                return self.numel() == 0;
            }
            expected *= self.shape[i];
        }
        true
    }

    /// The extent of storage this view may touch: `offset + max_offset + 1` (0 when empty).
    pub fn storage_span(&self) -> usize {
        if self.numel() == 0 {
            return self.offset;
        }
        self.offset
            + self
                .shape
                .iter()
                .zip(&self.strides)
                .map(|(d, s)| (d - 1) * s)
                .sum::<usize>()
            + 1
    }

    /// Strides that broadcast this layout to `shape` (0 for expanded dims).
    pub fn broadcast_strides(&self, op: &str, shape: &[usize]) -> Result<Vec<usize>> {
        let n = shape.len();
        if self.ndim() > n {
            return Err(Error::runtime(format!(
                "{op}: the number of sizes provided ({n}) must be greater or equal to the number \
                 of dimensions in the tensor ({})",
                self.ndim()
            )));
        }
        let lead = n - self.ndim();
        let mut strides = vec![0; n];
        for i in 0..self.ndim() {
            let (d, t) = (self.shape[i], shape[lead + i]);
            if d == t {
                strides[lead + i] = self.strides[i];
            } else if d == 1 {
                strides[lead + i] = 0;
            } else {
                return Err(Error::runtime(format!(
                    "{op}: The expanded size of the tensor ({t}) must match the existing size \
                     ({d}) at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                    lead + i,
                    fmt_shape(shape),
                    fmt_shape(&self.shape)
                )));
            }
        }
        Ok(strides)
    }
}

/// Calls `f(start, len, stride)` once per innermost row of a strided walk, in row-major
/// order: kernels then run a tight loop per row instead of a call per element.
pub fn for_each_row(
    shape: &[usize],
    strides: &[usize],
    offset: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    if numel(shape) == 0 {
        return;
    }
    if shape.is_empty() {
        f(offset, 1, 1);
        return;
    }
    let nd = shape.len();
    let (inner, inner_stride) = (shape[nd - 1], strides[nd - 1]);
    for_each_offset(&shape[..nd - 1], &strides[..nd - 1], offset, |o| {
        f(o, inner, inner_stride)
    });
}

/// Visits the storage offset of every element of a strided view in row-major order.
/// The innermost dimension is a tight loop; this is the one strided walk all copies use.
pub fn for_each_offset(
    shape: &[usize],
    strides: &[usize],
    offset: usize,
    mut f: impl FnMut(usize),
) {
    let n = numel(shape);
    if n == 0 {
        return;
    }
    if shape.is_empty() {
        f(offset);
        return;
    }
    let nd = shape.len();
    let (inner, inner_stride) = (shape[nd - 1], strides[nd - 1]);
    let mut idx = vec![0usize; nd - 1];
    let mut base = offset;
    loop {
        let mut o = base;
        for _ in 0..inner {
            f(o);
            o += inner_stride;
        }
        // Advance the outer multi-index like an odometer.
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            base += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            base -= strides[d] * shape[d];
            idx[d] = 0;
        }
    }
}
