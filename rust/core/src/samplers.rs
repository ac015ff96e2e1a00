//! The samplers behind `torch.distributions`: `_standard_gamma` (Marsaglia-Tsang, with its
//! reparameterized gradient), `poisson` (inversion, Hormann's PTRS for large rates),
//! `binomial` (inversion, Hormann's BTRS for large means) and `_sample_dirichlet`
//! (normalized gammas). All draw from ferrotorch's generators (`generator=` or the default).

use crate::alloc_size::try_vec;
use crate::autograd::record;
use crate::cpu::parallel::{zip, Src};
use crate::cpu::special::{lgamma, standard_gamma_grad};
use crate::layout::broadcast_shapes;
use crate::ops::special::host_only;
use crate::random::{with_gen, Generator, SharedGenerator};
use crate::{bail, DType, Result, Tensor};

/// One gamma(alpha, 1) draw for alpha > 0 (Marsaglia & Tsang, 2000). Shapes below 1 are
/// boosted: `G(alpha) = G(alpha + 1) U^(1/alpha)`, taken in logs so tiny shapes give 0.
pub fn sample_gamma(g: &mut Generator, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u = 1.0 - g.next_f64();
        let x = sample_gamma(g, alpha + 1.0);
        return (x.ln() + u.ln() / alpha).exp();
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let z = g.normal();
        let v = 1.0 + c * z;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = 1.0 - g.next_f64();
        let z2 = z * z;
        // The squeeze accepts most draws without a logarithm.
        if u < 1.0 - 0.0331 * z2 * z2 || u.ln() < 0.5 * z2 + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// One Poisson(lam) draw for finite lam >= 0.
pub fn sample_poisson(g: &mut Generator, lam: f64) -> f64 {
    if lam == 0.0 {
        return 0.0;
    }
    if lam.is_infinite() {
        return lam;
    }
    if lam < 10.0 {
        // Inversion by sequential search of the CDF.
        let u = g.next_f64();
        let (mut p, mut k) = ((-lam).exp(), 0.0f64);
        let mut cdf = p;
        while u > cdf && p > 0.0 {
            k += 1.0;
            p *= lam / k;
            cdf += p;
        }
        return k;
    }
    // PTRS: transformed rejection with squeeze (Hormann, 1993).
    let (slam, loglam) = (lam.sqrt(), lam.ln());
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = g.next_f64() - 0.5;
        let v = g.next_f64();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - lgamma(k + 1.0)
        {
            return k;
        }
    }
}

/// One binomial(n, p) draw: NaN for NaN inputs, 0 for n <= 0 or p <= 0, n for p >= 1 (a
/// fractional count is floored).
pub fn sample_binomial(g: &mut Generator, n: f64, p: f64) -> f64 {
    if n.is_nan() || p.is_nan() {
        return f64::NAN;
    }
    let n = n.floor();
    if n <= 0.0 || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - sample_binomial(g, n, 1.0 - p);
    }
    let q = 1.0 - p;
    if n * p < 10.0 {
        // Inversion: pmf(k+1) = pmf(k) * ((n+1)/k - 1) p/q.
        let s = p / q;
        let a = (n + 1.0) * s;
        let mut r = (n * (-p).ln_1p()).exp();
        let mut u = g.next_f64();
        let mut k = 0.0;
        while u >= r && k < n && r > 0.0 {
            u -= r;
            k += 1.0;
            r *= a / k - s;
        }
        return k;
    }
    // BTRS: transformed rejection with squeeze (Hormann, 1993).
    let spq = (n * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = n * p + 0.5;
    let vr = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let lpq = (p / q).ln();
    let m = ((n + 1.0) * p).floor();
    let h = lgamma(m + 1.0) + lgamma(n - m + 1.0);
    loop {
        let u = g.next_f64() - 0.5;
        let v = g.next_f64();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > n {
            continue;
        }
        if us >= 0.07 && v <= vr {
            return k;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        if v <= h - lgamma(k + 1.0) - lgamma(n - k + 1.0) + (k - m) * lpq {
            return k;
        }
    }
}

/// float32/float64 only, as PyTorch's samplers (`"name" not implemented for 'Long'`).
fn float_sampler(op: &str, t: &Tensor) -> Result<()> {
    host_only(op, &[t])?;
    if !matches!(t.dtype(), DType::F32 | DType::F64) {
        bail!(
            NotImplemented,
            "\"{op}\" not implemented for '{}'",
            t.dtype().scalar_type_name()
        );
    }
    Ok(())
}

/// The smallest positive normal number of a float dtype: samples are clamped up to it.
fn tiny(dt: DType) -> f64 {
    if dt == DType::F32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    }
}

