//! A JSON member name twice in one object is refused, in every document Genesis reads and by
//! every command alike: exit 2, `FILE: duplicate key "KEY" at /json/pointer`, nothing written;
//! the same holds for a file of the store (snapshot documents and their sidecars, acceptance
//! records, BPT task records), which only Genesis writes.
//! (RFC 8259 leaves duplicate names open; `serde_json` would keep the last one, so a manifest
//! with `"obligations"` twice, a failing obligation then `[]`, used to verify with no checks.)

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

const GOOD_MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","protected":["genesis.json"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n")];

/// A failing obligation, then `[]`: with the last value kept, nothing would be checked.
const OBLIGATIONS_TWICE: &str = r#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"fail","run":["false"]}],"obligations":[]}"#;
/// Protection given, then taken away.
const PROTECTED_TWICE: &str = r#"{"schema":"genesis/manifest-v0.1","protected":["genesis.json"],"protected":[],"obligations":[]}"#;
/// Nested: the failing argv replaced by a passing one.
const RUN_TWICE: &str = r#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"t","run":["false"],"run":["true"]}]}"#;

const CHANGE: &[u8] = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";

/// Every file under `root` with its bytes, except the store lock (each command writes its pid).
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p != root.join(".genesis/lock") {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// Runs `args` in `r` and asserts exit 2, exactly `message` on standard error, nothing on
/// standard output, and no file changed.
fn refused(r: &Path, args: &[&str], message: &str) {
    refused_with(r, args, 2, message);
}

/// As [`refused`], for a file in the store: `FILE: duplicate key "KEY" at /pointer`.
fn corrupt(r: &Path, args: &[&str], file: &str, key_and_pointer: &str) {
    refused(r, args, &format!("{file}: duplicate key {key_and_pointer}"));
}

fn refused_with(r: &Path, args: &[&str], code: i32, message: &str) {
    let before = files(r);
    let o = run_in(r, args);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("genesis: error: {message}\n"),
        "{args:?}"
    );
    assert_eq!(stdout(&o), "", "{args:?}");
    assert_eq!(files(r), before, "{args:?} changed files");
}

/// Replaces the first `from` in the file `p` by `to`, asserting it was there.
fn edit(p: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(p).unwrap();
    assert!(
        text.contains(from),
        "{} has no {from:?}: {text}",
        p.display()
    );
    std::fs::write(p, text.replacen(from, to, 1)).unwrap();
}

fn patch(r: &Path, id: &str) {
    ok(&genesis()
        .current_dir(r)
        .args(["patch", id, "-"])
        .write_stdin(CHANGE.to_vec())
        .output()
        .unwrap());
}

fn current_snapshot(r: &Path, id: &str) -> String {
    let doc: Value = serde_json::from_slice(
        &std::fs::read(r.join(format!(".genesis/sessions/{id}.json"))).unwrap(),
    )
    .unwrap();
    doc["current_snapshot"].as_str().unwrap().to_owned()
}

/// Writes `bytes` into the store as an object, named by their SHA-256 as Genesis names them.
fn put_object(r: &Path, bytes: &[u8]) -> String {
    let d = genesis::Digest::of(bytes).to_string();
    let p = r.join(format!(".genesis/objects/{}/{}", &d[..2], &d[2..]));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
    d
}

#[test]
fn manifest_with_a_key_twice_is_refused_by_init_open_and_validate() {
    for (text, key, pointer) in [
        (OBLIGATIONS_TWICE, "obligations", "/obligations"),
        (PROTECTED_TWICE, "protected", "/protected"),
        (RUN_TWICE, "run", "/obligations/0/run"),
    ] {
        let message = format!("./genesis.json: duplicate key \"{key}\" at {pointer}");
        // init: refused before the store is made.
        let d = workspace(GOOD_MANIFEST, FILES);
        let r = d.path();
        std::fs::write(r.join("genesis.json"), text).unwrap();
        refused(r, &["init"], &message);
        assert!(!r.join(".genesis").exists());
        // validate names the file as given.
        refused(
            r,
            &["validate", "genesis.json"],
            &format!("genesis.json: duplicate key \"{key}\" at {pointer}"),
        );
        // open: no session is created.
        std::fs::write(r.join("genesis.json"), GOOD_MANIFEST).unwrap();
        ok(&run_in(r, &["init"]));
        std::fs::write(r.join("genesis.json"), text).unwrap();
        refused(r, &["open", "--session", "s"], &message);
        assert!(!r.join(".genesis/sessions/s.json").exists());
        // The same message as JSON with --json.
        let o = run_in(r, &["--json", "open", "--session", "s"]);
        assert_eq!(o.status.code(), Some(2));
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"error": {"code": 2, "message": message}})
        );
    }
}

