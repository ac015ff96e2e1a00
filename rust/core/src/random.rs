//! Random number generation: xoshiro256++ streams seeded through splitmix64, a process-wide
//! default generator, and the sampling ops (rand, randn, randint, randperm, bernoulli,
//! multinomial, in-place uniform_/normal_).

use crate::alloc_size::try_vec;
use crate::error::InOp;
use crate::{bail, with_dtype, DType, Element, Result, Tensor};
use std::sync::{Arc, Mutex, OnceLock};

/// A seedable pseudo-random generator (xoshiro256++).
#[derive(Clone, Debug)]
pub struct Generator {
    s: [u64; 4],
    seed: u64,
    /// A cached second normal from the last Box-Muller pair.
    spare: Option<f64>,
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        let mut x = seed;
        Generator {
            s: [
                splitmix(&mut x),
                splitmix(&mut x),
                splitmix(&mut x),
                splitmix(&mut x),
            ],
            seed,
            spare: None,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let out = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal (Box-Muller, both values used).
    pub fn normal(&mut self) -> f64 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        let u1 = 1.0 - self.next_f64(); // (0, 1]
        let u2 = self.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
        self.spare = Some(r * s);
        r * c
    }

    /// Uniform integer in [0, n) without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }

    /// The full state as bytes (`get_rng_state`).
    pub fn state_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(48);
        for w in self.s.iter().chain(std::iter::once(&self.seed)) {
            v.extend_from_slice(&w.to_le_bytes());
        }
        let spare = self.spare.map(|f| f.to_bits()).unwrap_or(u64::MAX);
        v.extend_from_slice(&spare.to_le_bytes());
        v
    }

    pub fn set_state_bytes(&mut self, b: &[u8]) -> Result<()> {
        if b.len() != 48 {
            bail!(
                Runtime,
                "set_state: expected a state of 48 bytes, got {}",
                b.len()
            );
        }
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        self.s = [w(0), w(1), w(2), w(3)];
        if self.s == [0; 4] {
            bail!(Runtime, "set_state: an all-zero state is invalid");
        }
        self.seed = w(4);
        self.spare = if w(5) == u64::MAX {
            None
        } else {
            Some(f64::from_bits(w(5)))
        };
        Ok(())
    }
}

/// A generator shared between tensors and Python objects.
pub type SharedGenerator = Arc<Mutex<Generator>>;

/// The process-wide generator used when no `generator=` is given (seed 67280421310721, as
/// PyTorch's default, so that unseeded runs are reproducible too).
pub fn default_generator() -> &'static SharedGenerator {
    static G: OnceLock<SharedGenerator> = OnceLock::new();
    G.get_or_init(|| Arc::new(Mutex::new(Generator::new(67_280_421_310_721))))
}

