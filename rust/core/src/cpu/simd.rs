//! Runtime CPU dispatch. A kernel loop passed to `dispatch` is compiled three times (baseline
//! x86-64, AVX2+FMA, AVX-512) and the widest the CPU supports runs, so one wheel built for the
//! baseline still uses the vector units of the machine it lands on.

use std::sync::atomic::{AtomicU8, Ordering};

/// Instruction-set levels, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Baseline = 1,
    Avx2 = 2,
    Avx512 = 3,
}

static LEVEL: AtomicU8 = AtomicU8::new(0);

fn detect() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("fma")
        {
            return Level::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Level::Avx2;
        }
    }
    Level::Baseline
}

/// The level kernels run at: the CPU's best, lowered by `FERROTORCH_SIMD` or `set_level`.
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::Avx2,
        3 => Level::Avx512,
        _ => {
            let mut l = detect();
            if let Ok(v) = std::env::var("FERROTORCH_SIMD") {
                l = l.min(parse(&v).unwrap_or(l));
            }
            LEVEL.store(l as u8, Ordering::Relaxed);
            l
        }
    }
}

fn parse(name: &str) -> Option<Level> {
    match name.to_ascii_lowercase().as_str() {
        "baseline" | "none" | "sse2" => Some(Level::Baseline),
        "avx2" => Some(Level::Avx2),
        "avx512" => Some(Level::Avx512),
        _ => None,
    }
}

/// Caps the level (never above what the CPU has); returns the level now in use. Tests use it
/// to check that every compiled path gives the reference path's results.
pub fn set_level(name: &str) -> Option<Level> {
    let want = parse(name)?;
    let l = detect().min(want);
    LEVEL.store(l as u8, Ordering::Relaxed);
    Some(l)
}

/// A kernel body. `run` must be `#[inline(always)]`: it is inlined into a copy compiled for
/// each instruction set, which a plain closure (inlined only when small) does not guarantee.
pub trait Kernel {
    type Output;
    fn run(self) -> Self::Output;
}

/// Runs `k` compiled for the widest instruction set available.
#[inline(always)]
pub fn run<K: Kernel>(k: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    {
        match level() {
            // SAFETY: the features were detected on this CPU.
            Level::Avx512 => return unsafe { run_avx512(k) },
            Level::Avx2 => return unsafe { run_avx2(k) },
            Level::Baseline => {}
        }
    }
    k.run()
}

struct Closure<F>(F);

impl<R, F: FnOnce() -> R> Kernel for Closure<F> {
    type Output = R;
    #[inline(always)]
    fn run(self) -> R {
        (self.0)()
    }
}

/// `run` for a small closure (large bodies belong in a `Kernel` with an inlined `run`).
#[inline(always)]
pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    run(Closure(f))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn run_avx512<K: Kernel>(k: K) -> K::Output {
    k.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<K: Kernel>(k: K) -> K::Output {
    k.run()
}
