//! The case-fold collision check of a snapshot ([`super::Snapshot::fold_collisions`]): the
//! groups of names that share one [`crate::path::fold_key`].
//!
//! Folding (case folding and Unicode normalisation) never joins or splits path components: `/`
//! is a starter that neither folds nor composes. So two different paths fold together only if,
//! at the first component where they differ, two entries of one directory (the same parent,
//! byte for byte) fold together. The check therefore first compares each directory's entries
//! only ([`siblings_apart`]: short names, small sorts, no table of every path), and looks at
//! whole paths only when two of those meet.

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;

use super::SnapshotFile;
use crate::path::fold_key_hash;

/// The groups of names (files, or directories on the way to them) of `files` (sorted by path
/// bytes) that share one fold key, each sorted, the groups sorted by their first name.
pub(super) fn collisions(files: &[SnapshotFile]) -> Vec<Vec<String>> {
    // A fast keyed hash (foldhash): the names are the tree's own; a meeting of hashes is only
    // a suspect, checked in full below.
    let state = foldhash::fast::RandomState::default();
    if siblings_apart(files, &state) {
        return Vec::new();
    }
    let mut hashes: Vec<u64> = Vec::with_capacity(files.len() + files.len() / 8);
    let mut buf = Vec::new();
    each_name(files, |name| {
        hashes.push(fold_key_hash(name, &mut buf, &state))
    });
    hashes.sort_unstable();
    let met: std::collections::HashSet<u64> = hashes
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    drop(hashes);
    let mut groups: HashMap<String, BTreeSet<&str>> = HashMap::new();
    each_name(files, |name| {
        if met.contains(&fold_key_hash(name, &mut buf, &state)) {
            groups
                .entry(crate::path::fold_key(name))
                .or_default()
                .insert(name);
        }
    });
    let mut out: Vec<Vec<String>> = groups
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|g| g.into_iter().map(str::to_owned).collect())
        .collect();
    out.sort();
    out
}

/// Whether no two entries of one directory of `files` (sorted by path bytes) have equal hashes
/// of their folded names under `state`: then no two paths fold together (module docs). One
/// pass: a directory's paths are contiguous in the sorted list, so it is entered once and left
/// for good; its entries' hashes are gathered while it is open (after its parent's, in one
/// buffer), sorted and compared when it is left.
fn siblings_apart(files: &[SnapshotFile], state: &impl BuildHasher) -> bool {
    let mut hashes: Vec<u64> = Vec::new();
    // The open directories, the root first: the length of each one's path with its `/` (0 for
    // the root), and where its entries' hashes start in `hashes`.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    let mut buf = Vec::new();
    let mut prev = "";
    for f in files {
        let p = f.path.as_str();
        // Leave the directories `p` is not in (each is a prefix of `prev`).
        while let Some(&(len, start)) = open.last().filter(|_| open.len() > 1) {
            if p.len() > len && p.as_bytes()[..len] == prev.as_bytes()[..len] {
                break;
            }
            if !distinct(&mut hashes[start..]) {
                return false;
            }
            hashes.truncate(start);
            open.pop();
        }
        // Enter the directories on the way to `p`; each name is an entry of its parent.
        let mut at = open.last().map_or(0, |o| o.0);
        while let Some(i) = p[at..].find('/') {
            hashes.push(fold_key_hash(&p[at..at + i], &mut buf, state));
            at += i + 1;
            open.push((at, hashes.len()));
        }
        hashes.push(fold_key_hash(&p[at..], &mut buf, state));
        prev = p;
    }
    while let Some((_, start)) = open.pop() {
        if !distinct(&mut hashes[start..]) {
            return false;
        }
        hashes.truncate(start);
    }
    true
}

/// Whether the hashes are all different (sorts them).
fn distinct(hashes: &mut [u64]) -> bool {
    hashes.sort_unstable();
    hashes.windows(2).all(|w| w[0] != w[1])
}

/// Calls `f` with each file's path and each directory on the way to one (`a`, `a/b` for
/// `a/b/c`), each once: a directory where the sorted list enters it.
fn each_name<'a>(files: &'a [SnapshotFile], mut f: impl FnMut(&'a str)) {
    let mut prev = "";
    for file in files {
        let p = file.path.as_str();
        // Directories ending before the first byte where `p` leaves `prev` were seen with
        // `prev` (the list is sorted, so a directory's paths are contiguous).
        let common = p
            .bytes()
            .zip(prev.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        for (i, _) in p.match_indices('/').filter(|(i, _)| *i >= common) {
            f(&p[..i]);
        }
        f(p);
        prev = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::Digest;
    use crate::path::WorkspacePath;

    fn files(paths: &[&str]) -> Vec<SnapshotFile> {
        let mut v: Vec<SnapshotFile> = paths
            .iter()
            .map(|p| SnapshotFile {
                path: WorkspacePath::new(*p).unwrap(),
                blob: Digest::of(p.as_bytes()),
                bytes: 1,
            })
            .collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }

    /// Each kind of meeting is found among siblings, at the root and deep, across the entries
    /// of a directory split by a sub-directory's paths; equal names in different directories
    /// are not a meeting.
    #[test]
    fn siblings_meet_where_paths_fold_together() {
        let state = foldhash::fast::RandomState::default();
        let apart = |p: &[&str]| siblings_apart(&files(p), &state);
        assert!(apart(&["a/x", "b/x", "a/y/x", "X"]));
        assert!(apart(&["README", "src/readme", "src/a/README"]));
        assert!(!apart(&["README", "readme"]));
        assert!(!apart(&["a/b/README", "a/b/readme"]));
        // `A` a directory, `a` a file: entries of the root.
        assert!(!apart(&["A/x", "a"]));
        // The two names on either side of a sub-directory's paths.
        assert!(!apart(&["d/M0", "d/m/x", "d/m/y", "d/m0"]));
        assert!(!apart(&["d/N", "d/m/x", "d/n"]));
        assert!(!apart(&["caf\u{e9}", "cafe\u{301}"]));
        assert!(apart(&["d/x", "e/X"]));
    }
}
