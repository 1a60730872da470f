//! Issue 12 (reviewer, item 1): a `gc --prune=now` that runs while `verify` has dropped the
//! store lock (its obligations run unlocked) must not cost the session its obligation logs or
//! acceptance record. Deterministic: the second obligation *is* the gc.

mod common;

use common::*;

#[test]
fn gc_while_obligations_run_keeps_what_verify_references() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let manifest = serde_json::json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [
            {"id": "talk", "run": ["sh", "-c", "echo out-unique-1; echo err-unique-1 >&2"], "timeout_s": 30},
            {"id": "gc", "run": [bin.to_str().unwrap(), "-C", root.to_str().unwrap(), "gc", "--prune=now"], "timeout_s": 60},
        ]
    });
    write_tree(
        &root,
        &[
            ("genesis.json", manifest.to_string().as_bytes()),
            ("a.txt", b"one\n"),
        ],
    );
    ok(&run_in(&root, &["init", "-q"]));
    ok(&run_in(&root, &["open", "-q", "--session", "v"]));
    let o = run_in(&root, &["verify", "v"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    // The gc obligation ran and removed the first obligation's fresh, unreferenced logs…
    let log = ok(&run_in(&root, &["log", "v"]));
    assert!(log.contains("out-unique-1"), "{log}");
    assert!(log.contains("err-unique-1"), "{log}");
    // …yet the store is whole: a later gc finds no broken reference.
    let g = run_in(&root, &["gc", "--prune=now"]);
    assert_eq!(code(&g), Some(0), "{}", stderr(&g));
    let log = ok(&run_in(&root, &["log", "v"]));
    assert!(log.contains("out-unique-1"), "{log}");
}

#[test]
fn a_gc_blocked_by_a_missing_log_says_how_to_repair_it_and_the_repair_works() {
    let manifest = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"talk","run":["sh","-c","echo out-unique-2"],"timeout_s":30}]}"#;
    let ws = workspace(manifest, &[("a.txt", b"one\n")]);
    let root = ws.path();
    ok(&run_in(root, &["init", "-q"]));
    ok(&run_in(root, &["open", "-q", "--session", "v"]));
    ok(&run_in(root, &["verify", "-q", "v"]));
    let hex = genesis::Digest::of(b"out-unique-2\n").to_string();
    std::fs::remove_file(root.join(format!(".genesis/objects/{}/{}", &hex[..2], &hex[2..])))
        .unwrap();
    let g = run_in(root, &["gc", "--prune=now"]);
    assert_eq!(code(&g), Some(4));
    let err = stderr(&g);
    assert!(err.contains("sessions/v.state/logs/0/stdout"), "{err}");
    assert!(err.contains("to repair: restore the missing objects from a backup of the store; a session's obligation logs and acceptance record are written anew by `genesis verify <session>`"), "{err}");
    ok(&run_in(root, &["verify", "-q", "v"]));
    let g = run_in(root, &["gc", "--prune=now"]);
    assert_eq!(code(&g), Some(0), "{}", stderr(&g));
}

/// Issue 12 reviewer, item 10: a session's `.state` whose `.json` is gone (a crash during
/// `open`, a hand removal) is still a root: gc keeps what it references (DESIGN 3).
#[test]
fn an_orphan_state_is_still_a_root() {
    let manifest = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"talk","run":["sh","-c","echo out-unique-3"],"timeout_s":30}]}"#;
    let ws = workspace(manifest, &[("a.txt", b"one\n")]);
    let root = ws.path();
    ok(&run_in(root, &["init", "-q"]));
    ok(&run_in(root, &["open", "-q", "--session", "v"]));
    ok(&run_in(root, &["verify", "-q", "v"]));
    std::fs::remove_file(root.join(".genesis/sessions/v.json")).unwrap();
    let hex = genesis::Digest::of(b"out-unique-3\n").to_string();
    let log = root.join(format!(".genesis/objects/{}/{}", &hex[..2], &hex[2..]));
    assert!(log.is_file());
    let g = run_in(root, &["gc", "--prune=now"]);
    assert_eq!(code(&g), Some(0), "{}", stderr(&g));
    assert!(
        log.is_file(),
        "gc removed a log the orphan state references"
    );
    // The manifest blob the state names stays too.
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join(".genesis/sessions/v.state")).unwrap())
            .unwrap();
    let m = state["manifest_blob"].as_str().unwrap();
    assert!(
        root.join(format!(".genesis/objects/{}/{}", &m[..2], &m[2..]))
            .is_file()
    );
}
