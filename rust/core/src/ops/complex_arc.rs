//! Inverse trigonometric functions of complex numbers with C99's branch cuts and signed zeros
//! (PyTorch calls the C library): Kahan's formulas through two square roots for asin and
//! acos, log1p/atan2 for atanh, asymptotic forms where squares would overflow. Computed in
//! f64 for both complex dtypes.

use rustfft::num_complex::Complex;

type C = Complex<f64>;

const FRAC_PI_2: f64 = std::f64::consts::FRAC_PI_2;
/// Above this modulus the formulas' squares overflow; the asymptotic forms are exact there.
const LARGE: f64 = 1e150;

/// `i z`, with the signs of zero a multiplication by (0 + 1i) would lose.
fn times_i(z: C) -> C {
    C::new(-z.im, z.re)
}

/// `-i w`.
fn times_minus_i(w: C) -> C {
    C::new(w.im, -w.re)
}

/// The principal square root with C99's signed zeros (an imaginary -0 gives the lower root).
fn sqrt(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if x == 0.0 && y == 0.0 {
        return C::new(0.0, y);
    }
    let t = ((x.abs() + x.hypot(y)) / 2.0).sqrt();
    if x >= 0.0 {
        C::new(t, y / (2.0 * t))
    } else {
        C::new(y.abs() / (2.0 * t), t.copysign(y))
    }
}

/// asinh of an infinite argument (no NaN): infinite real part, angle 0, pi/4 or pi/2.
fn asinh_infinite(w: C) -> C {
    let angle = match (w.re.is_infinite(), w.im.is_infinite()) {
        (true, true) => FRAC_PI_2 / 2.0,
        (true, false) => 0.0,
        _ => FRAC_PI_2,
    };
    C::new(f64::INFINITY.copysign(w.re), angle.copysign(w.im))
}

/// asinh for |w| > LARGE: ln(2w), odd in w.
fn asinh_large(w: C) -> C {
    let flip = w.re.is_sign_negative();
    let u = if flip { -w } else { w };
    let r = C::new(
        std::f64::consts::LN_2 + u.re.hypot(u.im).ln(),
        u.im.atan2(u.re),
    );
    if flip {
        -r
    } else {
        r
    }
}

/// NaN cases of asin, as C99's casin gives them.
fn asin_nan(z: C) -> C {
    if z.re.is_infinite() || z.im.is_infinite() {
        return C::new(f64::NAN, f64::INFINITY.copysign(z.im));
    }
    if z.re == 0.0 {
        return C::new(z.re, f64::NAN);
    }
    C::new(f64::NAN, f64::NAN)
}

pub(crate) fn asin(z: C) -> C {
    if z.re.is_nan() || z.im.is_nan() {
        return asin_nan(z);
    }
    if z.re.is_infinite() || z.im.is_infinite() {
        return times_minus_i(asinh_infinite(times_i(z)));
    }
    if z.re.hypot(z.im) > LARGE {
        return times_minus_i(asinh_large(times_i(z)));
    }
    let a = sqrt(C::new(1.0 - z.re, -z.im));
    let b = sqrt(C::new(1.0 + z.re, z.im));
    C::new(
        z.re.atan2(a.re * b.re - a.im * b.im),
        (a.re * b.im - a.im * b.re).asinh(),
    )
}

pub(crate) fn acos(z: C) -> C {
    let finite = z.re.is_finite() && z.im.is_finite();
    if !finite || z.re.hypot(z.im) > LARGE {
        let s = asin(z);
        return C::new(FRAC_PI_2 - s.re, -s.im);
    }
    let a = sqrt(C::new(1.0 - z.re, -z.im));
    let b = sqrt(C::new(1.0 + z.re, z.im));
    C::new(2.0 * a.re.atan2(b.re), (b.re * a.im - b.im * a.re).asinh())
}

/// atanh(w) = log((1 + w) / (1 - w)) / 2 in a form exact near 0 and at the poles +-1.
fn atanh(w: C) -> C {
    let (u, v) = (w.re, w.im);
    if u.is_nan() || v.is_nan() {
        if v.is_infinite() {
            return C::new(0.0f64.copysign(u), FRAC_PI_2.copysign(v));
        }
        if u.is_infinite() {
            return C::new(0.0f64.copysign(u), f64::NAN);
        }
        return C::new(f64::NAN, f64::NAN);
    }
    let h = u.hypot(v);
    if h > LARGE {
        // 1 / w plus the branch's pi/2; the real part is u / |w|^2 without squaring.
        let re = if h.is_infinite() {
            0.0f64.copysign(u)
        } else {
            u / h / h
        };
        return C::new(re, FRAC_PI_2.copysign(v));
    }
    let one_minus = 1.0 - u;
    let re = (4.0 * u / (one_minus * one_minus + v * v)).ln_1p() / 4.0;
    let im = (2.0 * v).atan2(one_minus * (1.0 + u) - v * v) / 2.0;
    C::new(re, im)
}

pub(crate) fn atan(z: C) -> C {
    times_minus_i(atanh(times_i(z)))
}
