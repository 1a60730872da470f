//! The hashing pass of a snapshot: reads the member files the stat cache did not answer for
//! and names each by the SHA-256 of its bytes ([`crate::hash`]), on rayon's threads.
//!
//! Cost per small file (most trees are mostly small files): one `openat` relative to its
//! directory (opened once per run of files in the same directory), one `read` of the whole file
//! into the thread's reused buffer ([`crate::hash::with_read_buf`]), one `read` that finds the
//! end, `close`. No allocation and no `fstat` unless something is off (see [`read_whole`]).
//! Work is handed out from one shared index: the files of [`READ_BUF`] bytes or more one at a
//! time, largest first, then the small ones in path order in batches (so that consecutive files
//! share their directory), so neither a huge file nor a long run of tiny ones leaves a core idle.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{ScannedFile, SnapshotError};
use crate::hash::{Digest, READ_BUF, with_read_buf};

/// A member file's content as the hashing pass hands it to a [`HashFn`].
pub enum Content<'a> {
    /// The whole file (it was smaller than [`READ_BUF`] bytes), read to its end.
    Bytes(&'a [u8]),
    /// A larger file, or one that grew past the size the walk saw: open, checked to be a
    /// regular file, positioned at its start, to be read streaming to its end.
    Stream(&'a mut File),
}

/// Turns one member file into its blob: given where it is on disk (for messages) and its
/// [`Content`], returns its SHA-256 and length in bytes, or an error `E` (the store's hashing
/// reports its own errors, so this module needs no store type). The store copies the bytes in
/// on the way ([`crate::store::Store::snapshot_into`]).
pub type HashFn<'a, E = SnapshotError> =
    dyn Fn(&Path, Content<'_>) -> Result<(Digest, u64), E> + Sync + 'a;

/// The plain [`HashFn`]: SHA-256 and length of the content, nothing stored.
///
/// # Errors
/// [`SnapshotError::Read`] when reading a [`Content::Stream`] fails.
pub fn hash_content(path: &Path, content: Content<'_>) -> Result<(Digest, u64), SnapshotError> {
    match content {
        Content::Bytes(b) => Ok((Digest::of(b), b.len() as u64)),
        Content::Stream(f) => Digest::of_reader(f).map_err(|source| SnapshotError::Read {
            path: path.into(),
            source,
        }),
    }
}

/// One file read by [`hash_misses`]: its index in the scan, its blob and its length in bytes.
pub(super) type Hashed = (usize, (Digest, u64));

/// Small files handed out together: at most this many files …
const BATCH_FILES: usize = 64;
/// … and at most this many bytes (walk sizes).
const BATCH_BYTES: u64 = 1 << 20;

/// Hashes `files[i]` (found below `root`) for each `i` of `misses` with `hash`, spread over
/// rayon's threads (or over `threads` threads of its own when that is more); returns
/// `(i, (digest, bytes))` for each, in no particular order.
///
/// # Errors
/// The first failure in path order among the files read before the pass stopped: those of
/// [`open_regular`] and `hash`, and [`SnapshotError::FileTooLarge`] when a file read has more
/// than `max_file_bytes` bytes.
pub(super) fn hash_misses<E: From<SnapshotError> + Send>(
    root: &Path,
    files: &[ScannedFile],
    misses: &[usize],
    max_file_bytes: u64,
    hash: &HashFn<'_, E>,
    threads: Option<usize>,
) -> Result<Vec<Hashed>, E> {
    let small = READ_BUF as u64;
    // Large files first, largest first; then the small ones in path order.
    let mut queue: Vec<usize> = misses
        .iter()
        .copied()
        .filter(|&i| files[i].bytes() >= small)
        .collect();
    queue.sort_by_key(|&i| std::cmp::Reverse(files[i].bytes()));
    let mut units: Vec<Range<usize>> = (0..queue.len()).map(|k| k..k + 1).collect();
    let mut start = queue.len();
    let mut batch_bytes = 0;
    for &i in misses.iter().filter(|&&i| files[i].bytes() < small) {
        queue.push(i);
        batch_bytes += files[i].bytes();
        if queue.len() - start == BATCH_FILES || batch_bytes >= BATCH_BYTES {
            units.push(start..queue.len());
            start = queue.len();
            batch_bytes = 0;
        }
    }
    if start < queue.len() {
        units.push(start..queue.len());
    }

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let worker = || {
        let mut done = Vec::new();
        let mut dirs = DirCache::default();
        while !stop.load(Ordering::Relaxed) {
            let Some(unit) = units.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            for &i in &queue[unit.clone()] {
                match hash_one(root, &files[i], max_file_bytes, &mut dirs, hash) {
                    Ok(r) => done.push((i, r)),
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        return (done, Some((i, e)));
                    }
                }
            }
        }
        (done, None)
    };
    let pool = rayon::current_num_threads().max(1);
    let workers = threads.unwrap_or(pool).clamp(1, units.len().max(1));
    let parts: Vec<_> = if workers <= pool {
        (0..workers)
            .into_par_iter()
            .with_max_len(1)
            .map(|_| worker())
            .collect()
    } else {
        // More threads than cores: for a hashing that waits on the disk (the store's fsync
        // per new object), so that the waits overlap.
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(worker)).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    let mut out = Vec::with_capacity(misses.len());
    let mut first_error: Option<(usize, E)> = None;
    for (done, err) in parts {
        out.extend(done);
        if let Some((i, e)) = err
            && first_error.as_ref().is_none_or(|(j, _)| i < *j)
        {
            first_error = Some((i, e));
        }
    }
    match first_error {
        Some((_, e)) => Err(e),
        None => Ok(out),
    }
}

/// Opens, reads and hashes one file (below `root`); refuses it when it has more than
/// `max_file_bytes` bytes.
fn hash_one<E: From<SnapshotError>>(
    root: &Path,
    f: &ScannedFile,
    max_file_bytes: u64,
    dirs: &mut DirCache,
    hash: &HashFn<'_, E>,
) -> Result<(Digest, u64), E> {
    let fs_path = f.fs_path(root);
    let path = fs_path.as_path();
    let mut file = dirs.open(path)?;
    let mut result = None;
    if f.bytes() < READ_BUF as u64 {
        result = with_read_buf(|buf| match read_whole(&mut file, path, f.bytes(), buf) {
            Ok(Some(n)) => hash(path, Content::Bytes(&buf[..n])).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(E::from(e)),
        })?;
        if result.is_none() {
            // It grew past the buffer since the walk: read it again, streaming.
            file.seek(SeekFrom::Start(0))
                .map_err(|source| SnapshotError::Read {
                    path: path.into(),
                    source,
                })?;
        }
    } else {
        check_regular(&file, path)?;
    }
    let (blob, bytes) = match result {
        Some(r) => r,
        None => hash(path, Content::Stream(&mut file))?,
    };
    if bytes > max_file_bytes {
        return Err(SnapshotError::FileTooLarge {
            path: f.path.clone(),
            bytes,
            limit: max_file_bytes,
        }
        .into());
    }
    Ok((blob, bytes))
}

/// Reads `file` (the walk saw `walk_bytes` bytes, fewer than `buf` holds) from its start to its
/// end into `buf`. Returns `Some(n)`, the file's `n` bytes being `buf[..n]`, or `None` when the
/// file has more bytes than `buf` holds (it grew since the walk; read it streaming).
///
/// The file is known to be a regular file, without an `fstat`, when it yields exactly the
/// walk's `walk_bytes` (at least one) and then its end: `openat` with `O_NOFOLLOW` refused a
/// symbolic link, a directory fails the read (`EISDIR`), a socket fails the open, and a FIFO
/// (opened non-blocking) yields its end at once or fails with `EAGAIN`. Anything else (an empty
/// file, another length, a read error) is checked with an `fstat`, and a file that is no longer
/// regular is refused as [`SnapshotError::Changed`], as [`open_regular`] does. What remains
/// unchecked is a file replaced, between the walk and the read, by a FIFO whose writer wrote
/// exactly `walk_bytes` bytes and closed, or by a device node yielding exactly as many: bytes
/// someone with write access could as well have put in the file.
fn read_whole(
    file: &mut File,
    path: &Path,
    walk_bytes: u64,
    buf: &mut [u8],
) -> Result<Option<usize>, SnapshotError> {
    // One byte more than the walk saw, so that a file that grew is noticed.
    let want = usize::try_from(walk_bytes)
        .unwrap_or(usize::MAX)
        .saturating_add(1)
        .min(buf.len());
    let mut n = 0;
    let read: std::io::Result<bool> = loop {
        if n == want {
            break Ok(false);
        }
        match file.read(&mut buf[n..want]) {
            Ok(0) => break Ok(true),
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    if matches!(read, Ok(true)) && n > 0 && n as u64 == walk_bytes {
        return Ok(Some(n));
    }
    check_regular(file, path)?;
    match read {
        Ok(true) => Ok(Some(n)),
        Ok(false) if n < buf.len() => {
            // The walk's size plus one byte, and not yet the end: read on within the buffer.
            loop {
                if n == buf.len() {
                    return Ok(None);
                }
                match file.read(&mut buf[n..]) {
                    Ok(0) => return Ok(Some(n)),
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(source) => {
                        return Err(SnapshotError::Read {
                            path: path.into(),
                            source,
                        });
                    }
                }
            }
        }
        Ok(false) => Ok(None),
        Err(source) => Err(SnapshotError::Read {
            path: path.into(),
            source,
        }),
    }
}

/// Refuses `file` unless it is a regular file (one `fstat`).
fn check_regular(file: &File, path: &Path) -> Result<(), SnapshotError> {
    let md = file.metadata().map_err(|source| SnapshotError::Read {
        path: path.into(),
        source,
    })?;
    if md.is_file() {
        Ok(())
    } else {
        Err(SnapshotError::Changed(path.into()))
    }
}

/// The directory of the last file opened, kept open so that the next file in it is opened by
/// its name alone (`openat`: no walk of the whole path again).
#[derive(Default)]
struct DirCache {
    dir: Option<PathBuf>,
    fd: Option<OwnedFd>,
}

impl DirCache {
    /// Opens the file at `path` for reading, as [`open_regular`] does but without its `fstat`
    /// (the caller checks the type: [`read_whole`], [`check_regular`]).
    fn open(&mut self, path: &Path) -> Result<File, SnapshotError> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return open_regular(path);
        };
        if self.dir.as_deref() != Some(dir) {
            self.dir = Some(dir.to_path_buf());
            // Intermediate links are followed, as when the whole path is opened.
            self.fd = rustix::fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok();
        }
        let Some(fd) = &self.fd else {
            // The directory cannot be opened: open by the whole path, for the same error as
            // `open_regular` gives.
            return open_regular(path);
        };
        rustix::fs::openat(fd, name, flags, Mode::empty())
            .map(File::from)
            .map_err(|e| open_error(path, e.into()))
    }
}

/// The error of opening `path` for reading: a symbolic link there (`ELOOP` under `O_NOFOLLOW`)
/// means the file was replaced since the walk.
fn open_error(path: &Path, source: std::io::Error) -> SnapshotError {
    if source.raw_os_error() == Some(libc::ELOOP) {
        SnapshotError::Changed(path.into())
    } else {
        SnapshotError::Read {
            path: path.into(),
            source,
        }
    }
}

/// Opens `path` for reading without following a symbolic link and without blocking on a FIFO,
/// and checks that it is a regular file.
///
/// # Errors
/// [`SnapshotError::Read`] if it cannot be opened; [`SnapshotError::Changed`] if it is not a
/// regular file (it was replaced since the walk).
pub fn open_regular(path: &Path) -> Result<File, SnapshotError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|source| open_error(path, source))?;
    check_regular(&file, path)?;
    Ok(file)
}

