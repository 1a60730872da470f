//! The CLI (`--events`) and the BPT driver (`genesis bpt`) are two front ends over one event
//! emitter in the library (issue 10, build item 2), so the same situation gives the same
//! answer on both. Each test runs one situation through both and asserts the one right answer:
//!
//! 1. a committed apply whose event sink fails warns once on standard error and exits 0, with
//!    the workspace applied (before: the BPT path exited 4);
//! 2. a patch that lands while the obligations run (`EngineError::SessionMoved`) is the event
//!    code `session-moved`, retryable, exit 3 (before: `session-not-open` on the CLI,
//!    `io-error` on the BPT path);
//! 3. an obligation whose output ends in an incomplete UTF-8 sequence has that tail flushed as
//!    U+FFFD in its last output chunk (before: dropped by the engine's verify);
//! 4. a committed apply whose event counters cannot be stored afterwards (an I/O error at any
//!    step of that save) warns and exits 0, with the workspace applied (before: exit 4 on
//!    both).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use serde_json::Value;

const WORKER: &str = "worker-test";
const FIX: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";
const OTHER: &[u8] = b"--- a/other.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-one\n+two\n";
const WARNING: &str = "genesis: warning: writing events failed, no more are written";

/// A workspace `ws` (greeting.txt = "hi\n", other.txt = "one\n") under a fresh directory.
struct Setup {
    _dir: tempfile::TempDir,
    top: PathBuf,
    ws: PathBuf,
}

impl Setup {
    fn new(manifest: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let ws = top.join("ws");
        write_tree(
            &ws,
            &[
                ("genesis.json", manifest.as_bytes()),
                ("greeting.txt", b"hi\n"),
                ("other.txt", b"one\n"),
            ],
        );
        Setup { _dir: dir, top, ws }
    }

    /// `genesis --events EVENTS --events-format genesis --worker-id WORKER ARGS…` in the
    /// workspace, `input` on standard input.
    fn run(&self, events: &Path, args: &[&str], input: &[u8]) -> Output {
        genesis()
            .current_dir(&self.ws)
            .env_remove("GENESIS_WORKER_ID")
            .env_remove("GENESIS_WORK_ROOT")
            .args(["--events", events.to_str().unwrap()])
            .args(["--events-format", "genesis", "--worker-id", WORKER])
            .args(args)
            .write_stdin(input.to_vec())
            .output()
            .unwrap()
    }

    /// As [`Setup::run`] with `env` set, and without `--events` when `events` is `None`.
    fn run_env(
        &self,
        events: Option<&Path>,
        env: &[(&str, String)],
        args: &[&str],
        input: &[u8],
    ) -> Output {
        let mut cmd = genesis();
        cmd.current_dir(&self.ws)
            .env_remove("GENESIS_WORKER_ID")
            .env_remove("GENESIS_WORK_ROOT")
            .env_remove("GENESIS_FAULT")
            .env_remove("GENESIS_FAULT_TRACE");
        if let Some(events) = events {
            cmd.args(["--events", events.to_str().unwrap()]);
        }
        cmd.args(["--events-format", "genesis", "--worker-id", WORKER])
            .args(args)
            .write_stdin(input.to_vec());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// `genesis --json … bpt -` with `request` on standard input.
    fn bpt(&self, events: &Path, request: &Value) -> Output {
        self.run(
            events,
            &["--json", "bpt", "-"],
            &serde_json::to_vec(request).unwrap(),
        )
    }
}

/// A BPT request of `operation` for task `t`, execution `e`, no pre or post commands unless
/// given.
fn request(operation: &str, turn: u32, pre: &[&str]) -> Value {
    serde_json::json!({
        "kind": "bpt.execution.request",
        "version": "1.0",
        "command": {"id": format!("cmd-{turn}"), "operation": operation, "issuedAt": "2026-01-15T10:00:00Z"},
        "scope": {"localTaskId": "t", "executionId": "e", "attempt": 1, "turn": turn, "expectedWorkerId": WORKER},
        "task": {"title": "t", "description": "d", "baseBranch": "main"},
        "agent": {"type": "claude", "workMode": "implement", "config": {"model": "m", "permissionMode": "acceptEdits"}},
        "project": {"id": "p", "gitUrl": "https://example.invalid/p.git", "defaultBranch": "main", "worktreeNamePrefix": "p-"},
        "worktree": {"mode": if operation == "START" { "CREATE" } else { "RESUME" }},
        "commands": {"pre": pre, "post": []},
        "environment": {"variables": []}
    })
}

fn resume(mut req: Value, worktree: &str) -> Value {
    req["resume"] = serde_json::json!({"agentSessionId": "a", "worktreePath": worktree});
    req
}

/// START, the worktree edited with `edit`, CONTINUE: the CONTINUE's output and the worktree.
fn bpt_start_continue(s: &Setup, events: &Path, pre: &[&str]) -> (Output, String) {
    let o = s.bpt(events, &request("START", 1, pre));
    let out = ok_json(&o);
    let worktree = out["worktree"].as_str().unwrap().to_owned();
    std::fs::write(Path::new(&worktree).join("greeting.txt"), b"hello\n").unwrap();
    let o = s.bpt(events, &resume(request("CONTINUE", 2, &[]), &worktree));
    (o, worktree)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn manifest_with(run: &[&str]) -> String {
    serde_json::json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [{"id": "ob", "run": run, "timeout_s": 60}]
    })
    .to_string()
}

