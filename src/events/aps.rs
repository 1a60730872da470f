//! APS agent PlatformEvents v1 (seed 003), in the envelope of `schemas/aps-envelope.schema.json`.
//!
//! The seed refers to `envelope.schema.json`, which was not provided; ours assumes this envelope
//! (see the README): `{ "v": 1, "eventId": UUIDv7, "sessionId", "runId", "seq": 1, 2, …,
//! "ts": epoch milliseconds, "type", "data" }`, and an execution `status` of `running`,
//! `verified`, `succeeded`, `failed`, `timed_out` or `cancelled`.
//!
//! | Genesis event | APS lines |
//! |---|---|
//! | `SessionOpened` | `run.state` `running` + `execution.updated` (session, `running`) |
//! | `WorkspaceReady` | — |
//! | `PatchRecorded` | (`approval.resolved` `expired` if an approval was pending: its revision changed) + `tool.call` `genesis.patch` (`argsDigest` = `sha256:` + patch hash) + `tool.result` `succeeded` |
//! | `ObligationStarted` | `tool.call` `genesis.obligation` (`argsDigest` = `sha256:` + hex SHA-256 of the redacted `{"id":…,"run":[…]}`) |
//! | `ObligationOutput` | — (APS carries no command output) |
//! | `ObligationFinished` | `tool.result` `succeeded` / `failed` / `timed_out` |
//! | `Verified` | `execution.updated` (session, `verified`, or `failed` with `errorKind` `obligations-failed`) |
//! | `ApprovalNeeded` | (`approval.resolved` `expired` for a stale one) + `approval.requested` `genesis.apply`: `paramsDigest` = snapshot identity, `revision` = patches, `impactSummary`, `expiresAt` = time + `Scope::approval_ttl` (epoch ms) |
//! | `Applied` | (`approval.resolved` `approved`) + `execution.updated` `succeeded` + `run.state` `idle` |
//! | `Aborted` | (`approval.resolved` `rejected`) + `execution.updated` `cancelled` + `run.state` `cancelled` |
//! | `Failed` | `error` (`errorKind` `failed`) + `execution.updated` `failed` (`errorKind` = code) + `run.state` `idle` |
//! | `Diagnostic` | `error` (`errorKind` `diagnostic`) |

use serde_json::{Value, json};

use super::{
    Event, EventCounters, EventKind, Redactor, Scope, epoch_millis, redact_value,
    sha256_hex_digest, uuid7,
};

pub const CAP_PATCH: &str = "genesis.patch";
pub const CAP_OBLIGATION: &str = "genesis.obligation";
pub const CAP_APPLY: &str = "genesis.apply";

fn execution(id: &str, status: &str, error_kind: Option<&str>) -> (&'static str, Value) {
    let mut data = json!({ "executionId": id, "status": status });
    if let Some(kind) = error_kind {
        data["errorKind"] = kind.into();
    }
    ("execution.updated", data)
}

fn run_state(state: &str) -> (&'static str, Value) {
    ("run.state", json!({ "state": state }))
}

fn resolved(pending: &mut Option<String>, decision: &str) -> Option<(&'static str, Value)> {
    pending.take().map(|id| {
        (
            "approval.resolved",
            json!({ "approvalId": id, "decision": decision }),
        )
    })
}

fn error(code: &str, message: &str, retryable: bool, kind: &str) -> (&'static str, Value) {
    (
        "error",
        json!({ "code": code, "message": message, "retryable": retryable, "errorKind": kind }),
    )
}

