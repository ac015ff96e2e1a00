//! The CUDA caching allocator's bookkeeping (paper §5.3): device memory is taken from the
//! driver in segments and cached after tensors die, so steady-state training never calls
//! cuMemAlloc/cuMemFree (both synchronize the device). Requests are rounded to 512 bytes and
//! served best-fit from per-stream pools (small: <= 1 MiB from 2 MiB segments; large:
//! the rest), splitting cached blocks and merging freed neighbours. A block is tied to the
//! stream it was allocated on, so reuse on that stream is ordered without synchronization;
//! `record_stream` defers reuse until other streams' work on the block has finished.
//!
//! The driver sits behind [`DeviceMemory`], so this module compiles and is tested in every
//! build against a fake device.

mod block;
mod device;
mod pool;
mod queries;
mod stats;
#[cfg(test)]
mod tests;

use std::sync::{Mutex, MutexGuard};

pub use block::PoolKind;
pub use device::{DeviceMemory, StreamId};
pub use stats::{format_size, Stat, StatSet, Stats};

use crate::{Error, Result};
use block::{round_size, segment_size, BlockState};
use pool::Pools;

/// What `malloc` hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// The device pointer; 0 for a 0-byte request (no block behind it, free(0) is a no-op).
    pub ptr: u64,
    /// The block's size: the request rounded up to 512 bytes, or a little more when the
    /// rest of a cached large block was too small (<= 1 MiB) to split off.
    pub size: usize,
    /// The bytes asked for.
    pub requested: usize,
    /// The stream whose pool the block belongs to.
    pub stream: StreamId,
}

/// A caching allocator over one device. Shared by threads: the state sits behind a mutex.
pub struct CachingAllocator<D: DeviceMemory> {
    device: D,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    pools: Pools,
    /// Freed blocks waiting on other streams' events, by pointer.
    pending: Vec<u64>,
    stats: Stats,
}

impl<D: DeviceMemory> CachingAllocator<D> {
    /// An allocator holding no device memory yet.
    pub fn new(device: D) -> Self {
        CachingAllocator {
            device,
            state: Mutex::new(State::default()),
        }
    }