#[test]
fn event_sink_failure_after_a_committed_apply_warns_once_and_exits_0() {
    // CLI: apply with --events on a full device.
    let s = Setup::new(&manifest_with(&["true"]));
    let ev = s.top.join("events.jsonl");
    ok(&s.run(&ev, &["open", "--session", "s1"], b""));
    ok(&s.run(&ev, &["patch", "s1", "-", "--verify"], FIX));
    let o = s.run(Path::new("/dev/full"), &["apply", "s1"], b"");
    assert_eq!(code(&o), Some(0), "CLI: {}", stderr(&o));
    assert_eq!(stderr(&o).matches(WARNING).count(), 1, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(s.ws.join("greeting.txt")).unwrap(),
        b"hello\n"
    );
    assert_eq!(session_status(&s.ws, "s1"), "applied");

    // BPT: APPROVE with the events on a full device.
    let s = Setup::new(&manifest_with(&["true"]));
    let ev = s.top.join("events.jsonl");
    let (o, worktree) = bpt_start_continue(&s, &ev, &[]);
    let out = ok_json(&o);
    let mut approve = resume(request("INTERACTION_RESPONSE", 3, &[]), &worktree);
    approve["interaction"] = serde_json::json!({
        "id": out["interaction_id"], "decision": "APPROVE", "message": "ok", "payload": ""
    });
    let o = s.bpt(Path::new("/dev/full"), &approve);
    assert_eq!(code(&o), Some(0), "BPT: {}", stderr(&o));
    assert_eq!(stderr(&o).matches(WARNING).count(), 1, "{}", stderr(&o));
    assert_eq!(json_out(&o)["status"], "applied");
    assert_eq!(
        std::fs::read(s.ws.join("greeting.txt")).unwrap(),
        b"hello\n"
    );
    let session = out["session"].as_str().unwrap();
    assert_eq!(session_status(&s.ws, session), "applied");
}

const COUNTERS_WARNING: &str = "the event counters were not stored";

/// The number of fault-injection steps of `last` (a command in the setup `make` leaves) with
/// and without `--events`: the steps in between are those of storing the event counters.
fn counter_save_steps(
    make: &dyn Fn() -> (Setup, Vec<String>, Vec<u8>),
) -> std::ops::RangeInclusive<usize> {
    let count = |events: bool| {
        let (s, args, input) = make();
        let trace = s.top.join("trace");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ev = s.top.join("events.jsonl");
        let o = s.run_env(
            events.then_some(ev.as_path()),
            &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
            &args,
            &input,
        );
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        std::fs::read_to_string(&trace).unwrap().lines().count()
    };
    let (without, with) = (count(false), count(true));
    assert!(
        with > without,
        "storing the counters has steps ({without}, {with})"
    );
    without + 1..=with
}

/// A CLI session s1 patched and verified: `apply s1` is left.
fn cli_verified() -> (Setup, Vec<String>, Vec<u8>) {
    let s = Setup::new(&manifest_with(&["true"]));
    let ev = s.top.join("events.jsonl");
    ok(&s.run(&ev, &["open", "--session", "s1"], b""));
    ok(&s.run(&ev, &["patch", "s1", "-", "--verify"], FIX));
    (s, vec!["apply".into(), "s1".into()], Vec::new())
}

/// A BPT task started and continued: its APPROVE is left.
fn bpt_verified() -> (Setup, Vec<String>, Vec<u8>) {
    let s = Setup::new(&manifest_with(&["true"]));
    let ev = s.top.join("events.jsonl");
    let (o, worktree) = bpt_start_continue(&s, &ev, &[]);
    let out = ok_json(&o);
    let mut approve = resume(request("INTERACTION_RESPONSE", 3, &[]), &worktree);
    approve["interaction"] = serde_json::json!({
        "id": out["interaction_id"], "decision": "APPROVE", "message": "ok", "payload": ""
    });
    let input = serde_json::to_vec(&approve).unwrap();
    (s, vec!["--json".into(), "bpt".into(), "-".into()], input)
}