pub(super) fn render(
    scope: &Scope,
    counters: &mut EventCounters,
    event: &Event,
    redact: &Redactor,
) -> Vec<Value> {
    let aps = &mut counters.aps;
    let session = event.session.as_str();
    let mut lines: Vec<(&'static str, Value)> = Vec::new();
    match &event.kind {
        EventKind::SessionOpened { .. } => {
            lines.push(run_state("running"));
            lines.push(execution(session, "running", None));
        }
        EventKind::WorkspaceReady { .. } | EventKind::ObligationOutput { .. } => {}
        EventKind::PatchRecorded { index, patch, .. } => {
            lines.extend(resolved(&mut aps.pending_approval, "expired"));
            let call = format!("{session}:patch:{index}");
            lines.push((
                "tool.call",
                json!({
                    "callId": call, "capabilityId": CAP_PATCH, "argsDigest": format!("sha256:{patch}"),
                }),
            ));
            lines.push((
                "tool.result",
                json!({ "callId": call, "executionId": call, "status": "succeeded" }),
            ));
        }
        EventKind::ObligationStarted { id, run, .. } => {
            let call = uuid7();
            aps.open_calls.insert(id.clone(), call.clone());
            let args = json!({ "id": redact.redact(id), "run": run.iter().map(|a| redact.redact(a)).collect::<Vec<_>>() });
            lines.push((
                "tool.call",
                json!({
                    "callId": call,
                    "capabilityId": CAP_OBLIGATION,
                    "argsDigest": sha256_hex_digest(args.to_string().as_bytes()),
                }),
            ));
        }
        EventKind::ObligationFinished {
            id,
            timed_out,
            passed,
            ..
        } => {
            let call = aps.open_calls.remove(id).unwrap_or_else(uuid7);
            let status = if *timed_out {
                "timed_out"
            } else if *passed {
                "succeeded"
            } else {
                "failed"
            };
            lines.push((
                "tool.result",
                json!({ "callId": call, "executionId": call, "status": status }),
            ));
        }
        EventKind::Verified { obligations_ok, .. } => {
            lines.push(if *obligations_ok {
                execution(session, "verified", None)
            } else {
                execution(session, "failed", Some(super::codes::OBLIGATIONS_FAILED))
            });
        }
        EventKind::ApprovalNeeded {
            snapshot,
            patches,
            files_changed,
            lines_added,
            lines_removed,
        } => {
            lines.extend(resolved(&mut aps.pending_approval, "expired"));
            let id = uuid7();
            aps.pending_approval = Some(id.clone());
            let ttl = i64::try_from(scope.approval_ttl.as_millis()).unwrap_or(i64::MAX);
            lines.push((
                "approval.requested",
                json!({
                    "approvalId": id,
                    "capabilityId": CAP_APPLY,
                    "paramsDigest": snapshot,
                    "impactSummary": format!(
                        "{files_changed} file(s) changed, {lines_added} line(s) added, \
                         {lines_removed} line(s) removed"
                    ),
                    "revision": patches,
                    "expiresAt": epoch_millis(event.time).saturating_add(ttl),
                }),
            ));
        }
        EventKind::Applied { .. } => {
            lines.extend(resolved(&mut aps.pending_approval, "approved"));
            lines.push(execution(session, "succeeded", None));
            lines.push(run_state("idle"));
        }
        EventKind::Aborted { .. } => {
            lines.extend(resolved(&mut aps.pending_approval, "rejected"));
            lines.push(execution(session, "cancelled", None));
            lines.push(run_state("cancelled"));
        }
        EventKind::Failed {
            code,
            message,
            retryable,
        } => {
            lines.push(error(code, message, *retryable, "failed"));
            lines.push(execution(session, "failed", Some(code)));
            lines.push(run_state("idle"));
        }
        EventKind::Diagnostic {
            code,
            message,
            retryable,
        } => lines.push(error(code, message, *retryable, "diagnostic")),
    }

    let ts = epoch_millis(event.time);
    lines
        .into_iter()
        .map(|(kind, data)| {
            aps.seq += 1;
            let mut v = json!({
                "v": 1,
                "eventId": uuid7(),
                "sessionId": session,
                "runId": scope.execution_id,
                "seq": aps.seq,
                "ts": ts,
                "type": kind,
                "data": data,
            });
            redact_value(&mut v, redact, &[]);
            v
        })
        .collect()
}