/// Gamma(alpha, 1) samples, one per element of `alpha`, clamped to the dtype's smallest
/// normal number (also the result for alpha <= 0 or NaN, as PyTorch).
fn gamma_samples(alpha: &Tensor, g: Option<&SharedGenerator>) -> Result<Vec<f64>> {
    let a = alpha.try_to_vec::<f64>()?;
    let lo = tiny(alpha.dtype());
    let mut out = try_vec(a.len())?;
    with_gen(g, |g| {
        out.extend(a.iter().map(|&a| {
            if a > 0.0 {
                sample_gamma(g, a).max(lo)
            } else {
                lo
            }
        }))
    });
    Ok(out)
}

impl Tensor {
    /// `torch._standard_gamma(alpha)`: Gamma(alpha, 1) samples, differentiable in alpha through
    /// the implicit derivative of the gamma CDF (`_standard_gamma_grad`).
    pub fn standard_gamma(&self, g: Option<&SharedGenerator>) -> Result<Tensor> {
        float_sampler("gamma_cpu", self)?;
        let out =
            Tensor::from_vec(gamma_samples(self, g)?, self.shape())?.to_dtype_raw(self.dtype())?;
        Ok(record(
            "StandardGammaBackward0",
            out,
            &[self],
            &[self],
            true,
            |grad, s| Ok(vec![Some(grad.mul(&s[0].standard_gamma_grad(&s[1])?)?)]),
        ))
    }

    /// `torch._standard_gamma_grad(alpha, x)`: `dx/dalpha` at fixed CDF, elementwise with
    /// broadcasting; both must have the same floating dtype. Not itself differentiable.
    pub fn standard_gamma_grad(&self, x: &Tensor) -> Result<Tensor> {
        float_sampler("_standard_gamma_grad_cpu", self)?;
        host_only("_standard_gamma_grad", &[x])?;
        if x.dtype() != self.dtype() {
            bail!(
                Runtime,
                "_standard_gamma_grad: Found dtype {} but expected {}",
                x.dtype().scalar_type_name(),
                self.dtype().scalar_type_name()
            );
        }
        let shape = broadcast_shapes("_standard_gamma_grad", self.shape(), x.shape())?;
        let over = |t: &Tensor| -> Result<Tensor> {
            t.detach()
                .to_dtype_raw(DType::F64)?
                .broadcast_to(&shape)?
                .contiguous_copy()
        };
        let (a, v) = (over(self)?, over(x)?);
        let out = Tensor::uninit(&shape, DType::F64)?;
        zip(
            Src::Slice(a.contiguous_slice::<f64>()),
            Src::Slice(v.contiguous_slice::<f64>()),
            unsafe { out.contiguous_slice_mut() },
            standard_gamma_grad,
        );
        out.to_dtype_raw(self.dtype())
    }

    /// `torch.poisson(rates)`: Poisson samples in the rates' dtype; the gradient is zero.
    pub fn poisson(&self, g: Option<&SharedGenerator>) -> Result<Tensor> {
        float_sampler("poisson_cpu", self)?;
        let rates = self.try_to_vec::<f64>()?;
        if rates.iter().any(|r| r.is_nan() || *r < 0.0) {
            bail!(
                Runtime,
                "invalid Poisson rate, expected rate to be non-negative"
            );
        }
        let mut out = try_vec(rates.len())?;
        with_gen(g, |g| {
            out.extend(rates.iter().map(|&r| sample_poisson(g, r)))
        });
        let out = Tensor::from_vec(out, self.shape())?.to_dtype_raw(self.dtype())?;
        Ok(record(
            "PoissonBackward0",
            out,
            &[self],
            &[],
            false,
            |grad, _| Ok(vec![Some(grad.zeros_like()?)]),
        ))
    }

