//! Random sampling on the device (kernels/random.cu) with a counter-based Philox-4x32-10
//! generator (Salmon et al., SC 2011): results depend only on (seed, offset, element index),
//! never on the launch shape.
//!
//! The stream of 32-bit words for a seed is word `w` = `philox4x32_10([w / 4 as u64, 0], seed)`
//! lane `w % 4`. A call starts at word `offset` (a multiple of 4) and element i of its output
//! reads words `offset + i * width ..`, `width` being 1 or 2 words (`words_consumed`). The
//! runtime keeps (seed, offset) per generator and advances offset by `words_consumed(..)`
//! after each call (always a multiple of 4, so offsets stay aligned).

use super::ew::{launch, round_to, unsupported};
use super::{suffix, Kernels};
use crate::cuda::kernels::elementwise::RANDOM;
use crate::{DType, Error, Result};
use cudarc::driver::CudaStream;

/// The sampling kernels, for `words_consumed` and `kernel_name`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sampler {
    Uniform,
    Normal,
    BernoulliScalar,
    BernoulliTensor,
    Dropout,
    Randint,
}

impl Sampler {
    fn base(self) -> &'static str {
        match self {
            Sampler::Uniform => "uniform",
            Sampler::Normal => "normal",
            Sampler::BernoulliScalar => "bernoulli_scalar",
            Sampler::BernoulliTensor => "bernoulli_tensor",
            Sampler::Dropout => "dropout",
            Sampler::Randint => "randint",
        }
    }

    /// Words of the stream each element reads.
    pub fn width(self, dtype: DType) -> u64 {
        match self {
            Sampler::Uniform | Sampler::Normal if dtype == DType::F64 => 2,
            Sampler::Randint => 2,
            _ => 1,
        }
    }
}

/// How far a call over `n` elements moves the generator's offset: `n * width` words rounded
/// up to a whole Philox block of 4.
pub fn words_consumed(s: Sampler, dtype: DType, n: usize) -> u64 {
    (n as u64 * s.width(dtype)).div_ceil(4) * 4
}

/// Philox blocks a call evaluates: one thread each (the kernels loop over blocks).
fn blocks(s: Sampler, dtype: DType, n: usize) -> usize {
    (words_consumed(s, dtype, n) / 4) as usize
}

/// The kernel a sampler runs for `dtype` (uniform, normal and dropout need a floating dtype).
pub fn kernel_name(s: Sampler, dtype: DType) -> Result<String> {
    let float_only = matches!(s, Sampler::Uniform | Sampler::Normal | Sampler::Dropout);
    if float_only && !dtype.is_float() {
        return Err(unsupported(s.base(), dtype));
    }
    Ok(format!("{}_{}", s.base(), suffix(dtype)))
}

fn check_offset(op: &str, offset: u64) -> Result<()> {
    if !offset.is_multiple_of(4) {
        return Err(Error::runtime(format!(
            "{op}: the Philox offset must be a multiple of 4 (got {offset}); advance it by \
             words_consumed"
        )));
    }
    Ok(())
}

/// Philox-4x32-10 of a 128-bit counter and a 64-bit key (as two 32-bit words): the reference
/// for what random.cu computes, block `b` of seed `s` being `philox4x32_10([b as u32,
/// (b >> 32) as u32, 0, 0], [s as u32, (s >> 32) as u32])`.
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    const M0: u32 = 0xD251_1F53;
    const M1: u32 = 0xCD9E_8D57;
    const W0: u32 = 0x9E37_79B9;
    const W1: u32 = 0xBB67_AE85;
    let (mut c, mut k) = (ctr, key);
    for _ in 0..10 {
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// Word `w` of the stream of `seed` (what element i reads at `offset + i * width + j`).
pub fn stream_word(seed: u64, w: u64) -> u32 {
    let b = w / 4;
    philox4x32_10(
        [b as u32, (b >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    )[(w % 4) as usize]
}

/// `uniform_(low, high)` / `rand`: `dst` (contiguous, pointer at element 0, `n` elements of
/// the floating `dtype`) gets `low + (high - low) * u` computed in f64 and rounded, with
/// u = (word >> 8) / 2^24 (f32, f16, bf16) or the top 53 bits of two words / 2^53 (f64), so
/// u is in [0, 1). Consumes `words_consumed(Sampler::Uniform, dtype, n)` words.
#[allow(clippy::too_many_arguments)]
pub fn uniform(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    n: usize,
    low: f64,
    high: f64,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::Uniform, dtype)?;
    check_offset("uniform_", offset)?;
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::Uniform, dtype, n),
        [&dst, &n64, &low, &high, &seed, &offset]
    );
    Ok(())
}

/// `normal_(mean, std)` / `randn`: Box-Muller on consecutive pairs of uniforms (u1 in (0, 1],
/// u2 in [0, 1)): element 2j gets `mean + std * r cos(2 pi u2)` and 2j + 1 gets
/// `mean + std * r sin(2 pi u2)` with r = sqrt(-2 ln u1) (f32 arithmetic for f32/f16/bf16,
/// f64 for f64; the affine step in f64). `dst` contiguous, pointer at element 0. Consumes
/// `words_consumed(Sampler::Normal, dtype, n)` words.
#[allow(clippy::too_many_arguments)]
pub fn normal(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    n: usize,
    mean: f64,
    std: f64,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::Normal, dtype)?;
    check_offset("normal_", offset)?;
    if std < 0.0 {
        return Err(Error::runtime(format!(
            "normal expects std >= 0.0, but found std {std}"
        )));
    }
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::Normal, dtype, n),
        [&dst, &n64, &mean, &std, &seed, &offset]
    );
    Ok(())
}

