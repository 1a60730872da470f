//! `apply` (DESIGN section 4): write a verified session into the workspace, journaled.

use super::*;

mod left;
pub(crate) mod preconditions;

/// Options for [`Engine::apply`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyOptions {
    /// Only report what would change. Default: false.
    pub dry_run: bool,
    /// Require the whole workspace to equal the base snapshot, not only the changed paths.
    /// Default: false.
    pub strict: bool,
    /// Write the session even though its latest patches hold conflict markers `rebase
    /// --markers` wrote and no later patch resolved (`--allow-markers`). Default: false.
    pub allow_markers: bool,
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
    /// Files the snapshot rules left out (ignored) under the directories the session deletes:
    /// apply leaves them, as git does, so the workspace then holds more than the verified
    /// snapshot. Relative to the workspace root, `/`-separated, sorted.
    pub left_ignored: Vec<String>,
}

/// Errors of [`Engine::apply`]: only what apply can return. Each converts into the
/// [`EngineError`] variant of the same name; [`ApplyError::kind`] classifies it.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
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
    /// No passing verification of the current snapshot (or its acceptance record does not
    /// show one).
    #[error("session {id} cannot be applied: {reason}")]
    NotVerified {
        /// The session.
        id: String,
        /// Why.
        reason: NotVerifiedReason,
    },
    /// The workspace changed under the session; nothing was written.
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
    /// Snapshotting the workspace (in-place, `--strict`) failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The journaled write into the workspace failed (recovery finishes or undoes it).
    #[error(transparent)]
    Journal(#[from] JournalError),
}

super::from_session_access!(ApplyError);

impl From<ApplyError> for EngineError {
    fn from(e: ApplyError) -> Self {
        match e {
            ApplyError::Store(s) => EngineError::Store(s),
            ApplyError::Session(s) => EngineError::Session(s),
            ApplyError::NotOpen { id, status } => EngineError::NotOpen { id, status },
            ApplyError::RecoveryPending { id, journal } => {
                EngineError::RecoveryPending { id, journal }
            }
            ApplyError::Manifest(m) => EngineError::Manifest(m),
            ApplyError::StateWithoutManifest { id, path } => {
                EngineError::StateWithoutManifest { id, path }
            }
            ApplyError::NotVerified { id, reason } => EngineError::NotVerified { id, reason },
            ApplyError::Conflict { id, conflicts } => EngineError::Conflict { id, conflicts },
            ApplyError::Unsafe { path, reason } => EngineError::Unsafe { path, reason },
            ApplyError::Snapshot(s) => EngineError::Snapshot(s),
            ApplyError::Journal(j) => EngineError::Journal(j),
        }
    }
}

impl Engine {
    /// Applies the session to the workspace (DESIGN section 4, `apply`): requires status
    /// `open` and a passing verification of the current snapshot; every changed path must
    /// still hold its base content on disk (`strict`: the whole workspace must equal the
    /// base); then every change is written (temp file in the target directory, fsync, rename),
    /// and the session becomes `applied`.
    ///
    /// # Errors
    /// [`ApplyError::NotOpen`], [`ApplyError::NotVerified`], [`ApplyError::Conflict`]
    /// listing the paths (nothing written), [`ApplyError::Unsafe`], [`ApplyError::Journal`];
    /// store, session, manifest and snapshot errors.
    ///
    /// # Events
    /// [`EventKind::Applied`] once the workspace is written (not for a dry run). A failure is
    /// returned, not emitted: the caller reports it with [`crate::ErrorKind::event`].
    pub fn apply(
        &self,
        id: &str,
        opts: &ApplyOptions,
        observer: &mut dyn Observer,
    ) -> Result<ApplyOutcome, ApplyError> {
        let out = self.apply_inner(id, opts)?;
        if out.written {
            observer.event(&EventKind::Applied {
                snapshot: out.session.current_snapshot.to_string(),
                files_changed: out.changes.len(),
            });
        }
        Ok(out)
    }

