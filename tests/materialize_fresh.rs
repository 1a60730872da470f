//! `materialize` into an empty directory (verify's scratch directory, a new workdir or
//! checkout) takes a faster path (directories made once, files written in parallel under their
//! final names, src/materialize/fresh.rs). It must write exactly what the general sync writes
//! into a directory that is not empty: the same bytes, the same permission bits (from the
//! workspace, DESIGN section 10), the same directories; and fail with the same error.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use genesis::materialize::{MaterializeOptions, MaterializeOutcome, materialize};
use genesis::snapshot::{SnapshotOptions, SnapshotOutcome};
use genesis::store::Store;

/// Names whose byte order interleaves directories (`a/b.txt` < `a/b/c` < `a/c` < `a-b/x`
/// sorts `a-b` first), a root file, an empty file, deep paths, modes 0600/0640/0755.
const FILES: &[(&str, &[u8], u32)] = &[
    ("root.txt", b"root\n", 0o644),
    ("empty", b"", 0o644),
    ("a/b.txt", b"a/b.txt\n", 0o600),
    ("a/b/c", b"a/b/c\n", 0o640),
    ("a/b/d/e/f.sh", b"#!/bin/sh\necho f\n", 0o755),
    ("a/c", b"a/c\n", 0o644),
    ("a-b/x", b"a-b/x\n", 0o700),
    ("z/y/x/w.txt", b"w\n", 0o644),
];

fn workspace() -> (tempfile::TempDir, Store, SnapshotOutcome) {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    for (path, bytes, mode) in FILES {
        let p = ws.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(*mode)).unwrap();
    }
    // A bigger file, so that a zstd frame of some size is decoded too.
    let big: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("line {i:05}\n").into_bytes())
        .collect();
    std::fs::write(ws.join("a/big.txt"), &big).unwrap();
    let store = Store::init(&d.path().join("store")).unwrap();
    let (outcome, _) = store
        .snapshot_into(&ws, &SnapshotOptions::default())
        .unwrap();
    assert_eq!(outcome.snapshot.files().len(), FILES.len() + 1);
    (d, store, outcome)
}

/// Every entry under `dir`: path -> (kind and permission bits, bytes of a file).
fn listing(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let md = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
            if md.is_dir() {
                stack.push(p.clone());
                out.insert(rel, (md.permissions().mode(), Vec::new()));
            } else {
                out.insert(rel, (md.permissions().mode(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn write(
    store: &Store,
    o: &SnapshotOutcome,
    dir: &Path,
    ws: &Path,
) -> Result<MaterializeOutcome, genesis::materialize::MaterializeError> {
    materialize(
        store,
        &o.snapshot,
        &o.executable,
        dir,
        &MaterializeOptions {
            modes_from: Some(ws.to_path_buf()),
            ..Default::default()
        },
    )
}

#[test]
fn an_empty_directory_gets_what_the_general_sync_writes() {
    let (d, store, o) = workspace();
    let ws = d.path().join("ws");
    // The fast path: a new directory.
    let fresh = d.path().join("fresh");
    let out = write(&store, &o, &fresh, &ws).unwrap();
    assert_eq!(
        out,
        MaterializeOutcome {
            written: 9,
            deleted: 0,
            unchanged: 0
        }
    );
    // The general path: a directory holding a stray file, which the sync deletes.
    let general = d.path().join("general");
    std::fs::create_dir_all(general.join("a")).unwrap();
    std::fs::write(general.join("a/stray"), b"stray").unwrap();
    let out = write(&store, &o, &general, &ws).unwrap();
    assert_eq!((out.written, out.deleted, out.unchanged), (9, 1, 0));
    let (f, g) = (listing(&fresh), listing(&general));
    assert_eq!(f, g);
    // And both are the workspace's files with the workspace's bits.
    let umask_dir = g["a"].0 & 0o7777;
    assert_eq!(f["a/b.txt"], (0o100600, b"a/b.txt\n".to_vec()));
    assert_eq!(f["a/b/c"], (0o100640, b"a/b/c\n".to_vec()));
    assert_eq!(f["a/b/d/e/f.sh"].0, 0o100755);
    assert_eq!(f["a-b/x"].0, 0o100700);
    assert_eq!(f["empty"], (0o100644, Vec::new()));
    assert_eq!(
        f["a/big.txt"].1,
        std::fs::read(ws.join("a/big.txt")).unwrap()
    );
    assert_eq!(f["a/b/d"].0 & 0o7777, umask_dir);
    assert_eq!(f.len(), 9 + 8, "{:?}", f.keys().collect::<Vec<_>>());
    assert_eq!(
        std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o7777,
        0o700
    );
}

#[test]
fn without_a_workspace_new_files_get_the_umask_default_as_before() {
    let (d, store, o) = workspace();
    let (fresh, general) = (d.path().join("fresh"), d.path().join("general"));
    std::fs::create_dir_all(&general).unwrap();
    std::fs::write(general.join("stray"), b"stray").unwrap();
    for dir in [&fresh, &general] {
        materialize(
            &store,
            &o.snapshot,
            &o.executable,
            dir,
            &MaterializeOptions::default(),
        )
        .unwrap();
    }
    let (f, g) = (listing(&fresh), listing(&general));
    assert_eq!(f, g);
    // The executable bit recorded for f.sh, the umask's default for the others.
    assert_eq!(f["a/b.txt"].0 & 0o111, 0);
    assert_eq!(f["a/b/d/e/f.sh"].0 & 0o100, 0o100);
}

#[test]
fn a_corrupt_object_fails_as_in_the_general_path_and_names_the_object() {
    let (d, store, o) = workspace();
    let ws = d.path().join("ws");
    let blob = genesis::Digest::of(b"a/c\n");
    std::fs::write(store.object_path(&blob), b"not the content").unwrap();
    let fresh = d.path().join("fresh");
    let e1 = write(&store, &o, &fresh, &ws).unwrap_err().to_string();
    let general = d.path().join("general");
    std::fs::create_dir_all(&general).unwrap();
    std::fs::write(general.join("stray"), b"stray").unwrap();
    let e2 = write(&store, &o, &general, &ws).unwrap_err().to_string();
    assert_eq!(e1, e2);
    assert!(
        e1.contains(&store.object_path(&blob).display().to_string()),
        "{e1}"
    );
    // No file is left half-written under its final name.
    assert!(!fresh.join("a/c").exists());
    // A missing object likewise.
    std::fs::remove_file(store.object_path(&blob)).unwrap();
    let fresh2 = d.path().join("fresh2");
    let e3 = write(&store, &o, &fresh2, &ws).unwrap_err().to_string();
    let e4 = write(&store, &o, &general, &ws).unwrap_err().to_string();
    assert_eq!(e3, e4);
    assert!(e3.contains(&blob.to_hex()), "{e3}");
}
