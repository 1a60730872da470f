//! The stat cache: unchanged files are not read again; racy and changed ones are.

mod common;

use common::*;

fn snap(dir: &std::path::Path) -> serde_json::Value {
    let o = run_in(dir, &["snapshot", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn unchanged_files_come_from_the_cache_and_changes_are_seen() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(
        r,
        &[
            ("a.txt", b"aaaa\n"),
            ("dir/b.txt", b"bbbb\n"),
            ("c.bin", &[0u8; 4096]),
        ],
    );
    assert_eq!(run_in(r, &["init"]).status.code(), Some(0));
    // Files younger than the racy window are always read.
    let v = snap(r);
    assert_eq!(v["files_hashed"], 4, "{v}");
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let v = snap(r);
    assert_eq!(
        v["files_hashed"], 4,
        "still racy when the previous cache was written: {v}"
    );
    let first = v["identity"].clone();
    let v = snap(r);
    assert_eq!(
        (v["files_hashed"].as_u64(), v["files_from_cache"].as_u64()),
        (Some(0), Some(4)),
        "{v}"
    );
    assert_eq!(v["identity"], first);
    // The cache is one binary file (DESIGN section 3): magic, version 5, four entries.
    let caches: Vec<_> = std::fs::read_dir(r.join(".genesis/statcache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(caches.len(), 1, "{caches:?}");
    assert_eq!(caches[0].extension().unwrap(), "bin");
    let bytes = std::fs::read(&caches[0]).unwrap();
    assert_eq!(&bytes[..16], b"GNSTATC\0\x05\0\0\0\x04\0\0\0");
    // A damaged cache is an empty one: every file is read again, and the cache rewritten.
    let mut damaged = bytes.clone();
    damaged[20] ^= 1;
    std::fs::write(&caches[0], &damaged).unwrap();
    let v = snap(r);
    assert_eq!(
        (v["files_hashed"].as_u64(), v["files_from_cache"].as_u64()),
        (Some(4), Some(0)),
        "{v}"
    );
    assert_eq!(v["identity"], first);
    // The same cache but for its generation (bytes 96..112), made anew with its entries.
    let rewritten = std::fs::read(&caches[0]).unwrap();
    assert_eq!(rewritten.len(), bytes.len());
    assert_eq!(rewritten[..96], bytes[..96]);
    assert_ne!(rewritten[96..112], bytes[96..112]);
    assert_eq!(
        rewritten[112..rewritten.len() - 4],
        bytes[112..bytes.len() - 4]
    );
    // Same size, new content, mtime set back to the old value: ctime still gives it away.
    let p = r.join("a.txt");
    let old = std::fs::metadata(&p).unwrap().modified().unwrap();
    std::fs::write(&p, b"AAAA\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let v = snap(r);
    assert_eq!(v["files_hashed"], 1, "{v}");
    assert_ne!(v["identity"], first);
    assert_eq!(
        v["snapshot"]["files"][0]["blob"],
        genesis::Digest::of(b"AAAA\n").to_string()
    );
}

#[test]
fn a_change_inside_the_same_second_is_caught() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("f.txt", b"one\n")]);
    assert_eq!(run_in(r, &["init"]).status.code(), Some(0));
    let v1 = snap(r);
    // Rewritten at once: same size, same second (and possibly the same coarse timestamp).
    std::fs::write(r.join("f.txt"), b"two\n").unwrap();
    let v2 = snap(r);
    assert_eq!(v2["files_from_cache"], 0, "{v2}");
    assert_ne!(v1["identity"], v2["identity"]);
    assert_eq!(
        v2["snapshot"]["files"][0]["blob"],
        genesis::Digest::of(b"two\n").to_string()
    );
}

#[test]
fn racy_entries_are_not_cached() {
    use genesis::snapshot::{ScannedFile, SnapshotFile, StatKey};
    use genesis::statcache::{RACY_WINDOW_NS, StatCache};
    let now = genesis::statcache::now_ns();
    let file = |name: &str, age_ns: i64| {
        (
            ScannedFile {
                path: genesis::WorkspacePath::new(name).unwrap(),
                executable: false,
                stat: StatKey {
                    size: 1,
                    mtime_ns: now - age_ns,
                    ctime_ns: now - age_ns,
                    ino: 1,
                    dev: 1,
                },
            },
            SnapshotFile {
                path: genesis::WorkspacePath::new(name).unwrap(),
                blob: genesis::Digest::of(b"x"),
                bytes: 1,
            },
        )
    };
    let (old, old_h) = file("old", RACY_WINDOW_NS + 1_000_000);
    let (young, young_h) = file("young", RACY_WINDOW_NS - 1_000_000);
    let cache = StatCache::from_scan(&[old.clone(), young.clone()], &[old_h, young_h], now);
    assert_eq!(cache.len(), 1);
    assert!(cache.lookup("old", &old.stat).is_some());
    assert!(cache.lookup("young", &young.stat).is_none());
    let mut moved = old.stat;
    moved.ino = 2;
    assert!(
        cache.lookup("old", &moved).is_none(),
        "a different inode is a different file"
    );
}
