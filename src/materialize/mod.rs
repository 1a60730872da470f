//! Writing a stored snapshot into a directory: `open --checkout`, `verify`'s scratch directory
//! and `verify --workdir` (synced incrementally so build caches survive).
//!
//! A directory that is empty when the call starts takes a faster path that writes the same
//! bytes and bits (see `fresh.rs`: directories made once, files written in parallel under
//! their final names).
//!
//! Sync rule: every snapshot file whose content or executable bit differs on disk is written
//! (temp file in its directory, rename; every step relative to a directory descriptor opened
//! without following a link, see [`crate::beneath`]); every file on disk that the snapshot
//! rules would count as a member (not ignored, not excluded) but that the snapshot does not
//! hold is deleted.
//! Ignored and excluded files (for example `target/`) are left alone. Symbolic links or files
//! standing where a directory must be are replaced; links are never followed.

use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::beneath;
use crate::path::WorkspacePath;
use crate::snapshot::{Snapshot, SnapshotError, SnapshotOptions, scan};
use crate::store::{Store, StoreError, fsync_dir};

mod fresh;

/// Options for [`materialize`].
#[derive(Debug, Clone, Default)]
pub struct MaterializeOptions {
    /// `fsync` each written file and directory. Default: false (scratch directories).
    pub durable: bool,
    /// Snapshot rules for telling members from ignored files. Default: [`SnapshotOptions::default`].
    pub snapshot: SnapshotOptions,
    /// The workspace the snapshot came from: a file written here gets the permission bits of
    /// the same path in that directory ([`crate::fsmode::for_existing`]), so nothing is more
    /// readable than in the workspace; a path not there gets the umask's default. `None`:
    /// the file being replaced in the target directory gives the bits, as in `apply`.
    pub modes_from: Option<PathBuf>,
    /// A file (name at the top of the directory, bytes) written before any file of the
    /// snapshot, so that a checkout cut short (an error, a crash, Ctrl-C) still carries it:
    /// `verify --workdir` marks its directory so. A directory holding only this file counts as
    /// empty. The caller keeps it out of the snapshot's members through `snapshot.exclude`.
    /// Default: `None`.
    pub marker: Option<(&'static str, &'static [u8])>,
}

/// What [`materialize`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaterializeOutcome {
    /// Files written (new or different).
    pub written: usize,
    /// Files deleted.
    pub deleted: usize,
    /// Files already right, left alone.
    pub unchanged: usize,
}

