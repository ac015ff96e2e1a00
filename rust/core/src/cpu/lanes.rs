//! Row reductions written with independent accumulators so that, inside
//! `simd::dispatch`, they compile to vector code (a single running sum cannot be
//! reordered by the compiler and stays scalar).

use crate::cpu::math::Float;

const LANES: usize = 16;

/// Sum of `x` in 16 interleaved partial sums.
#[inline(always)]
pub fn sum<F: Float>(x: &[F]) -> F {
    let mut acc = [F::zero(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = acc[i] + c[i];
        }
    }
    let mut s = F::zero();
    for &v in rest {
        s = s + v;
    }
    for a in acc {
        s = s + a;
    }
    s
}

/// Sum of (x - c)^2.
#[inline(always)]
pub fn sum_sq_dev<F: Float>(x: &[F], c: F) -> F {
    let mut acc = [F::zero(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for ch in chunks {
        for i in 0..LANES {
            let d = ch[i] - c;
            acc[i] = acc[i] + d * d;
        }
    }
    let mut s = F::zero();
    for &v in rest {
        let d = v - c;
        s = s + d * d;
    }
    for a in acc {
        s = s + a;
    }
    s
}

/// Largest element (NaNs are skipped: callers see them through the values themselves);
/// the lowest finite value for an empty or all-NaN slice.
#[inline(always)]
pub fn max<F: Float>(x: &[F]) -> F {
    let mut acc = [F::min_value(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    let mut m = F::min_value();
    for &v in rest.iter().chain(acc.iter()) {
        m = if v > m { v } else { m };
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn lane_reductions_match_plain_loops() {
        let x: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
        for n in [0, 1, 15, 16, 17, 999, 1000] {
            let s = &x[..n];
            assert_eq!(super::sum(s), s.iter().sum::<f64>());
            let m = s.iter().cloned().fold(f64::MIN, f64::max);
            assert_eq!(super::max(s), m);
            let c = 1.5;
            let want: f64 = s.iter().map(|v| (v - c) * (v - c)).sum();
            assert!((super::sum_sq_dev(s, c) - want).abs() < 1e-9);
        }
    }
}
