//! The allocator's counters, named as `torch.cuda.memory_stats()` names them.

use super::block::PoolKind;

/// One counter: its current value, the peak since the last reset, and the running totals
/// of increases and decreases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    pub current: i64,
    pub peak: i64,
    pub allocated: i64,
    pub freed: i64,
}

impl Stat {
    fn increase(&mut self, amount: i64) {
        self.current += amount;
        self.peak = self.peak.max(self.current);
        self.allocated += amount;
    }

    fn decrease(&mut self, amount: i64) {
        self.current -= amount;
        self.freed += amount;
    }
}

/// A counter for all blocks and for each pool (`.all`, `.small_pool`, `.large_pool`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatSet {
    pub all: Stat,
    pub small_pool: Stat,
    pub large_pool: Stat,
}

impl StatSet {
    pub(crate) fn increase(&mut self, pool: PoolKind, amount: usize) {
        self.all.increase(amount as i64);
        self.pool_mut(pool).increase(amount as i64);
    }

    pub(crate) fn decrease(&mut self, pool: PoolKind, amount: usize) {
        self.all.decrease(amount as i64);
        self.pool_mut(pool).decrease(amount as i64);
    }

    fn pool_mut(&mut self, pool: PoolKind) -> &mut Stat {
        match pool {
            PoolKind::Small => &mut self.small_pool,
            PoolKind::Large => &mut self.large_pool,
        }
    }

    fn each_mut(&mut self) -> [&mut Stat; 3] {
        [&mut self.all, &mut self.small_pool, &mut self.large_pool]
    }
}

/// Everything the allocator counts. Bytes are block sizes (rounded), except
/// `requested_bytes`, which counts what callers asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Live allocations (malloc'd, not yet freed).
    pub allocation: StatSet,
    /// Segments held from the device.
    pub segment: StatSet,
    /// Blocks in use: allocated, or freed but still awaiting another stream's events.
    pub active: StatSet,
    pub allocated_bytes: StatSet,
    pub reserved_bytes: StatSet,
    pub active_bytes: StatSet,
    pub requested_bytes: StatSet,
    /// Times a failed cuMemAlloc made the allocator release its cache and try again.
    pub num_alloc_retries: i64,
    /// Allocations that failed even after the retry.
    pub num_ooms: i64,
    pub num_device_alloc: i64,
    pub num_device_free: i64,
}

impl Stats {
    /// The counters with their `memory_stats` names and the name of each.
    fn sets(&self) -> [(&'static str, &StatSet); 7] {
        [
            ("active", &self.active),
            ("active_bytes", &self.active_bytes),
            ("allocated_bytes", &self.allocated_bytes),
            ("allocation", &self.allocation),
            ("requested_bytes", &self.requested_bytes),
            ("reserved_bytes", &self.reserved_bytes),
            ("segment", &self.segment),
        ]
    }

    /// Peaks back to the current values (`torch.cuda.reset_peak_memory_stats`).
    pub(crate) fn reset_peaks(&mut self) {
        for set in self.sets_mut() {
            for s in set.each_mut() {
                s.peak = s.current;
            }
        }
    }

    /// Running totals and event counts to zero (`torch.cuda.reset_accumulated_memory_stats`).
    pub(crate) fn reset_accumulated(&mut self) {
        for set in self.sets_mut() {
            for s in set.each_mut() {
                s.allocated = 0;
                s.freed = 0;
            }
        }
        self.num_alloc_retries = 0;
        self.num_ooms = 0;
        self.num_device_alloc = 0;
        self.num_device_free = 0;
    }

    fn sets_mut(&mut self) -> [&mut StatSet; 7] {
        [
            &mut self.active,
            &mut self.active_bytes,
            &mut self.allocated_bytes,
            &mut self.allocation,
            &mut self.requested_bytes,
            &mut self.reserved_bytes,
            &mut self.segment,
        ]
    }

    /// `(key, value)` pairs with PyTorch's keys, sorted by key as Python's
    /// `memory_stats()` returns them, e.g. `("allocated_bytes.all.current", 1024)`.
    pub fn to_pairs(&self) -> Vec<(String, i64)> {
        let mut out = Vec::with_capacity(7 * 12 + 4);
        for (name, set) in self.sets() {
            for (pool, s) in [
                ("all", set.all),
                ("large_pool", set.large_pool),
                ("small_pool", set.small_pool),
            ] {
                for (field, v) in [
                    ("allocated", s.allocated),
                    ("current", s.current),
                    ("freed", s.freed),
                    ("peak", s.peak),
                ] {
                    out.push((format!("{name}.{pool}.{field}"), v));
                }
            }
        }
        out.push(("num_alloc_retries".into(), self.num_alloc_retries));
        out.push(("num_device_alloc".into(), self.num_device_alloc));
        out.push(("num_device_free".into(), self.num_device_free));
        out.push(("num_ooms".into(), self.num_ooms));
        out.sort();
        out
    }
}

/// Bytes as PyTorch's messages print them: "512 bytes", "1.50 KiB", "20.00 MiB", "2.00 GiB".
pub fn format_size(n: usize) -> String {
    const KIB: f64 = 1024.0;
    let x = n as f64;
    if n <= 1024 {
        format!("{n} bytes")
    } else if n <= 1 << 20 {
        format!("{:.2} KiB", x / KIB)
    } else if n <= 1 << 30 {
        format!("{:.2} MiB", x / (KIB * KIB))
    } else {
        format!("{:.2} GiB", x / (KIB * KIB * KIB))
    }
}
