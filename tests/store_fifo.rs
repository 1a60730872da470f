//! A FIFO put in place of one of the store's own files is refused at once, never waited on
//! (reviewers, session 9): the store's `format` (no store), the stat cache (an empty cache), a
//! stored snapshot document (an error naming it).

use genesis::snapshot::SnapshotOptions;
use genesis::store::Store;

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{path:?}");
}

#[test]
fn fifos_in_the_store_are_refused_not_waited_on() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), b"a\n").unwrap();
    let root = d.path().join("store");
    let store = Store::init(&root).unwrap();
    let first = store
        .snapshot_into(&ws, &SnapshotOptions::default())
        .unwrap()
        .0;
    let id = first.snapshot.identity();
    // The stat cache: an empty cache, every file read again.
    let cache = store.stat_cache_path(&ws);
    let _ = std::fs::remove_file(&cache);
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    mkfifo(&cache);
    let o = store
        .snapshot_into(&ws, &SnapshotOptions::default())
        .unwrap()
        .0;
    assert_eq!((o.snapshot.identity(), o.hashed), (id, 1));
    // The snapshot's document: an error naming it.
    let doc = root.join(format!("snapshots/{id}.json"));
    std::fs::remove_file(&doc).unwrap();
    mkfifo(&doc);
    let e = store.read_snapshot(&id).unwrap_err().to_string();
    assert!(
        e.contains(&format!("{id}.json")) && e.contains("not a regular file"),
        "{e}"
    );
    // The store's format: not a store.
    let format = root.join("format");
    std::fs::remove_file(&format).unwrap();
    mkfifo(&format);
    assert!(matches!(
        Store::open(&root),
        Err(genesis::store::StoreError::NotAStore(_))
    ));
}
