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

/// A new v0.1 snapshot's canonical object (packed straight from its files): the object stored
/// under the identity reads back as exactly the snapshot's canonical bytes, which hash to it,
/// for a first snapshot (every file read), an edit, a file added and one removed.
#[test]
fn a_new_snapshots_object_is_its_canonical_bytes() {
    use genesis::snapshot::SnapshotOptions;
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    for i in 0..40 {
        write_tree(
            &ws,
            &[(&format!("d{}/f{i}.txt", i % 4), format!("{i}\n").as_bytes())],
        );
    }
    let store = genesis::store::Store::init(&d.path().join("store")).unwrap();
    let edits: [&dyn Fn(); 4] = [
        &|| {},
        &|| std::fs::write(ws.join("d1/f5.txt"), b"edited\n").unwrap(),
        &|| std::fs::write(ws.join("d2/new.txt"), b"new\n").unwrap(),
        &|| std::fs::remove_file(ws.join("d3/f7.txt")).unwrap(),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (step, edit) in edits.iter().enumerate() {
        edit();
        let (o, _) = store
            .snapshot_into(&ws, &SnapshotOptions::default())
            .unwrap();
        let id = o.snapshot.identity();
        assert!(seen.insert(id), "step {step}: a new snapshot");
        let canonical = o.snapshot.canonical_v0_1().unwrap();
        assert_eq!(genesis::Digest::of(&canonical), id, "step {step}");
        assert_eq!(store.read_object(&id).unwrap(), canonical, "step {step}");
    }
}
