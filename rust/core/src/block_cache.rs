//! A few freed large buffers kept for reuse. Buffers above glibc's mmap threshold (32 MiB)
//! go back to the OS when freed, so each new one is page-faulted and zeroed by the kernel
//! afresh: for a 10M-element op that costs more than the arithmetic. Smaller buffers are
//! already recycled by the heap.

use std::alloc::Layout;
use std::sync::Mutex;

/// Smallest buffer kept (the mmap threshold set in `storage::tune_allocator`).
pub(crate) const MIN_BYTES: usize = 32 << 20;
/// At most this much memory is held by the cache, in at most `MAX_BLOCKS` buffers.
pub(crate) const MAX_BYTES: usize = 256 << 20;
const MAX_BLOCKS: usize = 4;

struct Block {
    ptr: usize,
    layout: Layout,
}

static CACHE: Mutex<Vec<Block>> = Mutex::new(Vec::new());

fn cache() -> std::sync::MutexGuard<'static, Vec<Block>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A cached buffer of at least `nbytes` (and at most an eighth more, so a small request does
/// not pin a much larger buffer), with the layout it must be freed with.
/// The size check is inlined into every allocation; only large requests reach the cache.
#[inline]
pub(crate) fn take(nbytes: usize) -> Option<(*mut u8, Layout)> {
    if nbytes < MIN_BYTES {
        return None;
    }
    take_cached(nbytes)
}

fn take_cached(nbytes: usize) -> Option<(*mut u8, Layout)> {
    let mut blocks = cache();
    let fits = |b: &Block| b.layout.size() >= nbytes && b.layout.size() - nbytes <= nbytes / 8;
    let i = blocks.iter().position(fits)?;
    let b = blocks.swap_remove(i);
    Some((b.ptr as *mut u8, b.layout))
}

/// Keeps a freed buffer if it is large and the cache has room (evicting the oldest buffers
/// to make it); returns false when the caller must free it.
#[inline]
pub(crate) fn give(ptr: *mut u8, layout: Layout) -> bool {
    if !(MIN_BYTES..=MAX_BYTES).contains(&layout.size()) {
        return false;
    }
    give_cached(ptr, layout)
}

fn give_cached(ptr: *mut u8, layout: Layout) -> bool {
    let size = layout.size();
    let mut blocks = cache();
    while blocks.len() >= MAX_BLOCKS
        || blocks.iter().map(|b| b.layout.size()).sum::<usize>() + size > MAX_BYTES
    {
        let old = blocks.remove(0);
        // SAFETY: the block came from `std::alloc::alloc` with this layout and is unused.
        unsafe { std::alloc::dealloc(old.ptr as *mut u8, old.layout) };
    }
    blocks.push(Block {
        ptr: ptr as usize,
        layout,
    });
    true
}

/// Bytes held by the cache now.
pub fn cached_bytes() -> usize {
    cache().iter().map(|b| b.layout.size()).sum()
}

/// Frees every cached buffer (as `torch.cuda.empty_cache` does for device memory).
pub fn empty() {
    for b in cache().drain(..) {
        // SAFETY: as in `give`.
        unsafe { std::alloc::dealloc(b.ptr as *mut u8, b.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_close_sizes_and_bounds_what_it_holds() {
        // A size no other test frees, since tests share the cache.
        let layout = Layout::from_size_align(200 << 20, 64).unwrap();
        let p = unsafe { std::alloc::alloc(layout) };
        assert!(give(p, layout));
        assert!(cached_bytes() >= 200 << 20);
        // Much smaller or any larger request does not take it.
        assert!(take(150 << 20).is_none());
        assert!(take(201 << 20).is_none());
        let (q, l) = take(190 << 20).unwrap();
        assert_eq!((q, l), (p, layout));
        // Small buffers are not kept; the cache never holds more than its bound.
        assert!(!give(q, Layout::from_size_align(1 << 20, 64).unwrap()));
        assert!(give(q, l));
        for _ in 0..4 {
            let l = Layout::from_size_align(100 << 20, 64).unwrap();
            assert!(give(unsafe { std::alloc::alloc(l) }, l));
            assert!(cached_bytes() <= MAX_BYTES);
        }
        assert!(take(190 << 20).is_none(), "evicted as newer buffers came");
    }
}
