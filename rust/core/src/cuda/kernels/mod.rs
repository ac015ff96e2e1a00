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

/// All modules; the NVRTC test compiles each for sm_80 and sm_90.
pub const MODULES: &[&KernelModule] = &[
    &elementwise::COPY,
    &elementwise::FILL,
    &elementwise::UNARY,
    &elementwise::BINARY,
    &elementwise::TERNARY,
    &elementwise::RANDOM,
    &elementwise::OPTIM,
];

/// The full program text NVRTC compiles for `m`.
pub fn program_text(m: &KernelModule) -> String {
    format!("{COMMON}\n// ---- {} ----\n{}", m.name, m.source)
}
