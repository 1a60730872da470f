//! The locked-session guard (DESIGN section 4, "Locked sessions"): verify commits
//! under a second guard and refuses when a patch landed while its obligations ran; a crash
//! between the state's and the document's rename leaves the previous session readable. (A
//! guard dropped without `commit` writing nothing, and `commit` writing both files, are
//! tested inside the crate, `engine::locked::tests`: the guard's mutators are crate-private,
//! so a library user cannot commit a session that `load` would refuse.)

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use genesis::Workspace;
use genesis::engine::{
    Engine, EngineError, NoObserver, Observer, OpenOptions, PatchInput, PatchSessionError,
    VerifyError, VerifyOptions,
};
use genesis::events::EventKind;
use genesis::session::{SessionId, Status};

const MANIFEST: &str = r#"{
  "schema": "genesis/manifest-v0.1",
  "obligations": [
    {"id": "greets", "run": ["grep", "-q", "hello", "a.txt"], "timeout_s": 30}
  ]
}
"#;

const EDIT: &[u8] =
    b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";

const EDIT2: &[u8] = b"diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+second\n";

/// A workspace holding `a.txt` and `genesis.json`, its store made, session `s1` open. The
/// engine waits for no other lock holder (a held lock fails at once).
fn setup(root: &Path) -> Engine {
    std::fs::write(root.join("a.txt"), b"hello\n").unwrap();
    std::fs::write(root.join("genesis.json"), MANIFEST).unwrap();
    let e = Engine::new(Workspace::new(root, None), true)
        .expect("store made")
        .with_lock_wait(Duration::ZERO);
    e.open(
        &OpenOptions {
            session: Some(SessionId::new("s1").unwrap()),
            ..OpenOptions::default()
        },
        &mut NoObserver,
    )
    .expect("open");
    e
}

/// The session's two files: (document, state).
fn files(e: &Engine, id: &str) -> (PathBuf, PathBuf) {
    let dir = e.store().path().join("sessions");
    (
        dir.join(format!("{id}.json")),
        dir.join(format!("{id}.state")),
    )
}

fn bytes(e: &Engine, id: &str) -> (Vec<u8>, Vec<u8>) {
    let (doc, state) = files(e, id);
    (std::fs::read(doc).unwrap(), std::fs::read(state).unwrap())
}

#[test]
fn failed_operation_leaves_both_files_and_the_lock() {
    let d = tempfile::tempdir().unwrap();
    let e = setup(d.path());
    let before = bytes(&e, "s1");
    let bad = b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nothere\n+x\n";
    let err = e
        .patch("s1", PatchInput::Diff(bad), None, &mut NoObserver)
        .expect_err("context does not match");
    assert!(matches!(err, PatchSessionError::Patch { .. }), "{err:?}");
    assert_eq!(bytes(&e, "s1"), before);
    drop(
        e.lock_session("s1")
            .expect("lock free after a failed patch"),
    );
}

#[test]
fn lock_open_session_refuses_a_closed_session() {
    let d = tempfile::tempdir().unwrap();
    let e = setup(d.path());
    e.abort("s1").expect("abort");
    let err = e.lock_open_session("s1").expect_err("aborted");
    assert!(
        matches!(
            err,
            EngineError::NotOpen {
                status: Status::Aborted,
                ..
            }
        ),
        "{err:?}"
    );
    // lock_session takes it whatever the status; and the failed lock_open_session let go.
    drop(e.lock_session("s1").expect("any status"));
}

/// Records a second patch through another engine when verify's obligation starts, so the
/// session moves while the obligations run (verify holds no lock then).
struct PatchWhileRunning<'a> {
    other: &'a Engine,
    files_after_patch: Option<(Vec<u8>, Vec<u8>)>,
}

impl Observer for PatchWhileRunning<'_> {
    fn event(&mut self, event: &EventKind) {
        if let EventKind::ObligationStarted { .. } = event
            && self.files_after_patch.is_none()
        {
            self.other
                .patch("s1", PatchInput::Diff(EDIT2), None, &mut NoObserver)
                .expect("patch while verify's obligations run (no lock held)");
            self.files_after_patch = Some(bytes(self.other, "s1"));
        }
    }
}