/// SHA-256 and length of the regular file at `path`, read streaming.
///
/// # Errors
/// As [`open_regular`], plus read errors.
pub fn hash_file(path: &Path) -> Result<(Digest, u64), SnapshotError> {
    let mut file = open_regular(path)?;
    Digest::of_reader(&mut file).map_err(|source| SnapshotError::Read {
        path: path.into(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statcache::StatKey;

    /// A scanned file (below its parent directory) as the walk would give it, with the size
    /// the walk saw.
    fn scanned(fs_path: &Path, walk_bytes: u64) -> ScannedFile {
        let md = std::fs::symlink_metadata(fs_path).unwrap();
        ScannedFile {
            path: crate::path::WorkspacePath::new(
                fs_path.file_name().unwrap().to_str().unwrap().to_owned(),
            )
            .unwrap(),
            executable: false,
            stat: StatKey {
                size: walk_bytes,
                ..StatKey::of(&md)
            },
        }
    }

    fn one(root: &Path, f: &ScannedFile, max: u64) -> Result<(Digest, u64), SnapshotError> {
        hash_one(root, f, max, &mut DirCache::default(), &hash_content)
    }

    #[test]
    fn read_whole_matches_the_bytes_whatever_the_walk_saw() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let want = (Digest::of(&data), 5000);
        // As seen by the walk; grown since (walk saw fewer bytes); shrunk since (more).
        for walk in [5000, 10, 0, 4999, 5001, 200_000] {
            assert_eq!(
                one(dir.path(), &scanned(&p, walk), u64::MAX).unwrap(),
                want,
                "walk {walk}"
            );
        }
        // Empty, as seen and as grown.
        std::fs::write(&p, b"").unwrap();
        assert_eq!(
            one(dir.path(), &scanned(&p, 0), u64::MAX).unwrap(),
            (Digest::EMPTY, 0)
        );
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(
            one(dir.path(), &scanned(&p, 0), u64::MAX)
                .unwrap()
                .0
                .to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_file_that_grew_past_the_buffer_is_streamed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        let data: Vec<u8> = (0..(READ_BUF as u32 * 2 + 17))
            .map(|i| (i % 253) as u8)
            .collect();
        std::fs::write(&p, &data).unwrap();
        let want = (Digest::of(&data), data.len() as u64);
        // The walk saw a small file (one read is not enough), exactly the buffer, or the truth.
        for walk in [3, READ_BUF as u64 - 1, READ_BUF as u64, data.len() as u64] {
            assert_eq!(
                one(dir.path(), &scanned(&p, walk), u64::MAX).unwrap(),
                want,
                "walk {walk}"
            );
        }
        // The size limit applies to the bytes read, not to the walk's size.
        match one(dir.path(), &scanned(&p, 3), 1000) {
            Err(SnapshotError::FileTooLarge { bytes, limit, .. }) => {
                assert_eq!((bytes, limit), (data.len() as u64, 1000));
            }
            other => panic!("expected FileTooLarge, got {other:?}"),
        }
    }

    #[test]
    fn a_file_replaced_since_the_walk_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"hello").unwrap();
        let f = scanned(&p, 5);
        // A directory now.
        std::fs::remove_file(&p).unwrap();
        std::fs::create_dir(&p).unwrap();
        assert!(matches!(one(dir.path(), &f, u64::MAX), Err(SnapshotError::Changed(x)) if x == p));
        // A FIFO now (no writer: it reads as empty, which the walk's 5 bytes contradict).
        std::fs::remove_dir(&p).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(one(dir.path(), &f, u64::MAX), Err(SnapshotError::Changed(x)) if x == p));
        // A FIFO where the walk saw an empty file.
        assert!(
            matches!(one(dir.path(), &scanned(&p, 0), u64::MAX), Err(SnapshotError::Changed(x)) if x == p)
        );
        // A symbolic link now.
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", &p).unwrap();
        assert!(matches!(one(dir.path(), &f, u64::MAX), Err(SnapshotError::Changed(x)) if x == p));
        // Gone.
        std::fs::remove_file(&p).unwrap();
        match one(dir.path(), &f, u64::MAX) {
            Err(SnapshotError::Read { path, source }) => {
                assert_eq!(path, p);
                assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("expected Read, got {other:?}"),
        }
    }

    #[test]
    fn pass_reports_every_file_and_the_first_error_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for d in ["a", "b", "c"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
            for k in 0..150 {
                let p = dir.path().join(d).join(format!("f{k:03}"));
                let len = if k == 7 { READ_BUF + 3 } else { k * 10 };
                std::fs::write(&p, vec![k as u8; len]).unwrap();
                let mut f = scanned(&p, len as u64);
                f.path = crate::path::WorkspacePath::new(format!("{d}/f{k:03}")).unwrap();
                files.push(f);
            }
        }
        let misses: Vec<usize> = (0..files.len()).filter(|i| i % 5 != 0).collect();
        let mut got =
            hash_misses(dir.path(), &files, &misses, u64::MAX, &hash_content, None).unwrap();
        got.sort_by_key(|r| r.0);
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), misses);
        for (i, (blob, bytes)) in got {
            let data = std::fs::read(files[i].fs_path(dir.path())).unwrap();
            assert_eq!((blob, bytes), (Digest::of(&data), data.len() as u64));
        }
        // Two files gone: the error names the first in path order.
        std::fs::remove_file(files[301].fs_path(dir.path())).unwrap();
        std::fs::remove_file(files[152].fs_path(dir.path())).unwrap();
        match hash_misses(
            dir.path(),
            &files,
            &misses,
            u64::MAX,
            &hash_content,
            Some(5),
        ) {
            Err(SnapshotError::Read { path, .. }) => {
                assert_eq!(path, files[152].fs_path(dir.path()))
            }
            other => panic!("expected Read, got {:?}", other.map(|v| v.len())),
        }
    }
}
