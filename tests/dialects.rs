//! Drives whole transactions through `render` in every dialect and validates every line against
//! the dialect's schema (the seeds for BPT, Orbiplex and APS; ours for Genesis) with format
//! validation on.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use genesis::events::{
    Dialect, Event, EventCounters, EventKind, EventSink, Redactor, Scope, Stream, codes,
    orbiplex_digest, render,
};
use serde_json::Value;

mod common;
use common::*;

const SECRET: &str = "s3cr3t-T0KEN-42";
const OTHER_SECRET: &str = "hunter2hunter2";
const ALL: [Dialect; 4] = [
    Dialect::Genesis,
    Dialect::Bpt,
    Dialect::Orbiplex,
    Dialect::Aps,
];

fn assert_valid(v: &jsonschema::Validator, dialect: Dialect, line: &Value) {
    let errors: Vec<String> = v
        .iter_errors(line)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{dialect} line invalid:\n{}\n{errors:#?}",
        serde_json::to_string_pretty(line).unwrap()
    );
}

fn hash(tag: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(tag.as_bytes()))
}

/// Event times one second apart from a fixed start.
struct Clock(SystemTime);
impl Clock {
    fn tick(&mut self) -> SystemTime {
        self.0 += Duration::from_millis(1_001);
        self.0
    }
}

fn ev(session: &str, clock: &mut Clock, kind: EventKind) -> Event {
    Event {
        session: session.into(),
        time: clock.tick(),
        kind,
    }
}

/// The obligation output the transactions produce on one stream, before redaction.
#[derive(Default)]
struct Expected {
    raw: BTreeMap<&'static str, String>,
}

