//! [`EngineError`]: the errors of session operations, each naming the session, path, field
//! or limit. The CLI maps each variant (never its text) to an exit code (DESIGN section 7).

use super::*;
use crate::diff::DiffError;

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
    /// Copying a file into the store while snapshotting failed; `path` is the file copied or
    /// the store directory.
    #[error("{}: {source}", .path.display())]
    Ingest {
        /// The file being copied, or the store directory.
        path: PathBuf,
        /// The store's error.
        source: StoreError,
    },
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
        reason: NotVerifiedReason,
    },
    /// The workspace changed under the session: these paths no longer hold their base content.
    #[error("the workspace changed under session {id}; nothing was written. Conflicting paths:\n{}", .conflicts.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n"))]
    Conflict {
        /// The session.
        id: String,
        /// Each conflicting path with what is wrong there, sorted by path.
        conflicts: Vec<PathConflict>,
    },
    /// `log SESSION` of a session that has no verification.
    #[error("session {id} has no verification to show; `genesis verify {id}` runs the obligations")]
    NoVerification {
        /// The session.
        id: String,
    },
    /// `log SESSION OBLIGATION` names no obligation of the session's last verification.
    #[error("session {id}: no obligation {obligation:?} in its last verification; it ran: {}", if .known.is_empty() { "none".to_owned() } else { .known.join(", ") })]
    UnknownObligation {
        /// The session.
        id: String,
        /// The name given.
        obligation: String,
        /// The obligations it ran, in manifest order.
        known: Vec<String>,
    },
    /// `patch --from` a `--checkout` directory that a `rebase` left as it was
    /// ([`super::PatchSessionError::StaleCheckout`]). State (exit 3).
    #[error(
        "session {id}: the checkout {} was made from snapshot {made_from}, which `genesis rebase` has since replaced (the session is now at {current}); recording its state would undo the workspace changes the rebase merged in, so nothing was recorded. Record the checkout's own changes as a diff instead: `genesis diff {made_from} {} | genesis patch {id} -` (or abort the session and open a new checkout)",
        .dir.display(), .dir.display()
    )]
    StaleCheckout {
        /// The session.
        id: String,
        /// The checkout directory.
        dir: PathBuf,
        /// The session snapshot the checkout was last made from or recorded from.
        made_from: Digest,
        /// The session's current snapshot.
        current: Digest,
    },
    /// `patch --from` a `--checkout` directory that `genesis pull` left behind: the pull
    /// brought patches made elsewhere that the checkout does not hold, so its state would
    /// revert them (DESIGN section 13). Nothing recorded; State (exit 3).
    #[error(
        "session {id}: the checkout {} was made from snapshot {made_from}, and `genesis pull` has since brought patches made elsewhere that it does not hold (the session is now at {current}); recording its state would undo the pulled patches, so nothing was recorded. Record the checkout's own changes as a diff instead: `genesis diff {made_from} {} | genesis patch {id} -` (or abort the session and open a new checkout)",
        .dir.display(), .dir.display()
    )]
    PulledPastCheckout {
        /// The session.
        id: String,
        /// The checkout directory.
        dir: PathBuf,
        /// The session snapshot the checkout was last made from or recorded from.
        made_from: Digest,
        /// The session's current snapshot (the pulled one).
        current: Digest,
    },
    /// `rebase` cannot move this session (in-place, or the merged tree does not come back from
    /// its own diff);
    /// nothing was recorded.
    #[error("session {id} cannot be rebased: {reason}")]
    RebaseRefused {
        /// The session.
        id: String,
        /// Why.
        reason: String,
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
    /// A base file could not be written under the `open --checkout` directory on this system
    /// (NAME_MAX, PATH_MAX). Checked before the directory is made: nothing was written.
    #[error(
        "open refused, nothing written: {source}; pass a shorter --checkout directory, or leave the path out of the workspace"
    )]
    CheckoutPathLimit {
        /// The limit broken, naming the path and the directory.
        source: crate::path::FsLimitError,
    },
    /// `open --checkout` together with `--in-place`.
    #[error(
        "--checkout and --in-place exclude each other: an in-place session edits the workspace itself"
    )]
    CheckoutInPlace,
    /// The manifest `open` was given is not a member of the workspace snapshot.
    #[error(
        "{path}: the manifest is not in the workspace snapshot (it is ignored or excluded); a session's obligations come from its base snapshot"
    )]
    ManifestNotInSnapshot {
        /// The manifest path, relative to the workspace root.
        path: WorkspacePath,
    },
    /// A directory Genesis writes for the agent or the obligations (`--checkout`,
    /// `--workdir`, `restore --to`) overlaps the workspace or the store
    /// ([`crate::path::lies_apart`]).
    #[error(
        "{}: {option} must lie outside the workspace {} and the store {} (not inside or above either)",
        .dir.display(), .workspace.display(), .store.display()
    )]
    NotApart {
        /// The directory as given.
        dir: PathBuf,
        /// The option that named it, e.g. `--checkout`.
        option: &'static str,
        /// The workspace root, resolved.
        workspace: PathBuf,
        /// The store directory, resolved.
        store: PathBuf,
    },
    /// A directory argument that is not what the option needs (not a directory, not empty,
    /// not a Genesis workdir).
    #[error("{}: {reason}", .dir.display())]
    BadDirectory {
        /// The directory as given.
        dir: PathBuf,
        /// What is wrong, naming the option (e.g. `--checkout directory is not empty`).
        reason: &'static str,
    },
    /// The session already holds the most patches a v0.1 session document may list.
    #[error(
        "session {id} holds {limit} patches, the v0.1 limit; apply or abort it and open a new one"
    )]
    TooManyPatches {
        /// The session.
        id: String,
        /// The limit ([`crate::session::MAX_PATCHES`]).
        limit: usize,
    },
    /// The patch input does not fit the session: a diff or `--from DIR` for an in-place
    /// session (`in_place`), or no diff for a session that is not in-place.
    #[error("{}", if *.in_place {
        format!("session {id} is in-place: its patches are recorded from the workspace; run `genesis patch {id}` without a diff")
    } else {
        format!("session {id} is not in-place: give a diff (file or -) or --from DIR")
    })]
    PatchInputMismatch {
        /// The session.
        id: String,
        /// Whether the session is in-place.
        in_place: bool,
    },
    /// The patch leaves paths that snapshots of the workspace leave out (ignored, excluded),
    /// so its result could never be reproduced from disk; nothing was recorded.
    #[error(
        "patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: {}",
        .paths.iter().map(|l| format!("{} ({})", l.path, l.reason)).collect::<Vec<_>>().join(", ")
    )]
    LeftOut {
        /// Each path with the rule that leaves it out.
        paths: Vec<crate::membership::LeftOut>,
    },
    /// Making or measuring a diff between two trees failed (a corrupt store object is
    /// [`DiffError::Store`], exit 4).
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// The diff Genesis wrote for `patch --from DIR` does not give the directory's snapshot
    /// back; nothing was recorded.
    #[error(
        "{}: the diff Genesis wrote for this directory gives snapshot {written}, not the directory's {expected}; nothing recorded",
        .dir.display()
    )]
    DirNotReproduced {
        /// The directory.
        dir: PathBuf,
        /// The snapshot the written diff gives.
        written: Digest,
        /// The directory's snapshot.
        expected: Digest,
    },
    /// The patch leaves a file `parent` and a file `path` inside a directory of that name.
    #[error(
        "{parent}: the patch leaves both a file {parent:?} and a file {path:?} inside a directory of that name"
    )]
    FileUnderFile {
        /// The file that would have to be a directory.
        parent: String,
        /// A file below it.
        path: String,
    },
    /// A result over a v0.1 limit (`what`: `files`, counted in the snapshot the patch leaves).
    #[error("the patch would leave {actual} {what}, more than the v0.1 limit of {limit}")]
    OverLimit {
        /// What is counted.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// The count.
        actual: usize,
    },
    /// The snapshot a patch leaves is not a valid snapshot document (other than its size).
    #[error(transparent)]
    SnapshotDocument(SnapshotDocumentError),
    /// The files a session's abort saved do not form a valid snapshot document.
    #[error("session {id}: saved files: {source}")]
    SavedFilesInvalid {
        /// The session.
        id: String,
        /// What is wrong.
        source: SnapshotDocumentError,
    },
    /// `restore` without `--to` of an aborted session that had no checkout directory.
    #[error("session {id} had no checkout directory; use `genesis restore {id} --to DIR`")]
    NoCheckoutToRestore {
        /// The session.
        id: String,
    },
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

