//! Streams and events by handle: Python holds integers, the registry holds the driver objects.
//! Handle 0 is the default (legacy) stream; the current stream is per thread, as in PyTorch.

use super::driver_err;
use crate::cuda::api::Handle;
use crate::{Error, Result};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Tables {
    streams: Vec<Arc<CudaStream>>,
    events: HashMap<Handle, Arc<CudaEvent>>,
    next_event: Handle,
}

/// Shared with the allocator's device memory, which records events on streams by handle.
#[derive(Clone)]
pub struct StreamRegistry {
    ctx: Arc<CudaContext>,
    tables: Arc<Mutex<Tables>>,
}

thread_local! {
    /// This thread's current stream per device (absent: the default stream).
    static CURRENT: RefCell<HashMap<usize, Handle>> = RefCell::new(HashMap::new());
}

impl StreamRegistry {
    pub fn new(ctx: &Arc<CudaContext>) -> StreamRegistry {
        let tables = Tables {
            streams: vec![ctx.default_stream()],
            next_event: 1,
            ..Default::default()
        };
        StreamRegistry {
            ctx: ctx.clone(),
            tables: Arc::new(Mutex::new(tables)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tables> {
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn create(&self, priority: i32) -> Result<Handle> {
        let s = if priority == 0 {
            self.ctx.new_stream()
        } else {
            self.ctx.new_stream_with_priority(priority)
        }
        .map_err(driver_err("creating a stream"))?;
        let mut t = self.lock();
        t.streams.push(s);
        Ok((t.streams.len() - 1) as Handle)
    }

    pub fn get(&self, h: Handle) -> Result<Arc<CudaStream>> {
        self.lock()
            .streams
            .get(h as usize)
            .cloned()
            .ok_or_else(|| Error::runtime(format!("unknown CUDA stream handle {h}")))
    }

    /// The current stream's handle for this thread.
    pub fn current_handle(&self) -> Handle {
        let dev = self.ctx.ordinal();
        CURRENT.with(|c| c.borrow().get(&dev).copied().unwrap_or(0))
    }

    pub fn current(&self) -> Result<Arc<CudaStream>> {
        self.get(self.current_handle())
    }

    pub fn set_current(&self, h: Handle) -> Result<()> {
        self.get(h)?;
        let dev = self.ctx.ordinal();
        CURRENT.with(|c| c.borrow_mut().insert(dev, h));
        Ok(())
    }

    pub fn event_create(&self, enable_timing: bool) -> Result<Handle> {
        use cudarc::driver::sys::CUevent_flags;
        let flags = if enable_timing {
            CUevent_flags::CU_EVENT_DEFAULT
        } else {
            CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let ev = self
            .ctx
            .new_event(Some(flags))
            .map_err(driver_err("creating an event"))?;
        let mut t = self.lock();
        let h = t.next_event;
        t.next_event += 1;
        t.events.insert(h, Arc::new(ev));
        Ok(h)
    }

    pub fn event(&self, h: Handle) -> Result<Arc<CudaEvent>> {
        self.lock()
            .events
            .get(&h)
            .cloned()
            .ok_or_else(|| Error::runtime(format!("unknown CUDA event handle {h}")))
    }

    pub fn event_destroy(&self, h: Handle) {
        self.lock().events.remove(&h);
    }
}
