//! The session lifecycle through the CLI: exact exit codes, messages, bytes on disk; every
//! session document written validates against 004 `#/$defs/session`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::*;

const MANIFEST: &[u8] = br#"{
  "schema": "genesis/manifest-v0.1",
  "protected": ["secret/", "*.lock"],
  "obligations": [
    {"id": "has-hello", "run": ["grep", "-q", "hello", "greeting.txt"], "timeout_s": 10}
  ]
}
"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[
    ("greeting.txt", b"hi\n"),
    ("src/lib.rs", b"pub fn f() {}\n"),
    ("secret/key", b"k\n"),
];

/// Every session document in the store is valid against 004 and the engine's own checks.
fn assert_sessions_valid(root: &Path) {
    let dir = root.join(".genesis/sessions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if name.ends_with(".json") && !name.ends_with(".state") {
            let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            let (kind, violations) = genesis::schema::validate_document(&v);
            assert_eq!(kind, Some(genesis::schema::DocumentKind::Session));
            assert!(violations.is_empty(), "{name}: {violations:?}");
            n += 1;
        }
    }
    assert!(n > 0);
}

const GREETING_DIFF: &[u8] = b"diff --git a/greeting.txt b/greeting.txt\n--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

#[test]
fn full_lifecycle_with_exact_bytes_and_states() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    assert_eq!(ok(&run_in(r, &["open", "--session", "t1"])), "t1\n");
    let doc = session_doc(r, "t1");
    assert_eq!(doc["status"], "open");
    assert_eq!(doc["base_snapshot"], doc["current_snapshot"]);
    assert_eq!(doc["patches"], serde_json::json!([]));
    assert_eq!(doc["verification"], serde_json::Value::Null);

    // apply before verify: refused, exit 3.
    let o = run_in(r, &["apply", "t1"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("it has not been verified"),
        "{}",
        stderr(&o)
    );

    let o = run_stdin(r, &["patch", "t1", "-"], GREETING_DIFF);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = session_doc(r, "t1");
    assert_eq!(
        doc["patches"][0]["patch"],
        genesis::Digest::of(GREETING_DIFF).to_string()
    );
    assert_eq!(doc["patches"][0]["obligations_ok"], true);
    assert_eq!(doc["patches"][0]["acceptance"], serde_json::Value::Null);
    // The workspace is untouched by patch.
    assert_eq!(std::fs::read(r.join("greeting.txt")).unwrap(), b"hi\n");

    let o = run_in(r, &["verify", "t1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = session_doc(r, "t1");
    assert_eq!(doc["verification"]["obligations_ok"], true);
    assert_eq!(doc["verification"]["snapshot"], doc["current_snapshot"]);

    // The acceptance record is in the store under its hash, and holds the obligation.
    let acc = doc["verification"]["acceptance"]
        .as_str()
        .unwrap()
        .to_owned();
    let rec: serde_json::Value = serde_json::from_slice(&stored_object(r, &acc)).unwrap();
    assert_eq!(rec["schema"], "genesis/acceptance-v0.1");
    assert_eq!(
        rec["obligations"],
        serde_json::json!([{"id": "has-hello", "run": ["grep", "-q", "hello", "greeting.txt"], "exit_code": 0, "timed_out": false, "passed": true}])
    );

    ok(&run_in(r, &["apply", "t1"]));
    assert_eq!(std::fs::read(r.join("greeting.txt")).unwrap(), b"hello\n");
    assert_eq!(session_doc(r, "t1")["status"], "applied");

    // A second apply, a patch, a verify, an abort: all exit 3, nothing changes.
    for args in [
        vec!["apply", "t1"],
        vec!["verify", "t1"],
        vec!["abort", "t1"],
    ] {
        let o = run_in(r, &args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(stderr(&o).contains("session t1 is applied; only an open session can be changed"));
    }
    let o = run_stdin(r, &["patch", "t1"], GREETING_DIFF);
    assert_eq!(o.status.code(), Some(3));
    // The workspace after apply hashes to the session's current snapshot.
    let cur = session_doc(r, "t1")["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(&run_in(r, &["check", "--expect", &cur]));
    assert_sessions_valid(r);
}

#[test]
fn patch_after_abort_exits_3_and_workspace_is_untouched() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "a1"]));
    ok(&run_in(r, &["abort", "a1"]));
    let o = run_stdin(r, &["patch", "a1"], GREETING_DIFF);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session a1 is aborted; only an open session can be changed\n"
    );
    assert_eq!(std::fs::read(r.join("greeting.txt")).unwrap(), b"hi\n");
    assert_eq!(session_doc(r, "a1")["status"], "aborted");
    assert_sessions_valid(r);
}

