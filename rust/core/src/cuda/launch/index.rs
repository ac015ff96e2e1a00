//! index_select, index_add, gather and scatter (kernels in `index.cu`). Every dtype.
//!
//! Indices are i64 only (the caller converts i32 indices). Views (`Strided`) carry base
//! pointer offsets in elements and have at least one dim (pass a 0-d tensor as shape [1]).
//! Device error flag: `err` is 0 or a pointer to one i32 that the caller zeroes and reads
//! when it syncs; an out-of-range index sets bit `loss::ERR_INDEX` and its element is
//! skipped (index_select / gather write 0 there): nothing is touched out of bounds.
//! PyTorch raises a device-side assert; the caller reports an index error.

use super::{grid_for, launch_err, suffix, Kernels, Stream, Strided};
use crate::cuda::kernels::INDEX;
use crate::{DType, Result};
use cudarc::driver::PushKernelArg;

/// How `scatter` combines a source value with its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// Plain store (duplicate indices race, as in PyTorch).
    None,
    /// scatter_add (bool: or).
    Add,
    /// Product (bool: and).
    Multiply,
    /// Maximum (NaN wins).
    Amax,
    /// Minimum (NaN wins).
    Amin,
}

pub(crate) fn scatter_kernel(reduce: ScatterReduce, dtype: DType) -> String {
    let op = match reduce {
        ScatterReduce::None => "set",
        ScatterReduce::Add => "add",
        ScatterReduce::Multiply => "mul",
        ScatterReduce::Amax => "amax",
        ScatterReduce::Amin => "amin",
    };
    format!("scatter_{op}_{}", suffix(dtype))
}

/// dst = src.index_select(dim, index): `index` contiguous i64 [n_index] (negative values
/// count from the end, as the CPU); `dst` contiguous (src's shape with dim -> n_index,
/// `n_out` elements), pointer at element 0. Embedding forward is this on dim 0.
#[allow(clippy::too_many_arguments)]
pub fn index_select(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    src: u64,
    src_view: &Strided,
    dim: usize,
    index: u64,
    n_index: usize,
    dst: u64,
    n_out: usize,
    err: u64,
) -> Result<()> {
    if n_out == 0 {
        return Ok(());
    }
    let name = format!("index_select_{}", suffix(dtype));
    let f = k.function(&INDEX, &name)?;
    let (sv, d, ni, no) = (*src_view, dim as i64, n_index as i64, n_out as i64);
    let mut b = stream.launch_builder(&f);
    b.arg(&src)
        .arg(&sv)
        .arg(&d)
        .arg(&index)
        .arg(&ni)
        .arg(&dst)
        .arg(&no)
        .arg(&err);
    unsafe { b.launch(grid_for(n_out)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// In place: dst[.., index[k], ..] += alpha * src[.., k, ..] with atomics (so the order of
/// float additions to one element varies between runs). `dst_view`: the destination;
/// `src_view`: dst's shape with dim -> n_index (`n_src` elements); `index` contiguous i64
/// [n_index], negatives count from the end. Integer dtypes use alpha truncated to an
/// integer; bool adds are "or". Embedding backward is this into zeros on dim 0.
#[allow(clippy::too_many_arguments)]
pub fn index_add(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    dst: u64,
    dst_view: &Strided,
    dim: usize,
    index: u64,
    n_index: usize,
    src: u64,
    src_view: &Strided,
    alpha: f64,
    n_src: usize,
    err: u64,
) -> Result<()> {
    if n_src == 0 {
        return Ok(());
    }
    let name = format!("index_add_{}", suffix(dtype));
    let f = k.function(&INDEX, &name)?;
    let (dv, sv, d, ni, ns) = (
        *dst_view,
        *src_view,
        dim as i64,
        n_index as i64,
        n_src as i64,
    );
    let mut b = stream.launch_builder(&f);
    b.arg(&dst).arg(&dv).arg(&d).arg(&index).arg(&ni);
    b.arg(&src).arg(&sv).arg(&alpha).arg(&ns).arg(&err);
    unsafe { b.launch(grid_for(n_src)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// dst = src.gather(dim, index): `index_view` a strided i64 view (its shape is the output's;
/// n elements), values in [0, size of dim) (no negatives, as the CPU); `dst` contiguous,
/// pointer at element 0.
#[allow(clippy::too_many_arguments)]
pub fn gather(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    src: u64,
    src_view: &Strided,
    dim: usize,
    index: u64,
    index_view: &Strided,
    dst: u64,
    n: usize,
    err: u64,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let name = format!("gather_{}", suffix(dtype));
    let f = k.function(&INDEX, &name)?;
    let (sv, iv, d, nn) = (*src_view, *index_view, dim as i64, n as i64);
    let mut b = stream.launch_builder(&f);
    b.arg(&src)
        .arg(&sv)
        .arg(&d)
        .arg(&index)
        .arg(&iv)
        .arg(&dst)
        .arg(&nn)
        .arg(&err);
    unsafe { b.launch(grid_for(n)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// In place: for p over index's shape (`n` elements), dst[p with dim -> index[p]] =
/// reduce(that, src[p]). `src_view` must have the index's shape (the CPU's view of src
/// restricted to index's shape; a scalar source is a view with zero strides). Indices in
/// [0, size of dim). `ScatterReduce::Add` is scatter_add (atomic).
#[allow(clippy::too_many_arguments)]
pub fn scatter(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    reduce: ScatterReduce,
    dst: u64,
    dst_view: &Strided,
    dim: usize,
    index: u64,
    index_view: &Strided,
    src: u64,
    src_view: &Strided,
    n: usize,
    err: u64,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let name = scatter_kernel(reduce, dtype);
    let f = k.function(&INDEX, &name)?;
    let (dv, iv, sv, d, nn) = (*dst_view, *index_view, *src_view, dim as i64, n as i64);
    let mut b = stream.launch_builder(&f);
    b.arg(&dst).arg(&dv).arg(&d).arg(&index).arg(&iv);
    b.arg(&src).arg(&sv).arg(&nn).arg(&err);
    unsafe { b.launch(grid_for(n)) }.map_err(launch_err(&name))?;
    Ok(())
}

/// `scatter` with `ScatterReduce::Add`.
#[allow(clippy::too_many_arguments)]
pub fn scatter_add(
    k: &dyn Kernels,
    stream: &Stream,
    dtype: DType,
    dst: u64,
    dst_view: &Strided,
    dim: usize,
    index: u64,
    index_view: &Strided,
    src: u64,
    src_view: &Strided,
    n: usize,
    err: u64,
) -> Result<()> {
    scatter(
        k,
        stream,
        dtype,
        ScatterReduce::Add,
        dst,
        dst_view,
        dim,
        index,
        index_view,
        src,
        src_view,
        n,
        err,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_kernel_is_defined() {
        use ScatterReduce::*;
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            let s = suffix(dt);
            let mut names = vec![
                format!("index_select_{s}"),
                format!("index_add_{s}"),
                format!("gather_{s}"),
            ];
            names.extend([None, Add, Multiply, Amax, Amin].map(|r| scatter_kernel(r, dt)));
            for n in names {
                assert!(INDEX.functions.contains(&n.as_str()), "{n}");
            }
        }
    }
}
