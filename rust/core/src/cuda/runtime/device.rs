//! One state per GPU, created at first use: the context, its streams, the caching allocator,
//! the compiled kernel modules and the random generator's seed and offset.

use super::driver_err;
use super::kernels::ModuleCache;
use super::streams::StreamRegistry;
use crate::cuda::allocator::CachingAllocator;
use crate::{Error, Result};
use cudarc::driver::CudaContext;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

/// PyTorch's default CUDA seed, so an unseeded program draws what it would under PyTorch's
/// seeding (the values differ: the generators differ).
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

pub struct DeviceState {
    pub index: usize,
    pub ctx: Arc<CudaContext>,
    pub arch: &'static str,
    pub streams: StreamRegistry,
    pub allocator: CachingAllocator<super::buffer::DriverMemory>,
    pub modules: ModuleCache,
    pub seed: AtomicU64,
    /// Philox offset: advanced by every random kernel so draws never repeat.
    pub rng_offset: AtomicU64,
    pub blas: Mutex<Option<super::blas::BlasHandle>>,
}

struct Driver {
    devices: Vec<OnceLock<Result<Arc<DeviceState>>>>,
}

static DRIVER: OnceLock<std::result::Result<Driver, String>> = OnceLock::new();

/// PyTorch's message when no driver is found, so users see what they would with PyTorch.
const NO_DRIVER: &str = "Found no NVIDIA driver on your system. Please check that you have an \
NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx";

fn driver() -> Result<&'static Driver> {
    DRIVER
        .get_or_init(|| {
            if !unsafe { cudarc::driver::sys::is_culib_present() } {
                return Err(NO_DRIVER.to_string());
            }
            cudarc::driver::result::init().map_err(|e| format!("{NO_DRIVER} ({e})"))?;
            let n = cudarc::driver::result::device::get_count().map_err(|e| e.to_string())?;
            let devices = (0..n.max(0)).map(|_| OnceLock::new()).collect();
            Ok(Driver { devices })
        })
        .as_ref()
        .map_err(|e| Error::runtime(e.clone()))
}

/// Number of visible GPUs; 0 without a driver.
pub fn device_count() -> usize {
    driver().map(|d| d.devices.len()).unwrap_or(0)
}

/// Whether a driver loads and reports at least one GPU.
pub fn available() -> Result<()> {
    if driver()?.devices.is_empty() {
        return Err(Error::runtime(
            "CUDA driver found but no CUDA-capable device is detected",
        ));
    }
    Ok(())
}

fn arch_of(major: i32, minor: i32) -> &'static str {
    // NVRTC wants a static name; the set of real architectures is small.
    let name = format!("sm_{major}{minor}");
    Box::leak(name.into_boxed_str())
}

fn create(index: usize) -> Result<Arc<DeviceState>> {
    let ctx = CudaContext::new(index).map_err(driver_err("creating the context"))?;
    // We order work with our own streams and events; cudarc's per-buffer tracking is unused.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(driver_err("reading the compute capability"))?;
    let streams = StreamRegistry::new(&ctx);
    let memory = super::buffer::DriverMemory::new(ctx.clone(), streams.clone());
    Ok(Arc::new(DeviceState {
        index,
        arch: arch_of(major, minor),
        streams,
        allocator: CachingAllocator::new(memory),
        modules: ModuleCache::default(),
        seed: AtomicU64::new(DEFAULT_SEED),
        rng_offset: AtomicU64::new(0),
        blas: Mutex::new(None),
        ctx,
    }))
}

/// The state of GPU `index`, created (with its context) at first use.
pub fn device(index: usize) -> Result<Arc<DeviceState>> {
    let drv = driver()?;
    let slot = drv.devices.get(index).ok_or_else(|| {
        Error::runtime(format!(
            "CUDA error: invalid device ordinal (device cuda:{index} requested, {} visible)",
            drv.devices.len()
        ))
    })?;
    slot.get_or_init(|| create(index)).clone()
}
