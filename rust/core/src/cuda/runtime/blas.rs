//! Matrix products through cuBLAS: one handle per device, bound to the current stream before
//! each call. Row-major operands are passed as their column-major transposes, so no operand
//! is copied when it has a unit stride in either dimension.

use super::device::DeviceState;
use crate::{DType, Error, Result};
use cudarc::cublas::result as cb;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use std::sync::Arc;

pub struct BlasHandle(cudarc::cublas::sys::cublasHandle_t);

// The handle is used under the device's mutex only.
unsafe impl Send for BlasHandle {}

impl Drop for BlasHandle {
    fn drop(&mut self) {
        let _ = unsafe { cb::destroy_handle(self.0) };
    }
}

/// One row-major matrix operand: base pointer (at its first element), row and column strides.
#[derive(Clone, Copy, Debug)]
pub struct MatRef {
    pub ptr: u64,
    pub row_stride: i64,
    pub col_stride: i64,
    /// Distance between consecutive matrices of the batch (0: the same matrix for all).
    pub batch_stride: i64,
}

impl MatRef {
    /// cuBLAS's (operation, leading dimension) for the column-major transpose of this operand.
    fn as_col_major(&self, rows: usize, cols: usize) -> Option<(cublasOperation_t, i32)> {
        if self.col_stride == 1 && self.row_stride >= cols.max(1) as i64 {
            Some((cublasOperation_t::CUBLAS_OP_N, self.row_stride as i32))
        } else if self.row_stride == 1 && self.col_stride >= rows.max(1) as i64 {
            Some((cublasOperation_t::CUBLAS_OP_T, self.col_stride as i32))
        } else {
            None
        }
    }

    /// Whether cuBLAS can read it as is (otherwise the caller makes it contiguous first).
    pub fn usable(&self, rows: usize, cols: usize) -> bool {
        self.as_col_major(rows, cols).is_some()
    }
}

fn types(dt: DType) -> Result<(cudaDataType, cublasComputeType_t)> {
    Ok(match dt {
        DType::F32 => (
            cudaDataType::CUDA_R_32F,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
        ),
        DType::F64 => (
            cudaDataType::CUDA_R_64F,
            cublasComputeType_t::CUBLAS_COMPUTE_64F,
        ),
        DType::F16 => (
            cudaDataType::CUDA_R_16F,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
        ),
        DType::BF16 => (
            cudaDataType::CUDA_R_16BF,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
        ),
        other => {
            return Err(Error::runtime(format!(
                "\"addmm_cuda\" not implemented for '{}'",
                other.name()
            )))
        }
    })
}

/// C[b] = A[b] @ B[b] for `batch` row-major products of (m x k) by (k x n); C is contiguous
/// (row stride n, batch stride m*n).
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    dev: &Arc<DeviceState>,
    dtype: DType,
    a: MatRef,
    b: MatRef,
    c: u64,
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
) -> Result<()> {
    let (data_t, compute_t) = types(dtype)?;
    let bad = || Error::runtime("matmul: an operand has no unit stride (internal: copy it first)");
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's A is our B.
    let (op_b, ld_b) = b.as_col_major(k, n).ok_or_else(bad)?;
    let (op_a, ld_a) = a.as_col_major(m, k).ok_or_else(bad)?;
    let (one32, zero32, one64, zero64) = (1.0f32, 0.0f32, 1.0f64, 0.0f64);
    let (alpha, beta): (*const std::ffi::c_void, *const std::ffi::c_void) = if dtype == DType::F64 {
        (&one64 as *const f64 as _, &zero64 as *const f64 as _)
    } else {
        (&one32 as *const f32 as _, &zero32 as *const f32 as _)
    };
    super::with_context(dev, || {
        let mut guard = dev.blas.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            let h = cb::create_handle().map_err(|e| Error::runtime(format!("cuBLAS: {e:?}")))?;
            *guard = Some(BlasHandle(h));
        }
        let h = guard.as_ref().map(|h| h.0).unwrap_or(std::ptr::null_mut());
        let stream = dev.streams.current()?;
        unsafe {
            cb::set_stream(h, stream.cu_stream() as _)
                .map_err(|e| Error::runtime(format!("cuBLAS set_stream: {e:?}")))?;
            cb::gemm_strided_batched_ex(
                h,
                op_b,
                op_a,
                n as i32,
                m as i32,
                k as i32,
                alpha,
                (b.ptr) as *const _,
                data_t,
                ld_b,
                b.batch_stride,
                (a.ptr) as *const _,
                data_t,
                ld_a,
                a.batch_stride,
                beta,
                c as *mut _,
                data_t,
                n.max(1) as i32,
                (m * n) as i64,
                batch as i32,
                compute_t,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
            .map_err(|e| {
                Error::runtime(format!(
                    "cuBLAS gemm ({m}x{k} @ {k}x{n}, batch {batch}): {e:?}"
                ))
            })?;
        }
        Ok(())
    })
}
