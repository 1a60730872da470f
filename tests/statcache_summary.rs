//! The stat cache's summary (`genesis::statcache::Summary`, DESIGN §3 "No-change snapshots"):
//! a snapshot whose every file the cache answers, with no entry left over, takes its identity
//! from the summary, builds no node and hashes nothing; any change to the file list (content,
//! executable bit, a file added or deleted, a file that was racy) goes the long way and gives
//! the identity a snapshot without any cache gives. A wrong summary never gives a wrong
//! identity to a snapshot the store has to write.

use std::path::Path;
use std::time::Duration;

use genesis::snapshot::{SnapshotFormat, SnapshotOptions, SnapshotOutcome, snapshot_dir};
use genesis::statcache::StatCache;
use genesis::store::Store;

/// Longer than the racy window (2 s): files written before it are cached.
fn age() {
    std::thread::sleep(Duration::from_millis(2200));
}

fn snap(store: &Store, root: &Path) -> SnapshotOutcome {
    store
        .snapshot_into(root, &SnapshotOptions::default())
        .unwrap()
        .0
}

/// The identity of `root` computed from nothing (no store, no cache).
fn cold(root: &Path) -> genesis::Digest {
    snapshot_dir(root, &SnapshotOptions::default())
        .unwrap()
        .snapshot
        .identity()
}

/// `files` files (past v0.1's 4,096 when over it) in directories of 100.
fn tree(root: &Path, files: usize) {
    for i in 0..files {
        let d = root.join(format!("d{:02}", i / 100));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("f{i:05}.txt")), format!("{i}\n")).unwrap();
    }
}

/// A workspace of `files` files ([`tree`]) and a new store beside it, in a temporary directory
/// (kept alive by the first value), the files older than the racy window.
fn aged(files: usize) -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    tree(&ws, files);
    let store = Store::init(&d.path().join("store")).unwrap();
    age();
    (d, ws, store)
}

/// Whether `o` was answered by the summary: nothing hashed or built, every file cached.
fn summarised(o: &SnapshotOutcome) -> bool {
    o.hashed == 0
        && o.nodes_hashed == 0
        && o.from_cache == o.snapshot.files().len()
        && o.snapshot.built_tree().is_none()
}