    fn apply_inner(&self, id: &str, opts: &ApplyOptions) -> Result<ApplyOutcome, ApplyError> {
        let guard = self.locked(id, true)?;
        let (session, state) = (guard.session(), guard.state());
        let refuse = |reason: NotVerifiedReason| ApplyError::NotVerified {
            id: id.into(),
            reason,
        };
        match &session.verification {
            None => return Err(refuse(NotVerifiedReason::NeverVerified)),
            Some(v) if v.snapshot != session.current_snapshot => {
                return Err(refuse(NotVerifiedReason::OtherSnapshot {
                    verified: v.snapshot,
                    current: session.current_snapshot,
                }));
            }
            Some(v) if !v.obligations_ok => {
                return Err(refuse(NotVerifiedReason::ObligationsFailed {
                    id: id.into(),
                    acceptance: v.acceptance,
                }));
            }
            Some(v) => self.check_acceptance(id, session, state, v.acceptance)?,
        }
        if !opts.allow_markers && !state.conflict_markers.is_empty() {
            return Err(refuse(NotVerifiedReason::ConflictMarkers {
                paths: state.conflict_markers.clone(),
            }));
        }
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let list = changes(&base, &current);
        for c in &list {
            if let Some(reason) = forbidden_path(&c.path) {
                return Err(ApplyError::Unsafe {
                    path: c.path.to_string(),
                    reason: reason.into(),
                });
            }
        }
        let root = self.workspace.root().to_path_buf();
        let conflicts = if state.in_place {
            // The agent wrote the workspace itself: it must still equal the current snapshot,
            // judged as `patch` records it (the base's tracked members stay members, so a file
            // untracked during the session is not a difference).
            let manifest = self.manifest_of(state, session)?;
            let mut opts = self.snapshot_options(&manifest)?;
            opts.tracked =
                std::sync::Arc::new(opts.tracked.with_paths(self.base_tracked(state)?.iter()));
            opts.stat_cache = Some(self.store.stat_cache_path(&root));
            let now = snapshot_dir(&root, &opts)?;
            let now_tree = Tree::from_parts(&self.store, now.snapshot, now.executable);
            changes(&current, &now_tree)
                .into_iter()
                .map(|c| PathConflict::new(c.path.as_str(), ConflictKind::DiffersFromCurrent))
                .collect()
        } else {
            let mut conflicts = preconditions::check_preconditions(&root, &list);
            if opts.strict {
                let manifest = self.manifest_of(state, session)?;
                let now = self.snapshot_cached(&root, &manifest)?;
                let now_tree = Tree::from_parts(&self.store, now.snapshot, now.executable);
                for c in changes(&base, &now_tree) {
                    if !conflicts.iter().any(|q| q.path == c.path.as_str()) {
                        conflicts.push(PathConflict::new(
                            c.path.as_str(),
                            ConflictKind::DiffersFromBase,
                        ));
                    }
                }
                PathConflict::sort(&mut conflicts);
            }
            conflicts
        };
        if !conflicts.is_empty() {
            return Err(ApplyError::Conflict {
                id: id.into(),
                conflicts,
            });
        }
        let left_ignored = left::left_under_deleted(&root, &base.snapshot, &current.snapshot);
        if opts.dry_run {
            return Ok(ApplyOutcome {
                session: guard.release().0,
                changes: list,
                written: false,
                left_ignored,
            });
        }
        if state.in_place {
            // Already on disk: only the status changes.
            let mut guard = guard;
            guard.session_mut().status = Status::Applied;
            let (session, _) = guard.commit()?;
            return Ok(ApplyOutcome {
                session,
                changes: list,
                written: true,
                left_ignored,
            });
        }
        let journal = Journal {
            schema: crate::journal::JOURNAL_SCHEMA.into(),
            session: id.to_owned(),
            final_status: Status::Applied,
            ops: list.iter().map(journal_op).collect(),
        };
        // The preconditions above found every path at its base (pre) state.
        self.run_journal_with(&journal, true)?;
        // The journal's last step wrote the status (journal::finish, under this guard's
        // lock); the guard goes without writing again.
        let (mut session, _) = guard.release();
        session.status = Status::Applied;
        Ok(ApplyOutcome {
            session,
            changes: list,
            written: true,
            left_ignored,
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
    ) -> Result<(), ApplyError> {
        let refuse = |reason: NotVerifiedReason| ApplyError::NotVerified {
            id: id.into(),
            reason,
        };
        // A record that is gone is a session to verify again (State, exit 3); one that is
        // there but cannot be read or is corrupt is the store's failure (I/O, exit 4).
        let bytes = self.store.read_object(&acceptance).map_err(|e| match e {
            e @ StoreError::Missing { .. } => refuse(NotVerifiedReason::RecordMissing {
                acceptance,
                source: Box::new(e),
            }),
            e => ApplyError::Store(e),
        })?;
        let record: AcceptanceRecord = crate::json::from_slice(&bytes).map_err(|e| match e {
            crate::json::JsonError::Duplicate(source) => {
                ApplyError::Store(StoreError::DuplicateKey {
                    path: self.store.object_path(&acceptance),
                    source,
                })
            }
            source => refuse(NotVerifiedReason::RecordInvalid {
                acceptance,
                source: Box::new(source),
            }),
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
            return Err(refuse(NotVerifiedReason::RecordMismatch { acceptance }));
        }
        Ok(())
    }
}
