//! The block bookkeeping: every block by pointer, the ordered set of free blocks (best fit),
//! the segments, splitting on take and coalescing on release.

use std::collections::{BTreeSet, HashMap};

use super::block::{should_split, Block, BlockState, FreeKey, PoolKind};
use super::device::StreamId;

/// One cuMemAlloc'd region, owned by a pool and a stream for its whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub size: usize,
    pub pool: PoolKind,
    pub stream: StreamId,
}

/// All blocks and segments of one allocator.
#[derive(Default)]
pub(crate) struct Pools {
    pub blocks: HashMap<u64, Block>,
    pub free: BTreeSet<FreeKey>,
    pub segments: HashMap<u64, Segment>,
}

impl Pools {
    /// The smallest cached block of `pool` on `stream` holding `size` bytes (lowest address
    /// among equals).
    pub fn best_fit(&self, pool: PoolKind, stream: StreamId, size: usize) -> Option<u64> {
        self.free
            .range((pool, stream, size, 0)..=(pool, stream, usize::MAX, u64::MAX))
            .next()
            .map(|&(_, _, _, ptr)| ptr)
    }

    /// Records a fresh segment as one free block.
    pub fn add_segment(&mut self, base: u64, size: usize, pool: PoolKind, stream: StreamId) {
        self.segments.insert(base, Segment { size, pool, stream });
        let block = Block {
            ptr: base,
            size,
            requested: 0,
            stream,
            pool,
            prev: None,
            next: None,
            state: BlockState::Free,
            stream_uses: Vec::new(),
        };
        self.free.insert(block.free_key());
        self.blocks.insert(base, block);
    }

    /// Hands out the free block at `ptr` for `size` bytes (`requested` asked), splitting off
    /// the tail as a new free block when it is big enough. Returns the block's final size.
    pub fn take(&mut self, ptr: u64, size: usize, requested: usize) -> usize {
        let block = self.blocks.get_mut(&ptr).expect("take: unknown block");
        debug_assert_eq!(block.state, BlockState::Free);
        self.free.remove(&block.free_key());
        if should_split(block.pool, block.size, size) {
            let rest = Block {
                ptr: ptr + size as u64,
                size: block.size - size,
                requested: 0,
                prev: Some(ptr),
                next: block.next,
                state: BlockState::Free,
                stream_uses: Vec::new(),
                ..block.clone()
            };
            block.size = size;
            block.next = Some(rest.ptr);
            if let Some(n) = rest.next {
                self.blocks.get_mut(&n).expect("take: broken list").prev = Some(rest.ptr);
            }
            self.free.insert(rest.free_key());
            self.blocks.insert(rest.ptr, rest);
        }
        let block = self.blocks.get_mut(&ptr).expect("take: unknown block");
        block.state = BlockState::Allocated;
        block.requested = requested;
        block.size
    }

    /// Returns the block at `ptr` to its pool, merged with free neighbours of its segment.
    pub fn release(&mut self, ptr: u64) {
        let mut block = self.blocks.remove(&ptr).expect("release: unknown block");
        block.state = BlockState::Free;
        block.requested = 0;
        block.stream_uses.clear();
        if let Some(prev) = block.prev.and_then(|p| self.take_free(p)) {
            block.ptr = prev.ptr;
            block.size += prev.size;
            block.prev = prev.prev;
        }
        if let Some(next) = block.next.and_then(|n| self.take_free(n)) {
            block.size += next.size;
            block.next = next.next;
        }
        // The surviving neighbours now point at the merged block's start.
        if let Some(p) = block.prev {
            self.blocks.get_mut(&p).expect("release: broken list").next = Some(block.ptr);
        }
        if let Some(n) = block.next {
            self.blocks.get_mut(&n).expect("release: broken list").prev = Some(block.ptr);
        }
        self.free.insert(block.free_key());
        self.blocks.insert(block.ptr, block);
    }

    /// Removes and returns the block at `ptr` when it is free (a coalescing candidate).
    fn take_free(&mut self, ptr: u64) -> Option<Block> {
        if self.blocks.get(&ptr)?.state != BlockState::Free {
            return None;
        }
        let block = self.blocks.remove(&ptr)?;
        self.free.remove(&block.free_key());
        Some(block)
    }

    /// The bases of segments that are one free block: what empty_cache can give back.
    pub fn whole_free_segments(&self) -> Vec<u64> {
        self.free
            .iter()
            .map(|&(_, _, _, ptr)| &self.blocks[&ptr])
            .filter(|b| b.prev.is_none() && b.next.is_none())
            .map(|b| b.ptr)
            .collect()
    }

    /// Forgets a whole free segment; the caller cuMemFrees it.
    pub fn remove_segment(&mut self, base: u64) -> Segment {
        let block = self
            .blocks
            .remove(&base)
            .expect("remove_segment: unknown block");
        debug_assert!(block.prev.is_none() && block.next.is_none());
        self.free.remove(&block.free_key());
        self.segments
            .remove(&base)
            .expect("remove_segment: not a segment")
    }

    /// Checks the structure: each segment is tiled exactly by its linked blocks, no two free
    /// neighbours are left unmerged, the free set is exactly the free blocks, and segments
    /// do not overlap.
    #[cfg(test)]
    pub fn check(&self) -> Result<(), String> {
        let mut seen = 0;
        let mut bases: Vec<_> = self.segments.iter().collect();
        bases.sort_by_key(|(b, _)| **b);
        for w in bases.windows(2) {
            if *w[0].0 + w[0].1.size as u64 > *w[1].0 {
                return Err(format!("segments {:#x} and {:#x} overlap", w[0].0, w[1].0));
            }
        }
        for (&base, seg) in &bases {
            let (mut cur, mut prev, mut total) = (Some(base), None::<&Block>, 0usize);
            while let Some(p) = cur {
                let b = self.blocks.get(&p).ok_or(format!("missing block {p:#x}"))?;
                let expect_ptr = prev.map_or(base, |q| q.ptr + q.size as u64);
                if b.ptr != expect_ptr || b.prev != prev.map(|q| q.ptr) {
                    return Err(format!("block {p:#x} misplaced in segment {base:#x}"));
                }
                if (b.pool, b.stream) != (seg.pool, seg.stream) || b.size == 0 {
                    return Err(format!("block {p:#x} disagrees with its segment"));
                }
                let free = b.state == BlockState::Free;
                if free && prev.is_some_and(|q| q.state == BlockState::Free) {
                    return Err(format!("free neighbours not coalesced at {p:#x}"));
                }
                if free != self.free.contains(&b.free_key()) {
                    return Err(format!("free set out of sync at {p:#x}"));
                }
                total += b.size;
                seen += 1;
                prev = Some(b);
                cur = b.next;
            }
            if total != seg.size {
                return Err(format!(
                    "segment {base:#x}: blocks sum {total} != {}",
                    seg.size
                ));
            }
        }
        if seen != self.blocks.len() || self.free.len() > seen {
            return Err(format!("{} blocks, {seen} reachable", self.blocks.len()));
        }
        Ok(())
    }
}
