//! Trees nested deeper than a path may be (`genesis::path::MAX_DEPTH` components): refused with
//! a message naming the directory, never walked into (each level is one call deeper: a tree
//! 1,000 levels deep overflowed a thread's stack and aborted the process, a fresh reviewer's
//! finding in session 11). A patch cannot create such a path either.

mod common;

use common::*;
use genesis::path::MAX_DEPTH;

/// `d/d/…/d` with `levels` directories.
fn chain(levels: usize) -> String {
    vec!["d"; levels].join("/")
}

#[test]
fn a_tree_deeper_than_the_limit_is_refused_not_walked() {
    for levels in [MAX_DEPTH, MAX_DEPTH + 1, 1_000] {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write_tree(
            r,
            &[
                ("a.txt", b"a\n"),
                (&format!("{}/leaf", chain(levels)), b"x"),
            ],
        );
        let o = run_in(r, &["snapshot", "--no-store", "--identity"]);
        assert_eq!(code(&o), Some(2), "{levels}: {}", stderr(&o));
        let deepest = format!("{}\": more than {MAX_DEPTH} components", chain(MAX_DEPTH));
        assert!(stderr(&o).contains(&deepest), "{levels}: {}", stderr(&o));
        // With a store: the same refusal, and no snapshot stored.
        ok(&run_in(r, &["init"]));
        let o = run_in(r, &["snapshot", "--identity"]);
        assert_eq!(code(&o), Some(2), "{levels}: {}", stderr(&o));
        let docs = std::fs::read_dir(r.join(".genesis/snapshots")).map_or(0, |d| d.count());
        assert_eq!(docs, 0, "{levels}");
    }
}

#[test]
fn the_deepest_tree_allowed_is_snapshotted_and_checked_out() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let leaf = format!("{}/leaf", chain(MAX_DEPTH - 1));
    write_tree(r, &[("a.txt", b"a\n"), (&leaf, b"x")]);
    ok(&run_in(r, &["init"]));
    let doc: serde_json::Value = serde_json::from_str(&ok(&run_in(r, &["snapshot"]))).unwrap();
    let paths: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.txt", leaf.as_str(), "genesis.json"]);
    let s = ok(&run_in(r, &["open"])).trim().to_owned();
    ok(&run_in(r, &["verify", &s]));
}

#[test]
fn a_patch_making_a_path_too_deep_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("a.txt", b"a\n")]);
    ok(&run_in(r, &["init"]));
    let s = ok(&run_in(r, &["open"])).trim().to_owned();
    let path = format!("{}/leaf.txt", chain(MAX_DEPTH));
    let o = patch_stdin(r, &s, &new_file_diff(&path));
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("more than {MAX_DEPTH} components")),
        "{}",
        stderr(&o)
    );
    assert!(!r.join("d").exists());
    // One level less is a path like any other.
    let path = format!("{}/leaf.txt", chain(MAX_DEPTH - 1));
    ok(&patch_stdin(r, &s, &new_file_diff(&path)));
}
