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
    /// [`EngineError::NotOpen`]; [`EngineError::SessionMoved`] if another patch landed while
    /// the obligations ran; materialisation and store errors.
    pub fn verify(
        &self,
        id: &str,
        opts: &VerifyOptions,
        observer: &mut dyn Observer,
    ) -> Result<VerifyOutcome, EngineError> {
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
    ) -> Result<VerifyOutcome, EngineError> {
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
    ) -> Result<VerifyOutcome, EngineError> {
        // Prepare (locked): the session as it is now; the guard goes before anything runs.
        let (session, state) = self.lock_open_session(id)?.release();
        let manifest = self.manifest_of(&state, &session)?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let static_results = static_checks(&manifest, self.workspace.root(), &base, &current);
        // Before anything runs, so that nothing can fail after the verification is recorded.
        let impact = self.impact_of(&base, &current)?;
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
                return Err(EngineError::Interrupted(ob.id.clone()));
            }
            let r = crate::events::run_obligation(
                ob, &workdir, &env, &redactor, observer, index, total,
            );
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
        // Commit (locked again): refused when a patch moved the session while the obligations
        // ran; the guard is then dropped and nothing is written.
        let mut guard = self.lock_open_session(id)?;
        if guard.session().current_snapshot != session.current_snapshot {
            return Err(EngineError::SessionMoved {
                id: id.to_owned(),
                verified: session.current_snapshot,
                now: guard.session().current_snapshot,
            });
        }
        let (session2, state2) = guard.parts_mut();
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
        let (session2, _) = guard.commit()?;
        Ok(VerifyOutcome {
            session: session2,
            record,
            acceptance,
            results,
            impact,
        })
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
    ) -> Result<(PathBuf, Option<tempfile::TempDir>), EngineError> {
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
                .map_err(|source| EngineError::VerifyPathLimit { source })?;
        }
        let mut scratch = None;
        let workdir: PathBuf = match &opts.workdir {
            Some(d) => {
                self.check_workdir(d)?;
                d.clone()
            }
            None => {
                let dir = tempfile::Builder::new()
                    .prefix(&format!("genesis-verify-{id}-"))
                    .tempdir()
                    .map_err(io_err(&std::env::temp_dir()))?;
                let path = dir.path().to_path_buf();
                scratch = Some(dir);
                path
            }
        };
        let mut mopts = MaterializeOptions {
            durable: false,
            snapshot: self.snapshot_options(manifest)?,
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
        Ok((workdir, scratch))
    }

    /// The default scratch directory is made inside `tmp` (`TMPDIR`, else `/tmp`): the same
    /// rule as `--workdir`, so `tmp` must not lie inside the workspace or the store (there
    /// the scratch copy would be a part of the tree it verifies, and of later snapshots).
    /// `TMPDIR` above the workspace is fine: the scratch directory is a new one beside it.
    ///
    /// # Errors
    /// [`EngineError::BadDirectory`] naming `TMPDIR` and its value (exit 2), before anything
    /// is made.
    fn check_tmpdir_apart(&self, tmp: &Path) -> Result<(), EngineError> {
        let t = absolute_resolved(tmp);
        let inside = [self.workspace.root(), self.workspace.store_dir()]
            .iter()
            .any(|o| t.starts_with(absolute_resolved(o)));
        if inside {
            return Err(EngineError::BadDirectory {
                dir: tmp.to_path_buf(),
                reason: "TMPDIR lies inside the workspace or the store, where verify would make its scratch directory; set TMPDIR to a directory outside both, or pass --workdir DIR",
            });
        }
        Ok(())
    }

    /// `verify --workdir DIR`: apart from the workspace and the store, and either new, empty,
    /// or a directory Genesis used as a workdir before (it holds [`WORKDIR_MARKER`]) — so a
    /// mistyped path never has its files deleted by the sync.
    fn check_workdir(&self, dir: &Path) -> Result<(), EngineError> {
        self.check_apart(dir, "--workdir")?;
        match std::fs::symlink_metadata(dir) {
            Err(_) => Ok(()),
            Ok(md) if !md.is_dir() => Err(EngineError::BadDirectory {
                dir: dir.to_path_buf(),
                reason: "--workdir is not a directory",
            }),
            Ok(_) => {
                let mut rd = std::fs::read_dir(dir).map_err(io_err(dir))?;
                if rd.next().is_none() || dir.join(WORKDIR_MARKER).is_file() {
                    Ok(())
                } else {
                    Err(EngineError::BadDirectory {
                        dir: dir.to_path_buf(),
                        reason: "--workdir is not empty and was not made by Genesis (no .genesis-workdir); give a new or empty directory",
                    })
                }
            }
        }
    }
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
