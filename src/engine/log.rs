//! `log` (DESIGN section 5): what the obligations of a session's last verification printed,
//! from its acceptance record (exit status, verdict) and the logs verify kept beside it
//! (standard output and error as store objects, duration).

use super::*;

/// One obligation of the last verification.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ObligationReport {
    /// The obligation id.
    pub id: String,
    /// Its argv.
    pub run: Vec<String>,
    /// Exit code, `None` when killed (by a signal or the timeout).
    pub exit_code: Option<i32>,
    /// Killed at its timeout.
    pub timed_out: bool,
    /// Passed (exit 0, not timed out).
    pub passed: bool,
    /// Wall-clock seconds it ran; `None` when the log was not kept (see `stdout`).
    pub seconds: Option<f64>,
    /// Its standard output (redacted as stored, cut at the obligation log limit); `None` when
    /// the log of this run is not in the session state.
    #[serde(skip)]
    pub stdout: Option<Vec<u8>>,
    /// Its standard error, as `stdout`.
    #[serde(skip)]
    pub stderr: Option<Vec<u8>>,
}

/// The last verification of a session, for [`Engine::obligation_log`].
#[derive(Debug, Clone)]
pub struct VerificationLog {
    /// The snapshot verified.
    pub snapshot: Digest,
    /// The acceptance hash.
    pub acceptance: Digest,
    /// Whether it is of the session's current snapshot.
    pub current: bool,
    /// The acceptance record.
    pub record: AcceptanceRecord,
    /// The obligations asked for (all, or the one named), in manifest order.
    pub obligations: Vec<ObligationReport>,
}

impl Engine {
    /// The record of session `id`'s last verification, with each obligation's output, exit
    /// status and duration; only `only` when given.
    ///
    /// # Errors
    /// [`EngineError::NoVerification`] (exit 3) when the session has no verification;
    /// [`EngineError::UnknownObligation`] (exit 2) when `only` names no obligation of it; store
    /// errors (a missing or corrupt acceptance record is exit 4).
    pub fn obligation_log(
        &self,
        id: &str,
        only: Option<&str>,
    ) -> Result<VerificationLog, EngineError> {
        let (session, state) = session::load(&self.store, id)?;
        let Some(v) = &session.verification else {
            return Err(EngineError::NoVerification { id: id.to_owned() });
        };
        let bytes = self.store.read_object(&v.acceptance)?;
        let record: AcceptanceRecord =
            crate::json::from_slice(&bytes).map_err(|e| EngineError::Io {
                path: self.store.path().join("objects"),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("acceptance record {}: {e}", v.acceptance),
                ),
            })?;
        if let Some(name) = only
            && !record.obligations.iter().any(|o| o.id == name)
        {
            return Err(EngineError::UnknownObligation {
                id: id.to_owned(),
                obligation: name.to_owned(),
                known: record.obligations.iter().map(|o| o.id.clone()).collect(),
            });
        }
        let mut obligations = Vec::new();
        for o in record
            .obligations
            .iter()
            .filter(|o| only.is_none_or(|n| n == o.id))
        {
            let log = state
                .logs
                .iter()
                .find(|l| l.id == o.id && l.snapshot == v.snapshot);
            let (stdout, stderr) = match log {
                Some(l) => (
                    Some(self.store.read_object(&l.stdout)?),
                    Some(self.store.read_object(&l.stderr)?),
                ),
                None => (None, None),
            };
            obligations.push(ObligationReport {
                id: o.id.clone(),
                run: o.run.clone(),
                exit_code: o.exit_code,
                timed_out: o.timed_out,
                passed: o.passed,
                seconds: log.map(|l| l.seconds),
                stdout,
                stderr,
            });
        }
        Ok(VerificationLog {
            snapshot: v.snapshot,
            acceptance: v.acceptance,
            current: v.snapshot == session.current_snapshot,
            record,
            obligations,
        })
    }

    /// The ids of what failed in session `id`'s verification of its current snapshot: the
    /// static rules, then the obligations, that did not pass; `None` when there is no
    /// verification of the current snapshot; empty when it passed.
    ///
    /// # Errors
    /// Session and store errors.
    pub fn failed_obligations(&self, id: &str) -> Result<Option<Vec<String>>, EngineError> {
        let (session, _) = session::load(&self.store, id)?;
        let Some(v) = session
            .verification
            .as_ref()
            .filter(|v| v.snapshot == session.current_snapshot)
        else {
            return Ok(None);
        };
        if v.obligations_ok {
            return Ok(Some(Vec::new()));
        }
        Ok(Some(
            self.obligation_log(id, None)?
                .record
                .failed()
                .into_iter()
                .collect(),
        ))
    }
}
