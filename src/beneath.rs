//! Workspace writes resolved beneath the workspace root, never through a symbolic link
//! (DESIGN section 6, "Writes beneath the root").
//!
//! A path-based write (`rename("root/sub/x.tmp", "root/sub/x")`) resolves `sub` again at the
//! moment of the call: a concurrent process that can rename inside the workspace may swap `sub`
//! for a link to `/elsewhere` between Genesis's checks and the write (a TOCTOU race), and the
//! write lands outside. Here every write is made relative to a directory file descriptor that
//! was opened without following a link in any component, so a later swap only moves that
//! directory (still inside the workspace); it never redirects the write.
//!
//! - On Linux, [`open_dir`] is one `openat2(2)` call (`SYS_openat2`, Linux ≥ 5.6) with
//!   `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`: the kernel refuses (`ELOOP`, `EXDEV`) any link
//!   or `..` escape in any component, atomically.
//! - Where `openat2` is missing (`ENOSYS`, older kernels, seccomp filters answering `EPERM`,
//!   other Unix systems), [`open_dir`] walks the components itself: `openat(2)` of each one
//!   with `O_DIRECTORY | O_NOFOLLOW` relative to the previous descriptor — equally race-free,
//!   one system call per component.
//!
//! The leaf is then created, renamed, removed or made with `openat(2)` (`O_NOFOLLOW`,
//! `O_EXCL`), `renameat(2)`, `unlinkat(2)` or `mkdirat(2)` relative to that descriptor.
//! Errors are the system's: `ELOOP` for a link on the way (`ENOTDIR` for a file), `ENOENT`
//! for a missing directory.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

fn cstr(s: &[u8]) -> io::Result<CString> {
    CString::new(s).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

/// Opens the workspace root itself (following links in `root`'s own path: the root is the
/// user's choice, only what lies beneath it is guarded).
///
/// # Errors
/// The `open(2)` error.
pub fn open_root(root: &Path) -> io::Result<OwnedFd> {
    let c = cstr(root.as_os_str().as_bytes())?;
    // SAFETY: `c` is a valid NUL-terminated string; the returned fd is owned by us.
    let fd = check(unsafe { libc::open(c.as_ptr(), DIR_FLAGS) })?;
    // SAFETY: `fd` was just opened and is not owned elsewhere.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens the directory `rel` (a `/`-separated workspace-relative path; `""` is the root)
/// beneath `root`, following no link in any component of `rel`.
///
/// # Errors
/// `ELOOP` (a link on the way), `EXDEV` (an escape), `ENOTDIR` (a file on the way),
/// `ENOENT` (missing), `EINVAL` (an empty, `.` or `..` component), or another `openat2(2)` /
/// `openat(2)` error.
pub fn open_dir(root: &Path, rel: &str) -> io::Result<OwnedFd> {
    let base = open_root(root)?;
    if rel.is_empty() {
        return Ok(base);
    }
    open_dir_at(&base, rel)
}

/// [`open_dir`] relative to the open directory `base` rather than a path: the directory `rel`
/// beneath it (`""`: a duplicate of `base`), following no link in any component of `rel`.
/// One `openat2(2)` call on Linux; for callers that open many directories under one root.
///
/// # Errors
/// As [`open_dir`].
pub fn open_dir_at(base: &OwnedFd, rel: &str) -> io::Result<OwnedFd> {
    if rel.is_empty() {
        return base.try_clone();
    }
    #[cfg(target_os = "linux")]
    {
        static NO_OPENAT2: AtomicBool = AtomicBool::new(false);
        if !NO_OPENAT2.load(Ordering::Relaxed) {
            match openat2_beneath(base, rel) {
                Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) => {
                    NO_OPENAT2.store(true, Ordering::Relaxed);
                }
                other => return other,
            }
        }
    }
    walk_nofollow(base.try_clone()?, rel)
}

/// Opens the directory at `path` for looking things up in it (`O_PATH` on Linux, so only
/// search permission is needed, as for a `stat` of a path below it), following links as such
/// a `stat` does. For reads only: nothing is ever written through the descriptor.
///
/// # Errors
/// The `open(2)` error (`ENOTDIR` for a file, `ENOENT` when missing).
pub fn open_dir_to_read(path: &Path) -> io::Result<OwnedFd> {
    let c = cstr(path.as_os_str().as_bytes())?;
    #[cfg(target_os = "linux")]
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = DIR_FLAGS;
    // SAFETY: `c` is a valid NUL-terminated string; the returned fd is owned by us.
    let fd = check(unsafe { libc::open(c.as_ptr(), flags) })?;
    // SAFETY: `fd` was just opened and is not owned elsewhere.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(target_os = "linux")]
fn openat2_beneath(base: &OwnedFd, rel: &str) -> io::Result<OwnedFd> {
    let c = cstr(rel.as_bytes())?;
    // SAFETY: open_how is plain data; zeroed then filled.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = DIR_FLAGS as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS;
    // SAFETY: valid fd, NUL-terminated path, pointer to a live open_how of the given size.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            base.as_raw_fd(),
            c.as_ptr(),
            &raw const how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = libc::c_int::try_from(ret).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: the kernel just returned this new fd.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The fallback of [`open_dir`]: `openat(O_DIRECTORY | O_NOFOLLOW)` of each component of
/// `rel`, relative to the previous one, starting at `base`.
///
/// # Errors
/// As [`open_dir`].
pub(crate) fn walk_nofollow(base: OwnedFd, rel: &str) -> io::Result<OwnedFd> {
    let mut cur = base;
    for comp in rel.split('/') {
        cur = open_child_dir(&cur, comp)?;
    }
    Ok(cur)
}

/// Opens the directory `name` in `dir` without following a link (`ELOOP` for a link,
/// `ENOTDIR` for a file, `EINVAL` for an empty, `.` or `..` name).
///
/// # Errors
/// The `openat(2)` error.
pub fn open_child_dir(dir: &OwnedFd, name: &str) -> io::Result<OwnedFd> {
    let c = leaf(name)?;
    // SAFETY: valid fd and NUL-terminated name.
    let fd =
        check(unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), DIR_FLAGS | libc::O_NOFOLLOW) })
            .map_err(|e| {
            // Linux answers ENOTDIR for a link under O_DIRECTORY | O_NOFOLLOW; say ELOOP, as
            // openat2 does, so callers tell a link from a file.
            if e.raw_os_error() == Some(libc::ENOTDIR) && kind(dir, name) == Some(Kind::Link) {
                io::Error::from_raw_os_error(libc::ELOOP)
            } else {
                e
            }
        })?;
    // SAFETY: `fd` was just opened.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn leaf(name: &str) -> io::Result<CString> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    cstr(name.as_bytes())
}

