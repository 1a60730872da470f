//! Block Play Table A2A execution events v1 (seed 000, `kind: bpt.execution.event`).
//!
//! | Genesis event | BPT lines |
//! |---|---|
//! | `SessionOpened` | `execution.accepted` |
//! | `WorkspaceReady` | `workspace.ready` with `runtime.worktreePath` |
//! | `PatchRecorded` | (`interaction.resolved` `CANCEL` if an approval was pending: its target changed) + `log.chunk` on `system` describing the patch |
//! | `ObligationStarted` | `log.chunk` on `system`: `$ argv` |
//! | `ObligationOutput` | `log.chunk` on `stdout` / `stderr` |
//! | `ObligationFinished` | the held-back `log.chunk`s with `finalChunk: true` + `log.chunk` on `system`: the outcome |
//! | `Verified` | `result.updated`, `result` = the verification summary as JSON text |
//! | `ApprovalNeeded` | `interaction.requested` `FILE_APPROVAL` |
//! | `Applied` | (`interaction.resolved` `APPROVE`) + `execution.terminal` `COMPLETED` |
//! | `Aborted` | (`interaction.resolved` `DENY`, or `CANCEL` when the reason starts with CANCEL) + `execution.terminal` `CANCELED` |
//! | `Failed` | `execution.diagnostic` + `execution.terminal` `FAILED` |
//! | `Diagnostic` | `execution.diagnostic` |
//!
//! `event.sequence` is 1, 2, 3, … over the whole execution (all processes); `chunkIndex` counts
//! per stream (`stdout`, `stderr`, `system`) over the whole execution and is never reused.

use serde_json::{Value, json};

use super::{
    Chunk, Dialect, Event, EventCounters, EventKind, Redactor, Scope, clip, next_index,
    redact_value, rfc3339, seconds, shell_words, stream_push, streams_finish, uuid7,
};

const TEXT_MAX: usize = 16_777_216;
const CODE_MAX: usize = 256;
const ID_MAX: usize = 256;
const PATH_MAX: usize = 8192;
const TITLE_MAX: usize = 4096;

/// One line before numbering: event type, payload, runtime.
struct Line {
    kind: &'static str,
    payload: Value,
    runtime: Option<Value>,
}

fn line(kind: &'static str, payload: Value) -> Line {
    Line {
        kind,
        payload,
        runtime: None,
    }
}

fn log(chunk: Chunk) -> Line {
    let mut payload = json!({
        "stream": chunk.stream.as_str(),
        "content": chunk.content,
        "chunkIndex": chunk.index,
    });
    if chunk.last {
        payload["finalChunk"] = true.into();
    }
    line("log.chunk", payload)
}

/// A `system` log line. Its content is redacted here, since `content` is exempt from the final
/// redaction pass (stream chunks are redacted with their carry-over instead).
fn system(
    chunk_index: &mut std::collections::BTreeMap<String, u64>,
    redact: &Redactor,
    text: String,
) -> Line {
    line(
        "log.chunk",
        json!({
            "stream": "system",
            "content": clip(&redact.redact(&text), super::CHUNK_MAX_CHARS),
            "chunkIndex": next_index(chunk_index, "system"),
        }),
    )
}

