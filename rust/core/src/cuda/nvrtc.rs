//! Kernel compilation with NVRTC, loaded at run time. The library is found by soname
//! (`libnvrtc.so.12`: a CUDA 12 toolkit, or the `nvidia-cuda-nvrtc-cu12` wheel that the
//! Python package preloads); `FERROTORCH_NVRTC_LIB` names the file explicitly.

use super::kernels::{program_text, KernelModule};
use crate::{Error, Result};
use std::sync::OnceLock;

/// Makes NVRTC loadable: preloads `$FERROTORCH_NVRTC_LIB` if set, then checks the soname.
pub fn ensure_loaded() -> Result<()> {
    static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            if let Ok(path) = std::env::var("FERROTORCH_NVRTC_LIB") {
                // dlopen by path with RTLD_GLOBAL: cudarc's later dlopen by soname finds it.
                let c = std::ffi::CString::new(path.clone()).map_err(|e| e.to_string())?;
                let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
                if h.is_null() {
                    return Err(format!("FERROTORCH_NVRTC_LIB={path} could not be loaded"));
                }
            }
            if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                Ok(())
            } else {
                Err(
                    "NVRTC (libnvrtc.so.12) was not found: install the nvidia-cuda-nvrtc-cu12 \
                     wheel or a CUDA 12 toolkit, or set FERROTORCH_NVRTC_LIB"
                        .to_string(),
                )
            }
        })
        .clone()
        .map_err(Error::runtime)
}

/// PTX for `m` on `arch` (e.g. "sm_90"); a compile error carries NVRTC's log.
pub fn compile(m: &KernelModule, arch: &'static str) -> Result<String> {
    ensure_loaded()?;
    let opts = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        name: Some(format!("{}.cu", m.name)),
        options: vec!["--std=c++17".into()],
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(program_text(m), opts)
        .map(|ptx| ptx.to_src())
        .map_err(|e| {
            Error::runtime(format!(
                "NVRTC could not compile kernel module {}: {e:?}",
                m.name
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernels::MODULES;

    /// Every module compiles for Ampere and Hopper and defines the kernels it lists. Skips
    /// without NVRTC unless FERROTORCH_REQUIRE_NVRTC=1 (CI sets it, so a broken kernel fails).
    fn nvrtc_or_skip() -> bool {
        match ensure_loaded() {
            Ok(()) => true,
            Err(e) => {
                assert!(std::env::var("FERROTORCH_REQUIRE_NVRTC").is_err(), "{e}");
                eprintln!("skipped: {e}");
                false
            }
        }
    }

    #[test]
    fn the_common_header_compiles_alone() {
        if !nvrtc_or_skip() {
            return;
        }
        let empty = KernelModule {
            name: "empty",
            source: "",
            functions: &[],
        };
        compile(&empty, "sm_80").unwrap();
    }

    #[test]
    fn every_kernel_module_compiles_for_sm80_and_sm90() {
        if !nvrtc_or_skip() {
            return;
        }
        for m in MODULES {
            for arch in ["sm_80", "sm_90"] {
                let ptx = compile(m, arch).unwrap_or_else(|e| panic!("{e}"));
                for f in m.functions {
                    assert!(
                        ptx.contains(&format!(".entry {f}(")),
                        "{}: kernel {f} missing from the PTX for {arch}",
                        m.name
                    );
                }
            }
        }
    }
}
