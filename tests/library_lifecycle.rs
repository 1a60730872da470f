//! The session lifecycle through the library API, as an agent runtime that embeds Genesis
//! calls it (no binary spawned): open → patch → verify → apply, abort with saved work and
//! restore, and each refusal matched by its error variant, with exact bytes on disk.

use std::path::Path;

use genesis::engine::{
    AbortOptions, ApplyError, ApplyOptions, ConflictKind, Engine, NoObserver, NotVerifiedReason,
    OpenError, OpenOptions, PatchInput, PatchSessionError, RestoreOptions, VerifyOptions,
};
use genesis::patch::PatchError;
use genesis::session::{SessionId, Status};
use genesis::{ErrorKind, Workspace};

/// A manifest with one obligation that checks the greeting.
const MANIFEST: &str = r#"{
  "schema": "genesis/manifest-v0.1",
  "obligations": [
    {"id": "greets", "run": ["grep", "-q", "hello", "a.txt"], "timeout_s": 30}
  ]
}
"#;

/// A workspace holding `a.txt` and `genesis.json`, with its store made.
fn engine(root: &Path) -> Engine {
    std::fs::write(root.join("a.txt"), b"hello\n").unwrap();
    std::fs::write(root.join("genesis.json"), MANIFEST).unwrap();
    Engine::new(Workspace::new(root, None), true).expect("store made")
}

fn open(engine: &Engine, id: &str, in_place: bool) -> String {
    let out = engine
        .open(
            &OpenOptions {
                session: Some(SessionId::new(id).unwrap()),
                in_place,
                ..OpenOptions::default()
            },
            &mut NoObserver,
        )
        .expect("open");
    assert_eq!(out.session.status, Status::Open);
    assert_eq!(out.session.base_snapshot, out.session.current_snapshot);
    out.session.session.to_string()
}

const EDIT: &[u8] =
    b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";

#[test]
fn open_patch_verify_apply_writes_the_recorded_bytes() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    let id = open(&e, "s1", false);
    let p = e
        .patch(&id, PatchInput::Diff(EDIT), None, &mut NoObserver)
        .expect("patch");
    assert_eq!((p.lines_added, p.lines_removed), (1, 0));
    assert_eq!(p.changes.len(), 1);
    assert_eq!(p.changes[0].path.as_str(), "a.txt");
    // The workspace is untouched until apply.
    assert_eq!(std::fs::read(d.path().join("a.txt")).unwrap(), b"hello\n");

    let v = e
        .verify(&id, &VerifyOptions::default(), &mut NoObserver)
        .expect("verify");
    assert!(v.record.obligations_ok);
    assert_eq!(v.results.len(), 1);
    assert_eq!(v.results[0].exit_code, Some(0));

    let dry = e
        .apply(
            &id,
            &ApplyOptions {
                dry_run: true,
                ..ApplyOptions::default()
            },
            &mut NoObserver,
        )
        .expect("dry run");
    assert!(!dry.written);
    assert_eq!(std::fs::read(d.path().join("a.txt")).unwrap(), b"hello\n");

    let a = e
        .apply(&id, &ApplyOptions::default(), &mut NoObserver)
        .expect("apply");
    assert!(a.written);
    assert_eq!(a.session.status, Status::Applied);
    assert_eq!(
        std::fs::read(d.path().join("a.txt")).unwrap(),
        b"hello\nworld\n"
    );
    // An applied session cannot be changed again.
    match e.patch(&id, PatchInput::Diff(EDIT), None, &mut NoObserver) {
        Err(PatchSessionError::NotOpen { id: got, status }) => {
            assert_eq!(got, id);
            assert_eq!(status, Status::Applied);
        }
        other => panic!("expected NotOpen, got {other:?}"),
    }
}

