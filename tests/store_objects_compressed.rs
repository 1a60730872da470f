//! Store objects are zstd frames of their raw bytes, named by the SHA-256 of the raw bytes
//! (issue 11, item 3; DESIGN section 3): a snapshot stores them compressed, every command that
//! writes a blob back out decompresses it, a store of the older raw format is read as it is
//! (and its `format` line upgraded on its first write), and a frame of the wrong content is
//! corruption (exit 4).

mod common;

use std::path::Path;

use common::*;

const MANIFEST: &[u8] =
    br#"{"schema": "genesis/manifest-v0.1", "obligations": [{"id": "t", "run": ["true"], "timeout_s": 10}]}
"#;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

fn object(r: &Path, content: &[u8]) -> std::path::PathBuf {
    let hex = genesis::Digest::of(content).to_hex();
    r.join(".genesis/objects").join(&hex[..2]).join(&hex[2..])
}

/// 20 KiB of text that compresses well.
fn text() -> Vec<u8> {
    (0..1000)
        .flat_map(|i| format!("line {i:04} of a.txt\n").into_bytes())
        .collect()
}

fn workspace_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("genesis.json", MANIFEST)]);
    write_tree(d.path(), files);
    let o = run_in(d.path(), &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    d
}

#[test]
fn snapshot_stores_a_zstd_frame_named_by_the_raw_bytes_and_checkout_writes_the_raw_bytes() {
    let a = text();
    let d = workspace_with(&[("a.txt", &a), ("empty", b"")]);
    let r = d.path();
    assert_eq!(
        std::fs::read(r.join(".genesis/format")).unwrap(),
        b"genesis-store 3\n"
    );
    let o = run_in(r, &["snapshot"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stored = std::fs::read(object(r, &a)).unwrap();
    assert_eq!(stored[..4], ZSTD_MAGIC);
    assert!(stored.len() * 5 < a.len(), "{} bytes stored", stored.len());
    assert_eq!(zstd::stream::decode_all(&stored[..]).unwrap(), a);
    let empty = std::fs::read(object(r, b"")).unwrap();
    assert_eq!(empty[..4], ZSTD_MAGIC);
    assert_eq!(zstd::stream::decode_all(&empty[..]).unwrap(), b"");
    // A checkout writes the raw bytes.
    let co = tempfile::tempdir().unwrap();
    let dir = co.path().join("co");
    let o = run_in(
        r,
        &[
            "open",
            "--session",
            "s",
            "--checkout",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), a);
    assert_eq!(std::fs::read(dir.join("empty")).unwrap(), b"");
    assert_eq!(std::fs::read(dir.join("genesis.json")).unwrap(), MANIFEST);
}

/// Turns the store into one of format 1: every object file holds the raw bytes (tree nodes,
/// packed by this version, their canonical JSON).
fn make_raw_store(r: &Path) {
    std::fs::write(r.join(".genesis/format"), b"genesis-store 1\n").unwrap();
    for (name, p) in store_objects(r) {
        let raw =
            genesis::store::codec::decode_bytes(std::fs::read(&p).unwrap(), &name.parse().unwrap())
                .unwrap();
        std::fs::write(&p, raw).unwrap();
    }
}

#[test]
fn a_store_of_raw_objects_is_read_and_upgraded_on_its_first_write() {
    // b.zst is itself a zstd frame: stored raw, it starts with the magic.
    let frame = zstd::stream::encode_all(&text()[..], 3).unwrap();
    let d = workspace_with(&[("a.txt", b"one\n"), ("b.zst", &frame)]);
    let r = d.path();
    let o = run_in(r, &["snapshot"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    make_raw_store(r);
    assert_eq!(std::fs::read(object(r, b"one\n")).unwrap(), b"one\n");
    assert_eq!(std::fs::read(object(r, &frame)).unwrap(), frame);
    // Nothing new to store: the format line stays.
    let o = run_in(r, &["snapshot"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(r.join(".genesis/format")).unwrap(),
        b"genesis-store 1\n"
    );
    // A checkout reads the raw objects, b.zst included (not its decompressed content).
    let co = tempfile::tempdir().unwrap();
    let dir = co.path().join("co");
    let o = run_in(
        r,
        &[
            "open",
            "--session",
            "s",
            "--checkout",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"one\n");
    assert_eq!(std::fs::read(dir.join("b.zst")).unwrap(), frame);
    // The first new object upgrades the format line, and is compressed.
    std::fs::write(r.join("a.txt"), b"two\n").unwrap();
    let o = run_in(r, &["snapshot"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(r.join(".genesis/format")).unwrap(),
        b"genesis-store 3\n"
    );
    assert_eq!(std::fs::read(object(r, b"two\n")).unwrap()[..4], ZSTD_MAGIC);
    // Old raw and new compressed objects side by side: a diff reads both.
    let o = run_in(r, &["diff", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_frame_of_other_content_or_a_truncated_frame_is_corruption_exit_4() {
    let a = text();
    for damage in ["other content", "truncated"] {
        let d = workspace_with(&[("a.txt", &a)]);
        let r = d.path();
        let id = stdout(&run_in(r, &["snapshot", "--identity"]))
            .trim()
            .to_owned();
        let obj = object(r, &a);
        let stored = std::fs::read(&obj).unwrap();
        let bad = match damage {
            "other content" => zstd::stream::encode_all(&b"evil\n"[..], 3).unwrap(),
            _ => stored[..stored.len() - 3].to_vec(),
        };
        std::fs::write(&obj, &bad).unwrap();
        let co = tempfile::tempdir().unwrap();
        let dir = co.path().join("co");
        let o = run_in(
            r,
            &[
                "open",
                "--session",
                "s",
                "--checkout",
                dir.to_str().unwrap(),
            ],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(4), "{damage}: {err}");
        let hex = genesis::Digest::of(&a).to_hex();
        assert!(
            err.contains(&format!(
                ".genesis/objects/{}/{}: corrupt store object: expected {hex}",
                &hex[..2],
                &hex[2..]
            )),
            "{damage}: {err}"
        );
        assert!(!dir.join("a.txt").exists(), "{damage}");
        // Read whole (diff), the same.
        std::fs::write(r.join("a.txt"), b"changed\n").unwrap();
        let id2 = stdout(&run_in(r, &["snapshot", "--identity"]))
            .trim()
            .to_owned();
        let o = run_in(r, &["diff", &id, &id2]);
        assert_eq!(o.status.code(), Some(4), "{damage}: {}", stderr(&o));
    }
}
