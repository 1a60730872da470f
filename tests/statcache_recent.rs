//! Recent snapshots beside the stat cache (`genesis::statcache::recent`, DESIGN §3 "One-file
//! snapshots"): while a file just edited is racy, a v0.1 snapshot of the cache's entries plus
//! that file takes its identity from the last snapshot of the same files, without serialising
//! and hashing every entry; the identity is always the one a snapshot without any cache gives,
//! and a wrong remembered identity is caught when the store writes the snapshot.

use std::path::Path;
use std::time::Duration;

use genesis::snapshot::{SnapshotOptions, SnapshotOutcome, snapshot_dir};
use genesis::statcache::StatCache;
use genesis::statcache::recent::RecentSnapshots;
use genesis::store::Store;

/// Longer than the racy window (2 s).
fn age() {
    std::thread::sleep(Duration::from_millis(2200));
}

fn snap(store: &Store, root: &Path) -> SnapshotOutcome {
    store
        .snapshot_into(root, &SnapshotOptions::default())
        .unwrap()
        .0
}

fn cold(root: &Path) -> genesis::Digest {
    snapshot_dir(root, &SnapshotOptions::default())
        .unwrap()
        .snapshot
        .identity()
}

/// A workspace of `files` files in directories of 10 and a new store, the files older than
/// the racy window, and one snapshot taken (so the stat cache holds every file).
fn aged(files: usize) -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    for i in 0..files {
        let dir = ws.join(format!("d{:02}", i / 10));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{i:03}.txt")), format!("{i}\n")).unwrap();
    }
    let store = Store::init(&d.path().join("store")).unwrap();
    age();
    snap(&store, &ws);
    (d, ws, store)
}

fn recent_path(store: &Store, ws: &Path) -> std::path::PathBuf {
    store.stat_cache_path(ws).with_extension("recent")
}

/// The file rewritten (content `text`, so racy again) and a snapshot taken: its outcome,
/// checked against a snapshot without any cache.
fn edit_and_snap(store: &Store, ws: &Path, text: &str) -> SnapshotOutcome {
    std::fs::write(ws.join("d00/f003.txt"), text).unwrap();
    let o = snap(store, ws);
    assert_eq!(o.snapshot.identity(), cold(ws), "{text:?}");
    o
}

/// The file rewritten with "A\n" (racy again) and a snapshot the store refuses with an error
/// naming `name`.
fn refused_naming(store: &Store, ws: &Path, name: &str) {
    std::fs::write(ws.join("d00/f003.txt"), "A\n").unwrap();
    let err = store
        .snapshot_into(ws, &SnapshotOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains(name), "{err}");
}

#[test]
fn a_racy_file_edited_back_and_forth_takes_its_identity_from_a_recent_snapshot() {
    let (d, ws, store) = aged(40);
    // The first edit changes the cache (the file's entry goes), so nothing is remembered.
    let o = edit_and_snap(&store, &ws, "A\n");
    assert!(!o.identity_cached);
    assert!(!recent_path(&store, &ws).exists());
    // The cache unchanged since: the first snapshot of each content is remembered, the
    // next ones take it.
    let a = edit_and_snap(&store, &ws, "A\n");
    assert!(!a.identity_cached);
    let b = edit_and_snap(&store, &ws, "B\n");
    assert!(!b.identity_cached);
    for text in ["A\n", "B\n", "A\n"] {
        let o = edit_and_snap(&store, &ws, text);
        assert!(o.identity_cached, "{text:?}");
        assert_eq!((o.hashed, o.from_cache), (1, 39));
        let want = if text == "A\n" { &a } else { &b };
        assert_eq!(o.snapshot.identity(), want.snapshot.identity());
        assert_eq!(o.snapshot.files(), want.snapshot.files());
    }
    // Another content, another size, a second file: not remembered, computed.
    let o = edit_and_snap(&store, &ws, "C\n");
    assert!(!o.identity_cached);
    std::fs::write(ws.join("d01/f010.txt"), "A\n").unwrap();
    let o = edit_and_snap(&store, &ws, "A\n");
    assert!(!o.identity_cached, "two files read");
    // Its stored document is the snapshot's.
    let (stored, _) = store.read_snapshot(&o.snapshot.identity()).unwrap();
    assert_eq!(stored.files(), o.snapshot.files());
    drop(d);
}

