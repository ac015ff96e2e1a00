//! Moving matrices between tensors (`[..., m, n]`, any strides, any device) and faer's
//! column-major matrices, and running one kernel per matrix of a batch.

use crate::{Device, Element, Result, Tensor};
use faer::traits::RealField;
use faer::Mat;
use rayon::prelude::*;

/// The element types with linalg kernels: float32 and float64.
pub(crate) trait Real: RealField + Element + Copy {
    fn magnitude(self) -> Self;
    fn natural_log(self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            fn magnitude(self) -> Self {
                self.abs()
            }
            fn natural_log(self) -> Self {
                self.ln()
            }
        }
    };
}
real!(f32);
real!(f64);

/// Runs `$body` with `$T` bound to the element type of a float32/float64 tensor; other
/// dtypes were refused by the op's checks, and reach here only as an error.
macro_rules! with_real {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            dt => $crate::bail!(Runtime, "linalg: no kernel for {}", dt.name()),
        }
    };
}
pub(crate) use with_real;

/// The leading (batch) dims of a tensor of matrices.
pub(crate) fn batch_dims(t: &Tensor) -> &[usize] {
    &t.shape()[..t.ndim() - 2]
}

/// The last two dims.
pub(crate) fn matrix_dims(t: &Tensor) -> (usize, usize) {
    let nd = t.ndim();
    (t.shape()[nd - 2], t.shape()[nd - 1])
}

/// `batch + [rows, cols]`.
pub(crate) fn with_matrix(batch: &[usize], rows: usize, cols: usize) -> Vec<usize> {
    let mut s = batch.to_vec();
    s.extend([rows, cols]);
    s
}

/// `t` contiguous on the host (a device tensor is copied there).
pub(crate) fn host(t: &Tensor) -> Result<Tensor> {
    if t.device() == Device::Cpu {
        t.contiguous_raw()
    } else {
        t.copy_to_device(Device::Cpu)
    }
}

/// Each matrix of `t` as an owned faer matrix (a device tensor is read through the host).
pub(crate) fn read<T: Real>(t: &Tensor) -> Result<Vec<Mat<T>>> {
    let (m, n) = matrix_dims(t);
    let c = host(t)?;
    let data = c.contiguous_slice::<T>();
    let count: usize = batch_dims(t).iter().product();
    Ok((0..count)
        .map(|b| {
            let base = &data[b * m * n..(b + 1) * m * n];
            Mat::from_fn(m, n, |i, j| base[i * n + j])
        })
        .collect())
}

/// A tensor `batch + [rows, cols]` on `device` from one matrix per batch entry.
pub(crate) fn write<T: Real>(
    batch: &[usize],
    rows: usize,
    cols: usize,
    mats: &[Mat<T>],
    device: Device,
) -> Result<Tensor> {
    let mut data = crate::alloc_size::try_vec::<T>(mats.len() * rows * cols)?;
    for a in mats {
        for i in 0..rows {
            for j in 0..cols {
                data.push(a[(i, j)]);
            }
        }
    }
    on(
        Tensor::from_vec(data, &with_matrix(batch, rows, cols))?,
        device,
    )
}

/// A tensor `batch + [len]` on `device` from one vector per batch entry.
pub(crate) fn write_vectors<E: Element>(
    batch: &[usize],
    len: usize,
    vecs: &[Vec<E>],
    device: Device,
) -> Result<Tensor> {
    let mut data = crate::alloc_size::try_vec::<E>(vecs.len() * len)?;
    for v in vecs {
        data.extend_from_slice(v);
    }
    let mut shape = batch.to_vec();
    shape.push(len);
    on(Tensor::from_vec(data, &shape)?, device)
}

/// A tensor of shape `batch` on `device` with one value per batch entry.
pub(crate) fn write_scalars<E: Element>(
    batch: &[usize],
    vals: Vec<E>,
    device: Device,
) -> Result<Tensor> {
    on(Tensor::from_vec(vals, batch)?, device)
}

/// A host tensor moved to `device` (itself when that is the host).
pub(crate) fn on(t: Tensor, device: Device) -> Result<Tensor> {
    if device == Device::Cpu {
        Ok(t)
    } else {
        t.copy_to_device(device)
    }
}

/// `f` on each item, on the kernel pool when there are several and they are big enough.
pub(crate) fn map_batches<I: Send, R: Send>(
    items: Vec<I>,
    work_per_item: usize,
    f: impl Fn(usize, I) -> R + Sync + Send,
) -> Vec<R> {
    let parallel = items.len() > 1
        && items.len() * work_per_item >= 1 << 16
        && crate::cpu::thread_pool::num_threads() > 1;
    crate::cpu::thread_pool::run_if(parallel, || {
        if parallel {
            items
                .into_par_iter()
                .enumerate()
                .map(|(i, x)| f(i, x))
                .collect()
        } else {
            items
                .into_iter()
                .enumerate()
                .map(|(i, x)| f(i, x))
                .collect()
        }
    })
}

/// For each matrix of the broadcast batch `full`, the flat index of the matrix of the batch
/// `src` that broadcasting maps to it (`src` right-aligned with `full`, size-1 dims repeat).
pub(crate) fn broadcast_index(src: &[usize], full: &[usize]) -> Vec<usize> {
    let count: usize = full.iter().product();
    let lead = full.len() - src.len();
    let mut strides = vec![0usize; full.len()];
    let mut s = 1;
    for d in (0..src.len()).rev() {
        strides[lead + d] = if src[d] == 1 { 0 } else { s };
        s *= src[d];
    }
    let mut out = Vec::with_capacity(count);
    crate::layout::for_each_offset(full, &strides, 0, |o| out.push(o));
    out
}
