//! The locked-session guard (DESIGN section 4, "Locked sessions"): every operation that writes
//! a session holds the store lock and the loaded document and state in one value, and writes
//! them only by consuming it. Modelled on jj's `LockedWorkingCopy::finish` and `gix-lock`'s
//! `File::commit`: dropping the guard releases the lock and writes nothing.

use super::*;

/// A session loaded under the store lock (`<store>/lock`, `flock`).
///
/// - [`LockedSession::commit`] writes the document and its state (`session::save`: state
///   first, then the document, whose rename is the commit point) and releases the lock.
/// - Dropping it (or [`LockedSession::release`]) releases the lock and writes nothing, so an
///   operation that returns an error half way leaves both files byte-identical.
/// - [`LockedSession::checkpoint`] writes without releasing, for the operations that must
///   make a record durable before a journaled change starts (abort's saved-work list).
///
/// Made by [`Engine::lock_session`], [`Engine::lock_open_session`] or, for a new session, by
/// `Engine::open` (under the lock it took before checking that the id is free).
///
/// A library user can read the held session and commit or release it, but not change it: the
/// mutators are crate-private, so nothing outside the engine commits a session that
/// `session::load` would refuse (issue 10's review). This does not compile:
///
/// ```compile_fail
/// fn edit(guard: &mut genesis::engine::LockedSession<'_>) {
///     guard.state_mut().in_place = true;
/// }
/// ```
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
    /// the engine).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The engine state beside the document.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// The document, to change before [`LockedSession::commit`].
    pub(crate) fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The state, to change before [`LockedSession::commit`].
    pub(crate) fn state_mut(&mut self) -> &mut SessionState {
        &mut self.state
    }

    /// The document and the state, both to change.
    pub(crate) fn parts_mut(&mut self) -> (&mut Session, &mut SessionState) {
        (&mut self.session, &mut self.state)
    }

    /// Writes the document and state as they are now and keeps the lock.
    ///
    /// # Errors
    /// [`SessionError::Store`] when a write fails (the previous pair, or the new state with
    /// the previous document, is on disk: see `session::save`).
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

#[cfg(test)]
mod tests {
    //! The guard's own rules, which need its crate-private mutators: a guard dropped without
    //! `commit` writes nothing and frees the lock; `commit` writes both files.

    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use crate::Workspace;
    use crate::engine::{Engine, NoObserver, OpenOptions, PatchInput, PatchSessionError};
    use crate::session::{SessionId, Status};
    use crate::store::StoreError;

    const MANIFEST: &str = r#"{
      "schema": "genesis/manifest-v0.1",
      "obligations": [
        {"id": "greets", "run": ["grep", "-q", "hello", "a.txt"], "timeout_s": 30}
      ]
    }
    "#;

    const EDIT: &[u8] =
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n hello\n+world\n";

    /// A workspace holding `a.txt` and `genesis.json`, its store made, session `s1` open. The
    /// engine waits for no other lock holder (a held lock fails at once).
    fn setup(root: &Path) -> Engine {
        std::fs::write(root.join("a.txt"), b"hello\n").unwrap();
        std::fs::write(root.join("genesis.json"), MANIFEST).unwrap();
        let e = Engine::new(Workspace::new(root, None), true)
            .expect("store made")
            .with_lock_wait(Duration::ZERO);
        e.open(
            &OpenOptions {
                session: Some(SessionId::new("s1").unwrap()),
                ..OpenOptions::default()
            },
            &mut NoObserver,
        )
        .expect("open");
        e
    }

    /// The session's two files: (document, state).
    fn files(e: &Engine, id: &str) -> (PathBuf, PathBuf) {
        let dir = e.store().path().join("sessions");
        (
            dir.join(format!("{id}.json")),
            dir.join(format!("{id}.state")),
        )
    }

    fn bytes(e: &Engine, id: &str) -> (Vec<u8>, Vec<u8>) {
        let (doc, state) = files(e, id);
        (std::fs::read(doc).unwrap(), std::fs::read(state).unwrap())
    }

    #[test]
    fn dropped_guard_writes_nothing_and_frees_the_lock() {
        let d = tempfile::tempdir().unwrap();
        let e = setup(d.path());
        let before = bytes(&e, "s1");
        {
            let mut guard = e.lock_open_session("s1").expect("lock");
            // Changes held in the guard only: dropping it must not write them.
            guard.session_mut().status = Status::Aborted;
            guard.state_mut().in_place = true;
            guard.state_mut().logs.clear();
            // While held, another operation is refused with the lock error at once.
            let err = e
                .patch("s1", PatchInput::Diff(EDIT), None, &mut NoObserver)
                .expect_err("locked");
            assert!(
                matches!(err, PatchSessionError::Store(StoreError::Locked { .. })),
                "{err:?}"
            );
        }
        assert_eq!(bytes(&e, "s1"), before, "both files byte-identical");
        // The lock is free: a second guard is had at once (the engine waits zero seconds).
        let again = e.lock_session("s1").expect("lock free after drop");
        assert_eq!(again.session().status, Status::Open);
        assert!(!again.state().in_place);
    }

    #[test]
    fn commit_writes_document_and_state_and_frees_the_lock() {
        let d = tempfile::tempdir().unwrap();
        let e = setup(d.path());
        let (doc_before, state_before) = bytes(&e, "s1");
        let mut guard = e.lock_open_session("s1").expect("lock");
        guard.state_mut().checkout = Some(PathBuf::from("/nowhere/checkout"));
        let (session, state) = guard.commit().expect("commit");
        assert_eq!(session.status, Status::Open);
        assert_eq!(state.checkout, Some(PathBuf::from("/nowhere/checkout")));
        let (doc_after, state_after) = bytes(&e, "s1");
        // Same document (nothing in it changed), a new state.
        assert_eq!(doc_after, doc_before);
        assert_ne!(state_after, state_before);
        let (_, st) = e.status("s1").expect("reads back");
        assert_eq!(st.checkout, Some(PathBuf::from("/nowhere/checkout")));
        drop(e.lock_session("s1").expect("lock free after commit"));
    }
}
