//! A stat cache entry promises that its blob is in the store: a store snapshot does not read a
//! file the cache answers for. A check that stores nothing (apply's comparison of an in-place
//! workspace with the session) must not add entries, or a later `abort` reports files saved
//! whose blobs were never stored, and `restore` and `patch` fail with "not in the store"
//! (issue 11 review: unrecorded work lost after `verify` and a refused `apply`).

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

/// An in-place session whose workspace gained unrecorded edits that are older than the stat
/// cache's racy window, then `verify` (passes, on the recorded snapshot) and `apply` (refused:
/// the workspace differs from the session's snapshot).
fn edited_then_refused() -> tempfile::TempDir {
    let d = workspace(MANIFEST, &[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "b", "--in-place"]));
    std::fs::write(r.join("a.txt"), b"a\nadd\n").unwrap();
    std::fs::create_dir_all(r.join("zz")).unwrap();
    std::fs::write(r.join("zz/z"), b"z\n").unwrap();
    // Older than the racy window (2 s), so a snapshot may cache them.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    ok(&run_in(r, &["verify", "b"]));
    let o = run_in(r, &["apply", "b"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    d
}

#[test]
fn abort_after_a_refused_apply_saves_the_unrecorded_files_and_restore_brings_them_back() {
    let d = edited_then_refused();
    let r = d.path();
    let o = run_in(r, &["abort", "b"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
    assert!(!r.join("zz/z").exists());
    ok(&run_in(r, &["restore", "b"]));
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\nadd\n");
    assert_eq!(std::fs::read(r.join("zz/z")).unwrap(), b"z\n");
}

#[test]
fn patch_after_a_refused_apply_records_the_unrecorded_files() {
    let d = edited_then_refused();
    let r = d.path();
    let o = run_in(r, &["patch", "b"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    ok(&run_in(r, &["verify", "b"]));
    ok(&run_in(r, &["apply", "b"]));
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\nadd\n");
    assert_eq!(std::fs::read(r.join("zz/z")).unwrap(), b"z\n");
    // gc reads every object a snapshot names: none is missing.
    let o = run_in(r, &["gc", "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