/// One obligation run: started, output pieces, finished.
fn obligation(
    s: &str,
    c: &mut Clock,
    out: &mut Vec<Event>,
    expect: &mut Expected,
    (id, index, total, passed): (&str, usize, usize, bool),
    pieces: &[(Stream, String)],
) {
    out.push(ev(
        s,
        c,
        EventKind::ObligationStarted {
            id: id.into(),
            run: vec![
                "sh".into(),
                "-c".into(),
                format!("API_TOKEN={SECRET} cargo test -- '{id}'"),
            ],
            index,
            total,
        },
    ));
    for (stream, data) in pieces {
        expect
            .raw
            .entry(stream.as_str())
            .or_default()
            .push_str(data);
        out.push(ev(
            s,
            c,
            EventKind::ObligationOutput {
                id: id.into(),
                stream: *stream,
                data: data.clone(),
            },
        ));
    }
    out.push(ev(
        s,
        c,
        EventKind::ObligationFinished {
            id: id.into(),
            exit_code: Some(if passed { 0 } else { 101 }),
            timed_out: false,
            passed,
            seconds: 1.25,
            index,
            total,
        },
    ));
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ending {
    AwaitApproval,
    Abort,
    Apply,
}

/// A whole transaction, as the processes (`genesis` commands) that emit its events:
/// 1. open, patch, verify with a failing obligation (a secret split across two output pieces,
///    and stderr longer than two chunks);
/// 2. a second patch, verify passes, approval needed;
/// 3. (abort or apply).
fn transaction(session: &str, ending: Ending, expect: &mut Expected) -> Vec<Vec<Event>> {
    let s = session;
    let c = &mut Clock(UNIX_EPOCH + Duration::from_secs(1_790_000_000));
    let base = hash("base");
    let mid = hash("mid");
    let last = hash("last");
    let mut processes = Vec::new();

    let mut p = vec![
        ev(
            s,
            c,
            EventKind::SessionOpened {
                base_snapshot: base.clone(),
            },
        ),
        ev(
            s,
            c,
            EventKind::WorkspaceReady {
                path: PathBuf::from(format!("/tmp/genesis/checkouts/{s}")),
            },
        ),
        ev(
            s,
            c,
            EventKind::PatchRecorded {
                index: 0,
                patch: hash("patch 0"),
                before: base.clone(),
                after: mid.clone(),
                files_changed: 2,
                lines_added: 10,
                lines_removed: 3,
                obligations_ok: true,
            },
        ),
    ];
    obligation(
        s,
        c,
        &mut p,
        expect,
        ("lint", 0, 2, true),
        &[
            (Stream::Stdout, "Checking genesis v0.1.0\n".into()),
            (Stream::Stderr, "warning: unused variable\n".into()),
        ],
    );
    let long_err: String = "é error line that goes on and on\n".repeat(2_500); // > 2 chunks
    obligation(
        s,
        c,
        &mut p,
        expect,
        ("test", 1, 2, false),
        &[
            (
                Stream::Stdout,
                "running 3 tests\nusing token s3cr3t-".into(),
            ),
            (Stream::Stdout, "T0KEN-42 to log in\n".into()),
            (Stream::Stderr, long_err),
            (
                Stream::Stdout,
                format!("{}{}", "x".repeat(32_760), &OTHER_SECRET[..5]),
            ),
            (
                Stream::Stdout,
                format!("{}\ntest result: FAILED\n", &OTHER_SECRET[5..]),
            ),
        ],
    );
    p.push(ev(
        s,
        c,
        EventKind::Verified {
            snapshot: mid.clone(),
            acceptance: hash("acceptance 1"),
            obligations_ok: false,
            files_changed: 2,
            lines_added: 10,
            lines_removed: 3,
            patches: 1,
        },
    ));
    p.push(ev(
        s,
        c,
        EventKind::Failed {
            code: codes::OBLIGATIONS_FAILED.into(),
            message: format!("obligation test failed (exit status 101); env had {SECRET}"),
            retryable: true,
        },
    ));
    processes.push(p);

    let mut p = vec![ev(
        s,
        c,
        EventKind::PatchRecorded {
            index: 1,
            patch: hash("patch 1"),
            before: mid.clone(),
            after: last.clone(),
            files_changed: 1,
            lines_added: 4,
            lines_removed: 1,
            obligations_ok: true,
        },
    )];
    obligation(
        s,
        c,
        &mut p,
        expect,
        ("lint", 0, 2, true),
        &[(Stream::Stdout, "Checking genesis v0.1.0\n".into())],
    );
    obligation(
        s,
        c,
        &mut p,
        expect,
        ("test", 1, 2, true),
        &[(Stream::Stdout, "test result: ok\n".into())],
    );
    p.push(ev(
        s,
        c,
        EventKind::Diagnostic {
            code: "slow-obligation".into(),
            message: "obligation test took 1.25 s".into(),
            retryable: false,
        },
    ));
    p.push(ev(
        s,
        c,
        EventKind::Verified {
            snapshot: last.clone(),
            acceptance: hash("acceptance 2"),
            obligations_ok: true,
            files_changed: 3,
            lines_added: 14,
            lines_removed: 4,
            patches: 2,
        },
    ));
    p.push(ev(
        s,
        c,
        EventKind::ApprovalNeeded {
            snapshot: last.clone(),
            patches: 2,
            files_changed: 3,
            lines_added: 14,
            lines_removed: 4,
        },
    ));
    processes.push(p);

    match ending {
        Ending::AwaitApproval => {}
        Ending::Abort => processes.push(vec![ev(
            s,
            c,
            EventKind::Aborted {
                reason: "the user declined".into(),
            },
        )]),
        Ending::Apply => processes.push(vec![ev(
            s,
            c,
            EventKind::Applied {
                snapshot: last,
                files_changed: 3,
            },
        )]),
    }
    processes
}

fn redactor() -> Redactor {
    Redactor::new(vec![SECRET.into(), OTHER_SECRET.into()])
}

/// Renders the processes of one transaction, each process starting from the counters the
/// previous one stored (serialised to JSON and back).
fn run(dialect: Dialect, session: &str, processes: &[Vec<Event>]) -> Vec<Value> {
    let scope = Scope {
        worker_id: "worker-7".into(),
        ..Scope::new(session)
    };
    let redact = redactor();
    let mut stored = serde_json::to_string(&EventCounters::default()).unwrap();
    let mut lines = Vec::new();
    for process in processes {
        let mut counters: EventCounters = serde_json::from_str(&stored).unwrap();
        for event in process {
            lines.extend(render(dialect, &scope, &mut counters, event, &redact));
        }
        stored = serde_json::to_string(&counters).unwrap();
        assert!(!stored.contains(SECRET) && !stored.contains(&SECRET[..6]));
    }
    lines
}

fn assert_no_secret(dialect: Dialect, line: &Value) {
    let text = serde_json::to_string(line).unwrap();
    for secret in [SECRET, OTHER_SECRET] {
        assert!(!text.contains(secret), "{dialect} leaked {secret}: {text}");
    }
}

/// All three transactions in one dialect: every line validates and leaks nothing.
fn all_lines(dialect: Dialect) -> Vec<(Ending, Vec<Value>)> {
    let v = validator(dialect);
    [Ending::AwaitApproval, Ending::Abort, Ending::Apply]
        .into_iter()
        .map(|ending| {
            let session = format!("sess-{ending:?}").to_lowercase();
            let lines = run(
                dialect,
                &session,
                &transaction(&session, ending, &mut Expected::default()),
            );
            assert!(!lines.is_empty());
            for line in &lines {
                assert_valid(&v, dialect, line);
                assert_no_secret(dialect, line);
            }
            (ending, lines)
        })
        .collect()
}

fn types(lines: &[Value], pointer: &str) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l.pointer(pointer)
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn genesis_lines_validate() {
    for (ending, lines) in all_lines(Dialect::Genesis) {
        let seqs: Vec<u64> = lines.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>());
        let t = types(&lines, "/type");
        for kind in [
            "session.opened",
            "workspace.ready",
            "patch.recorded",
            "obligation.started",
            "obligation.output",
            "obligation.finished",
            "session.verified",
            "session.failed",
            "diagnostic",
            "approval.needed",
        ] {
            assert!(t.contains(&kind.to_string()), "{ending:?}: no {kind}");
        }
        let end = t.last().unwrap().as_str();
        match ending {
            Ending::AwaitApproval => assert_eq!(end, "approval.needed"),
            Ending::Abort => assert_eq!(end, "session.aborted"),
            Ending::Apply => assert_eq!(end, "session.applied"),
        }
    }
}