/// Opens the existing file `rel` (a `/`-separated path) relative to `dir` for reading, as an
/// `open(2)` of the joined path would (links followed): for reading many files under one
/// directory without resolving the directory's own path each time. Never used to write.
///
/// # Errors
/// The `openat(2)` error (`ENOENT` when missing).
pub fn open_read_at(dir: &OwnedFd, rel: &str) -> io::Result<File> {
    let c = cstr(rel.as_bytes())?;
    // SAFETY: valid fd and NUL-terminated path.
    let fd = check(unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        )
    })?;
    // SAFETY: `fd` was just opened.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Creates the new file `name` in `dir` (`O_CREAT | O_EXCL | O_NOFOLLOW`, write-only, with
/// permission bits `mode` before the umask).
///
/// # Errors
/// `EEXIST` when anything (a link included) is there; other `openat(2)` errors.
pub fn create_new(dir: &OwnedFd, name: &str, mode: u32) -> io::Result<File> {
    let c = leaf(name)?;
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: valid fd and NUL-terminated name; mode passed as the variadic argument.
    let fd =
        check(unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags, mode as libc::c_uint) })?;
    // SAFETY: `fd` was just opened.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Renames `from` in `from_dir` to `to` in `to_dir` (`renameat(2)`; replaces a file at `to`).
///
/// # Errors
/// The `renameat(2)` error.
pub fn rename(from_dir: &OwnedFd, from: &str, to_dir: &OwnedFd, to: &str) -> io::Result<()> {
    let (f, t) = (leaf(from)?, leaf(to)?);
    // SAFETY: valid fds and NUL-terminated names.
    check(unsafe {
        libc::renameat(
            from_dir.as_raw_fd(),
            f.as_ptr(),
            to_dir.as_raw_fd(),
            t.as_ptr(),
        )
    })?;
    Ok(())
}

/// Removes the file or link `name` in `dir` (`unlinkat(2)`; a link is removed, never followed).
///
/// # Errors
/// The `unlinkat(2)` error (`EISDIR` for a directory).
pub fn unlink(dir: &OwnedFd, name: &str) -> io::Result<()> {
    let c = leaf(name)?;
    // SAFETY: valid fd and NUL-terminated name.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) })?;
    Ok(())
}

/// Removes the empty directory `name` in `dir` (`unlinkat(2)` with `AT_REMOVEDIR`).
///
/// # Errors
/// `ENOTEMPTY`/`EEXIST` when not empty, `ENOTDIR` for a link or file, other errors.
pub fn rmdir(dir: &OwnedFd, name: &str) -> io::Result<()> {
    let c = leaf(name)?;
    // SAFETY: valid fd and NUL-terminated name.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) })?;
    Ok(())
}

