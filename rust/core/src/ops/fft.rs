//! `torch.fft`. Three primitives carry the kernels and the gradients: complex-to-complex,
//! real-to-complex (the half spectrum along the last transformed dim) and complex-to-real.
//! Every public transform is one of them after promotion, trimming or zero-padding, and
//! conjugation (hfft, ihfft), as in PyTorch.
//!
//! The backward of a transform is the transform in the other direction with the same
//! scaling; the half-spectrum ones also account for the bins they leave out.

use crate::autograd::record;
use crate::error::InOp;
use crate::layout::{wrap_dim, Layout};
use crate::ops::complex_copy::{complex_slice_mut, host_only};
use crate::ops::fft_kernels::{c2c_rows, c2r_rows, r2c_rows, FftPart};
use crate::{bail, DType, Error, Result, Scalar, Tensor};

/// The `norm=` argument: which direction is scaled by 1/n ("ortho": both by 1/sqrt(n)).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FftNorm {
    Backward,
    Ortho,
    Forward,
}

impl FftNorm {
    /// Parses `norm=` (None is "backward"); anything else is PyTorch's error.
    pub fn parse(norm: Option<&str>) -> Result<FftNorm> {
        Ok(match norm {
            None | Some("backward") => FftNorm::Backward,
            Some("ortho") => FftNorm::Ortho,
            Some("forward") => FftNorm::Forward,
            Some(other) => bail!(Runtime, "Invalid normalization mode: \"{other}\""),
        })
    }

    /// The scaling of a transform in the given direction.
    fn scale(self, forward: bool) -> Scale {
        match (self, forward) {
            (FftNorm::Ortho, _) => Scale::Sqrt,
            (FftNorm::Backward, false) | (FftNorm::Forward, true) => Scale::Full,
            _ => Scale::None,
        }
    }
}

/// How a transform of `n` points is scaled: not at all, by 1/sqrt(n), or by 1/n.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Scale {
    None,
    Sqrt,
    Full,
}

impl Scale {
    fn factor(self, n: usize) -> f64 {
        match self {
            Scale::None => 1.0,
            Scale::Sqrt => 1.0 / (n as f64).sqrt(),
            Scale::Full => 1.0 / n as f64,
        }
    }
}

/// A fresh contiguous copy of `t` with dim `d` moved last, and the permutation that undoes it.
fn move_last(t: &Tensor, d: usize) -> Result<(Tensor, Vec<usize>)> {
    let nd = t.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&k| k != d).collect();
    perm.push(d);
    let l = t.layout();
    let moved = t.alias(Layout {
        shape: perm.iter().map(|&k| l.shape[k]).collect(),
        strides: perm.iter().map(|&k| l.strides[k]).collect(),
        offset: l.offset,
    });
    let mut back = vec![0; nd];
    for (i, &k) in perm.iter().enumerate() {
        back[k] = i;
    }
    Ok((moved.contiguous_copy()?, back))
}

/// The contiguous tensor whose dims are those of `t` permuted by `back`.
fn move_back(t: &Tensor, back: &[usize]) -> Result<Tensor> {
    let l = t.layout();
    t.alias(Layout {
        shape: back.iter().map(|&k| l.shape[k]).collect(),
        strides: back.iter().map(|&k| l.strides[k]).collect(),
        offset: l.offset,
    })
    .contiguous_raw()
}

fn scaled(t: Tensor, scale: Scale, n: usize) -> Result<Tensor> {
    let f = scale.factor(n);
    if f == 1.0 {
        Ok(t)
    } else {
        t.mul_scalar(Scalar::Float(f))
    }
}

/// Complex transforms of a complex tensor over `dims`, outside autograd.
fn c2c_raw(x: &Tensor, dims: &[usize], forward: bool, scale: Scale) -> Result<Tensor> {
    let mut t = x.contiguous_copy()?;
    if t.numel() > 0 {
        for &d in dims {
            t = match t.dtype() {
                DType::C64 => c2c_axis::<f32>(&t, d, forward)?,
                _ => c2c_axis::<f64>(&t, d, forward)?,
            };
        }
    }
    let n = dims.iter().map(|&d| x.shape()[d]).product();
    scaled(t, scale, n)
}

fn c2c_axis<F: FftPart>(t: &Tensor, d: usize, forward: bool) -> Result<Tensor> {
    let (m, back) = move_last(t, d)?;
    let n = t.shape()[d];
    c2c_rows(unsafe { complex_slice_mut::<F>(&m) }, n, forward);
    move_back(&m, &back)
}

