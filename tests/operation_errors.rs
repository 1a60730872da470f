//! Each session operation returns its own error type holding only what it can fail with
//! (`OpenError`, `PatchSessionError`, `VerifyError`, `ApplyError`, `AbortError`), matched here
//! by variant; each has the kind (exit code, event code, retryable) of the `EngineError`
//! variant it converts into, so existing callers that use `EngineError` see the same thing.

use std::path::Path;
use std::time::Duration;

use genesis::engine::{
    AbortError, AbortOptions, ApplyError, ApplyOptions, Engine, EngineError, NoObserver, OpenError,
    OpenOptions, PatchInput, PatchSessionError, VerifyError, VerifyOptions,
};
use genesis::session::{SessionError, SessionId, Status};
use genesis::store::StoreError;
use genesis::{ErrorKind, Workspace};

const MANIFEST: &str = r#"{
  "schema": "genesis/manifest-v0.1",
  "obligations": [
    {"id": "greets", "run": ["grep", "-q", "hello", "a.txt"], "timeout_s": 30}
  ]
}
"#;

const EDIT: &[u8] =
    b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";

fn engine(root: &Path) -> Engine {
    std::fs::write(root.join("a.txt"), b"hello\n").unwrap();
    std::fs::write(root.join("genesis.json"), MANIFEST).unwrap();
    Engine::new(Workspace::new(root, None), true)
        .unwrap()
        .with_lock_wait(Duration::ZERO)
}

fn open(e: &Engine, id: &str) {
    e.open(
        &OpenOptions {
            session: Some(SessionId::new(id).unwrap()),
            ..OpenOptions::default()
        },
        &mut NoObserver,
    )
    .unwrap();
}

fn open_opts(id: &str) -> OpenOptions {
    OpenOptions {
        session: Some(SessionId::new(id).unwrap()),
        ..OpenOptions::default()
    }
}

/// The kind before and after conversion into `EngineError`, and the converted error.
fn converted<E: Into<EngineError>>(kind: ErrorKind, e: E) -> EngineError {
    let engine: EngineError = e.into();
    assert_eq!(engine.kind(), kind, "{engine:?}");
    engine
}

#[test]
fn open_errors() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s");
    let err = e.open(&open_opts("s"), &mut NoObserver).unwrap_err();
    assert!(
        matches!(err, OpenError::Session(SessionError::Exists(_))),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::BadInput);
    let k = err.kind();
    assert!(matches!(
        converted(k, err),
        EngineError::Session(SessionError::Exists(_))
    ));

    let both = OpenOptions {
        checkout: Some(d.path().join("../elsewhere")),
        in_place: true,
        ..open_opts("t")
    };
    let err = e.open(&both, &mut NoObserver).unwrap_err();
    assert!(matches!(err, OpenError::CheckoutInPlace), "{err:?}");
    assert_eq!(err.kind().exit_code(), 2);
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::CheckoutInPlace
    ));

    let inside = OpenOptions {
        checkout: Some(d.path().join("sub")),
        ..open_opts("u")
    };
    let err = e.open(&inside, &mut NoObserver).unwrap_err();
    match &err {
        OpenError::NotApart { option, dir, .. } => {
            assert_eq!(*option, "--checkout");
            assert_eq!(dir, &d.path().join("sub"));
        }
        other => panic!("expected NotApart, got {other:?}"),
    }
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::NotApart { .. }
    ));
    assert!(!d.path().join("sub").exists(), "nothing made");
}

