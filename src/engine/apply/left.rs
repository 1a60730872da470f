//! What an `apply` leaves under the directories the session deletes: files the snapshot rules
//! kept out of the snapshots (ignored by `.gitignore`, or not members otherwise). git leaves
//! them too (`git rm -r DIR` keeps its ignored files, and the directory with them); apply
//! names them, since the workspace then holds more than the verified snapshot.

use std::collections::BTreeSet;
use std::path::Path;

use crate::snapshot::Snapshot;

/// The directories (`/`-separated, relative to the root) `snapshot` has files under.
fn dirs_of(snapshot: &Snapshot) -> BTreeSet<&str> {
    let mut dirs = BTreeSet::new();
    for f in snapshot.files() {
        let p = f.path.as_str();
        dirs.extend(p.match_indices('/').map(|(i, _)| &p[..i]));
    }
    dirs
}

/// The files and other non-directory entries under `root` that lie in a directory `base` has
/// files under and `current` has none under, other than `base`'s own files there (those apply
/// deletes): relative to `root`, `/`-separated (names that are not UTF-8 lossily), sorted.
/// Symbolic links are listed, never followed; an entry that cannot be read is passed over.
pub(crate) fn left_under_deleted(root: &Path, base: &Snapshot, current: &Snapshot) -> Vec<String> {
    let kept = dirs_of(current);
    let gone: BTreeSet<&str> = dirs_of(base).difference(&kept).copied().collect();
    let members: BTreeSet<&str> = base.files().iter().map(|f| f.path.as_str()).collect();
    let mut left = Vec::new();
    // Top-most only: a deleted directory's sub-directories are walked with it.
    for dir in gone
        .iter()
        .filter(|d| d.rfind('/').is_none_or(|i| !gone.contains(&d[..i])))
    {
        walk(root, dir, &members, &mut left);
    }
    left.sort();
    left
}

fn walk(root: &Path, dir: &str, members: &BTreeSet<&str>, left: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for e in entries.flatten() {
        let path = format!("{dir}/{}", e.file_name().to_string_lossy());
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(root, &path, members, left),
            Ok(_) if !members.contains(path.as_str()) => left.push(path),
            _ => {}
        }
    }
}
