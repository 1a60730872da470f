//! Snapshots and the store: `--no-store` never creates or reads a store, a stored snapshot
//! document reads back identical, and a corrupted one is caught.

mod common;

use common::*;

#[test]
fn no_store_never_creates_a_store_and_snapshot_without_store_creates_none() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("a", b"a")]);
    let o = run_in(d.path(), &["snapshot"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!d.path().join(".genesis").exists());
}

#[test]
fn stored_snapshot_round_trips_and_corruption_is_caught() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("a.txt", b"one\n")]);
    assert_eq!(run_in(r, &["init"]).status.code(), Some(0));
    let id1 = stdout(&run_in(r, &["snapshot", "--identity"]))
        .trim()
        .to_owned();
    std::fs::write(r.join("a.txt"), b"two\n").unwrap();
    let id2 = stdout(&run_in(r, &["snapshot", "--identity"]))
        .trim()
        .to_owned();
    let o = run_in(r, &["diff", &id1[..8], &id2]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n"
    );
    // Corrupt the blob of "one\n" in the store.
    let one = genesis::Digest::of(b"one\n").to_string();
    let obj = r.join(".genesis/objects").join(&one[..2]).join(&one[2..]);
    std::fs::write(&obj, b"evil\n").unwrap();
    let o = run_in(r, &["diff", &id1, &id2]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stderr(&o).contains("corrupt store object: expected"),
        "{}",
        stderr(&o)
    );
    // Unknown identity: usage error.
    let o = run_in(r, &["diff", &"0".repeat(64), &id2]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no snapshot 0000"), "{}", stderr(&o));
}
