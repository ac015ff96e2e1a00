//! cumsum / cumprod along one dim (kernels in `scan.cu`): one thread per line.

use super::{grid_for, launch_err, suffix, Kernels, Stream, Strided};
use crate::cuda::kernels::SCAN;
use crate::{DType, Error, Result};
use cudarc::driver::PushKernelArg;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    CumSum,
    CumProd,
}

/// The kernel name for `op` on `dtype` (every dtype is supported).
pub(crate) fn scan_kernel(op: ScanOp, dtype: DType) -> String {
    let which = match op {
        ScanOp::CumSum => "cumsum",
        ScanOp::CumProd => "cumprod",
    };
    format!("scan_{which}_{}", suffix(dtype))
}

/// The dtype `scan` writes for a source of `dtype`: floats keep theirs (halves accumulate in
/// f32), integers and bool give I64.
pub fn scan_out_dtype(dtype: DType) -> DType {
    if dtype.is_float() {
        dtype
    } else {
        DType::I64
    }
}

/// Cumulative sum / product of `src` (dtype `dtype`, base pointer, strided `view` with at
/// least one dim) along `dim`, into `dst`: contiguous in the view's shape, pointer at element
/// 0, dtype `scan_out_dtype(dtype)`.
#[allow(clippy::too_many_arguments)]
pub fn scan(
    k: &dyn Kernels,
    stream: &Stream,
    op: ScanOp,
    src: u64,
    view: &Strided,
    dim: usize,
    dst: u64,
    dtype: DType,
) -> Result<()> {
    let nd = view.ndim as usize;
    if dim >= nd {
        return Err(Error::runtime(format!(
            "CUDA scan: dim {dim} out of range for {nd} dims"
        )));
    }
    let len = view.shape[dim];
    let inner: i64 = view.shape[dim + 1..nd].iter().product();
    let mut lines = Strided {
        ndim: nd as i32 - 1,
        offset: view.offset,
        ..Default::default()
    };
    let mut n_lines = 1i64;
    for (j, d) in (0..nd).filter(|&d| d != dim).enumerate() {
        lines.shape[j] = view.shape[d];
        lines.strides[j] = view.strides[d];
        n_lines *= view.shape[d];
    }
    if n_lines == 0 || len == 0 {
        return Ok(());
    }
    let name = scan_kernel(op, dtype);
    let f = k.function(&SCAN, &name)?;
    let step = view.strides[dim];
    let inner = inner.max(1);
    let mut b = stream.launch_builder(&f);
    b.arg(&src).arg(&lines).arg(&step).arg(&dst);
    b.arg(&n_lines).arg(&len).arg(&inner);
    unsafe { b.launch(grid_for(n_lines as usize)) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scan_kernel_is_defined() {
        for dt in crate::cuda::launch::reduce::ALL_DTYPES {
            for op in [ScanOp::CumSum, ScanOp::CumProd] {
                let name = scan_kernel(op, dt);
                assert!(SCAN.functions.contains(&name.as_str()), "{name}");
            }
        }
    }
}
