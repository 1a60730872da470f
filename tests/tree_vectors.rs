//! The v0.2 tree vectors in `testdata/tree-v0.2/` (made by `scripts/tree_vectors.py`, Python's
//! hashlib and its own JCS, not by Genesis): the library builds the same nodes, byte for byte,
//! with the same identities; every node is valid against `schemas/tree-node-v0.2.schema.json`
//! and parses back to the node built.

mod common;

use std::collections::BTreeSet;

use genesis::hash::Digest;
use genesis::path::WorkspacePath;
use genesis::snapshot::SnapshotFile;

const VECTORS: &[(&str, &str)] = &[
    (
        "empty",
        "e17265158464ffbcd19446c25005ef71c3d4dac482654357856448f595ff461b",
    ),
    (
        "order-trap",
        "85e59ec11ff0bf0f6d5719d204f9d36cea7ab0d6e49dc379397444e596f8238d",
    ),
    (
        "non-ascii",
        "dc3e00d6b0ddabd005146e81442b4d2ebfef2ba8c03b58f5b59aac9096dbee04",
    ),
    (
        "executable",
        "c72956f3f6056e6e6b4cbb6910afd7a9850d5c4cf13e143e7cc06a60b3e03161",
    ),
    (
        "not-executable",
        "6d452986426f9ef7b1c44f7155579fd7a9124e2abdade20c9169d827215f7d58",
    ),
    (
        "deep",
        "16e408ce6d5118ce3b56aa80aa494a726ae0f5cc9dbe45d901a910fdcb4625c7",
    ),
];

#[derive(serde::Deserialize)]
struct Vector {
    files: Vec<VFile>,
    root: String,
    nodes: Vec<VNode>,
}

#[derive(serde::Deserialize)]
struct VFile {
    path: String,
    contents: String,
    executable: bool,
}

#[derive(serde::Deserialize)]
struct VNode {
    dir: String,
    identity: String,
    canonical: String,
}

fn load(name: &str) -> Vector {
    let p = common::repo_root()
        .join("testdata/tree-v0.2")
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap()
}

fn flat(v: &Vector) -> (Vec<SnapshotFile>, BTreeSet<WorkspacePath>) {
    let mut files: Vec<SnapshotFile> = v
        .files
        .iter()
        .map(|f| {
            let data = hex::decode(&f.contents).unwrap();
            SnapshotFile {
                path: WorkspacePath::new(f.path.clone()).unwrap(),
                blob: Digest::of(&data),
                bytes: data.len() as u64,
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let exec = v
        .files
        .iter()
        .filter(|f| f.executable)
        .map(|f| WorkspacePath::new(f.path.clone()).unwrap())
        .collect();
    (files, exec)
}

#[test]
fn library_builds_the_vector_nodes_byte_for_byte() {
    for (name, root) in VECTORS {
        let v = load(name);
        assert_eq!(v.root, *root, "{name}: vector file and table disagree");
        let (files, exec) = flat(&v);
        let built = genesis::tree::build(&files, &exec, None);
        assert_eq!(built.root.to_string(), *root, "{name}");
        assert_eq!(built.node_count(), v.nodes.len(), "{name}");
        for n in &v.nodes {
            let b = &built.dirs[&n.dir];
            assert_eq!(
                String::from_utf8(b.node.canonical_bytes()).unwrap(),
                n.canonical,
                "{name}: node {:?}",
                n.dir
            );
            assert_eq!(b.identity.to_string(), n.identity, "{name}: {:?}", n.dir);
            assert_eq!(
                Digest::of(n.canonical.as_bytes()).to_string(),
                n.identity,
                "{name}: {:?}",
                n.dir
            );
            let parsed = genesis::tree::Node::parse(b.identity, n.canonical.as_bytes()).unwrap();
            assert_eq!(parsed, b.node);
        }
    }
}

#[test]
fn every_vector_node_is_valid_against_the_schema() {
    let mut count = 0;
    for (name, _) in VECTORS {
        for n in &load(name).nodes {
            let value: serde_json::Value = serde_json::from_str(&n.canonical).unwrap();
            let (kind, violations) = genesis::schema::validate_document(&value);
            assert_eq!(
                kind,
                Some(genesis::schema::DocumentKind::TreeNode),
                "{name}"
            );
            assert!(violations.is_empty(), "{name} {:?}: {violations:?}", n.dir);
            count += 1;
        }
    }
    assert_eq!(count, 1 + 2 + 3 + 2 + 2 + 5);
}

#[test]
fn schema_and_engine_reject_bad_nodes() {
    let b = "0".repeat(64);
    let cases = [
        (
            serde_json::json!({"directories": [], "files": [], "schema": "genesis/tree-v0.3"}),
            "/schema",
        ),
        (
            serde_json::json!({"directories": [{"name": "a/b", "node": b}], "files": [], "schema": "genesis/tree-v0.2"}),
            "/directories/0/name",
        ),
        (
            serde_json::json!({"directories": [], "files": [{"blob": b, "bytes": 1, "executable": "yes", "name": "x"}], "schema": "genesis/tree-v0.2"}),
            "/files/0/executable",
        ),
        (
            serde_json::json!({"directories": [], "files": [
                {"blob": b, "bytes": 1, "executable": false, "name": "b"},
                {"blob": b, "bytes": 1, "executable": false, "name": "a"}], "schema": "genesis/tree-v0.2"}),
            "/files/1/name",
        ),
        (
            serde_json::json!({"directories": [{"name": "..", "node": b}], "files": [], "schema": "genesis/tree-v0.2"}),
            "/directories/0/name",
        ),
    ];
    for (doc, pointer) in cases {
        let (_, v) = genesis::schema::validate_document(&doc);
        assert_eq!(
            v.iter().map(|x| x.pointer.as_str()).collect::<Vec<_>>(),
            [pointer],
            "{doc}"
        );
    }
}