    /// `torch.binomial(count, prob)`: broadcast together; both of one floating dtype.
    pub fn binomial(&self, prob: &Tensor, g: Option<&SharedGenerator>) -> Result<Tensor> {
        host_only("binomial", &[self, prob])?;
        for (what, t) in [("count", self), ("prob", prob)] {
            if !t.dtype().is_float() {
                bail!(
                    Value,
                    "binomial only supports floating-point dtypes for {what}, got: {}",
                    t.dtype().scalar_type_name()
                );
            }
        }
        float_sampler("binomial_cpu", self)?;
        if prob.dtype() != self.dtype() {
            bail!(
                Runtime,
                "binomial: Found dtype {} but expected {}",
                prob.dtype().scalar_type_name(),
                self.dtype().scalar_type_name()
            );
        }
        let shape = broadcast_shapes("binomial", self.shape(), prob.shape())?;
        let n = self.detach().broadcast_to(&shape)?.try_to_vec::<f64>()?;
        let p = prob.detach().broadcast_to(&shape)?.try_to_vec::<f64>()?;
        let mut out = try_vec(n.len())?;
        with_gen(g, |g| {
            out.extend(n.iter().zip(&p).map(|(&n, &p)| sample_binomial(g, n, p)))
        });
        let out = Tensor::from_vec(out, &shape)?.to_dtype_raw(self.dtype())?;
        Ok(record(
            "BinomialBackward0",
            out,
            &[self, prob],
            &[],
            false,
            |_, _| bail!(Runtime, "derivative for aten::binomial is not implemented"),
        ))
    }

    /// `torch._sample_dirichlet(alpha)`: gamma draws normalized over the last dimension,
    /// clamped to [smallest normal, largest value below 1] as PyTorch's. Its derivative comes
    /// from `torch.distributions` (here, as in PyTorch, backward through it is an error).
    pub fn sample_dirichlet(&self, g: Option<&SharedGenerator>) -> Result<Tensor> {
        float_sampler("dirichlet", self)?;
        let mut x = gamma_samples(self, g)?;
        let k = self.shape().last().copied().unwrap_or(1).max(1);
        let (lo, hi) = if self.dtype() == DType::F32 {
            (tiny(DType::F32), 1.0 - f32::EPSILON as f64 / 2.0)
        } else {
            (tiny(DType::F64), 1.0 - f64::EPSILON / 2.0)
        };
        for row in x.chunks_mut(k) {
            let total: f64 = row.iter().sum();
            for v in row {
                *v = (*v / total).clamp(lo, hi);
            }
        }
        let out = Tensor::from_vec(x, self.shape())?.to_dtype_raw(self.dtype())?;
        Ok(record(
            "NotImplemented",
            out,
            &[self],
            &[],
            false,
            |_, _| {
                bail!(
                    Runtime,
                    "derivative for aten::_sample_dirichlet is not implemented"
                )
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
    }

    #[test]
    fn sample_moments() {
        let mut g = Generator::new(7);
        let n = 100_000;
        for &a in &[0.3, 1.0, 4.5] {
            let v: Vec<f64> = (0..n).map(|_| sample_gamma(&mut g, a)).collect();
            let (m, var) = moments(&v);
            assert!(
                (m - a).abs() < 6.0 * (a / n as f64).sqrt(),
                "gamma {a}: {m}"
            );
            assert!((var / a - 1.0).abs() < 0.05, "gamma {a}: var {var}");
        }
        for &l in &[0.5, 7.0, 40.0, 1e4] {
            let v: Vec<f64> = (0..n).map(|_| sample_poisson(&mut g, l)).collect();
            let (m, var) = moments(&v);
            assert!(
                (m - l).abs() < 6.0 * (l / n as f64).sqrt(),
                "poisson {l}: {m}"
            );
            assert!((var / l - 1.0).abs() < 0.05, "poisson {l}: var {var}");
        }
        for &(c, p) in &[(10.0, 0.3), (1000.0, 0.02), (500.0, 0.45), (80.0, 0.9)] {
            let v: Vec<f64> = (0..n).map(|_| sample_binomial(&mut g, c, p)).collect();
            let (m, var) = moments(&v);
            let (em, ev) = (c * p, c * p * (1.0 - p));
            assert!(
                (m - em).abs() < 6.0 * (ev / n as f64).sqrt(),
                "binomial {c} {p}: {m}"
            );
            assert!((var / ev - 1.0).abs() < 0.05, "binomial {c} {p}: var {var}");
        }
    }
}
