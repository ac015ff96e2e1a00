//! f32 vector lanes of one instruction set, behind one trait so that each math function is
//! written once (`funcs.rs`) and compiled for AVX-512 (16 lanes) and AVX2 + FMA (8 lanes).
//!
//! Soundness: these values are only made inside the `#[target_feature]` kernels of `mod.rs`,
//! which run only after the level check found the features on this CPU; that is why the
//! methods that wrap intrinsics can be safe.

use std::arch::x86_64::*;
use std::ops::{Add, Div, Mul, Sub};

pub(super) trait F32Vec:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    const LANES: usize;
    type Mask: Copy;
    fn splat(v: f32) -> Self;
    /// # Safety
    /// `p` points to `LANES` readable floats.
    unsafe fn load(p: *const f32) -> Self;
    /// # Safety
    /// `p` points to `LANES` writable floats.
    unsafe fn store(self, p: *mut f32);
    /// `self * b + c`, rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// `c - self * b`, rounded once.
    fn neg_mul_add(self, b: Self, c: Self) -> Self;
    fn abs(self) -> Self;
    /// Round to the nearest integer, ties to even.
    fn round(self) -> Self;
    /// `max(self, lo)`, NaN passing through.
    fn at_least(self, lo: f32) -> Self;
    /// `min(self, hi)`, NaN passing through.
    fn at_most(self, hi: f32) -> Self;
    fn lt(self, o: Self) -> Self::Mask;
    fn ge(self, o: Self) -> Self::Mask;
    fn eq(self, o: Self) -> Self::Mask;
    fn is_nan(self) -> Self::Mask;
    /// Whether every lane of `m` is set.
    fn all(m: Self::Mask) -> bool;
    /// `a` in the lanes where `m` is set, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// `self * 2^n` for integral `n` in [-151, 129], with gradual underflow.
    fn mul_pow2(self, n: Self) -> Self;
    /// `(m, e)` with `self = m * 2^e`, `m` in [sqrt(1/2), sqrt(2)), for positive finite
    /// `self` (subnormals included); other lanes hold garbage for the caller to replace.
    fn split_exponent(self) -> (Self, Self);
    /// `|self|` with the sign of `s`.
    fn copysign(self, s: Self) -> Self;
    /// `self` where `x` is positive and finite, else log's value at `x`: NaN for NaN and
    /// negatives, -inf for zeros, inf for inf.
    fn log_specials(self, x: Self) -> Self;
}

/// Bits of sqrt(1/2): subtracting it puts the mantissa boundary at sqrt(1/2) instead of 1.
const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
/// 2^23, to lift subnormals into the normal range before reading their exponent.
const TWO_23: f32 = 8_388_608.0;

macro_rules! ops {
    ($t:ident, $add:ident, $sub:ident, $mul:ident, $div:ident) => {
        impl Add for $t {
            type Output = Self;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                unsafe { $t($add(self.0, o.0)) }
            }
        }
        impl Sub for $t {
            type Output = Self;
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                unsafe { $t($sub(self.0, o.0)) }
            }
        }
        impl Mul for $t {
            type Output = Self;
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                unsafe { $t($mul(self.0, o.0)) }
            }
        }
        impl Div for $t {
            type Output = Self;
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                unsafe { $t($div(self.0, o.0)) }
            }
        }
    };
}

/// Sixteen lanes (AVX-512F/DQ).
#[derive(Clone, Copy)]
pub(super) struct F32x16(__m512);
ops!(
    F32x16,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_mul_ps,
    _mm512_div_ps
);

