//! Orbiplex agent external-runtime events v1 (seed 002, `agent.external-runtime.event.v1`).
//!
//! | Genesis event | Orbiplex lines |
//! |---|---|
//! | `SessionOpened` | `progress` `accepted`, current 0 |
//! | `WorkspaceReady` | — |
//! | `PatchRecorded` | `action-candidate`: `action/schema` = [`Scope::action_schema`], `action/digest` = `sha256:` + unpadded base64url of the patch hash's 32 bytes (none if the hash is not 64 hex digits) |
//! | `ObligationStarted` | `progress` `running`, current = index, total |
//! | `ObligationOutput` | — (Orbiplex has no log stream) |
//! | `ObligationFinished` | `progress` `running`, current = index + 1, total |
//! | `Verified` | `product-candidate`: the 004 verification record as JSON text, `output-schema/ref` = `genesis/agent-transaction-v0.1#/$defs/verification` |
//! | `ApprovalNeeded` | `progress` `awaiting-observation`, current 0 |
//! | `Applied` | `turn-outcome` `completed` / `completed` |
//! | `Aborted` | `turn-outcome` `cancelled` / `cancelled` |
//! | `Failed` | `turn-outcome` per [`outcome_for`] |
//! | `Diagnostic` | — |
//!
//! **Turns and the `seq/no` cap.** `seq/no` runs 1..=1024 within a turn. A `turn-outcome` closes
//! the turn; the next line opens turn `Scope::turn + turns_closed` at `seq/no` 1
//! (`turn/ref` = `genesis:<session>:turn:<n>`). When a turn fills up:
//! 1. `progress` lines are dropped once `seq/no` would pass [`PROGRESS_LIMIT`] (counted in
//!    `OrbiplexCounters::dropped_progress`): progress is advisory, and dropping it first keeps
//!    the room for lines that carry results;
//! 2. a non-progress line that would take the last number, 1024, instead finds a `turn-outcome`
//!    `unknown` / `event-oversized` there, closing the overflowing turn (counted in
//!    `overflowed_turns`), and itself opens the next turn at `seq/no` 1. So every turn ends with
//!    exactly one `turn-outcome`, and no line is lost except progress.

use serde_json::{Value, json};

use super::{
    Event, EventCounters, EventKind, Redactor, Scope, codes, orbiplex_digest, redact_value,
    rfc3339, uuid7,
};

pub const SCHEMA: &str = "agent.external-runtime.event.v1";
/// The largest `seq/no` the schema allows in one turn.
pub const SEQ_MAX: u32 = 1024;
/// `progress` lines are dropped rather than take a `seq/no` above this.
pub const PROGRESS_LIMIT: u32 = SEQ_MAX - 64;
const REF_MAX: usize = 512;
const CONTENT_MAX: usize = 1_048_576;

/// Orbiplex `status` and `reason/code` of a `turn-outcome` for a Genesis failure code.
pub fn outcome_for(code: &str) -> (&'static str, &'static str) {
    match code {
        // The project's obligations said no to the change.
        codes::OBLIGATIONS_FAILED => ("refused", "policy-denied"),
        // The workspace changed under the session: its binding to the base is stale.
        codes::APPLY_CONFLICT => ("failed", "binding-stale"),
        _ => ("failed", "unknown"),
    }
}

fn progress(code: &str, current: usize, total: Option<usize>) -> Value {
    let mut v = json!({ "kind": "progress", "progress/code": code, "progress/current": current });
    if let Some(total) = total.filter(|&t| t >= 1) {
        v["progress/total"] = total.into();
        v["progress/current"] = current.min(total).into();
    }
    v
}

fn outcome(status: &str, reason: &str) -> Value {
    json!({ "kind": "turn-outcome", "status": status, "reason/code": reason })
}

pub(super) fn render(
    scope: &Scope,
    counters: &mut EventCounters,
    event: &Event,
    redact: &Redactor,
) -> Vec<Value> {
    let orb = &mut counters.orbiplex;
    let mut bodies: Vec<Value> = Vec::new();
    match &event.kind {
        EventKind::SessionOpened { .. } => bodies.push(progress("accepted", 0, None)),
        EventKind::WorkspaceReady { .. }
        | EventKind::ObligationOutput { .. }
        | EventKind::Diagnostic { .. } => {}
        EventKind::PatchRecorded { patch, .. } => {
            if let Some(digest) = orbiplex_digest(patch) {
                bodies.push(json!({
                    "kind": "action-candidate",
                    "action/schema": scope.action_schema,
                    "action/digest": digest,
                }));
            }
        }
        EventKind::ObligationStarted { index, total, .. } => {
            bodies.push(progress("running", *index, Some(*total)));
        }
        EventKind::ObligationFinished { index, total, .. } => {
            bodies.push(progress("running", index + 1, Some(*total)));
        }
        EventKind::Verified {
            snapshot,
            acceptance,
            obligations_ok,
            ..
        } => {
            let record = json!({
                "snapshot": snapshot, "acceptance": acceptance, "obligations_ok": obligations_ok,
            });
            bodies.push(json!({
                "kind": "product-candidate",
                "content": super::clip(&redact.redact(&record.to_string()), CONTENT_MAX),
                "output-schema/ref": Scope::VERIFICATION_SCHEMA,
            }));
        }
        EventKind::ApprovalNeeded { .. } => bodies.push(progress("awaiting-observation", 0, None)),
        EventKind::Applied { .. } => bodies.push(outcome("completed", "completed")),
        EventKind::Aborted { .. } => bodies.push(outcome("cancelled", "cancelled")),
        EventKind::Failed { code, .. } => {
            let (status, reason) = outcome_for(code);
            bodies.push(outcome(status, reason));
        }
    }

    let at = rfc3339(event.time);
    let mut lines = Vec::new();
    let mut place = |orb: &mut super::OrbiplexCounters, body: Value| {
        orb.seq += 1;
        let turn = u64::from(scope.turn.max(1)) + orb.turns_closed;
        let mut v = json!({
            "schema": SCHEMA,
            "event/ref": uuid7(),
            "turn/ref": super::clip(&format!("genesis:{}:turn:{turn}", event.session), REF_MAX),
            "seq/no": orb.seq,
            "at": at,
        });
        let closes = body["kind"] == "turn-outcome";
        if let (Value::Object(line), Value::Object(fields)) = (&mut v, body) {
            line.extend(fields);
        }
        redact_value(&mut v, redact, &["content"]);
        lines.push(v);
        if closes {
            orb.turns_closed += 1;
            orb.seq = 0;
        }
    };
    for body in bodies {
        match body["kind"].as_str() {
            Some("progress") if orb.seq + 1 > PROGRESS_LIMIT => orb.dropped_progress += 1,
            Some("progress") | Some("turn-outcome") => place(orb, body),
            _ => {
                if orb.seq + 1 >= SEQ_MAX {
                    orb.overflowed_turns += 1;
                    place(orb, outcome("unknown", "event-oversized"));
                }
                place(orb, body);
            }
        }
    }
    lines
}
