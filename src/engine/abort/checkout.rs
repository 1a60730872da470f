//! Abort of a session opened with `--checkout DIR` (DESIGN section 9): the checkout's files
//! are judged with the base's rules, every file no patch recorded is saved first, then the
//! files go and the directories they leave empty; an interrupted one is finished by aborting
//! again.

use std::path::{Path, PathBuf};

use super::*;

/// Removes `members` (files in the checkout `dir`), then every directory left empty, deepest
/// first, the checkout itself included. Returns whether `dir` is still there (it holds files
/// the snapshot rules leave out).
fn remove_checkout_files(dir: &Path, members: &[PathBuf]) -> Result<bool, AbortError> {
    for m in members {
        crate::fault::point(&format!("unlink {}", m.display())).map_err(|source| {
            AbortError::Io {
                path: m.clone(),
                source,
            }
        })?;
        // Relative to the checkout, never through a link (crate::beneath).
        let rel = m
            .strip_prefix(dir)
            .ok()
            .and_then(Path::to_str)
            .unwrap_or("");
        let (parent, leaf) = crate::beneath::split(rel);
        let removed = if rel.is_empty() {
            std::fs::remove_file(m)
        } else {
            crate::beneath::open_dir(dir, parent).and_then(|fd| crate::beneath::unlink(&fd, leaf))
        };
        match removed {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(AbortError::Io {
                    path: m.clone(),
                    source,
                });
            }
        }
    }
    let mut dirs: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        match d.strip_prefix(dir).ok().and_then(Path::to_str) {
            Some("") | None => {
                let _ = std::fs::remove_dir(&d);
            }
            Some(rel) => {
                let (parent, leaf) = crate::beneath::split(rel);
                if let Ok(fd) = crate::beneath::open_dir(dir, parent) {
                    let _ = crate::beneath::rmdir(&fd, leaf);
                }
            }
        }
    }
    Ok(dir.exists())
}