/// Errors of [`materialize`]. Each names the path.
#[derive(Debug, thiserror::Error)]
pub enum MaterializeError {
    /// Reading the directory's current state failed.
    #[error(transparent)]
    Scan(#[from] SnapshotError),
    /// Reading an object from the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MaterializeError + '_ {
    move |source| MaterializeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Makes `dir` hold exactly `snapshot` (with `executable` bits), by the sync rule above.
/// Creates `dir` if missing.
///
/// # Errors
/// [`MaterializeError`] naming the path that could not be read or written.
pub fn materialize(
    store: &Store,
    snapshot: &Snapshot,
    executable: &BTreeSet<WorkspacePath>,
    dir: &Path,
    opts: &MaterializeOptions,
) -> Result<MaterializeOutcome, MaterializeError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // Checkouts and scratch directories are private: the obligations and the agent may read
    // files the workspace keeps from other users.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io(dir))?;
    // A new or empty directory (most checkouts): nothing to compare or delete.
    let empty = std::fs::read_dir(dir).is_ok_and(|mut entries| {
        entries
            .find(|e| !matches!((e, opts.marker), (Ok(e), Some((m, _))) if e.file_name() == m))
            .is_none()
    });
    if let Some((name, bytes)) = opts.marker {
        let marker = dir.join(name);
        std::fs::write(&marker, bytes).map_err(io(&marker))?;
    }
    if empty
        && let fresh::Fresh::Done(outcome) =
            fresh::write_fresh(store, snapshot, executable, dir, opts)?
    {
        return Ok(outcome);
    }
    let present = scan(dir, &opts.snapshot)?;
    let mut outcome = MaterializeOutcome::default();
    let wanted: BTreeSet<&str> = snapshot.files().iter().map(|f| f.path.as_str()).collect();
    for f in &present.files {
        if !wanted.contains(f.path.as_str()) {
            let (parent, leaf) = beneath::split(f.path.as_str());
            beneath::open_dir(dir, parent)
                .and_then(|fd| beneath::unlink(&fd, leaf))
                .map_err(io(&f.fs_path(dir)))?;
            outcome.deleted += 1;
        }
    }
    let on_disk: std::collections::BTreeMap<&str, &crate::snapshot::ScannedFile> =
        present.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut touched_dirs = BTreeSet::new();
    for f in snapshot.files() {
        let exec = executable.contains(&f.path);
        if let Some(d) = on_disk.get(f.path.as_str())
            && d.bytes() == f.bytes
            && d.executable == exec
        {
            let (blob, _) = crate::snapshot::hash_file(&d.fs_path(dir))?;
            if blob == f.blob {
                outcome.unchanged += 1;
                continue;
            }
        }
        let target = f.path.to_fs_path(dir);
        let (parent, pfd) = prepare_parent(dir, &f.path)?;
        let leaf = beneath::split(f.path.as_str()).1;
        // Whatever stands at the target and is not a regular file goes (a link, a directory).
        match beneath::kind(&pfd, leaf) {
            Some(beneath::Kind::Dir) => beneath::remove_tree(&pfd, leaf).map_err(io(&target))?,
            Some(beneath::Kind::Link | beneath::Kind::Other) => {
                beneath::unlink(&pfd, leaf).map_err(io(&target))?;
            }
            Some(beneath::Kind::File) | None => {}
        }
        let mode = match &opts.modes_from {
            Some(ws) => crate::fsmode::for_path(&f.path.to_fs_path(ws), exec),
            None => crate::fsmode::for_path(&target, exec),
        };
        write_blob_at(store, &f.blob, &pfd, leaf, &target, mode, opts.durable)?;
        touched_dirs.insert(parent);
        outcome.written += 1;
    }
    if opts.durable {
        for d in &touched_dirs {
            fsync_dir(d)?;
        }
    }
    Ok(outcome)
}

/// Creates the parent directories of `path` under `root`, replacing any file or symbolic link
/// that stands where a directory must be; every step relative to its parent's descriptor, no
/// link followed ([`crate::beneath`]). Returns the parent directory's path and descriptor.
fn prepare_parent(
    root: &Path,
    path: &WorkspacePath,
) -> Result<(PathBuf, OwnedFd), MaterializeError> {
    let mut cur = root.to_path_buf();
    let mut fd = beneath::open_root(root).map_err(io(root))?;
    let comps: Vec<&str> = path.components().collect();
    for c in &comps[..comps.len() - 1] {
        cur.push(c);
        fd = match beneath::open_child_dir(&fd, c) {
            Ok(child) => child,
            Err(e) => {
                match e.raw_os_error() {
                    Some(libc::ELOOP | libc::ENOTDIR) => {
                        beneath::unlink(&fd, c).map_err(io(&cur))?;
                    }
                    Some(libc::ENOENT) => {}
                    _ => return Err(io(&cur)(e)),
                }
                beneath::mkdir(&fd, c).map_err(io(&cur))?;
                beneath::open_child_dir(&fd, c).map_err(io(&cur))?
            }
        };
    }
    Ok((cur, fd))
}

/// Writes the object `blob` to `target` through a temp file in `parent` (created `0600`), with
/// the permission bits `mode` (see [`crate::fsmode`]), renamed into place.
///
/// # Errors
/// Store read errors (missing or corrupt object) and write errors naming `target`.
pub fn write_blob(
    store: &Store,
    blob: &crate::hash::Digest,
    parent: &Path,
    target: &Path,
    mode: u32,
    durable: bool,
) -> Result<(), MaterializeError> {
    let pfd = beneath::open_root(parent).map_err(io(parent))?;
    let leaf = target
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io(target)(std::io::Error::from_raw_os_error(libc::EINVAL)))?;
    write_blob_at(store, blob, &pfd, leaf, target, mode, durable)
}

/// [`write_blob`] relative to the directory descriptor `parent`: the temp file is created
/// `O_EXCL | O_NOFOLLOW` there and renamed to `leaf` there (`target` names it in errors).
///
/// # Errors
/// As [`write_blob`]; the temp file is removed on failure.
fn write_blob_at(
    store: &Store,
    blob: &crate::hash::Digest,
    parent: &OwnedFd,
    leaf: &str,
    target: &Path,
    mode: u32,
    durable: bool,
) -> Result<(), MaterializeError> {
    let (mut f, tmp) = beneath::create_temp(parent, ".genesis-tmp-").map_err(io(target))?;
    let result = (|| {
        store.copy_object_named(blob, &mut f, Some(target))?;
        f.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io(target))?;
        if durable {
            f.sync_all().map_err(io(target))?;
        }
        beneath::rename(parent, &tmp, parent, leaf).map_err(io(target))
    })();
    if result.is_err() {
        let _ = beneath::unlink(parent, &tmp);
    }
    result
}
