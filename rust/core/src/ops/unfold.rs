//! im2col (`unfold`) and col2im (`fold`): the two linear maps convolutions and pooling are
//! built from. Each is the other's backward, so gradients of any order come for free.

use crate::autograd::record;
use crate::error::fmt_shape;
use crate::{bail, with_dtype, DType, Element, Result, Tensor};
use rayon::prelude::*;

/// Geometry of a 2-D sliding window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub kernel: [usize; 2],
    pub dilation: [usize; 2],
    pub padding: [usize; 2],
    pub stride: [usize; 2],
}

impl Window {
    /// Output positions along each spatial dim for an input of `size`, or an error naming `op`.
    pub fn out_size(&self, op: &str, size: [usize; 2]) -> Result<[usize; 2]> {
        let mut out = [0; 2];
        for d in 0..2 {
            if self.stride[d] == 0 || self.dilation[d] == 0 || self.kernel[d] == 0 {
                bail!(
                    Runtime,
                    "{op}: kernel size, stride and dilation must be greater than zero"
                );
            }
            let span = self.dilation[d] * (self.kernel[d] - 1) + 1;
            let padded = size[d] + 2 * self.padding[d];
            if padded < span {
                bail!(Runtime, "{op}: input spatial size {:?} (padded {padded}) is smaller than the kernel extent {span}", size);
            }
            out[d] = (padded - span) / self.stride[d] + 1;
        }
        Ok(out)
    }
}

/// Output columns `oj` whose input column `oj * stride + k * dilation - pad` lies in `0..w`.
pub(crate) fn valid_range(
    out: usize,
    w: usize,
    k: usize,
    stride: usize,
    dilation: usize,
    pad: usize,
) -> (usize, usize) {
    let off = (k * dilation) as isize - pad as isize;
    // First oj with oj * stride + off >= 0, and one past the last with it < w.
    let lo = if off >= 0 {
        0
    } else {
        ((-off) as usize).div_ceil(stride)
    };
    let hi = if (w as isize) <= off {
        0
    } else {
        ((w as isize - off) as usize).div_ceil(stride).min(out)
    };
    (lo.min(hi), hi)
}

/// Zeroes `s`: the border runs of a padded window are a few elements long, where a call to
/// `memset` costs more than the stores (it was 6% of a 14x14 convolution).
#[inline(always)]
fn zero_short<T: Element>(s: &mut [T]) {
    match s {
        [] => {}
        [a] => *a = T::default(),
        [a, b] => (*a, *b) = (T::default(), T::default()),
        _ => s.fill(T::default()),
    }
}

/// Unfolds one channel plane [h, w] into its kh*kw rows of `l` columns; row `r` starts at
/// `block[r * ld]` (`ld >= l`: a row of a wider matrix holding several images' columns).
pub(crate) fn im2col_plane<T: Element>(
    plane: &[T],
    block: &mut [T],
    ld: usize,
    hw: [usize; 2],
    w: &Window,
    ohw: [usize; 2],
) {
    let [h, wd] = hw;
    let [kh, kw] = w.kernel;
    let l = ohw[0] * ohw[1];
    let same_width = w.stride == [1, 1] && ohw[1] == wd;
    // Bounds are resolved per row, not per element.
    for ki in 0..kh {
        for kj in 0..kw {
            let r = ki * kw + kj;
            let row = &mut block[r * ld..r * ld + l];
            let (lo, hi) = valid_range(ohw[1], wd, kj, w.stride[1], w.dilation[1], w.padding[1]);
            let off = (kj * w.dilation[1]) as isize - w.padding[1] as isize;
            if same_width {
                shifted_rows(
                    plane,
                    row,
                    [h, wd],
                    ohw[0],
                    (ki * w.dilation[0]) as isize - w.padding[0] as isize,
                    off,
                    (lo, hi),
                );
                continue;
            }
            for oi in 0..ohw[0] {
                let ii = (oi * w.stride[0] + ki * w.dilation[0]) as isize - w.padding[0] as isize;
                let out = &mut row[oi * ohw[1]..(oi + 1) * ohw[1]];
                if ii < 0 || ii as usize >= h {
                    out.fill(T::default());
                    continue;
                }
                let src = &plane[ii as usize * wd..(ii as usize + 1) * wd];
                zero_short(&mut out[..lo]);
                zero_short(&mut out[hi..]);
                if w.stride[1] == 1 {
                    let start = (lo as isize + off) as usize;
                    out[lo..hi].copy_from_slice(&src[start..start + (hi - lo)]);
                } else {
                    for (oj, o) in out.iter_mut().enumerate().take(hi).skip(lo) {
                        *o = src[(oj as isize * w.stride[1] as isize + off) as usize];
                    }
                }
            }
        }
    }
}

