//! With recovery explicit in the library (DESIGN section 6), a session whose apply or abort
//! was interrupted (its journal `journal/<id>.json` still there) is refused by every session
//! operation with [`EngineError::RecoveryPending`] (kind State, exit 3) until `recover`
//! finishes the journal. Before the fix of issue 10's review, `abort_with` returned
//! `Ok(Aborted)` while the workspace held the applied change, and `recover()` then finished
//! the apply of an aborted session.

use std::path::Path;
use std::process::Command;

use genesis::engine::{
    AbortOptions, ApplyOptions, Engine, EngineError, NoObserver, OpenOptions, PatchInput,
    RebaseOptions, RestoreOptions, VerifyOptions,
};
use genesis::session::{SessionId, Status};
use genesis::{ErrorKind, Workspace};

const MANIFEST: &str = r#"{"schema": "genesis/manifest-v0.1", "obligations": [{"id": "t", "run": ["true"], "timeout_s": 30}]}
"#;
const EDIT: &[u8] = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";

/// A workspace at `root` with session s1 patched with [`EDIT`] and verified.
fn verified(root: &Path) -> Engine {
    std::fs::write(root.join("a.txt"), b"hello\n").unwrap();
    std::fs::write(root.join("genesis.json"), MANIFEST).unwrap();
    let e = Engine::new(Workspace::new(root, None), true).unwrap();
    e.open(
        &OpenOptions {
            session: Some(SessionId::new("s1").unwrap()),
            ..OpenOptions::default()
        },
        &mut NoObserver,
    )
    .unwrap();
    e.patch("s1", PatchInput::Diff(EDIT), None, &mut NoObserver)
        .unwrap();
    let v = e
        .verify("s1", &VerifyOptions::default(), &mut NoObserver)
        .unwrap();
    assert!(v.record.obligations_ok);
    e
}

/// `genesis apply s1` in `root` with `env`.
fn apply_cli(root: &Path, env: &[(&str, String)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_genesis"));
    cmd.current_dir(root).args(["apply", "s1"]);
    cmd.env_remove("GENESIS_FAULT")
        .env_remove("GENESIS_FAULT_TRACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The fault step just after apply renames `a.txt` into place: the workspace holds the
/// change, the journal is not finished.
fn step_after_the_workspace_write() -> usize {
    let d = tempfile::tempdir().unwrap();
    verified(d.path());
    let trace = d.path().join("trace.txt");
    let o = apply_cli(
        d.path(),
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let names: Vec<&str> = text.lines().map(|l| l.split_once(' ').unwrap().1).collect();
    let at = names
        .iter()
        .position(|n| n.starts_with("rename ") && n.ends_with("a.txt"))
        .expect("apply renames a.txt into place");
    at + 2 // 1-based, the step after
}

/// `r` is the refusal of a pending journal: kind State (exit 3) and its exact message.
fn assert_pending<E: std::fmt::Display + std::fmt::Debug>(
    what: &str,
    r: Result<impl std::fmt::Debug, E>,
    kind: impl Fn(&E) -> ErrorKind,
    journal: &Path,
) {
    let e = r.expect_err(what);
    assert_eq!(kind(&e), ErrorKind::State, "{what}: {e:?}");
    assert_eq!(kind(&e).exit_code(), 3);
    assert_eq!(
        e.to_string(),
        format!(
            "session s1: an interrupted apply/abort of this session is pending ({}): run `genesis recover`",
            journal.display()
        ),
        "{what}"
    );
}

#[test]
fn every_operation_refuses_a_session_with_a_pending_journal_until_recover() {
    let step = step_after_the_workspace_write();
    let d = tempfile::tempdir().unwrap();
    let e = verified(d.path());
    let o = apply_cli(d.path(), &[("GENESIS_FAULT", format!("{step}:abort"))]);
    assert_ne!(o.status.code(), Some(0), "the apply was interrupted");
    let journal = e.store().path().join("journal/s1.json");
    assert!(
        journal.is_file(),
        "the journal is left at {}",
        journal.display()
    );
    assert_eq!(
        std::fs::read(d.path().join("a.txt")).unwrap(),
        b"hello\nworld\n"
    );

    // Each operation's own error type: the variant and its kind.
    let r = e.patch("s1", PatchInput::Diff(EDIT), None, &mut NoObserver);
    assert!(
        matches!(
            r,
            Err(genesis::engine::PatchSessionError::RecoveryPending { .. })
        ),
        "{r:?}"
    );
    assert_pending("patch", r, |e| e.kind(), &journal);
    let r = e.verify("s1", &VerifyOptions::default(), &mut NoObserver);
    assert!(
        matches!(r, Err(genesis::engine::VerifyError::RecoveryPending { .. })),
        "{r:?}"
    );
    assert_pending("verify", r, |e| e.kind(), &journal);
    let r = e.apply("s1", &ApplyOptions::default(), &mut NoObserver);
    assert!(
        matches!(r, Err(genesis::engine::ApplyError::RecoveryPending { .. })),
        "{r:?}"
    );
    assert_pending("apply", r, |e| e.kind(), &journal);
    let r = e.abort_with("s1", &AbortOptions::default(), &mut NoObserver);
    assert!(
        matches!(r, Err(genesis::engine::AbortError::RecoveryPending { .. })),
        "{r:?}"
    );
    assert_pending("abort", r, |e| e.kind(), &journal);
    let r = e.restore("s1", &RestoreOptions::default());
    assert!(
        matches!(r, Err(EngineError::RecoveryPending { .. })),
        "{r:?}"
    );
    assert_pending("restore", r, |e| e.kind(), &journal);
    let r = e.rebase(
        "s1",
        &RebaseOptions::default(),
        &mut genesis::engine::NoObserver,
    );
    assert!(
        matches!(r, Err(EngineError::RecoveryPending { .. })),
        "{r:?}"
    );
    assert_pending("rebase", r, |e| e.kind(), &journal);

    // Nothing above changed the session or the workspace; recover finishes the apply.
    assert_eq!(e.status("s1").unwrap().0.status, Status::Open);
    let out = e.recover().unwrap();
    assert_eq!(out.finished, vec!["s1".to_owned()]);
    assert!(!journal.exists());
    assert_eq!(e.status("s1").unwrap().0.status, Status::Applied);
    assert_eq!(
        std::fs::read(d.path().join("a.txt")).unwrap(),
        b"hello\nworld\n"
    );
}