#[test]
fn bpt_lines_validate() {
    for (ending, lines) in all_lines(Dialect::Bpt) {
        let t = types(&lines, "/event/type");
        assert_eq!(t[0], "execution.accepted");
        assert_eq!(t[1], "workspace.ready");
        assert_eq!(
            lines[1]["runtime"]["worktreePath"],
            "/tmp/genesis/checkouts/sess-".to_string() + &format!("{ending:?}").to_lowercase()
        );
        for l in &lines {
            assert_eq!(l["scope"]["workerId"], "worker-7");
            assert_eq!(l["scope"]["attempt"], 1);
            assert_eq!(l["scope"]["turn"], 1);
            assert_eq!(l["scope"]["localTaskId"], l["scope"]["executionId"]);
        }
        // The failing verification ends in a FAILED terminal with its diagnostic.
        let failed = lines
            .iter()
            .position(|l| l["payload"]["status"] == "FAILED")
            .unwrap();
        assert_eq!(lines[failed - 1]["event"]["type"], "execution.diagnostic");
        assert_eq!(
            lines[failed - 1]["payload"]["errorCode"],
            "obligations-failed"
        );
        assert_eq!(lines[failed - 1]["payload"]["retryable"], true);
        let verified = lines
            .iter()
            .filter(|l| l["event"]["type"] == "result.updated")
            .count();
        assert_eq!(verified, 2);
        let req = lines
            .iter()
            .find(|l| l["event"]["type"] == "interaction.requested")
            .unwrap();
        assert_eq!(req["payload"]["kind"], "FILE_APPROVAL");
        let last = lines.last().unwrap();
        match ending {
            Ending::AwaitApproval => assert_eq!(last["event"]["type"], "interaction.requested"),
            Ending::Abort => {
                assert_eq!(last["payload"]["status"], "CANCELED");
                let before = &lines[lines.len() - 2];
                assert_eq!(before["payload"]["decision"], "DENY");
                assert_eq!(
                    before["payload"]["interactionId"],
                    req["payload"]["interactionId"]
                );
            }
            Ending::Apply => {
                assert_eq!(last["payload"]["status"], "COMPLETED");
                assert_eq!(lines[lines.len() - 2]["payload"]["decision"], "APPROVE");
            }
        }
    }
}