/// One im2col row when output and input rows have the same width (stride 1, "same"
/// padding): the row is the plane shifted by `row_off` rows and `off` columns, so it is one
/// long copy, then the columns that fell outside the plane (`..lo`, `hi..`) and the rows
/// outside it are zeroed.
fn shifted_rows<T: Element>(
    plane: &[T],
    row: &mut [T],
    [h, wd]: [usize; 2],
    oh: usize,
    row_off: isize,
    off: isize,
    (lo, hi): (usize, usize),
) {
    // Output rows oi with input row oi + row_off inside 0..h.
    let first = (-row_off).clamp(0, oh as isize) as usize;
    let last = (h as isize - row_off).clamp(first as isize, oh as isize) as usize;
    row[..first * wd].fill(T::default());
    row[last * wd..].fill(T::default());
    if first == last || lo >= hi {
        row[first * wd..last * wd].fill(T::default());
        return;
    }
    // From the first valid element of row `first` to the last of row `last - 1`.
    let (start, end) = (first * wd + lo, (last - 1) * wd + hi);
    let src = ((first as isize + row_off) * wd as isize + lo as isize + off) as usize;
    row[start..end].copy_from_slice(&plane[src..src + (end - start)]);
    for oi in first..last {
        zero_short(&mut row[oi * wd..oi * wd + lo]);
        zero_short(&mut row[oi * wd + hi..(oi + 1) * wd]);
    }
}

/// `col2im_plane` for stride 1 and output rows as wide as the input's (what `shifted_rows`
/// unfolds): each kernel row's entries that fell outside the plane are zeroed in `block`
/// (scratch, so it may be changed), then the row is added onto the shifted plane in one
/// long run instead of one short run per output row.
pub(crate) fn col2im_plane_same_width<T: Element>(
    block: &mut [T],
    ld: usize,
    plane: &mut [T],
    [h, wd]: [usize; 2],
    w: &Window,
    ohw: [usize; 2],
    add: impl Fn(T, T) -> T,
) {
    debug_assert!(w.stride == [1, 1] && ohw[1] == wd);
    let (oh, l) = (ohw[0], ohw[0] * ohw[1]);
    for ki in 0..w.kernel[0] {
        for kj in 0..w.kernel[1] {
            let r = ki * w.kernel[1] + kj;
            let row = &mut block[r * ld..r * ld + l];
            let (lo, hi) = valid_range(wd, wd, kj, 1, w.dilation[1], w.padding[1]);
            let off = (kj * w.dilation[1]) as isize - w.padding[1] as isize;
            let row_off = (ki * w.dilation[0]) as isize - w.padding[0] as isize;
            let first = (-row_off).clamp(0, oh as isize) as usize;
            let last = (h as isize - row_off).clamp(first as isize, oh as isize) as usize;
            if first == last || lo >= hi {
                continue;
            }
            for oi in first..last {
                zero_short(&mut row[oi * wd..oi * wd + lo]);
                zero_short(&mut row[oi * wd + hi..(oi + 1) * wd]);
            }
            let (start, end) = (first * wd + lo, (last - 1) * wd + hi);
            let dst = ((first as isize + row_off) * wd as isize + lo as isize + off) as usize;
            for (d, &v) in plane[dst..dst + (end - start)]
                .iter_mut()
                .zip(&row[start..end])
            {
                *d = add(*d, v);
            }
        }
    }
}

