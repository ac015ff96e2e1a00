//! Refcounted buffers. A buffer is released the moment the last tensor viewing it is dropped
//! (freed, or above 32 MiB kept for reuse by `block_cache`).

use crate::{Device, Element, Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout as AllocLayout};
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const ALIGN: usize = 64;
/// Buffers up to this size are only 16-byte aligned (every element type's alignment): that
/// is plain malloc, while a 64-byte aligned request goes through memalign, whose split-off
/// remainders cost a tenth of a 1-element op.
const SMALL: usize = 256;

fn alloc_layout(nbytes: usize) -> Result<AllocLayout> {
    let (size, align) = if nbytes == 0 {
        (0, ALIGN) // nothing is allocated (a size of 0 marks it for `dealloc_owner`)
    } else if nbytes <= SMALL {
        (nbytes.max(16), 16)
    } else {
        (nbytes, ALIGN)
    };
    // Only sizes near isize::MAX are refused here: no allocator could serve them.
    AllocLayout::from_size_align(size, align).map_err(|_| Error::out_of_memory(nbytes))
}

/// Who owns the bytes: us (an aligned allocation) or a foreign owner kept alive here
/// (a NumPy array, a DLPack producer, a shared-memory mapping) until the storage dies.
enum Owner {
    Aligned(AllocLayout),
    /// Anonymous pages of this length, mapped for a large zeroed buffer.
    #[cfg(unix)]
    Mapped(usize),
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
    #[cfg(unix)]
    Shared(crate::shm::SharedMemory),
    /// Device memory from the CUDA caching allocator, returned to it when dropped.
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::runtime::CudaBuffer),
    /// Device memory owned elsewhere (a DLPack producer such as PyTorch or CuPy), kept alive
    /// by the owner until the storage dies.
    /// Page-locked host memory (`pin_memory()`), freed through the driver.
    #[cfg(feature = "cuda")]
    Pinned(#[allow(dead_code)] crate::cuda::runtime::pinned::PinnedHost),
    #[cfg(feature = "cuda")]
    CudaForeign(
        Arc<crate::cuda::runtime::DeviceState>,
        #[allow(dead_code)] Box<dyn Any + Send + Sync>,
    ),
}

struct Inner {
    /// Atomic only because `share_memory_` moves the bytes into shared memory in place.
    ptr: AtomicPtr<u8>,
    nbytes: usize,
    owner: Mutex<Owner>,
    /// Owners replaced by `share_memory_` while NumPy or DLPack held the old address.
    retired: Mutex<Vec<(Owner, usize)>>,
    /// Set once the address was handed out (NumPy, DLPack, data_ptr).
    exported: AtomicBool,
    device: Device,
    readonly: bool,
    /// Bumped by every in-place write; autograd compares it with the value it saved.
    version: AtomicU64,
    /// Allocated in inference mode: every tensor over it is an inference tensor.
    inference: bool,
}

fn dealloc_owner(owner: &Owner, ptr: *mut u8) {
    match owner {
        // `give` keeps a large buffer for reuse; a buffer it declines is freed here.
        Owner::Aligned(layout) if layout.size() > 0 && !crate::block_cache::give(ptr, *layout) => {
            unsafe { dealloc(ptr, *layout) };
        }
        #[cfg(unix)]
        Owner::Mapped(len) => {
            unsafe { libc::munmap(ptr as *mut libc::c_void, *len) };
        }
        _ => {}
    }
}

// The buffer is plain memory; concurrent access is governed by the tensor ops, as in PyTorch.
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

impl Drop for Inner {
    fn drop(&mut self) {
        let owner = self.owner.get_mut().unwrap_or_else(|e| e.into_inner());
        dealloc_owner(owner, *self.ptr.get_mut());
        for (old, ptr) in self
            .retired
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            dealloc_owner(&old, ptr as *mut u8);
        }
    }
}

/// Shared segments mapped by this process, by (device, inode).
#[cfg(unix)]
static SHARED: Mutex<Option<SharedRegistry>> = Mutex::new(None);