#[test]
fn orbiplex_lines_validate() {
    let verification_schema = {
        let registry = jsonschema::Registry::new()
            .add(
                "genesis/agent-transaction-v0.1",
                load("schemas/agent-transaction-v0.1.schema.json"),
            )
            .unwrap()
            .prepare()
            .unwrap();
        jsonschema::draft202012::options()
            .with_registry(&registry)
            .build(
                &serde_json::json!({"$ref": "genesis/agent-transaction-v0.1#/$defs/verification"}),
            )
            .unwrap()
    };
    for (ending, lines) in all_lines(Dialect::Orbiplex) {
        let t = types(&lines, "/kind");
        assert_eq!(t[0], "progress");
        assert_eq!(lines[0]["progress/code"], "accepted");
        let actions: Vec<&Value> = lines
            .iter()
            .filter(|l| l["kind"] == "action-candidate")
            .collect();
        assert_eq!(actions.len(), 2);
        assert_eq!(
            actions[0]["action/schema"],
            "genesis/agent-transaction-v0.1#/$defs/patch"
        );
        assert_eq!(
            actions[0]["action/digest"],
            orbiplex_digest(&hash("patch 0")).unwrap()
        );
        for product in lines.iter().filter(|l| l["kind"] == "product-candidate") {
            let content: Value =
                serde_json::from_str(product["content"].as_str().unwrap()).unwrap();
            assert!(verification_schema.is_valid(&content), "{content}");
        }
        // The failed verification closes turn 1; the rest happens in turn 2.
        let outcomes: Vec<&Value> = lines
            .iter()
            .filter(|l| l["kind"] == "turn-outcome")
            .collect();
        assert_eq!(outcomes[0]["status"], "refused");
        assert_eq!(outcomes[0]["reason/code"], "policy-denied");
        assert_eq!(outcomes[0]["turn/ref"], lines[0]["turn/ref"]);
        let last = lines.last().unwrap();
        assert_ne!(last["turn/ref"], lines[0]["turn/ref"]);
        match ending {
            Ending::AwaitApproval => {
                assert_eq!(outcomes.len(), 1);
                assert_eq!(last["progress/code"], "awaiting-observation");
            }
            Ending::Abort => {
                assert_eq!(
                    (&last["status"], &last["reason/code"]),
                    (&"cancelled".into(), &"cancelled".into())
                );
            }
            Ending::Apply => {
                assert_eq!(
                    (&last["status"], &last["reason/code"]),
                    (&"completed".into(), &"completed".into())
                );
            }
        }
        // seq/no restarts at 1 in every turn and rises by 1.
        let mut expected = BTreeMap::<String, u64>::new();
        for l in &lines {
            let n = expected
                .entry(l["turn/ref"].as_str().unwrap().into())
                .or_insert(0);
            *n += 1;
            assert_eq!(l["seq/no"].as_u64(), Some(*n));
        }
    }
}

