//! One test per kind of fault the outside reviews found, so none comes back.

mod common;

use std::process::{Command, Stdio};

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn workdir_must_be_apart_new_or_marked() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "w"]));
    for bad in [".", "keep", ".genesis", "..", "/"] {
        let o = run_in(r, &["verify", "w", "--workdir", bad]);
        assert_eq!(o.status.code(), Some(2), "--workdir {bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("must lie outside the workspace"),
            "{}",
            stderr(&o)
        );
    }
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("thesis.txt"), b"precious\n").unwrap();
    let o = run_in(
        r,
        &["verify", "w", "--workdir", other.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("was not made by Genesis"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(other.path().join("thesis.txt")).unwrap(),
        b"precious\n"
    );
    // A new directory works, and on the next run its excluded build cache survives while a
    // stray member file goes.
    let wd = other.path().join("wd");
    ok(&run_in(
        r,
        &["verify", "w", "--workdir", wd.to_str().unwrap()],
    ));
    std::fs::create_dir_all(wd.join("target")).unwrap();
    std::fs::write(wd.join("target/cache"), b"cache").unwrap();
    std::fs::write(wd.join("stray.txt"), b"x").unwrap();
    ok(&run_in(
        r,
        &["verify", "w", "--workdir", wd.to_str().unwrap()],
    ));
    assert_eq!(std::fs::read(wd.join("target/cache")).unwrap(), b"cache");
    assert!(!wd.join("stray.txt").exists());
    assert_eq!(std::fs::read(wd.join("a.txt")).unwrap(), b"a\n");
    // The workspace was never touched.
    assert_eq!(std::fs::read(r.join("keep/me.txt")).unwrap(), b"mine\n");
}

#[test]
fn checkout_inside_the_store_or_workspace_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    for bad in [".genesis/sessions", ".genesis/x", "sub"] {
        let o = run_in(r, &["open", "--session", "c", "--checkout", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
    }
    assert!(!r.join(".genesis/sessions/c.json").exists());
}

#[test]
fn hand_edited_verification_does_not_pass_apply() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "f"]));
    let diff = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    ok(&common::genesis()
        .current_dir(r)
        .args(["patch", "f", "-"])
        .write_stdin(diff.to_vec())
        .output()
        .unwrap());
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
fn patch_may_not_leave_paths_that_snapshots_leave_out() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "e"]));
    let cases: [&[u8]; 2] = [
        b"diff --git a/target/foo b/target/foo\nnew file mode 100644\n--- /dev/null\n+++ b/target/foo\n@@ -0,0 +1 @@\n+x\n",
        b"diff --git a/.gitignore b/.gitignore\nnew file mode 100644\n--- /dev/null\n+++ b/.gitignore\n@@ -0,0 +1 @@\n+a.txt\n",
    ];
    for (diff, expect) in cases.iter().zip([
        "target/foo (its directory target/ is excluded by the manifest)",
        "a.txt (ignored by .gitignore)",
    ]) {
        let o = common::genesis()
            .current_dir(r)
            .args(["patch", "e", "-"])
            .write_stdin(diff.to_vec())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(expect), "{}", stderr(&o));
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.join(".genesis/sessions/e.json")).unwrap())
            .unwrap();
    assert_eq!(doc["patches"], serde_json::json!([]));
}

