//! A forked child must get a working kernel pool (the parent's pool threads are not copied).
#![cfg(unix)]

use ferrotorch::cpu::thread_pool::run;
use rayon::prelude::*;

#[test]
fn a_forked_child_runs_parallel_kernels() {
    let sum = || -> u64 { run(|| (0..100_000u64).into_par_iter().sum()) };
    assert_eq!(sum(), 4_999_950_000);
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // A hang would be the bug: the alarm turns it into a failed exit status.
        unsafe { libc::alarm(20) };
        let ok = sum() == 4_999_950_000;
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child status {status}"
    );
}