#[test]
fn aps_lines_validate() {
    for (ending, lines) in all_lines(Dialect::Aps) {
        let seqs: Vec<u64> = lines.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>());
        let t = types(&lines, "/type");
        for kind in [
            "run.state",
            "execution.updated",
            "tool.call",
            "tool.result",
            "error",
            "approval.requested",
        ] {
            assert!(t.contains(&kind.to_string()), "{ending:?}: no {kind}");
        }
        // Every tool.call has exactly one tool.result with the same callId.
        let calls: Vec<&Value> = lines.iter().filter(|l| l["type"] == "tool.call").collect();
        let results: Vec<&Value> = lines
            .iter()
            .filter(|l| l["type"] == "tool.result")
            .collect();
        assert_eq!(calls.len(), 2 + 4);
        assert_eq!(calls.len(), results.len());
        for call in &calls {
            let id = &call["data"]["callId"];
            assert_eq!(
                results
                    .iter()
                    .filter(|r| r["data"]["callId"] == *id)
                    .count(),
                1
            );
            assert!(
                call["data"]["argsDigest"]
                    .as_str()
                    .unwrap()
                    .starts_with("sha256:")
            );
        }
        assert_eq!(
            results
                .iter()
                .filter(|r| r["data"]["status"] == "failed")
                .count(),
            1
        );
        let req = lines
            .iter()
            .find(|l| l["type"] == "approval.requested")
            .unwrap();
        assert_eq!(req["data"]["paramsDigest"], hash("last"));
        assert_eq!(req["data"]["revision"], 2);
        assert_eq!(
            req["data"]["impactSummary"],
            "3 file(s) changed, 14 line(s) added, 4 line(s) removed"
        );
        assert_eq!(
            req["data"]["expiresAt"].as_i64().unwrap() - req["ts"].as_i64().unwrap(),
            24 * 3600 * 1000
        );
        let resolved: Vec<&Value> = lines
            .iter()
            .filter(|l| l["type"] == "approval.resolved")
            .collect();
        match ending {
            Ending::AwaitApproval => assert!(resolved.is_empty()),
            Ending::Abort => {
                assert_eq!(resolved.len(), 1);
                assert_eq!(resolved[0]["data"]["decision"], "rejected");
                assert_eq!(resolved[0]["data"]["approvalId"], req["data"]["approvalId"]);
            }
            Ending::Apply => {
                assert_eq!(resolved.len(), 1);
                assert_eq!(resolved[0]["data"]["decision"], "approved");
            }
        }
    }
}

#[test]
fn bpt_sequence_has_no_gaps_across_processes() {
    let session = "seq-test";
    let processes = transaction(session, Ending::Apply, &mut Expected::default());
    assert_eq!(processes.len(), 3);
    let lines = run(Dialect::Bpt, session, &processes);
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["event"]["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>());
    // Ids are distinct UUIDv7s.
    let ids: std::collections::BTreeSet<&str> = lines
        .iter()
        .map(|l| l["event"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), lines.len());
    for id in ids {
        assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 7);
    }
}

#[test]
fn bpt_log_chunks_are_bounded_indexed_final_and_redacted() {
    let session = "chunks";
    let mut expect = Expected::default();
    let processes = transaction(session, Ending::Apply, &mut expect);
    let lines = run(Dialect::Bpt, session, &processes);
    let redact = redactor();
    let mut by_stream: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for l in lines.iter().filter(|l| l["event"]["type"] == "log.chunk") {
        let p = &l["payload"];
        let content = p["content"].as_str().unwrap();
        assert!(!content.is_empty() && content.chars().count() <= 32_768);
        by_stream
            .entry(p["stream"].as_str().unwrap().into())
            .or_default()
            .push(p);
    }
    for (stream, chunks) in &by_stream {
        let indices: Vec<u64> = chunks
            .iter()
            .map(|p| p["chunkIndex"].as_u64().unwrap())
            .collect();
        assert_eq!(
            indices,
            (0..chunks.len() as u64).collect::<Vec<_>>(),
            "{stream}"
        );
        if stream == "system" {
            continue;
        }
        let text: String = chunks
            .iter()
            .map(|p| p["content"].as_str().unwrap())
            .collect();
        assert_eq!(
            text,
            redact.redact(&expect.raw[stream.as_str()]),
            "{stream}"
        );
        if stream == "stdout" {
            assert!(text.contains("using token [REDACTED] to log in"));
            assert!(text.contains(&format!("{}[REDACTED]\ntest", "x".repeat(32_760))));
        }
    }
    // The failing test's stderr spans more than two chunks; each obligation's stream ends with a
    // chunk marked final, and only there.
    assert!(by_stream["stderr"].len() >= 3);
    let finals = |s: &str| {
        by_stream[s]
            .iter()
            .filter(|p| p["finalChunk"] == true)
            .count()
    };
    assert_eq!(finals("stdout"), 4); // lint, test, lint, test
    assert_eq!(finals("stderr"), 2); // lint and test of the first verification
    assert_eq!(by_stream["stdout"].last().unwrap()["finalChunk"], true);
    // The final chunk comes right before the system line that reports the obligation's end.
    for (i, l) in lines.iter().enumerate() {
        if l["payload"]["finalChunk"] == true {
            let next = &lines[i + 1]["payload"];
            assert!(
                next["stream"] != "system"
                    || next["content"].as_str().unwrap().contains("obligation")
            );
        }
    }
}