impl F32Vec for F32x16 {
    const LANES: usize = 16;
    type Mask = __mmask16;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        unsafe { Self(_mm512_set1_ps(v)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Self(_mm512_loadu_ps(p))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        _mm512_storeu_ps(p, self.0)
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        unsafe { Self(_mm512_fmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn neg_mul_add(self, b: Self, c: Self) -> Self {
        unsafe { Self(_mm512_fnmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { Self(_mm512_abs_ps(self.0)) }
    }
    #[inline(always)]
    fn round(self) -> Self {
        unsafe {
            Self(_mm512_roundscale_ps::<
                { _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC },
            >(self.0))
        }
    }
    // vmaxps/vminps return the second operand when either is NaN: `self` goes second.
    #[inline(always)]
    fn at_least(self, lo: f32) -> Self {
        unsafe { Self(_mm512_max_ps(_mm512_set1_ps(lo), self.0)) }
    }
    #[inline(always)]
    fn at_most(self, hi: f32) -> Self {
        unsafe { Self(_mm512_min_ps(_mm512_set1_ps(hi), self.0)) }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __mmask16 {
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __mmask16 {
        unsafe { _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __mmask16 {
        unsafe { _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __mmask16 {
        unsafe { _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn all(m: __mmask16) -> bool {
        m == 0xffff
    }
    #[inline(always)]
    fn select(m: __mmask16, a: Self, b: Self) -> Self {
        unsafe { Self(_mm512_mask_blend_ps(m, b.0, a.0)) }
    }
    #[inline(always)]
    fn mul_pow2(self, n: Self) -> Self {
        unsafe { Self(_mm512_scalef_ps(self.0, n.0)) }
    }
    // getmant/getexp read subnormals as they are: m in [1, 2), e = floor(log2 x).
    #[inline(always)]
    fn split_exponent(self) -> (Self, Self) {
        unsafe {
            let m = _mm512_getmant_ps::<_MM_MANT_NORM_1_2, _MM_MANT_SIGN_SRC>(self.0);
            let e = _mm512_getexp_ps(self.0);
            let big = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(m, _mm512_set1_ps(std::f32::consts::SQRT_2));
            let m = _mm512_mask_mul_ps(m, big, m, _mm512_set1_ps(0.5));
            let e = _mm512_mask_add_ps(e, big, e, _mm512_set1_ps(1.0));
            (Self(m), Self(e))
        }
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            let (a, b) = (_mm512_castps_si512(self.0), _mm512_castps_si512(s.0));
            let r = _mm512_or_si512(_mm512_andnot_si512(sign, a), _mm512_and_si512(sign, b));
            Self(_mm512_castsi512_ps(r))
        }
    }
    // One fixupimm: a 4-bit response per input class, class k in bits 4k..4k+4. Classes:
    // QNaN, SNaN, zero, +1, -inf, +inf, negative, positive; responses: 0 keep self,
    // 1 x, 2 x quieted, 3 default NaN, 4 -inf, 5 +inf, 8 +0.
    #[inline(always)]
    fn log_specials(self, x: Self) -> Self {
        unsafe {
            let table = _mm512_set1_epi32(0x0353_8421);
            Self(_mm512_fixupimm_ps::<0>(self.0, x.0, table))
        }
    }
}

/// Eight lanes (AVX2 + FMA).
#[derive(Clone, Copy)]
pub(super) struct F32x8(__m256);
ops!(
    F32x8,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_mul_ps,
    _mm256_div_ps
);

impl F32Vec for F32x8 {
    const LANES: usize = 8;
    type Mask = __m256;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        unsafe { Self(_mm256_set1_ps(v)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Self(_mm256_loadu_ps(p))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        _mm256_storeu_ps(p, self.0)
    }
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        unsafe { Self(_mm256_fmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn neg_mul_add(self, b: Self, c: Self) -> Self {
        unsafe { Self(_mm256_fnmadd_ps(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        unsafe { Self(_mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0)) }
    }
    #[inline(always)]
    fn round(self) -> Self {
        unsafe {
            Self(_mm256_round_ps::<
                { _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC },
            >(self.0))
        }
    }
    #[inline(always)]
    fn at_least(self, lo: f32) -> Self {
        unsafe { Self(_mm256_max_ps(_mm256_set1_ps(lo), self.0)) }
    }
    #[inline(always)]
    fn at_most(self, hi: f32) -> Self {
        unsafe { Self(_mm256_min_ps(_mm256_set1_ps(hi), self.0)) }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn all(m: __m256) -> bool {
        unsafe { _mm256_movemask_ps(m) == 0xff }
    }
    #[inline(always)]
    fn select(m: __m256, a: Self, b: Self) -> Self {
        unsafe { Self(_mm256_blendv_ps(b.0, a.0, m)) }
    }
    // No scalef here: 2^n in two halves, each a normal number for n in [-151, 129].
    #[inline(always)]
    fn mul_pow2(self, n: Self) -> Self {
        unsafe {
            let n = _mm256_cvtps_epi32(n.0);
            let h = _mm256_srai_epi32::<1>(n);
            let bias = _mm256_set1_epi32(127);
            let s1 = _mm256_slli_epi32::<23>(_mm256_add_epi32(h, bias));
            let s2 = _mm256_slli_epi32::<23>(_mm256_add_epi32(_mm256_sub_epi32(n, h), bias));
            let y = _mm256_mul_ps(self.0, _mm256_castsi256_ps(s1));
            Self(_mm256_mul_ps(y, _mm256_castsi256_ps(s2)))
        }
    }
    #[inline(always)]
    fn split_exponent(self) -> (Self, Self) {
        unsafe {
            let small = self.lt(Self::splat(f32::MIN_POSITIVE));
            let x = Self::select(small, self * Self::splat(TWO_23), self);
            let bits = _mm256_castps_si256(x.0);
            let k =
                _mm256_srai_epi32::<23>(_mm256_sub_epi32(bits, _mm256_set1_epi32(SQRT_HALF_BITS)));
            let m = _mm256_castsi256_ps(_mm256_sub_epi32(bits, _mm256_slli_epi32::<23>(k)));
            let e = Self(_mm256_cvtepi32_ps(k));
            let lift = Self::select(small, Self::splat(23.0), Self::splat(0.0));
            (Self(m), e - lift)
        }
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        unsafe {
            let sign = _mm256_set1_ps(-0.0);
            Self(_mm256_or_ps(
                _mm256_andnot_ps(sign, self.0),
                _mm256_and_ps(sign, s.0),
            ))
        }
    }
    #[inline(always)]
    fn log_specials(self, x: Self) -> Self {
        let zero = Self::splat(0.0);
        let r = Self::select(x.lt(zero), Self::splat(f32::NAN), self);
        let r = Self::select(x.eq(zero), Self::splat(f32::NEG_INFINITY), r);
        let r = Self::select(x.eq(Self::splat(f32::INFINITY)), x, r);
        Self::select(x.is_nan(), x, r)
    }
}