#[test]
fn failing_obligation_gives_exit_1_and_apply_refuses() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "f1"]));
    let o = run_in(r, &["verify", "f1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("obligation has-hello: FAILED (exit 1"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        session_doc(r, "f1")["verification"]["obligations_ok"],
        false
    );
    let o = run_in(r, &["apply", "f1"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("its obligations failed"),
        "{}",
        stderr(&o)
    );
    assert_sessions_valid(r);
}

#[test]
fn protected_path_gives_obligations_ok_false_and_apply_refuses() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "p1"]));
    let diff = b"diff --git a/secret/key b/secret/key\n--- a/secret/key\n+++ b/secret/key\n@@ -1 +1 @@\n-k\n+stolen\ndiff --git a/greeting.txt b/greeting.txt\n--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";
    let o = run_stdin(r, &["patch", "p1", "--verify"], diff);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("static obligation protected fails: secret/key"),
        "{}",
        stdout(&o)
    );
    let doc = session_doc(r, "p1");
    assert_eq!(doc["patches"][0]["obligations_ok"], false);
    assert!(doc["patches"][0]["acceptance"].is_string());
    assert_eq!(doc["verification"]["obligations_ok"], false);
    let o = run_in(r, &["apply", "p1"]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(std::fs::read(r.join("secret/key")).unwrap(), b"k\n");
    assert_sessions_valid(r);
}

#[test]
fn obligations_come_from_the_base_manifest() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "m1"]));
    // The patch tries to drop the obligation; the base manifest still judges it.
    let new_manifest = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;
    let co = tempfile::tempdir().unwrap();
    ok(&run_in(r, &["abort", "m1"]));
    ok(&run_in(
        r,
        &[
            "open",
            "--session",
            "m2",
            "--checkout",
            co.path().join("c").to_str().unwrap(),
        ],
    ));
    std::fs::write(co.path().join("c/genesis.json"), new_manifest).unwrap();
    ok(&run_in(
        r,
        &[
            "patch",
            "m2",
            "--from",
            co.path().join("c").to_str().unwrap(),
        ],
    ));
    let o = run_in(r, &["verify", "m2"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "greeting still says hi: {}",
        stderr(&o)
    );
    assert_sessions_valid(r);
}

#[test]
fn conflict_when_the_workspace_changed_and_nothing_is_written() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "c1"]));
    ok(&run_stdin(r, &["patch", "c1"], GREETING_DIFF));
    ok(&run_in(r, &["verify", "c1"]));
    std::fs::write(r.join("greeting.txt"), b"edited by a human\n").unwrap();
    let o = run_in(r, &["apply", "c1"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("greeting.txt: changed on disk since the session opened"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(r.join("greeting.txt")).unwrap(),
        b"edited by a human\n"
    );
    assert_eq!(session_doc(r, "c1")["status"], "open");
    // --strict: an unrelated change also blocks.
    std::fs::write(r.join("greeting.txt"), b"hi\n").unwrap();
    std::fs::write(r.join("unrelated.txt"), b"new\n").unwrap();
    let o = run_in(r, &["apply", "c1", "--strict"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("unrelated.txt: differs from the base snapshot (--strict)"),
        "{}",
        stderr(&o)
    );
    ok(&run_in(r, &["apply", "c1"]));
    assert_eq!(std::fs::read(r.join("greeting.txt")).unwrap(), b"hello\n");
    assert_sessions_valid(r);
}

#[test]
fn bad_hunk_is_refused_naming_file_and_hunk() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "h1"]));
    let before = session_doc(r, "h1");
    let diff = b"diff --git a/greeting.txt b/greeting.txt\n--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-bonjour\n+hello\n";
    let o = run_stdin(r, &["patch", "h1"], diff);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("greeting.txt") && e.contains("hunk 1"), "{e}");
    assert_eq!(session_doc(r, "h1"), before, "nothing recorded");
}