#[test]
fn secret_split_across_chunks_never_appears() {
    // The secret straddles the 32768-char chunk boundary and two output pieces, in every dialect.
    let redact = redactor();
    let (head, tail) = SECRET.split_at(7);
    let pieces = [
        format!("{}{head}", "a".repeat(32_765)),
        format!("{tail} done\n"),
    ];
    for dialect in ALL {
        let v = validator(dialect);
        let scope = Scope::new("split");
        let mut counters = EventCounters::default();
        let mut c = Clock(UNIX_EPOCH);
        let mut lines = Vec::new();
        let mut events = vec![ev(
            "split",
            &mut c,
            EventKind::ObligationStarted {
                id: "t".into(),
                run: vec!["true".into()],
                index: 0,
                total: 1,
            },
        )];
        for p in &pieces {
            events.push(ev(
                "split",
                &mut c,
                EventKind::ObligationOutput {
                    id: "t".into(),
                    stream: Stream::Stdout,
                    data: p.clone(),
                },
            ));
        }
        events.push(ev(
            "split",
            &mut c,
            EventKind::ObligationFinished {
                id: "t".into(),
                exit_code: None,
                timed_out: true,
                passed: false,
                seconds: f64::NAN,
                index: 0,
                total: 1,
            },
        ));
        for e in &events {
            lines.extend(render(dialect, &scope, &mut counters, e, &redact));
        }
        let mut joined = String::new();
        for l in &lines {
            assert_valid(&v, dialect, l);
            assert_no_secret(dialect, l);
            if l["type"] == "obligation.output" {
                joined.push_str(l["data"].as_str().unwrap());
            }
            if l["payload"]["stream"] == "stdout" {
                joined.push_str(l["payload"]["content"].as_str().unwrap());
            }
        }
        assert!(!joined.contains(SECRET), "{dialect}");
        if matches!(dialect, Dialect::Genesis | Dialect::Bpt) {
            assert_eq!(
                joined,
                format!("{}[REDACTED] done\n", "a".repeat(32_765)),
                "{dialect}"
            );
        }
    }
}

#[test]
fn orbiplex_digest_is_unpadded_base64url_of_the_hash_bytes() {
    // Expected values computed independently:
    //   python3 -c "import hashlib,base64; h=hashlib.sha256(b'genesis patch text\n').hexdigest();
    //               print(h, base64.urlsafe_b64encode(bytes.fromhex(h)).rstrip(b'='))"
    let h = "02cd750d19661a47234e8032bc23bb46ed527de3f18eb820f76a6a678565f484";
    assert_eq!(hash("genesis patch text\n"), h);
    assert_eq!(
        orbiplex_digest(h).unwrap(),
        "sha256:As11DRlmGkcjToAyvCO7Ru1SfePxjrgg92pqZ4Vl9IQ"
    );
    assert_eq!(
        orbiplex_digest(&"ff".repeat(32)).unwrap(),
        "sha256:__________________________________________8"
    );
    assert_eq!(orbiplex_digest("abc"), None);
    assert_eq!(orbiplex_digest(&"zz".repeat(32)), None);

    let scope = Scope::new("d");
    let mut counters = EventCounters::default();
    let line = render(
        Dialect::Orbiplex,
        &scope,
        &mut counters,
        &Event::now(
            "d",
            EventKind::PatchRecorded {
                index: 0,
                patch: h.into(),
                before: hash("a"),
                after: hash("b"),
                files_changed: 1,
                lines_added: 1,
                lines_removed: 0,
                obligations_ok: true,
            },
        ),
        &Redactor::none(),
    );
    assert_eq!(
        line[0]["action/digest"],
        "sha256:As11DRlmGkcjToAyvCO7Ru1SfePxjrgg92pqZ4Vl9IQ"
    );
}

