//! A failing command fails cleanly: the documented exit status, never a panic, nothing half
//! printed (a diff that fails prints nothing), and a JSON error document under `--json`,
//! usage errors included.

mod common;

use std::process::Command;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn closed_or_full_stdout_never_panics() {
    let d = workspace(MANIFEST, FILES);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(assert_cmd::cargo::cargo_bin("genesis"))
        .current_dir(d.path())
        .args(["snapshot", "--no-store"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    assert!(
        stderr(&o).contains("writing standard output"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn json_usage_errors_are_json() {
    let d = tempfile::tempdir().unwrap();
    let o = run_in(d.path(), &["--json", "diff"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["code"], 2);
}

#[test]
fn failed_diff_prints_nothing() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    ok(&run_in(r, &["init"]));
    write_tree(r, &[("a", b"1\n"), ("c", b"1\n")]);
    let id1 = stdout(&run_in(r, &["snapshot", "--identity"]))
        .trim()
        .to_owned();
    write_tree(r, &[("a", b"2\n"), ("c", b"3\n")]);
    let id2 = stdout(&run_in(r, &["snapshot", "--identity"]))
        .trim()
        .to_owned();
    let h = genesis::Digest::of(b"3\n").to_string();
    std::fs::write(
        r.join(".genesis/objects").join(&h[..2]).join(&h[2..]),
        b"x\n",
    )
    .unwrap();
    let o = run_in(r, &["diff", &id1, &id2]);
    assert_eq!(o.status.code(), Some(4));
    assert!(o.stdout.is_empty(), "partial diff printed: {}", stdout(&o));
}

#[test]
fn missing_explicit_store_is_an_error() {
    let d = workspace(MANIFEST, FILES);
    let o = run_in(d.path(), &["--store", "/nonexistent/store", "snapshot"]);
    assert_eq!(o.status.code(), Some(2));
}
