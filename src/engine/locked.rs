//! The locked-session guard (DESIGN section 4, "Locked sessions"): every operation that writes
//! a session holds the store lock and the loaded document and state in one value, and writes
//! them only by consuming it. Modelled on jj's `LockedWorkingCopy::finish` and `gix-lock`'s
//! `File::commit`: dropping the guard releases the lock and writes nothing.

use super::*;

/// A session loaded under the store lock (`<store>/lock`, `flock`).
///
/// - [`LockedSession::commit`] writes the document and its state ([`session::save`]: state
///   first, then the document, whose rename is the commit point) and releases the lock.
/// - Dropping it (or [`LockedSession::release`]) releases the lock and writes nothing, so an
///   operation that returns an error half way leaves both files byte-identical.
/// - [`LockedSession::checkpoint`] writes without releasing, for the operations that must
///   make a record durable before a journaled change starts (abort's saved-work list).
///
/// Made by [`Engine::lock_session`], [`Engine::lock_open_session`] or, for a new session, by
/// `Engine::open` (under the lock it took before checking that the id is free).
#[must_use = "dropping a LockedSession releases the lock and writes nothing; call commit() to save"]
#[derive(Debug)]
pub struct LockedSession<'a> {
    store: &'a Store,
    /// Held for the guard's life; released when the guard goes.
    _lock: StoreLock,
    session: Session,
    state: SessionState,
}

impl<'a> LockedSession<'a> {
    /// The session document as loaded (with the changes made through
    /// [`LockedSession::session_mut`]).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The engine state beside the document.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// The document, to change before [`LockedSession::commit`].
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The state, to change before [`LockedSession::commit`].
    pub fn state_mut(&mut self) -> &mut SessionState {
        &mut self.state
    }

    /// The document and the state, both to change.
    pub fn parts_mut(&mut self) -> (&mut Session, &mut SessionState) {
        (&mut self.session, &mut self.state)
    }

    /// Writes the document and state as they are now and keeps the lock.
    ///
    /// # Errors
    /// [`SessionError::Store`] when a write fails (the previous pair, or the new state with
    /// the previous document, is on disk: see [`session::save`]).
    pub fn checkpoint(&self) -> Result<(), SessionError> {
        session::save(self.store, &self.session, &self.state)
    }

    /// Writes the document and state, releases the lock and returns what was written.
    ///
    /// # Errors
    /// As [`LockedSession::checkpoint`]; the lock is released either way.
    pub fn commit(self) -> Result<(Session, SessionState), SessionError> {
        session::save(self.store, &self.session, &self.state)?;
        Ok((self.session, self.state))
    }

    /// Releases the lock without writing and returns the document and state as held (for an
    /// operation that wrote nothing, or whose journal wrote the session itself).
    pub fn release(self) -> (Session, SessionState) {
        (self.session, self.state)
    }
}

impl Engine {
    /// Takes the store lock (waiting up to the engine's lock wait) and loads session `id`,
    /// whatever its status.
    ///
    /// # Errors
    /// [`StoreError::Locked`] (as [`EngineError::Store`]) when another process holds the lock
    /// past the wait; [`SessionError::NotFound`], [`SessionError::Invalid`],
    /// [`SessionError::DuplicateKey`]; [`EngineError::RecoveryPending`] when an interrupted
    /// apply or abort of the session left its journal (`journal/<id>.json`).
    pub fn lock_session(&self, id: &str) -> Result<LockedSession<'_>, EngineError> {
        Ok(self.locked(id, false)?)
    }

    /// [`Engine::lock_session`] for a session that must be `open`.
    ///
    /// # Errors
    /// As [`Engine::lock_session`], and [`EngineError::NotOpen`] naming the status.
    pub fn lock_open_session(&self, id: &str) -> Result<LockedSession<'_>, EngineError> {
        Ok(self.locked(id, true)?)
    }

    /// [`Engine::lock_session`] (`open_only`: [`Engine::lock_open_session`]) with the error
    /// every operation shares.
    pub(crate) fn locked(
        &self,
        id: &str,
        open_only: bool,
    ) -> Result<LockedSession<'_>, SessionAccessError> {
        let lock = self.lock()?;
        let (session, state) = session::load(&self.store, id)?;
        // With recovery explicit, a session whose apply or abort was interrupted holds a
        // half-written change: no operation acts on it until `recover` finishes the journal.
        let journal = crate::journal::journal_path(&self.store, id);
        if journal.exists() {
            return Err(SessionAccessError::RecoveryPending {
                id: id.to_owned(),
                journal,
            });
        }
        if open_only && session.status != Status::Open {
            return Err(SessionAccessError::NotOpen {
                id: id.to_owned(),
                status: session.status,
            });
        }
        Ok(LockedSession {
            store: &self.store,
            _lock: lock,
            session,
            state,
        })
    }

    /// A guard over a session not yet in the store, under `lock` (taken by the caller before
    /// it checked that the id is free): [`LockedSession::commit`] writes it for the first
    /// time; dropping it leaves no file.
    pub(crate) fn create_session(
        &self,
        lock: StoreLock,
        session: Session,
        state: SessionState,
    ) -> LockedSession<'_> {
        LockedSession {
            store: &self.store,
            _lock: lock,
            session,
            state,
        }
    }
}
