//! Results of the parallel snapshot walk that must not depend on directory order or thread
//! timing: the error reported when several paths are invalid (the smallest path, as the
//! serial walk reported), and the number of blobs a snapshot adds to the store (each
//! distinct content once, even when files sharing it are stored by concurrent threads).

mod common;

use std::path::Path;

use common::*;

/// Writes `name` (raw bytes, may hold control characters) under `dir`.
fn write_raw(dir: &Path, name: &[u8], body: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(std::ffi::OsStr::from_bytes(name)), body).unwrap();
}

#[test]
fn the_smallest_invalid_path_is_the_one_named_whatever_the_directory_order() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    // Made in reverse order, so a walk that stopped at the first error it met in directory
    // order (or in the order threads finished) would name a later path.
    for dir in ["z", "m", "a"] {
        for i in (1..=5).rev() {
            write_raw(&t.join(dir), format!("bad{i}\x01").as_bytes(), b"x\n");
        }
    }
    for _ in 0..5 {
        let o = run_in(d.path(), &["snapshot", "--no-store", "t"]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            stderr(&o),
            "genesis: error: t/a/bad1\\x01: invalid path \"a/bad1\\u{1}\": control character \
             U+0001 is not allowed; rename it or add it to .genesisignore\n"
        );
    }
}

#[test]
fn blobs_added_counts_each_distinct_content_once() {
    for round in 0..3 {
        let d = tempfile::tempdir().unwrap();
        // 3,000 files over 40 directories drawn from 51 contents (genesis.json is the 51st).
        for i in 0..3000 {
            let dir = d.path().join(format!("d{}", i % 40));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("f{i}")), format!("content {}\n", i % 50)).unwrap();
        }
        ok(&run_in(d.path(), &["init"]));
        let v = ok_json(&run_in(d.path(), &["snapshot", "--json"]));
        assert_eq!(v["blobs_added"], 51, "round {round}");
        // Nothing new the second time.
        let v = ok_json(&run_in(d.path(), &["snapshot", "--json"]));
        assert_eq!(v["blobs_added"], 0, "round {round}");
    }
}