/// Makes the directory `name` in `dir` (`mkdirat(2)`, mode `0777` before the umask).
///
/// # Errors
/// `EEXIST` when anything is there; other `mkdirat(2)` errors.
pub fn mkdir(dir: &OwnedFd, name: &str) -> io::Result<()> {
    let c = leaf(name)?;
    // SAFETY: valid fd and NUL-terminated name.
    check(unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), 0o777) })?;
    Ok(())
}

/// What stands at `name` in `dir`, not following a link: `None` when nothing does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Link,
    /// Anything else (a FIFO, a socket, a device).
    Other,
}

/// The kind of `name` in `dir` (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`); `None` when absent
/// or unreadable.
pub fn kind(dir: &OwnedFd, name: &str) -> Option<Kind> {
    let st = lstat_at(dir, name)?;
    Some(match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Link,
        _ => Kind::Other,
    })
}

/// The permission bits (`st_mode & 0o7777`) of `name` in `dir` when it is a regular file
/// (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`); `None` when it is anything else, absent or
/// unreadable.
// `st_mode` is a `u32` on Linux, a `u16` on macOS.
#[allow(clippy::useless_conversion)]
pub fn file_mode(dir: &OwnedFd, name: &str) -> Option<u32> {
    let st = lstat_at(dir, name)?;
    (st.st_mode & libc::S_IFMT == libc::S_IFREG).then_some(u32::from(st.st_mode) & 0o7777)
}

/// `fstatat(2)` of `name` in `dir`, not following a link; `None` on any error.
fn lstat_at(dir: &OwnedFd, name: &str) -> Option<libc::stat> {
    let c = leaf(name).ok()?;
    // SAFETY: zeroed stat is valid plain data, filled by the call.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid fd, NUL-terminated name, pointer to a live stat.
    let ret = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            c.as_ptr(),
            &raw mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    (ret >= 0).then_some(st)
}

