//! Reuse across runs (issue 11, part 3): a snapshot into a store keeps, beside the stat cache,
//! each directory's node identity and a digest of its entries (`statcache/<key>.tree`), so a
//! later snapshot takes an unchanged directory's identity without serialising or hashing its
//! node. Counted by `SnapshotOutcome::nodes_hashed`.

use std::path::Path;

use genesis::snapshot::{SnapshotFormat, SnapshotOptions};
use genesis::store::Store;

/// 4,200 files (past v0.1's 4,096) in 3 top directories of 20 sub-directories of 70 files,
/// plus `deep/a/b/c/f.txt`: 65 directories with files, plus `deep`'s chain of 4.
fn big_tree(root: &Path) {
    for t in 0..3 {
        for s in 0..20 {
            let d = root.join(format!("t{t}/s{s:02}"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..70 {
                std::fs::write(d.join(format!("f{f:02}.txt")), format!("{t} {s} {f}\n")).unwrap();
            }
        }
    }
    std::fs::create_dir_all(root.join("deep/a/b/c")).unwrap();
    std::fs::write(root.join("deep/a/b/c/f.txt"), b"deep\n").unwrap();
}

fn snap(store: &Store, root: &Path) -> genesis::snapshot::SnapshotOutcome {
    store
        .snapshot_into(root, &SnapshotOptions::default())
        .unwrap()
        .0
}

#[test]
fn a_no_change_snapshot_hashes_no_node_and_one_change_only_its_ancestors() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    big_tree(&ws);
    let store = Store::init(&d.path().join("store")).unwrap();
    let first = snap(&store, &ws);
    assert_eq!(first.snapshot.format(), SnapshotFormat::V0_2);
    // root, t0..t2, 60 sub-directories, deep, deep/a, deep/a/b, deep/a/b/c.
    assert_eq!(first.nodes_hashed, 1 + 3 + 60 + 4);
    let cache = store.stat_cache_path(&ws).with_extension("tree");
    let bytes = std::fs::read(&cache).unwrap();
    assert_eq!(&bytes[..16], b"GNTREEC\0\x01\0\0\0\x44\0\0\0");

    // Without the stat cache, whose summary answers a no-change snapshot once every file is
    // old enough to be cached (statcache_summary.rs): here the tree cache is asked.
    let stat_cache = store.stat_cache_path(&ws);
    let _ = std::fs::remove_file(&stat_cache);
    let again = snap(&store, &ws);
    assert_eq!(again.snapshot.identity(), first.snapshot.identity());
    assert_eq!(again.nodes_hashed, 0);
    // Nor is any node materialised: every directory's identity came from the cache.
    let nodes = again.snapshot.built_tree().unwrap();
    assert_eq!(nodes.node_count(), 68);
    assert!(nodes.dirs.values().all(|n| !n.built && n.node.is_empty()));
    // Nothing changed: the cache file is not rewritten.
    assert_eq!(std::fs::read(&cache).unwrap(), bytes);

    std::fs::write(ws.join("deep/a/b/c/f.txt"), b"changed\n").unwrap();
    let one = snap(&store, &ws);
    assert_ne!(one.snapshot.identity(), first.snapshot.identity());
    assert_eq!(
        one.nodes_hashed, 5,
        "deep/a/b/c, deep/a/b, deep/a, deep and the root"
    );
    let built: std::collections::BTreeSet<&str> = one
        .snapshot
        .built_tree()
        .unwrap()
        .dirs
        .iter()
        .filter(|(_, n)| n.built)
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        built,
        ["", "deep", "deep/a", "deep/a/b", "deep/a/b/c"].into()
    );
    // The identity is the one a build from nothing gives, and every node is in the store.
    let cold = genesis::tree::build(one.snapshot.files(), &one.executable, None);
    assert_eq!(cold.root, one.snapshot.identity());
    for n in cold.dirs.values() {
        assert!(store.has_object(&n.identity));
    }
    let (read, _) = store.read_snapshot(&one.snapshot.identity()).unwrap();
    assert_eq!(read.files(), one.snapshot.files());

    // An executable bit is an entry change too.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        ws.join("t1/s05/f00.txt"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let exec = snap(&store, &ws);
    assert_eq!(exec.nodes_hashed, 3, "t1/s05, t1 and the root");
    assert_eq!(
        genesis::tree::build(exec.snapshot.files(), &exec.executable, None).root,
        exec.snapshot.identity()
    );
}

#[test]
fn a_damaged_or_other_version_tree_cache_is_ignored() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    big_tree(&ws);
    let store = Store::init(&d.path().join("store")).unwrap();
    let first = snap(&store, &ws);
    let cache = store.stat_cache_path(&ws).with_extension("tree");
    let good = std::fs::read(&cache).unwrap();
    let mut version = good.clone();
    version[8] = 2;
    let mut flipped = good.clone();
    flipped[40] ^= 1;
    for (what, bytes) in [
        ("truncated", good[..good.len() - 1].to_vec()),
        ("version 2", version),
        ("a byte flipped", flipped),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&cache, &bytes).unwrap();
        // The tree cache is asked only when the stat cache's summary does not answer.
        let _ = std::fs::remove_file(store.stat_cache_path(&ws));
        let o = snap(&store, &ws);
        assert_eq!(o.snapshot.identity(), first.snapshot.identity(), "{what}");
        assert_eq!(o.nodes_hashed, 68, "{what}: every node built again");
        assert_eq!(std::fs::read(&cache).unwrap(), good, "{what}: rewritten");
    }
}

