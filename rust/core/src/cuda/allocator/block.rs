//! Blocks (pieces of a device segment) and the size policy: rounding, which pool a request
//! belongs to, how big a new segment is, and when a cached block is split.

use super::device::StreamId;

/// Every block size is a multiple of this, so pointers stay 512-byte aligned.
pub(crate) const MIN_BLOCK: usize = 512;
/// Requests up to 1 MiB (after rounding) use the small pool.
pub(crate) const SMALL_SIZE: usize = 1 << 20;
/// Small-pool segments are 2 MiB: many small tensors share one cuMemAlloc.
pub(crate) const SMALL_BUFFER: usize = 2 << 20;
/// Large requests below 10 MiB get a 20 MiB segment (PyTorch's policy), so several of them
/// share a segment; from 10 MiB up the segment is the request rounded up to 2 MiB.
pub(crate) const MIN_LARGE_ALLOC: usize = 10 << 20;
pub(crate) const LARGE_BUFFER: usize = 20 << 20;
pub(crate) const ROUND_LARGE: usize = 2 << 20;

/// The two free-block pools; a block never moves between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PoolKind {
    /// Requests of at most 1 MiB, carved from 2 MiB segments.
    Small,
    /// Bigger requests.
    Large,
}

impl PoolKind {
    /// The pool that serves a request of `size` rounded bytes.
    pub fn of(size: usize) -> PoolKind {
        if size <= SMALL_SIZE {
            PoolKind::Small
        } else {
            PoolKind::Large
        }
    }
}

/// `nbytes` rounded up to a multiple of 512 (at least 512); `None` on overflow.
pub(crate) fn round_size(nbytes: usize) -> Option<usize> {
    nbytes.max(1).checked_next_multiple_of(MIN_BLOCK)
}

/// The size of the segment to cuMemAlloc for a request of `size` rounded bytes.
pub(crate) fn segment_size(size: usize) -> Option<usize> {
    if size <= SMALL_SIZE {
        Some(SMALL_BUFFER)
    } else if size < MIN_LARGE_ALLOC {
        Some(LARGE_BUFFER)
    } else {
        size.checked_next_multiple_of(ROUND_LARGE)
    }
}

/// Whether a free block of `block_size` serving `size` bytes is split. Large remainders of
/// 1 MiB or less are handed out with the block: a sliver that small could only serve the
/// small pool, which a large segment never does.
pub(crate) fn should_split(pool: PoolKind, block_size: usize, size: usize) -> bool {
    let remaining = block_size - size;
    match pool {
        PoolKind::Small => remaining >= MIN_BLOCK,
        PoolKind::Large => remaining > SMALL_SIZE,
    }
}

/// Where a block is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BlockState {
    /// Cached: in the free set, ready for a malloc on its stream.
    Free,
    /// Handed out by malloc.
    Allocated,
    /// Freed, but other streams recorded on it may still use it: reusable once all these
    /// event tokens are done.
    PendingFree(Vec<u64>),
}

/// A contiguous piece of a segment. Blocks of a segment form a doubly linked list by address
/// (`prev`/`next` hold the neighbours' pointers), which is what coalescing walks.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub ptr: u64,
    pub size: usize,
    /// The bytes the caller asked for (0 while free), for `requested_bytes`.
    pub requested: usize,
    /// The stream whose pool owns the block.
    pub stream: StreamId,
    pub pool: PoolKind,
    pub prev: Option<u64>,
    pub next: Option<u64>,
    pub state: BlockState,
    /// Other streams that used the block (`record_stream`); reset when it is freed.
    pub stream_uses: Vec<StreamId>,
}

impl Block {
    /// The key of this block in the free set: best fit is the first key at or above
    /// `(pool, stream, size, 0)` that is still on the same pool and stream.
    pub fn free_key(&self) -> FreeKey {
        (self.pool, self.stream, self.size, self.ptr)
    }
}

/// `(pool, stream, size, ptr)`: ordered so a range query finds the smallest fitting block.
pub(crate) type FreeKey = (PoolKind, StreamId, usize, u64);
