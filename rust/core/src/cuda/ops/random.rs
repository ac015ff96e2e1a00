//! Random sampling on the device (kernels in `random.cu`, Philox-4x32-10). Each device keeps
//! its generator as (seed, offset): `manual_seed` resets both, and every call advances the
//! offset by the words it reads, so a seeded program draws the same values on every run. A
//! call given an explicit host generator takes one draw from it as a fresh Philox seed
//! (offset 0): reproducible under that generator's seed, independent of the device's stream.

use super::{empty, first_element, rows::dense};
use crate::cuda::launch::random::{self as lr, words_consumed, Sampler};
use crate::cuda::runtime::{with_context, DeviceState};
use crate::random::SharedGenerator;
use crate::{DType, Result, Tensor};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// (seed, offset) for a call that reads `words` words of the stream.
fn philox(dev: &DeviceState, g: Option<&SharedGenerator>, words: u64) -> (u64, u64) {
    match g {
        Some(g) => (crate::random::with_gen(Some(g), |g| g.next_u64()), 0),
        None => (
            dev.seed.load(Ordering::Relaxed),
            dev.rng_offset.fetch_add(words, Ordering::Relaxed),
        ),
    }
}

/// A fresh tensor of `shape` with `low + (high - low) * u`, u uniform in [0, 1).
pub fn uniform(
    dev: &Arc<DeviceState>,
    shape: &[usize],
    dtype: DType,
    low: f64,
    high: f64,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    let out = empty(dev, shape, dtype)?;
    let n = out.numel();
    let (seed, offset) = philox(dev, g, words_consumed(Sampler::Uniform, dtype, n));
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lr::uniform(
            dev.as_ref(),
            &stream,
            first_element(&out)?,
            dtype,
            n,
            low,
            high,
            seed,
            offset,
        )
    })?;
    Ok(out)
}

/// A fresh tensor of `shape` with normal samples of `mean` and `std`.
pub fn normal(
    dev: &Arc<DeviceState>,
    shape: &[usize],
    dtype: DType,
    mean: f64,
    std: f64,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    let out = empty(dev, shape, dtype)?;
    let n = out.numel();
    let (seed, offset) = philox(dev, g, words_consumed(Sampler::Normal, dtype, n));
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lr::normal(
            dev.as_ref(),
            &stream,
            first_element(&out)?,
            dtype,
            n,
            mean,
            std,
            seed,
            offset,
        )
    })?;
    Ok(out)
}

/// 1 with probability `p` else 0, a fresh tensor of `shape` and `dtype`.
pub fn bernoulli_scalar(
    dev: &Arc<DeviceState>,
    shape: &[usize],
    dtype: DType,
    p: f64,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    let out = empty(dev, shape, dtype)?;
    let n = out.numel();
    let (seed, offset) = philox(dev, g, words_consumed(Sampler::BernoulliScalar, dtype, n));
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lr::bernoulli_scalar(
            dev.as_ref(),
            &stream,
            first_element(&out)?,
            dtype,
            n,
            p,
            seed,
            offset,
        )
    })?;
    Ok(out)
}

/// 1 with probability `p[i]` at each element (probabilities already checked to be in [0, 1]),
/// in p's dtype and shape.
pub fn bernoulli(
    dev: &Arc<DeviceState>,
    p: &Tensor,
    g: Option<&SharedGenerator>,
) -> Result<Tensor> {
    let ps = dense(dev, p)?;
    let out = empty(dev, p.shape(), p.dtype())?;
    let n = out.numel();
    let (seed, offset) = philox(
        dev,
        g,
        words_consumed(Sampler::BernoulliTensor, p.dtype(), n),
    );
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lr::bernoulli_tensor(
            dev.as_ref(),
            &stream,
            p.dtype(),
            first_element(&ps)?,
            first_element(&out)?,
            n,
            seed,
            offset,
        )
    })?;
    Ok(out)
}

/// Dropout of `x` with drop probability `p`: (output, keep mask as bool), in one pass.
pub fn dropout(
    dev: &Arc<DeviceState>,
    x: &Tensor,
    p: f64,
    g: Option<&SharedGenerator>,
) -> Result<(Tensor, Tensor)> {
    let xs = dense(dev, x)?;
    let out = empty(dev, x.shape(), x.dtype())?;
    // The kernel writes one byte per element: bool's layout.
    let mask = empty(dev, x.shape(), DType::Bool)?;
    let n = out.numel();
    let (seed, offset) = philox(dev, g, words_consumed(Sampler::Dropout, x.dtype(), n));
    let stream = dev.streams.current()?;
    with_context(dev, || {
        lr::dropout(
            dev.as_ref(),
            &stream,
            x.dtype(),
            first_element(&xs)?,
            first_element(&out)?,
            first_element(&mask)?,
            n,
            p,
            seed,
            offset,
        )
    })?;
    Ok((out, mask))
}
