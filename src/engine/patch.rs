//! `patch` (DESIGN section 4): record a diff or a directory state as a patch, in the store.

use super::*;

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

/// Errors of [`Engine::patch`]: only what patch can return (named so, not `PatchError`, which
/// is [`crate::patch::PatchError`], one of its causes). Each converts into the
/// [`EngineError`] variant of the same name ([`PatchSessionError::Verify`]: the verify
/// error's); [`PatchSessionError::kind`] classifies it.
#[derive(Debug, thiserror::Error)]
pub enum PatchSessionError {
    /// Store failure, corruption or lock (another process holds it: retryable).
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
    /// The session's engine state names no manifest (store corruption).
    #[error("session {id}: the engine state {} records no manifest (store corruption)", .path.display())]
    StateWithoutManifest {
        /// The session.
        id: String,
        /// Its engine state file.
        path: PathBuf,
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
    /// A diff or `--from DIR` for an in-place session (`in_place`), or no diff for a session
    /// that is not in-place.
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
    /// `patch --from` the session's `--checkout` directory after a `rebase` that left it as
    /// it was: the checkout was made from `made_from`, a snapshot of the chain the rebase
    /// replaced, so its state would undo the workspace changes the rebase merged in. Nothing
    /// recorded; State (exit 3).
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
    /// The diff was refused (names the file, hunk and line); nothing was recorded.
    #[error("patch refused, nothing recorded: {0}")]
    Patch(#[from] PatchError),
    /// A change that must never be written (into `.git`, the store, or through a link).
    #[error("{path}: refused: {reason}")]
    Unsafe {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The result holds paths the snapshot rules leave out; nothing was recorded.
    #[error(
        "patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: {}",
        .paths.iter().map(|l| format!("{} ({})", l.path, l.reason)).collect::<Vec<_>>().join(", ")
    )]
    LeftOut {
        /// Each path with the rule that leaves it out.
        paths: Vec<crate::membership::LeftOut>,
    },
    /// A path the patch writes could not be verified or applied on this system (NAME_MAX,
    /// PATH_MAX); nothing was recorded.
    #[error("patch refused, nothing recorded: {0}")]
    PathLimit(#[from] crate::path::FsLimitError),
    /// The diff Genesis wrote for `--from DIR` does not give the directory's snapshot back.
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
    /// A result over a v0.1 limit (`what`: `files`).
    #[error("the patch would leave {actual} {what}, more than the v0.1 limit of {limit}")]
    OverLimit {
        /// What is counted.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// The count.
        actual: usize,
    },
    /// The snapshot the patch leaves is not a valid snapshot document (other than its size).
    #[error(transparent)]
    SnapshotDocument(SnapshotDocumentError),
    /// Snapshotting `--from DIR` or the workspace failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// Copying a file into the store while snapshotting failed.
    #[error("{}: {source}", .path.display())]
    Ingest {
        /// The file being copied, or the store directory.
        path: PathBuf,
        /// The store's error.
        source: StoreError,
    },
    /// Making the diff of `--from DIR` failed (a corrupt store object is exit 4).
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// The patch was recorded; the verification asked for with it failed.
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

super::from_session_access!(PatchSessionError);

impl From<crate::store::SnapshotIntoError> for PatchSessionError {
    fn from(e: crate::store::SnapshotIntoError) -> Self {
        use crate::store::SnapshotIntoError as E;
        match e {
            E::Snapshot(s) => PatchSessionError::Snapshot(s),
            E::Store(s) => PatchSessionError::Store(s),
            E::Ingest { path, source } => PatchSessionError::Ingest { path, source },
        }
    }
}

impl From<PatchSessionError> for EngineError {
    fn from(e: PatchSessionError) -> Self {
        use PatchSessionError as P;
        match e {
            P::Store(s) => EngineError::Store(s),
            P::Session(s) => EngineError::Session(s),
            P::NotOpen { id, status } => EngineError::NotOpen { id, status },
            P::RecoveryPending { id, journal } => EngineError::RecoveryPending { id, journal },
            P::Manifest(m) => EngineError::Manifest(m),
            P::StateWithoutManifest { id, path } => EngineError::StateWithoutManifest { id, path },
            P::TooManyPatches { id, limit } => EngineError::TooManyPatches { id, limit },
            P::PatchInputMismatch { id, in_place } => {
                EngineError::PatchInputMismatch { id, in_place }
            }
            P::Patch(p) => EngineError::Patch(p),
            P::StaleCheckout {
                id,
                dir,
                made_from,
                current,
            } => EngineError::StaleCheckout {
                id,
                dir,
                made_from,
                current,
            },
            P::PulledPastCheckout {
                id,
                dir,
                made_from,
                current,
            } => EngineError::PulledPastCheckout {
                id,
                dir,
                made_from,
                current,
            },
            P::Unsafe { path, reason } => EngineError::Unsafe { path, reason },
            P::LeftOut { paths } => EngineError::LeftOut { paths },
            P::PathLimit(l) => EngineError::PathLimit(l),
            P::DirNotReproduced {
                dir,
                written,
                expected,
            } => EngineError::DirNotReproduced {
                dir,
                written,
                expected,
            },
            P::FileUnderFile { parent, path } => EngineError::FileUnderFile { parent, path },
            P::OverLimit {
                what,
                limit,
                actual,
            } => EngineError::OverLimit {
                what,
                limit,
                actual,
            },
            P::SnapshotDocument(d) => EngineError::SnapshotDocument(d),
            P::Snapshot(s) => EngineError::Snapshot(s),
            P::Ingest { path, source } => EngineError::Ingest { path, source },
            P::Diff(d) => EngineError::Diff(d),
            P::Verify(v) => v.into(),
        }
    }
}

/// What a patch gives: the new snapshot, its executable paths, and the patch text recorded.
type Patched = (Snapshot, BTreeSet<WorkspacePath>, Vec<u8>);

impl Engine {
    /// Records a patch (DESIGN section 4, `patch`): applies a diff to the current snapshot in
    /// the store (never the workspace), or takes a directory's snapshot as the new state. All
    /// or nothing. With `verify`, also verifies the new snapshot.
    ///
    /// # Errors
    /// [`PatchSessionError::NotOpen`], [`PatchSessionError::Patch`] (names the file, hunk and line),
    /// [`PatchSessionError::PatchInputMismatch`], [`PatchSessionError::Unsafe`], [`PatchSessionError::LeftOut`],
    /// [`PatchSessionError::OverLimit`] or [`PatchSessionError::FileUnderFile`] when the result breaks the
    /// v0.1 rules, [`PatchSessionError::TooManyPatches`] when the session already holds 4096
    /// patches; [`PatchSessionError::Diff`] (a corrupt store object is exit 4); with `verify`,
    /// [`PatchSessionError::Verify`] (the patch is recorded then).
    ///
    /// # Events
    /// [`EventKind::PatchRecorded`] when a patch was recorded (also when the verification
    /// then fails: the patch stays recorded); then, with `verify`, the events of
    /// [`Engine::verify`]: the obligation events, `Verified`, then `ApprovalNeeded` or the
    /// failure event. A failure is returned, not emitted.
    pub fn patch(
        &self,
        id: &str,
        input: PatchInput<'_>,
        verify: Option<&VerifyOptions>,
        observer: &mut dyn Observer,
    ) -> Result<PatchOutcome, PatchSessionError> {
        let mut out = self.patch_inner(id, input)?;
        let Some(e) = &out.entry else {
            return Ok(out);
        };
        // Recorded, so said at once: before the verification's events, and also when the
        // verification then fails (the patch stays recorded).
        observer.event(&patch_recorded(
            &out.session,
            e,
            out.changes.len(),
            (out.lines_added, out.lines_removed),
        ));
        if let Some(vopts) = verify {
            let v = self.verify_inner(id, vopts, observer, true)?;
            out.session = v.session.clone();
            out.entry = out.session.patches.last().cloned();
            super::verify::report_verified(&v, vopts, observer);
            out.verification = Some(v);
        }
        Ok(out)
    }

    fn patch_inner(
        &self,
        id: &str,
        input: PatchInput<'_>,
    ) -> Result<PatchOutcome, PatchSessionError> {
        let mut guard = self.locked(id, true)?;
        let (session, state) = (guard.session(), guard.state());
        if session.patches.len() >= MAX_PATCHES {
            return Err(PatchSessionError::TooManyPatches {
                id: id.to_owned(),
                limit: MAX_PATCHES,
            });
        }
        let manifest = self.manifest_of(state, session)?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let root = self.workspace.root().to_path_buf();
        let input = match (input, state.in_place) {
            (PatchInput::Workspace, true) => PatchInput::Dir(&root),
            (PatchInput::Workspace, false) => {
                return Err(PatchSessionError::PatchInputMismatch {
                    id: id.to_owned(),
                    in_place: false,
                });
            }
            (_, true) => {
                return Err(PatchSessionError::PatchInputMismatch {
                    id: id.to_owned(),
                    in_place: true,
                });
            }
            (other, false) => other,
        };
        let from_checkout = refuse_stale_checkout(id, session, state, &input)?;
        let mut skipped = Vec::new();
        let (new_snapshot, new_exec, text) = match input {
            PatchInput::Workspace => unreachable!("mapped above"),
            PatchInput::Diff(bytes) => {
                let base_tracked = self.base_tracked(state)?;
                self.patched_by_diff(id, bytes, &current, &manifest, &base_tracked)?
            }
            PatchInput::Dir(dir) => match self.patched_by_dir(
                id,
                dir,
                &current,
                &manifest,
                &*self.base_tracked(state)?,
            )? {
                (Some(patched), dir_skipped) => {
                    skipped = dir_skipped;
                    patched
                }
                (None, dir_skipped) => {
                    // Nothing to record: the lock goes, nothing is written.
                    return Ok(PatchOutcome {
                        session: guard.release().0,
                        entry: None,
                        changes: Vec::new(),
                        lines_added: 0,
                        lines_removed: 0,
                        static_results: Vec::new(),
                        verification: None,
                        skipped: dir_skipped,
                    });
                }
            },
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
        let (session, state) = guard.parts_mut();
        session.patches.push(entry.clone());
        session.current_snapshot = new_snapshot.identity();
        session.verification = None;
        state.snapshots.push(SnapshotState {
            identity: new_snapshot.identity(),
            executable: new_exec,
        });
        state.logs.clear();
        // A changed path is taken as resolved (git: `add` marks a path merged).
        (state.conflict_markers).retain(|p| !change_list.iter().any(|c| c.path == *p));
        if from_checkout {
            state.checkout_from = Some(new_snapshot.identity());
        }
        let (session, _) = guard.commit()?;
        Ok(PatchOutcome {
            session,
            entry: Some(entry),
            changes: change_list,
            lines_added,
            lines_removed,
            static_results,
            verification: None,
            skipped,
        })
    }

    /// The snapshot, executable bits and text a submitted diff gives on `current`, with every
    /// rule checked (forbidden paths, file-system limits, membership); the new blobs are
    /// stored only once all passed.
    ///
    /// Membership: files git tracks are exempt from `.gitignore` — those the index tracks
    /// now, and the session's recorded tracked members of the base (`base_tracked`) at every
    /// path this patch does not touch. So `git rm --cached Cargo.lock` during the session does
    /// not block an unrelated patch; a patch that writes or deletes such a file is judged with
    /// the index of the moment, and its refusal says that git no longer tracks the file.
    pub(super) fn patched_by_diff(
        &self,
        id: &str,
        bytes: &[u8],
        current: &Tree,
        manifest: &Manifest,
        base_tracked: &crate::tracked::TrackedFiles,
    ) -> Result<Patched, PatchSessionError> {
        let outcome = apply_patch(bytes, &TreeImage(current), &patch_rules(manifest))?;
        let touched: BTreeSet<String> = outcome.changes.keys().map(|p| p.to_string()).collect();
        for p in outcome.changes.keys() {
            if let Some(reason) = forbidden_path(p) {
                return Err(PatchSessionError::Unsafe {
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
        let (snap, exec, pending) = self.apply_changes(current, outcome.changes)?;
        self.check_fs_limits(id, written.iter(), &snap, current)?;
        self.check_membership(&snap, manifest, base_tracked, &touched, &pending)?;
        // Every check passed: only now does anything reach the store.
        for data in pending.values() {
            self.store.write_object(data)?;
        }
        Ok((snap, exec, bytes.to_vec()))
    }

    /// Refuses ([`PatchSessionError::LeftOut`]) a result `snap` holding a path the snapshot rules
    /// leave out. Files git tracks are exempt from `.gitignore`: those the index tracks now,
    /// and the base's recorded tracked members (`base_tracked`) at every path not in
    /// `touched` (the paths the patch changes); a refused path git tracked at open but not
    /// now says so. Ignore files are read from `pending` (new blobs) or the store.
    fn check_membership(
        &self,
        snap: &Snapshot,
        manifest: &Manifest,
        base_tracked: &crate::tracked::TrackedFiles,
        touched: &BTreeSet<String>,
        pending: &Pending,
    ) -> Result<(), PatchSessionError> {
        let now = self.tracked()?;
        let tracked = now.with_paths(base_tracked.iter().filter(|p| !touched.contains(*p)));
        let mut left_out = crate::membership::left_out(snap, &manifest.exclude, &tracked, |f| {
            match pending.get(&f.blob) {
                Some(data) => Ok(data.clone()),
                None => self.store.read_object(&f.blob),
            }
        })?;
        for l in &mut left_out {
            if base_tracked.contains(&l.path) && !now.contains(&l.path) {
                l.reason = format!(
                    "{}; git no longer tracks it, as it did when the session opened",
                    l.reason
                );
            }
        }
        if !left_out.is_empty() {
            return Err(PatchSessionError::LeftOut { paths: left_out });
        }
        Ok(())
    }

    /// The snapshot, executable bits and the diff Genesis writes for the directory `dir`
    /// (`None` when it equals `current`), and the entries its snapshot left out. The diff goes
    /// through the same rules as a submitted one. The directory is snapshotted with the base's
    /// recorded tracked members added to the index of the moment, so a file untracked during
    /// the session (`git rm --cached Cargo.lock`) is not recorded as deleted; if the directory
    /// changed such a file, the membership rule of [`Engine::check_membership`] refuses it.
    fn patched_by_dir(
        &self,
        id: &str,
        dir: &Path,
        current: &Tree,
        manifest: &Manifest,
        base_tracked: &crate::tracked::TrackedFiles,
    ) -> Result<(Option<Patched>, Vec<Skipped>), PatchSessionError> {
        // The store and `.git` directories are records, never a state to record.
        if let Some(what) = self.workspace.reserved(dir) {
            return Err(PatchSessionError::Unsafe {
                path: dir.display().to_string(),
                reason: format!("inside {what}, which is no tree of the workspace"),
            });
        }
        let mut opts = self.snapshot_options(manifest)?;
        opts.tracked = std::sync::Arc::new(opts.tracked.with_paths(base_tracked.iter()));
        let (out, _) = self.store.snapshot_into(dir, &opts)?;
        let new_tree = Tree::from_parts(&self.store, out.snapshot.clone(), out.executable.clone());
        let list = changes(current, &new_tree);
        if list.is_empty() {
            return Ok((None, out.skipped));
        }
        let touched: BTreeSet<String> = list.iter().map(|c| c.path.to_string()).collect();
        self.check_membership(
            &out.snapshot,
            manifest,
            base_tracked,
            &touched,
            &Pending::new(),
        )?;
        for c in &list {
            if let Some(reason) = forbidden_path(&c.path) {
                return Err(PatchSessionError::Unsafe {
                    path: c.path.to_string(),
                    reason: reason.into(),
                });
            }
        }
        self.check_fs_limits(
            id,
            list.iter().filter(|c| c.new.is_some()).map(|c| &c.path),
            &out.snapshot,
            current,
        )?;
        let text = super::patch_text::bounded_diff(current, &new_tree, &list, manifest)?;
        // The text goes through exactly the rules a submitted diff does, so what is
        // recorded always replays: a directory state the patch rules refuse (two names
        // that differ only by case, a path over the limits) is refused here too.
        let again = apply_patch(&text, &TreeImage(current), &patch_rules(manifest))?;
        let (snap, exec, _) = self.apply_changes(current, again.changes)?;
        if snap.identity() != out.snapshot.identity() || exec != out.executable {
            return Err(PatchSessionError::DirNotReproduced {
                dir: dir.to_path_buf(),
                written: snap.identity(),
                expected: out.snapshot.identity(),
            });
        }
        Ok((Some((out.snapshot, out.executable, text)), out.skipped))
    }

    /// Refuses (exit 2) a patch whose result this system could not verify or apply: a path it
    /// writes with a component over [`crate::path::NAME_MAX`], or that, joined to the workspace
    /// root (with apply's staging name `.genesis-tmp-<session>-<n>` in place of its file name),
    /// is over [`crate::path::PATH_MAX`]; or **any** path of the result tree (`result`, also
    /// the files the patch did not touch, since verify writes them all) that the default verify
    /// scratch directory (`$TMPDIR/genesis-verify-<session>-pNNNNNNN-XXXXXX`, NNNNNNN the pid, with the materialiser's
    /// `.genesis-tmp-XXXXXX`) would push over those limits. Only paths longer than the shortest
    /// possible failure are examined (one length comparison a file). The lengths are those of
    /// this machine at patch time.
    fn check_fs_limits<'p>(
        &self,
        id: &str,
        written: impl Iterator<Item = &'p WorkspacePath>,
        result: &Snapshot,
        before: &Tree,
    ) -> Result<(), PatchSessionError> {
        use crate::path::FsPlace;
        let root = absolute_resolved(self.workspace.root());
        let files = result.files().len().max(before.snapshot.files().len());
        let staging = super::patch_text::staging_name_len(id, files);
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

    pub(super) fn apply_changes(
        &self,
        current: &Tree,
        changes: BTreeMap<WorkspacePath, FileChange>,
    ) -> Result<(Snapshot, BTreeSet<WorkspacePath>, Pending), PatchSessionError> {
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
                    return Err(PatchSessionError::FileUnderFile {
                        parent: parent.to_owned(),
                        path: (*p).to_owned(),
                    });
                }
                prefix = parent;
            }
        }
        let snap = Snapshot::with_executable(
            files.into_values().collect(),
            &exec,
            Some(&current.snapshot),
        )
        .map_err(PatchSessionError::SnapshotDocument)?;
        Ok((snap, exec, pending))
    }
}

/// Whether `input` is the session's `--checkout` directory (compared resolved, so `./co` and
/// an absolute spelling are the same); refused ([`PatchSessionError::StaleCheckout`]) when
/// the snapshot it was last made from is not in the session's current chain (a rebase
/// replaced the chain and left the checkout as it was).
fn refuse_stale_checkout(
    id: &str,
    session: &Session,
    state: &SessionState,
    input: &PatchInput<'_>,
) -> Result<bool, PatchSessionError> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (PatchInput::Dir(dir), Some(co)) = (input, state.checkout.as_deref()) else {
        return Ok(false);
    };
    if canon(co) != canon(dir) {
        return Ok(false);
    }
    match state.checkout_from {
        Some(made_from) if !state.snapshots.iter().any(|s| s.identity == made_from) => {
            Err(PatchSessionError::StaleCheckout {
                id: id.to_owned(),
                dir: co.to_path_buf(),
                made_from,
                current: session.current_snapshot,
            })
        }
        Some(made_from) if state.checkout_pulled_past.is_some() => {
            Err(PatchSessionError::PulledPastCheckout {
                id: id.to_owned(),
                dir: co.to_path_buf(),
                made_from,
                current: session.current_snapshot,
            })
        }
        _ => Ok(true),
    }
}

/// The `PatchRecorded` event of `entry`, the session's last patch: one constructor for every
/// operation that records a patch (`patch`, `rebase`), so their events cannot disagree.
/// `lines` is (added, removed).
pub(super) fn patch_recorded(
    session: &Session,
    entry: &PatchEntry,
    files_changed: usize,
    (lines_added, lines_removed): (u64, u64),
) -> EventKind {
    EventKind::PatchRecorded {
        index: session.patches.len().saturating_sub(1),
        patch: entry.patch.to_string(),
        before: entry.before_snapshot.to_string(),
        after: entry.after_snapshot.to_string(),
        files_changed,
        lines_added,
        lines_removed,
        obligations_ok: entry.obligations_ok,
    }
}
