//! Obligations never outlive the Genesis process that runs them, however it ends (DESIGN
//! section 5, "Obligation processes"): even when it is killed with `SIGKILL`, which no handler
//! sees.
//!
//! The process holds a *lifeline*: a pipe made once ([`read_end`]), both ends close-on-exec,
//! whose write end only this process ever holds. Each obligation's process, between its fork
//! and its `exec` (in `pre_exec`, [`arm`]), starts a watchdog: a double fork, so the watchdog
//! is nobody's child (it is reparented to init or the nearest subreaper, and a command that
//! waits for all its children never waits for it), in the obligation's process group, holding
//! only the read end (every other descriptor closed). The watchdog blocks reading the pipe;
//! the read returns end-of-file only when the last write end closes, that is when Genesis has
//! exited or been killed, and the watchdog then kills the obligation's whole process group
//! (`SIGKILL`), itself included. When an obligation ends normally Genesis kills its group, and
//! the watchdog with it.
//!
//! This is preferred to `PR_SET_PDEATHSIG`: that signal reaches only the direct child (not the
//! processes it starts), it is Linux only, and it fires when the *thread* that forked exits,
//! not the process. Only async-signal-safe calls are made after the fork (`fork`, `dup2`,
//! `close`, `signal`, `read`, `kill`, `waitpid`, `_exit`). If the lifeline cannot be made (no
//! descriptors left), obligations run without a watchdog.

use std::os::fd::RawFd;
use std::sync::OnceLock;

/// The read end of the lifeline, made on first use; `None` when no pipe could be made.
pub fn read_end() -> Option<RawFd> {
    static LIFELINE: OnceLock<Option<[RawFd; 2]>> = OnceLock::new();
    LIFELINE
        .get_or_init(|| {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: `fds` has room for the two descriptors `pipe` writes.
            if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
                return None;
            }
            for fd in fds {
                // SAFETY: `fd` was just returned by `pipe`.
                unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            }
            // Both ends stay open for the life of the process (never closed).
            Some(fds)
        })
        .map(|[r, _]| r)
}

/// The highest descriptor number a watchdog closes up to when `close_range` is not available.
pub fn max_fd() -> libc::c_int {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    n.clamp(256, 65536) as libc::c_int
}

/// Starts the watchdog of the calling process's group (see the module documentation). Call
/// only in a freshly forked child before `exec` (`CommandExt::pre_exec`), after its process
/// group is set: it makes the caller a group leader (`setpgid(0, 0)`) itself, so the group
/// killed is always the obligation's own, never Genesis's.
///
/// # Safety
/// Only in a child between `fork` and `exec`; `read_fd` is [`read_end`], `max_fd` from
/// [`max_fd`] (computed before the fork: `sysconf` is not async-signal-safe).
pub unsafe fn arm(read_fd: RawFd, max_fd: libc::c_int) {
    // SAFETY (whole function): async-signal-safe calls on plain integers only.
    unsafe {
        if libc::setpgid(0, 0) != 0 {
            return;
        }
        let pgid = libc::getpid();
        let pid = libc::fork();
        if pid < 0 {
            return;
        }
        if pid > 0 {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            return;
        }
        // The intermediate child: fork the watchdog and exit, so the watchdog is orphaned.
        if libc::fork() != 0 {
            libc::_exit(0);
        }
        watch(read_fd, max_fd, pgid)
    }
}

/// The watchdog: keeps only the lifeline, waits for its end, kills the group.
unsafe fn watch(read_fd: RawFd, max_fd: libc::c_int, pgid: libc::pid_t) -> ! {
    // SAFETY: async-signal-safe calls on plain integers only.
    unsafe {
        if libc::dup2(read_fd, 0) < 0 {
            libc::_exit(0);
        }
        close_from(1, max_fd);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut b = [0u8; 1];
        loop {
            let n = libc::read(0, b.as_mut_ptr().cast(), 1);
            if n == 0 {
                break;
            }
            if n < 0 && *errno() != libc::EINTR {
                // The lifeline cannot be read: stay out of the way, kill nothing.
                libc::_exit(0);
            }
        }
        libc::kill(-pgid, libc::SIGKILL);
        libc::_exit(0)
    }
}

/// Closes every descriptor from `first` on.
unsafe fn close_from(first: libc::c_int, max_fd: libc::c_int) {
    // SAFETY: closing descriptors of this (forked) process only.
    unsafe {
        #[cfg(target_os = "linux")]
        if libc::syscall(
            libc::SYS_close_range,
            first as libc::c_uint,
            libc::c_uint::MAX,
            0,
        ) == 0
        {
            return;
        }
        for fd in first..max_fd {
            libc::close(fd);
        }
    }
}

#[cfg(target_os = "linux")]
unsafe fn errno() -> *mut libc::c_int {
    // SAFETY: the calling thread's errno location.
    unsafe { libc::__errno_location() }
}

#[cfg(not(target_os = "linux"))]
unsafe fn errno() -> *mut libc::c_int {
    // SAFETY: the calling thread's errno location.
    unsafe { libc::__error() }
}
