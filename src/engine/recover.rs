//! Recovery (DESIGN section 6): finish interrupted journaled changes.

use super::*;

impl Engine {
    /// Finishes every interrupted apply or in-place abort from its journal, and removes temp
    /// files of interrupted store writes (DESIGN section 6). Safe to run at any time, and
    /// again after being interrupted itself.
    ///
    /// # Errors
    /// The journaled step that failed (the journal stays, so recovery can be run again).
    pub fn recover(&self) -> Result<RecoverOutcome, EngineError> {
        let _lock = self.lock()?;
        Ok(crate::journal::recover(&self.store, self.workspace.root())?)
    }

    /// [`Engine::recover`] when a journal of an interrupted change is pending; otherwise
    /// nothing is done (no lock is taken) and the outcome is empty. What every CLI command
    /// runs before its own work (DESIGN section 6).
    ///
    /// # Errors
    /// Store read errors listing the journals; as [`Engine::recover`].
    pub fn recover_pending(&self) -> Result<RecoverOutcome, EngineError> {
        if crate::journal::pending(&self.store)?.is_empty() {
            return Ok(RecoverOutcome::default());
        }
        self.recover()
    }

    pub(crate) fn run_journal(&self, journal: &Journal) -> Result<(), EngineError> {
        // A change that cannot start (a link or a file on the way) is refused before the
        // journal exists, so a refused command leaves nothing for recovery to roll forward.
        crate::journal::check_parents(self.workspace.root(), journal)?;
        crate::journal::begin(&self.store, journal)?;
        if let Err(e) = crate::journal::execute(&self.store, self.workspace.root(), journal) {
            if matches!(e, JournalError::Io { visible: false, .. }) {
                crate::journal::cancel(&self.store, &journal.session)?;
            }
            return Err(e.into());
        }
        crate::journal::finish(&self.store, journal)?;
        Ok(())
    }
}
