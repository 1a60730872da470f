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

use crate::diff::{Change, Status};
use crate::path::WorkspacePath;
use crate::snapshot::hash_file;

/// Whether `path`, found on disk as `md`, is the very file (same device and inode) as one of
/// `deleted` that differs from it only by case or normalisation ([`crate::path::fold_key`]):
/// what a case-insensitive or normalising file system shows for a case-only rename.
fn same_file_as_a_deletion(
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
) -> Option<String> {
    use crate::path::BlockedParent;
    match crate::path::blocked_parent(root, path, |p| deleted.contains(p))? {
        BlockedParent::Link(p) => Some(format!(
            "{p} is a symbolic link; nothing is written through links"
        )),
        BlockedParent::File(p) => Some(format!("{p} is a file where a directory is needed")),
    }
}

/// Checks that each changed path still holds its base state. Returns the conflicts, sorted,
/// each `(path, reason)`; empty when the apply may go ahead.
pub(crate) fn check_preconditions(root: &Path, list: &[Change]) -> Vec<(String, String)> {
    let deleted: BTreeSet<&str> = list
        .iter()
        .filter(|c| c.status == Status::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    let mut out = Vec::new();
    for c in list {
        let p = c.path.as_str();
        // Directories on the way must be real directories (or a file this apply deletes).
        let blocked = blocked_parent(root, &c.path, &deleted);
        if let Some(reason) = blocked {
            out.push((p.to_owned(), reason));
            continue;
        }
        let target = c.path.to_fs_path(root);
        let md = std::fs::symlink_metadata(&target);
        match (&c.old, md) {
            (None, Err(_)) => {}
            // A case-insensitive file system: the new name opens the file this apply deletes
            // under its old spelling (a case-only rename); that file is checked as a deletion.
            (None, Ok(md)) if same_file_as_a_deletion(root, p, &md, &deleted) => {}
            (None, Ok(md)) if md.is_dir() && !md.file_type().is_symlink() => {
                // A directory the deletions must empty so the new file can take its place.
                if let Some(reason) = foreign_entry(&target, p, &deleted) {
                    out.push((p.to_owned(), reason));
                }
            }
            (None, Ok(_)) => out.push((
                p.to_owned(),
                "exists on disk, but the session adds it".into(),
            )),
            (Some(_), Err(_)) => out.push((
                p.to_owned(),
                "missing on disk; it was in the base snapshot".into(),
            )),
            (Some(_), Ok(md)) if md.file_type().is_symlink() => {
                out.push((p.to_owned(), "is a symbolic link on disk".into()))
            }
            (Some(_), Ok(md)) if !md.is_file() => {
                out.push((p.to_owned(), "is not a regular file on disk".into()))
            }
            (Some(old), Ok(md)) => {
                let exec = md.permissions().mode() & 0o100 != 0;
                match hash_file(&target) {
                    Ok((blob, _)) if blob != old.file.blob => out.push((
                        p.to_owned(),
                        format!(
                            "changed on disk since the session opened (base {}, now {blob})",
                            old.file.blob
                        ),
                    )),
                    Ok(_) if exec != old.executable => out.push((
                        p.to_owned(),
                        "its executable bit changed on disk since the session opened".into(),
                    )),
                    Ok(_) => {}
                    Err(e) => out.push((p.to_owned(), format!("cannot be read: {e}"))),
                }
            }
        }
    }
    out.sort();
    out
}

/// The first entry below the directory `dir` (workspace path `rel`) that is not a regular
/// file listed in `deleted`, described as a conflict reason; `None` when deleting `deleted`
/// leaves `dir` empty, so a file may replace it. A directory holding anything else (a file
/// the snapshot rules leave out, a link, a file another session added) is never emptied by
/// force: that would lose bytes nobody recorded.
pub(crate) fn foreign_entry(dir: &Path, rel: &str, deleted: &BTreeSet<&str>) -> Option<String> {
    for e in walkdir::WalkDir::new(dir).min_depth(1).follow_links(false) {
        let e = match e {
            Ok(e) => e,
            Err(err) => return Some(format!("is a directory that cannot be read: {err}")),
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
            Some(b) => {
                return Some(format!(
                    "is a directory holding {b}, which this change does not delete; the file cannot replace it"
                ));
            }
            None => {
                return Some(format!(
                    "is a directory holding {}, which this change does not delete; the file cannot replace it",
                    e.path().display()
                ));
            }
        }
    }
    None
}
