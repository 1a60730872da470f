//! Every dialect end to end through the CLI: a transaction with a failing obligation that is
//! aborted, and one that is applied; every line written to `--events` validates against the
//! dialect's seed schema with format validation on, and BPT sequence numbers run 1..N across
//! all the processes of a session.

mod common;

use std::path::Path;

use common::*;
use genesis::events::Dialect;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[
  {"id":"says-hello","run":["sh","-c","echo checking; echo to stderr >&2; grep -q hello greeting.txt"],"timeout_s":30}
]}"#;
const FIX: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

fn run_with_events(
    dir: &Path,
    events: &Path,
    format: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
) -> std::process::Output {
    let mut c = common::genesis();
    c.current_dir(dir)
        .args([
            "--events",
            events.to_str().unwrap(),
            "--events-format",
            format,
            "--worker-id",
            "worker-7",
        ])
        .args(args);
    if let Some(input) = stdin {
        c.write_stdin(input.to_vec());
    }
    c.output().unwrap()
}

fn drive(format: &str) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let d = tempfile::tempdir().unwrap();
    let r = d.path().join("ws");
    write_tree(&r, &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")]);
    let ev1 = d.path().join("aborted.jsonl");
    let ev2 = d.path().join("applied.jsonl");
    // 1: open, verify fails, abort.
    let o = run_with_events(&r, &ev1, format, &["open", "--session", "one"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_with_events(&r, &ev1, format, &["verify", "one"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = run_with_events(&r, &ev1, format, &["abort", "one"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 2: open, patch --verify passes, apply.
    let o = run_with_events(&r, &ev2, format, &["open", "--session", "two"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_with_events(
        &r,
        &ev2,
        format,
        &["patch", "two", "-", "--verify"],
        Some(FIX),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_with_events(&r, &ev2, format, &["apply", "two"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(r.join("greeting.txt")).unwrap(), b"hello\n");
    (json_lines(&ev1), json_lines(&ev2))
}

fn check(dialect: Dialect, format: &str) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let v = validator(dialect);
    let (a, b) = drive(format);
    for line in a.iter().chain(&b) {
        let errors: Vec<String> = v
            .iter_errors(line)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{format}: {line}\n{errors:#?}");
    }
    assert!(
        a.len() >= 4 && b.len() >= 4,
        "{format}: {} and {} lines",
        a.len(),
        b.len()
    );
    (a, b)
}

#[test]
fn bpt_lines_are_valid_and_numbered_without_gaps() {
    let (a, b) = check(Dialect::Bpt, "bpt");
    for run in [&a, &b] {
        let seq: Vec<u64> = run
            .iter()
            .map(|l| l["event"]["sequence"].as_u64().unwrap())
            .collect();
        let expect: Vec<u64> = (1..=seq.len() as u64).collect();
        assert_eq!(seq, expect);
        assert!(run.iter().all(|l| l["scope"]["workerId"] == "worker-7"));
    }
    let types = |run: &[serde_json::Value]| -> Vec<String> {
        run.iter()
            .map(|l| l["event"]["type"].as_str().unwrap().to_owned())
            .collect()
    };
    let ta = types(&a);
    assert_eq!(ta[0], "execution.accepted");
    assert_eq!(ta[1], "workspace.ready");
    assert!(ta.contains(&"log.chunk".to_owned()));
    assert_eq!(
        a.last().unwrap()["payload"]["status"],
        "CANCELED",
        "{:?}",
        a.last()
    );
    let tb = types(&b);
    assert!(tb.contains(&"interaction.requested".to_owned()), "{tb:?}");
    assert_eq!(
        b.last().unwrap()["payload"]["status"],
        "COMPLETED",
        "{:?}",
        b.last()
    );
}

#[test]
fn orbiplex_lines_are_valid() {
    let (_, b) = check(Dialect::Orbiplex, "orbiplex");
    assert!(b.iter().any(|l| l["kind"] == "action-candidate"), "{b:?}");
}

#[test]
fn aps_lines_are_valid() {
    let (_, b) = check(Dialect::Aps, "aps");
    assert!(b.iter().any(|l| l["type"] == "approval.requested"), "{b:?}");
}

#[test]
fn genesis_lines_are_valid() {
    check(Dialect::Genesis, "genesis");
}

#[test]
fn unknown_dialect_creates_nothing() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let o = run_in(
        d.path(),
        &["--events", "-", "--events-format", "xml", "open"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!d.path().join(".genesis").exists());
}

#[test]
fn unwritable_events_file_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let o = run_in(
        d.path(),
        &[
            "--events",
            "/nonexistent-dir/events.jsonl",
            "open",
            "--session",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!d.path().join(".genesis").exists());
}

/// Issue 12 reviewer: `rebase` changes a session (records a patch, clears the verification),
/// so it writes the events of a recorded patch, in every dialect, each line valid.
#[test]
fn rebase_writes_its_events_in_every_dialect() {
    for (dialect, format) in [
        (Dialect::Genesis, "genesis"),
        (Dialect::Bpt, "bpt"),
        (Dialect::Orbiplex, "orbiplex"),
        (Dialect::Aps, "aps"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join("ws");
        write_tree(&r, &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")]);
        let ev = d.path().join("rebase.jsonl");
        ok(&run_in(&r, &["open", "-q", "--session", "r"]));
        ok(&run_stdin(&r, &["patch", "-q", "r", "-"], FIX));
        std::fs::write(r.join("other.txt"), b"new\n").unwrap();
        let o = run_with_events(&r, &ev, format, &["rebase", "r"], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("emits no events"), "{}", stderr(&o));
        let lines = json_lines(&ev);
        assert!(!lines.is_empty(), "{format}: no events");
        let v = validator(dialect);
        for line in &lines {
            assert!(v.iter_errors(line).next().is_none(), "{format}: {line}");
        }
        let text = std::fs::read_to_string(&ev).unwrap();
        let session = session_doc(&r, "r");
        let patch = session["patches"][0]["patch"].as_str().unwrap();
        let after = session["patches"][0]["after_snapshot"].as_str().unwrap();
        assert_eq!(session["patches"].as_array().unwrap().len(), 1);
        match format {
            "genesis" => {
                assert_eq!(lines.len(), 1, "{text}");
                let l = &lines[0];
                assert_eq!(l["type"], "patch.recorded");
                assert_eq!(l["index"], 0);
                assert_eq!(l["patch"], patch);
                assert_eq!(l["after"], after);
                assert_eq!(
                    (&l["files_changed"], &l["lines_added"], &l["lines_removed"]),
                    (&1.into(), &1.into(), &1.into())
                );
            }
            "bpt" => assert!(
                lines.iter().any(|l| l["event"]["type"] == "log.chunk"),
                "{text}"
            ),
            "orbiplex" => assert!(
                lines.iter().any(|l| l["kind"] == "action-candidate"),
                "{text}"
            ),
            _ => assert!(text.contains("genesis.patch"), "{text}"),
        }
    }
}

/// Issue 11 reviewer: `patch --from DIR --verify` records the patch, then verifies it, so
/// `patch.recorded` comes before the obligation events (it came after them, at seq 5), and
/// the sequence numbers run in that order.
#[test]
fn patch_with_verify_reports_the_patch_before_its_verification() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path().join("ws");
    let manifest: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[
  {"id":"says-hello","run":["grep","-q","hello","greeting.txt"],"timeout_s":30}
]}"#;
    write_tree(&r, &[("genesis.json", manifest), ("greeting.txt", b"hi\n")]);
    let from = d.path().join("from");
    write_tree(
        &from,
        &[("genesis.json", manifest), ("greeting.txt", b"hello\n")],
    );
    ok(&run_in(&r, &["open", "-q", "--session", "s"]));
    let ev = d.path().join("patch.jsonl");
    let args = ["patch", "s", "--from", from.to_str().unwrap(), "--verify"];
    let o = run_with_events(&r, &ev, "genesis", &args, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got: Vec<(u64, String)> = json_lines(&ev)
        .iter()
        .map(|l| {
            (
                l["seq"].as_u64().unwrap(),
                l["type"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(u64, String)> = [
        "patch.recorded",
        "obligation.started",
        "obligation.finished",
        "session.verified",
        "approval.needed",
    ]
    .iter()
    .zip(1..)
    .map(|(t, seq)| (seq, (*t).to_owned()))
    .collect();
    assert_eq!(got, want);
}
