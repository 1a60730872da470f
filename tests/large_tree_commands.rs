//! `snapshot`, `diff`, `check` and `validate` on a tree past 4096 files (v0.2), and what the
//! store holds for each format: a v0.2 tree is its nodes, each an object that hashes to its
//! name (no `snapshots/` file); a v0.1 snapshot keeps its document and also stores the bytes
//! its identity hashes as an object.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;
use genesis::hash::Digest;

/// 50 directories of 100 files, and `top.txt`: 5001 files.
fn big_tree(root: &Path) {
    for d in 0..50 {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}.txt")), format!("{d} {f}\n")).unwrap();
        }
    }
    std::fs::write(root.join("top.txt"), b"top\n").unwrap();
}

fn identity(dir: &Path) -> String {
    let o = run_in(dir, &["snapshot", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o).trim_end().to_owned()
}

/// The raw bytes of the stored object `id` (a tree object's file is packed, DESIGN section 3:
/// its canonical bytes rebuilt and checked against the name).
fn object_bytes(dir: &Path, id: &str) -> Vec<u8> {
    let file = std::fs::read(object(dir, id)).unwrap();
    assert!(file.starts_with(b"\x89GNP\x01"), "not a packed object");
    genesis::store::codec::decode_bytes(file, &id.parse().unwrap()).unwrap()
}

fn object(dir: &Path, id: &str) -> std::path::PathBuf {
    dir.join(".genesis/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn commands_work_past_4096_files_and_see_executable_bits() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    big_tree(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let a = identity(ws);
    std::fs::write(ws.join("d7/f3.txt"), b"changed\n").unwrap();
    std::fs::set_permissions(ws.join("d9/f1.txt"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let b = identity(ws);
    assert_ne!(a, b);

    // The tree as a library user builds it gives the same identity.
    let store = genesis::store::Store::open(&ws.join(".genesis")).unwrap();
    let (snap, exec) = store.read_snapshot(&b.parse().unwrap()).unwrap();
    assert_eq!(snap.format(), genesis::snapshot::SnapshotFormat::V0_2);
    assert_eq!(snap.files().len(), 5002); // with genesis.json
    assert_eq!(
        exec.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        ["d9/f1.txt"]
    );
    assert_eq!(
        genesis::tree::build(snap.files(), &exec, None)
            .root
            .to_string(),
        b
    );
    // Stored as nodes: the root object hashes to its name; no snapshots/ document.
    let root = object_bytes(ws, &b);
    assert_eq!(Digest::of(&root).to_string(), b);
    assert!(!ws.join(format!(".genesis/snapshots/{b}.json")).exists());

    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\td7/f3.txt\nM\td9/f1.txt\n");

    // The executable bit is part of a v0.2 identity: check lists the mode-only change.
    let o = run_in(ws, &["check", "--expect", &a]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!("mismatch: . hashes to {b}, expected {a}\nM\td7/f3.txt\nM\td9/f1.txt\n")
    );
    let o = run_in(ws, &["check", "--expect", &b]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("ok: . matches {b}\n"));

    // validate knows a stored node.
    let node = object(ws, &b);
    let o = run_in(ws, &["validate", node.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("{}: valid genesis/tree-v0.2\n", node.display())
    );

    // A prefix resolves to the tree.
    let o = run_in(ws, &["diff", "--name-status", &a[..12], &b[..12]]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\td7/f3.txt\nM\td9/f1.txt\n");
}

#[test]
fn a_corrupt_node_is_store_corruption() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    big_tree(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let a = identity(ws);
    // The node of d3: listed in the root node.
    let root: serde_json::Value = serde_json::from_slice(&object_bytes(ws, &a)).unwrap();
    let d3 = root["directories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "d3")
        .unwrap()["node"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = object(ws, &d3);
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    perm.set_mode(0o644);
    std::fs::set_permissions(&path, perm).unwrap();
    std::fs::write(
        &path,
        b"{\"directories\":[],\"files\":[],\"schema\":\"genesis/tree-v0.2\"}",
    )
    .unwrap();
    let o = run_in(ws, &["diff", "--name-status", &a, "."]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains(&d3), "{}", stderr(&o));
}

#[test]
fn a_v0_1_snapshot_is_also_stored_as_the_bytes_its_identity_hashes() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    std::fs::write(ws.join("a.txt"), b"a\n").unwrap();
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let id = identity(ws);
    assert!(ws.join(format!(".genesis/snapshots/{id}.json")).is_file());
    let bytes = object_bytes(ws, &id);
    assert_eq!(Digest::of(&bytes).to_string(), id);
    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.starts_with(r#"{"files":[{"blob":""#)
            && text.ends_with(r#""schema":"genesis/workspace-snapshot-v0.1"}"#),
        "{text}"
    );
}

/// Issue 11 item 4: `check SNAPSHOT --expect SNAPSHOT` compares two stored trees, descending
/// only into directories whose identities differ: a corrupt node both share (d3's) is never
/// read. Output and exit codes are those of `check` of a directory.
#[test]
fn check_compares_two_stored_trees() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    big_tree(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let a = identity(ws);
    std::fs::write(ws.join("d7/f3.txt"), b"changed\n").unwrap();
    std::fs::remove_file(ws.join("d9/f1.txt")).unwrap();
    let b = identity(ws);
    let root: serde_json::Value = serde_json::from_slice(&object_bytes(ws, &a)).unwrap();
    let d3 = root["directories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "d3")
        .unwrap()["node"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = object(ws, &d3);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(&path, b"not a node").unwrap();

    let o = run_in(ws, &["check", &b, "--expect", &a]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("mismatch: snapshot {b} hashes to {b}, expected {a}\nM\td7/f3.txt\nD\td9/f1.txt\n")
    );
    // A unique prefix, and the JSON of `check` of a directory.
    let o = run_in(ws, &["check", "--json", &b[..8], "--expect", &a[..8]]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["match"], false);
    assert_eq!(v["actual"], b.as_str());
    assert_eq!(v["expected"], a.as_str());
    assert_eq!(
        v["differences"],
        serde_json::json!([{"status": "M", "path": "d7/f3.txt"}, {"status": "D", "path": "d9/f1.txt"}])
    );
    let o = run_in(ws, &["check", &a[..8], "--expect", &a]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("ok: snapshot {} matches {a}\n", &a[..8])
    );
    // A name that is both a directory and a snapshot prefix is refused (exit 2), as in diff.
    std::fs::create_dir(ws.join(&a[..8])).unwrap();
    let o = run_in(ws, &["check", &a[..8], "--expect", &a]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: check operand {:?} is ambiguous: both a path here and a prefix of stored snapshot {a}; write ./{} for the path, or the full identity for the snapshot\n",
            &a[..8],
            &a[..8]
        )
    );
    // Unknown: exit 2.
    let o = run_in(ws, &["check", "0000000000", "--expect", &a]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Issue 11 reviewer: `validate` of a stored object that does not hash to its name is store
/// corruption: exit 4, naming the object with the expected and the actual digest.
#[test]
fn validate_of_a_corrupt_object_is_store_corruption() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    std::fs::write(ws.join("a.txt"), b"a\n").unwrap();
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let id = identity(ws);
    let path = object(ws, &id);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let other = br#"{"files":[],"schema":"genesis/workspace-snapshot-v0.1"}"#;
    std::fs::write(&path, zstd::encode_all(&other[..], 3).unwrap()).unwrap();
    let o = run_in(ws, &["validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {}: store corruption: the stored object does not hash to its name (expected {id}, found {})\n",
            path.display(),
            Digest::of(other)
        )
    );
}
