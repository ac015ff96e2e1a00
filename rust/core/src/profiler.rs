//! The op profiler behind `torch.profiler`: while on, each op entry (and each backward node the
//! engine runs, and each user `record_function` range) records its name, start, duration,
//! thread and, if asked, its input shapes. While off, an op pays one relaxed atomic load.

use crate::{Error, Result, Tensor};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static ON: AtomicBool = AtomicBool::new(false);
static SHAPES: AtomicBool = AtomicBool::new(false);
static EVENTS: Mutex<Vec<Event>> = Mutex::new(Vec::new());
static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD: u64 = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
}

/// One timed range.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: Cow<'static, str>,
    /// Nanoseconds since the process's first profiler use.
    pub start_ns: u64,
    pub duration_ns: u64,
    /// A small per-thread number (1 for the first thread that recorded anything).
    pub thread: u64,
    /// The input shapes, when the profiler was started with `record_shapes`.
    pub shapes: Option<Vec<Vec<usize>>>,
    /// A range the user named (`record_function`) rather than an op.
    pub user: bool,
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds since the profiler's epoch.
pub fn now_ns() -> u64 {
    epoch().elapsed().as_nanos() as u64
}

fn events() -> std::sync::MutexGuard<'static, Vec<Event>> {
    EVENTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether ops are being recorded: the one check an op entry makes.
#[inline]
pub fn is_enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Starts recording; an error if a profiler is already running.
pub fn start(record_shapes: bool) -> Result<()> {
    epoch();
    if ON.swap(true, Ordering::AcqRel) {
        return Err(Error::runtime(
            "Profiler is already enabled: nested profiling is not supported",
        ));
    }
    SHAPES.store(record_shapes, Ordering::Relaxed);
    events().clear();
    Ok(())
}

/// Stops recording and hands back everything recorded since `start`.
pub fn stop() -> Vec<Event> {
    ON.store(false, Ordering::Release);
    std::mem::take(&mut *events())
}

/// Takes the events recorded so far, leaving the profiler running (a schedule's cycle end).
pub fn drain() -> Vec<Event> {
    std::mem::take(&mut *events())
}

pub fn records_shapes() -> bool {
    SHAPES.load(Ordering::Relaxed)
}

/// An open range: records itself when finished or dropped.
pub struct Scope {
    name: Cow<'static, str>,
    start_ns: u64,
    shapes: Option<Vec<Vec<usize>>>,
    user: bool,
    done: bool,
}

impl Scope {
    /// Opens a range whose shapes are given by the caller (ops named outside Rust).
    pub fn open(name: impl Into<Cow<'static, str>>, shapes: Option<Vec<Vec<usize>>>) -> Scope {
        Scope {
            name: name.into(),
            start_ns: now_ns(),
            shapes,
            user: false,
            done: false,
        }
    }

    /// Opens a range the user named (`record_function`).
    pub fn annotation(name: impl Into<Cow<'static, str>>) -> Scope {
        let mut scope = Scope::open(name, None);
        scope.user = true;
        scope
    }

    /// Closes the range now.
    pub fn finish(mut self) {
        self.record();
    }

    fn record(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        let end = now_ns();
        // A range that outlives the profiler (stopped inside it) is dropped, not recorded.
        if !is_enabled() {
            return;
        }
        let event = Event {
            name: std::mem::take(&mut self.name),
            start_ns: self.start_ns,
            duration_ns: end.saturating_sub(self.start_ns),
            thread: THREAD.with(|t| *t),
            shapes: self.shapes.take(),
            user: self.user,
        };
        events().push(event);
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        self.record();
    }
}

/// Runs the op `name` over `inputs` as `f`, timed while the profiler is on. While it is off
/// this is one relaxed atomic load and a branch before `f()`: nothing with a destructor lives
/// on the fast path.
#[inline(always)]
pub fn run<T>(name: &'static str, inputs: &[&Tensor], f: impl FnOnce() -> T) -> T {
    if !is_enabled() {
        return f();
    }
    run_recorded(Cow::Borrowed(name), inputs, f)
}

/// [`run`] with a name built only when the profiler is on.
#[inline(always)]
pub fn run_named<T>(name: impl FnOnce() -> String, inputs: &[&Tensor], f: impl FnOnce() -> T) -> T {
    if !is_enabled() {
        return f();
    }
    run_recorded(Cow::Owned(name()), inputs, f)
}

/// [`run`] for ops over a list of tensors (`cat`, `stack`).
#[inline(always)]
pub fn run_list<T>(name: &'static str, inputs: &[Tensor], f: impl FnOnce() -> T) -> T {
    if !is_enabled() {
        return f();
    }
    run_recorded(Cow::Borrowed(name), &inputs.iter().collect::<Vec<_>>(), f)
}

#[cold]
#[inline(never)]
fn run_recorded<T>(name: Cow<'static, str>, inputs: &[&Tensor], f: impl FnOnce() -> T) -> T {
    let _range = open_for(name, inputs);
    f()
}

/// A range for code that returns early with `?` (the backward engine): None while off.
#[inline]
pub fn scope_with(name: impl FnOnce() -> String, inputs: &[&Tensor]) -> Option<Scope> {
    if !is_enabled() {
        return None;
    }
    Some(open_for(Cow::Owned(name()), inputs))
}

#[cold]
fn open_for(name: Cow<'static, str>, inputs: &[&Tensor]) -> Scope {
    let shapes = records_shapes().then(|| inputs.iter().map(|t| t.shape().to_vec()).collect());
    Scope::open(name, shapes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_nested_ranges_only_while_on() {
        assert!(scope_with(|| "aten::add".into(), &[]).is_none());
        start(true).unwrap();
        assert!(start(false).is_err(), "a second profiler is refused");
        let x = Tensor::zeros(&[2, 3], crate::DType::F32).unwrap();
        let _outer = scope_with(|| "outer".to_string(), &[]);
        let product = run("aten::mul", &[&x, &x], || 6);
        drop(_outer);
        assert_eq!(product, 6);
        let me = THREAD.with(|t| *t);
        // Other tests run beside this one; keep this thread's ranges.
        let events: Vec<Event> = stop().into_iter().filter(|e| e.thread == me).collect();
        assert_eq!(run("aten::add", &[], || 1), 1);
        let names: Vec<&str> = events.iter().map(|e| e.name.as_ref()).collect();
        assert_eq!(names, ["aten::mul", "outer"]);
        assert_eq!(events[0].shapes, Some(vec![vec![2, 3], vec![2, 3]]));
        let (inner, outer) = (&events[0], &events[1]);
        assert!(outer.start_ns <= inner.start_ns);
        assert!(inner.start_ns + inner.duration_ns <= outer.start_ns + outer.duration_ns);
    }
}
