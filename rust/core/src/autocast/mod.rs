//! Autocast (`torch.autocast`): per-thread mixed-precision state for each device type, and the
//! cast of an op's inputs by PyTorch's per-op policy. The state is read with one thread-local
//! load, so ops pay nothing measurable while no autocast region is active.
//!
//! Entry points (the Python bindings, or a Rust caller) ask [`cast_inputs`] for the inputs an
//! op should run on; ops inside the core never consult autocast, as PyTorch's autocast kernels
//! exclude autocast for the ops they call.

mod policy;

pub use policy::{policy, CastPolicy};

use crate::tensor::TensorImpl;
use crate::{DType, Device, Error, Result, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// The device types that have their own autocast state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeviceType {
    Cpu,
    Cuda,
}

impl DeviceType {
    pub fn of(device: Device) -> DeviceType {
        match device {
            Device::Cpu => DeviceType::Cpu,
            Device::Cuda(_) => DeviceType::Cuda,
        }
    }

    /// `"cpu"` or `"cuda"`; other names are not autocast device types here.
    pub fn parse(name: &str) -> Option<DeviceType> {
        match name {
            "cpu" => Some(DeviceType::Cpu),
            "cuda" => Some(DeviceType::Cuda),
            _ => None,
        }
    }

    fn bit(self) -> u8 {
        match self {
            DeviceType::Cpu => 1,
            DeviceType::Cuda => 2,
        }
    }

    fn index(self) -> usize {
        match self {
            DeviceType::Cpu => 0,
            DeviceType::Cuda => 1,
        }
    }
}

/// A weight's lower-precision copy, with a weak reference that keeps the key's address from
/// being reused by another tensor while the entry lives.
type CacheEntry = (Weak<TensorImpl>, Tensor);

/// How many threads have autocast on: while none has, ops skip the thread-local read (a
/// `__tls_get_addr` call in a shared library) after one relaxed atomic load.
static THREADS_ON: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// One bit per device type whose autocast is on.
    static ENABLED: Cell<u8> = const { Cell::new(0) };
    /// The lower-precision dtype of each device type (PyTorch's defaults: bf16 CPU, f16 CUDA).
    static DTYPES: Cell<[DType; 2]> = const { Cell::new([DType::BF16, DType::F16]) };
    static CACHE_ENABLED: Cell<bool> = const { Cell::new(true) };
    static NESTING: Cell<i64> = const { Cell::new(0) };
    static CACHE: RefCell<HashMap<usize, CacheEntry>> = RefCell::new(HashMap::new());
}

/// Whether autocast is on for any device type in this thread: what ops check first.
#[inline]
pub fn is_active() -> bool {
    THREADS_ON.load(Ordering::Relaxed) != 0 && ENABLED.with(|e| e.get()) != 0
}

/// Sets this thread's bits, keeping the count of threads with autocast on.
fn store_bits(bits: u8) -> u8 {
    let old = ENABLED.with(|e| e.replace(bits));
    match (old != 0, bits != 0) {
        (false, true) => {
            THREADS_ON.fetch_add(1, Ordering::Relaxed);
        }
        (true, false) => {
            THREADS_ON.fetch_sub(1, Ordering::Relaxed);
        }
        _ => {}
    }
    old
}

pub fn is_enabled(device: DeviceType) -> bool {
    ENABLED.with(|e| e.get() & device.bit() != 0)
}

pub fn set_enabled(device: DeviceType, on: bool) {
    let bits = ENABLED.with(|e| e.get());
    store_bits(if on {
        bits | device.bit()
    } else {
        bits & !device.bit()
    });
}

/// The dtype ops on the lower-precision list run in for `device`.
pub fn dtype(device: DeviceType) -> DType {
    DTYPES.with(|d| d.get()[device.index()])
}

pub fn set_dtype(device: DeviceType, dtype: DType) {
    DTYPES.with(|d| {
        let mut all = d.get();
        all[device.index()] = dtype;
        d.set(all)
    });
}

pub fn is_cache_enabled() -> bool {
    CACHE_ENABLED.with(|c| c.get())
}

pub fn set_cache_enabled(on: bool) {
    CACHE_ENABLED.with(|c| c.set(on));
}