/// Why `apply` finds no passing verification of the session's current snapshot
/// ([`EngineError::NotVerified`], [`crate::engine::ApplyError::NotVerified`]; State, exit 3).
/// Each message ends with what to run.
#[derive(Debug, thiserror::Error)]
pub enum NotVerifiedReason {
    /// The session was never verified.
    #[error("it has not been verified; run `genesis verify` first")]
    NeverVerified,
    /// Files hold the conflict markers `rebase --markers` wrote, and no later patch changed
    /// them ([`crate::session::SessionState::conflict_markers`]).
    #[error(
        "unresolved conflict markers (from `genesis rebase --markers`) in: {}; record a patch that resolves them, or pass --allow-markers", .paths.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
    )]
    ConflictMarkers {
        /// The paths, sorted.
        paths: Vec<crate::path::WorkspacePath>,
    },
    /// The verification is of an earlier snapshot (a patch landed since).
    #[error(
        "the verification is of snapshot {verified}, not the current snapshot {current}; run `genesis verify` again"
    )]
    OtherSnapshot {
        /// The snapshot verified.
        verified: Digest,
        /// The session's current snapshot.
        current: Digest,
    },
    /// The verification ran and an obligation failed.
    #[error("its obligations failed (acceptance {acceptance}); `genesis status {id}` shows which")]
    ObligationsFailed {
        /// The session.
        id: String,
        /// Its acceptance record.
        acceptance: Digest,
    },
    /// The acceptance record is not in the store (removed, e.g. by hand). A record that is
    /// there but corrupt is the store's error instead (I/O, exit 4).
    #[error(
        "its acceptance record {acceptance} cannot be read ({source}); run `genesis verify` again"
    )]
    RecordMissing {
        /// The record.
        acceptance: Digest,
        /// The store's [`StoreError::Missing`] (boxed: the error stays small).
        source: Box<StoreError>,
    },
    /// The record's object is not an acceptance record.
    #[error("its acceptance record {acceptance} is not valid: {source}")]
    RecordInvalid {
        /// The record.
        acceptance: Digest,
        /// Why it does not parse (boxed: the error stays small).
        source: Box<crate::json::JsonError>,
    },
    /// The record does not show every obligation of the base manifest passing on the current
    /// snapshot (another manifest, snapshot or failing check).
    #[error(
        "its acceptance record {acceptance} does not show every obligation of the base manifest passing on the current snapshot; run `genesis verify` again"
    )]
    RecordMismatch {
        /// The record.
        acceptance: Digest,
    },
}