impl Engine {
    /// Another open session whose checkout directory is `dir`.
    fn open_session_with_checkout(
        &self,
        id: &str,
        dir: &Path,
    ) -> Result<Option<String>, AbortError> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let want = canon(dir);
        for other in session::list(self.store())? {
            if other == id {
                continue;
            }
            let Ok((s, st)) = session::load(self.store(), &other) else {
                continue;
            };
            if s.status == Status::Open && st.checkout.as_deref().is_some_and(|c| canon(c) == want)
            {
                return Ok(Some(other));
            }
        }
        Ok(None)
    }

    /// The session's checkout directory if it is still there as the real directory this
    /// session made: never a link (its target's files are not the session's), and not a
    /// directory another open session has since made at the same path (both a conflict).
    /// `None` when it is gone.
    fn live_checkout(
        &self,
        session: &Session,
        state: &SessionState,
    ) -> Result<Option<PathBuf>, AbortError> {
        Ok(match state.checkout.clone() {
            Some(d) => match std::fs::symlink_metadata(&d) {
                Ok(md) if md.file_type().is_symlink() || !md.is_dir() => {
                    return Err(AbortError::Conflict {
                        id: session.session.to_string(),
                        conflicts: vec![PathConflict::new(
                            d.display().to_string(),
                            ConflictKind::CheckoutReplaced,
                        )],
                    });
                }
                Ok(_) => match self.open_session_with_checkout(session.session.as_str(), &d)? {
                    Some(other) => {
                        return Err(AbortError::Conflict {
                            id: session.session.to_string(),
                            conflicts: vec![PathConflict::new(
                                d.display().to_string(),
                                ConflictKind::CheckoutOfOther(other.to_string()),
                            )],
                        });
                    }
                    None => Some(d),
                },
                Err(_) => None,
            },
            None => None,
        })
    }

    /// Removes what an interrupted checkout abort left: each file of the saved snapshot still
    /// in the checkout directory with exactly its saved content, then the directories left
    /// empty. `None` when there is nothing to finish (no checkout directory, or none of its
    /// files is one the abort saved), so the caller reports the session as not open.
    pub(super) fn finish_checkout_abort(
        &self,
        session: &Session,
        state: &SessionState,
    ) -> Result<Option<AbortOutcome>, AbortError> {
        let (Some(dir), Some(saved)) = (state.checkout.clone(), state.saved.as_ref()) else {
            return Ok(None);
        };
        let Some(identity) = saved.snapshot else {
            return Ok(None);
        };
        let real = std::fs::symlink_metadata(&dir)
            .is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink());
        if !real
            || self
                .open_session_with_checkout(session.session.as_str(), &dir)?
                .is_some()
        {
            return Ok(None);
        }
        let (snapshot, _) = self.store().read_snapshot(&identity)?;
        let mut members = Vec::new();
        let mut steps = Vec::new();
        // The snapshot's files, and the saved files abort found outside it (hidden by a rule
        // the agent added, or over the size limit).
        let mut files: Vec<(SnapshotFile, bool)> = snapshot
            .files()
            .iter()
            .map(|f| (f.clone(), saved.executable.contains(&f.path)))
            .collect();
        for f in &saved.files {
            if snapshot.get(f.path.as_str()).is_none() {
                let file = SnapshotFile {
                    path: f.path.clone(),
                    blob: f.blob,
                    bytes: f.bytes,
                };
                files.push((file, f.executable));
            }
        }
        files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        for (f, exec) in &files {
            let target = f.path.to_fs_path(&dir);
            if crate::engine::apply::preconditions::blocked_parent(&dir, &f.path, &BTreeSet::new())
                .is_some()
            {
                continue;
            }
            if let OnDisk::File(b, _, x) = on_disk(self, &target, false)?
                && b == f.blob
                && x == *exec
            {
                steps.push(AbortStep {
                    path: f.path.clone(),
                    action: AbortAction::Delete,
                    saved: false,
                });
                members.push(target);
            }
        }
        if members.is_empty() {
            return Ok(None);
        }
        let kept = remove_checkout_files(&dir, &members)?;
        Ok(Some(AbortOutcome {
            session: session.clone(),
            steps,
            saved: Vec::new(),
            checkout: Some(dir),
            checkout_kept: kept,
            written: true,
            kept: Vec::new(),
        }))
    }

    pub(super) fn abort_checkout(
        &self,
        mut guard: LockedSession<'_>,
        opts: &AbortOptions,
    ) -> Result<AbortOutcome, AbortError> {
        let (session, state) = (guard.session(), guard.state());
        let mut steps = Vec::new();
        let mut saved = Vec::new();
        let mut members: Vec<PathBuf> = Vec::new();
        let dir = self.live_checkout(session, state)?;
        if let Some(dir) = &dir {
            let manifest = self.manifest_of(state, session)?;
            // Judged with the base's rules, as in place: files hidden by a rule the agent
            // added and files over the size limit are removed (and saved) too.
            let base = self.tree(&session.base_snapshot, state.base_executable())?;
            let limit = self.snapshot_options(&manifest)?.max_file_bytes;
            let view = base_view::base_view(self, dir, &base, state, &manifest, limit)?;
            let now = self.snapshot_for_abort(dir, &manifest, opts.dry_run, &view.excludes)?;
            let current = self.tree(&session.current_snapshot, state.current_executable())?;
            let mut all: Vec<(SnapshotFile, bool)> = now
                .snapshot
                .files()
                .iter()
                .map(|f| (f.clone(), now.executable.contains(&f.path)))
                .collect();
            for p in base_view::missing_from(&view, &now.snapshot) {
                if let OnDisk::File(blob, bytes, exec) =
                    on_disk(self, &p.to_fs_path(dir), !opts.dry_run)?
                {
                    all.push((
                        SnapshotFile {
                            path: p,
                            blob,
                            bytes,
                        },
                        exec,
                    ));
                }
            }
            all.sort_by(|a, b| a.0.path.cmp(&b.0.path));
            for (f, exec) in &all {
                let (f, exec) = (f, *exec);
                let recorded = current
                    .snapshot
                    .get(f.path.as_str())
                    .is_some_and(|c| c.blob == f.blob && current.is_executable(&f.path) == exec);
                if !recorded {
                    saved.push(SavedFile {
                        path: f.path.clone(),
                        blob: f.blob,
                        bytes: f.bytes,
                        executable: exec,
                        mode: file_mode(&f.path.to_fs_path(dir)),
                    });
                }
                steps.push(AbortStep {
                    path: f.path.clone(),
                    action: AbortAction::Delete,
                    saved: !recorded,
                });
                members.push(f.path.to_fs_path(dir));
            }
            if !opts.dry_run {
                guard.state_mut().saved = Some(SavedWork {
                    snapshot: Some(now.snapshot.identity()),
                    executable: now.executable.clone(),
                    files: saved.clone(),
                });
            }
        }
        if opts.dry_run {
            let (session, state) = guard.release();
            return Ok(AbortOutcome {
                session,
                steps,
                saved,
                checkout: state.checkout,
                checkout_kept: false,
                written: false,
                kept: Vec::new(),
            });
        }
        // Saved and aborted first; then the files go (a crash in between loses nothing).
        guard.session_mut().status = Status::Aborted;
        let (session, state) = guard.commit()?;
        let mut kept = false;
        if let Some(dir) = &dir {
            kept = remove_checkout_files(dir, &members)?;
        }
        Ok(AbortOutcome {
            session,
            steps,
            saved,
            checkout: state.checkout.clone(),
            checkout_kept: kept,
            written: true,
            kept: Vec::new(),
        })
    }
}
