//! The one thread pool every parallel kernel runs on. It is ours rather than rayon's global
//! pool so that `set_num_threads` can resize it and a forked child (a DataLoader worker, a
//! Hogwild trainer) can build a fresh one: the parent's pool threads do not exist there.

use rayon::ThreadPool;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once, RwLock};

static POOL: RwLock<Option<Arc<ThreadPool>>> = RwLock::new(None);
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static FORKED: AtomicBool = AtomicBool::new(false);
static ATFORK: Once = Once::new();

#[cfg(unix)]
extern "C" fn mark_forked_child() {
    // Runs in the child right after fork(): only an atomic store is allowed here.
    FORKED.store(true, Ordering::SeqCst);
}

fn install_fork_handler() {
    #[cfg(unix)]
    ATFORK.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(mark_forked_child));
    });
}

/// Threads the kernels use: `set_num_threads`, else `RAYON_NUM_THREADS`, else every core.
pub fn num_threads() -> usize {
    match REQUESTED.load(Ordering::Relaxed) {
        0 => {
            // Asked once: kernels call this on every parallel decision.
            let n = std::env::var("RAYON_NUM_THREADS")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&n: &usize| n > 0)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let _ = REQUESTED.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// Resizes the pool; the next parallel kernel starts it with `n` threads.
pub fn set_num_threads(n: usize) {
    REQUESTED.store(n.max(1), Ordering::Relaxed);
    let old = POOL.write().unwrap_or_else(|e| e.into_inner()).take();
    drop(old);
}

fn pool() -> Arc<ThreadPool> {
    install_fork_handler();
    if FORKED.swap(false, Ordering::SeqCst) {
        // The copy of the parent's pool has no threads behind it; dropping it would wait on
        // them, so it is leaked and replaced.
        let stale = POOL.write().unwrap_or_else(|e| e.into_inner()).take();
        std::mem::forget(stale);
    }
    if let Some(p) = POOL.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return p.clone();
    }
    let mut slot = POOL.write().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert_with(|| {
        Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(num_threads())
                .thread_name(|i| format!("ferrotorch-{i}"))
                .build()
                .expect("could not start the kernel thread pool"),
        )
    })
    .clone()
}

/// `run(f)` when `parallel`, else `f()` right here. Only for regions that are serial in the
/// second case: a rayon iterator outside `run` would start rayon's global pool.
pub fn run_if<R: Send>(parallel: bool, f: impl FnOnce() -> R + Send) -> R {
    if parallel {
        run(f)
    } else {
        f()
    }
}

/// Runs a parallel region (rayon iterators, parallel gemm) on the kernel pool.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        // Already on a pool thread: nested regions share it.
        return f();
    }
    pool().install(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn runs_on_a_resizable_pool() {
        let s: u64 = run(|| (0..100_000u64).into_par_iter().sum());
        assert_eq!(s, 4_999_950_000);
        set_num_threads(2);
        assert_eq!(run(rayon::current_num_threads), 2);
    }
}