/// `bernoulli_(p)` with a scalar probability: `dst` (contiguous, pointer at element 0, any
/// dtype) gets 1 where word / 2^32 < p, else 0. Consumes one word per element.
#[allow(clippy::too_many_arguments)]
pub fn bernoulli_scalar(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    n: usize,
    p: f64,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::BernoulliScalar, dtype)?;
    check_offset("bernoulli_", offset)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::runtime(format!(
            "bernoulli_: expected p in [0, 1], got {p}"
        )));
    }
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::BernoulliScalar, dtype, n),
        [&dst, &n64, &p, &seed, &offset]
    );
    Ok(())
}

/// `bernoulli(p)` with a probability tensor: `p` and `dst` contiguous, pointers at element
/// 0, both of `dtype`; dst[i] = 1 where word_i / 2^32 < p[i]. The CPU raises for p outside
/// [0, 1]; this kernel does not look (p < 0 gives 0, p > 1 gives 1): check first where that
/// matters. Consumes one word per element.
#[allow(clippy::too_many_arguments)]
pub fn bernoulli_tensor(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    p: u64,
    dst: u64,
    n: usize,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::BernoulliTensor, dtype)?;
    check_offset("bernoulli", offset)?;
    if n == 0 {
        return Ok(());
    }
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::BernoulliTensor, dtype, n),
        [&p, &dst, &n64, &seed, &offset]
    );
    Ok(())
}

/// Dropout in one pass: element i is kept where word_i / 2^32 < 1 - p; then
/// `mask_dst[i] = 1` (a bool/uint8 buffer) and `dst[i] = x[i] * scale`, else `mask_dst[i] = 0`
/// and `dst[i] = x[i] * 0` (NaN for an infinite x, as the CPU's `input * (mask * scale)`),
/// with scale = 1 / (1 - p) rounded to `dtype` (and 0 for p = 1). `x`, `dst` and `mask_dst`
/// contiguous, pointers at element 0; floating dtypes. Consumes one word per element.
#[allow(clippy::too_many_arguments)]
pub fn dropout(
    k: &dyn Kernels,
    stream: &CudaStream,
    dtype: DType,
    x: u64,
    dst: u64,
    mask_dst: u64,
    n: usize,
    p: f64,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::Dropout, dtype)?;
    check_offset("dropout", offset)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        )));
    }
    if n == 0 {
        return Ok(());
    }
    let keep = 1.0 - p;
    let scale = if p == 1.0 {
        0.0
    } else {
        round_to(dtype, 1.0 / (1.0 - p))
    };
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::Dropout, dtype, n),
        [&x, &dst, &mask_dst, &n64, &keep, &scale, &seed, &offset]
    );
    Ok(())
}

/// `randint(low, high)` / `random_(low, high)`: `dst` (contiguous, pointer at element 0, any
/// dtype) gets `low + r mod (high - low)`, r the 64-bit value of two words (high word first),
/// stored as `dtype` (wrapping for narrow integers, rounded for floats). Consumes two words
/// per element.
#[allow(clippy::too_many_arguments)]
pub fn randint(
    k: &dyn Kernels,
    stream: &CudaStream,
    dst: u64,
    dtype: DType,
    n: usize,
    low: i64,
    high: i64,
    seed: u64,
    offset: u64,
) -> Result<()> {
    let name = kernel_name(Sampler::Randint, dtype)?;
    check_offset("random_", offset)?;
    if high <= low {
        return Err(Error::runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )));
    }
    if n == 0 {
        return Ok(());
    }
    let span = high.wrapping_sub(low) as u64;
    let n64 = n as i64;
    launch!(
        k,
        stream,
        &RANDOM,
        name,
        blocks(Sampler::Randint, dtype, n),
        [&dst, &n64, &low, &span, &seed, &offset]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_published_known_answers() {
        // Random123's kat_vectors for philox4x32 with 10 rounds: counter, key, result.
        let kat = [
            (
                [0u32; 4],
                [0u32; 2],
                [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
            ),
            (
                [u32::MAX; 4],
                [u32::MAX; 2],
                [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
            ),
            (
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0],
                [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
            ),
        ];
        for (ctr, key, want) in kat {
            assert_eq!(philox4x32_10(ctr, key), want);
        }
        assert_eq!(stream_word(0, 2), 0xbc57ac4c);
    }

    #[test]
    fn offsets_advance_by_whole_blocks() {
        assert_eq!(words_consumed(Sampler::Uniform, DType::F32, 5), 8);
        assert_eq!(words_consumed(Sampler::Uniform, DType::F64, 5), 12);
        assert_eq!(words_consumed(Sampler::Normal, DType::F16, 4), 4);
        assert_eq!(words_consumed(Sampler::Randint, DType::I64, 3), 8);
        assert_eq!(words_consumed(Sampler::Dropout, DType::F32, 0), 0);
    }

    #[test]
    fn every_random_kernel_name_exists() {
        use Sampler::*;
        for s in [
            Uniform,
            Normal,
            BernoulliScalar,
            BernoulliTensor,
            Dropout,
            Randint,
        ] {
            for dt in DType::REAL {
                if let Ok(name) = kernel_name(s, dt) {
                    assert!(RANDOM.functions.contains(&name.as_str()), "{name}");
                }
            }
        }
        assert!(kernel_name(Uniform, DType::I32).is_err());
    }
}