#[test]
fn patch_during_verify_makes_verify_refuse_and_write_nothing() {
    let d = tempfile::tempdir().unwrap();
    let e = setup(d.path());
    let first = e
        .patch("s1", PatchInput::Diff(EDIT), None, &mut NoObserver)
        .expect("patch");
    let verified = first.session.current_snapshot;
    let other = Engine::new(Workspace::new(d.path(), None), false).expect("second engine");
    let mut obs = PatchWhileRunning {
        other: &other,
        files_after_patch: None,
    };
    let err = e
        .verify("s1", &VerifyOptions::default(), &mut obs)
        .expect_err("session moved");
    let (_, now) = e.status("s1").map(|(s, st)| (st, s)).unwrap();
    match &err {
        VerifyError::SessionMoved {
            id,
            verified: v,
            now: n,
        } => {
            assert_eq!(id, "s1");
            assert_eq!(*v, verified);
            assert_eq!(*n, now.current_snapshot);
            assert_ne!(*n, verified);
        }
        other => panic!("expected SessionMoved, got {other:?}"),
    }
    // Verify's commit wrote nothing: the files are as the second patch left them.
    assert_eq!(Some(bytes(&e, "s1")), obs.files_after_patch);
    assert_eq!(now.patches.len(), 2);
    assert_eq!(now.verification, None);
    // And the lock is free.
    drop(e.lock_session("s1").expect("lock free after the refusal"));
}

#[test]
fn crash_between_state_and_document_leaves_the_previous_session() {
    // Count the steps of one `genesis patch` and find the document's first write step: the
    // state has been renamed into place by then.
    let traced = tempfile::tempdir().unwrap();
    setup(traced.path());
    let trace = traced.path().join("trace");
    let out = common::genesis()
        .current_dir(traced.path())
        .args(["patch", "s1", "-"])
        .write_stdin(EDIT.to_vec())
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    assert_eq!(common::code(&out), Some(0), "{}", common::stderr(&out));
    let steps = std::fs::read_to_string(&trace).unwrap();
    let at = |suffix: &str| {
        steps
            .lines()
            .find(|l| l.ends_with(suffix) && l.contains(" create "))
            .and_then(|l| l.split(' ').next())
            .map(|n| n.parse::<usize>().unwrap())
            .unwrap_or_else(|| panic!("no create step for {suffix} in:\n{steps}"))
    };
    let (state_step, doc_step) = (at("sessions/s1.state"), at("sessions/s1.json"));
    assert!(state_step < doc_step, "the state is written first");

    let d = tempfile::tempdir().unwrap();
    let e = setup(d.path());
    let (doc_before, state_before) = bytes(&e, "s1");
    let out = common::genesis()
        .current_dir(d.path())
        .args(["patch", "s1", "-"])
        .write_stdin(EDIT.to_vec())
        .env("GENESIS_FAULT", format!("{doc_step}:abort"))
        .output()
        .unwrap();
    assert_eq!(common::code(&out), None, "killed at step {doc_step}");
    let (doc_now, state_now) = bytes(&e, "s1");
    assert_eq!(doc_now, doc_before, "the document was not written");
    assert_ne!(
        state_now, state_before,
        "the new state was renamed into place"
    );

    // The previous session, readable by the library and the command line.
    let (s, st) = e.status("s1").expect("a state ahead of its document reads");
    assert_eq!(s.patches.len(), 0);
    assert_eq!(st.snapshots.len(), 1);
    assert_eq!(st.snapshots[0].identity, s.base_snapshot);
    let out = common::run_in(d.path(), &["status", "s1"]);
    assert_eq!(common::code(&out), Some(0), "{}", common::stderr(&out));
    // The patch can be recorded again; the pair is consistent afterwards.
    let p = e
        .patch("s1", PatchInput::Diff(EDIT), None, &mut NoObserver)
        .expect("patch again");
    assert_eq!(p.session.patches.len(), 1);
    let (s, st) = e.status("s1").unwrap();
    assert_eq!(st.snapshots.len(), 2);
    assert_eq!(st.snapshots[1].identity, s.current_snapshot);
}
