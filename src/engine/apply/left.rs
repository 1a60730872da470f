//! What an `apply` leaves under the directories the session deletes: files the snapshot rules
//! kept out of the snapshots (ignored by `.gitignore`, or not members otherwise). git leaves
//! them too (`git rm -r DIR` keeps its ignored files, and the directory with them); apply
//! names them, since the workspace then holds more than the verified snapshot.

use std::collections::BTreeSet;
use std::path::Path;

use crate::snapshot::{Snapshot, SnapshotFile};

/// Whether `files` (sorted by path bytes) holds a path under directory `dir`: those paths
/// start with `dir/` and so lie together in the sorted list. Cost: one binary search.
fn has_files_under(files: &[SnapshotFile], dir: &str) -> bool {
    let at = files.partition_point(|f| f.path.as_str() < dir);
    files[at..]
        .iter()
        .take_while(|f| f.path.as_str().starts_with(dir))
        .any(|f| f.path.as_str().as_bytes().get(dir.len()) == Some(&b'/'))
}

/// The paths of `base` that `current` does not hold (both sorted by path bytes), in order.
/// Cost: one merge of the two lists, nothing allocated per file.
fn deleted<'a>(base: &'a [SnapshotFile], current: &[SnapshotFile]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut c = current.iter().map(|f| f.path.as_str()).peekable();
    for f in base.iter().map(|f| f.path.as_str()) {
        while c.next_if(|p| *p < f).is_some() {}
        if c.next_if_eq(&f).is_none() {
            out.push(f);
        }
    }
    out
}

/// The files and other non-directory entries under `root` that lie in a directory `base` has
/// files under and `current` has none under, other than `base`'s own files there (those apply
/// deletes): relative to `root`, `/`-separated (names that are not UTF-8 lossily), sorted.
/// Symbolic links are listed, never followed; an entry that cannot be read is passed over.
///
/// Cost grows with the change: only the directories of the deleted files are candidates, each
/// decided by a binary search in `current`; only deleted directories are read from disk.
pub(crate) fn left_under_deleted(root: &Path, base: &Snapshot, current: &Snapshot) -> Vec<String> {
    let mut gone: BTreeSet<&str> = BTreeSet::new();
    for p in deleted(base.files(), current.files()) {
        for (i, _) in p.match_indices('/') {
            let dir = &p[..i];
            if !gone.contains(dir) && !has_files_under(current.files(), dir) {
                gone.insert(dir);
            }
        }
    }
    let mut left = Vec::new();
    // Top-most only: a deleted directory's sub-directories are walked with it.
    for dir in gone
        .iter()
        .filter(|d| d.rfind('/').is_none_or(|i| !gone.contains(&d[..i])))
    {
        walk(root, dir, base.files(), &mut left);
    }
    left.sort();
    left
}

fn walk(root: &Path, dir: &str, members: &[SnapshotFile], left: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for e in entries.flatten() {
        let path = format!("{dir}/{}", e.file_name().to_string_lossy());
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(root, &path, members, left),
            Ok(_)
                if members
                    .binary_search_by(|f| f.path.as_str().cmp(path.as_str()))
                    .is_err() =>
            {
                left.push(path)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::Digest;
    use crate::path::WorkspacePath;
    use crate::snapshot::SnapshotFile;

    fn snap(paths: &[&str]) -> Snapshot {
        Snapshot::from_files(
            paths
                .iter()
                .map(|p| SnapshotFile {
                    path: WorkspacePath::new(*p).unwrap(),
                    blob: Digest::of(p.as_bytes()),
                    bytes: p.len() as u64,
                })
                .collect(),
        )
        .unwrap()
    }

    /// `a` is deleted while `a-b`, `a.b` and `a0` (which sort on either side of `a/`) stay; a
    /// directory that keeps one file (`k`) is not deleted; an ignored file under a deleted
    /// sub-directory is found, a member file left on disk is not listed.
    #[test]
    fn only_directories_left_without_files_are_read() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for p in [
            "a/x/ignored.o",
            "a/member.txt",
            "a-b/y",
            "a.b/y",
            "a0/y",
            "k/ign",
            "k/keep",
        ] {
            std::fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
            std::fs::write(r.join(p), p).unwrap();
        }
        let base = snap(&[
            "a-b/y",
            "a.b/y",
            "a/member.txt",
            "a/x/m",
            "a0/y",
            "k/gone",
            "k/keep",
        ]);
        let current = snap(&["a-b/y", "a.b/y", "a0/y", "k/keep"]);
        assert_eq!(
            deleted(base.files(), current.files()),
            ["a/member.txt", "a/x/m", "k/gone"]
        );
        assert!(has_files_under(current.files(), "a-b"));
        assert!(!has_files_under(current.files(), "a"));
        assert!(!has_files_under(current.files(), "a-"));
        assert_eq!(left_under_deleted(r, &base, &current), ["a/x/ignored.o"]);
    }
}
