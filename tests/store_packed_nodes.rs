//! Tree objects are stored packed (DESIGN section 3, "Object files"; `src/store/packed.rs`):
//! every v0.2 node and the canonical bytes of a v0.1 snapshot are a binary file from which the
//! exact canonical bytes are rebuilt on read and checked against the name. A damaged packed
//! object is store corruption (exit 4); stores written before (nodes as zstd frames of their
//! JSON, format 2, or raw, format 1) are read as they are and upgraded on their first write.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use genesis::hash::Digest;

const PACKED_NODE: &[u8] = b"\x89GNP\x01\x01";
const PACKED_V0_1: &[u8] = b"\x89GNP\x01\x02";
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// 41 directories of 100 files (one executable), and `top.txt`: past the 4096 files of v0.1.
fn big_tree(root: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for d in 0..41 {
        let dir = root.join(format!("d{d:02}/sub"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}.txt")), format!("{d} {f}\n")).unwrap();
        }
        let exe = dir.join("f0.txt");
        std::fs::set_permissions(exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(root.join("top.txt"), b"top\n").unwrap();
}

fn identity(dir: &Path) -> String {
    let o = run_in(dir, &["snapshot", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o).trim_end().to_owned()
}

fn object(dir: &Path, id: &str) -> PathBuf {
    dir.join(".genesis/objects").join(&id[..2]).join(&id[2..])
}

fn decode(path: &Path, name: &str) -> Vec<u8> {
    genesis::store::codec::decode_bytes(std::fs::read(path).unwrap(), &name.parse().unwrap())
        .unwrap()
}

fn format_line(ws: &Path) -> String {
    std::fs::read_to_string(ws.join(".genesis/format")).unwrap()
}

#[test]
fn nodes_are_packed_read_back_exactly_and_damage_is_exit_4() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    big_tree(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    assert_eq!(format_line(ws), "genesis-store 3\n");
    let a = identity(ws);
    std::fs::write(ws.join("d07/sub/f3.txt"), b"changed\n").unwrap();
    let b = identity(ws);

    // Every node is packed, and its canonical bytes hash to its name: 1 root, 41 + 41 below.
    let mut nodes = 0;
    for (name, path) in store_objects(ws) {
        let file = std::fs::read(&path).unwrap();
        if file.starts_with(PACKED_NODE) {
            let canonical = decode(&path, &name);
            assert_eq!(Digest::of(&canonical).to_string(), name);
            assert!(canonical.starts_with(br#"{"directories":["#));
            assert!(file.len() * 2 < canonical.len(), "{name}");
            nodes += 1;
        } else {
            assert_eq!(file[..4], ZSTD_MAGIC, "{name}");
        }
    }
    // Two roots and two changed nodes (d07, d07/sub) besides the 82 of the first tree.
    assert_eq!(nodes, 1 + 82 + 3);
    let root: serde_json::Value = serde_json::from_slice(&decode(&object(ws, &a), &a)).unwrap();
    assert_eq!(root["files"][1]["name"], "top.txt");

    // Readers: diff node by node, check, validate of a node file.
    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\td07/sub/f3.txt\n");
    let o = run_in(ws, &["check", "--expect", &b]);
    assert_eq!(stdout(&o), format!("ok: . matches {b}\n"));
    let node = object(ws, &a);
    let o = run_in(ws, &["validate", node.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("{}: valid genesis/tree-v0.2\n", node.display())
    );

    // The node of d07 (changed between a and b, so diff reads it) lists `sub` only: header, 1 directory, name length 3, "sub", digest,
    // no file. One bit of the digest flipped: the rebuilt bytes hash to another name.
    let sub = root["directories"][7]["node"].as_str().unwrap().to_owned();
    assert_eq!(root["directories"][7]["name"], "d07");
    let path = object(ws, &sub);
    let good = std::fs::read(&path).unwrap();
    assert_eq!(good.len(), 7 + 1 + 1 + 3 + 32 + 1);
    assert_eq!(
        good[6..12],
        [0, 1, 3, b's', b'u', b'b'],
        "a small node is not compressed"
    );
    let mut bad = good.clone();
    bad[12] ^= 1;
    let found = Digest::of(&genesis::store::packed::unpack(&bad).unwrap());
    std::fs::write(&path, &bad).unwrap();
    let o = run_in(ws, &["validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {}: store corruption: the stored object does not hash to its name (expected {sub}, found {found})\n",
            path.display()
        )
    );
    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("corrupt store object: expected {sub}")),
        "{}",
        stderr(&o)
    );
    // Truncated: it no longer decodes, so its raw bytes are what it hashes to.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    let o = run_in(ws, &["validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!(
        "(expected {sub}, found {})",
        Digest::of(&good[..good.len() - 1])
    )));
    std::fs::write(&path, &good).unwrap();
    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // A damaged root node: named as store corruption (exit 4), not as "no snapshot" (exit 2).
    let root_path = object(ws, &a);
    let good_root = std::fs::read(&root_path).unwrap();
    std::fs::write(&root_path, &good_root[..good_root.len() - 1]).unwrap();
    let o = run_in(ws, &["check", &a, "--expect", &a]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "corrupt store object: expected {a}, content hashes to "
        )),
        "{}",
        stderr(&o)
    );
    std::fs::write(&root_path, &good_root).unwrap();
    let o = run_in(ws, &["check", &a, "--expect", &a]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_store_with_json_nodes_of_format_2_or_1_is_read_and_upgraded() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    big_tree(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let a = identity(ws);
    // As Genesis wrote the store before packing: each node a zstd frame of its JSON (format
    // 2); every other node raw, as format 1 left them in a store upgraded to 2.
    let mut raw = false;
    for (name, path) in store_objects(ws) {
        if std::fs::read(&path).unwrap().starts_with(PACKED_NODE) {
            let canonical = decode(&path, &name);
            let file = if raw {
                canonical
            } else {
                zstd::stream::encode_all(&canonical[..], 3).unwrap()
            };
            std::fs::write(&path, file).unwrap();
            raw = !raw;
        }
    }
    std::fs::write(ws.join(".genesis/format"), b"genesis-store 2\n").unwrap();
    let root = std::fs::read(object(ws, &a)).unwrap();
    assert_eq!(root[..4], ZSTD_MAGIC);
    // Read as it is: no write, the format line stays.
    let o = run_in(ws, &["check", "--expect", &a]);
    assert_eq!(stdout(&o), format!("ok: . matches {a}\n"));
    let o = run_in(ws, &["validate", object(ws, &a).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(ws, &["snapshot", "--identity"]);
    assert_eq!(stdout(&o).trim_end(), a);
    assert_eq!(format_line(ws), "genesis-store 2\n");
    // A change: the new nodes are packed, the format line says so, and old and new nodes
    // are compared node by node.
    std::fs::write(ws.join("d07/sub/f3.txt"), b"changed\n").unwrap();
    let b = identity(ws);
    assert_eq!(format_line(ws), "genesis-store 3\n");
    assert!(
        std::fs::read(object(ws, &b))
            .unwrap()
            .starts_with(PACKED_NODE)
    );
    assert_eq!(std::fs::read(object(ws, &a)).unwrap(), root);
    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\td07/sub/f3.txt\n");
    let o = run_in(ws, &["gc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(ws, &["diff", "--name-status", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_v0_1_snapshot_object_is_packed_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    write_tree(ws, &[("a.txt", b"a\n"), ("dir/b \"q\".txt", b"b\n")]);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let id = identity(ws);
    let path = object(ws, &id);
    let file = std::fs::read(&path).unwrap();
    assert!(file.starts_with(PACKED_V0_1));
    let canonical = decode(&path, &id);
    assert!(canonical.starts_with(br#"{"files":[{"blob":""#));
    assert!(canonical.ends_with(br#""schema":"genesis/workspace-snapshot-v0.1"}"#));
    // validate reads the canonical bytes, as it did the zstd frame of them before: the
    // document without its identity (exit 1, not store corruption).
    let o = run_in(ws, &["validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{}: invalid genesis/workspace-snapshot-v0.1\n  /: \"identity\" is a required property\n",
            path.display()
        )
    );
}