#[test]
fn event_counters_not_stored_after_a_committed_apply_warn_and_exit_0_on_both() {
    for (front, make) in [
        (
            "CLI",
            &cli_verified as &dyn Fn() -> (Setup, Vec<String>, Vec<u8>),
        ),
        ("BPT", &bpt_verified),
    ] {
        let steps = counter_save_steps(make);
        for step in steps {
            let (s, args, input) = make();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let ev = s.top.join("events.jsonl");
            let o = s.run_env(
                Some(&ev),
                &[("GENESIS_FAULT", format!("{step}:eio"))],
                &args,
                &input,
            );
            let err = stderr(&o);
            assert_eq!(code(&o), Some(0), "{front}, EIO at step {step}: {err}");
            assert_eq!(
                err.matches(COUNTERS_WARNING).count(),
                1,
                "{front} {step}: {err}"
            );
            assert_eq!(
                std::fs::read(s.ws.join("greeting.txt")).unwrap(),
                b"hello\n",
                "{front} {step}"
            );
            if front == "BPT" {
                assert_eq!(json_out(&o)["status"], "applied", "{front} {step}");
            } else {
                assert_eq!(session_status(&s.ws, "s1"), "applied", "{front} {step}");
            }
        }
    }
}

/// An obligation that records another patch (other.txt) in the session it verifies, so the
/// session moves on while the obligations run.
fn moving_manifest(s: &Setup) -> String {
    let diff = s.top.join("other.diff");
    std::fs::write(&diff, OTHER).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let script = format!(
        "'{}' --workspace '{}' patch \"$GENESIS_SESSION\" '{}' >/dev/null",
        bin.display(),
        s.ws.display(),
        diff.display()
    );
    manifest_with(&["sh", "-c", &script])
}

/// The last event line: a diagnostic `session-moved`, retryable.
fn assert_moved(events: &[Value], what: &str) {
    let last = events.last().expect("events");
    assert_eq!(last["type"], "diagnostic", "{what}: {last}");
    assert_eq!(last["code"], "session-moved", "{what}: {last}");
    assert_eq!(last["retryable"], true, "{what}: {last}");
}

#[test]
fn session_moved_while_verifying_is_session_moved_retryable_on_both() {
    // CLI: verify while the obligation records another patch.
    let s = Setup::new("{}");
    std::fs::write(s.ws.join("genesis.json"), moving_manifest(&s)).unwrap();
    let ev = s.top.join("events.jsonl");
    ok(&s.run(&ev, &["open", "--session", "s1"], b""));
    ok(&s.run(&ev, &["patch", "s1", "-"], FIX));
    let o = s.run(&ev, &["verify", "s1"], b"");
    assert_eq!(code(&o), Some(3), "CLI: {}", stderr(&o));
    assert!(
        stderr(&o).contains("verify again"),
        "CLI message: {}",
        stderr(&o)
    );
    assert_moved(&lines(&ev), "CLI");
    assert!(session_doc(&s.ws, "s1")["verification"].is_null());

    // BPT: CONTINUE while the obligation records another patch.
    let s = Setup::new("{}");
    std::fs::write(s.ws.join("genesis.json"), moving_manifest(&s)).unwrap();
    let ev = s.top.join("events.jsonl");
    let (o, _) = bpt_start_continue(&s, &ev, &[]);
    assert_eq!(code(&o), Some(3), "BPT: {}", stderr(&o));
    assert!(
        stderr(&o).contains("verify again"),
        "BPT message: {}",
        stderr(&o)
    );
    assert_moved(&lines(&ev), "BPT");
}

/// The stdout chunks of obligation `id`: their data joined, and whether the last is final.
fn stdout_of(events: &[Value], id: &str) -> (String, bool) {
    let chunks: Vec<&Value> = events
        .iter()
        .filter(|l| l["type"] == "obligation.output" && l["obligation"] == id)
        .filter(|l| l["stream"] == "stdout")
        .collect();
    let data = chunks
        .iter()
        .map(|l| l["data"].as_str().unwrap())
        .collect::<String>();
    let last = chunks.last().is_some_and(|l| l["final"] == true);
    (data, last)
}

#[test]
fn incomplete_utf8_at_the_end_of_output_is_flushed_as_replacement_on_both() {
    const PRINT: &str = r"printf 'ok\342\202'";
    let manifest = manifest_with(&["sh", "-c", PRINT]);
    // CLI: verify.
    let s = Setup::new(&manifest);
    let ev = s.top.join("events.jsonl");
    ok(&s.run(&ev, &["open", "--session", "s1"], b""));
    ok(&s.run(&ev, &["patch", "s1", "-", "--verify"], FIX));
    assert_eq!(
        stdout_of(&lines(&ev), "ob"),
        ("ok\u{FFFD}".to_owned(), true),
        "CLI verify"
    );

    // BPT: the same obligation in CONTINUE's verification, and as a pre command of START.
    let s = Setup::new(&manifest);
    let ev = s.top.join("events.jsonl");
    let (o, _) = bpt_start_continue(&s, &ev, &[PRINT]);
    ok_json(&o);
    let events = lines(&ev);
    assert_eq!(
        stdout_of(&events, "ob"),
        ("ok\u{FFFD}".to_owned(), true),
        "BPT verify"
    );
    assert_eq!(
        stdout_of(&events, "bpt-pre-1"),
        ("ok\u{FFFD}".to_owned(), true),
        "BPT pre command"
    );
}
