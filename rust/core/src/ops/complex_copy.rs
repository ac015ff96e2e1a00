//! Copies and casts that involve complex dtypes, and complex values in and out of tensors.
//! Data movement runs on the interleaved real view, so the real copy kernels do the work.

use crate::layout::Layout;
use crate::{DType, Element, Error, Result, Scalar, Tensor};
use rustfft::num_complex::Complex;

/// The contiguous elements of a complex tensor as `Complex<F>` (`F` its part type).
pub(crate) fn complex_slice<F: Element>(t: &Tensor) -> &[Complex<F>] {
    debug_assert!(t.is_contiguous() && t.dtype().to_real() == F::DTYPE);
    let parts = t.real_alias();
    let s = parts.contiguous_slice::<F>();
    // Complex<F> is repr(C) { re: F, im: F }: the pairs of the interleaved storage.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const Complex<F>, t.numel()) }
}

/// Mutable access to the elements of a freshly allocated contiguous complex tensor.
///
/// # Safety
/// Nobody else may read or write the storage meanwhile.
#[allow(clippy::mut_from_ref)]
pub(crate) unsafe fn complex_slice_mut<F: Element>(t: &Tensor) -> &mut [Complex<F>] {
    debug_assert!(t.is_contiguous() && t.dtype().to_real() == F::DTYPE);
    let p = t.storage().ptr() as *mut Complex<F>;
    std::slice::from_raw_parts_mut(p.add(t.offset()), t.numel())
}

impl Tensor {
    /// One part (0: real, 1: imaginary) of a complex tensor as a strided real alias,
    /// outside autograd.
    pub(crate) fn part_alias(&self, part: usize) -> Tensor {
        let l = self.layout();
        Tensor::from_parts(
            self.storage().clone(),
            Layout {
                shape: l.shape.clone(),
                strides: l.strides.iter().map(|s| s * 2).collect(),
                offset: l.offset * 2 + part,
            },
            self.dtype().to_real(),
        )
    }

    /// `copy_as` where the source or the target is complex. Complex to real keeps the real
    /// part (to bool: whether either part is nonzero); real to complex has zero imaginary parts.
    pub(crate) fn copy_as_complex(&self, dtype: DType) -> Result<Tensor> {
        match (self.dtype().is_complex(), dtype.is_complex()) {
            (true, true) if dtype == self.dtype() => {
                // Whole elements moved as opaque 8- or 16-byte values: the real view would
                // walk rows of 2 when the tensor is transposed.
                let out = Tensor::uninit(self.shape(), dtype)?;
                match dtype {
                    DType::C64 => gather_elements::<u64>(self, &out),
                    _ => gather_elements::<[u64; 2]>(self, &out),
                }
                Ok(out)
            }
            (true, true) => self.real_alias().copy_as(dtype.to_real())?.complex_alias(),
            (true, false) if dtype == DType::Bool => {
                let re = self.part_alias(0).copy_as(DType::Bool)?;
                let im = self.part_alias(1).copy_as(DType::Bool)?;
                re.binary(crate::ops::BinaryOp::LogicalOr, &im)
            }
            (true, false) => self.part_alias(0).copy_as(dtype),
            _ => {
                let out = Tensor::zeros(self.shape(), dtype)?;
                out.part_alias(0).write_from(self)?;
                Ok(out)
            }
        }
    }

    /// `write_from` into a complex tensor: the source cast to complex, written pairwise.
    pub(crate) fn write_complex_from(&self, src: &Tensor) -> Result<()> {
        let full = src.copy_as(self.dtype())?;
        self.real_alias().write_from(&full.real_alias())
    }

    /// A 0-d complex tensor holding `v` (kept out of line: `Tensor::scalar` is on the per-op
    /// path of every real op with a Python number).
    #[cold]
    #[inline(never)]
    pub(crate) fn complex_scalar(v: Scalar, dtype: DType) -> Result<Tensor> {
        let (re, im) = v.to_complex();
        let parts = match dtype {
            DType::C64 => Tensor::from_vec(vec![re as f32, im as f32], &[2])?,
            _ => Tensor::from_vec(vec![re, im], &[2])?,
        };
        parts.complex_alias()
    }