    /// The device this allocator draws on.
    pub fn device(&self) -> &D {
        &self.device
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Only an internal bug's panic can poison the lock; carrying on beats failing every
        // later free, which would leak all device memory.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `nbytes` on `stream`: a cached block when one fits, else a new segment; on a failed
    /// cuMemAlloc the cache is released and the call retried once before `DeviceOutOfMemory`.
    pub fn malloc(&self, nbytes: usize, stream: StreamId) -> Result<Allocation> {
        if nbytes == 0 {
            return Ok(Allocation {
                ptr: 0,
                size: 0,
                requested: 0,
                stream,
            });
        }
        let mut st = self.lock();
        self.process_events(&mut st);
        let Some(size) = round_size(nbytes) else {
            return Err(self.out_of_memory(&mut st, nbytes));
        };
        let pool = PoolKind::of(size);
        let ptr = match st.pools.best_fit(pool, stream, size) {
            Some(ptr) => ptr,
            None => self.new_segment(&mut st, nbytes, size, pool, stream)?,
        };
        let size = st.pools.take(ptr, size, nbytes);
        let s = &mut st.stats;
        s.allocation.increase(pool, 1);
        s.active.increase(pool, 1);
        s.allocated_bytes.increase(pool, size);
        s.active_bytes.increase(pool, size);
        s.requested_bytes.increase(pool, nbytes);
        Ok(Allocation {
            ptr,
            size,
            requested: nbytes,
            stream,
        })
    }

    /// cuMemAllocs a segment for a `size`-byte request; returns its base.
    fn new_segment(
        &self,
        st: &mut State,
        nbytes: usize,
        size: usize,
        pool: PoolKind,
        stream: StreamId,
    ) -> Result<u64> {
        let Some(seg) = segment_size(size) else {
            return Err(self.out_of_memory(st, nbytes));
        };
        let base = match self.device.raw_alloc(seg) {
            Some(p) => p,
            None => {
                // Cached segments of other sizes, pools or streams may be what fills the device.
                st.stats.num_alloc_retries += 1;
                self.release_cached(st);
                match self.device.raw_alloc(seg) {
                    Some(p) => p,
                    None => return Err(self.out_of_memory(st, nbytes)),
                }
            }
        };
        debug_assert_ne!(base, 0, "raw_alloc returned the null pointer");
        st.pools.add_segment(base, seg, pool, stream);
        st.stats.segment.increase(pool, 1);
        st.stats.reserved_bytes.increase(pool, seg);
        st.stats.num_device_alloc += 1;
        Ok(base)
    }

    /// Counts the failure and words it as PyTorch does, minus the capacity we cannot know.
    fn out_of_memory(&self, st: &mut State, nbytes: usize) -> Error {
        st.stats.num_ooms += 1;
        let allocated = st.stats.allocated_bytes.all.current as usize;
        let reserved = st.stats.reserved_bytes.all.current as usize;
        let asked = round_size(nbytes).unwrap_or(nbytes);
        Error::DeviceOutOfMemory(format!(
            "Tried to allocate {}. Of the allocated memory {} is allocated by the allocator, \
             and {} is reserved by the allocator but unallocated (cached in partly used \
             segments or in other streams' pools). The device could not provide the memory \
             even after the allocator released its cache.",
            format_size(asked),
            format_size(allocated),
            format_size(reserved.saturating_sub(allocated)),
        ))
    }

    /// Returns a block from `malloc`. Errors, changing nothing, for a pointer this allocator
    /// did not hand out or that is already freed. `free(0)` is a no-op.
    pub fn free(&self, ptr: u64) -> Result<()> {
        if ptr == 0 {
            return Ok(());
        }
        let mut st = self.lock();
        let st = &mut *st;
        let block = match st.pools.blocks.get_mut(&ptr) {
            Some(b) if b.state == BlockState::Allocated => b,
            _ => {
                return Err(Error::runtime(format!(
                    "invalid device pointer: {ptr:#x} (not allocated by the caching \
                     allocator, or already freed)"
                )))
            }
        };
        let (pool, size) = (block.pool, block.size);
        st.stats.allocation.decrease(pool, 1);
        st.stats.allocated_bytes.decrease(pool, size);
        st.stats.requested_bytes.decrease(pool, block.requested);
        let uses = std::mem::take(&mut block.stream_uses);
        if uses.is_empty() {
            Self::release_block(st, ptr);
        } else {
            // Reusable only after the other streams' queued work on it has run.
            let tokens = uses.iter().map(|&s| self.device.record_event(s)).collect();
            block.state = BlockState::PendingFree(tokens);
            st.pending.push(ptr);
        }
        Ok(())
    }

    /// The block at `ptr` back to its pool; it stops counting as active.
    fn release_block(st: &mut State, ptr: u64) {
        let b = &st.pools.blocks[&ptr];
        let (pool, size) = (b.pool, b.size);
        st.stats.active.decrease(pool, 1);
        st.stats.active_bytes.decrease(pool, size);
        st.pools.release(ptr);
    }

    /// Marks the live block at `ptr` as used by `stream` (`Tensor.record_stream`). Pointers
    /// the allocator does not know (or 0) are ignored, as PyTorch ignores memory not its own.
    pub fn record_stream(&self, ptr: u64, stream: StreamId) {
        let mut st = self.lock();
        if let Some(b) = st.pools.blocks.get_mut(&ptr) {
            let other = b.stream != stream && !b.stream_uses.contains(&stream);
            if b.state == BlockState::Allocated && other {
                b.stream_uses.push(stream);
            }
        }
    }

    /// Returns pending frees whose events have all completed to their pools.
    fn process_events(&self, st: &mut State) {
        for ptr in std::mem::take(&mut st.pending) {
            let block = st
                .pools
                .blocks
                .get_mut(&ptr)
                .expect("pending block vanished");
            let BlockState::PendingFree(tokens) = &mut block.state else {
                unreachable!("pending block not pending")
            };
            tokens.retain(|&t| {
                let done = self.device.event_done(t);
                if done {
                    self.device.destroy_event(t);
                }
                !done
            });
            if tokens.is_empty() {
                Self::release_block(st, ptr);
            } else {
                st.pending.push(ptr);
            }
        }
    }

    /// cuMemFrees every cached segment that is wholly free.
    fn release_cached(&self, st: &mut State) {
        for base in st.pools.whole_free_segments() {
            let seg = st.pools.remove_segment(base);
            self.device.raw_free(base);
            st.stats.segment.decrease(seg.pool, 1);
            st.stats.reserved_bytes.decrease(seg.pool, seg.size);
            st.stats.num_device_free += 1;
        }
    }

    /// Gives every wholly free cached segment back to the device
    /// (`torch.cuda.empty_cache`). Segments holding a live or pending block stay.
    pub fn empty_cache(&self) {
        let mut st = self.lock();
        self.process_events(&mut st);
        self.release_cached(&mut st);
    }
}

impl<D: DeviceMemory> Drop for CachingAllocator<D> {
    /// Gives the cache back and drops outstanding events; segments with live blocks stay
    /// with the device (their owners outlived the allocator: only at process exit).
    fn drop(&mut self) {
        let mut st = std::mem::take(self.state.get_mut().unwrap_or_else(|e| e.into_inner()));
        for ptr in std::mem::take(&mut st.pending) {
            if let BlockState::PendingFree(tokens) = &st.pools.blocks[&ptr].state {
                tokens.iter().for_each(|&t| self.device.destroy_event(t));
            }
        }
        self.release_cached(&mut st);
    }
}
