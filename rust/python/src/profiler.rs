//! Profiler bindings: start/stop the core's op recorder, ranges opened from Python (ops written
//! in Python, `record_function`), and the one check Python-level op entries make.

use crate::errors::IntoPy;
use ferrotorch::profiler::{self, Scope};
use pyo3::prelude::*;
use std::sync::Mutex;

/// An open range handed to Python; closing it twice records it once.
#[pyclass(name = "_ProfilerRange", module = "ferrotorch.profiler", frozen)]
pub struct PyRange(Mutex<Option<Scope>>);

/// Which hooks an op entry written in Python must run: 1 autocast, 2 profiler (0 while off).
#[pyfunction]
fn _op_hooks() -> u8 {
    u8::from(ferrotorch::autocast::is_active()) | (u8::from(profiler::is_enabled()) << 1)
}

#[pyfunction]
fn _profiler_enabled() -> bool {
    profiler::is_enabled()
}

#[pyfunction]
fn _profiler_start(record_shapes: bool) -> PyResult<()> {
    profiler::start(record_shapes).py()
}

type EventTuple = (String, u64, u64, u64, Option<Vec<Vec<usize>>>, bool);

fn tuples(events: Vec<profiler::Event>) -> Vec<EventTuple> {
    events
        .into_iter()
        .map(|e| {
            (
                e.name.into_owned(),
                e.start_ns,
                e.duration_ns,
                e.thread,
                e.shapes,
                e.user,
            )
        })
        .collect()
}

/// Stops recording; returns `(name, start_ns, duration_ns, thread, shapes, user)` per range.
#[pyfunction]
fn _profiler_stop() -> Vec<EventTuple> {
    tuples(profiler::stop())
}

/// The ranges recorded so far, leaving the profiler on.
#[pyfunction]
fn _profiler_drain() -> Vec<EventTuple> {
    tuples(profiler::drain())
}

/// Opens a named range (None while the profiler is off); `user` marks `record_function`.
#[pyfunction]
#[pyo3(signature = (name, shapes=None, user=false))]
fn _profiler_begin(name: String, shapes: Option<Vec<Vec<usize>>>, user: bool) -> Option<PyRange> {
    if !profiler::is_enabled() {
        return None;
    }
    let scope = if user {
        Scope::annotation(name)
    } else {
        let shapes = profiler::records_shapes().then(|| shapes.unwrap_or_default());
        Scope::open(name, shapes)
    };
    Some(PyRange(Mutex::new(Some(scope))))
}

#[pyfunction]
fn _profiler_end(range: Option<PyRef<'_, PyRange>>) {
    if let Some(r) = range {
        let scope = r.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(s) = scope {
            s.finish();
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRange>()?;
    m.add_function(wrap_pyfunction!(_op_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_start, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_stop, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_drain, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_begin, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_end, m)?)?;
    Ok(())
}