/// What reading a session under the lock and its base manifest can fail with: the part every
/// operation on an existing session shares ([`Engine::lock_open_session`] and the manifest of
/// its base). Each operation's error has a variant of the same name for each of these.
#[derive(Debug, thiserror::Error)]
pub enum SessionAccessError {
    /// Store failure, corruption or lock.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Session missing, invalid or duplicate.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The session is applied or aborted.
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
    /// The session's engine state names no manifest blob (store corruption, exit 4).
    #[error("session {id}: the engine state {} records no manifest (store corruption)", .path.display())]
    StateWithoutManifest {
        /// The session.
        id: String,
        /// Its engine state file (`sessions/<id>.state`).
        path: PathBuf,
    },
}

/// `From<SessionAccessError>` for an operation's error with the same five variants.
macro_rules! from_session_access {
    ($($t:ident),*) => {$(
        impl From<crate::engine::SessionAccessError> for $t {
            fn from(e: crate::engine::SessionAccessError) -> Self {
                use crate::engine::SessionAccessError as A;
                match e {
                    A::Store(s) => $t::Store(s),
                    A::Session(s) => $t::Session(s),
                    A::NotOpen { id, status } => $t::NotOpen { id, status },
                    A::RecoveryPending { id, journal } => $t::RecoveryPending { id, journal },
                    A::Manifest(m) => $t::Manifest(m),
                    A::StateWithoutManifest { id, path } => $t::StateWithoutManifest { id, path },
                }
            }
        }
    )*};
}
pub(crate) use from_session_access;

