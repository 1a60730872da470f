//! Atomic writes into the store (DESIGN section 3): temp file in the target directory, `fsync`,
//! rename, `fsync` of the directory.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::{StoreError, io_err};
use crate::hash::Digest;
use crate::path::WorkspacePath;

/// Writes `data` to `dir/name` atomically: a temp file in `dir`, `fsync`, rename over the
/// target, `fsync` of `dir`.
///
/// # Errors
/// [`StoreError::Io`] naming the file.
pub fn write_atomic(dir: &Path, name: &str, data: &[u8]) -> Result<(), StoreError> {
    write_atomic_with(dir, name, |f| f.write_all(data))
}

/// [`write_atomic`] of what `write` writes to the temp file (a document written in pieces,
/// never held whole).
///
/// # Errors
/// As [`write_atomic`].
pub fn write_atomic_with(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    Prepared::new(dir, name, write)?.commit()
}

/// A file of [`write_atomic_with`] written and synced under a temp name, not yet renamed into
/// place: so that a file that must only appear after others (a snapshot's document, after its
/// object) can be written while they are, and put in place once they are.
#[must_use = "nothing appears until it is committed"]
pub struct Prepared {
    dir: std::path::PathBuf,
    target: std::path::PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl Prepared {
    /// Creates the temp file in `dir`, lets `write` fill it, and syncs it.
    ///
    /// # Errors
    /// As [`write_atomic`].
    pub fn new(
        dir: &Path,
        name: &str,
        write: impl FnOnce(&mut File) -> std::io::Result<()>,
    ) -> Result<Prepared, StoreError> {
        let target = dir.join(name);
        crate::fault::point(&format!("create {}", target.display())).map_err(io_err(&target))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(dir)
            .map_err(io_err(dir))?;
        crate::fault::point(&format!("write {}", target.display())).map_err(io_err(&target))?;
        write(tmp.as_file_mut()).map_err(io_err(&target))?;
        crate::fault::point(&format!("fsync {}", target.display())).map_err(io_err(&target))?;
        tmp.as_file().sync_all().map_err(io_err(&target))?;
        Ok(Prepared {
            dir: dir.to_path_buf(),
            target,
            tmp,
        })
    }

    /// Renames it into place and syncs its directory. Dropped uncommitted, the temp file is
    /// removed.
    ///
    /// # Errors
    /// [`StoreError::Io`] naming the file or the directory.
    pub fn commit(self) -> Result<(), StoreError> {
        let Prepared { dir, target, tmp } = self;
        crate::fault::point(&format!("rename {}", target.display())).map_err(io_err(&target))?;
        tmp.persist(&target).map_err(|e| io_err(&target)(e.error))?;
        fsync_dir(&dir)
    }
}

/// Writes the executable-bit sidecar `<id>.exec.json` of a v0.1 snapshot into `dir` (the
/// store's `snapshots/`), unless it already holds exactly these bits.
///
/// # Errors
/// As [`write_atomic`].
pub(super) fn write_executable_bits(
    dir: &Path,
    id: &Digest,
    executable: &BTreeSet<WorkspacePath>,
) -> Result<(), StoreError> {
    let exec = serde_json::json!({ "executable": executable });
    let mut exec_bytes = serde_json::to_vec_pretty(&exec).expect("serialisable");
    exec_bytes.push(b'\n');
    let exec_name = format!("{id}.exec.json");
    let current = crate::regular::read(&dir.join(&exec_name)).ok();
    if current.as_deref() != Some(&exec_bytes[..]) {
        write_atomic(dir, &exec_name, &exec_bytes)?;
    }
    Ok(())
}

/// `fsync` of a directory, so that renames and creations in it are durable.
///
/// # Errors
/// [`StoreError::Io`] naming the directory.
pub fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
    crate::fault::point(&format!("fsync-dir {}", dir.display())).map_err(io_err(dir))?;
    File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(io_err(dir))
}