#[test]
fn patch_errors() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s");
    let err = e
        .patch("s", PatchInput::Workspace, None, &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            err,
            PatchSessionError::PatchInputMismatch {
                in_place: false,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::PatchInputMismatch { .. }
    ));

    let git = b"diff --git a/.git/config b/.git/config\nnew file mode 100644\n--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+x\n";
    let err = e
        .patch("s", PatchInput::Diff(git), None, &mut NoObserver)
        .unwrap_err();
    // Refused by the patch rules themselves, naming the path and line.
    assert!(
        matches!(
            &err,
            PatchSessionError::Patch(genesis::patch::PatchError::ForbiddenPath { path, line: 1, .. })
                if path == ".git/config"
        ),
        "{err:?}"
    );
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::Patch(genesis::patch::PatchError::ForbiddenPath { .. })
    ));

    e.abort("s").unwrap();
    let err = e
        .patch("s", PatchInput::Diff(EDIT), None, &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            err,
            PatchSessionError::NotOpen {
                status: Status::Aborted,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.kind().exit_code(), 3);
    assert!(matches!(
        converted(ErrorKind::State, err),
        EngineError::NotOpen { .. }
    ));
}

#[test]
fn verify_errors() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s");
    let inside = VerifyOptions {
        workdir: Some(d.path().join("wd")),
        ..VerifyOptions::default()
    };
    let err = e.verify("s", &inside, &mut NoObserver).unwrap_err();
    assert!(
        matches!(&err, VerifyError::NotApart { option, .. } if *option == "--workdir"),
        "{err:?}"
    );
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::NotApart { .. }
    ));

    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious.txt"), b"mine\n").unwrap();
    let foreign = VerifyOptions {
        workdir: Some(outside.path().to_path_buf()),
        ..VerifyOptions::default()
    };
    let err = e.verify("s", &foreign, &mut NoObserver).unwrap_err();
    assert!(matches!(err, VerifyError::BadDirectory { .. }), "{err:?}");
    assert_eq!(
        std::fs::read(outside.path().join("precious.txt")).unwrap(),
        b"mine\n"
    );
    assert!(matches!(
        converted(ErrorKind::BadInput, err),
        EngineError::BadDirectory { .. }
    ));
}

#[test]
fn apply_and_abort_of_a_closed_session_are_not_open() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s");
    e.abort("s").unwrap();
    let err = e
        .apply("s", &ApplyOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            err,
            ApplyError::NotOpen {
                status: Status::Aborted,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(matches!(
        converted(ErrorKind::State, err),
        EngineError::NotOpen { .. }
    ));
    let err = e
        .abort_with("s", &AbortOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(
        matches!(
            err,
            AbortError::NotOpen {
                status: Status::Aborted,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(matches!(
        converted(ErrorKind::State, err),
        EngineError::NotOpen { .. }
    ));
}

#[test]
fn every_operation_reports_a_held_lock_as_retryable_store_locked() {
    let d = tempfile::tempdir().unwrap();
    let e = engine(d.path());
    open(&e, "s");
    let _held = e.lock_session("s").unwrap();
    let locked = |k: ErrorKind| {
        assert_eq!(k, ErrorKind::Locked);
        assert!(k.retryable());
        assert_eq!(k.exit_code(), 3);
    };
    let err = e.open(&open_opts("t"), &mut NoObserver).unwrap_err();
    assert!(matches!(err, OpenError::Store(StoreError::Locked { .. })));
    locked(err.kind());
    let err = e
        .patch("s", PatchInput::Diff(EDIT), None, &mut NoObserver)
        .unwrap_err();
    assert!(matches!(
        err,
        PatchSessionError::Store(StoreError::Locked { .. })
    ));
    locked(err.kind());
    let err = e
        .verify("s", &VerifyOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(matches!(err, VerifyError::Store(StoreError::Locked { .. })));
    locked(err.kind());
    let err = e
        .apply("s", &ApplyOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(matches!(err, ApplyError::Store(StoreError::Locked { .. })));
    locked(err.kind());
    let err = e
        .abort_with("s", &AbortOptions::default(), &mut NoObserver)
        .unwrap_err();
    assert!(matches!(err, AbortError::Store(StoreError::Locked { .. })));
    locked(err.kind());
    assert!(matches!(
        converted(ErrorKind::Locked, err),
        EngineError::Store(StoreError::Locked { .. })
    ));
}