#[test]
fn apply_without_a_passing_verification_is_refused_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    let id = open(&e, "s2", false);
    let bye = b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+bye\n";
    e.patch(&id, PatchInput::Diff(bye), None, &mut NoObserver)
        .expect("patch");
    let err = e
        .apply(&id, &ApplyOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ApplyError::NotVerified { id: got, reason: NotVerifiedReason::NeverVerified } if *got == id
        ),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::State);

    // The obligation fails on the patched tree: still not appliable.
    let v = e
        .verify(&id, &VerifyOptions::default(), &mut NoObserver)
        .expect("verify runs");
    assert!(!v.record.obligations_ok);
    assert_eq!(v.results[0].exit_code, Some(1));
    let err = e
        .apply(&id, &ApplyOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ApplyError::NotVerified {
                reason: NotVerifiedReason::ObligationsFailed { acceptance, .. },
                ..
            } if *acceptance == v.acceptance
        ),
        "{err:?}"
    );
    assert_eq!(std::fs::read(d.path().join("a.txt")).unwrap(), b"hello\n");
}

#[test]
fn a_workspace_edited_under_the_session_is_a_conflict_naming_the_path() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    let id = open(&e, "s3", false);
    e.patch(&id, PatchInput::Diff(EDIT), None, &mut NoObserver)
        .expect("patch");
    e.verify(&id, &VerifyOptions::default(), &mut NoObserver)
        .expect("verify");
    std::fs::write(d.path().join("a.txt"), b"hello from the user\n").unwrap();
    match e.apply(&id, &ApplyOptions::default(), &mut NoObserver) {
        Err(ApplyError::Conflict { id: got, conflicts }) => {
            assert_eq!(got, id);
            assert_eq!(conflicts.len(), 1);
            assert_eq!(conflicts[0].path, "a.txt");
            assert!(
                matches!(conflicts[0].kind, ConflictKind::Changed { .. }),
                "{:?}",
                conflicts[0].kind
            );
        }
        other => panic!("expected Conflict, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(d.path().join("a.txt")).unwrap(),
        b"hello from the user\n"
    );
}

#[test]
fn a_bad_hunk_is_a_patch_error_and_records_nothing() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    let id = open(&e, "s4", false);
    let before = e.status(&id).unwrap().0;
    let stale =
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-goodbye\n+bye\n";
    let err = e
        .patch(&id, PatchInput::Diff(stale), None, &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            PatchSessionError::Patch(PatchError::HunkNotFound { path, hunk: 1, .. }) if path == "a.txt"
        ),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::BadInput);
    let after = e.status(&id).unwrap().0;
    assert_eq!(after.current_snapshot, before.current_snapshot);
    assert!(after.patches.is_empty());
}

#[test]
fn in_place_abort_saves_unrecorded_work_and_restore_brings_it_back() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    let id = open(&e, "s5", true);
    std::fs::write(d.path().join("a.txt"), b"hello\nagent edit\n").unwrap();
    std::fs::create_dir(d.path().join("out")).unwrap();
    std::fs::write(d.path().join("out/result.jsonl"), b"{}\n").unwrap();

    let plan = e
        .abort_with(
            &id,
            &AbortOptions {
                dry_run: true,
                ..AbortOptions::default()
            },
            &mut NoObserver,
        )
        .expect("dry run");
    assert_eq!(e.status(&id).unwrap().0.status, Status::Open);
    assert_eq!(plan.steps.len(), 2);

    let done = e
        .abort_with(&id, &AbortOptions::default(), &mut NoObserver)
        .expect("abort");
    let mut saved: Vec<_> = done.saved.iter().map(|f| f.path.to_string()).collect();
    saved.sort();
    assert_eq!(saved, ["a.txt", "out/result.jsonl"]);
    assert_eq!(std::fs::read(d.path().join("a.txt")).unwrap(), b"hello\n");
    assert!(!d.path().join("out/result.jsonl").exists());
    assert_eq!(e.status(&id).unwrap().0.status, Status::Aborted);

    e.restore(&id, &RestoreOptions::default()).expect("restore");
    assert_eq!(
        std::fs::read(d.path().join("a.txt")).unwrap(),
        b"hello\nagent edit\n"
    );
    assert_eq!(
        std::fs::read(d.path().join("out/result.jsonl")).unwrap(),
        b"{}\n"
    );
}

#[test]
fn a_second_session_with_the_same_id_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s6", false);
    let err = e
        .open(
            &OpenOptions {
                session: Some(SessionId::new("s6").unwrap()),
                ..OpenOptions::default()
            },
            &mut NoObserver,
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            OpenError::Session(genesis::session::SessionError::Exists(_))
        ),
        "{err:?}"
    );
}
