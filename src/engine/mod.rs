//! The session lifecycle (DESIGN section 4): `open` → any number of `patch` → `verify` →
//! `apply` | `abort`, plus `status` and `replay`.
//!
//! Every operation that changes a session holds a [`LockedSession`] (the store lock plus the
//! loaded document and state) from reading it to writing it; `verify` drops its guard while
//! obligations run and commits under a new one, refused when the session moved. So two
//! processes never corrupt a session. Every session document written is valid against 004
//! `#/$defs/session`.
//!
//! Each operation has its own `Options` (a safe `Default`) and `Outcome`; `open`, `patch`,
//! `verify`, `apply` and `abort` also their own error type ([`OpenError`],
//! [`PatchSessionError`], [`VerifyError`], [`ApplyError`], [`AbortError`]), each converting
//! into [`EngineError`] with the same kind (DESIGN section 7).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diff::{Change, DiffError, DiffOptions, Tree, changes, write_git_diff};
use crate::events::EventKind;
use crate::hash::Digest;
use crate::journal::{FileState, Journal, JournalError, JournalOp};
use crate::manifest::{DEFAULT_MANIFEST, Manifest, ManifestError};
use crate::materialize::{MaterializeError, MaterializeOptions, materialize};
use crate::obligation::{AcceptanceRecord, CommandResult, StaticResult, static_checks};
use crate::patch::{FileChange, PatchError, PreImage, ReadError, apply_patch};
use crate::path::{WorkspacePath, absolute_resolved, forbidden_path};
use crate::session::{
    self, MAX_PATCHES, ObligationLog, PatchEntry, SESSION_SCHEMA, Session, SessionError, SessionId,
    SessionState, SnapshotState, Status, Verification,
};
use crate::snapshot::{
    Skipped, Snapshot, SnapshotDocumentError, SnapshotError, SnapshotFile, SnapshotOptions,
    snapshot_dir,
};
use crate::store::{Store, StoreError, StoreLock};
use crate::workspace::Workspace;

mod abort;
mod apply;
mod error;
mod locked;
mod log;
mod open;
mod patch;
mod patch_text;
mod rebase;
mod recover;
mod replay;
mod verify;

pub use abort::{
    AbortAction, AbortError, AbortOptions, AbortOutcome, AbortStep, KeptPath, RestoreOptions,
    RestoreOutcome,
};
pub use apply::{ApplyError, ApplyOptions, ApplyOutcome};
pub use error::{
    ConflictKind, DirectoryError, EngineError, NotVerifiedReason, PathConflict, SessionAccessError,
};
pub(crate) use error::{from_directory_error, from_session_access};
pub use locked::LockedSession;
pub use log::{ObligationReport, VerificationLog};
pub use open::{OpenError, OpenOptions, OpenOutcome};
pub use patch::{PatchInput, PatchOutcome, PatchSessionError};
pub use rebase::{MergeConflict, RebaseOptions, RebaseOutcome};
pub use recover::{RecoverOptions, RecoverOutcome};
pub use replay::{ReplayOptions, ReplayOutcome, ReplayStep, ReplayStepError};
pub use verify::{AcceptanceSource, OfferedRecords, VerifyError, VerifyOptions, VerifyOutcome};

/// The one observer of the operations, defined with the events ([`crate::events::Observer`]):
/// `open`, `patch`, `verify`, `apply` and `abort_with` report their events through it.
pub use crate::events::{NoObserver, Observer};

/// The size of a session's change, base to current.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Impact {
    /// Files added, deleted or modified.
    pub files_changed: usize,
    /// Lines added (text files).
    pub lines_added: u64,
    /// Lines removed (text files).
    pub lines_removed: u64,
}