fn patch_event(session: &str, i: usize) -> Event {
    Event::now(
        session,
        EventKind::PatchRecorded {
            index: i,
            patch: hash(&format!("p{i}")),
            before: hash(&format!("s{i}")),
            after: hash(&format!("s{}", i + 1)),
            files_changed: 1,
            lines_added: 1,
            lines_removed: 1,
            obligations_ok: true,
        },
    )
}

#[test]
fn orbiplex_seq_cap_drops_progress_then_rolls_over_turns() {
    let v = validator(Dialect::Orbiplex);
    let scope = Scope::new("cap");
    let redact = Redactor::none();
    let mut counters = EventCounters::default();
    let mut lines = Vec::new();
    // 1. Progress alone never passes seq/no 960: the rest is dropped.
    for i in 0..600 {
        for kind in [
            EventKind::ObligationStarted {
                id: format!("o{i}"),
                run: vec!["true".into()],
                index: i,
                total: 600,
            },
            EventKind::ObligationFinished {
                id: format!("o{i}"),
                exit_code: Some(0),
                timed_out: false,
                passed: true,
                seconds: 0.0,
                index: i,
                total: 600,
            },
        ] {
            lines.extend(render(
                Dialect::Orbiplex,
                &scope,
                &mut counters,
                &Event::now("cap", kind),
                &redact,
            ));
        }
    }
    assert_eq!(lines.len(), 960);
    assert_eq!(counters.orbiplex.dropped_progress, 1200 - 960);
    assert_eq!(counters.orbiplex.overflowed_turns, 0);
    // 2. Action candidates still fit up to 1023; the one that would take 1024 rolls the turn
    //    over behind an `unknown` / `event-oversized` outcome.
    for i in 0..200 {
        lines.extend(render(
            Dialect::Orbiplex,
            &scope,
            &mut counters,
            &patch_event("cap", i),
            &redact,
        ));
    }
    assert_eq!(counters.orbiplex.overflowed_turns, 1);
    let overflow = lines
        .iter()
        .position(|l| l["kind"] == "turn-outcome")
        .unwrap();
    assert_eq!(overflow, 1023);
    assert_eq!(lines[overflow]["seq/no"], 1024);
    assert_eq!(lines[overflow]["status"], "unknown");
    assert_eq!(lines[overflow]["reason/code"], "event-oversized");
    assert_eq!(lines[overflow]["turn/ref"], "genesis:cap:turn:1");
    assert_eq!(lines[overflow + 1]["seq/no"], 1);
    assert_eq!(lines[overflow + 1]["turn/ref"], "genesis:cap:turn:2");
    assert_eq!(lines[overflow + 1]["kind"], "action-candidate");
    // No action candidate was lost.
    let actions = lines
        .iter()
        .filter(|l| l["kind"] == "action-candidate")
        .count();
    assert_eq!(actions, 200);
    // 3. Progress is admitted again in the new turn, and the real outcome closes it.
    lines.extend(render(
        Dialect::Orbiplex,
        &scope,
        &mut counters,
        &Event::now(
            "cap",
            EventKind::Applied {
                snapshot: hash("s200"),
                files_changed: 1,
            },
        ),
        &redact,
    ));
    let last = lines.last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(last["turn/ref"], "genesis:cap:turn:2");
    for l in &lines {
        assert_valid(&v, Dialect::Orbiplex, l);
        assert!(l["seq/no"].as_u64().unwrap() <= 1024);
    }
    // The counters survive a process restart mid-turn.
    let stored: EventCounters =
        serde_json::from_str(&serde_json::to_string(&counters).unwrap()).unwrap();
    assert_eq!(stored, counters);
}