    /// A complex tensor of `shape` filled with `value`.
    pub(crate) fn complex_full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        let (re, im) = value.to_complex();
        let out = Tensor::uninit(shape, dtype)?;
        match dtype {
            DType::C64 => {
                unsafe { complex_slice_mut::<f32>(&out) }.fill(Complex::new(re as f32, im as f32))
            }
            _ => unsafe { complex_slice_mut::<f64>(&out) }.fill(Complex::new(re, im)),
        }
        Ok(out)
    }

    /// A contiguous complex tensor from (re, im) pairs given in float64.
    pub fn from_complex_vec(
        values: &[(f64, f64)],
        shape: &[usize],
        dtype: DType,
    ) -> Result<Tensor> {
        if !dtype.is_complex() {
            return Err(Error::runtime(format!(
                "from_complex_vec: {} is not a complex dtype",
                dtype.name()
            )));
        }
        let flat: Vec<f64> = values.iter().flat_map(|&(re, im)| [re, im]).collect();
        let mut parts_shape = shape.to_vec();
        parts_shape.push(2);
        Tensor::from_vec(flat, &parts_shape)?
            .copy_as(dtype.to_real())?
            .complex_alias()
    }

    /// The one value of a one-element complex tensor.
    pub(crate) fn complex_item(&self) -> Scalar {
        let off = self.offset() * 2;
        let (re, im) = match self.dtype() {
            DType::C64 => {
                let s = unsafe { self.storage().slice::<f32>(off, 2) };
                (s[0] as f64, s[1] as f64)
            }
            _ => {
                let s = unsafe { self.storage().slice::<f64>(off, 2) };
                (s[0], s[1])
            }
        };
        Scalar::Complex(re, im)
    }

    /// All elements in row-major order as (re, im) pairs in float64 (any dtype).
    pub fn to_complex_vec(&self) -> Result<Vec<(f64, f64)>> {
        let c = self.copy_as(DType::C128)?;
        let s = c.real_alias();
        Ok(s.contiguous_slice::<f64>()
            .chunks_exact(2)
            .map(|p| (p[0], p[1]))
            .collect())
    }
}

/// Copies the elements of `src` (any layout) into the fresh contiguous `dst` in row-major
/// order, as values of `T` (the element's size); rows split across threads when large.
fn gather_elements<T: Copy + Send + Sync>(src: &Tensor, dst: &Tensor) {
    use rayon::prelude::*;
    let l = src.layout();
    let n = dst.numel();
    if n == 0 {
        return;
    }
    let s: &[T] =
        unsafe { std::slice::from_raw_parts(src.storage().ptr() as *const T, l.storage_span()) };
    let d: &mut [T] = unsafe { std::slice::from_raw_parts_mut(dst.storage().ptr() as *mut T, n) };
    let rows = |shape: &[usize], strides: &[usize], offset: usize, out: &mut [T]| {
        let mut i = 0;
        crate::layout::for_each_row(shape, strides, offset, |start, len, stride| {
            for (k, o) in out[i..i + len].iter_mut().enumerate() {
                *o = s[start + k * stride];
            }
            i += len;
        });
    };
    if l.ndim() >= 2 && l.shape[0] > 1 && crate::cpu::parallel::worth(n) {
        let per = n / l.shape[0];
        crate::cpu::thread_pool::run(|| {
            d.par_chunks_mut(per).enumerate().for_each(|(r, out)| {
                rows(
                    &l.shape[1..],
                    &l.strides[1..],
                    l.offset + r * l.strides[0],
                    out,
                )
            })
        });
    } else {
        rows(&l.shape, &l.strides, l.offset, d);
    }
}

/// Complex tensors live on the host: a device tensor is refused with a clear error.
pub(crate) fn host_only(op: &str, t: &Tensor) -> Result<()> {
    if t.device() != crate::Device::Cpu {
        return Err(Error::NotImplemented(format!(
            "{op}: complex tensors are not supported on {} (got a {} tensor there)",
            t.device(),
            t.dtype().name()
        )));
    }
    Ok(())
}

impl Tensor {
    /// PyTorch's error for a kernel that has no complex form (`kernel` is its name there).
    pub(crate) fn refuse_complex(&self, kernel: &str) -> Result<()> {
        if self.dtype().is_complex() {
            return Err(Error::complex_unsupported(kernel, self.dtype()));
        }
        Ok(())
    }

    /// PyTorch's TypeError for a complex input to an op that orders values.
    pub(crate) fn refuse_complex_order(&self, what: &str) -> Result<()> {
        if self.dtype().is_complex() {
            return Err(Error::type_error(what.to_string()));
        }
        Ok(())
    }
}
