//! POSIX shared memory for tensor storage that several processes map at once.
//!
//! A segment is created with `shm_open` and unlinked at once, so it never has a name in
//! /dev/shm that could outlive us: processes share it by passing the file descriptor, and
//! the kernel frees it when the last descriptor and mapping go away, even if a process is
//! killed. Its pages are reserved up front (`posix_fallocate`), so a full /dev/shm is an
//! error here and not a SIGBUS on first touch.

use crate::{Error, Result};
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};

/// One mapping of a shared segment, owning its file descriptor.
pub struct SharedMemory {
    ptr: *mut u8,
    mapped: usize,
    fd: i32,
    id: (u64, u64),
}

// Plain shared bytes; access is governed by the tensor ops like any other storage.
unsafe impl Send for SharedMemory {}
unsafe impl Sync for SharedMemory {}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn os_error(what: &str) -> std::io::Error {
    let e = std::io::Error::last_os_error();
    std::io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// The error for a /dev/shm too small for a request, with the ways to make it larger.
pub fn capacity_error(nbytes: usize, available: Option<u64>) -> Error {
    let have = available.map_or(String::new(), |a| format!(" ({a} bytes free)"));
    Error::Runtime(format!(
        "share_memory: /dev/shm cannot hold {nbytes} more bytes{have}. Shared memory on this \
         machine is too small: enlarge it (docker run --shm-size=8g, or \
         `mount -o remount,size=8G /dev/shm`), use smaller batches or fewer workers, or set \
         num_workers=0"
    ))
}

/// Free bytes in /dev/shm, or None where it cannot be asked.
pub fn shm_available() -> Option<u64> {
    let path = CString::new("/dev/shm").ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

impl SharedMemory {
    /// A new zero-filled segment of `nbytes`.
    pub fn create(nbytes: usize) -> Result<SharedMemory> {
        let name = format!(
            "/ferrotorch_{}_{}_{:x}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            &COUNTER as *const _ as usize ^ nanos()
        );
        let cname = CString::new(name).expect("segment name");
        let fd = unsafe {
            libc::shm_open(
                cname.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | libc::O_CLOEXEC,
                0o600,
            )
        };
        if fd < 0 {
            return Err(Error::Runtime(format!(
                "share_memory: could not create a shared memory segment ({})",
                os_error("shm_open")
            )));
        }
        unsafe { libc::shm_unlink(cname.as_ptr()) };
        let len = nbytes.max(1);
        if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
            let e = os_error("ftruncate");
            unsafe { libc::close(fd) };
            return Err(Error::Runtime(format!("share_memory: {e}")));
        }
        if let Err(err) = reserve(fd, len) {
            unsafe { libc::close(fd) };
            return Err(err);
        }
        SharedMemory::map(fd, len)
    }

    /// Maps a segment received as a file descriptor (taking ownership of it).
    pub fn from_fd(fd: i32, nbytes: usize) -> Result<SharedMemory> {
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 || (st.st_size as u64) < nbytes as u64 {
            unsafe { libc::close(fd) };
            return Err(Error::Runtime(format!(
                "share_memory: received a shared segment smaller than the {nbytes} bytes expected"
            )));
        }
        SharedMemory::map(fd, nbytes.max(1))
    }

    fn map(fd: i32, len: usize) -> Result<SharedMemory> {
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        unsafe { libc::fstat(fd, &mut st) };
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            let e = os_error("mmap");
            unsafe { libc::close(fd) };
            return Err(Error::Runtime(format!("share_memory: {e}")));
        }
        Ok(SharedMemory {
            ptr: ptr as *mut u8,
            mapped: len,
            fd,
            id: (st.st_dev as u64, st.st_ino as u64),
        })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn fd(&self) -> i32 {
        self.fd
    }
    /// (device, inode): equal in every process that maps this segment.
    pub fn id(&self) -> (u64, u64) {
        self.id
    }
}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.mapped);
            libc::close(self.fd);
        }
    }
}

fn nanos() -> usize {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as usize)
}

/// Allocates every page now, so running out of /dev/shm is reported here.
fn reserve(fd: i32, len: usize) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        let rc = loop {
            let rc = unsafe { libc::posix_fallocate(fd, 0, len as libc::off_t) };
            if rc != libc::EINTR {
                break rc;
            }
        };
        if rc == libc::ENOSPC {
            return Err(capacity_error(len, shm_available()));
        }
        if rc != 0 && rc != libc::EOPNOTSUPP {
            return Err(Error::Runtime(format!(
                "share_memory: could not reserve {len} bytes of shared memory ({})",
                std::io::Error::from_raw_os_error(rc)
            )));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (fd, len);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_shared_through_its_descriptor_and_has_no_name() {
        let a = SharedMemory::create(4096).unwrap();
        unsafe { *a.ptr().add(10) = 7 };
        let fd2 = unsafe { libc::dup(a.fd()) };
        let b = SharedMemory::from_fd(fd2, 4096).unwrap();
        assert_eq!(unsafe { *b.ptr().add(10) }, 7);
        assert_eq!(a.id(), b.id());
        let leaked = std::fs::read_dir("/dev/shm")
            .map(|d| {
                d.filter_map(|e| e.ok()).any(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(&format!("ferrotorch_{}_", std::process::id()))
                })
            })
            .unwrap_or(false);
        assert!(!leaked);
    }

    #[test]
    fn a_short_descriptor_is_refused() {
        let a = SharedMemory::create(16).unwrap();
        let fd2 = unsafe { libc::dup(a.fd()) };
        assert!(SharedMemory::from_fd(fd2, 1 << 20).is_err());
    }
}