#[test]
fn orbiplex_failure_codes_map_to_outcomes() {
    let scope = Scope::new("f");
    for (code, status, reason) in [
        (codes::OBLIGATIONS_FAILED, "refused", "policy-denied"),
        (codes::APPLY_CONFLICT, "failed", "binding-stale"),
        (codes::IO_ERROR, "failed", "unknown"),
    ] {
        let mut counters = EventCounters::default();
        let lines = render(
            Dialect::Orbiplex,
            &scope,
            &mut counters,
            &Event::now(
                "f",
                EventKind::Failed {
                    code: code.into(),
                    message: "m".into(),
                    retryable: false,
                },
            ),
            &Redactor::none(),
        );
        assert_eq!(lines[0]["status"], status);
        assert_eq!(lines[0]["reason/code"], reason);
        assert_valid(&validator(Dialect::Orbiplex), Dialect::Orbiplex, &lines[0]);
    }
}

#[test]
fn sink_appends_json_lines_and_keeps_counting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let session = "sink";
    let processes = transaction(session, Ending::Abort, &mut Expected::default());
    let mut counters = EventCounters::default();
    for process in &processes {
        let mut sink = EventSink::new(
            Some(path.clone()),
            Dialect::Bpt,
            Scope::new(session),
            counters.clone(),
        )
        .unwrap()
        .with_redactor(redactor());
        for e in process {
            sink.emit(e).unwrap();
        }
        counters = sink.into_counters();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(SECRET));
    let lines = json_lines(&path);
    let v = validator(Dialect::Bpt);
    for (i, l) in lines.iter().enumerate() {
        assert_valid(&v, Dialect::Bpt, l);
        assert_eq!(l["event"]["sequence"], i as u64 + 1);
    }
    assert_eq!(counters.bpt.sequence, lines.len() as u64);
    assert_eq!(lines.last().unwrap()["payload"]["status"], "CANCELED");
}

#[test]
fn counters_tolerate_missing_fields() {
    let c: EventCounters = serde_json::from_str(r#"{"bpt":{"sequence":41}}"#).unwrap();
    assert_eq!(c.bpt.sequence, 41);
    assert_eq!(c.aps.seq, 0);
    let c: EventCounters = serde_json::from_str("{}").unwrap();
    assert_eq!(c, EventCounters::default());
}

#[test]
fn worktree_path_and_messages_are_redacted_everywhere() {
    let redact = Redactor::new(vec!["/home/alice".into()]);
    for dialect in ALL {
        let v = validator(dialect);
        let mut counters = EventCounters::default();
        let scope = Scope::new("r");
        for kind in [
            EventKind::WorkspaceReady {
                path: "/home/alice/work".into(),
            },
            EventKind::Diagnostic {
                code: "note".into(),
                message: "cache at /home/alice/.cache".into(),
                retryable: false,
            },
            EventKind::Aborted {
                reason: "moved to /home/alice".into(),
            },
        ] {
            for l in render(
                dialect,
                &scope,
                &mut counters,
                &Event::now("r", kind),
                &redact,
            ) {
                assert_valid(&v, dialect, &l);
                assert!(!l.to_string().contains("/home/alice"), "{dialect}: {l}");
            }
        }
    }
}

#[test]
fn validators_reject_broken_lines() {
    // Proves the validators are strict: format validation is on, and extra fields are refused.
    let cases: [(Dialect, &str, Value); 4] = [
        (Dialect::Genesis, "/time", "yesterday".into()),
        (
            Dialect::Bpt,
            "/event/occurredAt",
            "2026-13-45T99:00:00Z".into(),
        ),
        (Dialect::Orbiplex, "/at", "not a date".into()),
        (Dialect::Aps, "/data/extra", true.into()),
    ];
    for (dialect, pointer, bad) in cases {
        let v = validator(dialect);
        let mut counters = EventCounters::default();
        let kind = EventKind::Failed {
            code: codes::APPLY_CONFLICT.into(),
            message: "src/main.rs changed".into(),
            retryable: false,
        };
        let mut line = render(
            dialect,
            &Scope::new("x"),
            &mut counters,
            &Event::now("x", kind),
            &Redactor::none(),
        )
        .remove(0);
        assert_valid(&v, dialect, &line);
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let target = if parent.is_empty() {
            &mut line
        } else {
            line.pointer_mut(parent).unwrap()
        };
        target[key] = bad;
        assert!(!v.is_valid(&line), "{dialect} accepted {line}");
    }
}