/// Folds one channel's kh*kw rows (row `r` at `block[r * ld]`) back onto its plane,
/// adding with `add`.
pub(crate) fn col2im_plane<T: Element>(
    block: &[T],
    ld: usize,
    plane: &mut [T],
    hw: [usize; 2],
    w: &Window,
    ohw: [usize; 2],
    add: impl Fn(T, T) -> T,
) {
    let [h, wd] = hw;
    let [kh, kw] = w.kernel;
    let l = ohw[0] * ohw[1];
    for ki in 0..kh {
        for kj in 0..kw {
            let r = ki * kw + kj;
            let row = &block[r * ld..r * ld + l];
            let (lo, hi) = valid_range(ohw[1], wd, kj, w.stride[1], w.dilation[1], w.padding[1]);
            let off = (kj * w.dilation[1]) as isize - w.padding[1] as isize;
            for oi in 0..ohw[0] {
                let ii = (oi * w.stride[0] + ki * w.dilation[0]) as isize - w.padding[0] as isize;
                if ii < 0 || ii as usize >= h {
                    continue;
                }
                let dst = &mut plane[ii as usize * wd..(ii as usize + 1) * wd];
                let src = &row[oi * ohw[1]..(oi + 1) * ohw[1]];
                if w.stride[1] == 1 {
                    let start = (lo as isize + off) as usize;
                    for (d, &v) in dst[start..start + (hi - lo)].iter_mut().zip(&src[lo..hi]) {
                        *d = add(*d, v);
                    }
                } else {
                    for oj in lo..hi {
                        let p = &mut dst[(oj as isize * w.stride[1] as isize + off) as usize];
                        *p = add(*p, src[oj]);
                    }
                }
            }
        }
    }
}

fn im2col<T: Element>(x: &[T], cols: &mut [T], hw: [usize; 2], w: &Window, ohw: [usize; 2]) {
    let plane_len = hw[0] * hw[1];
    let block_len = w.kernel[0] * w.kernel[1] * ohw[0] * ohw[1];
    let one = |(nc, block): (usize, &mut [T])| {
        im2col_plane(
            &x[nc * plane_len..(nc + 1) * plane_len],
            block,
            ohw[0] * ohw[1],
            hw,
            w,
            ohw,
        )
    };
    // One (image, channel) plane per task.
    if crate::cpu::parallel::worth(cols.len()) {
        crate::cpu::thread_pool::run(|| cols.par_chunks_mut(block_len).enumerate().for_each(one));
    } else {
        cols.chunks_mut(block_len).enumerate().for_each(one);
    }
}

fn col2im<T: Element>(cols: &[T], x: &mut [T], hw: [usize; 2], w: &Window, ohw: [usize; 2]) {
    let plane_len = hw[0] * hw[1];
    let block_len = w.kernel[0] * w.kernel[1] * ohw[0] * ohw[1];
    let one = |(nc, plane): (usize, &mut [T])| {
        col2im_plane(
            &cols[nc * block_len..(nc + 1) * block_len],
            block_len / (w.kernel[0] * w.kernel[1]),
            plane,
            hw,
            w,
            ohw,
            add,
        )
    };
    if crate::cpu::parallel::worth(cols.len()) {
        crate::cpu::thread_pool::run(|| x.par_chunks_mut(plane_len).enumerate().for_each(one));
    } else {
        x.chunks_mut(plane_len).enumerate().for_each(one);
    }
}

/// Addition through f64: exact rounding for f32 and halves (the kernels take floats only).
#[inline(always)]
pub(crate) fn add<T: Element>(a: T, b: T) -> T {
    T::from_f64(a.to_f64() + b.to_f64())
}

impl Tensor {
    /// `F.unfold`: [N, C, H, W] -> [N, C*kh*kw, L] sliding-window columns.
    pub fn im2col(&self, w: Window) -> Result<Tensor> {
        if self.ndim() != 4 {
            bail!(
                Runtime,
                "unfold: expected a 4-D input (N, C, H, W), got shape {}",
                fmt_shape(self.shape())
            );
        }
        if !self.dtype().is_float() {
            bail!(
                Runtime,
                "unfold: expected a floating point input, got {}",
                self.dtype().name()
            );
        }
        let (n, c, h, wd) = (
            self.shape()[0],
            self.shape()[1],
            self.shape()[2],
            self.shape()[3],
        );
        let ohw = w.out_size("unfold", [h, wd])?;
        let l = ohw[0] * ohw[1];
        let out = match crate::cuda_forward!("im2col", [self], |dev| {
            crate::cuda::ops::conv::im2col(&dev, self, &w, ohw)
        }) {
            Some(out) => out?,
            None => {
                let x = self.contiguous_copy_if_needed()?;
                let out = Tensor::uninit(&[n, c * w.kernel[0] * w.kernel[1], l], self.dtype())?;
                if out.numel() > 0 {
                    with_dtype!(self.dtype(), T => im2col::<T>(x.contiguous_slice(), unsafe { out.contiguous_slice_mut() }, [h, wd], &w, ohw));
                }
                out
            }
        };
        Ok(record(
            "Im2ColBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.col2im([h, wd], w)?)]),
        ))
    }