/// Once the store's document of a remembered snapshot is older than the racy window, its
/// fields are remembered too (the document is then not read); an edit of the document is
/// still noticed, as with the stat cache's summary.
#[test]
fn a_remembered_document_is_trusted_only_while_its_fields_hold() {
    let (d, ws, store) = aged(20);
    edit_and_snap(&store, &ws, "A\n");
    let a = edit_and_snap(&store, &ws, "A\n").snapshot.identity();
    let path = recent_path(&store, &ws);
    let generation = StatCache::load(&store.stat_cache_path(&ws))
        .generation()
        .unwrap();
    let key = genesis::statcache::recent::Key {
        generation,
        files: 20,
        read: vec![("d00/f003.txt".into(), genesis::Digest::of(b"A\n"), 2)],
    };
    let remembered = |p: &Path| RecentSnapshots::load(p).find(&key).cloned().unwrap();
    assert_eq!(remembered(&path).identity, a);
    assert_eq!(remembered(&path).document, None, "just written: racy");
    age();
    let o = edit_and_snap(&store, &ws, "A\n");
    assert!(o.identity_cached);
    let doc = d.path().join(format!("store/snapshots/{a}.json"));
    let fields = genesis::statcache::StatKey::of(&std::fs::symlink_metadata(&doc).unwrap());
    assert_eq!(remembered(&path).document, Some(fields));
    // Unchanged: the file is not rewritten.
    let bytes = std::fs::read(&path).unwrap();
    edit_and_snap(&store, &ws, "A\n");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // The document edited in place, its size kept: noticed and refused.
    let clean = std::fs::read(&doc).unwrap();
    let text = String::from_utf8(clean.clone()).unwrap();
    let at = text.find("\"blob\": \"").unwrap() + 9;
    let mut edited = clean.clone();
    edited[at] = if edited[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(&doc, &edited).unwrap();
    refused_naming(&store, &ws, &format!("{a}.json"));
    // Restored: taken again.
    std::fs::write(&doc, &clean).unwrap();
    assert_eq!(edit_and_snap(&store, &ws, "A\n").snapshot.identity(), a);
}

/// A remembered identity that is wrong (a damaged file whose checksum still matches) never
/// becomes the snapshot's: the store finds the document missing or other, the caches are
/// removed, and the snapshot is taken again from the files.
#[test]
fn a_wrong_remembered_identity_is_caught() {
    let (d, ws, store) = aged(20);
    edit_and_snap(&store, &ws, "A\n");
    let a = edit_and_snap(&store, &ws, "A\n").snapshot.identity();
    let b = edit_and_snap(&store, &ws, "B\n").snapshot.identity();
    let path = recent_path(&store, &ws);
    let swap = |from: genesis::Digest, to: genesis::Digest| {
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len() - 4;
        let at = bytes
            .windows(32)
            .position(|w| w == from.as_bytes())
            .unwrap();
        bytes[at..at + 32].copy_from_slice(to.as_bytes());
        let sum = crc32fast::hash(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
    };
    // Naming a snapshot the store does not hold.
    swap(a, genesis::Digest::of(b"no such snapshot"));
    let o = edit_and_snap(&store, &ws, "A\n");
    assert_eq!(o.snapshot.identity(), a);
    assert_eq!(o.hashed, 20, "every file read again");
    // Naming another stored snapshot (B's for A's content).
    edit_and_snap(&store, &ws, "A\n");
    edit_and_snap(&store, &ws, "A\n");
    swap(a, b);
    let o = edit_and_snap(&store, &ws, "A\n");
    assert_eq!(o.snapshot.identity(), a);
    assert_eq!(o.hashed, 20);
    let docs = std::fs::read_dir(d.path().join("store/snapshots"))
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name().into_string().unwrap();
            n.ends_with(".json") && !n.ends_with(".exec.json")
        })
        .count();
    assert_eq!(
        docs, 3,
        "the base, A and B: nothing stored under a wrong name"
    );
}

/// A snapshot the store fails to write (its stored document is not JSON) is not remembered:
/// the next one compares the document again and fails the same way until it is repaired.
#[test]
fn a_snapshot_the_store_refuses_is_not_remembered() {
    let (d, ws, store) = aged(20);
    let a = edit_and_snap(&store, &ws, "A\n").snapshot.identity();
    let path = recent_path(&store, &ws);
    assert!(!path.exists());
    let doc = d.path().join(format!("store/snapshots/{a}.json"));
    let clean = std::fs::read(&doc).unwrap();
    std::fs::write(&doc, b"not json").unwrap();
    for _ in 0..2 {
        refused_naming(&store, &ws, &format!("{a}.json"));
        assert!(!path.exists(), "nothing remembered");
    }
    std::fs::write(&doc, &clean).unwrap();
    assert!(!edit_and_snap(&store, &ws, "A\n").identity_cached);
    assert!(edit_and_snap(&store, &ws, "A\n").identity_cached);
}
