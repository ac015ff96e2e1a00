//! CUDA C kernel sources, compiled at first use by NVRTC (see `cuda::nvrtc`). They are plain
//! strings here, so every build carries them and the NVRTC test compiles each one.

pub mod elementwise;

/// One NVRTC program: a source and the `extern "C"` kernels it defines.
pub struct KernelModule {
    pub name: &'static str,
    pub source: &'static str,
    /// Every kernel the module must define (checked against the compiled PTX by the tests).
    pub functions: &'static [&'static str],
}

/// Prepended to every module: dtype conversions, the strided-view struct, the loop macro.
pub const COMMON: &str = include_str!("common.cuh");

/// Kernel names `prefix_suffix` for every prefix and suffix of each group:
/// `kernel_names!(["reduce_sum", "reduce_max"] x ["f32", "f64"]; ["a"] x ["i64"])`.
macro_rules! kernel_names {
    ($([$($p:literal),* $(,)?] x [$($s:literal),* $(,)?]);* $(;)?) => {
        kernel_names!(@acc [] $([$($p),*] [$($s),*])*)
    };
    (@acc [$($out:expr),*]) => { &[$($out),*] };
    (@acc [$($out:expr),*] [] [$($s:literal),*] $($rest:tt)*) => {
        kernel_names!(@acc [$($out),*] $($rest)*)
    };
    (@acc [$($out:expr),*] [$p:literal $(, $ps:literal)*] [$($s:literal),*] $($rest:tt)*) => {
        kernel_names!(@acc [$($out,)* $(concat!($p, "_", $s)),*] [$($ps),*] [$($s),*] $($rest)*)
    };
}

mod families2;
pub use families2::*;

/// All modules; the NVRTC test compiles each for sm_80 and sm_90.
pub const MODULES: &[&KernelModule] = &[
    &elementwise::COPY,
    &elementwise::FILL,
    &elementwise::UNARY,
    &elementwise::BINARY,
    &elementwise::TERNARY,
    &elementwise::RANDOM,
    &elementwise::OPTIM,
    &REDUCE,
    &REDUCE_STATS,
    &SCAN,
    &SOFTMAX,
    &LAYER_NORM,
    &LOSS,
    &INDEX,
    &CONV,
    &POOL,
];

/// The full program text NVRTC compiles for `m`.
pub fn program_text(m: &KernelModule) -> String {
    format!("{COMMON}\n// ---- {} ----\n{}", m.name, m.source)
}
