//! The session lifecycle (DESIGN section 4): `open` → any number of `patch` → `verify` →
//! `apply` | `abort`, plus `status` and `replay`.
//!
//! Every operation takes the store lock while it reads and writes session state (`verify`
//! releases it while obligations run and re-checks afterwards), so two processes never
//! corrupt a session. Every session document written is valid against 004 `#/$defs/session`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diff::{Change, DiffOptions, Tree, changes, write_git_diff};
use crate::hash::Digest;
use crate::journal::{FileState, Journal, JournalError, JournalOp, RecoverOutcome};
use crate::manifest::{DEFAULT_MANIFEST, Manifest, ManifestError};
use crate::materialize::{MaterializeError, MaterializeOptions, materialize};
use crate::obligation::{
    AcceptanceRecord, CommandResult, StaticResult, run_command, static_checks,
};
use crate::patch::{FileChange, PatchError, PreImage, apply_patch};
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

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError + '_ {
    move |source| EngineError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Receives progress while obligations run. Every method has a no-op default.
pub trait Observer {
    /// Obligation `index` (0-based) of `total` is about to start.
    fn obligation_started(&mut self, _id: &str, _run: &[String], _index: usize, _total: usize) {}
    /// A piece of its output as it arrives (any split; redacted when secrets are known).
    fn obligation_output(&mut self, _id: &str, _stream: crate::events::Stream, _data: &[u8]) {}
    /// Obligation `index` of `total` ended.
    fn obligation_finished(&mut self, _result: &CommandResult, _index: usize, _total: usize) {}
}

/// An [`Observer`] that ignores everything.
pub struct NoObserver;
impl Observer for NoObserver {}

/// Options for [`Engine::open`].
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// The session id. Default: a fresh UUIDv7.
    pub session: Option<SessionId>,
    /// The manifest path relative to the root. Default: `genesis.json`.
    pub manifest: Option<WorkspacePath>,
    /// Materialise the base snapshot into this directory for the agent to edit (it must not
    /// exist or be empty, and must lie outside the workspace unless inside the store).
    /// Default: none.
    pub checkout: Option<PathBuf>,
    /// The agent edits the workspace itself; patches are recorded from it, `abort` restores
    /// the base, `apply` finalises. Default: false.
    pub in_place: bool,
}

/// What [`Engine::open`] did.
#[derive(Debug, Clone)]
pub struct OpenOutcome {
    /// The new session document.
    pub session: Session,
    /// Entries left out of the base snapshot (links, FIFOs, …).
    pub skipped: Vec<Skipped>,
    /// Groups of names in the base snapshot equal under case folding or NFC
    /// ([`Snapshot::fold_collisions`]); such a base cannot be checked out on macOS or Windows.
    pub collisions: Vec<Vec<String>>,
    /// The checkout directory, if one was made.
    pub checkout: Option<PathBuf>,
}

/// What a patch is made from.
#[derive(Debug, Clone, Copy)]
pub enum PatchInput<'a> {
    /// A git-style unified diff (bytes as submitted).
    Diff(&'a [u8]),
    /// A directory whose snapshot becomes the new state.
    Dir(&'a Path),
    /// The workspace itself (in-place sessions).
    Workspace,
}

/// What [`Engine::patch`] did.
#[derive(Debug, Clone)]
pub struct PatchOutcome {
    /// The session document after the patch.
    pub session: Session,
    /// The new entry, or `None` when `--from DIR` found no change (nothing recorded).
    pub entry: Option<PatchEntry>,
    /// Paths the patch changes, sorted.
    pub changes: Vec<Change>,
    /// Lines the patch adds (text files).
    pub lines_added: u64,
    /// Lines the patch removes (text files).
    pub lines_removed: u64,
    /// The static rules for the new snapshot.
    pub static_results: Vec<StaticResult>,
    /// The verification, when `verify` was asked for.
    pub verification: Option<VerifyOutcome>,
    /// Entries of a recorded directory left out (links, FIFOs, …).
    pub skipped: Vec<Skipped>,
}

/// Options for [`Engine::verify`].
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Run obligations in this directory, synced incrementally (build caches survive).
    /// Default: a fresh scratch directory, removed afterwards.
    pub workdir: Option<PathBuf>,
    /// Extra environment variables for the obligations. Default: none.
    pub env: Vec<(String, String)>,
    /// Values that must never be stored or shown: they are replaced by `[REDACTED]` in the
    /// obligations' stored output and in what observers see. Default: none.
    pub secrets: Vec<String>,
    /// Extra command obligations for this verification (a BPT request's `commands.post`),
    /// run after the manifest's. Default: none.
    pub extra_obligations: Vec<crate::manifest::Obligation>,
}

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

/// What [`Engine::verify`] did.
#[derive(Debug, Clone)]
pub struct VerifyOutcome {
    /// The session document after verification.
    pub session: Session,
    /// The acceptance record.
    pub record: AcceptanceRecord,
    /// Its hash.
    pub acceptance: Digest,
    /// Each command obligation's result, with output.
    pub results: Vec<CommandResult>,
}

/// Options for [`Engine::apply`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyOptions {
    /// Only report what would change. Default: false.
    pub dry_run: bool,
    /// Require the whole workspace to equal the base snapshot, not only the changed paths.
    /// Default: false.
    pub strict: bool,
}