pub(crate) fn with_gen<R>(g: Option<&SharedGenerator>, f: impl FnOnce(&mut Generator) -> R) -> R {
    let g = g.unwrap_or_else(|| default_generator());
    let mut guard = g.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

fn fill<T: Element>(t: &Tensor, mut f: impl FnMut() -> f64) {
    let s: &mut [T] = unsafe { t.contiguous_slice_mut() };
    for v in s {
        *v = T::from_f64(f());
    }
}

/// The shape of the real view of a complex tensor of `shape`.
fn pairs_shape(shape: &[usize]) -> Vec<usize> {
    let mut s = shape.to_vec();
    s.push(2);
    s
}

fn float_only(op: &str, dtype: DType) -> Result<()> {
    if !dtype.is_float() {
        bail!(
            NotImplemented,
            "{op}: \"{op}\" not implemented for '{}' (a floating point dtype is required)",
            dtype.name()
        );
    }
    Ok(())
}

impl Tensor {
    /// Uniform samples in [0, 1).
    pub fn rand(shape: &[usize], dtype: DType, g: Option<&SharedGenerator>) -> Result<Tensor> {
        if dtype.is_complex() {
            // Both parts uniform in [0, 1), as PyTorch draws them.
            return Tensor::rand(&pairs_shape(shape), dtype.to_real(), g)?.complex_alias();
        }
        float_only("rand", dtype)?;
        let t = Tensor::uninit(shape, dtype).op("rand")?;
        with_gen(g, |g| -> Result<()> {
            with_dtype!(dtype, T => fill::<T>(&t, || g.next_f64()));
            Ok(())
        })?;
        Ok(t)
    }

    /// Standard normal samples.
    pub fn randn(shape: &[usize], dtype: DType, g: Option<&SharedGenerator>) -> Result<Tensor> {
        if dtype.is_complex() {
            // Unit variance in all: each part has variance 1/2, as in PyTorch.
            let parts = Tensor::randn(&pairs_shape(shape), dtype.to_real(), g)?;
            let parts = parts.mul_scalar(crate::Scalar::Float(std::f64::consts::FRAC_1_SQRT_2))?;
            return parts.complex_alias();
        }
        float_only("randn", dtype)?;
        let t = Tensor::uninit(shape, dtype).op("randn")?;
        with_gen(g, |g| -> Result<()> {
            with_dtype!(dtype, T => fill::<T>(&t, || g.normal()));
            Ok(())
        })?;
        Ok(t)
    }

    /// `rand` on `device`: a GPU draws from its own Philox stream (see `cuda::ops::random`).
    pub fn rand_on(
        shape: &[usize],
        dtype: DType,
        g: Option<&SharedGenerator>,
        device: crate::Device,
    ) -> Result<Tensor> {
        Tensor::sample_on("rand", shape, dtype, g, device, false)
    }

    /// `randn` on `device`: a GPU draws from its own Philox stream.
    pub fn randn_on(
        shape: &[usize],
        dtype: DType,
        g: Option<&SharedGenerator>,
        device: crate::Device,
    ) -> Result<Tensor> {
        Tensor::sample_on("randn", shape, dtype, g, device, true)
    }

    fn sample_on(
        op: &str,
        shape: &[usize],
        dtype: DType,
        g: Option<&SharedGenerator>,
        device: crate::Device,
        normal: bool,
    ) -> Result<Tensor> {
        let host = || {
            if normal {
                Tensor::randn(shape, dtype, g)
            } else {
                Tensor::rand(shape, dtype, g)
            }
        };
        // Complex samples have no device kernel: drawn on the host (to_device says why not).
        if device == crate::Device::Cpu || dtype.is_complex() {
            return host()?.to_device(device);
        }
        float_only(op, dtype)?;
        match crate::backend::on(device)? {
            crate::backend::Backend::Cpu => host(),
            #[cfg(feature = "cuda")]
            crate::backend::Backend::Cuda(d) => {
                use crate::cuda::ops::random as cr;
                if normal {
                    cr::normal(&d, shape, dtype, 0.0, 1.0, g)
                } else {
                    cr::uniform(&d, shape, dtype, 0.0, 1.0, g)
                }
            }
        }
    }

    /// Integers uniform in [low, high).
    pub fn randint(
        low: i64,
        high: i64,
        shape: &[usize],
        dtype: DType,
        g: Option<&SharedGenerator>,
    ) -> Result<Tensor> {
        if high <= low {
            bail!(
                Runtime,
                "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            );
        }
        if dtype.is_complex() {
            bail!(
                Runtime,
                "check_random_bounds handles only integral, floating-point and boolean types"
            );
        }
        let t = Tensor::uninit(shape, dtype).op("randint")?;
        let span = (high - low) as u64;
        with_gen(g, |g| -> Result<()> {
            with_dtype!(dtype, T => {
                let s: &mut [T] = unsafe { t.contiguous_slice_mut() };
                for v in s {
                    *v = T::from_i64(low + g.below(span) as i64);
                }
            });
            Ok(())
        })?;
        Ok(t)
    }

    /// A random permutation of 0..n (Fisher-Yates).
    pub fn randperm(n: usize, dtype: DType, g: Option<&SharedGenerator>) -> Result<Tensor> {
        // Shuffled in place in the output's own buffer: no temporary sized by `n`.
        let t = Tensor::uninit(&[n], DType::I64).op("randperm")?;
        let v: &mut [i64] = unsafe { t.contiguous_slice_mut() };
        for (i, x) in v.iter_mut().enumerate() {
            *x = i as i64;
        }
        with_gen(g, |g| {
            for i in (1..n).rev() {
                let j = g.below(i as u64 + 1) as usize;
                v.swap(i, j);
            }
        });
        t.to_dtype_raw(dtype).op("randperm")
    }

    /// Fills this tensor in place with values from `sample` (floats), bumping the version.
    fn fill_random(
        &self,
        op: &str,
        g: Option<&SharedGenerator>,
        sample: impl FnMut(&mut Generator) -> f64,
    ) -> Result<()> {
        let fresh = Tensor::uninit(self.shape(), DType::F64).op(op)?;
        let mut sample = sample;
        with_gen(g, |g| fill::<f64>(&fresh, || sample(g)));
        let _guard = crate::autograd::GradModeGuard::new(false);
        self.detach()
            .apply_inplace(op, &[], |_| fresh.copy_as(self.dtype()))
    }

    /// Writes a sample drawn elsewhere (on the device) into this tensor, bumping the version.
    fn assign_sample(&self, op: &str, fresh: &Tensor) -> Result<()> {
        let _guard = crate::autograd::GradModeGuard::new(false);
        self.detach().apply_inplace(op, &[], |_| Ok(fresh.clone()))
    }

    /// `bernoulli_(p)` with a scalar probability: in place, 1 with probability `p`.
    pub fn bernoulli_scalar_(&self, p: f64, g: Option<&SharedGenerator>) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            bail!(
                Runtime,
                "bernoulli_ expects p to be in [0, 1], but got p={p}"
            );
        }
        if let Some(fresh) = crate::cuda_forward!("bernoulli_", [self], |dev| {
            crate::cuda::ops::random::bernoulli_scalar(&dev, self.shape(), self.dtype(), p, g)
        }) {
            return self.assign_sample("bernoulli_", &fresh?);
        }
        let probs = Tensor::full(self.shape(), crate::Scalar::Float(p), DType::F64)?;
        let draw = probs.bernoulli(g)?;
        self.assign_sample("bernoulli_", &draw.copy_as(self.dtype())?)
    }

    /// `uniform_(a, b)`.
    pub fn uniform_(&self, a: f64, b: f64, g: Option<&SharedGenerator>) -> Result<()> {
        float_only("uniform_", self.dtype())?;
        if a > b {
            bail!(
                Runtime,
                "uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
            );
        }
        if let Some(fresh) = crate::cuda_forward!("uniform_", [self], |dev| {
            crate::cuda::ops::random::uniform(&dev, self.shape(), self.dtype(), a, b, g)
        }) {
            return self.assign_sample("uniform_", &fresh?);
        }
        self.fill_random("uniform_", g, |g| a + (b - a) * g.next_f64())
    }

    /// `normal_(mean, std)`.
    pub fn normal_(&self, mean: f64, std: f64, g: Option<&SharedGenerator>) -> Result<()> {
        float_only("normal_", self.dtype())?;
        if std < 0.0 {
            bail!(Runtime, "normal expects std >= 0.0, but found std {std}");
        }
        if let Some(fresh) = crate::cuda_forward!("normal_", [self], |dev| {
            crate::cuda::ops::random::normal(&dev, self.shape(), self.dtype(), mean, std, g)
        }) {
            return self.assign_sample("normal_", &fresh?);
        }
        self.fill_random("normal_", g, |g| mean + std * g.normal())
    }

    /// `random_(from, to)`: integers in [from, to) stored in this tensor's dtype.
    pub fn random_(&self, from: i64, to: i64, g: Option<&SharedGenerator>) -> Result<()> {
        if to <= from {
            bail!(
                Runtime,
                "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
            );
        }
        let span = (to - from) as u64;
        self.fill_random("random_", g, |g| (from + g.below(span) as i64) as f64)
    }

    /// `exponential_(lambd)`.
    pub fn exponential_(&self, lambd: f64, g: Option<&SharedGenerator>) -> Result<()> {
        float_only("exponential_", self.dtype())?;
        if lambd <= 0.0 {
            bail!(
                Runtime,
                "exponential_ expects lambda > 0.0, but found lambda={lambd}"
            );
        }
        self.fill_random("exponential_", g, |g| -(1.0 - g.next_f64()).ln() / lambd)
    }

    /// `bernoulli(p)`: 1 with probability `p` (elementwise), in this tensor's dtype.
    pub fn bernoulli(&self, g: Option<&SharedGenerator>) -> Result<Tensor> {
        if let Some(out) = crate::cuda_forward!("bernoulli", [self], |dev| {
            self.bernoulli_on_device(&dev, g)
        }) {
            return out;
        }
        let p = self.try_to_vec::<f64>().op("bernoulli")?;
        if p.iter().any(|&v| !(0.0..=1.0).contains(&v)) {
            bail!(
                Runtime,
                "bernoulli: all elements of the probability tensor must be in [0, 1]"
            );
        }
        let mut out: Vec<f64> = try_vec(p.len()).op("bernoulli")?;
        with_gen(g, |g| {
            out.extend(p.iter().map(|&q| (g.next_f64() < q) as u8 as f64))
        });
        Tensor::from_vec(out, self.shape())?.copy_as(self.dtype())
    }

    /// `bernoulli` of a probability tensor on its GPU; the range check reads back two
    /// scalars (the kernel itself does not look), as the host raises for p outside [0, 1].
    #[cfg(feature = "cuda")]
    fn bernoulli_on_device(
        &self,
        dev: &std::sync::Arc<crate::cuda::runtime::DeviceState>,
        g: Option<&SharedGenerator>,
    ) -> Result<Tensor> {
        if !self.dtype().is_float() {
            // Integer probabilities are 0 or 1 exactly when valid: sample them as floats.
            let draw = self.copy_as(DType::F32)?.bernoulli(g)?;
            return draw.copy_as(self.dtype());
        }
        if self.numel() > 0 {
            let lo = self.amax_dims(&[], false, false)?.item()?.to_f64();
            let hi = self.amax_dims(&[], false, true)?.item()?.to_f64();
            if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) {
                bail!(
                    Runtime,
                    "bernoulli: all elements of the probability tensor must be in [0, 1]"
                );
            }
        }
        crate::cuda::ops::random::bernoulli(dev, &self.detach(), g)
    }

    /// `multinomial(num_samples, replacement)` from rows of non-negative weights.
    pub fn multinomial(
        &self,
        num_samples: usize,
        replacement: bool,
        g: Option<&SharedGenerator>,
    ) -> Result<Tensor> {
        if self.ndim() == 0 || self.ndim() > 2 {
            bail!(
                Runtime,
                "multinomial: prob_dist must be 1 or 2 dim (got shape {:?})",
                self.shape()
            );
        }
        if !self.dtype().is_float() {
            bail!(
                Runtime,
                "multinomial only supports floating-point dtypes for input, got: {}",
                self.dtype().name()
            );
        }
        let rows = if self.ndim() == 1 { 1 } else { self.shape()[0] };
        let k = self.shape()[self.ndim() - 1];
        if k == 0 {
            bail!(Runtime, "multinomial: number of categories cannot be zero");
        }
        let w = self.try_to_vec::<f64>().op("multinomial")?;
        if w.iter().any(|&v| v < 0.0 || !v.is_finite()) {
            bail!(
                Runtime,
                "multinomial: probability tensor contains either `inf`, `nan` or element < 0"
            );
        }
        let mut out = try_vec(rows.saturating_mul(num_samples)).op("multinomial")?;
        with_gen(g, |g| -> Result<()> {
            for r in 0..rows {
                let mut row: Vec<f64> = w[r * k..(r + 1) * k].to_vec();
                let nonzero = row.iter().filter(|&&v| v > 0.0).count();
                if nonzero == 0 {
                    bail!(
                        Runtime,
                        "multinomial: invalid multinomial distribution (sum of probabilities <= 0)"
                    );
                }
                if !replacement && num_samples > nonzero {
                    bail!(Runtime, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement (asked for {num_samples}, {nonzero} categories have weight)");
                }
                for _ in 0..num_samples {
                    let total: f64 = row.iter().sum();
                    let mut u = g.next_f64() * total;
                    let mut pick = k - 1;
                    for (i, &v) in row.iter().enumerate() {
                        if u < v {
                            pick = i;
                            break;
                        }
                        u -= v;
                    }
                    // Rounding may walk past the last positive weight: step back to one.
                    while row[pick] <= 0.0 {
                        pick -= 1;
                    }
                    out.push(pick as i64);
                    if !replacement {
                        row[pick] = 0.0;
                    }
                }
            }
            Ok(())
        })?;
        let shape: Vec<usize> = if self.ndim() == 1 {
            vec![num_samples]
        } else {
            vec![rows, num_samples]
        };
        Tensor::from_vec(out, &shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn reproducible_and_well_distributed() {
        let g = Arc::new(Mutex::new(Generator::new(1)));
        let a = Tensor::randn(&[10000], DType::F64, Some(&g))
            .unwrap()
            .to_vec::<f64>();
        *g.lock().unwrap() = Generator::new(1);
        let b = Tensor::randn(&[10000], DType::F64, Some(&g))
            .unwrap()
            .to_vec::<f64>();
        assert_eq!(a, b);
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        let var = a.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / a.len() as f64;
        assert!(
            mean.abs() < 0.05 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
        let p = Tensor::randperm(100, DType::I64, Some(&g))
            .unwrap()
            .to_vec::<i64>();
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
    }
}