/// The session engine for one workspace and its store.
#[derive(Debug, Clone)]
pub struct Engine {
    workspace: Workspace,
    store: Store,
    lock_wait: Duration,
    /// The files git tracks in the workspace, read from its index at first use and kept for
    /// the engine's life, so every snapshot and membership check of one command agree.
    tracked: std::sync::OnceLock<std::sync::Arc<crate::tracked::TrackedFiles>>,
}

struct TreeImage<'a>(&'a Tree);

impl PreImage for TreeImage<'_> {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.snapshot.get(path.as_str()).is_some()
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError> {
        let f = self
            .0
            .snapshot
            .get(path.as_str())
            .ok_or(ReadError::NotInTree)?;
        Ok(self.0.read(f)?)
    }
    fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.0.is_executable(path)
    }
    fn paths(&self) -> Vec<WorkspacePath> {
        self.0
            .snapshot
            .files()
            .iter()
            .map(|f| f.path.clone())
            .collect()
    }
}

/// New blobs of a patch, held until every check has passed.
type Pending = BTreeMap<Digest, Vec<u8>>;

/// The file that marks a directory as a Genesis workdir (`verify --workdir`).
pub const WORKDIR_MARKER: &str = ".genesis-workdir";

/// The bytes of [`WORKDIR_MARKER`].
pub const WORKDIR_TEXT: &[u8] =
    b"This directory is a Genesis verify workdir; Genesis syncs it to each snapshot it verifies.\n";

/// The place verify writes a snapshot into, for [`crate::path::check_fs_limits`]: the default
/// scratch directory `<tmp>/genesis-verify-<session>-pNNNNNNN-XXXXXX` (the pid, 7 digits) (`scratch`: `dir` is the temporary
/// directory it is made in) or the `--workdir` `dir` itself; each file is first written as
/// `.genesis-tmp-XXXXXX` beside its final name (see `materialize`).
fn verify_place(dir: &Path, id: &str, scratch: bool) -> crate::path::FsPlace {
    let temp_name_len = ".genesis-tmp-XXXXXX".len();
    if scratch {
        // The pid, zero-padded to 7 digits (Linux's largest pid_max has 7), shown as N as the
        // random characters are shown as X: the length is the real one.
        let dir = absolute_resolved(dir).join(format!("genesis-verify-{id}-pNNNNNNN-XXXXXX"));
        crate::path::FsPlace {
            what: format!("the default verify scratch directory {}", dir.display()),
            dir_len: dir.as_os_str().len(),
            temp_name_len,
        }
    } else {
        let dir = absolute_resolved(dir);
        crate::path::FsPlace {
            what: format!("the verify workdir {}", dir.display()),
            dir_len: dir.as_os_str().len(),
            temp_name_len,
        }
    }
}

impl Engine {
    /// The engine for `workspace`; creates the store when `create_store` (as `open` does),
    /// otherwise it must exist. Nothing else is read or written: interrupted changes are
    /// finished only by an explicit [`Engine::recover`] or [`Engine::recover_pending`] (the
    /// CLI calls the latter before every command that uses a store).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] (says to run `genesis init`), [`StoreError::NotAStore`].
    pub fn new(workspace: Workspace, create_store: bool) -> Result<Engine, EngineError> {
        Engine::with_wait(workspace, create_store, Duration::from_secs(10))
    }

    /// [`Engine::new`] with the time to wait for another process's store lock.
    ///
    /// # Errors
    /// As [`Engine::new`].
    pub fn with_wait(
        workspace: Workspace,
        create_store: bool,
        lock_wait: Duration,
    ) -> Result<Engine, EngineError> {
        let store = if create_store {
            workspace.init_store()?
        } else {
            workspace.store()?
        };
        Ok(Engine {
            workspace,
            store,
            lock_wait,
            tracked: std::sync::OnceLock::new(),
        })
    }