/// Counts entered autocast regions; the caller clears the cache when this returns to zero.
pub fn increment_nesting() -> i64 {
    NESTING.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

pub fn decrement_nesting() -> i64 {
    NESTING.with(|n| {
        n.set(n.get() - 1);
        n.get()
    })
}

/// Drops the cached lower-precision copies of weights.
pub fn clear_cache() {
    // Take the map out first: dropping tensors must not run while the cell is borrowed.
    let old = CACHE.with(|c| std::mem::take(&mut *c.borrow_mut()));
    drop(old);
}

/// Turns autocast off for every device type on this thread; returns the state to `restore`.
pub fn suspend() -> u8 {
    store_bits(0)
}

/// Puts back the state `suspend` returned.
pub fn restore(state: u8) {
    store_bits(state);
}

/// Turns autocast off for every device type until dropped: what an autocast op does around
/// its own body, so the ops it is made of are not cast again.
pub struct SuspendGuard(u8);

impl SuspendGuard {
    pub fn new() -> SuspendGuard {
        SuspendGuard(suspend())
    }
}

impl Default for SuspendGuard {
    fn default() -> Self {
        SuspendGuard::new()
    }
}

impl Drop for SuspendGuard {
    fn drop(&mut self) {
        restore(self.0);
    }
}

/// A floating tensor on `device` other than float64: what autocast may cast.
fn is_eligible(t: &Tensor, device: DeviceType) -> bool {
    t.dtype().is_float() && t.dtype() != DType::F64 && DeviceType::of(t.device()) == device
}

/// `t` in `to`, reusing the cast of a float32 leaf weight made earlier in this region.
fn cached_cast(to: DType, t: &Tensor, device: DeviceType) -> Result<Tensor> {
    if !is_eligible(t, device) || t.dtype() == to {
        return Ok(t.clone());
    }
    let cacheable = to == dtype(device)
        && t.dtype() == DType::F32
        && t.requires_grad()
        && t.is_leaf()
        && t.view_base().is_none()
        && is_cache_enabled()
        && !crate::autograd::is_inference_mode();
    if !cacheable {
        return t.to_dtype(to);
    }
    let key = t.id();
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).map(|(_, v)| v.clone())) {
        return Ok(hit);
    }
    // The cached copy keeps its link to the weight even when made under no_grad, so a later
    // use with grad enabled in the same region still reaches the weight.
    let cast = {
        let _grad = crate::autograd::GradModeGuard::new(true);
        t.to_dtype(to)?
    };
    let weak = Arc::downgrade(&t.0);
    CACHE.with(|c| c.borrow_mut().insert(key, (weak, cast.clone())));
    Ok(cast)
}

/// The dtype a `promote` op runs in: float32 if any eligible input is float32, else the
/// lower-precision type (float64 inputs are left out, as in PyTorch).
fn promote_dtype(op: &str, inputs: &[&Tensor], device: DeviceType) -> Result<DType> {
    let lower = dtype(device);
    let mut current = lower;
    for t in inputs.iter().filter(|t| is_eligible(t, device)) {
        let next = t.dtype();
        if current == DType::F32 || next == DType::F32 {
            current = DType::F32;
        } else if next != lower {
            return Err(Error::runtime(format!(
                "{op}: unexpected floating ScalarType {} in autocast promotion (autocast dtype {})",
                next.name(),
                lower.name()
            )));
        }
    }
    Ok(current)
}

/// The inputs `op` runs on under the current autocast state, or `None` when autocast leaves
/// them alone (it is off, or `op` has no policy on the inputs' device type). `inputs` are the
/// op's tensor arguments; the first one's device picks the device type, as dispatch would.
pub fn cast_inputs(op: &str, inputs: &[&Tensor]) -> Result<Option<Vec<Tensor>>> {
    if !is_active() {
        return Ok(None);
    }
    let Some(first) = inputs.first() else {
        return Ok(None);
    };
    let device = DeviceType::of(first.device());
    if !is_enabled(device) {
        return Ok(None);
    }
    let Some(policy) = policy(op, device) else {
        return Ok(None);
    };
    let to = match policy {
        CastPolicy::LowerPrecision => dtype(device),
        CastPolicy::Fp32 => DType::F32,
        CastPolicy::Fp32FirstArg => {
            // Ops with an optional output dtype (softmax, sum): float32 out when the first
            // input is eligible, otherwise untouched.
            if !is_eligible(first, device) {
                return Ok(None);
            }
            DType::F32
        }
        CastPolicy::Promote => promote_dtype(op, inputs, device)?,
        CastPolicy::Banned(msg) => return Err(Error::runtime(msg)),
    };
    let cast = inputs
        .iter()
        .map(|t| cached_cast(to, t, device))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(cast))
}

/// [`cast_inputs`] for two operands, keeping them when autocast leaves them alone.
pub fn cast_pair(op: &str, a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor)> {
    match cast_inputs(op, &[a, b])? {
        Some(mut v) => {
            let b = v.pop().expect("two inputs");
            let a = v.pop().expect("two inputs");
            Ok((a, b))
        }
        None => Ok((a.clone(), b.clone())),
    }
}

#[cfg(test)]
mod tests;