#[cfg(unix)]
type SharedRegistry = std::collections::HashMap<(u64, u64), std::sync::Weak<Inner>>;

#[cfg(unix)]
fn remember_shared(id: (u64, u64), s: &Storage) {
    let mut known = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    let map = known.get_or_insert_with(Default::default);
    map.retain(|_, w| w.strong_count() > 0);
    map.insert(id, Arc::downgrade(&s.0));
}

/// Keeps freed tensor buffers in the heap for reuse. glibc hands blocks above 128 KiB
/// straight back to the OS, so every large activation of every step was page-faulted in
/// afresh; with the thresholds raised (to glibc's 32 MiB maximum) they are recycled.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static TUNED: std::sync::Once = std::sync::Once::new();
        TUNED.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        });
    }
}

/// Asks for transparent huge pages on large buffers (as NumPy does): a fresh 40 MB output
/// otherwise takes 10,000 page faults, which cost more than the arithmetic that fills it.
fn advise_huge_pages(ptr: *mut u8, nbytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        // Beyond 1 GiB the advice costs more than it saves: with THP defrag on "madvise" each
        // fault compacts memory synchronously (ones(2**31) took 4x PyTorch's time).
        const MAX_ADVISED: usize = 1 << 30;
        if !(2 * HUGE..=MAX_ADVISED).contains(&nbytes) {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + nbytes) / HUGE * HUGE;
        if end > start {
            // Advice only: a kernel without THP refuses it and nothing changes.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
}

/// Where a CUDA storage lives: its device and base address.
#[cfg(feature = "cuda")]
pub struct CudaRef {
    pub dev: Arc<crate::cuda::runtime::DeviceState>,
    pub ptr: u64,
}

/// A refcounted byte buffer on one device.
#[derive(Clone)]
pub struct Storage(Arc<Inner>);

impl Storage {
    /// A zero-filled buffer of `nbytes`, 64-byte aligned for SIMD; out of memory is an error.
    pub fn zeros(nbytes: usize) -> Result<Storage> {
        Storage::allocate(nbytes, true)
    }

    /// A buffer whose bytes are not initialized: for kernel outputs that write every element
    /// before anything reads them. Skipping the zeroing lets freed memory be reused without
    /// page faults on large tensors.
    pub fn uninit(nbytes: usize) -> Result<Storage> {
        Storage::allocate(nbytes, false)
    }

    fn allocate(nbytes: usize, zeroed: bool) -> Result<Storage> {
        tune_allocator();
        crate::alloc_size::check_request(nbytes)?;
        #[cfg(unix)]
        if zeroed && nbytes > crate::block_cache::MAX_BYTES {
            return Storage::mapped_zeros(nbytes);
        }
        let mut layout = alloc_layout(nbytes)?;
        let ptr = if nbytes == 0 {
            ALIGN as *mut u8
        } else if let Some((p, cached)) = crate::block_cache::take(nbytes) {
            layout = cached;
            if zeroed {
                // Still cheaper than the kernel's page faults and zeroing of a fresh mapping.
                unsafe { std::ptr::write_bytes(p, 0, nbytes) };
            }
            p
        } else {
            let raw = || unsafe {
                if zeroed {
                    alloc_zeroed(layout)
                } else {
                    std::alloc::alloc(layout)
                }
            };
            let mut p = raw();
            if p.is_null() && crate::block_cache::cached_bytes() > 0 {
                // The buffers kept for reuse may be what stands in the way.
                crate::block_cache::empty();
                p = raw();
            }
            if p.is_null() {
                return Err(Error::out_of_memory(nbytes));
            }
            advise_huge_pages(p, nbytes);
            p
        };
        Ok(Storage::with_owner(
            ptr,
            nbytes,
            Owner::Aligned(layout),
            false,
        ))
    }

    /// A large zeroed buffer as fresh anonymous pages: the kernel zeroes each page when it is
    /// first touched, so (like PyTorch's `empty`) nothing is written or committed up front.
    /// The allocator's zeroing of a 64-byte aligned block would write every page at once.
    /// Such buffers are too large for `block_cache` anyway.
    #[cfg(unix)]
    fn mapped_zeros(nbytes: usize) -> Result<Storage> {
        let map = || unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                nbytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        let mut p = map();
        if p == libc::MAP_FAILED && crate::block_cache::cached_bytes() > 0 {
            crate::block_cache::empty();
            p = map();
        }
        if p == libc::MAP_FAILED {
            return Err(Error::out_of_memory(nbytes));
        }
        advise_huge_pages(p as *mut u8, nbytes);
        Ok(Storage::with_owner(
            p as *mut u8,
            nbytes,
            Owner::Mapped(nbytes),
            false,
        ))
    }

    pub fn from_vec<T: Element>(v: Vec<T>) -> Result<Storage> {
        let s = Storage::uninit(std::mem::size_of_val(v.as_slice()))?;
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), s.ptr() as *mut T, v.len()) };
        Ok(s)
    }

    /// Wraps memory owned elsewhere; `owner` is dropped (releasing it) with the storage.
    ///
    /// # Safety
    /// `ptr` must stay valid for `nbytes` for as long as `owner` lives.
    pub unsafe fn from_foreign(
        ptr: *mut u8,
        nbytes: usize,
        owner: Box<dyn Any + Send + Sync>,
        readonly: bool,
    ) -> Storage {
        Storage::with_owner(ptr, nbytes, Owner::Foreign(owner), readonly)
    }

    fn with_owner(ptr: *mut u8, nbytes: usize, owner: Owner, readonly: bool) -> Storage {
        Storage::on_device(ptr, nbytes, owner, readonly, Device::Cpu)
    }

    fn on_device(
        ptr: *mut u8,
        nbytes: usize,
        owner: Owner,
        readonly: bool,
        device: Device,
    ) -> Storage {
        Storage(Arc::new(Inner {
            ptr: AtomicPtr::new(ptr),
            nbytes,
            owner: Mutex::new(owner),
            retired: Mutex::new(Vec::new()),
            exported: AtomicBool::new(false),
            device,
            readonly,
            version: AtomicU64::new(0),
            inference: crate::autograd::is_inference_mode(),
        }))
    }

    /// A zero-filled buffer in POSIX shared memory, shareable with other processes.
    #[cfg(unix)]
    pub fn shared(nbytes: usize) -> Result<Storage> {
        let mem = crate::shm::SharedMemory::create(nbytes)?;
        let id = mem.id();
        let s = Storage::with_owner(mem.ptr(), nbytes, Owner::Shared(mem), false);
        remember_shared(id, &s);
        Ok(s)
    }

    /// Maps a shared-memory segment received from another process (as a file descriptor,
    /// which the storage now owns). A segment this process already maps comes back as the
    /// same storage, so views received separately still alias each other.
    #[cfg(unix)]
    pub fn from_shared_fd(fd: i32, nbytes: usize) -> Result<Storage> {
        let mem = crate::shm::SharedMemory::from_fd(fd, nbytes)?;
        let id = mem.id();
        let mut guard = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        let known = guard.get_or_insert_with(Default::default);
        if let Some(inner) = known.get(&id).and_then(std::sync::Weak::upgrade) {
            if inner.nbytes >= nbytes {
                return Ok(Storage(inner));
            }
        }
        let s = Storage::with_owner(mem.ptr(), nbytes, Owner::Shared(mem), false);
        known.retain(|_, w| w.strong_count() > 0);
        known.insert(id, Arc::downgrade(&s.0));
        Ok(s)
    }

    /// Device memory of `nbytes` on GPU `index` (contents unspecified), from the caching allocator.
    #[cfg(feature = "cuda")]
    pub fn cuda_uninit(index: usize, nbytes: usize) -> Result<Storage> {
        let dev = crate::cuda::runtime::device(index)?;
        let buf = crate::cuda::runtime::CudaBuffer::alloc(&dev, nbytes)?;
        let ptr = buf.ptr as *mut u8;
        Ok(Storage::on_device(
            ptr,
            nbytes,
            Owner::Cuda(buf),
            false,
            Device::Cuda(index),
        ))
    }

    /// Wraps `nbytes` of device memory at `ptr` on GPU `index`, owned by `owner` (dropped,
    /// releasing the memory, with the storage): a tensor imported through DLPack.
    ///
    /// # Safety
    /// `ptr` must be device memory of GPU `index`, valid for `nbytes` while `owner` lives.
    #[cfg(feature = "cuda")]
    pub unsafe fn cuda_foreign(
        index: usize,
        ptr: u64,
        nbytes: usize,
        owner: Box<dyn Any + Send + Sync>,
        readonly: bool,
    ) -> Result<Storage> {
        let dev = crate::cuda::runtime::device(index)?;
        Ok(Storage::on_device(
            ptr as *mut u8,
            nbytes,
            Owner::CudaForeign(dev, owner),
            readonly,
            Device::Cuda(index),
        ))
    }

    /// `nbytes` of page-locked host memory (contents unspecified), registered with GPU
    /// `index`'s context: copies between it and the device run without driver staging.
    #[cfg(feature = "cuda")]
    pub fn pinned_uninit(index: usize, nbytes: usize) -> Result<Storage> {
        crate::alloc_size::check_request(nbytes)?;
        let dev = crate::cuda::runtime::device(index)?;
        let mem = crate::cuda::runtime::pinned::PinnedHost::alloc(&dev, nbytes)?;
        Ok(Storage::with_owner(
            mem.ptr,
            nbytes,
            Owner::Pinned(mem),
            false,
        ))
    }

    /// Whether the bytes are page-locked host memory (`Tensor.is_pinned()`).
    pub fn is_pinned(&self) -> bool {
        #[cfg(feature = "cuda")]
        if let Owner::Pinned(_) = *self.lock_owner() {
            return true;
        }
        false
    }

    /// The device state and address of a CUDA storage (None for host memory).
    #[cfg(feature = "cuda")]
    pub fn cuda_buffer(&self) -> Option<CudaRef> {
        match &*self.lock_owner() {
            Owner::Cuda(b) => Some(CudaRef {
                dev: b.dev.clone(),
                ptr: b.ptr,
            }),
            Owner::CudaForeign(dev, _) => Some(CudaRef {
                dev: dev.clone(),
                ptr: self.ptr() as u64,
            }),
            _ => None,
        }
    }

    /// Whether the bytes live in shared memory.
    pub fn is_shared(&self) -> bool {
        #[cfg(unix)]
        if let Owner::Shared(_) = *self.lock_owner() {
            return true;
        }
        false
    }

    /// The shared-memory file descriptor, which other processes map to see these bytes.
    #[cfg(unix)]
    pub fn shared_fd(&self) -> Option<i32> {
        match &*self.lock_owner() {
            Owner::Shared(m) => Some(m.fd()),
            _ => None,
        }
    }

    /// Identity of the shared segment (device, inode), the same in every process mapping it.
    #[cfg(unix)]
    pub fn shared_id(&self) -> Option<(u64, u64)> {
        match &*self.lock_owner() {
            Owner::Shared(m) => Some(m.id()),
            _ => None,
        }
    }

    /// Moves the bytes into shared memory in place: every tensor viewing this storage sees
    /// the shared copy. A no-op when already shared.
    #[cfg(unix)]
    pub fn share_memory_(&self) -> Result<()> {
        let mut owner = self.lock_owner();
        if let Owner::Shared(_) = *owner {
            return Ok(());
        }
        let mem = crate::shm::SharedMemory::create(self.0.nbytes)?;
        remember_shared(mem.id(), self);
        let old_ptr = self.ptr();
        unsafe { std::ptr::copy_nonoverlapping(old_ptr, mem.ptr(), self.0.nbytes) };
        self.0.ptr.store(mem.ptr(), Ordering::Release);
        let old = std::mem::replace(&mut *owner, Owner::Shared(mem));
        if self.0.exported.load(Ordering::Acquire) {
            // Someone outside may still read the old address: keep it alive with us.
            self.0
                .retired
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((old, old_ptr as usize));
        } else {
            dealloc_owner(&old, old_ptr);
            // Foreign owners release their memory when dropped.
            drop(old);
        }
        Ok(())
    }

    fn lock_owner(&self) -> std::sync::MutexGuard<'_, Owner> {
        self.0.owner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that the raw address left the crate (NumPy, DLPack, data_ptr).
    pub fn mark_exported(&self) {
        self.0.exported.store(true, Ordering::Release);
    }

    pub fn ptr(&self) -> *mut u8 {
        self.0.ptr.load(Ordering::Acquire)
    }
    pub fn nbytes(&self) -> usize {
        self.0.nbytes
    }
    pub fn device(&self) -> Device {
        self.0.device
    }
    pub fn is_readonly(&self) -> bool {
        self.0.readonly
    }
    pub fn is_inference(&self) -> bool {
        self.0.inference
    }
    pub fn version(&self) -> u64 {
        self.0.version.load(Ordering::Relaxed)
    }
    pub fn bump_version(&self) {
        self.0.version.fetch_add(1, Ordering::Relaxed);
    }
    pub fn same(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// Number of live handles (tensors and exported views) on this buffer.
    pub fn ref_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Host kernels must never read device memory: an op without a CUDA forward stops here
    /// instead of faulting.
    #[inline(always)]
    fn assert_host(&self) {
        assert!(
            self.0.device == Device::Cpu,
            "a CPU kernel was given a {} tensor: this op has no CUDA implementation yet",
            self.0.device
        );
    }

    /// The buffer as a slice of `T`, `len` elements from element `offset`.
    ///
    /// # Safety
    /// The range must lie inside the buffer and nobody may write it meanwhile.
    pub unsafe fn slice<T>(&self, offset: usize, len: usize) -> &[T] {
        self.assert_host();
        if len == 0 {
            return &[];
        }
        std::slice::from_raw_parts((self.ptr() as *const T).add(offset), len)
    }

    /// # Safety
    /// The range must lie inside the buffer and nobody else may access it meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut<T>(&self, offset: usize, len: usize) -> &mut [T] {
        self.assert_host();
        if len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut((self.ptr() as *mut T).add(offset), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_zeroed_buffers_are_mapped_lazily_and_read_zero() {
        // 1 GiB: mapped, not written; only the pages touched here are ever committed.
        let n = 1 << 30;
        let s = Storage::zeros(n).unwrap();
        assert!(matches!(*s.lock_owner(), Owner::Mapped(len) if len == n));
        assert_eq!(s.ptr() as usize % ALIGN, 0);
        let bytes = unsafe { s.slice_mut::<u8>(0, n) };
        assert_eq!((bytes[0], bytes[n / 2], bytes[n - 1]), (0, 0, 0));
        bytes[n - 1] = 7;
        assert_eq!(bytes[n - 1], 7);
        drop(s);
        // Below the threshold buffers still come from the allocator (and its reuse cache).
        let small = Storage::zeros(1 << 20).unwrap();
        assert!(matches!(*small.lock_owner(), Owner::Aligned(_)));
    }
    #[test]
    fn foreign_owner_is_dropped_with_the_last_view() {
        struct Flag(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut buf = vec![1.0f32; 4];
        let s = unsafe {
            Storage::from_foreign(
                buf.as_mut_ptr() as *mut u8,
                16,
                Box::new(Flag(dropped.clone())),
                false,
            )
        };
        let s2 = s.clone();
        drop(s);
        assert!(!dropped.load(Ordering::SeqCst));
        drop(s2);
        assert!(dropped.load(Ordering::SeqCst));
    }
}