#[test]
fn diff_run_output_between_differently_named_directories_applies() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "ru"]));
    let diff = b"diff -ruN old/a.txt new/a.txt\n--- old/a.txt\t2026-11-30 06:00:00.000000000 +0000\n+++ new/a.txt\t2026-11-30 06:01:00.000000000 +0000\n@@ -1 +1 @@\n-a\n+A\n";
    let o = common::genesis()
        .current_dir(r)
        .args(["patch", "ru", "-"])
        .write_stdin(diff.to_vec())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("M\ta.txt\n"), "{}", stdout(&o));
    // An empty hunk is a corrupt patch.
    let empty = b"--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +0,0 @@\n";
    let o = common::genesis()
        .current_dir(r)
        .args(["patch", "ru", "-"])
        .write_stdin(empty.to_vec())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
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
fn symlinked_ignore_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    std::fs::write(&outside, b"*.log\n").unwrap();
    let r = d.path().join("ws");
    write_tree(&r, &[("a.log", b"x")]);
    std::os::unix::fs::symlink(&outside, r.join(".gitignore")).unwrap();
    let o = run_in(&r, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(".gitignore: ignore files must be regular files"),
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

fn verified_session(r: &std::path::Path, id: &str, diff: &[u8]) {
    ok(&run_in(r, &["open", "--session", id]));
    ok(&common::genesis()
        .current_dir(r)
        .args(["patch", id, "-"])
        .write_stdin(diff.to_vec())
        .output()
        .unwrap());
    ok(&run_in(r, &["verify", id]));
}

#[test]
fn a_journal_naming_git_or_another_session_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    std::fs::create_dir_all(r.join(".git")).unwrap();
    std::fs::write(r.join(".git/config"), b"[core]\n").unwrap();
    verified_session(r, "j", b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n");
    let blob = genesis::Digest::of(b"b\n").to_string();
    for (name, session, path) in [
        ("j", "j", ".git/config"),
        ("j", "other", "a.txt"),
        ("j", "j", ".genesis/format"),
    ] {
        let journal = serde_json::json!({
            "schema": "genesis/journal-v0.1", "session": session, "final_status": "applied",
            "ops": [{"path": path, "pre": null, "post": {"blob": blob, "executable": true}}]
        });
        std::fs::write(
            r.join(format!(".genesis/journal/{name}.json")),
            journal.to_string(),
        )
        .unwrap();
        let o = run_in(r, &["status"]);
        assert_eq!(o.status.code(), Some(4), "{path}: {}", stderr(&o));
        assert!(stderr(&o).contains("invalid journal"), "{}", stderr(&o));
        assert_eq!(std::fs::read(r.join(".git/config")).unwrap(), b"[core]\n");
        assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
    }
}

#[test]
fn in_place_abort_leaves_another_sessions_applied_change() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    std::fs::write(r.join("c.txt"), b"orig\n").unwrap();
    ok(&run_in(r, &["open", "--session", "a", "--in-place"]));
    verified_session(
        r,
        "b",
        b"--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-orig\n+fromB\n",
    );
    ok(&run_in(r, &["apply", "b"]));
    std::fs::write(r.join("a.txt"), b"agent edit\n").unwrap();
    ok(&run_in(r, &["abort", "a"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"a\n",
        "the agent's edit is undone"
    );
    assert_eq!(
        std::fs::read(r.join("c.txt")).unwrap(),
        b"fromB\n",
        "b's applied change stays"
    );
}

#[test]
fn recovery_never_goes_through_a_link() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    verified_session(
        r,
        "l",
        b"--- a/keep/me.txt\n+++ b/keep/me.txt\n@@ -1 +1 @@\n-mine\n+changed\n",
    );
    // Crash just after the journal is durable (its write is steps 1-5).
    let o = common::genesis()
        .current_dir(r)
        .args(["apply", "l"])
        .env("GENESIS_FAULT", "6:abort")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None);
    assert!(
        std::fs::read_dir(r.join(".genesis/journal"))
            .unwrap()
            .count()
            > 0
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::rename(r.join("keep"), outside.path().join("keep")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("keep"), r.join("keep")).unwrap();
    let o = run_in(r, &["recover"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("keep: refused: is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(outside.path().join("keep/me.txt")).unwrap(),
        b"mine\n"
    );
    let names: Vec<String> = std::fs::read_dir(outside.path().join("keep"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["me.txt"],
        "nothing staged or deleted through the link"
    );
}

#[test]
fn a_sensitive_value_too_short_to_redact_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let mut req: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::repo_root().join("testdata/bpt/start.json")).unwrap(),
    )
    .unwrap();
    let vars = req["environment"]["variables"].as_array_mut().unwrap();
    vars.push(serde_json::json!({"key": "SHORT", "value": "bpt", "sensitive": true}));
    let f = d.path().join("req.json");
    std::fs::write(&f, req.to_string()).unwrap();
    let o = run_in(
        d.path(),
        &["--worker-id", "worker-test", "bpt", f.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SHORT is marked sensitive but its value has fewer than 8 characters"),
        "{}",
        stderr(&o)
    );
    assert!(!d.path().join(".genesis").exists());
}
