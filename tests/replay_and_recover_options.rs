//! `replay` and `recover` through the library, each with its options and outcome: replay
//! reports every patch unless told to stop at the first mismatch; recover does a full
//! recovery by default and, `if_pending`, nothing when no journal is pending.

use std::path::Path;

use genesis::Workspace;
use genesis::engine::{Engine, NoObserver, OpenOptions, PatchInput, RecoverOptions, ReplayOptions};
use genesis::session::SessionId;

const MANIFEST: &str = "{\"schema\": \"genesis/manifest-v0.1\", \"obligations\": []}\n";

const EDIT1: &[u8] =
    b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";
const EDIT2: &[u8] = b"diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+second\n";

/// Session `s1` with two recorded patches.
fn two_patches(root: &Path) -> Engine {
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
    for d in [EDIT1, EDIT2] {
        e.patch("s1", PatchInput::Diff(d), None, &mut NoObserver)
            .unwrap();
    }
    e
}

/// Marks `a.txt` executable in the state's record of the first patch's result, so that
/// patch's replay no longer reproduces the recorded executable bits.
fn break_first_modes(e: &Engine) {
    let path = e.store().path().join("sessions/s1.state");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["snapshots"][1]["executable"] = serde_json::json!(["a.txt"]);
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn replay_reports_every_patch_by_default() {
    let d = tempfile::tempdir().unwrap();
    let e = two_patches(d.path());
    let out = e.replay("s1", &ReplayOptions::default()).unwrap();
    assert!(out.matches());
    assert_eq!(out.session.patches.len(), 2);
    assert_eq!(out.steps.len(), 2);
    for (i, s) in out.steps.iter().enumerate() {
        assert_eq!(s.index, i);
        assert_eq!(Some(s.recorded), s.replayed);
        assert_eq!(s.recorded, out.session.patches[i].after_snapshot);
    }

    break_first_modes(&e);
    let out = e.replay("s1", &ReplayOptions::default()).unwrap();
    assert!(!out.matches());
    assert_eq!(out.steps.len(), 2, "the default replays past a mismatch");
    assert!(!out.steps[0].modes_match);
    // The second patch replays on the first's recorded bits (a.txt executable), so it
    // carries the difference: reported too, not skipped.
    assert_eq!(out.steps[1].index, 1);
    assert!(!out.steps[1].modes_match);
}

#[test]
fn replay_stops_at_the_first_mismatch_when_asked() {
    let d = tempfile::tempdir().unwrap();
    let e = two_patches(d.path());
    let stop = ReplayOptions {
        stop_at_first_mismatch: true,
    };
    // All match: every patch is replayed all the same.
    assert_eq!(e.replay("s1", &stop).unwrap().steps.len(), 2);
    break_first_modes(&e);
    let out = e.replay("s1", &stop).unwrap();
    assert_eq!(out.steps.len(), 1);
    assert_eq!(out.steps[0].index, 0);
    assert!(!out.steps[0].matches());
}

#[test]
fn recover_if_pending_leaves_stray_temps_and_the_default_removes_them() {
    let d = tempfile::tempdir().unwrap();
    let e = two_patches(d.path());
    let stray = e.store().path().join("sessions/.tmp-interrupted");
    std::fs::write(&stray, b"half a session\n").unwrap();
    let out = e
        .recover_with(&RecoverOptions { if_pending: true })
        .unwrap();
    assert_eq!(out, Default::default(), "no journal pending: nothing done");
    assert!(stray.exists());
    let out = e.recover_with(&RecoverOptions::default()).unwrap();
    assert!(out.finished.is_empty() && out.rescued.is_empty());
    assert_eq!(out.temps_removed, 1);
    assert!(!stray.exists());
}
