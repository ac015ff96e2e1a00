//! Streams as DLPack names them (`__dlpack__(stream=...)`): 1 is the legacy default stream,
//! 2 the per-thread default stream, a larger integer a `CUstream` address, and -1 asks for no
//! synchronization. A producer makes the consumer's stream wait for its own pending work.

use super::{check, device, driver_err, with_context};
use crate::{Error, Result};
use cudarc::driver::sys::{CUevent_flags, CUstream};

const LEGACY_DEFAULT: i64 = 1;
const PER_THREAD_DEFAULT: i64 = 2;

/// The current stream of GPU `d` as a DLPack consumer passes it to a producer.
pub fn dlpack_stream(d: usize) -> Result<i64> {
    let dev = device(d)?;
    let raw = dev.streams.current()?.cu_stream() as i64;
    // Our default stream is the null (legacy) stream, which DLPack calls 1 (0 is ambiguous).
    Ok(if raw == 0 { LEGACY_DEFAULT } else { raw })
}

/// Makes the consumer's `stream` wait for the work queued so far on GPU `d`'s current
/// stream, so that it reads the exported tensor only once that work is done.
pub fn dlpack_sync_to(d: usize, stream: i64) -> Result<()> {
    if stream == -1 {
        return Ok(());
    }
    if stream == 0 || stream < -1 {
        return Err(Error::value(format!(
            "__dlpack__: stream {stream} is not a CUDA stream (use None or 1 for the legacy default stream, 2 for the per-thread one, -1 for no synchronization)"
        )));
    }
    let dev = device(d)?;
    let ours = dev.streams.current()?;
    let theirs: CUstream = match stream {
        LEGACY_DEFAULT => std::ptr::null_mut(),
        PER_THREAD_DEFAULT => PER_THREAD_DEFAULT as CUstream,
        s => s as CUstream,
    };
    if theirs == ours.cu_stream() {
        return Ok(()); // one stream: its order already holds
    }
    with_context(&dev, || {
        let event = dev
            .ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(driver_err("creating the DLPack event"))?;
        check(event.record(&ours), "recording the DLPack event")?;
        // SAFETY: the consumer passed a stream of this device's context that it keeps alive
        // while exchanging the tensor; the wrapper never destroys it.
        let consumer = unsafe { dev.ctx.wrap_borrowed_stream(theirs) };
        check(consumer.wait(&event), "making the consumer's stream wait")
    })
}
