//! The case-fold collision check's fast path (issue 11, part 3): `Snapshot::fold_collisions`
//! hashes each name once (directories once, ASCII names without Unicode normalisation) and
//! must give exactly the groups of the plain rule — every file path and every directory
//! prefix grouped by `path::fold_key`, groups of two or more, sorted.

use std::collections::{BTreeSet, HashMap};

use genesis::hash::Digest;
use genesis::path::{WorkspacePath, fold_key};
use genesis::snapshot::{Snapshot, SnapshotFile};
use proptest::prelude::*;

/// The rule as written before the fast path: every prefix of every path, folded in full.
fn reference(files: &[SnapshotFile]) -> Vec<Vec<String>> {
    let mut groups: HashMap<String, BTreeSet<&str>> = HashMap::new();
    for f in files {
        let p = f.path.as_str();
        let ends = p.match_indices('/').map(|(i, _)| i).chain([p.len()]);
        for end in ends {
            groups
                .entry(fold_key(&p[..end]))
                .or_default()
                .insert(&p[..end]);
        }
    }
    let mut out: Vec<Vec<String>> = groups
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|g| g.into_iter().map(str::to_owned).collect())
        .collect();
    out.sort();
    out
}

fn snapshot(paths: &BTreeSet<String>) -> Option<Snapshot> {
    // A path that is also a directory of another path cannot be on disk: leave those out.
    let files: Vec<SnapshotFile> = paths
        .iter()
        .filter(|p| !paths.iter().any(|q| q.starts_with(&format!("{p}/"))))
        .map(|p| SnapshotFile {
            path: WorkspacePath::new(p.clone()).unwrap(),
            blob: Digest::of(p.as_bytes()),
            bytes: 1,
        })
        .collect();
    Snapshot::from_files(files).ok()
}

#[test]
fn groups_of_a_known_tree() {
    let paths: BTreeSet<String> = [
        "README.md",
        "readme.md",
        "Src/x.rs",
        "src/x.rs",
        "src/y.rs",
        "caf\u{e9}/a",
        "cafe\u{301}/a",
        "ΟΔΟΣ",
        "οδος",
        "plain",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let s = snapshot(&paths).unwrap();
    let want: Vec<Vec<String>> = vec![
        vec!["README.md".into(), "readme.md".into()],
        vec!["Src".into(), "src".into()],
        vec!["Src/x.rs".into(), "src/x.rs".into()],
        vec!["cafe\u{301}".into(), "caf\u{e9}".into()],
        vec!["cafe\u{301}/a".into(), "caf\u{e9}/a".into()],
        vec!["ΟΔΟΣ".into(), "οδος".into()],
    ];
    assert_eq!(s.fold_collisions(), want);
    assert_eq!(reference(s.files()), want);
}

proptest! {
    #[test]
    fn fast_groups_equal_the_plain_rule(
        paths in prop::collection::btree_set(
            "[aAbB\u{e9}\u{c9}\u{3c3}\u{3c2}\u{3a3}ßs]{1,3}(/[aAbBe\u{301}\u{e9}Ss]{1,2}){0,3}", 1..40)
    ) {
        if let Some(s) = snapshot(&paths) {
            prop_assert_eq!(s.fold_collisions(), reference(s.files()));
        }
    }
}

/// Past 16,384 files the names are hashed in pieces, in parallel, each piece starting from
/// the path before it: directories that span a piece's start are still seen once (no
/// spurious group), and groups whose names fall in different pieces are still found.
#[test]
fn groups_across_the_pieces_of_a_large_list() {
    let mut paths = BTreeSet::new();
    for i in 0..40_000u32 {
        // 400 directories of 100 files: a piece starts inside many of them.
        paths.insert(format!("d{:03}/sub/f{:05}", i / 100, i));
    }
    // Groups far apart in the list (one name in the first piece, one in the last), and one
    // within a directory that spans a piece's start (file 16,384 is in d163).
    paths.insert("D000/x".to_string());
    paths.insert("d399/SUB/y".to_string());
    paths.insert("d163/sub/F16384".to_string());
    let files: Vec<SnapshotFile> = paths
        .iter()
        .map(|p| SnapshotFile {
            path: WorkspacePath::new(p.clone()).unwrap(),
            blob: Digest::of(b"x"),
            bytes: 1,
        })
        .collect();
    let s = Snapshot::with_executable(files, &BTreeSet::new(), None).unwrap();
    let want: Vec<Vec<String>> = vec![
        vec!["D000".into(), "d000".into()],
        vec!["d163/sub/F16384".into(), "d163/sub/f16384".into()],
        vec!["d399/SUB".into(), "d399/sub".into()],
    ];
    assert_eq!(reference(s.files()), want);
    assert_eq!(s.fold_collisions(), want);
}
