//! `verify` (DESIGN sections 4 and 5): run the obligations on the current snapshot and
//! record the acceptance.

use super::*;

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
    /// How a failed verification is reported. `None` (the default): as
    /// [`EventKind::Failed`] `obligations-failed` (`genesis verify`). `Some(advice)`: as a
    /// retryable [`EventKind::Diagnostic`] `obligations-failed` whose message ends in
    /// `; ADVICE` — for callers whose agent fixes the tree and verifies again in the same
    /// execution (a BPT `CONTINUE`).
    pub retry_advice: Option<String>,
    /// Where to look for an acceptance record of the current snapshot made elsewhere
    /// (`verify --reuse-acceptance --remote URL`): when one is found that this verification
    /// would have written had every obligation passed here, it is taken instead of running
    /// the obligations (see [`Engine::verify`]). Default: `None`, the obligations run.
    pub reuse: Option<std::sync::Arc<dyn AcceptanceSource>>,
}

/// What [`AcceptanceSource::accepted`] offers: (name, exact bytes, the executable bits of the
/// tree it was made on when known) of each record, or why the source cannot be read. The bits
/// matter for a v0.1 snapshot, whose identity does not cover them (DESIGN section 13,
/// "Acceptance reuse").
pub type OfferedRecords = Result<
    Vec<(
        Digest,
        Vec<u8>,
        Option<BTreeSet<crate::path::WorkspacePath>>,
    )>,
    String,
>;

/// A place to find acceptance records made elsewhere (the remote store implements it, feature
/// `remote`; DESIGN section 13, "Acceptance reuse").
pub trait AcceptanceSource: std::fmt::Debug + Send + Sync {
    /// Where the records come from (a remote URL), for output and session state.
    fn source(&self) -> String;
    /// Records of `snapshot` whose obligations were read from the manifest blob `manifest`
    /// and passed, each as (its name, its exact bytes). The caller checks both again.
    ///
    /// # Errors
    /// A message when the source cannot be read (verify then runs the obligations).
    fn accepted(&self, snapshot: &Digest, manifest: &Digest) -> OfferedRecords;
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
    /// The size of the session's change, base to the verified snapshot.
    pub impact: Impact,
    /// The record was taken from elsewhere ([`VerifyOptions::reuse`]) and no obligation ran.
    pub reused: Option<crate::session::ReusedAcceptance>,
    /// Why a reuse that was asked for did not happen (the obligations ran instead).
    pub reuse_note: Option<String>,
}

