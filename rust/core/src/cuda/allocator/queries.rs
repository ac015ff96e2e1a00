//! Reading and resetting the counters: `torch.cuda.memory_stats` and its shortcuts.

use super::{CachingAllocator, DeviceMemory, Stats};

impl<D: DeviceMemory> CachingAllocator<D> {
    /// A snapshot of the counters.
    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    /// The counters as `torch.cuda.memory_stats()` names them, sorted by key.
    pub fn memory_stats(&self) -> Vec<(String, i64)> {
        self.lock().stats.to_pairs()
    }

    /// Peaks back to current values (`torch.cuda.reset_peak_memory_stats`).
    pub fn reset_peak_stats(&self) {
        self.lock().stats.reset_peaks();
    }

    /// Running totals and counts to zero (`torch.cuda.reset_accumulated_memory_stats`).
    pub fn reset_accumulated_stats(&self) {
        self.lock().stats.reset_accumulated();
    }

    /// Bytes in live blocks (`torch.cuda.memory_allocated`).
    pub fn memory_allocated(&self) -> usize {
        self.lock().stats.allocated_bytes.all.current as usize
    }

    /// Peak of `memory_allocated` since the last reset (`torch.cuda.max_memory_allocated`).
    pub fn max_memory_allocated(&self) -> usize {
        self.lock().stats.allocated_bytes.all.peak as usize
    }

    /// Bytes held from the device (`torch.cuda.memory_reserved`).
    pub fn memory_reserved(&self) -> usize {
        self.lock().stats.reserved_bytes.all.current as usize
    }

    /// Peak of `memory_reserved` since the last reset (`torch.cuda.max_memory_reserved`).
    pub fn max_memory_reserved(&self) -> usize {
        self.lock().stats.reserved_bytes.all.peak as usize
    }
}
