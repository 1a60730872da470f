//! A program using the library gets the session's events (issue 10, build item 2): `open`,
//! `patch`, `verify`, `apply` and `abort` report them, in the documented order (DESIGN section
//! 8), through one observer, with obligation output decoded and redacted by the library.

mod common;

use genesis::engine::{
    AbortOptions, ApplyOptions, Engine, Observer, OpenOptions, PatchInput, VerifyOptions,
};
use genesis::events::{EventKind, Stream};
use genesis::session::SessionId;
use genesis::{ErrorKind, Workspace};

use common::write_tree;

const FIX: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

/// Every event, and the obligation output the terminal callback saw.
#[derive(Default)]
struct Record {
    events: Vec<EventKind>,
    shown: String,
}

impl Observer for Record {
    fn event(&mut self, e: &EventKind) {
        self.events.push(e.clone());
    }
    fn obligation_output(&mut self, _id: &str, _stream: Stream, text: &str) {
        self.shown.push_str(text);
    }
}

/// The variant names of `events`, in order.
fn names(events: &[EventKind]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let debug = format!("{e:?}");
            debug.split([' ', '{']).next().unwrap().to_owned()
        })
        .collect()
}

fn engine(manifest: &str) -> (tempfile::TempDir, Engine) {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            ("genesis.json", manifest.as_bytes()),
            ("greeting.txt", b"hi\n"),
        ],
    );
    let engine = Engine::new(Workspace::new(d.path(), None), true).unwrap();
    (d, engine)
}

fn open(engine: &Engine, id: &str, rec: &mut Record) {
    let opts = OpenOptions {
        session: Some(SessionId::new(id).unwrap()),
        ..OpenOptions::default()
    };
    engine.open(&opts, rec).unwrap();
}

#[test]
fn open_patch_verify_apply_report_their_events_in_order() {
    // The secret is printed whole, then the output ends in an incomplete UTF-8 sequence.
    let (d, engine) = engine(
        r#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"ob","run":["sh","-c","printf 'token=s3cr3t-value ok\\342\\202'"],"timeout_s":60}]}"#,
    );
    let mut rec = Record::default();
    open(&engine, "s1", &mut rec);
    let vopts = VerifyOptions {
        secrets: vec!["s3cr3t-value".into()],
        ..VerifyOptions::default()
    };
    engine
        .patch("s1", PatchInput::Diff(FIX), Some(&vopts), &mut rec)
        .unwrap();
    engine
        .apply("s1", &ApplyOptions::default(), &mut rec)
        .unwrap();
    let names = names(&rec.events);
    let output_at = names.iter().position(|n| n == "ObligationOutput").unwrap();
    let finished_at = names
        .iter()
        .position(|n| n == "ObligationFinished")
        .unwrap();
    // The patch is recorded before it is verified: its event comes first.
    let mut expected = vec![
        "SessionOpened",
        "WorkspaceReady",
        "PatchRecorded",
        "ObligationStarted",
    ];
    expected.extend(std::iter::repeat_n(
        "ObligationOutput",
        finished_at - output_at,
    ));
    expected.extend([
        "ObligationFinished",
        "Verified",
        "ApprovalNeeded",
        "Applied",
    ]);
    assert_eq!(names, expected);
    let output: String = rec
        .events
        .iter()
        .filter_map(|e| match e {
            EventKind::ObligationOutput { data, .. } => Some(data.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(output, "token=[REDACTED] ok\u{FFFD}");
    assert_eq!(
        rec.shown, output,
        "the terminal callback sees the same text"
    );
    assert_eq!(
        std::fs::read(d.path().join("greeting.txt")).unwrap(),
        b"hello\n"
    );
}

#[test]
fn a_failed_verification_and_an_abort_are_reported_and_a_failure_is_returned_not_emitted() {
    let (_d, engine) = engine(
        r#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"no","run":["false"],"timeout_s":60}]}"#,
    );
    let mut rec = Record::default();
    open(&engine, "s2", &mut rec);
    engine
        .patch("s2", PatchInput::Diff(FIX), None, &mut rec)
        .unwrap();
    rec.events.clear();
    engine
        .verify("s2", &VerifyOptions::default(), &mut rec)
        .unwrap();
    assert_eq!(
        rec.events.last(),
        Some(&EventKind::Failed {
            code: "obligations-failed".into(),
            message: "obligations failed: no".into(),
            retryable: true,
        })
    );
    // Refused: returned with its kind, nothing emitted.
    rec.events.clear();
    let err = engine
        .apply("s2", &ApplyOptions::default(), &mut rec)
        .unwrap_err();
    assert!(rec.events.is_empty(), "{:?}", rec.events);
    assert_eq!(err.kind(), ErrorKind::State);
    assert_eq!(
        err.kind().event(err.to_string()),
        EventKind::Diagnostic {
            code: "session-not-open".into(),
            message: err.to_string(),
            retryable: false,
        }
    );
    let abort = AbortOptions {
        dry_run: false,
        reason: Some("given up".into()),
    };
    engine.abort_with("s2", &abort, &mut rec).unwrap();
    assert_eq!(
        rec.events,
        vec![EventKind::Aborted {
            reason: "given up".into()
        }]
    );
}