from_session_access!(EngineError);

/// A directory argument Genesis would write into (`--checkout`, `--workdir`, `restore --to`,
/// the verify scratch directory's `TMPDIR`) that it cannot use. Each operation's error that
/// takes such a directory has the three variants of the same name.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    /// The directory overlaps the workspace or the store ([`crate::path::lies_apart`]).
    #[error(
        "{}: {option} must lie outside the workspace {} and the store {} (not inside or above either)",
        .dir.display(), .workspace.display(), .store.display()
    )]
    NotApart {
        /// The directory as given.
        dir: PathBuf,
        /// The option that named it, e.g. `--checkout`.
        option: &'static str,
        /// The workspace root, resolved.
        workspace: PathBuf,
        /// The store directory, resolved.
        store: PathBuf,
    },
    /// Not what the option needs (not a directory, not empty, not a Genesis workdir).
    #[error("{}: {reason}", .dir.display())]
    BadDirectory {
        /// The directory as given.
        dir: PathBuf,
        /// What is wrong, naming the option.
        reason: &'static str,
    },
    /// The directory could not be read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// `From<DirectoryError>` for an operation's error with the same three variants.
macro_rules! from_directory_error {
    ($($t:ident),*) => {$(
        impl From<crate::engine::DirectoryError> for $t {
            fn from(e: crate::engine::DirectoryError) -> Self {
                use crate::engine::DirectoryError as D;
                match e {
                    D::NotApart { dir, option, workspace, store } => {
                        $t::NotApart { dir, option, workspace, store }
                    }
                    D::BadDirectory { dir, reason } => $t::BadDirectory { dir, reason },
                    D::Io { path, source } => $t::Io { path, source },
                }
            }
        }
    )*};
}
pub(crate) use from_directory_error;

from_directory_error!(EngineError);

/// One path in an [`EngineError::Conflict`]: a workspace path (or, for a checkout directory, the
/// directory) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathConflict {
    /// The path, relative to the workspace root (or the checkout directory as shown).
    pub path: String,
    /// What is wrong there.
    pub kind: ConflictKind,
}

impl std::fmt::Display for PathConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.kind)
    }
}

impl PathConflict {
    /// A conflict at `path`.
    pub fn new(path: impl Into<String>, kind: ConflictKind) -> PathConflict {
        PathConflict {
            path: path.into(),
            kind,
        }
    }

    /// Sorts conflicts by path, then by message: the order they are reported in.
    pub fn sort(list: &mut [PathConflict]) {
        list.sort_by_cached_key(|c| (c.path.clone(), c.kind.to_string()));
    }
}

