//! `restore`: bring back the files an abort (or a recovery) saved.

use super::*;

impl Engine {
    /// Writes back the files `abort` saved for session `id` (module docs).
    ///
    /// # Errors
    /// [`EngineError::NothingToRestore`] when the session is not aborted or its abort saved
    /// nothing; [`EngineError::BadDirectory`] or [`EngineError::NotApart`] when `--to` is not a new or empty directory apart from the workspace, [`EngineError::NoCheckoutToRestore`]; [`EngineError::Conflict`]
    /// naming each path that changed since the abort (nothing written then); store, journal
    /// and write errors.
    pub fn restore(&self, id: &str, opts: &RestoreOptions) -> Result<RestoreOutcome, EngineError> {
        // Held to the end; restore writes files, never the session.
        let guard = self.lock_session(id)?;
        let (session, state) = (guard.session(), guard.state());
        if session.status == Status::Open {
            return Err(EngineError::NothingToRestore {
                id: id.into(),
                reason: "it is open; only an aborted (or recovered) session has saved work".into(),
            });
        }
        let Some(saved) = state.saved.clone() else {
            return Err(EngineError::NothingToRestore {
                id: id.into(),
                reason: "no file was saved for it".into(),
            });
        };
        let snapshot = match &saved.snapshot {
            Some(identity) => self.store().read_snapshot(identity)?.0,
            // Only files rescued by recovery: they are the tree to restore.
            None => crate::snapshot::Snapshot::with_executable(
                saved
                    .files
                    .iter()
                    .map(|f| SnapshotFile {
                        path: f.path.clone(),
                        blob: f.blob,
                        bytes: f.bytes,
                    })
                    .collect(),
                &saved
                    .files
                    .iter()
                    .filter(|f| f.executable)
                    .map(|f| f.path.clone())
                    .collect(),
                None,
            )
            .map_err(|source| EngineError::SavedFilesInvalid {
                id: id.to_owned(),
                source,
            })?,
        };
        let saved_exec: BTreeSet<WorkspacePath> = match &saved.snapshot {
            Some(_) => saved.executable.clone(),
            None => saved
                .files
                .iter()
                .filter(|f| f.executable)
                .map(|f| f.path.clone())
                .collect(),
        };
        let mopts = MaterializeOptions {
            durable: true,
            snapshot: Default::default(),
            modes_from: None,
            marker: None,
        };
        // Saved files abort found outside its snapshot (hidden by a rule the agent added, or
        // over the v0.1 size limit): part of the tree abort found, written beside it.
        let extra: Vec<&SavedFile> = saved
            .files
            .iter()
            .filter(|f| snapshot.get(f.path.as_str()).is_none())
            .collect();
        let mut all: Vec<WorkspacePath> = snapshot.files().iter().map(|f| f.path.clone()).collect();
        all.extend(extra.iter().map(|f| f.path.clone()));
        all.sort();
        if let Some(to) = &opts.to {
            self.check_checkout_dir(to, "--to")?;
            if !opts.dry_run {
                materialize(self.store(), &snapshot, &saved_exec, to, &mopts)?;
                for f in &extra {
                    write_saved(self, to, f)?;
                }
            }
            return Ok(RestoreOutcome {
                target: to.clone(),
                written: all,
                unchanged: Vec::new(),
            });
        }
        if !state.in_place && session.status == Status::Aborted {
            let Some(dir) = state.checkout.clone() else {
                return Err(EngineError::NoCheckoutToRestore { id: id.to_owned() });
            };
            let mut files: Vec<(SnapshotFile, bool)> = snapshot
                .files()
                .iter()
                .map(|f| (f.clone(), saved_exec.contains(&f.path)))
                .collect();
            files.extend(extra.iter().map(|f| {
                (
                    SnapshotFile {
                        path: f.path.clone(),
                        blob: f.blob,
                        bytes: f.bytes,
                    },
                    f.executable,
                )
            }));
            files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
            return self.restore_into_checkout(id, dir, &files, &saved, opts.dry_run);
        }
        self.restore_in_place(id, session, state, &saved, opts.dry_run)
    }

