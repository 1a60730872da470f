//! The event code of a failed command comes from the error's variant, not from its message
//! text (issue 10 item 3): an apply conflict is a `session.failed` with `apply-conflict`; a
//! refused apply of an unverified session (also exit 3) is `session-not-open`.

mod common;

use std::path::Path;

use common::{stderr, write_tree};

const MANIFEST: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"t","run":["true"],"timeout_s":10}]}"#;
const FIX: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

fn run(dir: &Path, events: &Path, args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    let mut c = common::genesis();
    c.current_dir(dir)
        .args([
            "--events",
            events.to_str().unwrap(),
            "--events-format",
            "genesis",
        ])
        .args(args);
    if let Some(input) = stdin {
        c.write_stdin(input.to_vec());
    }
    c.output().unwrap()
}

/// The last event line written to `path`.
fn last_event(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().expect("an event line")).unwrap()
}

/// The first value under `key` anywhere in `v`.
fn find<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => {
            m.get(key).or_else(|| m.values().find_map(|x| find(x, key)))
        }
        serde_json::Value::Array(a) => a.iter().find_map(|x| find(x, key)),
        _ => None,
    }
}

#[test]
fn apply_conflict_is_reported_as_apply_conflict_failure() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write_tree(
        &ws,
        &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let ev = d.path().join("events.jsonl");
    let o = run(&ws, &ev, &["open", "--session", "s1"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&ws, &ev, &["patch", "s1", "-", "--verify"], Some(FIX));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(ws.join("greeting.txt"), b"changed by hand\n").unwrap();
    let o = run(&ws, &ev, &["apply", "s1"], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let last = last_event(&ev);
    assert_eq!(
        find(&last, "code"),
        Some(&serde_json::json!("apply-conflict")),
        "{last}"
    );
    assert_eq!(
        find(&last, "retryable"),
        Some(&serde_json::json!(false)),
        "{last}"
    );
    assert!(last.to_string().contains("session.failed"), "{last}");
    // Nothing was written.
    assert_eq!(
        std::fs::read(ws.join("greeting.txt")).unwrap(),
        b"changed by hand\n"
    );
}

#[test]
fn unverified_apply_is_session_not_open_not_apply_conflict() {
    // A session that is not verified exits 3 like a conflict, but its code is
    // session-not-open: the variant, not the exit status, decides.
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write_tree(
        &ws,
        &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let ev = d.path().join("events.jsonl");
    let o = run(&ws, &ev, &["open", "--session", "s2"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&ws, &ev, &["apply", "s2"], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let last = last_event(&ev);
    assert_eq!(
        find(&last, "code"),
        Some(&serde_json::json!("session-not-open")),
        "{last}"
    );
    assert!(last.to_string().contains("diagnostic"), "{last}");
}