/// Why a path stops an apply, abort or restore (DESIGN sections 4 and 9). Each variant's
/// message is the text after `path: ` in the CLI's conflict list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConflictKind {
    /// A directory on the way is a symbolic link.
    #[error("{0} is a symbolic link; nothing is written through links")]
    LinkParent(String),
    /// A directory on the way is a file this change does not delete.
    #[error("{0} is a file where a directory is needed")]
    FileParent(String),
    /// The path is a directory (the change puts a file there) holding an entry the change
    /// does not delete.
    #[error(
        "is a directory holding {0}, which this change does not delete; the file cannot replace it"
    )]
    ForeignEntry(String),
    /// The path is a directory that cannot be read.
    #[error("is a directory that cannot be read: {0}")]
    UnreadableDir(String),
    /// The session adds the path, but something is there.
    #[error("exists on disk, but the session adds it")]
    AddedButExists,
    /// The base had the path; it is gone.
    #[error("missing on disk; it was in the base snapshot")]
    Missing,
    /// The path is a symbolic link.
    #[error("is a symbolic link on disk")]
    Link,
    /// The path is not a regular file (a directory, FIFO, …).
    #[error("is not a regular file on disk")]
    NotRegular,
    /// As [`ConflictKind::NotRegular`], found by abort.
    #[error("is not a regular file on disk; abort does not replace it")]
    NotRegularForAbort,
    /// The file's content is not the base's.
    #[error("changed on disk since the session opened (base {base}, now {now})")]
    Changed {
        /// The base blob.
        base: Digest,
        /// The blob on disk.
        now: Digest,
    },
    /// The file's executable bit is not the base's.
    #[error("its executable bit changed on disk since the session opened")]
    ModeChanged,
    /// The file could not be read.
    #[error("cannot be read: {0}")]
    Unreadable(String),
    /// An in-place session's workspace differs from its current snapshot.
    #[error(
        "differs from the session's current snapshot; record it with `genesis patch` and verify again"
    )]
    DiffersFromCurrent,
    /// `apply --strict`: the workspace differs from the base here.
    #[error("differs from the base snapshot (--strict)")]
    DiffersFromBase,
    /// The checkout directory is now a link or a file.
    #[error(
        "the checkout directory is now a link or a file; abort does not touch it (remove it, then abort again)"
    )]
    CheckoutReplaced,
    /// The checkout directory is now another open session's.
    #[error("is now the checkout of open session {0}; abort does not touch it")]
    CheckoutOfOther(String),
    /// A saved file is back in the checkout directory.
    #[error("is in the checkout directory again; restore with --to DIR")]
    BackInCheckout,
    /// A saved path changed after abort saved it.
    #[error("changed since it was saved; nothing restored (use --to DIR)")]
    ChangedSinceSaved,
}

impl ConflictKind {
    /// Whether `genesis rebase` resolves this apply conflict: the workspace's content or bits
    /// moved under the session (changed, missing, added, `--strict` differences), which a
    /// three-way merge takes in. Not links, non-regular files, unreadable entries or
    /// directories in the way: a rebase leaves those as they are and apply would refuse again.
    pub fn rebase_resolves(&self) -> bool {
        matches!(
            self,
            ConflictKind::Changed { .. }
                | ConflictKind::ModeChanged
                | ConflictKind::Missing
                | ConflictKind::AddedButExists
                | ConflictKind::DiffersFromBase
        )
    }
}

impl ConflictKind {
    /// Its name in `--json` (`"changed"`, `"missing"`, …; kebab-case, as rebase's kinds).
    pub fn code(&self) -> &'static str {
        match self {
            ConflictKind::LinkParent(_) => "link-parent",
            ConflictKind::FileParent(_) => "file-parent",
            ConflictKind::ForeignEntry(_) => "foreign-entry",
            ConflictKind::UnreadableDir(_) => "unreadable-directory",
            ConflictKind::AddedButExists => "added-but-exists",
            ConflictKind::Missing => "missing",
            ConflictKind::Link => "link",
            ConflictKind::NotRegular | ConflictKind::NotRegularForAbort => "not-regular",
            ConflictKind::Changed { .. } => "changed",
            ConflictKind::ModeChanged => "mode-changed",
            ConflictKind::Unreadable(_) => "unreadable",
            ConflictKind::DiffersFromCurrent => "differs-from-current",
            ConflictKind::DiffersFromBase => "differs-from-base",
            ConflictKind::CheckoutReplaced => "checkout-replaced",
            ConflictKind::CheckoutOfOther(_) => "checkout-of-other",
            ConflictKind::BackInCheckout => "back-in-checkout",
            ConflictKind::ChangedSinceSaved => "changed-since-saved",
        }
    }
}

impl From<crate::store::SnapshotIntoError> for EngineError {
    fn from(e: crate::store::SnapshotIntoError) -> Self {
        use crate::store::SnapshotIntoError as E;
        match e {
            E::Snapshot(s) => EngineError::Snapshot(s),
            E::Store(s) => EngineError::Store(s),
            E::Ingest { path, source } => EngineError::Ingest { path, source },
        }
    }
}