#[test]
fn from_dir_patch_applies_with_git_apply() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    std::fs::write(r.join("tool.sh"), b"#!/bin/sh\necho tool\n").unwrap();
    std::fs::write(r.join("crlf.txt"), b"one\r\ntwo\r\n").unwrap();
    std::fs::write(r.join("tail"), b"no newline").unwrap();
    let co = tempfile::tempdir().unwrap();
    let c = co.path().join("c");
    ok(&run_in(
        r,
        &["open", "--session", "g1", "--checkout", c.to_str().unwrap()],
    ));
    // Edits of every kind.
    std::fs::write(c.join("greeting.txt"), b"hello\n").unwrap();
    std::fs::write(c.join("crlf.txt"), b"one\r\nTWO\r\n").unwrap();
    std::fs::write(c.join("tail"), b"no newline\nnow").unwrap();
    std::fs::remove_file(c.join("src/lib.rs")).unwrap();
    std::fs::write(c.join("new/bin.dat"), b"").unwrap_or_else(|_| {
        std::fs::create_dir_all(c.join("new")).unwrap();
        std::fs::write(c.join("new/bin.dat"), [0u8, 1, 2, 255, 0, 7]).unwrap();
    });
    std::fs::write(c.join("empty"), b"").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(c.join("tool.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    ok(&run_in(r, &["patch", "g1", "--from", c.to_str().unwrap()]));
    let doc = session_doc(r, "g1");
    let patch = doc["patches"][0]["patch"].as_str().unwrap().to_owned();
    let text = stored_object(r, &patch);
    // git apply on a copy of the base gives the checkout's tree.
    let base_copy = tempfile::tempdir().unwrap();
    let st = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", r.display()))
        .arg(base_copy.path())
        .status()
        .unwrap();
    assert!(st.success());
    std::fs::remove_dir_all(base_copy.path().join(".genesis")).unwrap();
    std::fs::write(base_copy.path().join("p.diff"), &text).unwrap();
    let o = Command::new("git")
        .args(["apply", "--binary", "p.diff"])
        .current_dir(base_copy.path())
        .env(
            "GIT_CEILING_DIRECTORIES",
            base_copy.path().parent().unwrap(),
        )
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_file(base_copy.path().join("p.diff")).unwrap();
    let a = stdout(&run_in(
        base_copy.path(),
        &["snapshot", "--no-store", "--identity"],
    ));
    let b = stdout(&run_in(&c, &["snapshot", "--no-store", "--identity"]));
    assert_eq!(a, b);
    assert_eq!(a.trim(), doc["current_snapshot"].as_str().unwrap());
    let mode = std::fs::metadata(base_copy.path().join("tool.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    // Replay re-derives it with Genesis's own patch engine.
    let o = run_in(r, &["replay", "g1"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // Abort removes the checkout.
    ok(&run_in(r, &["abort", "g1"]));
    assert!(!c.exists());
    assert_sessions_valid(r);
}

#[test]
fn open_without_manifest_says_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("a", b"a")]);
    let o = run_in(d.path(), &["open"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "genesis.json: no package manifest; run `genesis init` or pass --manifest PATH"
        ),
        "{}",
        stderr(&o)
    );
    let o = run_in(d.path(), &["open", "--session", "bad id!"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn obligation_timeout_kills_the_process_group() {
    let d = tempfile::tempdir().unwrap();
    let marker = d
        .path()
        .join("..")
        .join(format!("marker-{}", std::process::id()));
    let script = format!("(sleep 3; touch {}) & sleep 30", marker.display());
    let manifest = serde_json::json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [{"id": "slow", "run": ["sh", "-c", script], "timeout_s": 1}]
    });
    write_tree(
        d.path(),
        &[("genesis.json", manifest.to_string().as_bytes())],
    );
    ok(&run_in(d.path(), &["open", "--session", "t"]));
    let start = std::time::Instant::now();
    let o = run_in(d.path(), &["verify", "t"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(start.elapsed().as_secs() < 10);
    assert!(
        stderr(&o).contains("killed after the 1 s timeout"),
        "{}",
        stderr(&o)
    );
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        !marker.exists(),
        "the background child was killed with its group"
    );
}

#[test]
fn diff_of_a_session_is_base_to_current() {
    let ws = workspace(MANIFEST, FILES);
    let r = ws.path();
    ok(&run_in(r, &["open", "--session", "d1"]));
    ok(&run_stdin(r, &["patch", "d1"], GREETING_DIFF));
    let o = run_in(r, &["diff", "d1"]);
    assert_eq!(
        ok(&o),
        "diff --git a/greeting.txt b/greeting.txt\n--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n"
    );
    let o = run_in(r, &["diff", "no-such-session"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn duplicate_obligation_ids_are_refused() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[(
            "genesis.json",
            br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"t","run":["true"]},{"id":"t","run":["false"]}]}"#,
        )],
    );
    let o = run_in(d.path(), &["open"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/obligations/1/id: obligation id \"t\" is used twice"),
        "{}",
        stderr(&o)
    );
}

/// A manifest excluding `target/` with one obligation that always passes.
const MANIFEST_EXCLUDING_TARGET: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// Files beside [`MANIFEST_EXCLUDING_TARGET`].
const A_AND_KEEP_FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn hand_edited_verification_does_not_pass_apply() {
    let d = workspace(MANIFEST_EXCLUDING_TARGET, A_AND_KEEP_FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "f"]));
    let diff = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    ok(&run_stdin(r, &["patch", "f", "-"], diff));
    let p = r.join(".genesis/sessions/f.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    doc["verification"] = serde_json::json!({
        "snapshot": doc["current_snapshot"], "acceptance": "a".repeat(64), "obligations_ok": true
    });
    std::fs::write(&p, serde_json::to_vec(&doc).unwrap()).unwrap();
    let o = run_in(r, &["apply", "f"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("acceptance record"), "{}", stderr(&o));
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn interrupting_verify_kills_the_obligation() {
    let d = tempfile::tempdir().unwrap();
    let marker = d
        .path()
        .join("..")
        .join(format!("int-marker-{}", std::process::id()));
    let script = format!("sleep 2; touch {}", marker.display());
    let manifest = serde_json::json!({"schema": "genesis/manifest-v0.1",
        "obligations": [{"id": "slow", "run": ["sh", "-c", script], "timeout_s": 60}]});
    write_tree(
        d.path(),
        &[("genesis.json", manifest.to_string().as_bytes())],
    );
    ok(&run_in(d.path(), &["open", "--session", "i"]));
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let child = Command::new(bin)
        .current_dir(d.path())
        .args(["verify", "i"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted while obligation slow ran"));
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(!marker.exists(), "the obligation was killed");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join(".genesis/sessions/i.json")).unwrap())
            .unwrap();
    assert_eq!(doc["verification"], serde_json::Value::Null);
}
