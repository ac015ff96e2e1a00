//! Copies and casts: `contiguous`, `to(dtype)`, `clone`, `copy_`.

use crate::autograd::record;
use crate::error::InOp;
use crate::layout::{for_each_offset, for_each_row, Layout};
use crate::{with_dtype, DType, Element, Error, Result, Tensor};
use rayon::prelude::*;

/// Converts one element between dtypes; ints stay exact, floats truncate toward zero.
#[inline(always)]
pub fn convert<S: Element, D: Element>(v: S) -> D {
    if D::DTYPE.is_float() || S::DTYPE.is_float() {
        D::from_f64(v.to_f64())
    } else {
        D::from_i64(v.to_i64())
    }
}

/// Writes the elements of `src` (any layout) into `dst` in row-major order, converting.
fn gather_into<S: Element, D: Element>(src: &Tensor, dst: &mut [D]) {
    let span = src.layout().storage_span();
    let s: &[S] = unsafe { src.storage().slice::<S>(0, span) };
    if src.is_contiguous() {
        let s = &s[src.offset()..src.offset() + dst.len()];
        if S::DTYPE == D::DTYPE {
            // Same type: a plain copy.
            let s: &[D] = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const D, s.len()) };
            if crate::cpu::parallel::worth(dst.len()) {
                crate::cpu::thread_pool::run(|| {
                    dst.par_chunks_mut(1 << 16)
                        .zip(s.par_chunks(1 << 16))
                        .for_each(|(d, s)| d.copy_from_slice(s))
                });
            } else {
                dst.copy_from_slice(s);
            }
        } else {
            crate::cpu::parallel::map(s, dst, convert::<S, D>);
        }
        return;
    }
    let l = src.layout();
    if l.ndim() >= 2 && crate::cpu::parallel::worth(dst.len()) && l.shape[0] > 1 {
        // Split the outermost dimension across threads.
        let rows = l.shape[0];
        let per = dst.len() / rows;
        crate::cpu::thread_pool::run(|| {
            dst.par_chunks_mut(per).enumerate().for_each(|(r, d)| {
                gather_rows(
                    s,
                    d,
                    &l.shape[1..],
                    &l.strides[1..],
                    l.offset + r * l.strides[0],
                )
            })
        });
        return;
    }
    gather_rows(s, dst, &l.shape, &l.strides, l.offset);
}

/// Copies a strided walk of `s` into contiguous `dst`, one innermost row at a time.
fn gather_rows<S: Element, D: Element>(
    s: &[S],
    dst: &mut [D],
    shape: &[usize],
    strides: &[usize],
    offset: usize,
) {
    let mut i = 0;
    for_each_row(shape, strides, offset, |start, len, stride| {
        let out = &mut dst[i..i + len];
        if stride == 1 {
            for (o, &v) in out.iter_mut().zip(&s[start..start + len]) {
                *o = convert(v);
            }
        } else if stride == 0 {
            // A broadcast row: one value repeated.
            out.fill(convert(s[start]));
        } else {
            let src = &s[start..start + (len - 1) * stride + 1];
            for (o, &v) in out.iter_mut().zip(src.iter().step_by(stride)) {
                *o = convert(v);
            }
        }
        i += len;
    });
}

impl Tensor {
    /// A fresh contiguous copy with the given dtype, outside autograd.
    pub fn copy_as(&self, dtype: DType) -> Result<Tensor> {
        if self.dtype().is_complex() || dtype.is_complex() {
            crate::ops::complex_copy::host_only("copy", self)?;
            return self.copy_as_complex(dtype);
        }
        if let Some(out) = crate::cuda_forward!("copy", [self], |d| {
            crate::cuda::ops::copy::copy_as(&d, self, dtype)
        }) {
            return out;
        }
        let out = Tensor::uninit(self.shape(), dtype)?;
        with_dtype!(self.dtype(), S => with_dtype!(dtype, D => {
            let dst = unsafe { out.contiguous_slice_mut::<D>() };
            gather_into::<S, D>(self, dst);
        }));
        Ok(out)
    }

