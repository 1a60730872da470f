//! Obligations never outlive the Genesis process that runs them, however it ends (DESIGN
//! section 5, "Obligation processes"): even when it is killed with `SIGKILL`, which no handler
//! sees.
//!
//! The process holds a *lifeline*: a pipe made once ([`read_end`]), both ends close-on-exec,
//! whose write end only this process ever holds. Right after an obligation is spawned in its
//! own process group, Genesis forks a watchdog ([`arm`]) that joins that group, closes every
//! descriptor but the read end, and blocks reading it; the read returns end-of-file only when
//! the last write end closes, that is when Genesis has exited or been killed, and the watchdog
//! then kills the obligation's whole process group (`SIGKILL`), itself included. When the
//! obligation ends normally Genesis kills the group (the watchdog with it) and reaps the
//! watchdog ([`disarm`]), so none is left behind; the watchdog is Genesis's child, not the
//! obligation's, so a command that waits for all its children never waits for it.
//!
//! This is preferred to `PR_SET_PDEATHSIG`: that signal reaches only the direct child (not the
//! processes it starts), it is Linux only, and it fires when the *thread* that forked exits,
//! not the process. Only async-signal-safe calls are made in the forked watchdog (`setpgid`,
//! `dup2`, `close`, `signal`, `read`, `kill`, `_exit`). If the lifeline cannot be made (no
//! descriptors left) or the fork fails, the obligation runs without a watchdog.

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
fn max_fd() -> libc::c_int {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    n.clamp(256, 65536) as libc::c_int
}

/// Starts the watchdog of process group `pgid` (an obligation just spawned as its leader; see
/// the module documentation): its pid, for [`disarm`]; `None` when there is none.
pub fn arm(pgid: libc::pid_t) -> Option<libc::pid_t> {
    let read_fd = read_end()?;
    let max_fd = max_fd();
    // SAFETY: the child makes only async-signal-safe calls (`watch`) and never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return None;
    }
    if pid == 0 {
        // SAFETY: in the forked child, async-signal-safe calls only.
        unsafe {
            if libc::setpgid(0, pgid) != 0 {
                // The group is already gone: nothing to watch.
                libc::_exit(0);
            }
            watch(read_fd, max_fd, pgid)
        }
    }
    Some(pid)
}

/// Stops and reaps the watchdog `pid` once its group has been killed.
pub fn disarm(pid: libc::pid_t) {
    // SAFETY: `pid` is a child of this process that `arm` forked and no one else waits for.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
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