    /// How long to wait for another process's store lock. Default: 10 seconds.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    pub(crate) fn lock(&self) -> Result<StoreLock, StoreError> {
        self.store.lock(self.lock_wait)
    }

    /// The files git tracks in the workspace (see [`crate::tracked`]), read once per engine.
    /// Every tree the engine snapshots (the workspace, a checkout, `--from DIR`, a verify
    /// workdir) is judged with the workspace's set, the one the store-side membership check
    /// of `patch` uses.
    pub(crate) fn tracked(
        &self,
    ) -> Result<std::sync::Arc<crate::tracked::TrackedFiles>, SnapshotError> {
        let t = self.tracked_for_scan()?;
        t.resolve()?;
        Ok(t)
    }

    /// [`Engine::tracked`] for a snapshot: outside a work tree with an index, the nested
    /// repositories are left to the first scan of the workspace, which settles them for every
    /// later use ([`crate::tracked::TrackedFiles::discover_deferred`]).
    fn tracked_for_scan(
        &self,
    ) -> Result<std::sync::Arc<crate::tracked::TrackedFiles>, SnapshotError> {
        if let Some(t) = self.tracked.get() {
            return Ok(t.clone());
        }
        let t = std::sync::Arc::new(
            crate::tracked::TrackedFiles::discover_deferred(self.workspace.root())
                .map_err(SnapshotError::from)?,
        );
        Ok(self.tracked.get_or_init(|| t).clone())
    }

    /// The tracked set of the session's base: its recorded tracked members
    /// ([`SessionState::base_tracked`]), or, for a session opened before they were recorded,
    /// the workspace's index now ([`Engine::tracked`]).
    pub(crate) fn base_tracked(
        &self,
        state: &SessionState,
    ) -> Result<std::sync::Arc<crate::tracked::TrackedFiles>, SnapshotError> {
        match &state.base_tracked {
            Some(paths) => Ok(std::sync::Arc::new(
                crate::tracked::TrackedFiles::from_paths(paths.iter().map(|p| p.as_str())),
            )),
            None => self.tracked(),
        }
    }

    pub(crate) fn snapshot_options(
        &self,
        manifest: &Manifest,
    ) -> Result<SnapshotOptions, SnapshotError> {
        let mut o = SnapshotOptions {
            exclude: manifest.exclude.clone(),
            store_dir: Some(self.workspace.store_dir().to_path_buf()),
            tracked: self.tracked_for_scan()?,
            ..SnapshotOptions::default()
        };
        if let Some(n) = manifest.limits.max_file_bytes {
            o.max_file_bytes = n;
        }
        Ok(o)
    }

    /// A snapshot of `dir` that uses the stat cache (nothing is stored).
    pub(crate) fn snapshot_cached(
        &self,
        dir: &Path,
        manifest: &Manifest,
    ) -> Result<crate::snapshot::SnapshotOutcome, SnapshotError> {
        let mut opts = self.snapshot_options(manifest)?;
        opts.stat_cache = Some(self.store.stat_cache_path(dir));
        snapshot_dir(dir, &opts)
    }

    pub(crate) fn manifest_of(
        &self,
        state: &SessionState,
        session: &Session,
    ) -> Result<Manifest, SessionAccessError> {
        let blob = state
            .manifest_blob
            .ok_or_else(|| SessionAccessError::StateWithoutManifest {
                id: session.session.to_string(),
                path: session::state_path(&self.store, session.session.as_str()),
            })?;
        let bytes = self.store.read_object(&blob)?;
        Ok(Manifest::from_bytes(
            &bytes,
            Path::new(session.package_manifest.as_str()),
        )?)
    }

    pub(crate) fn tree(
        &self,
        identity: &Digest,
        executable: BTreeSet<WorkspacePath>,
    ) -> Result<Tree, StoreError> {
        let (snapshot, _) = self.store.read_snapshot(identity)?;
        Ok(Tree::from_parts(&self.store, snapshot, executable))
    }

    /// The size of the session's change from base to current (reads the changed blobs).
    ///
    /// # Errors
    /// Store errors.
    pub fn impact(&self, session: &Session, state: &SessionState) -> Result<Impact, EngineError> {
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        Ok(self.impact_of(&base, &current)?)
    }

    /// The size of the change from `base` to `current`.
    pub(crate) fn impact_of(&self, base: &Tree, current: &Tree) -> Result<Impact, DiffError> {
        let list = changes(base, current);
        let stats = crate::diff::stats(base, current, &list)?;
        Ok(Impact {
            files_changed: list.len(),
            lines_added: stats.iter().map(|s| s.added).sum(),
            lines_removed: stats.iter().map(|s| s.removed).sum(),
        })
    }

    /// The session's stored event counters (sequence numbers of each event dialect).
    ///
    /// # Errors
    /// Session errors.
    pub fn event_counters(&self, id: &str) -> Result<crate::events::EventCounters, EngineError> {
        Ok(session::load(&self.store, id)?.1.events)
    }

    /// Stores the session's event counters, so the next process continues the numbering.
    ///
    /// # Errors
    /// Session and store errors.
    pub fn store_event_counters(
        &self,
        id: &str,
        counters: &crate::events::EventCounters,
    ) -> Result<(), EngineError> {
        let mut guard = self.lock_session(id)?;
        guard.state_mut().events = counters.clone();
        guard.commit()?;
        Ok(())
    }

    /// Stores `em`'s counters with its session (nothing when events are off or its sink
    /// failed), as both front ends do after an operation. A failure (I/O, a store lock held
    /// elsewhere) is one warning on standard error, `genesis: warning: session ID: the event
    /// counters were not stored (…); the next command's events may repeat sequence numbers`,
    /// never the operation's failure: a sink failure never turns an operation into a failure
    /// (DESIGN section 8), and the operation (e.g. a committed apply) is done. Returns whether
    /// the counters were stored (true when there was nothing to store).
    pub fn save_event_counters(&self, em: &crate::events::Emitter) -> bool {
        let Some(counters) = em.counters() else {
            return true;
        };
        match self.store_event_counters(em.session(), counters) {
            Ok(()) => true,
            Err(e) => {
                eprintln!(
                    "genesis: warning: session {}: the event counters were not stored ({e}); the next command's events may repeat sequence numbers",
                    em.session()
                );
                false
            }
        }
    }

    /// Reads a session and its state.
    ///
    /// # Errors
    /// [`SessionError::NotFound`], [`SessionError::DuplicateKey`], [`SessionError::Invalid`].
    pub fn status(&self, id: &str) -> Result<(Session, SessionState), EngineError> {
        Ok(session::load(&self.store, id)?)
    }

    /// The ids of all sessions, sorted.
    ///
    /// # Errors
    /// Store read errors.
    pub fn sessions(&self) -> Result<Vec<String>, EngineError> {
        Ok(session::list(&self.store)?)
    }
}

/// The patch rules' limits under `manifest` (its `limits.max_patch_bytes`, if set), the same
/// for a submitted diff, `patch --from` and `replay`. `limits.max_changed_files` is not one of
/// them: it is a static obligation (the patch is recorded and the gate fails, as for
/// `protected`; [`crate::obligation`]), and a patch has no file-count limit of its own (its
/// text is bounded by `max_patch_bytes` and its hunks by [`crate::patch::PatchRules`]).
fn patch_rules(manifest: &Manifest) -> crate::patch::PatchRules {
    let mut popts = crate::patch::PatchRules::default();
    if let Some(n) = manifest.limits.max_patch_bytes {
        popts.max_patch_bytes = n;
    }
    popts
}

pub(crate) fn journal_op(c: &Change) -> JournalOp {
    let state = |s: &crate::diff::Side| FileState {
        blob: s.file.blob,
        executable: s.executable,
        mode: None,
    };
    JournalOp {
        path: c.path.clone(),
        pre: c.old.as_ref().map(state),
        post: c.new.as_ref().map(state),
    }
}