/// The half spectrum of a real tensor: a real transform along the last of `dims`, then
/// complex ones along the others; outside autograd.
fn r2c_raw(x: &Tensor, dims: &[usize], scale: Scale) -> Result<Tensor> {
    let last = *dims.last().expect("r2c over at least one dim");
    let n = x.shape()[last];
    let (m, back) = move_last(x, last)?;
    let mut shape = m.shape().to_vec();
    *shape.last_mut().expect("at least one dim") = n / 2 + 1;
    let dt = x.dtype().to_complex().unwrap_or(DType::C64);
    let out = Tensor::zeros(&shape, dt).op("rfft")?;
    match x.dtype() {
        DType::F32 => r2c_rows::<f32>(unsafe { m.contiguous_slice_mut() }, n, unsafe {
            complex_slice_mut(&out)
        }),
        _ => r2c_rows::<f64>(unsafe { m.contiguous_slice_mut() }, n, unsafe {
            complex_slice_mut(&out)
        }),
    }
    let half = move_back(&out, &back)?;
    let rest = &dims[..dims.len() - 1];
    let spectrum = c2c_raw(&half, rest, true, Scale::None)?;
    let total = dims.iter().map(|&d| x.shape()[d]).product();
    scaled(spectrum, scale, total)
}

/// The real signal of `n` points along the last of `dims` whose half spectrum is `x`
/// (inverse complex transforms along the other dims first); outside autograd.
fn c2r_raw(x: &Tensor, dims: &[usize], scale: Scale, n: usize) -> Result<Tensor> {
    let last = *dims.last().expect("c2r over at least one dim");
    let t = c2c_raw(x, &dims[..dims.len() - 1], false, Scale::None)?;
    let (m, back) = move_last(&t, last)?;
    let mut shape = m.shape().to_vec();
    *shape.last_mut().expect("at least one dim") = n;
    let out = Tensor::zeros(&shape, x.dtype().to_real()).op("irfft")?;
    match x.dtype() {
        DType::C64 => c2r_rows::<f32>(unsafe { complex_slice_mut(&m) }, n, unsafe {
            out.contiguous_slice_mut()
        }),
        _ => c2r_rows::<f64>(unsafe { complex_slice_mut(&m) }, n, unsafe {
            out.contiguous_slice_mut()
        }),
    }
    let signal = move_back(&out, &back)?;
    let total = dims
        .iter()
        .map(|&d| if d == last { n } else { x.shape()[d] })
        .product();
    scaled(signal, scale, total)
}

/// `x` trimmed or zero-padded to `n` along `d` (differentiable).
fn resize_dim(x: &Tensor, d: usize, n: usize) -> Result<Tensor> {
    let size = x.shape()[d];
    if n == size {
        Ok(x.clone())
    } else if n < size {
        x.narrow(d as i64, 0, n as i64)
    } else {
        let mut shape = x.shape().to_vec();
        shape[d] = n - size;
        Tensor::cat(&[x.clone(), Tensor::zeros(&shape, x.dtype())?], d as i64)
    }
}

impl Tensor {
    /// Complex-to-complex transform over `dims` (the primitive behind fft, ifft, fftn ...).
    fn fft_c2c(&self, dims: &[usize], forward: bool, scale: Scale) -> Result<Tensor> {
        let out = c2c_raw(self, dims, forward, scale)?;
        let dims = dims.to_vec();
        Ok(record(
            "FftC2CBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(g.fft_c2c(&dims, !forward, scale)?)]),
        ))
    }

    /// Real-to-complex transform over `dims`, keeping the half spectrum along the last one.
    fn fft_r2c(&self, dims: &[usize], scale: Scale) -> Result<Tensor> {
        let out = r2c_raw(self, dims, scale)?;
        let dims = dims.to_vec();
        let last = *dims.last().expect("r2c over at least one dim");
        let n = self.shape()[last];
        Ok(record(
            "FftR2CBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                // The left-out bins had no gradient: pad with zeros to the full spectrum,
                // transform back, and keep the real part (the input was real).
                let g = g.contiguous()?;
                let full = resize_dim(&g, last, n)?;
                Ok(vec![Some(full.fft_c2c(&dims, false, scale)?.real()?)])
            },
        ))
    }

    /// Complex-to-real transform over `dims` giving `n` points along the last one.
    fn fft_c2r(&self, dims: &[usize], scale: Scale, n: usize) -> Result<Tensor> {
        let out = c2r_raw(self, dims, scale, n)?;
        let dims = dims.to_vec();
        let last = *dims.last().expect("c2r over at least one dim");
        Ok(record(
            "FftC2RBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| {
                // The bins that stand for two (a bin and its mirror) count twice.
                let gi = g.fft_r2c(&dims, scale)?;
                let half = gi.shape()[last];
                let twice = n - half;
                if twice == 0 {
                    return Ok(vec![Some(gi)]);
                }
                let w: Vec<f64> = (0..half)
                    .map(|k| if (1..=twice).contains(&k) { 2.0 } else { 1.0 })
                    .collect();
                let mut wshape = vec![1usize; gi.ndim()];
                wshape[last] = half;
                let w = Tensor::from_vec(w, &wshape)?.to_dtype(gi.dtype().to_real())?;
                Ok(vec![Some(gi.mul(&w)?)])
            },
        ))
    }
}

