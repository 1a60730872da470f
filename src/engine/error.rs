//! [`EngineError`]: the errors of session operations, each naming the session, path, field
//! or limit. The CLI maps each variant (never its text) to an exit code (DESIGN section 7).

use super::*;

/// Errors of session operations. Each names the session, path, field or hunk.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Store failure, corruption or lock.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Session missing, invalid or duplicate.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Manifest missing or invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Snapshotting a directory failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The patch was refused; nothing was recorded.
    #[error("patch refused, nothing recorded: {0}")]
    Patch(#[from] PatchError),
    /// Writing a snapshot into a directory failed.
    #[error(transparent)]
    Materialize(#[from] MaterializeError),
    /// A journaled write into the workspace failed.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The session is applied or aborted.
    #[error("session {id} is {status}; only an open session can be changed")]
    NotOpen {
        /// The session.
        id: String,
        /// Its status.
        status: Status,
    },
    /// `restore` of a session that is not aborted, or whose abort saved nothing.
    #[error("session {id}: nothing to restore: {reason}")]
    NothingToRestore {
        /// The session.
        id: String,
        /// Why.
        reason: String,
    },
    /// `apply` without a passing verification of the current snapshot.
    #[error("session {id} cannot be applied: {reason}")]
    NotVerified {
        /// The session.
        id: String,
        /// Why.
        reason: String,
    },
    /// The workspace changed under the session: these paths no longer hold their base content.
    #[error("the workspace changed under session {id}; nothing was written. Conflicting paths:\n{}", .conflicts.iter().map(|(p, r)| format!("  {p}: {r}")).collect::<Vec<_>>().join("\n"))]
    Conflict {
        /// The session.
        id: String,
        /// Each conflicting path with the reason.
        conflicts: Vec<(String, String)>,
    },
    /// A change that must never be written (into `.git`, the store, or through a link).
    #[error("{path}: refused: {reason}")]
    Unsafe {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// Another patch landed while the obligations ran; the verification is of an old snapshot.
    #[error(
        "session {id} moved on while its obligations ran (verified {verified}, now {now}); nothing was recorded: verify again"
    )]
    SessionMoved {
        /// The session.
        id: String,
        /// The snapshot the obligations ran on.
        verified: Digest,
        /// The session's current snapshot now.
        now: Digest,
    },
    /// Genesis was interrupted (SIGINT, SIGTERM, SIGHUP) while an obligation ran.
    #[error(
        "interrupted while obligation {0} ran; its process group was killed and nothing was recorded"
    )]
    Interrupted(String),
    /// A path the patch writes could not be verified or applied on this system (NAME_MAX,
    /// PATH_MAX); nothing was recorded.
    #[error("patch refused, nothing recorded: {0}")]
    PathLimit(#[from] crate::path::FsLimitError),
    /// A path of the snapshot to verify could not be written under the verify directory on
    /// this system (NAME_MAX, PATH_MAX): `$TMPDIR` (or the `--workdir`) is longer now than at
    /// patch time, or the path was in the base. Nothing was written or run.
    #[error(
        "verify refused, nothing run: {source}; set TMPDIR to a shorter directory, pass a shorter --workdir, or leave the path out of the workspace"
    )]
    VerifyPathLimit {
        /// The limit broken, naming the path and the directory.
        source: crate::path::FsLimitError,
    },
    /// Bad input that is not a patch error (a bad argument, a result over the v0.1 limits).
    #[error("{0}")]
    Invalid(String),
    /// The session's engine state names no manifest blob, which `open` always records: the
    /// state file was edited or damaged (store corruption, exit 4).
    #[error("session {id}: the engine state {} records no manifest (store corruption)", .path.display())]
    StateWithoutManifest {
        /// The session.
        id: String,
        /// Its engine state file (`sessions/<id>.state`).
        path: PathBuf,
    },
    /// A file-system operation on the workspace failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError + '_ {
    move |source| EngineError::Io {
        path: path.to_path_buf(),
        source,
    }
}
