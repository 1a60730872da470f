//! Recovery (DESIGN section 6): finish interrupted journaled changes.

use super::*;

/// Options for [`Engine::recover_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RecoverOptions {
    /// Recover only when a journal of an interrupted change is pending; otherwise do nothing
    /// (no lock taken, stray store temp files left) and return an empty outcome. What the
    /// command line runs before every command. Default: false, a full recovery (journals and
    /// temp files), as `genesis recover`.
    pub if_pending: bool,
}

/// What [`Engine::recover_with`] did: the sessions finished, the store temp files removed,
/// the files rescued before the roll-forward replaced them ([`crate::journal`]'s outcome).
pub type RecoverOutcome = crate::journal::RecoverOutcome;

impl Engine {
    /// Finishes every interrupted apply or in-place abort from its journal, and removes temp
    /// files of interrupted store writes (DESIGN section 6), under the store lock. Safe to run
    /// at any time, and again after being interrupted itself. With
    /// [`RecoverOptions::if_pending`], only when a journal is pending.
    ///
    /// # Errors
    /// Store read errors listing the journals; the journaled step that failed (the journal
    /// stays, so recovery can be run again).
    pub fn recover_with(&self, opts: &RecoverOptions) -> Result<RecoverOutcome, EngineError> {
        if opts.if_pending && crate::journal::pending(&self.store)?.is_empty() {
            return Ok(RecoverOutcome::default());
        }
        let _lock = self.lock()?;
        Ok(crate::journal::recover(&self.store, self.workspace.root())?)
    }

    /// [`Engine::recover_with`] with the default options (a full recovery).
    ///
    /// # Errors
    /// As [`Engine::recover_with`].
    pub fn recover(&self) -> Result<RecoverOutcome, EngineError> {
        self.recover_with(&RecoverOptions::default())
    }

    /// [`Engine::recover_with`] with [`RecoverOptions::if_pending`]: what every CLI command
    /// runs before its own work (DESIGN section 6).
    ///
    /// # Errors
    /// As [`Engine::recover_with`].
    pub fn recover_pending(&self) -> Result<RecoverOutcome, EngineError> {
        self.recover_with(&RecoverOptions { if_pending: true })
    }

    pub(crate) fn run_journal(&self, journal: &Journal) -> Result<(), JournalError> {
        self.run_journal_with(journal, false)
    }

    /// `run_journal`; `at_pre`: the caller found every path of `journal` at its pre state
    /// just now, under the store lock (apply's preconditions), so the write stages every post
    /// state without reading the files first (`journal::execute_at_pre`).
    pub(crate) fn run_journal_with(
        &self,
        journal: &Journal,
        at_pre: bool,
    ) -> Result<(), JournalError> {
        // A change that cannot start (a link or a file on the way) is refused before the
        // journal exists, so a refused command leaves nothing for recovery to roll forward.
        crate::journal::check_parents(self.workspace.root(), journal)?;
        crate::journal::begin(&self.store, journal)?;
        let root = self.workspace.root();
        let done = if at_pre {
            crate::journal::execute_at_pre(&self.store, root, journal)
        } else {
            crate::journal::execute(&self.store, root, journal)
        };
        if let Err(e) = done {
            if matches!(e, JournalError::Io { visible: false, .. }) {
                crate::journal::cancel(&self.store, &journal.session)?;
            }
            return Err(e);
        }
        crate::journal::finish(&self.store, journal)
    }
}
