//! Tensors made from nothing: full, ones, arange (its checks in arange.rs), linspace, eye.

use crate::error::InOp;
use crate::{with_dtype, DType, Device, Element, Result, Scalar, Tensor};

impl Tensor {
    /// A tensor of `shape` filled with `value`.
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        if dtype.is_complex() {
            return Tensor::complex_full(shape, value, dtype);
        }
        let t = Tensor::uninit(shape, dtype)?;
        with_dtype!(dtype, T => {
            let v: T = value.to_elem();
            unsafe { t.contiguous_slice_mut::<T>() }.fill(v);
        });
        Ok(t)
    }

    /// A tensor of `shape` filled with `value` on `device`: a GPU fills its own memory (a
    /// memset or a fill kernel), with no host buffer and no copy.
    pub fn full_on(shape: &[usize], value: Scalar, dtype: DType, device: Device) -> Result<Tensor> {
        #[cfg(feature = "cuda")]
        if let crate::backend::Backend::Cuda(d) = crate::backend::on(device)? {
            if dtype.is_complex() {
                // No complex CUDA kernels: made on the host and copied.
                return Tensor::full(shape, value, dtype)?.copy_to_device(device);
            }
            return crate::cuda::ops::full(&d, shape, value, dtype);
        }
        device.check_available()?;
        if matches!(value, Scalar::Int(0)) {
            // calloc: a large buffer is fresh zero pages, committed only when used.
            Tensor::zeros(shape, dtype)
        } else {
            Tensor::full(shape, value, dtype)
        }
    }

    pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(1), dtype)
    }

    /// Ones of `t`'s shape and dtype on `t`'s device (the implicit gradient of backward()).
    pub fn ones_like_tensor(t: &Tensor) -> Result<Tensor> {
        Tensor::full_on(t.shape(), Scalar::Int(1), t.dtype(), t.device())
    }

    /// `arange(start, end, step)` with float bounds (see [`Tensor::arange_scalars`]).
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType) -> Result<Tensor> {
        let f = Scalar::Float;
        Tensor::arange_scalars(f(start), f(end), f(step), dtype)
    }

    /// `linspace(start, end, steps)`: computed from both ends, as PyTorch does, for symmetry.
    pub fn linspace(start: f64, end: f64, steps: usize, dtype: DType) -> Result<Tensor> {
        if dtype.is_complex() {
            // Real end points: the real parts are the real linspace.
            return Tensor::linspace(start, end, steps, dtype.to_real())?.copy_as(dtype);
        }
        let t = Tensor::uninit(&[steps], dtype).op("linspace")?;
        let step = if steps > 1 {
            (end - start) / (steps - 1) as f64
        } else {
            0.0
        };
        // One step is `start` (PyTorch), so the first half always counts from `start`.
        let half = (steps / 2).max(1);
        with_dtype!(dtype, T => {
            let o: &mut [T] = unsafe { t.contiguous_slice_mut() };
            for (i, v) in o.iter_mut().enumerate() {
                let x = if i < half { start + step * i as f64 } else { end - step * (steps - 1 - i) as f64 };
                *v = if dtype.is_float() { T::from_f64(x) } else { T::from_i64(x as i64) };
            }
        });
        Ok(t)
    }

    pub fn eye(n: usize, m: usize, dtype: DType) -> Result<Tensor> {
        if dtype.is_complex() {
            return Tensor::eye(n, m, dtype.to_real())?.copy_as(dtype);
        }
        let t = Tensor::zeros(&[n, m], dtype).op("eye")?;
        with_dtype!(dtype, T => {
            let o: &mut [T] = unsafe { t.contiguous_slice_mut() };
            for i in 0..n.min(m) {
                o[i * m + i] = T::from_i64(1);
            }
        });
        Ok(t)
    }
}
