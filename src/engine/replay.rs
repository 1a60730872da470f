//! `replay`: re-derive every recorded snapshot from the stored patch texts.

use super::*;

/// Options for [`Engine::replay`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayOptions {
    /// Stop after the first patch that does not reproduce its recorded snapshot (its step is
    /// the last one reported). Default: false, every patch is replayed and reported.
    pub stop_at_first_mismatch: bool,
}

/// What [`Engine::replay`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayOutcome {
    /// The session document replayed (read under no lock; replay writes nothing).
    pub session: Session,
    /// One step per patch replayed, in order (all of them unless
    /// [`ReplayOptions::stop_at_first_mismatch`] stopped early).
    pub steps: Vec<ReplayStep>,
}

impl ReplayOutcome {
    /// Whether every step reproduced its recorded snapshot and executable bits (true for a
    /// session with no patch).
    pub fn matches(&self) -> bool {
        self.steps.iter().all(ReplayStep::matches)
    }
}

/// One patch's result in [`Engine::replay`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayStep {
    /// Index in `patches`.
    pub index: usize,
    /// The recorded `after_snapshot`.
    pub recorded: Digest,
    /// What the stored patch text gives now (`None` when it no longer applies).
    pub replayed: Option<Digest>,
    /// Whether executable bits also match.
    pub modes_match: bool,
    /// Why it failed to apply, if it did.
    pub error: Option<ReplayStepError>,
}

/// Why a stored patch did not apply in [`Engine::replay`]: the typed error the same patch
/// gets from `patch` (shared, so steps stay `Clone`). Its [`ReplayStepError::kind`] tells a
/// patch that no longer applies ([`crate::ErrorKind::BadInput`], a finding of the replay)
/// from a store that cannot be read ([`crate::ErrorKind::Io`], e.g. a corrupt object, exit 4).
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct ReplayStepError(pub std::sync::Arc<PatchSessionError>);

impl ReplayStepError {
    /// The error's kind (DESIGN section 7), the same as `patch` would report.
    pub fn kind(&self) -> crate::ErrorKind {
        self.0.kind()
    }
}

impl From<PatchSessionError> for ReplayStepError {
    fn from(e: PatchSessionError) -> Self {
        ReplayStepError(std::sync::Arc::new(e))
    }
}

impl PartialEq for ReplayStepError {
    /// The same shared error (the same `Arc`), never compared by text.
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ReplayStepError {}

impl ReplayStep {
    /// Whether the replayed snapshot equals the recorded one.
    pub fn matches(&self) -> bool {
        self.replayed == Some(self.recorded) && self.modes_match
    }
}

impl Engine {
    /// Re-derives every `after_snapshot` from the stored patch texts, in order, each applied
    /// to its recorded `before_snapshot`. Every snapshot document the session names is read
    /// and checked first, also when there is no patch. Nothing is written and no lock is
    /// taken (a reader between the two writes of a save sees the previous session, DESIGN
    /// section 4).
    ///
    /// # Errors
    /// Session and store errors (a stored snapshot document with a key twice is
    /// [`StoreError::DuplicateKey`]); a patch that no longer applies is reported in its step,
    /// with its typed error ([`ReplayStepError`]; a store object that is corrupt or missing
    /// there has kind [`crate::ErrorKind::Io`]).
    pub fn replay(&self, id: &str, opts: &ReplayOptions) -> Result<ReplayOutcome, EngineError> {
        let (session, state) = session::load(&self.store, id)?;
        // Every snapshot the session names is read (strictly), also with no patch to replay,
        // so a stored document that was edited is reported, not trusted by its name.
        for s in &state.snapshots {
            self.store.read_snapshot(&s.identity)?;
        }
        let manifest = self.manifest_of(&state, &session)?;
        let popts = patch_rules(&manifest);
        let mut steps = Vec::new();
        for (i, entry) in session.patches.iter().enumerate() {
            let before = self.tree(
                &entry.before_snapshot,
                state.snapshots[i].executable.clone(),
            )?;
            let text = self.store.read_object(&entry.patch)?;
            let replayed = apply_patch(&text, &TreeImage(&before), &popts)
                .map_err(PatchSessionError::from)
                .and_then(|out| self.apply_changes(&before, out.changes))
                .map_err(ReplayStepError::from);
            let step = match replayed {
                Ok((snap, exec, _)) => ReplayStep {
                    index: i,
                    recorded: entry.after_snapshot,
                    replayed: Some(snap.identity()),
                    modes_match: exec == state.snapshots[i + 1].executable,
                    error: None,
                },
                Err(error) => ReplayStep {
                    index: i,
                    recorded: entry.after_snapshot,
                    replayed: None,
                    modes_match: false,
                    error: Some(error),
                },
            };
            let stop = opts.stop_at_first_mismatch && !step.matches();
            steps.push(step);
            if stop {
                break;
            }
        }
        Ok(ReplayOutcome { session, steps })
    }
}
