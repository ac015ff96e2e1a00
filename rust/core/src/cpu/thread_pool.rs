//! The one thread pool every parallel kernel runs on. It is ours rather than rayon's global
//! pool so that `set_num_threads` can resize it and a forked child (a DataLoader worker, a
//! Hogwild trainer) can build a fresh one: the parent's pool threads do not exist there.

use rayon::ThreadPool;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, RwLock};
use std::time::{Duration, Instant};

static POOL: RwLock<Option<Arc<ThreadPool>>> = RwLock::new(None);
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static FORKED: AtomicBool = AtomicBool::new(false);
static ATFORK: Once = Once::new();

#[cfg(unix)]
extern "C" fn mark_forked_child() {
    // Runs in the child right after fork(): only atomic stores are allowed here.
    FORKED.store(true, Ordering::SeqCst);
    WAITING.store(0, Ordering::SeqCst);
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

/// Runs `task(i)` for every `i` in `0..count`: on this thread and on up to `helpers` threads
/// of the pool, each claiming the next index as it frees up. The calling thread works from
/// the start and waits only for tasks already claimed, never for a pool thread to wake up
/// (on a VM that can take longer than a whole small matrix product).
pub fn for_each_claimed<F: Fn(usize) + Sync>(count: usize, helpers: usize, task: F) {
    if count == 0 {
        return;
    }
    let helpers = helpers.min(count - 1);
    if helpers == 0 {
        return (0..count).for_each(task);
    }
    let task: &(dyn Fn(usize) + Sync) = &task;
    // SAFETY: only the lifetime is erased. `Claims::work` calls `task` only for an index it
    // claimed, claims succeed only until all are taken or `close_and_wait` ran, and this
    // function returns (or unwinds) only after every claimed task has finished: a helper
    // that starts later finds nothing to claim and never touches `task`.
    let task: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(task) };
    let claims = Arc::new(Claims {
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        count,
        task,
        panic: Mutex::new(None),
    });
    let pool = pool();
    for _ in 0..helpers {
        let c = claims.clone();
        pool.spawn(move || help(c));
    }
    claims.work();
    claims.close_and_wait();
    let panic = claims
        .panic
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(panic) = panic {
        std::panic::resume_unwind(panic);
    }
}

/// How long a helper stays awake after its tasks, running whatever the pool is given. Waking
/// a sleeping pool thread takes tens of microseconds (more on an idle VM), longer than the
/// gaps between the matrix products of a training step; a helper that waits a little is
/// there for the next one, as OpenMP runtimes do.
const HOT_WAIT: Duration = Duration::from_micros(300);

/// Helpers now staying awake; at most one per thread beyond the caller's.
static WAITING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static IN_HOT_WAIT: Cell<bool> = const { Cell::new(false) };
}

/// A helper's job: claim tasks, then stay awake for a while, running the pool's jobs (the
/// next product's helper job among them) as they come.
fn help(claims: Arc<Claims>) {
    claims.work();
    drop(claims);
    if IN_HOT_WAIT.get() {
        // Run from inside a waiting helper, which goes on waiting.
        return;
    }
    if WAITING.fetch_add(1, Ordering::AcqRel) >= num_threads().saturating_sub(1) {
        WAITING.fetch_sub(1, Ordering::AcqRel);
        return;
    }
    IN_HOT_WAIT.set(true);
    let mut since = Instant::now();
    while since.elapsed() < HOT_WAIT {
        // Looks for work about every microsecond, and at the clock less often still.
        for _ in 0..32 {
            if let Some(rayon::Yield::Executed) = rayon::yield_now() {
                since = Instant::now();
            } else {
                for _ in 0..8 {
                    std::hint::spin_loop();
                }
            }
        }
    }
    IN_HOT_WAIT.set(false);
    WAITING.fetch_sub(1, Ordering::AcqRel);
}

/// The shared state of `for_each_claimed`.
struct Claims {
    next: AtomicUsize,
    done: AtomicUsize,
    count: usize,
    task: *const (dyn Fn(usize) + Sync),
    /// The first panic of a task, re-raised on the calling thread.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `task` is Sync and is only called under the claim protocol described in
// `for_each_claimed`; the counters are atomics.
unsafe impl Send for Claims {}
unsafe impl Sync for Claims {}

impl Claims {
    /// Runs claimed tasks until none are left (or one panics: its panic is kept for the
    /// caller, and is stored before the task counts as done, so the caller sees it).
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            if i >= self.count {
                return;
            }
            // SAFETY: `i` is claimed, so the caller is still waiting and `task` is alive.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
                (*self.task)(i)
            }));
            let failed = r.is_err();
            if let Err(p) = r {
                let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(p);
            }
            self.done.fetch_add(1, Ordering::Release);
            if failed {
                return;
            }
        }
    }

    /// Stops further claims, then waits until every claimed task has finished.
    fn close_and_wait(&self) {
        let claimed = self.next.swap(self.count, Ordering::AcqRel).min(self.count);
        let mut spins = 0u32;
        while self.done.load(Ordering::Acquire) < claimed {
            if spins < 20_000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
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

    #[test]
    fn claimed_tasks_each_run_once() {
        for (count, helpers) in [(0, 3), (1, 3), (5, 0), (100, 1), (1000, 3)] {
            let hits: Vec<AtomicUsize> = (0..count).map(|_| AtomicUsize::new(0)).collect();
            for_each_claimed(count, helpers, |i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn back_to_back_calls_reuse_the_waiting_helper() {
        // Each call's helper job may run inside the previous call's waiting helper.
        for round in 0..300 {
            let hits: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(0)).collect();
            for_each_claimed(8, 1, |i| {
                hits[i].fetch_add(round + 1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == round + 1));
        }
    }

    #[test]
    fn a_panicking_task_reaches_the_caller_after_the_others_finish() {
        let finished = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(|| {
            for_each_claimed(64, 2, |i| {
                if i == 5 {
                    panic!("task 5");
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
                finished.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert!(r.is_err());
        // Nothing still runs: the count no longer moves.
        let seen = finished.load(Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(finished.load(Ordering::Relaxed), seen);
    }
}