/// Creates a new uniquely named temporary file `<prefix><pid>-<n>` in `dir` (as
/// [`create_new`], permission bits `0600`) and returns it with its name.
///
/// # Errors
/// The `openat(2)` error (after 100 names already taken: `EEXIST`).
pub fn create_temp(dir: &OwnedFd, prefix: &str) -> io::Result<(File, String)> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut last = io::Error::from_raw_os_error(libc::EEXIST);
    for _ in 0..100 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("{prefix}{}-{n}", std::process::id());
        match create_new(dir, &name, 0o600) {
            Ok(f) => return Ok((f, name)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Removes the directory `name` in `dir` and everything in it, never following a link (each
/// level opened `O_NOFOLLOW` relative to its parent's descriptor, entries removed with
/// `unlinkat(2)`).
///
/// # Errors
/// The first `openat(2)`, `readdir(3)` or `unlinkat(2)` error.
pub fn remove_tree(dir: &OwnedFd, name: &str) -> io::Result<()> {
    let c = leaf(name)?;
    remove_tree_c(dir, &c)
}

fn remove_tree_c(dir: &OwnedFd, name: &std::ffi::CStr) -> io::Result<()> {
    // SAFETY: valid fd and NUL-terminated name.
    let fd = check(unsafe {
        libc::openat(dir.as_raw_fd(), name.as_ptr(), DIR_FLAGS | libc::O_NOFOLLOW)
    })?;
    // SAFETY: `fd` was just opened.
    let child = unsafe { OwnedFd::from_raw_fd(fd) };
    for entry in list(&child)? {
        // SAFETY: valid fd and NUL-terminated name.
        let r = unsafe { libc::unlinkat(child.as_raw_fd(), entry.as_ptr(), 0) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if matches!(e.raw_os_error(), Some(libc::EISDIR | libc::EPERM)) {
                remove_tree_c(&child, &entry)?;
            } else if e.kind() != io::ErrorKind::NotFound {
                return Err(e);
            }
        }
    }
    // SAFETY: valid fd and NUL-terminated name.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) })?;
    Ok(())
}

/// The entry names of the directory `dir` (without `.` and `..`), read through a duplicate of
/// the descriptor (`fdopendir(3)`).
fn list(dir: &OwnedFd) -> io::Result<Vec<CString>> {
    let dup = dir.try_clone()?;
    use std::os::fd::IntoRawFd;
    let raw = dup.into_raw_fd();
    // SAFETY: `raw` is an fd we own; on success the DIR owns it.
    let d = unsafe { libc::fdopendir(raw) };
    if d.is_null() {
        let e = io::Error::last_os_error();
        // SAFETY: fdopendir failed, so we still own `raw`.
        unsafe { libc::close(raw) };
        return Err(e);
    }
    let mut out = Vec::new();
    loop {
        // SAFETY: `d` is a live DIR stream.
        let ent = unsafe { libc::readdir(d) };
        if ent.is_null() {
            break;
        }
        // SAFETY: readdir returned a valid dirent whose d_name is NUL-terminated.
        let n = unsafe { std::ffi::CStr::from_ptr((*ent).d_name.as_ptr()) };
        if n.to_bytes() != b"." && n.to_bytes() != b".." {
            out.push(n.to_owned());
        }
    }
    // SAFETY: `d` is a live DIR stream, closed once (this closes `raw`).
    unsafe { libc::closedir(d) };
    Ok(out)
}

/// Splits a workspace-relative path into its directory (`""` for the root) and leaf name.
pub fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("ws/sub/deep")).unwrap();
        std::fs::create_dir(t.path().join("out")).unwrap();
        std::os::unix::fs::symlink(t.path().join("out"), t.path().join("ws/link")).unwrap();
        std::os::unix::fs::symlink("sub", t.path().join("ws/rel")).unwrap();
        std::fs::write(t.path().join("ws/file"), b"x").unwrap();
        t
    }

    #[test]
    fn open_dir_refuses_links_files_and_dotdot_in_every_component() {
        let t = setup();
        let ws = t.path().join("ws");
        for walk in [false, true] {
            let open = |rel: &str| {
                if walk {
                    walk_nofollow(open_root(&ws).unwrap(), rel)
                } else {
                    open_dir(&ws, rel)
                }
            };
            assert!(open("sub/deep").is_ok());
            let code = |rel: &str| open(rel).unwrap_err().raw_os_error();
            assert_eq!(code("link"), Some(libc::ELOOP), "walk={walk}");
            assert_eq!(code("rel/deep"), Some(libc::ELOOP), "walk={walk}");
            assert_eq!(code("file/x"), Some(libc::ENOTDIR), "walk={walk}");
            assert_eq!(code("nope"), Some(libc::ENOENT), "walk={walk}");
            let dotdot = code("sub/../../out");
            assert!(
                matches!(dotdot, Some(libc::EXDEV | libc::EINVAL)),
                "walk={walk} {dotdot:?}"
            );
        }
    }

    #[test]
    fn a_directory_swapped_for_a_link_after_open_keeps_writes_inside() {
        use std::io::Write;
        let t = setup();
        let ws = t.path().join("ws");
        let d = open_dir(&ws, "sub").unwrap();
        // Swap: `sub` moves to `moved`, and `sub` becomes a link to the outside directory.
        std::fs::rename(ws.join("sub"), ws.join("moved")).unwrap();
        std::os::unix::fs::symlink(t.path().join("out"), ws.join("sub")).unwrap();
        let mut f = create_new(&d, "tmp", 0o600).unwrap();
        f.write_all(b"hello").unwrap();
        rename(&d, "tmp", &d, "new.txt").unwrap();
        assert_eq!(std::fs::read(ws.join("moved/new.txt")).unwrap(), b"hello");
        assert_eq!(std::fs::read_dir(t.path().join("out")).unwrap().count(), 0);
        // Opening by name now refuses the link.
        assert_eq!(
            open_dir(&ws, "sub").unwrap_err().raw_os_error(),
            Some(libc::ELOOP)
        );
        assert_eq!(kind(&open_root(&ws).unwrap(), "sub"), Some(Kind::Link));
        unlink(&open_root(&ws).unwrap(), "sub").unwrap();
        assert!(t.path().join("out").is_dir());
        mkdir(&d, "made").unwrap();
        assert_eq!(kind(&d, "made"), Some(Kind::Dir));
        rmdir(&d, "made").unwrap();
        assert_eq!(kind(&d, "made"), None);
        assert_eq!(
            create_new(&d, "..", 0o600).unwrap_err().raw_os_error(),
            Some(libc::EINVAL)
        );
        // remove_tree removes the link inside, not what it points to.
        std::fs::create_dir_all(ws.join("moved/tree/a")).unwrap();
        std::fs::write(ws.join("moved/tree/a/f"), b"f").unwrap();
        std::fs::write(t.path().join("out/keep"), b"k").unwrap();
        std::os::unix::fs::symlink(t.path().join("out"), ws.join("moved/tree/a/l")).unwrap();
        remove_tree(&d, "tree").unwrap();
        assert_eq!(kind(&d, "tree"), None);
        assert_eq!(std::fs::read(t.path().join("out/keep")).unwrap(), b"k");
        let (_, name) = create_temp(&d, ".genesis-tmp-").unwrap();
        assert!(name.starts_with(".genesis-tmp-"), "{name}");
        assert_eq!(kind(&d, &name), Some(Kind::File));
    }
}