/// What a public transform computes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FftKind {
    /// fft, ifft, fft2, ifft2, fftn, ifftn
    Complex { forward: bool },
    /// rfft, rfft2, rfftn
    Real,
    /// irfft, irfft2, irfftn
    InverseReal,
    /// hfft, hfft2, hfftn
    Hermitian,
    /// ihfft, ihfft2, ihfftn
    InverseHermitian,
}

/// The dims a transform covers and the signal size wanted along each (None: as it is).
fn resolve(
    x: &Tensor,
    s: Option<&[i64]>,
    dims: Option<&[i64]>,
) -> Result<(Vec<usize>, Vec<Option<usize>>)> {
    let nd = x.ndim();
    let wrap = |d: i64| -> Result<usize> {
        if nd == 0 {
            bail!(
                Index,
                "Dimension specified as {d} but tensor has no dimensions"
            );
        }
        wrap_dim("fft", d, nd)
    };
    let dims: Vec<usize> = match (dims, s) {
        (Some(ds), Some(ss)) if ds.len() != ss.len() => bail!(
            Runtime,
            "When given, dim and shape arguments must have the same length"
        ),
        (Some(ds), _) => ds.iter().map(|&d| wrap(d)).collect::<Result<_>>()?,
        (None, Some(ss)) => {
            if ss.len() > nd {
                bail!(
                    Runtime,
                    "Got shape with {} values but input tensor only has {nd} dimensions.",
                    ss.len()
                );
            }
            (nd - ss.len()..nd).collect()
        }
        (None, None) => (0..nd).collect(),
    };
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].contains(d) {
            bail!(Runtime, "FFT dims must be unique");
        }
    }
    let sizes = match s {
        None => vec![None; dims.len()],
        Some(ss) => ss
            .iter()
            .map(|&n| match n {
                -1 => Ok(None),
                n if n > 0 => Ok(Some(n as usize)),
                n => Err(Error::runtime(format!(
                    "Invalid number of data points ({n}) specified"
                ))),
            })
            .collect::<Result<_>>()?,
    };
    Ok((dims, sizes))
}

fn check_points(n: usize) -> Result<()> {
    if n == 0 {
        bail!(Runtime, "Invalid number of data points (0) specified");
    }
    Ok(())
}

/// The complex dtype a transform computes in for input dtype `dt` (ints and bools promote
/// to `default_float` first, as PyTorch promotes them to the default dtype).
fn complex_of(dt: DType, default_float: DType) -> Result<DType> {
    match dt {
        DType::F16 | DType::BF16 => Err(Error::NotImplemented(format!(
            "Unsupported dtype {}",
            dt.scalar_type_name()
        ))),
        d if d.is_complex() => Ok(d),
        d if d.is_float() => Ok(d.to_complex().unwrap_or(DType::C64)),
        _ => Ok(default_float.to_complex().unwrap_or(DType::C64)),
    }
}