    /// `F.fold`: [N, C*kh*kw, L] -> [N, C, H, W], summing overlapping windows.
    pub fn col2im(&self, size: [usize; 2], w: Window) -> Result<Tensor> {
        let kk = w.kernel[0] * w.kernel[1];
        let ohw = w.out_size("fold", size)?;
        if self.ndim() != 3
            || !self.shape()[1].is_multiple_of(kk)
            || self.shape()[2] != ohw[0] * ohw[1]
        {
            bail!(
                Runtime,
                "fold: expected input of shape (N, C*{kk}, {}) for output size {:?}, got {}",
                ohw[0] * ohw[1],
                size,
                fmt_shape(self.shape())
            );
        }
        if !self.dtype().is_float() {
            bail!(
                Runtime,
                "fold: expected a floating point input, got {}",
                self.dtype().name()
            );
        }
        let (n, c) = (self.shape()[0], self.shape()[1] / kk);
        let out = match crate::cuda_forward!("col2im", [self], |dev| {
            crate::cuda::ops::conv::col2im(&dev, self, size, &w, ohw)
        }) {
            Some(out) => out?,
            None => {
                let cols = self.contiguous_copy_if_needed()?;
                let out = Tensor::zeros(&[n, c, size[0], size[1]], self.dtype())?;
                if out.numel() > 0 && cols.numel() > 0 {
                    with_dtype!(self.dtype(), T => col2im::<T>(cols.contiguous_slice(), unsafe { out.contiguous_slice_mut() }, size, &w, ohw));
                }
                out
            }
        };
        Ok(record(
            "Col2ImBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.im2col(w)?)]),
        ))
    }

    /// `conv2d` as unfold + a batched matmul per group (autograd through both).
    pub fn conv2d(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        stride: [usize; 2],
        padding: [usize; 2],
        dilation: [usize; 2],
        groups: usize,
    ) -> Result<Tensor> {
        let (x, wt) = (self, weight);
        if x.ndim() != 4 || wt.ndim() != 4 {
            bail!(Runtime, "conv2d: expected 4-D input and weight, got input of shape {} and weight of shape {}", fmt_shape(x.shape()), fmt_shape(wt.shape()));
        }
        let (n, c, h, wd) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
        let (o, cg, kh, kw) = (wt.shape()[0], wt.shape()[1], wt.shape()[2], wt.shape()[3]);
        if groups == 0 || c % groups != 0 || o % groups != 0 || cg * groups != c {
            bail!(Runtime, "conv2d: Given groups={groups}, weight of size {} expected input{} to have {} channels, but got {c} channels instead", fmt_shape(wt.shape()), fmt_shape(x.shape()), cg * groups);
        }
        if x.dtype() != wt.dtype() {
            bail!(
                Runtime,
                "conv2d: Input type ({}) and weight type ({}) should be the same",
                x.dtype().name(),
                wt.dtype().name()
            );
        }
        let win = Window {
            kernel: [kh, kw],
            dilation,
            padding,
            stride,
        };
        let ohw = win.out_size("conv2d", [h, wd])?;
        // The fused kernels are the host's; on a GPU conv2d is im2col + cuBLAS below.
        let on_host = x.device() == crate::Device::Cpu && wt.device() == crate::Device::Cpu;
        if on_host && crate::ops::conv::fused_dtype(x.dtype()) {
            if let Some(b) = bias {
                if b.shape() != [o] || b.dtype() != x.dtype() {
                    bail!(
                        Runtime,
                        "conv2d: bias of shape {} ({}) does not match {o} output channels of {}",
                        fmt_shape(b.shape()),
                        b.dtype().name(),
                        x.dtype().name()
                    );
                }
            }
            return x.conv2d_fused(wt, bias, win, groups, ohw);
        }
        let l = ohw[0] * ohw[1];
        let cols = x.im2col(win)?; // [N, C*kh*kw, L]
        let k = cg * kh * kw;
        let cols = cols.reshape(&[n as i64, groups as i64, k as i64, l as i64])?;
        let wmat = wt.reshape(&[groups as i64, (o / groups) as i64, k as i64])?;
        let out = wmat.matmul(&cols)?; // [N, G, O/g, L]
        let mut out = out.reshape(&[n as i64, o as i64, ohw[0] as i64, ohw[1] as i64])?;
        if let Some(b) = bias {
            if b.shape() != [o] {
                bail!(
                    Runtime,
                    "conv2d: bias of shape {} does not match {o} output channels",
                    fmt_shape(b.shape())
                );
            }
            out = out.add(&b.reshape(&[o as i64, 1, 1])?)?;
        }
        Ok(out)
    }

