//! [`AbortError`]: what `abort` can fail with.

use std::path::PathBuf;

use crate::engine::{EngineError, PathConflict};
use crate::journal::JournalError;
use crate::manifest::ManifestError;
use crate::session::{SessionError, Status};
use crate::snapshot::SnapshotError;
use crate::store::{SnapshotIntoError, StoreError};

/// Errors of [`crate::engine::Engine::abort_with`]: only what abort can return. Each converts
/// into the [`EngineError`] variant of the same name; [`AbortError::kind`] classifies it.
#[derive(Debug, thiserror::Error)]
pub enum AbortError {
    /// Store failure, corruption or lock (another process holds it: retryable).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Session missing, invalid or duplicate.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The session is applied, or aborted already.
    #[error("session {id} is {status}; only an open session can be changed")]
    NotOpen {
        /// The session.
        id: String,
        /// Its status.
        status: Status,
    },
    /// An interrupted apply or abort of the session left its journal
    /// (`journal/<id>.json`); with recovery explicit, nothing acts on the session until
    /// [`crate::engine::Engine::recover`] finishes it. State (exit 3).
    #[error(
        "session {id}: an interrupted apply/abort of this session is pending ({}): run `genesis recover`",
        .journal.display()
    )]
    RecoveryPending {
        /// The session.
        id: String,
        /// Its journal file.
        journal: PathBuf,
    },
    /// The base manifest stored for the session is not valid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The session's engine state names no manifest (store corruption).
    #[error("session {id}: the engine state {} records no manifest (store corruption)", .path.display())]
    StateWithoutManifest {
        /// The session.
        id: String,
        /// Its engine state file.
        path: PathBuf,
    },
    /// Paths abort does not change (a directory holding files it does not remove, something
    /// other than a regular file, a checkout directory that is now a link or another
    /// session's); nothing was changed.
    #[error("the workspace changed under session {id}; nothing was written. Conflicting paths:\n{}", .conflicts.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n"))]
    Conflict {
        /// The session.
        id: String,
        /// Each conflicting path with what is wrong there, sorted by path.
        conflicts: Vec<PathConflict>,
    },
    /// A change that must never be written (into `.git`, the store, or through a link).
    #[error("{path}: refused: {reason}")]
    Unsafe {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// Snapshotting the tree abort finds (workspace or checkout) failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// Copying a file into the store while saving the tree failed.
    #[error("{}: {source}", .path.display())]
    Ingest {
        /// The file being copied, or the store directory.
        path: PathBuf,
        /// The store's error.
        source: StoreError,
    },
    /// The journaled restore of an in-place session's base failed (recovery finishes it).
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A file-system operation on the workspace or checkout failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

crate::engine::from_session_access!(AbortError);

impl From<SnapshotIntoError> for AbortError {
    fn from(e: SnapshotIntoError) -> Self {
        match e {
            SnapshotIntoError::Snapshot(s) => AbortError::Snapshot(s),
            SnapshotIntoError::Store(s) => AbortError::Store(s),
            SnapshotIntoError::Ingest { path, source } => AbortError::Ingest { path, source },
        }
    }
}

impl From<AbortError> for EngineError {
    fn from(e: AbortError) -> Self {
        use AbortError as A;
        match e {
            A::Store(s) => EngineError::Store(s),
            A::Session(s) => EngineError::Session(s),
            A::NotOpen { id, status } => EngineError::NotOpen { id, status },
            A::RecoveryPending { id, journal } => EngineError::RecoveryPending { id, journal },
            A::Manifest(m) => EngineError::Manifest(m),
            A::StateWithoutManifest { id, path } => EngineError::StateWithoutManifest { id, path },
            A::Conflict { id, conflicts } => EngineError::Conflict { id, conflicts },
            A::Unsafe { path, reason } => EngineError::Unsafe { path, reason },
            A::Snapshot(s) => EngineError::Snapshot(s),
            A::Ingest { path, source } => EngineError::Ingest { path, source },
            A::Journal(j) => EngineError::Journal(j),
            A::Io { path, source } => EngineError::Io { path, source },
        }
    }
}
