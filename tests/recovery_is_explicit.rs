//! Recovery is an explicit call of the library (issue 10): `Engine::new` reads nothing but the
//! store's existence, so an interrupted apply stays pending until `Engine::recover_pending`
//! (or `Engine::recover`) finishes it. The CLI calls it before every command, as before.

mod common;

use std::path::Path;

use common::{run_in, stderr, write_tree};
use genesis::session::Status;
use genesis::{Engine, Workspace};

const MANIFEST: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"t","run":["true"],"timeout_s":10}]}"#;
const FIX: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

/// A workspace whose session `s` is verified and ready to apply.
fn verified(dir: &Path) {
    write_tree(
        dir,
        &[("genesis.json", MANIFEST), ("greeting.txt", b"hi\n")],
    );
    let o = run_in(dir, &["open", "--session", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = common::genesis()
        .current_dir(dir)
        .args(["patch", "s", "-", "--verify"])
        .write_stdin(FIX.to_vec())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Leaves `ws` with the apply of session `s` interrupted (the process aborted) at the rename
/// of the staged `greeting.txt`: the journal is written, the file not yet replaced.
fn interrupted_apply(tmp: &Path) -> std::path::PathBuf {
    let ws = tmp.join("ws");
    let count = tmp.join("count");
    verified(&ws);
    verified(&count);
    let trace = tmp.join("trace");
    let o = common::genesis()
        .current_dir(&count)
        .args(["apply", "s"])
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&trace).unwrap();
    let n: usize = text
        .lines()
        .find_map(|l| {
            let (n, name) = l.split_once(' ')?;
            (name.starts_with("rename ") && name.ends_with("greeting.txt"))
                .then(|| n.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no rename of greeting.txt in the trace:\n{text}"));
    let o = common::genesis()
        .current_dir(&ws)
        .args(["apply", "s"])
        .env("GENESIS_FAULT", format!("{n}:abort"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None, "killed by the injected abort");
    ws
}

#[test]
fn engine_new_leaves_an_interrupted_apply_pending_until_recover_pending() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = interrupted_apply(tmp.path());
    let engine = Engine::new(Workspace::new(&ws, None), false).unwrap();
    // Construction finished nothing.
    let pending = genesis::journal::pending(engine.store()).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].session, "s");
    assert_eq!(std::fs::read(ws.join("greeting.txt")).unwrap(), b"hi\n");
    assert_eq!(engine.status("s").unwrap().0.status, Status::Open);
    // The explicit call finishes it.
    let out = engine.recover_pending().unwrap();
    assert_eq!(out.finished, ["s"]);
    assert!(out.rescued.is_empty());
    assert_eq!(std::fs::read(ws.join("greeting.txt")).unwrap(), b"hello\n");
    assert_eq!(engine.status("s").unwrap().0.status, Status::Applied);
    assert!(
        genesis::journal::pending(engine.store())
            .unwrap()
            .is_empty()
    );
    // Nothing is left: a second call does nothing.
    let again = engine.recover_pending().unwrap();
    assert!(again.finished.is_empty() && again.rescued.is_empty() && again.temps_removed == 0);
}

#[test]
fn every_cli_command_still_recovers_first() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = interrupted_apply(tmp.path());
    let o = run_in(&ws, &["status", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: finished the interrupted change of session s from its journal\n"
    );
    assert_eq!(std::fs::read(ws.join("greeting.txt")).unwrap(), b"hello\n");
}