#[test]
fn nodes_missing_from_the_store_are_written_again() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    big_tree(&ws);
    let store_dir = d.path().join("store");
    let store = Store::init(&store_dir).unwrap();
    let first = snap(&store, &ws);
    // A new store, the old one's caches copied in: identities come from the cache, but the
    // nodes are written, since the new store lacks them.
    let other = Store::init(&d.path().join("other")).unwrap();
    let from = store.stat_cache_path(&ws);
    let to = other.stat_cache_path(&ws);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from.with_extension("tree"), to.with_extension("tree")).unwrap();
    let o = snap(&other, &ws);
    assert_eq!(o.nodes_hashed, 0);
    assert_eq!(o.snapshot.identity(), first.snapshot.identity());
    let (read, _) = other.read_snapshot(&o.snapshot.identity()).unwrap();
    assert_eq!(read.files(), first.snapshot.files());
}

#[test]
fn a_stat_cache_that_every_file_hits_is_not_rewritten() {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    std::fs::create_dir_all(ws.join("a")).unwrap();
    std::fs::write(ws.join("a/x.txt"), b"x\n").unwrap();
    std::fs::write(ws.join("y.txt"), b"y\n").unwrap();
    let store = Store::init(&d.path().join("store")).unwrap();
    // Older than the racy window, so the first snapshot caches both files.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let first = snap(&store, &ws);
    assert_eq!((first.hashed, first.from_cache), (2, 0));
    let cache = store.stat_cache_path(&ws);
    let before = std::fs::metadata(&cache).unwrap();
    let again = snap(&store, &ws);
    assert_eq!((again.hashed, again.from_cache), (0, 2));
    let after = std::fs::metadata(&cache).unwrap();
    assert_eq!(
        (after.ino(), after.mtime_nsec(), after.mtime()),
        (before.ino(), before.mtime_nsec(), before.mtime()),
        "not rewritten (a rewrite renames a new file in)"
    );
    // A deleted file leaves an entry over: the cache is rewritten without it.
    std::fs::remove_file(ws.join("y.txt")).unwrap();
    let third = snap(&store, &ws);
    assert_eq!((third.hashed, third.from_cache), (0, 1));
    assert_ne!(std::fs::metadata(&cache).unwrap().ino(), before.ino());
    assert_eq!(genesis::statcache::StatCache::load(&cache).len(), 1);
}

/// The bytes of tree cache `good` with one byte of the node identity recorded for `dir`
/// flipped, and the trailer (SHA-256 of every byte before it) made right again: a cache the
/// loader accepts that names a wrong identity.
fn with_wrong_identity(good: &[u8], dir: &str) -> Vec<u8> {
    let mut bytes = good[..good.len() - 32].to_vec();
    let mut at = 16;
    loop {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if &bytes[at + 4..at + 4 + len] == dir.as_bytes() {
            bytes[at + 4 + len + 32] ^= 1;
            break;
        }
        at += 4 + len + 64;
    }
    let sum = genesis::hash::Digest::of(&bytes);
    bytes.extend_from_slice(sum.as_bytes());
    bytes
}

/// Issue 11 reviewer: a tree cache entry with a wrong identity (and a valid trailer) made every
/// later snapshot fail (exit 4, "node …: not in canonical (RFC 8785) form"), even after files
/// changed. A cache never makes a snapshot fail or gives it a wrong identity: the tree is built
/// again without it and the cache rewritten.
#[test]
fn a_tree_cache_entry_with_a_wrong_identity_is_not_trusted() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    big_tree(&ws);
    let store = Store::init(&d.path().join("store")).unwrap();
    let first = snap(&store, &ws);
    let cache = store.stat_cache_path(&ws).with_extension("tree");
    let good = std::fs::read(&cache).unwrap();
    for dir in ["t1/s05", "", "deep/a/b/c"] {
        let bad = with_wrong_identity(&good, dir);
        assert!(genesis::tree::TreeCache::decode(&bad).is_some(), "{dir:?}");
        std::fs::write(&cache, &bad).unwrap();
        // Without the stat cache, whose summary would answer once the files are old enough
        // to be cached (statcache_summary.rs), so that the tree cache is asked.
        let _ = std::fs::remove_file(store.stat_cache_path(&ws));
        let o = snap(&store, &ws);
        assert_eq!(o.snapshot.identity(), first.snapshot.identity(), "{dir:?}");
        assert_eq!(o.nodes_hashed, 68, "{dir:?}: every node built again");
        assert_eq!(std::fs::read(&cache).unwrap(), good, "{dir:?}: rewritten");
        assert_eq!(snap(&store, &ws).nodes_hashed, 0, "{dir:?}: trusted again");
    }
    // After a file changes elsewhere too (the wrong entry's directory is unchanged).
    std::fs::write(&cache, with_wrong_identity(&good, "t1/s05")).unwrap();
    std::fs::write(ws.join("t2/s00/f00.txt"), b"changed\n").unwrap();
    let (o, added) = store
        .snapshot_into(&ws, &SnapshotOptions::default())
        .unwrap();
    // The new blob is counted although the try that met the wrong entry stored it.
    assert_eq!(added, 1);
    let cold = genesis::tree::build(o.snapshot.files(), &o.executable, None);
    assert_eq!(o.snapshot.identity(), cold.root);
    assert_ne!(o.snapshot.identity(), first.snapshot.identity());
    let (read, _) = store.read_snapshot(&o.snapshot.identity()).unwrap();
    assert_eq!(read.files(), o.snapshot.files());
}
