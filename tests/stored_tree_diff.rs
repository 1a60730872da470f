//! `diff` and `check` of two stored v0.2 trees (issue 11, part 3) descend only into
//! directories whose node identities differ: with the node of an unchanged directory removed
//! from the store they still give the one changed path, while reading either tree whole fails.
//! (`tree::tests::diff_reads_only_differing_nodes` counts the node reads of `tree::diff`.)

mod common;

use std::path::Path;

use common::*;
use genesis::diff::{Operand, Tree, changes};
use genesis::hash::Digest;
use genesis::store::Store;
use genesis::tree::NodeSource;

/// 4,200 files in t0..t2/s00..s19 (70 each) and `deep/a/b/c/f.txt`.
fn big_tree(root: &Path) {
    for t in 0..3 {
        for s in 0..20 {
            let d = root.join(format!("t{t}/s{s:02}"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..70 {
                std::fs::write(d.join(format!("f{f:02}.txt")), format!("{t} {s} {f}\n")).unwrap();
            }
        }
    }
    std::fs::create_dir_all(root.join("deep/a/b/c")).unwrap();
    std::fs::write(root.join("deep/a/b/c/f.txt"), b"deep\n").unwrap();
}

fn identity(ws: &Path) -> String {
    let o = run_in(ws, &["snapshot", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o).trim_end().to_owned()
}

#[test]
fn diff_and_check_of_stored_trees_read_only_differing_nodes() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    big_tree(&ws);
    assert_eq!(run_in(&ws, &["init"]).status.code(), Some(0));
    let a = identity(&ws);
    std::fs::write(ws.join("deep/a/b/c/f.txt"), b"changed\n").unwrap();
    let b = identity(&ws);
    let store = Store::open(&ws.join(".genesis")).unwrap();
    let (ia, ib): (Digest, Digest) = (a.parse().unwrap(), b.parse().unwrap());

    // Node by node gives what the full lists give.
    let full = changes(
        &Tree::from_store(&store, &ia).unwrap(),
        &Tree::from_store(&store, &ib).unwrap(),
    );
    let (ta, tb) = Tree::compare(
        Operand::Stored(store.clone(), ia),
        Operand::Stored(store.clone(), ib),
    )
    .unwrap();
    assert!(ta.is_partial() && tb.is_partial());
    assert_eq!(ta.snapshot.identity(), ia);
    assert_eq!(tb.snapshot.identity(), ib);
    assert_eq!(changes(&ta, &tb), full);
    assert_eq!(full.len(), 1);

    // Remove the node of t1 (unchanged, shared by both trees): the whole trees can no longer
    // be read, but the diff never needs it.
    let root = store.node(&ia).unwrap();
    let t1 = root
        .directories
        .iter()
        .find(|e| e.name == "t1")
        .unwrap()
        .node;
    let hex = t1.to_string();
    std::fs::remove_file(ws.join(".genesis/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
    assert!(Tree::from_store(&store, &ia).is_err());

    let o = run_in(&ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\tdeep/a/b/c/f.txt\n");
    let o = run_in(&ws, &["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "diff --git a/deep/a/b/c/f.txt b/deep/a/b/c/f.txt\n--- a/deep/a/b/c/f.txt\n+++ b/deep/a/b/c/f.txt\n@@ -1 +1 @@\n-deep\n+changed\n"
    );

    let out = genesis::check::check_stored(&store, &ib, &ia).unwrap();
    assert!(!out.matches());
    assert_eq!((out.actual, out.expected), (ib, ia));
    let paths: Vec<(char, &str)> = out
        .differences
        .iter()
        .map(|c| (c.status.letter(), c.path.as_str()))
        .collect();
    assert_eq!(paths, [('M', "deep/a/b/c/f.txt")]);
    assert!(
        genesis::check::check_stored(&store, &ib, &ib)
            .unwrap()
            .matches()
    );

    // A diff against the directory needs the whole stored tree: the missing node is store
    // corruption (exit 4).
    let o = run_in(&ws, &["diff", "--name-status", &a, "."]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains(&hex), "{}", stderr(&o));
}