fn resolved(pending: &mut Option<String>, decision: &str) -> Option<Line> {
    pending.take().map(|id| {
        line(
            "interaction.resolved",
            json!({ "interactionId": id, "kind": "FILE_APPROVAL", "decision": decision }),
        )
    })
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

pub(super) fn render(
    scope: &Scope,
    counters: &mut EventCounters,
    event: &Event,
    redact: &Redactor,
) -> Vec<Value> {
    let EventCounters { bpt, streams, .. } = counters;
    let mut lines: Vec<Line> = Vec::new();
    match &event.kind {
        EventKind::SessionOpened { .. } => lines.push(line("execution.accepted", json!({}))),
        EventKind::WorkspaceReady { path } => {
            let mut path = clip(&path.to_string_lossy(), PATH_MAX);
            if path.is_empty() {
                path = ".".into();
            }
            lines.push(Line {
                kind: "workspace.ready",
                payload: json!({}),
                runtime: Some(json!({ "worktreePath": path })),
            });
        }
        EventKind::PatchRecorded {
            index,
            patch,
            before,
            after,
            files_changed,
            lines_added,
            lines_removed,
            obligations_ok,
        } => {
            lines.extend(resolved(&mut bpt.pending_interaction, "CANCEL"));
            let text = format!(
                "genesis: patch {} recorded ({patch}): {} -> {}, {files_changed} file(s) changed, \
                 +{lines_added} -{lines_removed}, static obligations {}",
                index + 1,
                short(before),
                short(after),
                if *obligations_ok { "ok" } else { "failed" },
            );
            lines.push(system(&mut bpt.chunk_index, redact, text));
        }
        EventKind::ObligationStarted {
            id,
            run,
            index,
            total,
        } => {
            let flushed = streams_finish(streams, &mut bpt.chunk_index, Dialect::Bpt, redact);
            lines.extend(flushed.into_iter().map(log));
            let text = format!(
                "genesis: obligation {id} ({}/{total}): $ {}",
                index + 1,
                shell_words(run)
            );
            lines.push(system(&mut bpt.chunk_index, redact, text));
        }
        EventKind::ObligationOutput { id, stream, data } => {
            let chunks = stream_push(
                streams,
                &mut bpt.chunk_index,
                Dialect::Bpt,
                id,
                *stream,
                data,
                redact,
            );
            lines.extend(chunks.into_iter().map(log));
        }
        EventKind::ObligationFinished {
            id,
            exit_code,
            timed_out,
            passed,
            seconds: secs,
            index,
            total,
        } => {
            let flushed = streams_finish(streams, &mut bpt.chunk_index, Dialect::Bpt, redact);
            lines.extend(flushed.into_iter().map(log));
            let status = match exit_code {
                Some(code) => format!("exit status {code}"),
                None => "no exit status".to_string(),
            };
            let verdict = if *timed_out {
                "timed out"
            } else if *passed {
                "passed"
            } else {
                "failed"
            };
            let text = format!(
                "genesis: obligation {id} ({}/{total}) {verdict}: {status}, {:.3} s",
                index + 1,
                seconds(*secs)
            );
            lines.push(system(&mut bpt.chunk_index, redact, text));
        }
        EventKind::Verified {
            snapshot,
            acceptance,
            obligations_ok,
            files_changed,
            lines_added,
            lines_removed,
            patches,
        } => {
            let summary = json!({
                "snapshot": snapshot, "acceptance": acceptance, "obligations_ok": obligations_ok,
                "patches": patches, "files_changed": files_changed,
                "lines_added": lines_added, "lines_removed": lines_removed,
            });
            lines.push(line(
                "result.updated",
                json!({ "result": summary.to_string() }),
            ));
        }
        EventKind::ApprovalNeeded {
            snapshot,
            patches,
            files_changed,
            lines_added,
            lines_removed,
        } => {
            lines.extend(resolved(&mut bpt.pending_interaction, "CANCEL"));
            let id = clip(&format!("genesis-apply:{patches}:{snapshot}"), ID_MAX);
            bpt.pending_interaction = Some(id.clone());
            let body = format!(
                "Session {} is verified: {patches} patch(es), {files_changed} file(s) changed, \
                 +{lines_added} -{lines_removed}, snapshot {snapshot}. Approve to apply it to \
                 the workspace.",
                event.session
            );
            let payload = json!({
                "session": event.session, "snapshot": snapshot, "patches": patches,
                "files_changed": files_changed, "lines_added": lines_added,
                "lines_removed": lines_removed,
            });
            lines.push(line(
                "interaction.requested",
                json!({
                    "interactionId": id,
                    "kind": "FILE_APPROVAL",
                    "title": clip(&format!("Apply {files_changed} changed file(s) to the workspace?"), TITLE_MAX),
                    "body": clip(&body, TEXT_MAX),
                    "payload": payload.to_string(),
                }),
            ));
        }
        EventKind::Applied {
            snapshot,
            files_changed,
        } => {
            lines.extend(resolved(&mut bpt.pending_interaction, "APPROVE"));
            let result = json!({ "snapshot": snapshot, "files_changed": files_changed });
            lines.push(line(
                "execution.terminal",
                json!({ "status": "COMPLETED", "result": result.to_string() }),
            ));
        }
        EventKind::Aborted { reason } => {
            // An abort answers a pending approval: CANCEL when the runtime cancelled it,
            // DENY otherwise.
            let decision = if reason.starts_with("CANCEL") {
                "CANCEL"
            } else {
                "DENY"
            };
            lines.extend(resolved(&mut bpt.pending_interaction, decision));
            let mut payload = json!({ "status": "CANCELED" });
            if !reason.is_empty() {
                payload["message"] = clip(reason, TEXT_MAX).into();
            }
            lines.push(line("execution.terminal", payload));
        }
        EventKind::Failed {
            code,
            message,
            retryable,
        } => {
            lines.push(diagnostic(code, message, *retryable));
            lines.push(line(
                "execution.terminal",
                json!({
                    "status": "FAILED",
                    "errorCode": clip(code, CODE_MAX),
                    "message": clip(message, TEXT_MAX),
                }),
            ));
        }
        EventKind::Diagnostic {
            code,
            message,
            retryable,
        } => lines.push(diagnostic(code, message, *retryable)),
    }

    let occurred_at = rfc3339(event.time);
    let scope_json = json!({
        "localTaskId": scope.local_task_id,
        "executionId": scope.execution_id,
        "attempt": scope.attempt.max(1),
        "turn": scope.turn.max(1),
        "workerId": scope.worker_id,
    });
    lines
        .into_iter()
        .map(|l| {
            bpt.sequence += 1;
            let mut v = json!({
                "kind": "bpt.execution.event",
                "version": "1.0",
                "event": {
                    "id": uuid7(),
                    "sequence": bpt.sequence,
                    "type": l.kind,
                    "occurredAt": occurred_at,
                },
                "scope": scope_json,
                "payload": l.payload,
            });
            if let Some(runtime) = l.runtime {
                v["runtime"] = runtime;
            }
            redact_value(&mut v, redact, &["content"]);
            v
        })
        .collect()
}

fn diagnostic(code: &str, message: &str, retryable: bool) -> Line {
    line(
        "execution.diagnostic",
        json!({
            "errorCode": clip(code, CODE_MAX),
            "message": clip(message, TEXT_MAX),
            "retryable": retryable,
        }),
    )
}
