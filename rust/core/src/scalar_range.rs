//! Whether a Python number fits a dtype: PyTorch refuses to fill, pad or clamp with a value the
//! dtype cannot hold ("value cannot be converted to type uint8_t without overflow"), while
//! arithmetic with the same number wraps.

use crate::{bail, DType, Result, Scalar};

/// C++ name of the element type, as PyTorch's overflow message spells it.
fn c_name(dt: DType) -> &'static str {
    match dt {
        DType::U8 => "uint8_t",
        DType::I8 => "int8_t",
        DType::I16 => "int16_t",
        DType::I32 => "int",
        DType::I64 => "int64_t",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 | DType::C64 => "float",
        DType::F64 | DType::C128 => "double",
        DType::Bool => "bool",
    }
}

/// Range of an integer dtype, as (lowest, highest).
fn int_range(dt: DType) -> (i128, i128) {
    match dt {
        DType::U8 => (0, u8::MAX as i128),
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        _ => (i64::MIN as i128, i64::MAX as i128),
    }
}

/// Largest finite value of a floating dtype (complex: of its parts).
fn float_max(dt: DType) -> f64 {
    match dt {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 | DType::C64 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// Whether `s` overflows `dt` under c10's rule: ints may wrap into an unsigned type from as
/// low as -max; floats into ints must be finite and truncate into range; floats into floats
/// may be inf or NaN but not finite beyond the range; a complex number into a real type must
/// have no imaginary part.
pub fn overflows(s: Scalar, dt: DType) -> bool {
    if dt == DType::Bool {
        return false;
    }
    let v = match s {
        Scalar::Bool(_) => return false,
        Scalar::Complex(_, im) if im != 0.0 && !dt.is_complex() => return true,
        Scalar::Complex(re, _) => Scalar::Float(re),
        s => s,
    };
    match v {
        Scalar::Int(i) if !dt.is_float() && !dt.is_complex() => {
            let (lo, hi) = int_range(dt);
            let i = i as i128;
            if lo == 0 {
                i > hi || i < -hi
            } else {
                i < lo || i > hi
            }
        }
        _ if dt.is_float() || dt.is_complex() => {
            let f = v.to_f64();
            f.is_finite() && f.abs() > float_max(dt)
        }
        _ => {
            let f = v.to_f64();
            let (lo, hi) = int_range(dt);
            !f.is_finite() || f < lo as f64 || f >= hi as f64 + 1.0
        }
    }
}

/// `op`'s error when `s` does not fit `dt` (see [`overflows`]).
pub fn check_fits(op: &str, s: Scalar, dt: DType) -> Result<()> {
    if overflows(s, dt) {
        bail!(
            Runtime,
            "{op}: value cannot be converted to type {} without overflow",
            c_name(dt)
        );
    }
    Ok(())
}

/// The check of filling `numel` elements: PyTorch's one-element fill (a 0-d `full`, a scalar
/// assigned by indexing) skips it for the half types and rounds to inf instead.
pub fn check_fill(op: &str, s: Scalar, dt: DType, numel: usize) -> Result<()> {
    if numel == 1 && matches!(dt, DType::F16 | DType::BF16) {
        return Ok(());
    }
    check_fits(op, s, dt)
}

/// Number bounds of `clamp` on dtype `dt`: an integer dtype drops a bound beyond its range
/// on the open side and refuses one that leaves nothing (min above the range, max below it);
/// a float dtype refuses finite bounds it cannot hold.
pub fn clamp_bounds(
    dt: DType,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<(Option<Scalar>, Option<Scalar>)> {
    if dt.is_float() {
        for s in min.iter().chain(max.iter()) {
            check_fits("clamp", *s, dt)?;
        }
        return Ok((min, max));
    }
    let (lo, hi) = int_range(dt);
    let value = |s: Scalar| match s {
        Scalar::Int(i) => i as i128,
        s => s.to_i64() as i128,
    };
    let refuse = |which: &str, s: Scalar| -> Result<()> {
        bail!(
            Runtime,
            "clamp: Clamp {which} value {} is outside the representable range of {}",
            value(s),
            dt.scalar_type_name()
        )
    };
    let min = match min {
        Some(s) if value(s) > hi => return refuse("min", s).map(|_| (None, None)),
        Some(s) if value(s) < lo => None,
        m => m,
    };
    let max = match max {
        Some(s) if value(s) < lo => return refuse("max", s).map(|_| (None, None)),
        Some(s) if value(s) > hi => None,
        m => m,
    };
    Ok((min, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c10_overflow_rules() {
        use DType::*;
        use Scalar::{Complex, Float, Int};
        assert!(!overflows(Int(-255), U8) && overflows(Int(-256), U8) && overflows(Int(256), U8));
        assert!(overflows(Float(-0.5), U8) && !overflows(Float(255.5), U8));
        assert!(overflows(Float(256.0), U8) && overflows(Float(f64::NAN), I64));
        assert!(overflows(Float(2f64.powi(63)), I64));
        assert!(!overflows(Float(-(2f64.powi(63))), I64));
        assert!(overflows(Int(128), I8) && !overflows(Int(-128), I8));
        assert!(overflows(Float(65520.0), F16) && !overflows(Float(f64::INFINITY), F16));
        assert!(overflows(Int(70000), F16) && !overflows(Float(f64::NAN), F32));
        assert!(overflows(Complex(1.0, 1.0), F64) && !overflows(Complex(1.0, 0.0), U8));
        assert!(!overflows(Float(1e300), DType::Bool) && !overflows(Float(1e300), F64));
    }
}