/// The stat cache at `path` with its summary identity replaced by `identity` (checksum made
/// right again): a cache the loader accepts that names a wrong snapshot.
fn with_summary(path: &Path, identity: genesis::Digest) {
    let bytes = std::fs::read(path).unwrap();
    let mut body = bytes[..bytes.len() - 4].to_vec();
    assert_eq!(body[16] & 1, 1, "the cache has a summary");
    body[20..52].copy_from_slice(identity.as_bytes());
    let sum = crc32fast::hash(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(path, body).unwrap();
    assert_eq!(
        StatCache::load(path).summary().map(|s| s.identity),
        Some(identity)
    );
}

fn each_format(check: impl Fn(usize, SnapshotFormat)) {
    check(50, SnapshotFormat::V0_1);
    check(4200, SnapshotFormat::V0_2);
}

#[test]
fn an_unchanged_tree_takes_its_identity_from_the_summary() {
    each_format(|files, format| {
        let (_dir, ws, store) = aged(files);
        let first = snap(&store, &ws);
        assert_eq!(first.snapshot.format(), format);
        assert_eq!(first.hashed, files);
        let cache = store.stat_cache_path(&ws);
        let summary = StatCache::load(&cache).summary().unwrap();
        assert_eq!(summary.identity, first.snapshot.identity());
        assert!(summary.fold_free);

        let again = snap(&store, &ws);
        assert!(summarised(&again), "{format:?}");
        assert_eq!(again.snapshot.identity(), first.snapshot.identity());
        assert_eq!(again.snapshot.format(), format);
        assert_eq!(again.snapshot.files(), first.snapshot.files());
        assert!(again.snapshot.fold_collisions().is_empty());
        assert_eq!(cold(&ws), first.snapshot.identity());
        let (read, _) = store.read_snapshot(&again.snapshot.identity()).unwrap();
        assert_eq!(read.files(), first.snapshot.files());
    });
}

#[test]
fn every_change_to_the_list_goes_the_long_way() {
    use std::os::unix::fs::PermissionsExt;
    each_format(|files, format| {
        let (_dir, ws, store) = aged(files);
        let first = snap(&store, &ws).snapshot.identity();
        let f = ws.join("d00/f00003.txt");
        let changes: [(&str, &dyn Fn()); 5] = [
            ("content", &|| std::fs::write(&f, b"other\n").unwrap()),
            ("content back", &|| std::fs::write(&f, b"3\n").unwrap()),
            ("executable bit", &|| {
                std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap()
            }),
            ("deleted", &|| std::fs::remove_file(&f).unwrap()),
            ("added", &|| {
                std::fs::write(ws.join("d00/new.txt"), b"n\n").unwrap()
            }),
        ];
        for (what, change) in changes {
            change();
            let o = snap(&store, &ws);
            // A deleted file leaves every other one a hit: only the entry left over tells.
            if what != "deleted" {
                assert!(o.hashed > 0 || !summarised(&o), "{format:?} {what}");
            }
            assert_eq!(o.snapshot.identity(), cold(&ws), "{format:?} {what}");
            // The bit is part of a v0.2 identity only.
            let same = what == "content back"
                || (what == "executable bit" && format == SnapshotFormat::V0_1);
            assert_eq!(o.snapshot.identity() == first, same, "{format:?} {what}");
        }
    });
}

/// The fold check looks at paths only: a snapshot whose paths are exactly the cache's entries'
/// takes the summary's answer whatever contents it read again; a path renamed (the count the
/// same) or a summary that found a collision makes it look again.
#[test]
fn the_fold_check_carries_over_to_the_same_paths_only() {
    each_format(|files, format| {
        let (_dir, ws, store) = aged(files);
        let cache = store.stat_cache_path(&ws);
        // A summary of every file, fold free, then a content edit.
        snap(&store, &ws);
        assert!(StatCache::load(&cache).summary().unwrap().fold_free);
        std::fs::write(ws.join("d00/f00003.txt"), b"edited\n").unwrap();
        let o = snap(&store, &ws);
        assert_eq!((o.hashed, o.from_cache), (1, files - 1), "{format:?}");
        assert!(o.snapshot.fold_collisions().is_empty(), "{format:?}");
        assert_eq!(o.snapshot.identity(), cold(&ws), "{format:?}");
        // Settled again, then one file renamed to fold with a directory: as many paths as
        // the cache's entries, one of them new.
        age();
        snap(&store, &ws);
        let summary = StatCache::load(&cache).summary().unwrap();
        assert!(summary.fold_free, "{format:?}");
        assert_eq!(StatCache::load(&cache).len(), files, "{format:?}");
        std::fs::rename(ws.join("d00/f00004.txt"), ws.join("D00")).unwrap();
        let o = snap(&store, &ws);
        let both = vec![vec!["D00".to_owned(), "d00".to_owned()]];
        assert_eq!(o.snapshot.fold_collisions(), both, "{format:?}");
        assert_eq!(o.snapshot.identity(), cold(&ws), "{format:?}");
        // Settled, the summary records the collision; a content edit finds it again.
        age();
        snap(&store, &ws);
        assert!(!StatCache::load(&cache).summary().unwrap().fold_free);
        std::fs::write(ws.join("d00/f00003.txt"), b"edited again\n").unwrap();
        let o = snap(&store, &ws);
        assert_eq!(o.hashed, 1, "{format:?}");
        assert_eq!(o.snapshot.fold_collisions(), both, "{format:?}");
    });
}

/// A file still racy when the cache was written has no entry, so that snapshot sets no summary
/// (its list is not the entries): once the file is deleted, every file hits and nothing is left
/// over, and the identity is the one of the list without it, not the one that held it.
#[test]
fn a_cache_missing_a_racy_file_has_no_summary() {
    each_format(|files, format| {
        let (_dir, ws, store) = aged(files);
        let without = snap(&store, &ws).snapshot.identity();
        std::fs::write(ws.join("d00/young.txt"), b"young\n").unwrap();
        let with = snap(&store, &ws).snapshot.identity();
        assert_ne!(with, without);
        let cache = store.stat_cache_path(&ws);
        // The entries did not change, so neither did the cache, whose summary is still that of
        // its entries.
        let c = StatCache::load(&cache);
        assert_eq!(c.len(), files, "{format:?}");
        assert_eq!(c.summary().map(|s| s.identity), Some(without), "{format:?}");
        // A racy file that changes the entries (one changed file, young again) clears it.
        std::fs::write(ws.join("d00/f00000.txt"), b"changed\n").unwrap();
        let changed = snap(&store, &ws).snapshot.identity();
        let c = StatCache::load(&cache);
        assert_eq!(c.len(), files - 1, "{format:?}");
        assert_eq!(c.summary(), None, "{format:?}");
        std::fs::write(ws.join("d00/f00000.txt"), b"0\n").unwrap();
        assert_ne!(changed, without);
        std::fs::remove_file(ws.join("d00/young.txt")).unwrap();
        let o = snap(&store, &ws);
        assert_eq!(o.snapshot.identity(), without, "{format:?}");
        // Once every file is old enough to be cached, the summary is back.
        age();
        assert_eq!(snap(&store, &ws).snapshot.identity(), without);
        assert_eq!(
            StatCache::load(&cache).summary().map(|s| s.identity),
            Some(without)
        );
    });
}

/// A summary naming a snapshot the store does not hold (a damaged cache whose checksum still
/// matches) is caught when the store writes it: the caches are removed and the snapshot taken
/// again, every file read, with its true identity.
#[test]
fn a_wrong_summary_is_caught_when_the_snapshot_is_written() {
    each_format(|files, format| {
        let (_dir, ws, store) = aged(files);
        let first = snap(&store, &ws).snapshot.identity();
        let cache = store.stat_cache_path(&ws);
        with_summary(&cache, genesis::Digest::of(b"not this tree"));
        let o = snap(&store, &ws);
        assert_eq!(o.snapshot.identity(), first, "{format:?}");
        assert_eq!(o.hashed, files, "{format:?}: every file read again");
        // The cache written by that snapshot is right again.
        assert_eq!(
            StatCache::load(&cache).summary().map(|s| s.identity),
            Some(first)
        );
        let again = snap(&store, &ws);
        assert!(summarised(&again));
        assert_eq!(again.snapshot.identity(), first);
    });
}

/// v0.1: a summary naming another stored snapshot (its document present) is caught too, by
/// the files of that document.
#[test]
fn a_summary_naming_another_stored_v0_1_snapshot_is_caught() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    tree(&ws, 20);
    let store = Store::init(&d.path().join("store")).unwrap();
    let other_ws = d.path().join("other");
    tree(&other_ws, 21);
    let other = snap(&store, &other_ws).snapshot.identity();
    age();
    let first = snap(&store, &ws).snapshot.identity();
    let cache = store.stat_cache_path(&ws);
    with_summary(&cache, other);
    let o = snap(&store, &ws);
    assert_eq!(o.snapshot.identity(), first);
    assert_eq!(o.hashed, 20);
}