    /// Restores the saved files of an aborted checkout session into its checkout directory
    /// `dir`: each must be absent there (or already hold its saved content).
    fn restore_into_checkout(
        &self,
        id: &str,
        dir: PathBuf,
        files: &[(SnapshotFile, bool)],
        saved: &SavedWork,
        dry_run: bool,
    ) -> Result<RestoreOutcome, EngineError> {
        // Abort removed the member files: each saved file must be absent (or already
        // hold its saved content); files the rules left out, which abort kept, stay.
        let mut conflicts = Vec::new();
        let mut todo = Vec::new();
        let mut unchanged = Vec::new();
        for (f, exec) in files {
            let exec = *exec;
            let target = f.path.to_fs_path(&dir);
            match on_disk(self, &target, false)? {
                OnDisk::Absent => todo.push((f, exec, target)),
                OnDisk::File(b, _, x) if b == f.blob && x == exec => unchanged.push(f.path.clone()),
                _ => conflicts.push(PathConflict::new(
                    f.path.as_str(),
                    ConflictKind::BackInCheckout,
                )),
            }
        }
        if !conflicts.is_empty() {
            return Err(EngineError::Conflict {
                id: id.into(),
                conflicts,
            });
        }
        let written = todo.iter().map(|(f, _, _)| f.path.clone()).collect();
        if !dry_run {
            std::fs::create_dir_all(&dir).map_err(|source| EngineError::Io {
                path: dir.clone(),
                source,
            })?;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(
                |source| EngineError::Io {
                    path: dir.clone(),
                    source,
                },
            )?;
            for (f, exec, target) in &todo {
                let parent = target.parent().unwrap_or(&dir).to_path_buf();
                std::fs::create_dir_all(&parent).map_err(|source| EngineError::Io {
                    path: parent.clone(),
                    source,
                })?;
                let mode = saved
                    .files
                    .iter()
                    .find(|s| s.path == f.path)
                    .and_then(|s| s.mode)
                    .unwrap_or_else(|| crate::fsmode::for_new_file(*exec));
                crate::materialize::write_blob(self.store(), &f.blob, &parent, target, mode, true)?;
            }
        }
        Ok(RestoreOutcome {
            target: dir,
            written,
            unchanged,
        })
    }

    /// Restores the saved files of an in-place session into the workspace, journaled: each
    /// saved path must still be as abort (or recovery) left it.
    fn restore_in_place(
        &self,
        id: &str,
        session: &Session,
        state: &SessionState,
        saved: &SavedWork,
        dry_run: bool,
    ) -> Result<RestoreOutcome, EngineError> {
        // In place: each saved path must still be as abort left it (the base), or already
        // hold the saved content.
        let root = self.workspace().root().to_path_buf();
        // What the session left on disk: the base after an abort, the current snapshot after
        // an apply (files rescued by recovery).
        let base = if session.status == Status::Aborted {
            self.tree(&session.base_snapshot, state.base_executable())?
        } else {
            self.tree(&session.current_snapshot, state.current_executable())?
        };
        let mut conflicts = Vec::new();
        let mut ops = Vec::new();
        let mut written = Vec::new();
        let mut unchanged = Vec::new();
        let saved_paths: BTreeSet<&str> = saved.files.iter().map(|f| f.path.as_str()).collect();
        // Base paths that a saved path opens under another spelling (case-insensitive file
        // system, after the agent's case-only rename): the saved spelling replaces them.
        let mut respelled: BTreeSet<WorkspacePath> = BTreeSet::new();
        for f in &saved.files {
            let target = f.path.to_fs_path(&root);
            if let Some(reason) = crate::engine::apply::preconditions::blocked_parent(
                &root,
                &f.path,
                &BTreeSet::new(),
            ) {
                conflicts.push(PathConflict::new(f.path.as_str(), reason));
                continue;
            }
            let disk = match on_disk(self, &target, false)? {
                OnDisk::Absent => None,
                OnDisk::File(b, n, x) => Some((b, n, x)),
                OnDisk::Other => {
                    conflicts.push(PathConflict::new(f.path.as_str(), ConflictKind::NotRegular));
                    continue;
                }
            };
            // On a case-insensitive file system `README.md` opens the base's `readme.md`
            // that abort put back: that file, as the base has it, is "as abort left it", and
            // the saved spelling comes back (the base spelling is deleted, as in an apply of
            // a case-only rename). On a case-sensitive file system no other spelling is the
            // same file, so this never applies.
            let other = match (base.snapshot.get(f.path.as_str()), disk) {
                (None, Some(_)) => same_file_in_base(&root, &f.path, &base, &saved_paths).cloned(),
                _ => None,
            };
            if other.is_none() && disk.is_some_and(|(b, _, x)| b == f.blob && x == f.executable) {
                unchanged.push(f.path.clone());
                continue;
            }
            let base_path = other.clone().unwrap_or_else(|| f.path.clone());
            let base_state = base.snapshot.get(base_path.as_str()).map(|b| FileState {
                blob: b.blob,
                executable: base.is_executable(&base_path),
                mode: None,
            });
            let disk_state = disk.map(|(blob, _, executable)| FileState {
                blob,
                executable,
                mode: None,
            });
            if disk_state != base_state {
                conflicts.push(PathConflict::new(
                    f.path.as_str(),
                    ConflictKind::ChangedSinceSaved,
                ));
                continue;
            }
            if let Some(other) = other {
                // The journal stages the saved spelling, then deletes the base spelling: the
                // only copy of the base file is in the store already.
                if respelled.insert(other.clone()) {
                    ops.push(JournalOp {
                        path: other,
                        pre: base_state,
                        post: None,
                    });
                }
            }
            ops.push(JournalOp {
                path: f.path.clone(),
                pre: if base_path == f.path {
                    disk_state
                } else {
                    None
                },
                post: Some(FileState {
                    blob: f.blob,
                    executable: f.executable,
                    mode: f.mode,
                }),
            });
            written.push(f.path.clone());
        }
        if !conflicts.is_empty() {
            return Err(EngineError::Conflict {
                id: id.into(),
                conflicts,
            });
        }
        if !dry_run {
            self.run_restore_journal(id, ops)?;
        }
        Ok(RestoreOutcome {
            target: root,
            written,
            unchanged,
        })
    }

