//! The preconditions of writing a session's changes into the workspace.
//!
//! Preconditions ([`check_preconditions`]): compare-and-swap per path. Every path the session
//! changes must still hold its base content on disk (a regular file with the base blob and
//! executable bit, or nothing where the base had nothing), and no directory on the way to it
//! may be a symbolic link.
//!
//! The writing itself is journaled: see [`crate::journal`].

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rayon::prelude::*;

use crate::diff::{Change, ChangeStatus};
use crate::engine::{ConflictKind, PathConflict};
use crate::hash::{Digest, Hasher};
use crate::path::WorkspacePath;
use crate::snapshot::{SnapshotError, open_regular};

/// Whether `path`, found on disk as `md`, is the very file (same device and inode) as one of
/// `deleted` that differs from it only by case or normalisation ([`crate::path::fold_key`]):
/// what a case-insensitive or normalising file system shows for a case-only rename.
pub(crate) fn same_file_as_a_deletion(
    root: &Path,
    path: &str,
    md: &std::fs::Metadata,
    deleted: &BTreeSet<&str>,
) -> bool {
    use std::os::unix::fs::MetadataExt;
    let key = crate::path::fold_key(path);
    deleted.iter().any(|d| {
        *d != path
            && crate::path::fold_key(d) == key
            && std::fs::symlink_metadata(root.join(d))
                .is_ok_and(|o| o.is_file() && o.dev() == md.dev() && o.ino() == md.ino())
    })
}

/// Why a directory on the way to `path` under `root` stops a write there: a symbolic link, or
/// a file that is not in `deleted` (a file this change deletes may stand where a directory
/// will be). `None` when every existing parent is a real directory.
pub(crate) fn blocked_parent(
    root: &Path,
    path: &WorkspacePath,
    deleted: &BTreeSet<&str>,
) -> Option<ConflictKind> {
    use crate::path::BlockedParent;
    match crate::path::blocked_parent(root, path, |p| deleted.contains(p))? {
        BlockedParent::Link(p) => Some(ConflictKind::LinkParent(p)),
        BlockedParent::File(p) => Some(ConflictKind::FileParent(p)),
    }
}

/// Checks that each changed path still holds its base state. Returns the conflicts, sorted,
/// each a path and its [`ConflictKind`]; empty when the apply may go ahead.
pub(crate) fn check_preconditions(root: &Path, list: &[Change]) -> Vec<PathConflict> {
    let deleted: BTreeSet<&str> = list
        .iter()
        .filter(|c| c.status == ChangeStatus::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    // Each path is judged on its own (one `lstat` per directory on the way, and the file
    // hashed): spread over rayon's threads, then sorted.
    let mut out: Vec<PathConflict> = list
        .par_iter()
        .filter_map(|c| conflict_at(root, c, &deleted))
        .collect();
    PathConflict::sort(&mut out);
    out
}

/// The conflict at one changed path, if it does not hold its base state (see
/// [`check_preconditions`]).
fn conflict_at(root: &Path, c: &Change, deleted: &BTreeSet<&str>) -> Option<PathConflict> {
    let p = c.path.as_str();
    // Directories on the way must be real directories (or a file this apply deletes).
    if let Some(reason) = blocked_parent(root, &c.path, deleted) {
        return Some(PathConflict::new(p, reason));
    }
    let target = c.path.to_fs_path(root);
    let md = std::fs::symlink_metadata(&target);
    let kind = match (&c.old, md) {
        (None, Err(_)) => return None,
        // A case-insensitive file system: the new name opens the file this apply deletes
        // under its old spelling (a case-only rename); that file is checked as a deletion.
        (None, Ok(md)) if same_file_as_a_deletion(root, p, &md, deleted) => return None,
        (None, Ok(md)) if md.is_dir() && !md.file_type().is_symlink() => {
            // A directory the deletions must empty so the new file can take its place.
            foreign_entry(&target, p, deleted)?
        }
        (None, Ok(_)) => ConflictKind::AddedButExists,
        (Some(_), Err(_)) => ConflictKind::Missing,
        (Some(_), Ok(md)) if md.file_type().is_symlink() => ConflictKind::Link,
        (Some(_), Ok(md)) if !md.is_file() => ConflictKind::NotRegular,
        (Some(old), Ok(md)) => {
            let exec = md.permissions().mode() & 0o100 != 0;
            match hash_regular(&target) {
                Ok(blob) if blob != old.file.blob => ConflictKind::Changed {
                    base: old.file.blob,
                    now: blob,
                },
                Ok(_) if exec != old.executable => ConflictKind::ModeChanged,
                Ok(_) => return None,
                Err(e) => ConflictKind::Unreadable(e.to_string()),
            }
        }
    };
    Some(PathConflict::new(p, kind))
}

thread_local! {
    /// The read buffer of [`hash_regular`], one per thread.
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`crate::snapshot::hash_file`] (same opening, same errors) reading through one buffer
/// per thread rather than a fresh one per file: the SHA-256 of the regular file at `path`.
fn hash_regular(path: &Path) -> Result<Digest, SnapshotError> {
    use std::io::Read;
    let mut file = open_regular(path)?;
    BUFFER.with(|cell| {
        let mut buf = cell.borrow_mut();
        buf.resize(256 * 1024, 0);
        let mut hasher = Hasher::new();
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(SnapshotError::Read {
                        path: path.into(),
                        source,
                    });
                }
            }
        }
        Ok(hasher.finish())
    })
}

/// The first entry below the directory `dir` (workspace path `rel`) that is not a regular
/// file listed in `deleted`, as a conflict; `None` when deleting `deleted`
/// leaves `dir` empty, so a file may replace it. A directory holding anything else (a file
/// the snapshot rules leave out, a link, a file another session added) is never emptied by
/// force: that would lose bytes nobody recorded.
pub(crate) fn foreign_entry(
    dir: &Path,
    rel: &str,
    deleted: &BTreeSet<&str>,
) -> Option<ConflictKind> {
    for e in walkdir::WalkDir::new(dir).min_depth(1).follow_links(false) {
        let e = match e {
            Ok(e) => e,
            Err(err) => return Some(ConflictKind::UnreadableDir(err.to_string())),
        };
        if e.file_type().is_dir() {
            continue;
        }
        let below = e
            .path()
            .strip_prefix(dir)
            .ok()
            .and_then(|p| p.to_str())
            .map(|p| format!("{rel}/{p}"));
        match below {
            Some(b) if e.file_type().is_file() && deleted.contains(b.as_str()) => {}
            Some(b) => return Some(ConflictKind::ForeignEntry(b)),
            None => {
                return Some(ConflictKind::ForeignEntry(e.path().display().to_string()));
            }
        }
    }
    None
}