/// v0.1: an entry whose blob was damaged (checksum made right again) gives, with the right
/// summary, a file list that is not the stored document's: caught, and the snapshot taken
/// again from the files, so no snapshot naming the damaged blob is stored.
#[test]
fn a_damaged_entry_under_a_right_summary_is_caught_for_v0_1() {
    let (d, ws, store) = aged(20);
    let first = snap(&store, &ws).snapshot.identity();
    let cache = store.stat_cache_path(&ws);
    let bytes = std::fs::read(&cache).unwrap();
    let mut body = bytes[..bytes.len() - 4].to_vec();
    // The first entry: path length, path, five 8-byte fields, then its blob.
    let len = u32::from_le_bytes(body[112..116].try_into().unwrap()) as usize;
    body[116 + len + 40] ^= 1;
    let sum = crc32fast::hash(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(&cache, &body).unwrap();
    let o = snap(&store, &ws);
    assert_eq!(o.snapshot.identity(), first);
    assert_eq!(o.hashed, 20);
    let docs: Vec<_> = std::fs::read_dir(d.path().join("store/snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".exec.json"))
        .collect();
    assert_eq!(docs, [format!("{first}.json")]);
}

/// v0.1: once the store's document of the summary's snapshot is older than the racy window,
/// the summary keeps its `lstat` fields (so later no-change snapshots do not read it); a
/// document changed after that is read again and found wrong, and once restored is taken.
#[test]
fn the_summary_keeps_the_v0_1_documents_fields_and_an_edit_is_still_noticed() {
    let (d, ws, store) = aged(20);
    let first = snap(&store, &ws).snapshot.identity();
    let cache = store.stat_cache_path(&ws);
    let doc = d.path().join(format!("store/snapshots/{first}.json"));
    // Just written: inside the racy window, so not kept yet.
    assert_eq!(StatCache::load(&cache).summary().unwrap().document, None);
    age();
    let o = snap(&store, &ws);
    assert!(summarised(&o));
    let fields = genesis::statcache::StatKey::of(&std::fs::symlink_metadata(&doc).unwrap());
    let kept = StatCache::load(&cache).summary().unwrap();
    assert_eq!((kept.identity, kept.document), (first, Some(fields)));
    // Unchanged: the same cache, byte for byte, after another snapshot.
    let bytes = std::fs::read(&cache).unwrap();
    assert_eq!(snap(&store, &ws).snapshot.identity(), first);
    assert_eq!(std::fs::read(&cache).unwrap(), bytes);
    // The document edited in place, its size kept: one blob's hex digit changed.
    let clean = std::fs::read(&doc).unwrap();
    let text = String::from_utf8(clean.clone()).unwrap();
    let at = text.find("\"blob\": \"").unwrap() + 9;
    let mut edited = clean.clone();
    edited[at] = if edited[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(&doc, &edited).unwrap();
    let err = store
        .snapshot_into(&ws, &SnapshotOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("{first}.json")), "{err}");
    // Restored: taken again, and its new fields are not kept until they settle.
    std::fs::write(&doc, &clean).unwrap();
    assert_eq!(snap(&store, &ws).snapshot.identity(), first);
    let kept = StatCache::load(&cache).summary().unwrap();
    assert_eq!((kept.identity, kept.document), (first, None));
}

/// The cache's bytes with the checksum made right again after `edit`.
fn resummed(path: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let bytes = std::fs::read(path).unwrap();
    let mut body = bytes[..bytes.len() - 4].to_vec();
    edit(&mut body);
    let sum = crc32fast::hash(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(path, &body).unwrap();
}

/// Reviewer, session 9: with the document's fields kept (so the document is not read), an
/// entry's blob replaced by another's, or the whole summary of another cache copied in (the
/// checksum made right again each time), still gives the files' own snapshot: the fields are
/// bound to the entries they were taken with.
#[test]
fn document_fields_do_not_outlive_their_entries() {
    let (_d, ws, store) = aged(20);
    let first = snap(&store, &ws).snapshot.identity();
    age();
    snap(&store, &ws);
    let cache = store.stat_cache_path(&ws);
    let a = std::fs::read(&cache).unwrap();
    assert_eq!(a[16] & 4, 4, "the document's fields are kept");
    // The second entry's blob over the first's.
    resummed(&cache, |body| {
        let len = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap()) as usize;
        let first_blob = 112 + 4 + len(112) + 40;
        let second = 112 + 4 + len(112) + 73;
        let second_blob = second + 4 + len(second) + 40;
        let blob = body[second_blob..second_blob + 32].to_vec();
        body[first_blob..first_blob + 32].copy_from_slice(&blob);
    });
    let o = snap(&store, &ws);
    assert_eq!(o.snapshot.identity(), first);
    let truth = snapshot_dir(&ws, &SnapshotOptions::default()).unwrap();
    assert_eq!(o.snapshot.files(), truth.snapshot.files());
    // Another state of the tree, its fields kept too; then the first cache's summary copied
    // over the second's.
    std::fs::write(
        ws.join("d00/f00003.txt"),
        b"other
",
    )
    .unwrap();
    age();
    let second = snap(&store, &ws).snapshot.identity();
    age();
    snap(&store, &ws);
    assert_eq!(std::fs::read(&cache).unwrap()[16] & 4, 4);
    resummed(&cache, |body| body[16..96].copy_from_slice(&a[16..96]));
    let o = snap(&store, &ws);
    assert_eq!(o.snapshot.identity(), second);
    assert_eq!(o.snapshot.identity(), cold(&ws));
}

/// Reviewer, session 9: a snapshot that fails on a damaged stored document still leaves the
/// stat cache of the files it read, so once the document is removed the next snapshot reads
/// none of them again (the document is written anew).
#[test]
fn a_store_error_keeps_the_stat_cache() {
    let (d, ws, store) = aged(20);
    let first = snap(&store, &ws).snapshot.identity();
    let doc = d.path().join(format!("store/snapshots/{first}.json"));
    let clean = std::fs::read_to_string(&doc).unwrap();
    let at = clean.find("\"blob\": \"").unwrap() + 9;
    let mut edited = clean.clone().into_bytes();
    edited[at] = if edited[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(&doc, &edited).unwrap();
    assert!(
        store
            .snapshot_into(&ws, &SnapshotOptions::default())
            .is_err()
    );
    std::fs::remove_file(&doc).unwrap();
    let o = snap(&store, &ws);
    assert_eq!(
        (o.snapshot.identity(), o.hashed, o.from_cache),
        (first, 0, 20)
    );
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), clean);
}