/// Errors of [`Engine::verify`] and [`Engine::verify_patch`]: only what verify can return.
/// Each converts into the [`EngineError`] variant of the same name; [`VerifyError::kind`]
/// classifies it.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
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
    /// Another patch landed while the obligations ran; nothing was recorded (retryable).
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
    /// A path of the snapshot cannot be written under the verify directory on this system
    /// (NAME_MAX, PATH_MAX); nothing was written or run.
    #[error(
        "verify refused, nothing run: {source}; set TMPDIR to a shorter directory, pass a shorter --workdir, or leave the path out of the workspace"
    )]
    VerifyPathLimit {
        /// The limit broken, naming the path and the directory.
        source: crate::path::FsLimitError,
    },
    /// `--workdir` (or `TMPDIR`) overlaps the workspace or the store.
    #[error(
        "{}: {option} must lie outside the workspace {} and the store {} (not inside or above either)",
        .dir.display(), .workspace.display(), .store.display()
    )]
    NotApart {
        /// The directory as given.
        dir: PathBuf,
        /// The option that named it.
        option: &'static str,
        /// The workspace root, resolved.
        workspace: PathBuf,
        /// The store directory, resolved.
        store: PathBuf,
    },
    /// `--workdir` is not a directory, or not empty and not a Genesis workdir; or `TMPDIR`
    /// lies inside the workspace or the store.
    #[error("{}: {reason}", .dir.display())]
    BadDirectory {
        /// The directory as given.
        dir: PathBuf,
        /// What is wrong.
        reason: &'static str,
    },
    /// Judging the snapshot's membership rules for the workdir failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// Writing the snapshot into the workdir failed.
    #[error(transparent)]
    Materialize(#[from] MaterializeError),
    /// Measuring the change (base to verified snapshot) failed.
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// A file-system operation on the workdir failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

super::from_session_access!(VerifyError);
super::from_directory_error!(VerifyError);

impl From<VerifyError> for EngineError {
    fn from(e: VerifyError) -> Self {
        use VerifyError as V;
        match e {
            V::Store(s) => EngineError::Store(s),
            V::Session(s) => EngineError::Session(s),
            V::NotOpen { id, status } => EngineError::NotOpen { id, status },
            V::RecoveryPending { id, journal } => EngineError::RecoveryPending { id, journal },
            V::Manifest(m) => EngineError::Manifest(m),
            V::StateWithoutManifest { id, path } => EngineError::StateWithoutManifest { id, path },
            V::SessionMoved { id, verified, now } => {
                EngineError::SessionMoved { id, verified, now }
            }
            V::Interrupted(o) => EngineError::Interrupted(o),
            V::VerifyPathLimit { source } => EngineError::VerifyPathLimit { source },
            V::NotApart {
                dir,
                option,
                workspace,
                store,
            } => EngineError::NotApart {
                dir,
                option,
                workspace,
                store,
            },
            V::BadDirectory { dir, reason } => EngineError::BadDirectory { dir, reason },
            V::Snapshot(s) => EngineError::Snapshot(s),
            V::Materialize(m) => EngineError::Materialize(m),
            V::Diff(d) => EngineError::Diff(d),
            V::Io { path, source } => EngineError::Io { path, source },
        }
    }
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> VerifyError + '_ {
    move |source| VerifyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Engine {
    /// Verifies the current snapshot (DESIGN section 4, `verify`): materialises it, runs each
    /// command obligation of the manifest **as it is in the base snapshot**, stores outputs as
    /// log objects and the acceptance record, and writes `verification`.
    ///
    /// # Events
    /// For each command obligation: [`EventKind::ObligationStarted`], its output in
    /// [`EventKind::ObligationOutput`] pieces (decoded and redacted by
    /// [`crate::events::run_obligation`]), [`EventKind::ObligationFinished`]; then
    /// [`EventKind::Verified`], and [`EventKind::ApprovalNeeded`] when the obligations passed
    /// or the failure event of [`VerifyOptions::retry_advice`] when they did not. A failure is
    /// returned, not emitted.
    ///
    /// # Errors
    /// [`VerifyError::NotOpen`]; [`VerifyError::SessionMoved`] if another patch landed while
    /// the obligations ran; materialisation and store errors.
    pub fn verify(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
    ) -> Result<VerifyOutcome, VerifyError> {
        let out = self.verify_inner(id, opts, observer, false)?;
        report_verified(&out, opts, observer);
        Ok(out)
    }

    /// [`Engine::verify`], and when the last patch's `after_snapshot` is the verified snapshot,
    /// also records the acceptance in that patch entry (as `patch --verify` does). For callers
    /// that record a patch and then verify it in a second call (`genesis bpt`).
    ///
    /// # Errors
    /// As [`Engine::verify`], with its events.
    pub fn verify_patch(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
    ) -> Result<VerifyOutcome, VerifyError> {
        let out = self.verify_inner(id, opts, observer, true)?;
        report_verified(&out, opts, observer);
        Ok(out)
    }

    pub(super) fn verify_inner(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
        mark_last_patch: bool,
    ) -> Result<VerifyOutcome, VerifyError> {
        // Prepare (locked): the session as it is now; the guard goes before anything runs.
        let (session, state) = self.locked(id, true)?.release();
        let manifest = self.manifest_of(&state, &session)?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let static_results = static_checks(&manifest, self.workspace.root(), &base, &current);
        // Before anything runs, so that nothing can fail after the verification is recorded.
        let impact = self.impact_of(&base, &current)?;
        let manifest_blob = state.manifest_blob.expect("checked by manifest_of");
        let mut reuse_note = None;
        if let Some(src) = &opts.reuse {
            let found = reusable(
                &self.store,
                src.as_ref(),
                opts,
                &session,
                &manifest_blob,
                &static_results,
                (current.snapshot.format() == crate::snapshot::SnapshotFormat::V0_1)
                    .then(|| state.current_executable()),
            );
            match found {
                Ok(found) => {
                    let reused = crate::session::ReusedAcceptance {
                        acceptance: found.1,
                        source: src.source(),
                    };
                    return self.commit_reused(
                        id,
                        &session,
                        reused,
                        found,
                        impact,
                        mark_last_patch,
                    );
                }
                Err(note) => reuse_note = Some(note),
            }
        }
        let (workdir, _scratch) = self.prepare_workdir(id, opts, &current, &manifest)?;
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
                return Err(VerifyError::Interrupted(ob.id.clone()));
            }
            let r = crate::events::run_obligation(
                ob, &workdir, &env, &redactor, observer, index, total,
            );
            if r.interrupted {
                return Err(VerifyError::Interrupted(ob.id.clone()));
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
        let record = AcceptanceRecord::new(
            session.current_snapshot,
            manifest_blob,
            static_results,
            &results,
        );
        let record_bytes = record.canonical_bytes();
        let acceptance = self.store.write_object(&record_bytes)?;
        let mut unlocked: Vec<&[u8]> = Vec::with_capacity(results.len() * 2 + 1);
        for r in &results {
            unlocked.push(&r.stdout);
            unlocked.push(&r.stderr);
        }
        unlocked.push(&record_bytes);
        let session2 = self.commit_verification(
            id,
            &session,
            (acceptance, record.obligations_ok),
            logs,
            (mark_last_patch, None),
            &unlocked,
        )?;
        Ok(VerifyOutcome {
            session: session2,
            record,
            acceptance,
            results,
            impact,
            reused: None,
            reuse_note,
        })
    }

    /// Records a verification that took the record `found` from elsewhere (no obligation ran).
    fn commit_reused(
        &self,
        id: &str,
        session: &Session,
        reused: crate::session::ReusedAcceptance,
        (record, acceptance): (AcceptanceRecord, Digest),
        impact: Impact,
        mark_last_patch: bool,
    ) -> Result<VerifyOutcome, VerifyError> {
        let session2 = self.commit_verification(
            id,
            session,
            (acceptance, true),
            Vec::new(),
            (mark_last_patch, Some(reused.clone())),
            &[&record.canonical_bytes()],
        )?;
        Ok(VerifyOutcome {
            session: session2,
            record,
            acceptance,
            results: Vec::new(),
            impact,
            reused: Some(reused),
            reuse_note: None,
        })
    }

    /// Records the verification of `session`'s current snapshot (locked again): refused when
    /// a patch moved the session meanwhile (the guard is then dropped and nothing written).
    fn commit_verification(
        &self,
        id: &str,
        session: &Session,
        (acceptance, obligations_ok): (Digest, bool),
        logs: Vec<ObligationLog>,
        (mark_last_patch, reused): (bool, Option<crate::session::ReusedAcceptance>),
        unlocked_objects: &[&[u8]],
    ) -> Result<Session, VerifyError> {
        let mut guard = self.locked(id, true)?;
        if guard.session().current_snapshot != session.current_snapshot {
            return Err(VerifyError::SessionMoved {
                id: id.to_owned(),
                verified: session.current_snapshot,
                now: guard.session().current_snapshot,
            });
        }
        // The objects above were written without the lock: a `gc` may have run since and
        // removed them as unreferenced (DESIGN 3, "Writers without the lock"). Under the lock
        // now, each is stored again if gone (freshened if present), before anything names it.
        for bytes in unlocked_objects {
            self.store.write_object(bytes)?;
        }
        let (session2, state2) = guard.parts_mut();
        session2.verification = Some(Verification {
            snapshot: session.current_snapshot,
            acceptance,
            obligations_ok,
        });
        if mark_last_patch
            && let Some(last) = session2.patches.last_mut()
            && last.after_snapshot == session.current_snapshot
        {
            last.acceptance = Some(acceptance);
        }
        state2.logs = logs;
        state2.reused_acceptance = reused;
        let (session2, _) = guard.commit()?;
        Ok(session2)
    }

    /// The directory verify runs the obligations in, holding exactly `current`: the
    /// `--workdir` (checked, synced, marked with [`WORKDIR_MARKER`]) or a fresh scratch
    /// directory, returned with its guard (removed when dropped). Every path is first checked
    /// against the file-system limits there.
    fn prepare_workdir(
        &self,
        id: &str,
        opts: &VerifyOptions,
        current: &Tree,
        manifest: &Manifest,
    ) -> Result<(PathBuf, Option<tempfile::TempDir>), VerifyError> {
        // Every file of the snapshot is written under the directory: refuse before anything is
        // made, naming the path and the limit, rather than fail half way with an I/O error (the
        // limits at patch time used the TMPDIR of that moment).
        let place = match &opts.workdir {
            Some(d) => verify_place(d, id, false),
            None => {
                self.check_tmpdir_apart(&std::env::temp_dir())?;
                verify_place(&std::env::temp_dir(), id, true)
            }
        };
        for f in current.snapshot.files() {
            crate::path::check_fs_limits(&f.path, std::slice::from_ref(&place))
                .map_err(|source| VerifyError::VerifyPathLimit { source })?;
        }
        let mut scratch = None;
        let workdir: PathBuf = match &opts.workdir {
            Some(d) => {
                self.check_workdir(d)?;
                d.clone()
            }
            None => {
                let dir = tempfile::Builder::new()
                    // The pid lets `genesis gc` remove a scratch directory whose verify was
                    // killed outright (SIGKILL): its process is gone (gc::scratch).
                    .prefix(&format!("genesis-verify-{id}-p{:07}-", std::process::id()))
                    .tempdir()
                    .map_err(io_at(&std::env::temp_dir()))?;
                let path = dir.path().to_path_buf();
                scratch = Some(dir);
                path
            }
        };
        let mut mopts = MaterializeOptions {
            durable: false,
            snapshot: self.snapshot_options(manifest)?,
            modes_from: Some(self.workspace.root().to_path_buf()),
            // Written first, so a checkout cut short is still known as this verify's workdir
            // and the next verify syncs it instead of refusing it.
            marker: opts
                .workdir
                .as_ref()
                .map(|_| (WORKDIR_MARKER, WORKDIR_TEXT)),
        };
        mopts.snapshot.exclude.push(format!("/{WORKDIR_MARKER}"));
        materialize(
            &self.store,
            &current.snapshot,
            &current.executable,
            &workdir,
            &mopts,
        )?;
        Ok((workdir, scratch))
    }

    /// The default scratch directory is made inside `tmp` (`TMPDIR`, else `/tmp`): the same
    /// rule as `--workdir`, so `tmp` must not lie inside the workspace or the store (there
    /// the scratch copy would be a part of the tree it verifies, and of later snapshots).
    /// `TMPDIR` above the workspace is fine: the scratch directory is a new one beside it.
    ///
    /// # Errors
    /// [`VerifyError::BadDirectory`] naming `TMPDIR` and its value (exit 2), before anything
    /// is made.
    fn check_tmpdir_apart(&self, tmp: &Path) -> Result<(), VerifyError> {
        let t = absolute_resolved(tmp);
        let inside = [self.workspace.root(), self.workspace.store_dir()]
            .iter()
            .any(|o| t.starts_with(absolute_resolved(o)));
        if inside {
            return Err(VerifyError::BadDirectory {
                dir: tmp.to_path_buf(),
                reason: "TMPDIR lies inside the workspace or the store, where verify would make its scratch directory; set TMPDIR to a directory outside both, or pass --workdir DIR",
            });
        }
        Ok(())
    }

    /// `verify --workdir DIR`: apart from the workspace and the store, and either new, empty,
    /// or a directory Genesis used as a workdir before (it holds [`WORKDIR_MARKER`]) — so a
    /// mistyped path never has its files deleted by the sync.
    fn check_workdir(&self, dir: &Path) -> Result<(), VerifyError> {
        self.check_apart(dir, "--workdir")?;
        match std::fs::symlink_metadata(dir) {
            Err(_) => Ok(()),
            Ok(md) if !md.is_dir() => Err(VerifyError::BadDirectory {
                dir: dir.to_path_buf(),
                reason: "--workdir is not a directory",
            }),
            Ok(_) => {
                let mut rd = std::fs::read_dir(dir).map_err(io_at(dir))?;
                if rd.next().is_none() || dir.join(WORKDIR_MARKER).is_file() {
                    Ok(())
                } else {
                    Err(VerifyError::BadDirectory {
                        dir: dir.to_path_buf(),
                        reason: "--workdir is not empty and was not made by Genesis (no .genesis-workdir); give a new or empty directory",
                    })
                }
            }
        }
    }
}

/// The record `src` offers for the current snapshot of `session` that this verification would
/// have written had every obligation passed here: intact (its bytes hash to its name and are
/// the canonical form of a record), of this snapshot and this manifest blob, passing, and with
/// the static results computed here (they depend on the base too). Stored in the local store
/// when found.
///
/// # Errors
/// Why none was taken (none there; `opts` adds obligations of its own; the source failed), as
/// the note verify gives before it runs the obligations.
fn reusable(
    store: &Store,
    src: &dyn AcceptanceSource,
    opts: &VerifyOptions,
    session: &Session,
    manifest_blob: &Digest,
    static_results: &[StaticResult],
    v0_1_executable: Option<BTreeSet<crate::path::WorkspacePath>>,
) -> Result<(AcceptanceRecord, Digest), String> {
    let from = src.source();
    if !opts.extra_obligations.is_empty() {
        return Err(
            "acceptance reuse: this verification adds obligations of its own; the obligations ran"
                .into(),
        );
    }
    let offered = src
        .accepted(&session.current_snapshot, manifest_blob)
        .map_err(|e| format!("acceptance reuse: {from}: {e}; the obligations ran"))?;
    let mut refused = Vec::new();
    for (name, bytes, executable) in offered {
        if Digest::of(&bytes) != name {
            continue;
        }
        let Ok(record) = crate::json::from_slice::<AcceptanceRecord>(&bytes) else {
            continue;
        };
        let fits = record.canonical_bytes() == bytes
            && record.snapshot == session.current_snapshot
            && record.manifest == *manifest_blob
            && record.obligations_ok
            && record.static_results == static_results;
        // A v0.1 identity does not cover the executable bits: they must be the same too.
        if fits
            && let Some(here) = &v0_1_executable
            && executable.as_ref() != Some(here)
        {
            refused.push(match executable {
                None => format!("record {name} does not say the executable bits it was made with"),
                Some(there) => format!(
                    "record {name} was made with executable bits [{}], here they are [{}]",
                    join_paths(&there),
                    join_paths(here)
                ),
            });
            continue;
        }
        if fits {
            store
                .write_object(&bytes)
                .map_err(|e| format!("acceptance reuse: {e}; the obligations ran"))?;
            return Ok((record, name));
        }
    }
    if !refused.is_empty() {
        return Err(format!(
            "acceptance reuse refused: snapshot {} is a v0.1 snapshot, whose identity does not cover executable bits; {}; the obligations ran",
            session.current_snapshot,
            refused.join("; ")
        ));
    }
    Err(format!(
        "no reusable acceptance of snapshot {} on {from}; the obligations ran",
        session.current_snapshot
    ))
}

fn join_paths(paths: &BTreeSet<crate::path::WorkspacePath>) -> String {
    paths
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The events after a verification (see [`Engine::verify`]): `Verified`, then
/// `ApprovalNeeded` or the failure event [`VerifyOptions::retry_advice`] asks for.
pub(super) fn report_verified(
    v: &VerifyOutcome,
    opts: &VerifyOptions,
    observer: &mut dyn Observer,
) {
    if !observer.wants_events() {
        return;
    }
    let (snapshot, impact) = (v.record.snapshot.to_string(), v.impact);
    let patches = v.session.patches.len();
    observer.event(&EventKind::Verified {
        snapshot: snapshot.clone(),
        acceptance: v.acceptance.to_string(),
        obligations_ok: v.record.obligations_ok,
        files_changed: impact.files_changed,
        lines_added: impact.lines_added,
        lines_removed: impact.lines_removed,
        patches,
    });
    if v.record.obligations_ok {
        observer.event(&EventKind::ApprovalNeeded {
            snapshot,
            patches,
            files_changed: impact.files_changed,
            lines_added: impact.lines_added,
            lines_removed: impact.lines_removed,
        });
        return;
    }
    let message = format!("obligations failed: {}", v.record.failed_ids().join(", "));
    let code = crate::events::codes::OBLIGATIONS_FAILED.to_owned();
    observer.event(&match &opts.retry_advice {
        None => EventKind::Failed {
            code,
            message,
            retryable: true,
        },
        Some(advice) => EventKind::Diagnostic {
            code,
            message: format!("{message}; {advice}"),
            retryable: true,
        },
    });
}