    /// A fresh contiguous copy, outside autograd.
    pub fn contiguous_copy(&self) -> Result<Tensor> {
        self.copy_as(self.dtype())
    }

    /// Self when already contiguous, else a contiguous copy (outside autograd): for results
    /// permuted back into place, where the permutation is often the identity.
    pub(crate) fn contiguous_raw(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.contiguous_copy()
        }
    }

    /// `Tensor.to(dtype)`: self when the dtype already matches.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        if self.requires_grad() && !dtype.is_differentiable() {
            // The result simply does not require grad, as in PyTorch.
            return self.copy_as(dtype);
        }
        let src = self.dtype();
        let out = self.copy_as(dtype)?;
        Ok(record(
            "ToCopyBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.to_dtype(src)?)]),
        ))
    }

    /// `clone()`: a contiguous copy that stays in the graph.
    pub fn clone_tensor(&self) -> Result<Tensor> {
        let out = self.contiguous_copy().op("clone")?;
        Ok(record(
            "CloneBackward0",
            out,
            &[self],
            &[],
            false,
            |g, _| Ok(vec![Some(g.clone())]),
        ))
    }

    /// `contiguous()`: self when already contiguous, else a copy that stays in the graph.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.clone_tensor()
        }
    }

    /// Writes `src` (broadcast and cast as needed) into this tensor's elements, in place.
    pub(crate) fn write_from(&self, src: &Tensor) -> Result<()> {
        if self.storage().is_readonly() {
            return Err(Error::runtime(
                "copy_: cannot write into a read-only tensor (it shares memory with a read-only NumPy array)",
            ));
        }
        let strides = src.layout().broadcast_strides("copy_", self.shape())?;
        let src = src.alias(Layout {
            shape: self.shape().to_vec(),
            strides,
            offset: src.offset(),
        });
        if self.device() != crate::Device::Cpu || src.device() != crate::Device::Cpu {
            return self.write_from_device(&src);
        }
        // Gather first so that overlapping source and destination stay correct.
        if self.dtype().is_complex() {
            return self.write_complex_from(&src);
        }
        // A contiguous source of this dtype in other memory (an in-place op's fresh result)
        // is read where it is: the gather copy was a third pass over the data.
        let tmp = if src.dtype() == self.dtype()
            && src.is_contiguous()
            && !src.storage().same(self.storage())
        {
            src
        } else {
            src.copy_as(self.dtype())?
        };
        with_dtype!(self.dtype(), D => {
            let vals = tmp.contiguous_slice::<D>();
            let l = self.layout();
            let dst: &mut [D] = unsafe { self.storage().slice_mut::<D>(0, l.storage_span()) };
            if self.is_contiguous() {
                dst[l.offset..l.offset + vals.len()].copy_from_slice(vals);
            } else {
                let mut i = 0;
                for_each_offset(&l.shape, &l.strides, l.offset, |o| {
                    dst[o] = vals[i];
                    i += 1;
                });
            }
        });
        self.storage().bump_version();
        Ok(())
    }

    /// `write_from` where either side lives on a GPU: a host destination takes a copy of the
    /// source; a device destination gets one strided copy kernel (through a temporary when the
    /// source shares its storage, since the kernel must not read what it overwrites).
    fn write_from_device(&self, src: &Tensor) -> Result<()> {
        if self.device() == crate::Device::Cpu {
            return self.write_from(&src.to_device(crate::Device::Cpu)?);
        }
        let written: Option<Result<()>> = crate::cuda_forward!("copy_", [self], |dev| {
            let src = if src.device() != self.device() {
                src.to_device(self.device())?
            } else if src.storage().same(self.storage()) {
                crate::cuda::ops::copy::copy_as(&dev, src, src.dtype())?
            } else {
                src.clone()
            };
            crate::cuda::ops::copy::copy_into(&dev, &src, self)
        });
        match written {
            Some(r) => r?,
            None => return Err(Error::runtime("copy_: internal: expected a device tensor")),
        }
        self.storage().bump_version();
        Ok(())
    }
}
