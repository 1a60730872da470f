//! The identity test vectors in `testdata/identity/` (made by Python, not by Genesis): each
//! document's identity is recomputed by the library, and the tree it describes, rebuilt on
//! disk, snapshots to the same document.

mod common;

use genesis::Snapshot;
use genesis::snapshot::{SnapshotOptions, snapshot_dir};

const VECTORS: &[(&str, &str)] = &[
    (
        "empty",
        "e44e31c47f6b2a6f6ede01e08deb032115c42be53e4a4e962e8e741ab8d49d65",
    ),
    (
        "empty-file",
        "c9ff50692a46019c44eb8cf8c6c1a39639b6c8c4723db2ad35510d643680187a",
    ),
    (
        "nested",
        "128abe658d77d01113857ef10755bc6a20c58f2eae9f8e17a4a3f49b449dbbb7",
    ),
    (
        "non-ascii",
        "654938a8f659412d043923431031ac10eb88f8f115c8f5c2a28f10fe79437946",
    ),
    (
        "spaces-and-quotes",
        "f94743066ed79b0fc006072bc1c7b021bfd2280e7c7bfc6cb67aa55f06995260",
    ),
    (
        "hidden-and-crlf",
        "400e644293e918dcd8d0cf63dd89d5c35fd8582afcbd6235353b2245a6e3edb5",
    ),
];

fn vector_path(name: &str, suffix: &str) -> std::path::PathBuf {
    common::repo_root()
        .join("testdata/identity")
        .join(format!("{name}{suffix}"))
}

#[test]
fn documents_recompute_to_their_identity() {
    for (name, identity) in VECTORS {
        let bytes = std::fs::read(vector_path(name, ".json")).unwrap();
        let snap = Snapshot::from_json(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(snap.identity().to_string(), *identity, "{name}");
        let (_, violations) =
            genesis::schema::validate_document(&serde_json::from_slice(&bytes).unwrap());
        assert!(violations.is_empty(), "{name}: {violations:?}");
    }
}

#[test]
fn rebuilt_trees_snapshot_to_the_vectors() {
    for (name, identity) in VECTORS {
        let contents: std::collections::BTreeMap<String, String> =
            serde_json::from_slice(&std::fs::read(vector_path(name, ".contents.json")).unwrap())
                .unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (p, hexdata) in &contents {
            let full = dir.path().join(p);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, hex::decode(hexdata).unwrap()).unwrap();
        }
        let out = snapshot_dir(dir.path(), &SnapshotOptions::default()).unwrap();
        assert_eq!(out.snapshot.identity().to_string(), *identity, "{name}");
        let expected = std::fs::read_to_string(vector_path(name, ".json")).unwrap();
        let expected = Snapshot::from_json(expected.as_bytes()).unwrap();
        assert_eq!(out.snapshot, expected, "{name}");
    }
}

#[test]
fn empty_snapshot_identity_is_fixed() {
    assert_eq!(
        Snapshot::empty().identity().to_string(),
        "e44e31c47f6b2a6f6ede01e08deb032115c42be53e4a4e962e8e741ab8d49d65"
    );
}

#[test]
fn tampered_identity_is_rejected_with_both_values() {
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(vector_path("nested", ".json")).unwrap()).unwrap();
    doc["files"][0]["bytes"] = serde_json::json!(6);
    let err = Snapshot::from_json(&serde_json::to_vec(&doc).unwrap()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("field /identity: stated 128abe65"), "{msg}");
}