    /// Writes `ops` into the workspace through the journal (DESIGN section 6); the session
    /// stays aborted. Nothing to do for no ops.
    fn run_restore_journal(&self, id: &str, ops: Vec<JournalOp>) -> Result<(), EngineError> {
        if ops.is_empty() {
            return Ok(());
        }
        let journal = Journal {
            schema: crate::journal::JOURNAL_SCHEMA.into(),
            session: id.to_owned(),
            final_status: Status::Aborted,
            ops,
        };
        Ok(self.run_journal(&journal)?)
    }
}

/// The base path, other than `path`, equal to it under [`crate::path::fold_key`], that is the
/// very file on disk `path` opens (same device and inode) and that no saved file names:
/// what a case-insensitive or normalising file system shows after the agent's case-only
/// rename of a file or of a directory above it.
fn same_file_in_base<'a>(
    root: &Path,
    path: &WorkspacePath,
    base: &'a Tree,
    saved: &BTreeSet<&str>,
) -> Option<&'a WorkspacePath> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::symlink_metadata(path.to_fs_path(root)).ok()?;
    let key = crate::path::fold_key(path.as_str());
    base.snapshot
        .files()
        .iter()
        .map(|b| &b.path)
        .filter(|b| b.as_str() != path.as_str() && !saved.contains(b.as_str()))
        .filter(|b| crate::path::fold_key(b.as_str()) == key)
        .find(|b| {
            std::fs::symlink_metadata(b.to_fs_path(root))
                .is_ok_and(|o| o.is_file() && o.dev() == md.dev() && o.ino() == md.ino())
        })
}

/// Writes the saved file `f` under `dir` (new directories as needed), with its saved
/// permission bits (or the umask's default), through a temp file, durably.
fn write_saved(engine: &Engine, dir: &Path, f: &SavedFile) -> Result<(), EngineError> {
    let target = f.path.to_fs_path(dir);
    let parent = target.parent().unwrap_or(dir).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(|source| EngineError::Io {
        path: parent.clone(),
        source,
    })?;
    let mode = f
        .mode
        .unwrap_or_else(|| crate::fsmode::for_new_file(f.executable));
    crate::materialize::write_blob(engine.store(), &f.blob, &parent, &target, mode, true)?;
    Ok(())
}
