//! `linalg.eig` / `eigvals` of general square matrices (real or complex input, complex
//! results). Forward only: the Python layer records the backward, which needs a complex
//! solve that is written there with differentiable tensor ops.

use super::check::{all_finite, at_least_2d, square};
use super::matrices::{batch_dims, host, map_batches, matrix_dims, read, Real};
use crate::{bail, DType, Device, Result, Tensor};
use faer::linalg::solvers::Eigen;
use faer::Mat;
use rustfft::num_complex::Complex;
use rustfft::num_traits::Float;

/// The input dtypes LAPACK's geev takes; PyTorch's message names the complex type it
/// could not find for anything else.
fn check(op: &str, a: &Tensor) -> Result<()> {
    at_least_2d(op, a, "A")?;
    square(op, a, "A")?;
    match a.dtype() {
        DType::F32 | DType::F64 | DType::C64 | DType::C128 => {}
        dt => bail!(
            Runtime,
            "{op}: Unknown Complex ScalarType for {}",
            super::check::scalar_type_name(dt)
        ),
    }
    let finite = if a.dtype().is_complex() {
        all_finite(&a.view_as_real()?)?
    } else {
        all_finite(a)?
    };
    if !finite {
        bail!(
            Runtime,
            "torch.linalg.eig: input tensor should not contain infs or NaNs."
        );
    }
    Ok(())
}

/// Each matrix of a complex `a` as a complex faer matrix.
fn read_complex<T: Real + Float>(a: &Tensor) -> Result<Vec<Mat<Complex<T>>>> {
    let (n, _) = matrix_dims(a);
    let count: usize = batch_dims(a).iter().product();
    let parts = host(&a.view_as_real()?)?;
    let data = parts.contiguous_slice::<T>();
    Ok((0..count)
        .map(|b| {
            Mat::from_fn(n, n, |i, j| {
                let k = b * n * n + i * n + j;
                Complex::new(data[2 * k], data[2 * k + 1])
            })
        })
        .collect())
}

/// Unit 2-norm with the largest component made real and positive (LAPACK's geev leaves the
/// phase of a complex eigenvector free; this fixes one so results are deterministic).
fn normalize<T: Real + Float>(v: &mut [Complex<T>]) {
    let norm = v
        .iter()
        .map(|c| c.norm_sqr())
        .fold(<T as rustfft::num_traits::Zero>::zero(), |a, b| a + b);
    if norm == <T as rustfft::num_traits::Zero>::zero() {
        return;
    }
    let norm = <T as Float>::sqrt(norm);
    let big = v.iter().copied().fold(
        Complex::new(
            <T as rustfft::num_traits::Zero>::zero(),
            <T as rustfft::num_traits::Zero>::zero(),
        ),
        |best, c| {
            if c.norm_sqr() > best.norm_sqr() {
                c
            } else {
                best
            }
        },
    );
    let phase = big.conj() / big.norm();
    for c in v.iter_mut() {
        *c = *c * phase / norm;
    }
}

/// A matrix of the batch: real input keeps the real algorithm, whose real eigenvalues come
/// out with exactly zero imaginary parts and real eigenvectors.
enum Input<T: Real> {
    Real(Mat<T>),
    Complex(Mat<Complex<T>>),
}

/// Eigenvalues `[n]` and (when asked) column eigenvectors `[n, n]` of one matrix, as
/// interleaved (re, im) pairs.
fn one<T: Real + Float>(a: Input<T>, vectors: bool) -> Option<(Vec<T>, Vec<T>)> {
    let n = match &a {
        Input::Real(m) => m.nrows(),
        Input::Complex(m) => m.nrows(),
    };
    let mut vals = Vec::with_capacity(2 * n);
    let mut vecs = Vec::new();
    if vectors {
        let e = match &a {
            Input::Real(m) => Eigen::new_from_real(m.as_ref()).ok()?,
            Input::Complex(m) => Eigen::new(m.as_ref()).ok()?,
        };
        for i in 0..n {
            let l = e.S()[i];
            vals.extend([l.re, l.im]);
        }
        let u = e.U();
        let mut cols: Vec<Vec<Complex<T>>> = (0..n)
            .map(|j| (0..n).map(|i| u[(i, j)]).collect())
            .collect();
        cols.iter_mut().for_each(|c| normalize(c));
        vecs.reserve(2 * n * n);
        for i in 0..n {
            for c in &cols {
                vecs.extend([c[i].re, c[i].im]);
            }
        }
    } else {
        let values = match &a {
            Input::Real(m) => m.eigenvalues().ok()?,
            Input::Complex(m) => m.eigenvalues().ok()?,
        };
        for l in values {
            vals.extend([l.re, l.im]);
        }
    }
    Some((vals, vecs))
}

fn forward<T: Real + Float>(a: &Tensor, vectors: bool) -> Result<(Tensor, Option<Tensor>)> {
    let (n, _) = matrix_dims(a);
    let batch = batch_dims(a).to_vec();
    let inputs: Vec<Input<T>> = if a.dtype().is_complex() {
        read_complex::<T>(a)?
            .into_iter()
            .map(Input::Complex)
            .collect()
    } else {
        read::<T>(a)?.into_iter().map(Input::Real).collect()
    };
    let results = map_batches(inputs, n * n * n, |_, m| one(m, vectors));
    let mut vals = Vec::with_capacity(results.len() * 2 * n);
    let mut vecs = Vec::new();
    for r in results {
        let Some((l, v)) = r else {
            bail!(LinAlg, "linalg.eig: The algorithm failed to converge.");
        };
        vals.extend(l);
        vecs.extend(v);
    }
    let complex = |data: Vec<T>, dims: &[usize]| -> Result<Tensor> {
        let mut shape = batch.clone();
        shape.extend_from_slice(dims);
        shape.push(2);
        let t = Tensor::from_vec(data, &shape)?.view_as_complex()?;
        if a.device() == Device::Cpu {
            Ok(t)
        } else {
            t.copy_to_device(a.device())
        }
    };
    let l = complex(vals, &[n])?;
    let v = if vectors {
        Some(complex(vecs, &[n, n])?)
    } else {
        None
    };
    Ok((l, v))
}

impl Tensor {
    /// `linalg.eig(A)` without autograd: complex eigenvalues `[..., n]` and unit-norm
    /// column eigenvectors `[..., n, n]` (complex64 for float32/complex64 input, else
    /// complex128); `vectors = false` is `linalg.eigvals`.
    pub fn linalg_eig_forward(&self, vectors: bool) -> Result<(Tensor, Option<Tensor>)> {
        let op = if vectors {
            "linalg.eig"
        } else {
            "linalg.eigvals"
        };
        check(op, self)?;
        match self.dtype() {
            DType::F32 | DType::C64 => forward::<f32>(self, vectors),
            _ => forward::<f64>(self, vectors),
        }
    }
}
