//! Strided copies with dtype conversion (kernels/copy.cu): `contiguous()`, `.to(dtype)`,
//! `copy_`, `cat` (the destination view a slice of the output), index assignment.

use super::ew::{check_view, coalesce, is_flat, launch};
use super::{suffix, Kernels, Strided};
use crate::cuda::kernels::elementwise::COPY;
use crate::{DType, Result};
use cudarc::driver::CudaStream;

/// The kernel `strided_copy` runs, given the views after `ew::coalesce`.
pub fn kernel_name(src_dtype: DType, dst_dtype: DType, src_flat: bool, dst_flat: bool) -> String {
    if src_dtype == dst_dtype && src_flat && dst_flat {
        format!("copy_contig_b{}", src_dtype.size())
    } else {
        format!("copy_{}_{}", suffix(src_dtype), suffix(dst_dtype))
    }
}

/// Copies `n` elements: element i of `src_view` (row-major over its shape) goes to element i
/// of `dst_view`, converted from `src_dtype` to `dst_dtype` as the CPU's `ops::copy::convert`
/// does (through f64 when either side is floating point: float to int truncates toward zero
/// and saturates, NaN to 0; to bool is `!= 0`, NaN to true; int to int wraps).
///
/// `src` and `dst` are base pointers; the views' offsets are in elements. The two views may
/// have different shapes (only their element counts must equal `n`) and any strides, stride 0
/// included for the source; destination elements must not overlap each other, and the source
/// must not overlap the destination (stage through a temporary, as the CPU's `write_from`
/// does, when it may). Same-dtype copies between views that are contiguous after merging
/// dimensions take a plain element copy (`copy_contig_b<size>`).
#[allow(clippy::too_many_arguments)]
pub fn strided_copy(
    k: &dyn Kernels,
    stream: &CudaStream,
    src: u64,
    src_view: &Strided,
    src_dtype: DType,
    dst: u64,
    dst_view: &Strided,
    dst_dtype: DType,
    n: usize,
) -> Result<()> {
    check_view("copy", "source", src_view, n)?;
    check_view("copy", "destination", dst_view, n)?;
    if n == 0 {
        return Ok(());
    }
    let (sv, dv) = (coalesce(src_view), coalesce(dst_view));
    let name = kernel_name(src_dtype, dst_dtype, is_flat(&sv), is_flat(&dv));
    let n64 = n as i64;
    if name.starts_with("copy_contig") {
        let (so, doff) = (sv.offset, dv.offset);
        launch!(k, stream, &COPY, name, n, [&src, &so, &dst, &doff, &n64]);
    } else {
        launch!(k, stream, &COPY, name, n, [&src, &sv, &dst, &dv, &n64]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_copy_kernel_name_exists() {
        for s in DType::REAL {
            for d in DType::REAL {
                for (a, b) in [(false, false), (true, true), (true, false)] {
                    let name = kernel_name(s, d, a, b);
                    assert!(COPY.functions.contains(&name.as_str()), "{name}");
                }
            }
        }
    }
}
