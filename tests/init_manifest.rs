//! `genesis init`: writes a valid default manifest, keeps an existing one, and leaves no
//! manifest when it fails.

mod common;

use common::*;

#[test]
fn init_writes_a_valid_manifest_and_keeps_an_existing_one() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let o = run_in(r, &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(r.join(".genesis/format")).unwrap(),
        "genesis-store 3\n"
    );
    let o = run_in(r, &["validate", "genesis.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    std::fs::write(
        r.join("genesis.json"),
        b"{\"schema\":\"genesis/manifest-v0.1\",\"obligations\":[]}",
    )
    .unwrap();
    let o = run_in(r, &["init"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("kept as it is"));
    assert_eq!(
        std::fs::read(r.join("genesis.json")).unwrap(),
        b"{\"schema\":\"genesis/manifest-v0.1\",\"obligations\":[]}"
    );
    std::fs::write(r.join("genesis.json"), b"{oops").unwrap();
    let o = run_in(r, &["snapshot"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("genesis.json: invalid JSON"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn failed_init_leaves_no_manifest() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(".genesis"), b"a file where the store goes").unwrap();
    let o = run_in(d.path(), &["init"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(!d.path().join("genesis.json").exists());
}
