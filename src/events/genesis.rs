//! Genesis's own dialect: one flat JSON object per event, `schemas/genesis-event-v0.1.schema.json`.
//!
//! Every line has `schema` (`genesis/event-v0.1`), `seq` (1, 2, … per session, across
//! processes), `session`, `time` (RFC 3339, UTC) and `type`, then the event's fields in
//! snake_case. Obligation output is redacted per stream, cut into chunks of at most
//! [`super::CHUNK_MAX_CHARS`] characters with a per-stream `chunk_index`, the last chunk of an
//! obligation's stream marked `final: true`.

use serde_json::{Map, Value, json};

use super::{
    Chunk, Dialect, Event, EventCounters, EventKind, Redactor, Scope, redact_value, rfc3339,
    seconds, stream_push, streams_finish,
};

pub const SCHEMA: &str = "genesis/event-v0.1";

pub(super) fn render(
    _scope: &Scope,
    counters: &mut EventCounters,
    event: &Event,
    redact: &Redactor,
) -> Vec<Value> {
    let EventCounters {
        genesis, streams, ..
    } = counters;
    let mut bodies: Vec<(&'static str, Value)> = Vec::new();
    let output = |chunk: Chunk| {
        (
            "obligation.output",
            json!({
                "obligation": chunk.owner,
                "stream": chunk.stream.as_str(),
                "data": chunk.content,
                "chunk_index": chunk.index,
                "final": chunk.last,
            }),
        )
    };
    match &event.kind {
        EventKind::SessionOpened { base_snapshot } => {
            bodies.push(("session.opened", json!({ "base_snapshot": base_snapshot })));
        }
        EventKind::WorkspaceReady { path } => {
            let path = path.to_string_lossy();
            let path = if path.is_empty() { "." } else { &path };
            bodies.push(("workspace.ready", json!({ "path": path })));
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
        } => bodies.push((
            "patch.recorded",
            json!({
                "index": index, "patch": patch, "before": before, "after": after,
                "files_changed": files_changed, "lines_added": lines_added,
                "lines_removed": lines_removed, "obligations_ok": obligations_ok,
            }),
        )),
        EventKind::ObligationStarted {
            id,
            run,
            index,
            total,
        } => {
            // Output left over from an obligation that never reported its end.
            for chunk in streams_finish(streams, &mut genesis.chunk_index, Dialect::Genesis, redact)
            {
                bodies.push(output(chunk));
            }
            bodies.push((
                "obligation.started",
                json!({ "obligation": id, "run": run, "index": index, "total": total }),
            ));
        }
        EventKind::ObligationOutput { id, stream, data } => {
            for chunk in stream_push(
                streams,
                &mut genesis.chunk_index,
                Dialect::Genesis,
                id,
                *stream,
                data,
                redact,
            ) {
                bodies.push(output(chunk));
            }
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
            for chunk in streams_finish(streams, &mut genesis.chunk_index, Dialect::Genesis, redact)
            {
                bodies.push(output(chunk));
            }
            bodies.push((
                "obligation.finished",
                json!({
                    "obligation": id, "exit_code": exit_code, "timed_out": timed_out,
                    "passed": passed, "seconds": seconds(*secs), "index": index, "total": total,
                }),
            ));
        }
        EventKind::Verified {
            snapshot,
            acceptance,
            obligations_ok,
            files_changed,
            lines_added,
            lines_removed,
            patches,
        } => bodies.push((
            "session.verified",
            json!({
                "snapshot": snapshot, "acceptance": acceptance, "obligations_ok": obligations_ok,
                "files_changed": files_changed, "lines_added": lines_added,
                "lines_removed": lines_removed, "patches": patches,
            }),
        )),
        EventKind::ApprovalNeeded {
            snapshot,
            patches,
            files_changed,
            lines_added,
            lines_removed,
        } => bodies.push((
            "approval.needed",
            json!({
                "snapshot": snapshot, "patches": patches, "files_changed": files_changed,
                "lines_added": lines_added, "lines_removed": lines_removed,
            }),
        )),
        EventKind::Applied {
            snapshot,
            files_changed,
        } => bodies.push((
            "session.applied",
            json!({ "snapshot": snapshot, "files_changed": files_changed }),
        )),
        EventKind::Aborted { reason } => {
            bodies.push(("session.aborted", json!({ "reason": reason })));
        }
        EventKind::Failed {
            code,
            message,
            retryable,
        } => bodies.push((
            "session.failed",
            json!({ "code": code, "message": message, "retryable": retryable }),
        )),
        EventKind::Diagnostic {
            code,
            message,
            retryable,
        } => bodies.push((
            "diagnostic",
            json!({ "code": code, "message": message, "retryable": retryable }),
        )),
    }

    let time = rfc3339(event.time);
    bodies
        .into_iter()
        .map(|(kind, body)| {
            genesis.seq += 1;
            let mut line = Map::new();
            line.insert("schema".into(), SCHEMA.into());
            line.insert("seq".into(), genesis.seq.into());
            line.insert("session".into(), event.session.clone().into());
            line.insert("time".into(), time.clone().into());
            line.insert("type".into(), kind.into());
            if let Value::Object(fields) = body {
                line.extend(fields);
            }
            let mut line = Value::Object(line);
            redact_value(&mut line, redact, &["data"]);
            line
        })
        .collect()
}