    /// `conv_transpose2d` (weight [C_in, C_out/groups, kh, kw]): the adjoint of conv2d.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_transpose2d(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        stride: [usize; 2],
        padding: [usize; 2],
        output_padding: [usize; 2],
        groups: usize,
        dilation: [usize; 2],
    ) -> Result<Tensor> {
        let (x, wt) = (self, weight);
        if x.ndim() != 4 || wt.ndim() != 4 {
            bail!(
                Runtime,
                "conv_transpose2d: expected 4-D input and weight, got {} and {}",
                fmt_shape(x.shape()),
                fmt_shape(wt.shape())
            );
        }
        let (n, c, h, wd) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
        let (ci, og, kh, kw) = (wt.shape()[0], wt.shape()[1], wt.shape()[2], wt.shape()[3]);
        if groups == 0 || ci != c || c % groups != 0 {
            bail!(Runtime, "conv_transpose2d: Given transposed=1, weight of size {}, expected input{} to have {ci} channels, but got {c} channels instead", fmt_shape(wt.shape()), fmt_shape(x.shape()));
        }
        for d in 0..2 {
            if output_padding[d] >= stride[d].max(dilation[d]) {
                bail!(Runtime, "conv_transpose2d: output padding must be smaller than either stride or dilation");
            }
        }
        let size = [0, 1].map(|d| {
            let hwd = if d == 0 { h } else { wd };
            let k = if d == 0 { kh } else { kw };
            ((hwd - 1) * stride[d] + dilation[d] * (k - 1) + output_padding[d] + 1) as i64
                - 2 * padding[d] as i64
        });
        if size[0] <= 0 || size[1] <= 0 {
            bail!(
                Runtime,
                "conv_transpose2d: computed output size {:?} is too small",
                size
            );
        }
        let size = [size[0] as usize, size[1] as usize];
        let win = Window {
            kernel: [kh, kw],
            dilation,
            padding,
            stride,
        };
        let ohw = win.out_size("conv_transpose2d", size)?;
        if ohw != [h, wd] {
            bail!(Runtime, "conv_transpose2d: input spatial size {:?} is inconsistent with the output size {:?}", [h, wd], size);
        }
        let o = og * groups;
        let k = og * kh * kw;
        let xg = x.reshape(&[
            n as i64,
            groups as i64,
            (c / groups) as i64,
            (h * wd) as i64,
        ])?;
        let wg = wt
            .reshape(&[groups as i64, (c / groups) as i64, k as i64])?
            .transpose(1, 2)?;
        let cols = wg
            .matmul(&xg)?
            .reshape(&[n as i64, (o * kh * kw) as i64, (h * wd) as i64])?;
        let mut out = cols.col2im(size, win)?;
        if let Some(b) = bias {
            out = out.add(&b.reshape(&[o as i64, 1, 1])?)?;
        }
        Ok(out)
    }

    /// True for dtypes the convolution kernels take.
    pub fn conv_dtype_ok(&self) -> bool {
        matches!(
            self.dtype(),
            DType::F32 | DType::F64 | DType::F16 | DType::BF16
        )
    }
}
