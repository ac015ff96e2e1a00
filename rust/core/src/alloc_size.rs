//! Byte counts for new buffers, computed without overflow, and the machine's ceiling on them.
//! With Linux overcommit a request larger than the machine is not refused by `malloc` but ends
//! in a SIGKILL once touched, so such requests are refused here, before allocating.
//!
//! What a big request meets: above RAM + swap (say 30 GiB on a 24 GiB machine without swap)
//! it is refused here, whatever the kernel's overcommit mode. Below that (20 GiB there) the
//! kernel grants it lazily, as it does PyTorch's: `empty` and `zeros` return at once with
//! fresh pages (see `Storage::mapped_zeros`), and an op that writes every page succeeds only
//! if that memory is really free, else the kernel's OOM killer ends a process. No allocator
//! can report that case as an error.

use crate::error::fmt_shape;
use crate::{Error, Result};
use std::sync::OnceLock;

/// The element count of `shape`, or `None` when it does not fit in `usize`.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Bytes of a contiguous buffer of `shape` with `elem_size`-byte elements; an overflowing
/// product is a RuntimeError, as in PyTorch.
pub fn nbytes_for(shape: &[usize], elem_size: usize) -> Result<usize> {
    checked_numel(shape)
        .and_then(|n| n.checked_mul(elem_size))
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={}",
                fmt_shape(shape)
            ))
        })
}

/// Requests below this size skip the ceiling check: no machine this runs on is smaller.
const ALWAYS_FITS: usize = 1 << 30;

/// Refuses (as out of memory) a request that no allocation on this machine could ever back.
pub fn check_request(nbytes: usize) -> Result<()> {
    if nbytes > ALWAYS_FITS && nbytes > machine_limit() {
        return Err(Error::out_of_memory(nbytes));
    }
    Ok(())
}

/// Vec capacity for `len` items of `T`, reserved fallibly: for temporaries sized by the user.
pub fn try_vec<T>(len: usize) -> Result<Vec<T>> {
    let nbytes = len.saturating_mul(std::mem::size_of::<T>());
    check_request(nbytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::out_of_memory(nbytes))?;
    Ok(v)
}

/// The most bytes one buffer may take: physical memory plus swap, lowered to a cgroup's
/// memory limit where one is set, and never above `isize::MAX`.
pub fn machine_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mut limit = isize::MAX as usize;
        if let Some(total) = ram_and_swap() {
            limit = limit.min(total);
        }
        if let Some(cg) = cgroup_limit() {
            limit = limit.min(cg);
        }
        limit
    })
}

#[cfg(target_os = "linux")]
fn ram_and_swap() -> Option<usize> {
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return None;
    }
    let unit = info.mem_unit.max(1) as u128;
    let total = (info.totalram as u128 + info.totalswap as u128) * unit;
    Some(total.min(usize::MAX as u128) as usize)
}

#[cfg(not(target_os = "linux"))]
fn ram_and_swap() -> Option<usize> {
    None
}

/// A cgroup v2 memory limit (plus its swap allowance), when the process runs under one.
fn cgroup_limit() -> Option<usize> {
    let read = |name: &str| -> Option<usize> {
        let text = std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok()?;
        text.trim().parse().ok()
    };
    let mem = read("memory.max")?;
    Some(mem.saturating_add(read("memory.swap.max").unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numel_overflow_is_none() {
        assert_eq!(checked_numel(&[]), Some(1));
        assert_eq!(checked_numel(&[3, 0, usize::MAX]), Some(0));
        assert_eq!(checked_numel(&[1 << 40, 1 << 40]), None);
        assert_eq!(checked_numel(&[1 << 20, 1 << 20]), Some(1 << 40));
    }

    #[test]
    fn byte_count_overflow_is_an_error() {
        assert_eq!(nbytes_for(&[2, 3], 4), Ok(24));
        assert_eq!(nbytes_for(&[0, 1 << 62], 8), Ok(0));
        let e = nbytes_for(&[1 << 40, 1 << 40], 4).unwrap_err();
        assert!(e
            .to_string()
            .contains("overflowed with sizes=[1099511627776, 1099511627776]"));
        // Fits in usize but not in isize: no allocator can take it.
        assert!(nbytes_for(&[1 << 62], 4).is_err());
    }

    #[test]
    fn requests_above_the_machine_are_out_of_memory() {
        assert!(check_request(1 << 20).is_ok());
        let huge = usize::MAX / 2;
        match check_request(huge) {
            Err(Error::OutOfMemory { nbytes, .. }) => assert_eq!(nbytes, huge),
            other => panic!("expected out of memory, got {other:?}"),
        }
        assert!(machine_limit() >= ALWAYS_FITS);
        assert!(try_vec::<u64>(usize::MAX / 16).is_err());
        assert!(try_vec::<u64>(10).unwrap().capacity() >= 10);
    }

    #[test]
    fn tensors_of_impossible_sizes_are_errors_not_panics() {
        use crate::{DType, Scalar, Storage, Tensor};
        assert!(matches!(
            Storage::zeros(usize::MAX),
            Err(Error::OutOfMemory { .. })
        ));
        assert!(matches!(
            Tensor::zeros(&[1 << 50], DType::F32),
            Err(Error::OutOfMemory { nbytes, .. }) if nbytes == 4 << 50
        ));
        assert!(matches!(
            Tensor::zeros(&[1 << 40, 1 << 40], DType::F32),
            Err(Error::Runtime(_))
        ));
        let e = Tensor::full(&[1 << 50], Scalar::Float(1.0), DType::F64).unwrap_err();
        assert!(e.to_string().contains("allocate 9007199254740992 bytes"));
        let e = Tensor::arange(0.0, (1u64 << 50) as f64, 1.0, DType::I64).unwrap_err();
        assert!(e.to_string().starts_with("arange: DefaultCPUAllocator"));
        let e = Tensor::randperm(1 << 50, DType::I64, None).unwrap_err();
        assert!(e.to_string().starts_with("randperm: "));
        let wide = Tensor::ones(&[1, 1], DType::F32).unwrap();
        assert!(wide.expand(&[1 << 40, 1 << 40]).is_err());
        let tall = wide.expand(&[1 << 50, 1]).unwrap();
        assert!(matches!(tall.contiguous(), Err(Error::OutOfMemory { .. })));
        // The failures leave nothing behind: ordinary tensors still work.
        assert_eq!(
            Tensor::ones(&[3], DType::F32).unwrap().to_vec::<f32>(),
            vec![1.0; 3]
        );
    }

    #[test]
    fn out_of_memory_message_names_op_and_bytes() {
        let e = Error::out_of_memory(80).in_op("randint");
        assert_eq!(
            e.to_string(),
            "randint: DefaultCPUAllocator: can't allocate memory: you tried to allocate 80 bytes."
        );
        // An op already named is kept; other errors pass through.
        assert_eq!(e.clone().in_op("outer"), e);
        assert_eq!(Error::runtime("x").in_op("y"), Error::runtime("x"));
    }
}