#[test]
fn verify_refuses_a_recorded_manifest_with_a_key_twice() {
    // The manifest verify obeys is the one recorded at open; here it was swapped in the state
    // file for a stored blob with `obligations` twice.
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    patch(r, "s");
    let good = genesis::Digest::of(GOOD_MANIFEST).to_string();
    let bad = put_object(r, OBLIGATIONS_TWICE.as_bytes());
    edit(&r.join(".genesis/sessions/s.state"), &good, &bad);
    refused(
        r,
        &["verify", "s"],
        "genesis.json: duplicate key \"obligations\" at /obligations",
    );
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn session_document_or_state_with_a_key_twice_is_refused_by_every_command() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    patch(r, "s");
    ok(&run_in(r, &["verify", "s"]));
    let doc = r.join(".genesis/sessions/s.json");
    let state = r.join(".genesis/sessions/s.state");
    let clean_doc = std::fs::read(&doc).unwrap();
    // A session marked applied, then open again: the last one would win.
    edit(
        &doc,
        "\"status\": \"open\"",
        "\"status\": \"applied\",\n  \"status\": \"open\"",
    );
    let m = "session s: ./.genesis/sessions/s.json: duplicate key \"status\" at /status";
    for args in [
        &["status", "s"][..],
        &["verify", "s"],
        &["apply", "s"],
        &["abort", "s"],
        &["diff", "s"],
        &["replay", "s"],
    ] {
        refused(r, args, m);
    }
    // Listing every session reports it in its row.
    let o = run_in(r, &["status"]);
    assert_eq!(stdout(&o), format!("s\tINVALID: {m}\n"));
    std::fs::write(&doc, &clean_doc).unwrap();
    // The state file (written only by Genesis): a nested duplicate.
    edit(
        &state,
        "\"in_place\": false",
        "\"in_place\": true,\n  \"in_place\": false",
    );
    let m = "session s: ./.genesis/sessions/s.state: duplicate key \"in_place\" at /in_place";
    refused(r, &["apply", "s"], m);
    refused(r, &["status", "s"], m);
    std::fs::write(
        &state,
        std::fs::read_to_string(&state).unwrap().replacen(
            "\"in_place\": true,\n  \"in_place\": false",
            "\"in_place\": false",
            1,
        ),
    )
    .unwrap();
    let cur = current_snapshot(r, "s");
    edit(
        &state,
        &format!("\"identity\": \"{cur}\""),
        &format!("\"identity\": \"{cur}\", \"identity\": \"{cur}\""),
    );
    refused(
        r,
        &["apply", "s"],
        "session s: ./.genesis/sessions/s.state: duplicate key \"identity\" at /snapshots/1/identity",
    );
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn snapshot_documents_with_a_key_twice_are_refused() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    let o = run_in(r, &["snapshot"]);
    ok(&o);
    let snap = stdout(&o);
    let id = serde_json::from_str::<Value>(&snap).unwrap()["identity"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = tempfile::tempdir().unwrap();
    let expect = other.path().join("snap.json");
    let expect_s = expect.to_str().unwrap();
    // The document as printed is accepted.
    std::fs::write(&expect, &snap).unwrap();
    ok(&run_in(r, &["check", "--expect", expect_s]));
    // `files` twice: an empty list after the real one (the identity is of the real one).
    std::fs::write(
        &expect,
        snap.replacen("\"files\": [", "\"files\": [], \"files\": [", 1),
    )
    .unwrap();
    // The first `files` holds the duplicate: pointer /files.
    let m = format!("{expect_s}: duplicate key \"files\" at /files");
    refused(r, &["check", "--expect", expect_s], &m);
    refused(r, &["validate", expect_s], &m);
    // A nested one: the first entry's blob twice.
    let blob = genesis::Digest::of(b"a\n").to_string();
    std::fs::write(
        &expect,
        snap.replacen(
            &format!("\"blob\": \"{blob}\""),
            &format!("\"blob\": \"{}\", \"blob\": \"{blob}\"", "0".repeat(64)),
            1,
        ),
    )
    .unwrap();
    let m = format!("{expect_s}: duplicate key \"blob\" at /files/0/blob");
    refused(r, &["check", "--expect", expect_s], &m);
    refused(r, &["validate", expect_s], &m);

    // In the store: the snapshot document, then its executable-bit sidecar.
    ok(&run_in(r, &["open", "--session", "s"]));
    let stored = r.join(format!(".genesis/snapshots/{id}.json"));
    let clean = std::fs::read(&stored).unwrap();
    edit(
        &stored,
        "\"schema\": \"genesis/workspace-snapshot-v0.1\"",
        "\"schema\": \"x\", \"schema\": \"genesis/workspace-snapshot-v0.1\"",
    );
    let f = format!("./.genesis/snapshots/{id}.json");
    let k = "\"schema\" at /schema";
    corrupt(r, &["diff", "s"], &f, k);
    corrupt(r, &["verify", "s"], &f, k);
    corrupt(r, &["diff", &id, "."], &f, k);
    std::fs::write(&stored, clean).unwrap();
    let exec = r.join(format!(".genesis/snapshots/{id}.exec.json"));
    let text = std::fs::read_to_string(&exec).unwrap();
    let bits = text.trim_start_matches('{');
    std::fs::write(&exec, format!("{{\"executable\": [\"a.txt\"],{bits}")).unwrap();
    corrupt(
        r,
        &["verify", "s"],
        &format!("./.genesis/snapshots/{id}.exec.json"),
        "\"executable\" at /executable",
    );
}

#[test]
fn journal_with_a_key_twice_is_refused_by_every_command_and_not_replayed() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    patch(r, "s");
    ok(&run_in(r, &["verify", "s"]));
    let blob = genesis::Digest::of(b"b\n").to_string();
    let pre = genesis::Digest::of(b"a\n").to_string();
    // A journal whose op would write b.txt's blob over a.txt; `blob` twice in `post`.
    let journal = format!(
        r#"{{"schema":"genesis/journal-v0.1","session":"s","final_status":"applied","ops":[{{"path":"a.txt","pre":{{"blob":"{pre}","executable":false}},"post":{{"blob":"{pre}","blob":"{blob}","executable":false}}}}]}}"#
    );
    std::fs::create_dir_all(r.join(".genesis/journal")).unwrap();
    std::fs::write(r.join(".genesis/journal/s.json"), journal).unwrap();
    let m = "./.genesis/journal/s.json: duplicate key \"blob\" at /ops/0/post/blob";
    for args in [
        &["recover"][..],
        &["status"],
        &["status", "s"],
        &["apply", "s"],
        &["open", "--session", "t"],
    ] {
        refused(r, args, m);
    }
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn acceptance_record_with_a_key_twice_is_refused_by_apply() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    patch(r, "s");
    ok(&run_in(r, &["verify", "s"]));
    let doc = r.join(".genesis/sessions/s.json");
    let v: Value = serde_json::from_slice(&std::fs::read(&doc).unwrap()).unwrap();
    let acceptance = v["verification"]["acceptance"].as_str().unwrap().to_owned();
    // Stored compressed (DESIGN section 3): read through the store.
    let record = String::from_utf8(
        genesis::Store::open(&r.join(".genesis"))
            .unwrap()
            .read_object(&acceptance.parse().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert!(record.starts_with("{\""), "{record}");
    // A record that says both "failed" and "passed"; the last one would win.
    let bad = put_object(
        r,
        format!("{{\"obligations_ok\":false,{}", &record[1..]).as_bytes(),
    );
    edit(&doc, &acceptance, &bad);
    corrupt(
        r,
        &["apply", "s"],
        &format!("./.genesis/objects/{}/{}", &bad[..2], &bad[2..]),
        "\"obligations_ok\" at /obligations_ok",
    );
    assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
}

fn bpt_fixture(name: &str) -> String {
    std::fs::read_to_string(common::repo_root().join(format!("testdata/bpt/{name}.json"))).unwrap()
}

#[test]
fn bpt_request_with_a_key_twice_is_refused_before_anything_is_created() {
    let d = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(d.path()).unwrap();
    let r = top.join("ws");
    write_tree(&r, &[("genesis.json", GOOD_MANIFEST), ("a.txt", b"a\n")]);
    let start = bpt_fixture("start");
    let twice = start.replacen(
        "\"localTaskId\": \"task-42\"",
        "\"localTaskId\": \"task-1\", \"localTaskId\": \"task-42\"",
        1,
    );
    assert_ne!(twice, start);
    let f = top.join("req.json");
    std::fs::write(&f, &twice).unwrap();
    let f_s = f.to_str().unwrap();
    let before = files(&top);
    let o = run_in(&r, &["--worker-id", "worker-test", "bpt", f_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("genesis: error: {f_s}: duplicate key \"localTaskId\" at /scope/localTaskId\n")
    );
    let o = genesis()
        .current_dir(&r)
        .args(["--worker-id", "worker-test", "bpt", "-"])
        .write_stdin(twice.into_bytes())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: error: standard input: duplicate key \"localTaskId\" at /scope/localTaskId\n"
    );
    assert_eq!(files(&top), before);
    assert!(!r.join(".genesis").exists());
    assert!(!top.join(".genesis-worktrees").exists());
    // The same file is refused by validate with the same message.
    refused(
        &r,
        &["validate", f_s],
        &format!("{f_s}: duplicate key \"localTaskId\" at /scope/localTaskId"),
    );
}

#[test]
fn bpt_task_record_with_a_key_twice_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(d.path()).unwrap();
    let r = top.join("ws");
    write_tree(
        &r,
        &[("genesis.json", GOOD_MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let bpt = |name: &str| {
        genesis()
            .current_dir(&r)
            .env_remove("GENESIS_WORK_ROOT")
            .args(["--worker-id", "worker-test", "bpt", "-"])
            .write_stdin(bpt_fixture(name).into_bytes())
            .output()
            .unwrap()
    };
    ok(&bpt("start"));
    let tasks = r.join(".genesis/bpt/tasks");
    let record = std::fs::read_dir(&tasks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.starts_with("{\n"), "{text}");
    std::fs::write(
        &record,
        format!("{{\n  \"localTaskId\": \"other\",{}", &text[1..]),
    )
    .unwrap();
    let before = files(&top);
    let o = bpt("retry");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: ./{}: duplicate key \"localTaskId\" at /localTaskId\n",
            record.strip_prefix(&r).unwrap().display()
        )
    );
    assert_eq!(files(&top), before);
}

#[test]
fn validate_refuses_each_kind_and_still_checks_the_others() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    let docs = tempfile::tempdir().unwrap();
    let session = std::fs::read_to_string(r.join(".genesis/sessions/s.json")).unwrap();
    let w = |name: &str, text: &str| {
        let p = docs.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let good = w("good.json", &session);
    let bad_session = w(
        "session.json",
        &session.replacen("\"patches\": []", "\"patches\": [], \"patches\": []", 1),
    );
    let bad_manifest = w("manifest.json", OBLIGATIONS_TWICE);
    let before = files(r);
    let o = run_in(r, &["validate", &bad_session, &good, &bad_manifest]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {bad_session}: duplicate key \"patches\" at /patches\n\
             genesis: error: {bad_manifest}: duplicate key \"obligations\" at /obligations\n"
        )
    );
    assert_eq!(
        stdout(&o),
        format!("{good}: valid genesis/agent-transaction-v0.1\n")
    );
    assert_eq!(files(r), before);
}

/// Issue 9 leftover: `open`, `snapshot` and `replay` with no patch used to trust a stored
/// snapshot document by its name and never read it; now each reads it strictly.
#[test]
fn a_stored_snapshot_with_a_key_twice_is_noticed_by_open_snapshot_and_replay() {
    let d = workspace(GOOD_MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    let id = current_snapshot(r, "s");
    let stored = r.join(format!(".genesis/snapshots/{id}.json"));
    let clean = std::fs::read(&stored).unwrap();
    ok(&run_in(r, &["replay", "s"]));
    // The workspace is unchanged, so each command meets the stored document of its identity.
    for (from, to, key) in [
        (
            "\"schema\": \"genesis/workspace-snapshot-v0.1\"",
            "\"schema\": \"x\", \"schema\": \"genesis/workspace-snapshot-v0.1\"",
            "\"schema\" at /schema",
        ),
        // Nested: the first file's path twice (a path outside the tree, then the real one).
        (
            "\"path\": \"a.txt\"",
            "\"path\": \"../../etc/passwd\", \"path\": \"a.txt\"",
            "\"path\" at /files/0/path",
        ),
    ] {
        std::fs::write(&stored, &clean).unwrap();
        edit(&stored, from, to);
        let f = format!("./.genesis/snapshots/{id}.json");
        corrupt(r, &["open", "--session", "t"], &f, key);
        corrupt(r, &["snapshot", "--identity"], &f, key);
        corrupt(r, &["snapshot"], &f, key);
        corrupt(r, &["replay", "s"], &f, key);
    }
    // With the document restored, all of them work again; --no-store never reads the store.
    std::fs::write(&stored, &clean).unwrap();
    let o = run_in(r, &["snapshot", "--identity"]);
    ok(&o);
    assert_eq!(stdout(&o), format!("{id}\n"));
    ok(&run_in(r, &["replay", "s"]));
    ok(&run_in(r, &["open", "--session", "t"]));
    assert_eq!(std::fs::read(&stored).unwrap(), clean);
}
