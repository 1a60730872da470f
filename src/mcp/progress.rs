//! How a running `verify` reaches the MCP client: an [`Observer`] on the blocking thread that
//! turns the obligation callbacks into [`Notice`]s on a channel (the server's request task
//! sends them as `notifications/message` and, when the client gave a progress token,
//! `notifications/progress`), and that carries the call's cancellation flag into the engine
//! ([`Observer::cancel_flag`]).
//!
//! The output pieces are the ones [`crate::events::run_obligation`] hands every observer:
//! decoded and redacted there, as the event streams are, so nothing here sees a secret.

// MCP logging is deprecated from protocol 2026-07-28 on (SEP-2577); clients of the earlier
// versions still show it, and `logging/setLevel` asks for it.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use rmcp::model::LoggingLevel;

use crate::engine::Observer;
use crate::events::Stream;
use crate::obligation::CommandResult;

/// One thing to tell the client while a tool runs.
#[derive(Debug, Clone)]
pub struct Notice {
    /// The log message's data: `{"obligation", "event": "started"|"output"|"finished", …}`.
    pub data: Value,
    /// A short description for a progress notification: what happened, or the output text.
    pub message: String,
    /// Its logging level: `info` for a start, output and a pass, `warning` for an obligation
    /// that failed, timed out or was cancelled.
    pub level: LoggingLevel,
}

/// The observer of one `verify` call.
pub struct Forwarder {
    tx: UnboundedSender<Notice>,
    cancel: Arc<AtomicBool>,
}

impl Forwarder {
    /// Notices go to `tx`; the engine stops the running obligation when `cancel` is set.
    pub fn new(tx: UnboundedSender<Notice>, cancel: Arc<AtomicBool>) -> Self {
        Forwarder { tx, cancel }
    }

    fn send(&self, notice: Notice) {
        // The request task has gone only when the call is over: nothing to tell then.
        let _ = self.tx.send(notice);
    }
}

impl Observer for Forwarder {
    fn wants_events(&self) -> bool {
        false
    }

    fn obligation_started(&mut self, id: &str, run: &[String], index: usize, total: usize) {
        self.send(Notice {
            data: json!({"obligation": id, "event": "started", "run": run, "index": index, "total": total}),
            message: format!("obligation {id}: running ({} of {total})", index + 1),
            level: LoggingLevel::Info,
        });
    }

    fn obligation_output(&mut self, id: &str, stream: Stream, text: &str) {
        self.send(Notice {
            data: json!({"obligation": id, "event": "output", "stream": stream.as_str(), "text": text}),
            message: text.to_owned(),
            level: LoggingLevel::Info,
        });
    }

    fn obligation_finished(&mut self, r: &CommandResult, index: usize, total: usize) {
        let id = &r.obligation.id;
        self.send(Notice {
            data: json!({
                "obligation": id,
                "event": "finished",
                "passed": r.passed(),
                "exit_code": r.exit_code,
                "timed_out": r.timed_out,
                "cancelled": r.interrupted,
                "seconds": r.seconds,
            }),
            message: format!(
                "obligation {id} ({} of {total}): {}",
                index + 1,
                if r.passed() {
                    "passed"
                } else if r.interrupted {
                    "cancelled"
                } else if r.timed_out {
                    "timed out"
                } else {
                    "failed"
                }
            ),
            level: if r.passed() {
                LoggingLevel::Info
            } else {
                LoggingLevel::Warning
            },
        });
    }

    fn cancel_flag(&self) -> Option<Arc<AtomicBool>> {
        Some(self.cancel.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_an_obligation_says_how_it_ended() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut f = Forwarder::new(tx, Arc::default());
        let r = CommandResult {
            obligation: crate::manifest::Obligation {
                id: "test".into(),
                run: vec!["true".into()],
                timeout_s: 5,
            },
            exit_code: Some(0),
            timed_out: false,
            interrupted: false,
            stdout: Vec::new(),
            stderr: Vec::new(),
            seconds: 0.0,
        };
        let cases = [
            (r.clone(), "passed"),
            (
                CommandResult {
                    exit_code: None,
                    interrupted: true,
                    ..r.clone()
                },
                "cancelled",
            ),
            (
                CommandResult {
                    exit_code: None,
                    timed_out: true,
                    ..r.clone()
                },
                "timed out",
            ),
            (
                CommandResult {
                    exit_code: Some(1),
                    ..r
                },
                "failed",
            ),
        ];
        for (r, says) in cases {
            f.obligation_finished(&r, 0, 1);
            let n = rx.try_recv().unwrap();
            assert_eq!(n.message, format!("obligation test (1 of 1): {says}"));
        }
    }
}
