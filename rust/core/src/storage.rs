//! Refcounted buffers. A buffer is freed the moment the last tensor viewing it is dropped.

use crate::{Device, Element};
use std::alloc::{alloc_zeroed, dealloc, Layout as AllocLayout};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const ALIGN: usize = 64;

/// Who owns the bytes: us (an aligned allocation) or a foreign owner kept alive here
/// (a NumPy array, a DLPack producer, a shared-memory mapping) until the storage dies.
enum Owner {
    Aligned(AllocLayout),
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

struct Inner {
    ptr: *mut u8,
    nbytes: usize,
    owner: Owner,
    device: Device,
    readonly: bool,
    /// Bumped by every in-place write; autograd compares it with the value it saved.
    version: AtomicU64,
}

// The buffer is plain memory; concurrent access is governed by the tensor ops, as in PyTorch.
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Owner::Aligned(layout) = self.owner {
            if layout.size() > 0 {
                unsafe { dealloc(self.ptr, layout) };
            }
        }
    }
}

/// A refcounted byte buffer on one device.
#[derive(Clone)]
pub struct Storage(Arc<Inner>);

impl Storage {
    /// A zero-filled buffer of `nbytes`, 64-byte aligned for SIMD.
    pub fn zeros(nbytes: usize) -> Storage {
        Storage::allocate(nbytes, true)
    }

    /// A buffer whose bytes are not initialized: for kernel outputs that write every element
    /// before anything reads them. Skipping the zeroing lets freed memory be reused without
    /// page faults on large tensors.
    pub fn uninit(nbytes: usize) -> Storage {
        Storage::allocate(nbytes, false)
    }

    fn allocate(nbytes: usize, zeroed: bool) -> Storage {
        let layout = AllocLayout::from_size_align(nbytes.max(1), ALIGN).expect("allocation size");
        let ptr = if nbytes == 0 {
            ALIGN as *mut u8
        } else {
            let p = unsafe {
                if zeroed {
                    alloc_zeroed(layout)
                } else {
                    std::alloc::alloc(layout)
                }
            };
            if p.is_null() {
                // A panic (turned into a Python exception by the bindings), not an abort.
                panic!(
                    "DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes."
                );
            }
            p
        };
        let layout = AllocLayout::from_size_align(nbytes, ALIGN).expect("allocation size");
        Storage(Arc::new(Inner {
            ptr,
            nbytes,
            owner: Owner::Aligned(layout),
            device: Device::Cpu,
            readonly: false,
            version: AtomicU64::new(0),
        }))
    }

    pub fn from_vec<T: Element>(v: Vec<T>) -> Storage {
        let s = Storage::zeros(std::mem::size_of_val(v.as_slice()));
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), s.ptr() as *mut T, v.len()) };
        s
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
        Storage(Arc::new(Inner {
            ptr,
            nbytes,
            owner: Owner::Foreign(owner),
            device: Device::Cpu,
            readonly,
            version: AtomicU64::new(0),
        }))
    }

    pub fn ptr(&self) -> *mut u8 {
        self.0.ptr
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

    /// The buffer as a slice of `T`, `len` elements from element `offset`.
    ///
    /// # Safety
    /// The range must lie inside the buffer and nobody may write it meanwhile.
    pub unsafe fn slice<T>(&self, offset: usize, len: usize) -> &[T] {
        if len == 0 {
            return &[];
        }
        std::slice::from_raw_parts((self.0.ptr as *const T).add(offset), len)
    }

    /// # Safety
    /// The range must lie inside the buffer and nobody else may access it meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut<T>(&self, offset: usize, len: usize) -> &mut [T] {
        if len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut((self.0.ptr as *mut T).add(offset), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