/// What [`Engine::apply`] did.
#[derive(Debug, Clone)]
pub struct ApplyOutcome {
    /// The session document after apply (unchanged on a dry run).
    pub session: Session,
    /// The changes written (or that would be written).
    pub changes: Vec<Change>,
    /// False on a dry run.
    pub written: bool,
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
    pub error: Option<String>,
}

impl ReplayStep {
    /// Whether the replayed snapshot equals the recorded one.
    pub fn matches(&self) -> bool {
        self.replayed == Some(self.recorded) && self.modes_match
    }
}

/// The session engine for one workspace and its store.
#[derive(Debug, Clone)]
pub struct Engine {
    workspace: Workspace,
    store: Store,
    lock_wait: Duration,
    recovered: RecoverOutcome,
    /// The files git tracks in the workspace, read from its index at first use and kept for
    /// the engine's life, so every snapshot and membership check of one command agree.
    tracked: std::sync::OnceLock<std::sync::Arc<crate::tracked::TrackedFiles>>,
}

struct TreeImage<'a>(&'a Tree);

impl PreImage for TreeImage<'_> {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.snapshot.get(path.as_str()).is_some()
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, String> {
        let f = self
            .0
            .snapshot
            .get(path.as_str())
            .ok_or_else(|| format!("{path}: not in the snapshot"))?;
        self.0.read(f).map_err(|e| e.to_string())
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

/// The place verify writes a snapshot into, for [`crate::path::check_fs_limits`]: the default
/// scratch directory `<tmp>/genesis-verify-<session>-XXXXXX` (`scratch`: `dir` is the temporary
/// directory it is made in) or the `--workdir` `dir` itself; each file is first written as
/// `.genesis-tmp-XXXXXX` beside its final name (see `materialize`).
fn verify_place(dir: &Path, id: &str, scratch: bool) -> crate::path::FsPlace {
    let temp_name_len = ".genesis-tmp-XXXXXX".len();
    if scratch {
        let dir = absolute_resolved(dir).join(format!("genesis-verify-{id}-XXXXXX"));
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
    /// otherwise it must exist.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] (says to run `genesis init`), [`StoreError::NotAStore`].
    pub fn new(workspace: Workspace, create_store: bool) -> Result<Engine, EngineError> {
        Engine::with_wait(workspace, create_store, Duration::from_secs(10))
    }

    /// [`Engine::new`] with the time to wait for another process's store lock (also for the
    /// recovery it runs first).
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
        let mut engine = Engine {
            workspace,
            store,
            lock_wait,
            recovered: RecoverOutcome::default(),
            tracked: std::sync::OnceLock::new(),
        };
        if !crate::journal::pending(&engine.store)?.is_empty() {
            engine.recovered = engine.recover()?;
        }
        Ok(engine)
    }

    /// How long to wait for another process's store lock. Default: 10 seconds.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// What [`Engine::new`] finished of interrupted changes (usually nothing).
    pub fn recovered(&self) -> &RecoverOutcome {
        &self.recovered
    }

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

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    pub(crate) fn lock(&self) -> Result<StoreLock, EngineError> {
        Ok(self.store.lock(self.lock_wait)?)
    }

    /// The files git tracks in the workspace (see [`crate::tracked`]), read once per engine.
    /// Every tree the engine snapshots (the workspace, a checkout, `--from DIR`, a verify
    /// workdir) is judged with the workspace's set, the one the store-side membership check
    /// of `patch` uses.
    pub(crate) fn tracked(
        &self,
    ) -> Result<std::sync::Arc<crate::tracked::TrackedFiles>, EngineError> {
        if let Some(t) = self.tracked.get() {
            return Ok(t.clone());
        }
        let t = std::sync::Arc::new(
            crate::tracked::TrackedFiles::discover(self.workspace.root())
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
    ) -> Result<std::sync::Arc<crate::tracked::TrackedFiles>, EngineError> {
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
    ) -> Result<SnapshotOptions, EngineError> {
        let mut o = SnapshotOptions {
            exclude: manifest.exclude.clone(),
            store_dir: Some(self.workspace.store_dir().to_path_buf()),
            tracked: self.tracked()?,
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
    ) -> Result<crate::snapshot::SnapshotOutcome, EngineError> {
        let mut opts = self.snapshot_options(manifest)?;
        opts.stat_cache = Some(self.store.stat_cache_path(dir));
        Ok(snapshot_dir(dir, &opts)?)
    }

    pub(crate) fn manifest_of(
        &self,
        state: &SessionState,
        session: &Session,
    ) -> Result<Manifest, EngineError> {
        let blob = state
            .manifest_blob
            .ok_or_else(|| EngineError::StateWithoutManifest {
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
    ) -> Result<Tree, EngineError> {
        let (snapshot, _) = self.store.read_snapshot(identity)?;
        Ok(Tree::from_parts(&self.store, snapshot, executable))
    }

    pub(crate) fn load_open(&self, id: &str) -> Result<(Session, SessionState), EngineError> {
        let (s, st) = session::load(&self.store, id)?;
        if s.status != Status::Open {
            return Err(EngineError::NotOpen {
                id: id.to_owned(),
                status: s.status,
            });
        }
        Ok((s, st))
    }

    /// Opens a session on the workspace as it is now (DESIGN section 4, `open`).
    ///
    /// # Errors
    /// [`ManifestError::Missing`] (says to run `genesis init` or pass `--manifest`), an invalid
    /// manifest, [`SessionError::Exists`], snapshot errors, and [`EngineError::Invalid`] for a
    /// checkout directory that is not empty or lies inside the workspace.
    pub fn open(&self, opts: &OpenOptions) -> Result<OpenOutcome, EngineError> {
        let _lock = self.lock()?;
        let id = opts.session.clone().unwrap_or_else(SessionId::generate);
        if session::exists(&self.store, &id) {
            return Err(SessionError::Exists(id).into());
        }
        let manifest_rel = match &opts.manifest {
            Some(m) => m.clone(),
            None => WorkspacePath::new(DEFAULT_MANIFEST).expect("valid"),
        };
        let root = self.workspace.root();
        let manifest = Manifest::load(&manifest_rel.to_fs_path(root))?;
        if let Some(dir) = &opts.checkout {
            if opts.in_place {
                return Err(EngineError::Invalid(
                    "--checkout and --in-place exclude each other: an in-place session edits the workspace itself".into(),
                ));
            }
            self.check_checkout_dir(dir)?;
        }
        let (outcome, _) = self
            .store
            .snapshot_into(root, &self.snapshot_options(&manifest)?)?;
        let Some(mfile) = outcome.snapshot.get(manifest_rel.as_str()).cloned() else {
            return Err(EngineError::Invalid(format!(
                "{manifest_rel}: the manifest is not in the workspace snapshot (it is ignored or excluded); a session's obligations come from its base snapshot"
            )));
        };
        // The manifest as stored (the exact bytes the obligations will come from).
        let manifest_bytes = self.store.read_object(&mfile.blob)?;
        Manifest::from_bytes(&manifest_bytes, &manifest_rel.to_fs_path(root))?;
        let identity = outcome.snapshot.identity();
        let session = Session {
            schema: SESSION_SCHEMA.into(),
            session: id,
            package_manifest: manifest_rel,
            base_snapshot: identity,
            current_snapshot: identity,
            status: Status::Open,
            patches: Vec::new(),
            verification: None,
        };
        let state = SessionState {
            snapshots: vec![SnapshotState {
                identity,
                executable: outcome.executable.clone(),
            }],
            manifest_blob: Some(mfile.blob),
            checkout: opts.checkout.clone(),
            logs: Vec::new(),
            in_place: opts.in_place,
            events: Default::default(),
            saved: None,
            // Found by the scan itself: the tracked files its walk left out (no extra cost).
            base_tracked: Some(outcome.tracked_only.clone()),
        };
        if let Some(dir) = &opts.checkout {
            materialize(
                &self.store,
                &outcome.snapshot,
                &outcome.executable,
                dir,
                &MaterializeOptions {
                    durable: false,
                    snapshot: self.snapshot_options(&manifest)?,
                    modes_from: Some(self.workspace.root().to_path_buf()),
                },
            )?;
        }
        session::save(&self.store, &session, &state)?;
        Ok(OpenOutcome {
            session,
            collisions: outcome.snapshot.fold_collisions(),
            skipped: outcome.skipped,
            checkout: opts.checkout.clone(),
        })
    }

    /// A directory Genesis writes for the agent or the obligations must lie apart from the
    /// workspace and the store: not equal to, inside, or above either, and not `/`.
    fn check_apart(&self, dir: &Path, what: &str) -> Result<(), EngineError> {
        let (root, store) = (self.workspace.root(), self.workspace.store_dir());
        if !crate::path::lies_apart(dir, &[root, store]) {
            return Err(EngineError::Invalid(format!(
                "{}: {what} must lie outside the workspace {} and the store {} (not inside or above either)",
                dir.display(),
                absolute_resolved(root).display(),
                absolute_resolved(store).display()
            )));
        }
        Ok(())
    }

    pub(crate) fn check_checkout_dir(&self, dir: &Path) -> Result<(), EngineError> {
        if let Ok(md) = std::fs::symlink_metadata(dir) {
            if !md.is_dir() {
                return Err(EngineError::Invalid(format!(
                    "{}: --checkout must be a new or empty directory",
                    dir.display()
                )));
            }
            let mut rd = std::fs::read_dir(dir).map_err(io_err(dir))?;
            if rd.next().is_some() {
                return Err(EngineError::Invalid(format!(
                    "{}: --checkout directory is not empty",
                    dir.display()
                )));
            }
        }
        self.check_apart(dir, "--checkout")
    }

    /// `verify --workdir DIR`: apart from the workspace and the store, and either new, empty,
    /// or a directory Genesis used as a workdir before (it holds [`WORKDIR_MARKER`]) — so a
    /// mistyped path never has its files deleted by the sync.
    fn check_workdir(&self, dir: &Path) -> Result<(), EngineError> {
        self.check_apart(dir, "--workdir")?;
        match std::fs::symlink_metadata(dir) {
            Err(_) => Ok(()),
            Ok(md) if !md.is_dir() => Err(EngineError::Invalid(format!(
                "{}: --workdir is not a directory",
                dir.display()
            ))),
            Ok(_) => {
                let mut rd = std::fs::read_dir(dir).map_err(io_err(dir))?;
                if rd.next().is_none() || dir.join(WORKDIR_MARKER).is_file() {
                    Ok(())
                } else {
                    Err(EngineError::Invalid(format!(
                        "{}: --workdir is not empty and was not made by Genesis (no {WORKDIR_MARKER}); give a new or empty directory",
                        dir.display()
                    )))
                }
            }
        }
    }

    /// Records a patch (DESIGN section 4, `patch`): applies a diff to the current snapshot in
    /// the store (never the workspace), or takes a directory's snapshot as the new state. All
    /// or nothing. With `verify`, also verifies the new snapshot.
    ///
    /// # Errors
    /// [`EngineError::NotOpen`], [`EngineError::Patch`] (names the file, hunk and line),
    /// [`EngineError::Invalid`] when the result breaks the v0.1 limits or the session already
    /// holds 4096 patches.
    pub fn patch(
        &self,
        id: &str,
        input: PatchInput<'_>,
        verify: Option<(&VerifyOptions, &mut dyn Observer)>,
    ) -> Result<PatchOutcome, EngineError> {
        let lock = self.lock()?;
        let (mut session, mut state) = self.load_open(id)?;
        if session.patches.len() >= MAX_PATCHES {
            return Err(EngineError::Invalid(format!(
                "session {id} holds {MAX_PATCHES} patches, the v0.1 limit; apply or abort it and open a new one"
            )));
        }
        let manifest = self.manifest_of(&state, &session)?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let root = self.workspace.root().to_path_buf();
        let input = match (input, state.in_place) {
            (PatchInput::Workspace, true) => PatchInput::Dir(&root),
            (PatchInput::Workspace, false) => {
                return Err(EngineError::Invalid(format!(
                    "session {id} is not in-place: give a diff (file or -) or --from DIR"
                )));
            }
            (_, true) => {
                return Err(EngineError::Invalid(format!(
                    "session {id} is in-place: its patches are recorded from the workspace; run `genesis patch {id}` without a diff"
                )));
            }
            (other, false) => other,
        };
        let mut skipped = Vec::new();
        let (new_snapshot, new_exec, text) = match input {
            PatchInput::Workspace => unreachable!("mapped above"),
            PatchInput::Diff(bytes) => {
                let outcome = apply_patch(bytes, &TreeImage(&current), &patch_options(&manifest))?;
                for p in outcome.changes.keys() {
                    if let Some(reason) = forbidden_path(p) {
                        return Err(EngineError::Unsafe {
                            path: p.to_string(),
                            reason: reason.into(),
                        });
                    }
                }
                let written: Vec<WorkspacePath> = outcome
                    .changes
                    .iter()
                    .filter(|(_, c)| matches!(c, FileChange::Write { .. }))
                    .map(|(p, _)| p.clone())
                    .collect();
                let (snap, exec, pending) = self.apply_changes(&current, outcome.changes)?;
                self.check_fs_limits(id, written.iter(), &snap)?;
                let tracked = self.tracked()?;
                let left_out =
                    crate::membership::left_out(&snap, &manifest.exclude, &tracked, |f| {
                        match pending.get(&f.blob) {
                            Some(data) => Ok(data.clone()),
                            None => self.store.read_object(&f.blob),
                        }
                    })?;
                if !left_out.is_empty() {
                    let list: Vec<String> = left_out
                        .iter()
                        .map(|l| format!("{} ({})", l.path, l.reason))
                        .collect();
                    return Err(EngineError::Invalid(format!(
                        "patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: {}",
                        list.join(", ")
                    )));
                }
                // Every check passed: only now does anything reach the store.
                for data in pending.values() {
                    self.store.write_object(data)?;
                }
                (snap, exec, bytes.to_vec())
            }
            PatchInput::Dir(dir) => {
                let (out, _) = self
                    .store
                    .snapshot_into(dir, &self.snapshot_options(&manifest)?)?;
                let new_tree =
                    Tree::from_parts(&self.store, out.snapshot.clone(), out.executable.clone());
                let list = changes(&current, &new_tree);
                if list.is_empty() {
                    drop(lock);
                    return Ok(PatchOutcome {
                        session,
                        entry: None,
                        changes: Vec::new(),
                        lines_added: 0,
                        lines_removed: 0,
                        static_results: Vec::new(),
                        verification: None,
                        skipped: out.skipped,
                    });
                }
                for c in &list {
                    if let Some(reason) = forbidden_path(&c.path) {
                        return Err(EngineError::Unsafe {
                            path: c.path.to_string(),
                            reason: reason.into(),
                        });
                    }
                }
                self.check_fs_limits(
                    id,
                    list.iter().filter(|c| c.new.is_some()).map(|c| &c.path),
                    &out.snapshot,
                )?;
                let mut text = Vec::new();
                write_git_diff(
                    &current,
                    &new_tree,
                    &list,
                    &DiffOptions::default(),
                    &mut text,
                )
                .map_err(|e| match e {
                    crate::diff::DiffError::Store(s) => EngineError::Store(s),
                    other => EngineError::Invalid(other.to_string()),
                })?;
                // The text goes through exactly the rules a submitted diff does, so what is
                // recorded always replays: a directory state the patch rules refuse (two names
                // that differ only by case, a path over the limits) is refused here too.
                let again = apply_patch(&text, &TreeImage(&current), &patch_options(&manifest))?;
                let (snap, exec, _) = self.apply_changes(&current, again.changes)?;
                if snap.identity() != out.snapshot.identity() || exec != out.executable {
                    return Err(EngineError::Invalid(format!(
                        "{}: the diff Genesis wrote for this directory gives snapshot {}, not the directory's {}; nothing recorded",
                        dir.display(),
                        snap.identity(),
                        out.snapshot.identity()
                    )));
                }
                skipped = out.skipped;
                (out.snapshot, out.executable, text)
            }
        };
        let new_tree = Tree::from_parts(&self.store, new_snapshot.clone(), new_exec.clone());
        let change_list = changes(&current, &new_tree);
        let (lines_added, lines_removed) = crate::diff::stats(&current, &new_tree, &change_list)
            .map(|st| {
                st.iter()
                    .fold((0, 0), |(a, r), s| (a + s.added, r + s.removed))
            })
            .unwrap_or((0, 0));
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let static_results = static_checks(&manifest, self.workspace.root(), &base, &new_tree);
        let patch_digest = self.store.write_object(&text)?;
        self.store.write_snapshot(&new_snapshot, &new_exec)?;
        let entry = PatchEntry {
            patch: patch_digest,
            before_snapshot: session.current_snapshot,
            after_snapshot: new_snapshot.identity(),
            obligations_ok: static_results.iter().all(|s| s.passed),
            acceptance: None,
        };
        session.patches.push(entry.clone());
        session.current_snapshot = new_snapshot.identity();
        session.verification = None;
        state.snapshots.push(SnapshotState {
            identity: new_snapshot.identity(),
            executable: new_exec,
        });
        state.logs.clear();
        session::save(&self.store, &session, &state)?;
        drop(lock);
        let mut outcome = PatchOutcome {
            session,
            entry: Some(entry),
            changes: change_list,
            lines_added,
            lines_removed,
            static_results,
            verification: None,
            skipped,
        };
        if let Some((vopts, observer)) = verify {
            let v = self.verify_inner(id, vopts, observer, true)?;
            outcome.session = v.session.clone();
            outcome.entry = outcome.session.patches.last().cloned();
            outcome.verification = Some(v);
        }
        Ok(outcome)
    }

    /// Refuses (exit 2) a patch whose result this system could not verify or apply: a path it
    /// writes with a component over [`crate::path::NAME_MAX`], or that, joined to the workspace
    /// root (with apply's staging name `.genesis-tmp-<session>-<n>` in place of its file name),
    /// is over [`crate::path::PATH_MAX`]; or **any** path of the result tree (`result`, also
    /// the files the patch did not touch, since verify writes them all) that the default verify
    /// scratch directory (`$TMPDIR/genesis-verify-<session>-XXXXXX`, with the materialiser's
    /// `.genesis-tmp-XXXXXX`) would push over those limits. Only paths longer than the shortest
    /// possible failure are examined (one length comparison a file). The lengths are those of
    /// this machine at patch time.
    fn check_fs_limits<'p>(
        &self,
        id: &str,
        written: impl Iterator<Item = &'p WorkspacePath>,
        result: &Snapshot,
    ) -> Result<(), EngineError> {
        use crate::path::FsPlace;
        let root = absolute_resolved(self.workspace.root());
        // Journal ops are numbered below 2 × 4096 (base plus current files): 4 digits; 5 kept.
        let staging = ".genesis-tmp-".len() + id.len() + 1 + 5;
        let places = [
            FsPlace {
                what: format!("the workspace {}", root.display()),
                dir_len: root.as_os_str().len(),
                temp_name_len: staging,
            },
            verify_place(&std::env::temp_dir(), id, true),
        ];
        for p in written {
            crate::path::check_fs_limits(p, &places)?;
        }
        for f in result.files() {
            crate::path::check_fs_limits(&f.path, &places[1..])?;
        }
        Ok(())
    }

    fn apply_changes(
        &self,
        current: &Tree,
        changes: BTreeMap<WorkspacePath, FileChange>,
    ) -> Result<(Snapshot, BTreeSet<WorkspacePath>, Pending), EngineError> {
        let mut pending = Pending::new();
        let mut files: BTreeMap<WorkspacePath, SnapshotFile> = current
            .snapshot
            .files()
            .iter()
            .map(|f| (f.path.clone(), f.clone()))
            .collect();
        let mut exec = current.executable.clone();
        for (path, change) in changes {
            match change {
                FileChange::Delete => {
                    files.remove(&path);
                    exec.remove(&path);
                }
                FileChange::Write { data, executable } => {
                    let blob = Digest::of(&data);
                    files.insert(
                        path.clone(),
                        SnapshotFile {
                            path: path.clone(),
                            blob,
                            bytes: data.len() as u64,
                        },
                    );
                    pending.insert(blob, data);
                    if executable {
                        exec.insert(path);
                    } else {
                        exec.remove(&path);
                    }
                }
            }
        }
        // A file and a directory of the same name cannot both exist.
        let names: BTreeSet<&str> = files.keys().map(WorkspacePath::as_str).collect();
        for p in &names {
            let mut prefix = *p;
            while let Some((parent, _)) = prefix.rsplit_once('/') {
                if names.contains(parent) {
                    return Err(EngineError::Invalid(format!(
                        "{parent}: the patch leaves both a file {parent:?} and a file {p:?} inside a directory of that name"
                    )));
                }
                prefix = parent;
            }
        }
        let snap = Snapshot::from_files(files.into_values().collect()).map_err(|e| match e {
            SnapshotDocumentError::TooManyFiles { count } => EngineError::Invalid(format!(
                "the patch would leave {count} files, more than the v0.1 limit of 4096"
            )),
            other => EngineError::Invalid(other.to_string()),
        })?;
        Ok((snap, exec, pending))
    }

    /// Verifies the current snapshot (DESIGN section 4, `verify`): materialises it, runs each
    /// command obligation of the manifest **as it is in the base snapshot**, stores outputs as
    /// log objects and the acceptance record, and writes `verification`.
    ///
    /// # Errors
    /// [`EngineError::NotOpen`]; [`EngineError::Conflict`] if another patch landed while the
    /// obligations ran; materialisation and store errors.
    pub fn verify(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
    ) -> Result<VerifyOutcome, EngineError> {
        self.verify_inner(id, opts, observer, false)
    }

    /// [`Engine::verify`], and when the last patch's `after_snapshot` is the verified snapshot,
    /// also records the acceptance in that patch entry (as `patch --verify` does). For callers
    /// that record a patch and then verify it in a second call (`genesis bpt`).
    ///
    /// # Errors
    /// As [`Engine::verify`].
    pub fn verify_patch(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
    ) -> Result<VerifyOutcome, EngineError> {
        self.verify_inner(id, opts, observer, true)
    }

    fn verify_inner(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
        mark_last_patch: bool,
    ) -> Result<VerifyOutcome, EngineError> {
        let (session, state) = {
            let _lock = self.lock()?;
            self.load_open(id)?
        };
        let manifest = self.manifest_of(&state, &session)?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let static_results = static_checks(&manifest, self.workspace.root(), &base, &current);
        // Every file of the snapshot is written under the directory: refuse before anything is
        // made, naming the path and the limit, rather than fail half way with an I/O error (the
        // limits at patch time used the TMPDIR of that moment).
        let place = match &opts.workdir {
            Some(d) => verify_place(d, id, false),
            None => verify_place(&std::env::temp_dir(), id, true),
        };
        for f in current.snapshot.files() {
            crate::path::check_fs_limits(&f.path, std::slice::from_ref(&place))
                .map_err(|source| EngineError::VerifyPathLimit { source })?;
        }
        let scratch;
        let workdir: PathBuf = match &opts.workdir {
            Some(d) => {
                self.check_workdir(d)?;
                d.clone()
            }
            None => {
                scratch = tempfile::Builder::new()
                    .prefix(&format!("genesis-verify-{id}-"))
                    .tempdir()
                    .map_err(io_err(&std::env::temp_dir()))?;
                scratch.path().to_path_buf()
            }
        };
        let mut mopts = MaterializeOptions {
            durable: false,
            snapshot: self.snapshot_options(&manifest)?,
            modes_from: Some(self.workspace.root().to_path_buf()),
        };
        mopts.snapshot.exclude.push(format!("/{WORKDIR_MARKER}"));
        materialize(
            &self.store,
            &current.snapshot,
            &current.executable,
            &workdir,
            &mopts,
        )?;
        if opts.workdir.is_some() {
            let marker = workdir.join(WORKDIR_MARKER);
            std::fs::write(&marker, b"This directory is a Genesis verify workdir; Genesis syncs it to each snapshot it verifies.\n")
                .map_err(io_err(&marker))?;
        }
        let mut env = vec![
            ("GENESIS_SESSION".to_owned(), id.to_owned()),
            (
                "GENESIS_SNAPSHOT".to_owned(),
                session.current_snapshot.to_string(),
            ),
        ];
        env.extend(opts.env.iter().cloned());
        let redactor = crate::events::Redactor::new(opts.secrets.clone());
        let mut results = Vec::new();
        let mut logs = Vec::new();
        let obligations: Vec<&crate::manifest::Obligation> = manifest
            .obligations
            .iter()
            .chain(opts.extra_obligations.iter())
            .collect();
        let total = obligations.len();
        for (index, ob) in obligations.into_iter().enumerate() {
            if crate::obligation::interrupted() {
                return Err(EngineError::Interrupted(ob.id.clone()));
            }
            observer.obligation_started(&ob.id, &ob.run, index, total);
            let mut carry = [String::new(), String::new()];
            let mut partial: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
            let mut r = run_command(ob, &workdir, &env, &mut |stream, data| {
                let slot = usize::from(stream == crate::events::Stream::Stderr);
                let text = utf8_pieces(&mut partial[slot], data);
                let clean = redactor.redact_chunk(&mut carry[slot], &text, false);
                if !clean.is_empty() {
                    observer.obligation_output(&ob.id, stream, clean.as_bytes());
                }
            });
            for (slot, stream) in [crate::events::Stream::Stdout, crate::events::Stream::Stderr]
                .into_iter()
                .enumerate()
            {
                let rest = redactor.redact_chunk(&mut carry[slot], "", true);
                if !rest.is_empty() {
                    observer.obligation_output(&ob.id, stream, rest.as_bytes());
                }
            }
            if !redactor.is_empty() {
                r.stdout = redactor
                    .redact(&String::from_utf8_lossy(&r.stdout))
                    .into_bytes();
                r.stderr = redactor
                    .redact(&String::from_utf8_lossy(&r.stderr))
                    .into_bytes();
            }
            observer.obligation_finished(&r, index, total);
            if r.interrupted {
                return Err(EngineError::Interrupted(ob.id.clone()));
            }
            logs.push(ObligationLog {
                id: ob.id.clone(),
                snapshot: session.current_snapshot,
                stdout: self.store.write_object(&r.stdout)?,
                stderr: self.store.write_object(&r.stderr)?,
                exit_code: r.exit_code,
                timed_out: r.timed_out,
                seconds: r.seconds,
            });
            results.push(r);
        }
        let manifest_blob = state.manifest_blob.expect("checked by manifest_of");
        let record = AcceptanceRecord::new(
            session.current_snapshot,
            manifest_blob,
            static_results,
            &results,
        );
        let acceptance = self.store.write_object(&record.canonical_bytes())?;
        let _lock = self.lock()?;
        let (mut session2, mut state2) = self.load_open(id)?;
        if session2.current_snapshot != session.current_snapshot {
            return Err(EngineError::SessionMoved {
                id: id.to_owned(),
                verified: session.current_snapshot,
                now: session2.current_snapshot,
            });
        }
        session2.verification = Some(Verification {
            snapshot: session.current_snapshot,
            acceptance,
            obligations_ok: record.obligations_ok,
        });
        if mark_last_patch
            && let Some(last) = session2.patches.last_mut()
            && last.after_snapshot == session.current_snapshot
        {
            last.acceptance = Some(acceptance);
        }
        state2.logs = logs;
        session::save(&self.store, &session2, &state2)?;
        Ok(VerifyOutcome {
            session: session2,
            record,
            acceptance,
            results,
        })
    }

    /// Applies the session to the workspace (DESIGN section 4, `apply`): requires status
    /// `open` and a passing verification of the current snapshot; every changed path must
    /// still hold its base content on disk (`strict`: the whole workspace must equal the
    /// base); then every change is written (temp file in the target directory, fsync, rename),
    /// and the session becomes `applied`.
    ///
    /// # Errors
    /// [`EngineError::NotOpen`], [`EngineError::NotVerified`], [`EngineError::Conflict`]
    /// listing the paths (nothing written), [`EngineError::Unsafe`], [`EngineError::Io`].
    pub fn apply(&self, id: &str, opts: &ApplyOptions) -> Result<ApplyOutcome, EngineError> {
        let _lock = self.lock()?;
        let (mut session, state) = self.load_open(id)?;
        match &session.verification {
            None => {
                return Err(EngineError::NotVerified {
                    id: id.into(),
                    reason: "it has not been verified; run `genesis verify` first".into(),
                });
            }
            Some(v) if v.snapshot != session.current_snapshot => {
                return Err(EngineError::NotVerified {
                    id: id.into(),
                    reason: format!(
                        "the verification is of snapshot {}, not the current snapshot {}; run `genesis verify` again",
                        v.snapshot, session.current_snapshot
                    ),
                });
            }
            Some(v) if !v.obligations_ok => {
                return Err(EngineError::NotVerified {
                    id: id.into(),
                    reason: format!(
                        "its obligations failed (acceptance {}); `genesis status {id}` shows which",
                        v.acceptance
                    ),
                });
            }
            Some(v) => self.check_acceptance(id, &session, &state, v.acceptance)?,
        }
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let list = changes(&base, &current);
        for c in &list {
            if let Some(reason) = forbidden_path(&c.path) {
                return Err(EngineError::Unsafe {
                    path: c.path.to_string(),
                    reason: reason.into(),
                });
            }
        }
        let root = self.workspace.root().to_path_buf();
        let conflicts = if state.in_place {
            // The agent wrote the workspace itself: it must still equal the current snapshot.
            let manifest = self.manifest_of(&state, &session)?;
            let now = self.snapshot_cached(&root, &manifest)?;
            let now_tree = Tree::from_parts(&self.store, now.snapshot, now.executable);
            changes(&current, &now_tree)
                .into_iter()
                .map(|c| {
                    (
                        c.path.to_string(),
                        "differs from the session's current snapshot; record it with `genesis patch` and verify again".to_owned(),
                    )
                })
                .collect()
        } else {
            let mut conflicts = crate::apply::check_preconditions(&root, &list);
            if opts.strict {
                let manifest = self.manifest_of(&state, &session)?;
                let now = self.snapshot_cached(&root, &manifest)?;
                let now_tree = Tree::from_parts(&self.store, now.snapshot, now.executable);
                for c in changes(&base, &now_tree) {
                    let p = c.path.to_string();
                    if !conflicts.iter().any(|(q, _)| *q == p) {
                        conflicts.push((p, "differs from the base snapshot (--strict)".into()));
                    }
                }
                conflicts.sort();
            }
            conflicts
        };
        if !conflicts.is_empty() {
            return Err(EngineError::Conflict {
                id: id.into(),
                conflicts,
            });
        }
        if opts.dry_run {
            return Ok(ApplyOutcome {
                session,
                changes: list,
                written: false,
            });
        }
        if state.in_place {
            // Already on disk: only the status changes.
            session.status = Status::Applied;
            session::save(&self.store, &session, &state)?;
            return Ok(ApplyOutcome {
                session,
                changes: list,
                written: true,
            });
        }
        let journal = Journal {
            schema: crate::journal::JOURNAL_SCHEMA.into(),
            session: id.to_owned(),
            final_status: Status::Applied,
            ops: list.iter().map(journal_op).collect(),
        };
        self.run_journal(&journal)?;
        session.status = Status::Applied;
        Ok(ApplyOutcome {
            session,
            changes: list,
            written: true,
        })
    }

    /// The acceptance record named by a verification must be in the store, be of the current
    /// snapshot and the base manifest, and say that every static rule and every obligation of
    /// that manifest passed — a session document edited by hand cannot skip verification.
    fn check_acceptance(
        &self,
        id: &str,
        session: &Session,
        state: &SessionState,
        acceptance: Digest,
    ) -> Result<(), EngineError> {
        let refuse = |reason: String| EngineError::NotVerified {
            id: id.into(),
            reason,
        };
        let bytes = self.store.read_object(&acceptance).map_err(|e| {
            refuse(format!(
                "its acceptance record {acceptance} cannot be read ({e}); run `genesis verify` again"
            ))
        })?;
        let record: AcceptanceRecord = crate::json::from_slice(&bytes).map_err(|e| match e {
            crate::json::JsonError::Duplicate(source) => {
                EngineError::Store(StoreError::DuplicateKey {
                    path: self.store.object_path(&acceptance),
                    source,
                })
            }
            e => refuse(format!(
                "its acceptance record {acceptance} is not valid: {e}"
            )),
        })?;
        let manifest = self.manifest_of(state, session)?;
        let ids: Vec<&str> = manifest.obligations.iter().map(|o| o.id.as_str()).collect();
        let recorded: Vec<&str> = record.obligations.iter().map(|o| o.id.as_str()).collect();
        let ok = record.schema == crate::obligation::ACCEPTANCE_SCHEMA
            && record.snapshot == session.current_snapshot
            && Some(record.manifest) == state.manifest_blob
            // Extra obligations of the verification (VerifyOptions::extra_obligations, a BPT
            // request's `commands.post`) run after the manifest's and must pass too.
            && recorded.starts_with(&ids)
            && record.obligations_ok
            && record.static_results.iter().all(|s| s.passed)
            && record.obligations.iter().all(|o| o.passed);
        if !ok {
            return Err(refuse(format!(
                "its acceptance record {acceptance} does not show every obligation of the base manifest passing on the current snapshot; run `genesis verify` again"
            )));
        }
        Ok(())
    }

    /// The size of the session's change from base to current (reads the changed blobs).
    ///
    /// # Errors
    /// Store errors.
    pub fn impact(&self, session: &Session, state: &SessionState) -> Result<Impact, EngineError> {
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let list = changes(&base, &current);
        let stats = crate::diff::stats(&base, &current, &list).map_err(|e| match e {
            crate::diff::DiffError::Store(s) => EngineError::Store(s),
            other => EngineError::Invalid(other.to_string()),
        })?;
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
        let _lock = self.lock()?;
        let (s, mut state) = session::load(&self.store, id)?;
        state.events = counters.clone();
        session::save(&self.store, &s, &state)?;
        Ok(())
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

    /// Re-derives every `after_snapshot` from the stored patch texts, in order, each applied
    /// to its recorded `before_snapshot`. Every snapshot document the session names is read
    /// and checked first, also when there is no patch.
    ///
    /// # Errors
    /// Session and store errors (a stored snapshot document with a key twice is
    /// [`StoreError::DuplicateKey`]); a patch that no longer applies is reported in its step.
    pub fn replay(&self, id: &str) -> Result<Vec<ReplayStep>, EngineError> {
        let (session, state) = session::load(&self.store, id)?;
        // Every snapshot the session names is read (strictly), also with no patch to replay,
        // so a stored document that was edited is reported, not trusted by its name.
        for s in &state.snapshots {
            self.store.read_snapshot(&s.identity)?;
        }
        let manifest = self.manifest_of(&state, &session)?;
        let popts = patch_options(&manifest);
        let mut steps = Vec::new();
        for (i, entry) in session.patches.iter().enumerate() {
            let before = self.tree(
                &entry.before_snapshot,
                state.snapshots[i].executable.clone(),
            )?;
            let text = self.store.read_object(&entry.patch)?;
            let step = match apply_patch(&text, &TreeImage(&before), &popts) {
                Ok(out) => match self.apply_changes(&before, out.changes) {
                    Ok((snap, exec, _)) => ReplayStep {
                        index: i,
                        recorded: entry.after_snapshot,
                        replayed: Some(snap.identity()),
                        modes_match: exec == state.snapshots[i + 1].executable,
                        error: None,
                    },
                    Err(e) => ReplayStep {
                        index: i,
                        recorded: entry.after_snapshot,
                        replayed: None,
                        modes_match: false,
                        error: Some(e.to_string()),
                    },
                },
                Err(e) => ReplayStep {
                    index: i,
                    recorded: entry.after_snapshot,
                    replayed: None,
                    modes_match: false,
                    error: Some(e.to_string()),
                },
            };
            steps.push(step);
        }
        Ok(steps)
    }
}

/// The patch rules' limits under `manifest` (its `limits.max_patch_bytes`, if set), the same
/// for a submitted diff, `patch --from` and `replay`.
fn patch_options(manifest: &Manifest) -> crate::patch::ApplyOptions {
    let mut popts = crate::patch::ApplyOptions::default();
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

/// Appends `data` to `partial` and takes out the longest prefix that is whole UTF-8 (invalid
/// bytes become U+FFFD), keeping a character split across two reads for the next call.
fn utf8_pieces(partial: &mut Vec<u8>, data: &[u8]) -> String {
    partial.extend_from_slice(data);
    let cut = match std::str::from_utf8(partial) {
        Ok(_) => partial.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => partial.len(),
    };
    let text = String::from_utf8_lossy(&partial[..cut]).into_owned();
    partial.drain(..cut);
    text
}