impl Tensor {
    /// Any `torch.fft` transform: `s` and `dims` as fftn takes them (1-D transforms pass one
    /// of each), `norm` as the `norm=` argument. `op` names the function in errors.
    pub fn fft_transform(
        &self,
        op: &str,
        kind: FftKind,
        s: Option<&[i64]>,
        dims: Option<&[i64]>,
        norm: Option<&str>,
        default_float: DType,
    ) -> Result<Tensor> {
        let norm = FftNorm::parse(norm)?;
        host_only(op, self)?;
        let (dims, sizes) = resolve(self, s, dims)?;
        let complex = complex_of(self.dtype(), default_float)?;
        let real_input = matches!(kind, FftKind::Real | FftKind::InverseHermitian);
        let x = if real_input {
            if self.dtype().is_complex() {
                bail!(
                    Type,
                    "{op} expects a real input tensor, but got {}",
                    self.dtype().scalar_type_name()
                );
            }
            self.to_dtype(complex.to_real())?
        } else {
            self.to_dtype(complex)?
        };
        if dims.is_empty() {
            // PyTorch allows an empty dim list: nothing to transform.
            return if real_input {
                x.to_dtype(complex)
            } else {
                Ok(x)
            };
        }
        let last = *dims.last().expect("dims is not empty");
        let half_input = matches!(kind, FftKind::InverseReal | FftKind::Hermitian);
        // Trim or pad every transformed dim to its signal size (the last one of a half
        // spectrum input to n/2+1 of the output size n).
        let mut x = x;
        let mut out_n = 0;
        for (&d, &size) in dims.iter().zip(&sizes) {
            if half_input && d == last {
                out_n = size.unwrap_or(2 * x.shape()[d].saturating_sub(1));
                check_points(out_n)?;
                x = resize_dim(&x, d, out_n / 2 + 1)?;
            } else {
                let n = size.unwrap_or(x.shape()[d]);
                check_points(n)?;
                x = resize_dim(&x, d, n)?;
            }
        }
        match kind {
            FftKind::Complex { forward } => x.fft_c2c(&dims, forward, norm.scale(forward)),
            FftKind::Real => x.fft_r2c(&dims, norm.scale(true)),
            FftKind::InverseReal => x.fft_c2r(&dims, norm.scale(false), out_n),
            // A Hermitian signal's forward transform is the inverse one of its conjugate.
            FftKind::Hermitian => x.conj()?.fft_c2r(&dims, norm.scale(true), out_n),
            FftKind::InverseHermitian => x.fft_r2c(&dims, norm.scale(false))?.conj(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dft(x: &[(f64, f64)], forward: bool) -> Vec<(f64, f64)> {
        let n = x.len();
        let sign = if forward { -1.0 } else { 1.0 };
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold((0.0, 0.0), |(re, im), (j, &(a, b))| {
                        let t = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                        (
                            re + a * t.cos() - b * t.sin(),
                            im + a * t.sin() + b * t.cos(),
                        )
                    })
            })
            .collect()
    }

    #[test]
    fn complex_transform_matches_a_naive_dft_at_any_length() {
        for n in [1usize, 2, 5, 7, 12, 17] {
            let x: Vec<(f64, f64)> = (0..n)
                .map(|i| (i as f64 * 0.3 - 1.0, (i * i) as f64 * 0.1))
                .collect();
            let t = Tensor::from_complex_vec(&x, &[n], DType::C128).unwrap();
            for forward in [true, false] {
                let kind = FftKind::Complex { forward };
                let y = t
                    .fft_transform("fft", kind, None, None, Some("backward"), DType::F32)
                    .unwrap()
                    .to_complex_vec()
                    .unwrap();
                let scale = if forward { 1.0 } else { 1.0 / n as f64 };
                for (a, b) in y.iter().zip(naive_dft(&x, forward)) {
                    assert!((a.0 - b.0 * scale).abs() < 1e-9 && (a.1 - b.1 * scale).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn real_transforms_round_trip() {
        for n in [1usize, 4, 9] {
            let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            let t = Tensor::from_vec(x.clone(), &[n]).unwrap();
            let spec = t
                .fft_transform("rfft", FftKind::Real, None, None, None, DType::F32)
                .unwrap();
            assert_eq!(spec.shape(), &[n / 2 + 1]);
            let n64 = [n as i64];
            let back = spec
                .fft_transform(
                    "irfft",
                    FftKind::InverseReal,
                    Some(&n64),
                    None,
                    None,
                    DType::F32,
                )
                .unwrap()
                .to_vec::<f64>();
            for (a, b) in back.iter().zip(&x) {
                assert!((a - b).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn bad_arguments_are_errors() {
        let t = Tensor::from_vec(vec![1.0f32; 4], &[4]).unwrap();
        let c = FftKind::Complex { forward: true };
        assert!(t
            .fft_transform("fft", c, Some(&[0]), None, None, DType::F32)
            .is_err());
        assert!(t
            .fft_transform("fft", c, None, None, Some("bad"), DType::F32)
            .is_err());
        assert!(t
            .fft_transform("fft", c, None, Some(&[0, 0]), None, DType::F32)
            .is_err());
        let z = t.to_dtype(DType::C64).unwrap();
        assert!(z
            .fft_transform("rfft", FftKind::Real, None, None, None, DType::F32)
            .is_err());
    }
}
