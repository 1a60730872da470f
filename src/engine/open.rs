//! `open` (DESIGN section 4): snapshot the workspace and start a session.

use super::*;

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

/// Errors of [`Engine::open`]: only what open can return. Each converts into the
/// [`EngineError`] variant of the same name; [`OpenError::kind`] classifies it.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Store failure, corruption or lock (another process holds it: retryable).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A session with this id exists already ([`SessionError::Exists`]), or writing it failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The manifest is missing (says to run `genesis init` or pass `--manifest`) or invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// `--checkout` together with `--in-place`.
    #[error(
        "--checkout and --in-place exclude each other: an in-place session edits the workspace itself"
    )]
    CheckoutInPlace,
    /// The manifest is not a member of the workspace snapshot.
    #[error(
        "{path}: the manifest is not in the workspace snapshot (it is ignored or excluded); a session's obligations come from its base snapshot"
    )]
    ManifestNotInSnapshot {
        /// The manifest path, relative to the workspace root.
        path: WorkspacePath,
    },
    /// The `--checkout` directory overlaps the workspace or the store.
    #[error(
        "{}: {option} must lie outside the workspace {} and the store {} (not inside or above either)",
        .dir.display(), .workspace.display(), .store.display()
    )]
    NotApart {
        /// The directory as given.
        dir: PathBuf,
        /// The option that named it (`--checkout`).
        option: &'static str,
        /// The workspace root, resolved.
        workspace: PathBuf,
        /// The store directory, resolved.
        store: PathBuf,
    },
    /// The `--checkout` directory is not a directory, or not empty.
    #[error("{}: {reason}", .dir.display())]
    BadDirectory {
        /// The directory as given.
        dir: PathBuf,
        /// What is wrong.
        reason: &'static str,
    },
    /// A base file could not be written under the `--checkout` directory on this system
    /// (NAME_MAX, PATH_MAX); nothing was written.
    #[error(
        "open refused, nothing written: {source}; pass a shorter --checkout directory, or leave the path out of the workspace"
    )]
    CheckoutPathLimit {
        /// The limit broken, naming the path and the directory.
        source: crate::path::FsLimitError,
    },
    /// Snapshotting the workspace failed.
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
    /// Writing the base into the `--checkout` directory failed (what was written is removed).
    #[error(transparent)]
    Materialize(#[from] MaterializeError),
    /// The `--checkout` directory could not be read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

super::from_directory_error!(OpenError);

impl From<crate::store::SnapshotIntoError> for OpenError {
    fn from(e: crate::store::SnapshotIntoError) -> Self {
        use crate::store::SnapshotIntoError as E;
        match e {
            E::Snapshot(s) => OpenError::Snapshot(s),
            E::Store(s) => OpenError::Store(s),
            E::Ingest { path, source } => OpenError::Ingest { path, source },
        }
    }
}

impl From<OpenError> for EngineError {
    fn from(e: OpenError) -> Self {
        use OpenError as O;
        match e {
            O::Store(s) => EngineError::Store(s),
            O::Session(s) => EngineError::Session(s),
            O::Manifest(m) => EngineError::Manifest(m),
            O::CheckoutInPlace => EngineError::CheckoutInPlace,
            O::ManifestNotInSnapshot { path } => EngineError::ManifestNotInSnapshot { path },
            O::NotApart {
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
            O::BadDirectory { dir, reason } => EngineError::BadDirectory { dir, reason },
            O::CheckoutPathLimit { source } => EngineError::CheckoutPathLimit { source },
            O::Snapshot(s) => EngineError::Snapshot(s),
            O::Ingest { path, source } => EngineError::Ingest { path, source },
            O::Materialize(m) => EngineError::Materialize(m),
            O::Io { path, source } => EngineError::Io { path, source },
        }
    }
}

impl Engine {
    /// Opens a session on the workspace as it is now (DESIGN section 4, `open`).
    ///
    /// # Errors
    /// [`ManifestError::Missing`] (says to run `genesis init` or pass `--manifest`), an invalid
    /// manifest, [`SessionError::Exists`], snapshot errors, and [`OpenError::CheckoutInPlace`],
    /// [`OpenError::ManifestNotInSnapshot`], and [`OpenError::BadDirectory`] or
    /// [`OpenError::NotApart`] for a checkout directory that is not empty or lies inside the
    /// workspace; [`OpenError::CheckoutPathLimit`] for a base path the checkout directory
    /// pushes past NAME_MAX/PATH_MAX (nothing written). A failure after the checkout was
    /// started removes what this call wrote there.
    ///
    /// # Events
    /// When the session is made: [`EventKind::SessionOpened`], then
    /// [`EventKind::WorkspaceReady`] naming the directory the agent edits (the checkout, or
    /// the workspace for a session on a copy or in place), links resolved. A failed `open`
    /// emits nothing: there is no session to number events for.
    pub fn open(
        &self,
        opts: &OpenOptions,
        observer: &mut dyn Observer,
    ) -> Result<OpenOutcome, OpenError> {
        let out = self.open_inner(opts)?;
        observer.event(&EventKind::SessionOpened {
            base_snapshot: out.session.base_snapshot.to_string(),
        });
        let ready = out
            .checkout
            .clone()
            .unwrap_or_else(|| self.workspace.root().to_path_buf());
        let ready = std::fs::canonicalize(&ready).unwrap_or(ready);
        observer.event(&EventKind::WorkspaceReady { path: ready });
        Ok(out)
    }

    fn open_inner(&self, opts: &OpenOptions) -> Result<OpenOutcome, OpenError> {
        let lock = self.lock()?;
        let id = opts.session.clone().unwrap_or_else(SessionId::generate);
        if session::exists(&self.store, &id) {
            return Err(SessionError::Exists(id).into());
        }
        let manifest_rel = match &opts.manifest {
            Some(m) => m.clone(),
            None => WorkspacePath::new(DEFAULT_MANIFEST).expect("valid"),
        };
        let root = self.workspace.root();
        let manifest = Manifest::load_in(root, &manifest_rel)?;
        if let Some(dir) = &opts.checkout {
            if opts.in_place {
                return Err(OpenError::CheckoutInPlace);
            }
            self.check_checkout_dir(dir, "--checkout")?;
        }
        let (outcome, _) = self
            .store
            .snapshot_into(root, &self.snapshot_options(&manifest)?)?;
        let Some(mfile) = outcome.snapshot.get(manifest_rel.as_str()).cloned() else {
            return Err(OpenError::ManifestNotInSnapshot { path: manifest_rel });
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
            rebased: Vec::new(),
            checkout_from: opts.checkout.as_ref().map(|_| identity),
            checkout_pulled_past: None,
            reused_acceptance: None,
            conflict_markers: Vec::new(),
        };
        let guard = self.create_session(lock, session, state);
        let Some(dir) = &opts.checkout else {
            let (session, _) = guard.commit()?;
            return Ok(OpenOutcome {
                session,
                collisions: outcome.snapshot.fold_collisions(),
                skipped: outcome.skipped,
                checkout: None,
            });
        };
        // Every base file is written under the checkout: refuse before anything is made,
        // naming the path and the limit, rather than fail half way (as verify's check does).
        let place = checkout_place(dir);
        for f in outcome.snapshot.files() {
            crate::path::check_fs_limits(&f.path, std::slice::from_ref(&place))
                .map_err(|source| OpenError::CheckoutPathLimit { source })?;
        }
        let made = CheckoutGuard::new(dir);
        materialize(
            &self.store,
            &outcome.snapshot,
            &outcome.executable,
            dir,
            &MaterializeOptions {
                durable: false,
                snapshot: self.snapshot_options(&manifest)?,
                modes_from: Some(self.workspace.root().to_path_buf()),
                marker: None,
            },
        )?;
        let (session, _) = guard.commit()?;
        made.keep();
        Ok(OpenOutcome {
            session,
            collisions: outcome.snapshot.fold_collisions(),
            skipped: outcome.skipped,
            checkout: opts.checkout.clone(),
        })
    }

    /// A directory Genesis writes for the agent or the obligations must lie apart from the
    /// workspace and the store: not equal to, inside, or above either, and not `/`.
    pub(super) fn check_apart(
        &self,
        dir: &Path,
        option: &'static str,
    ) -> Result<(), DirectoryError> {
        let (root, store) = (self.workspace.root(), self.workspace.store_dir());
        if !crate::path::lies_apart(dir, &[root, store]) {
            return Err(DirectoryError::NotApart {
                dir: dir.to_path_buf(),
                option,
                workspace: absolute_resolved(root),
                store: absolute_resolved(store),
            });
        }
        Ok(())
    }

    /// Checks that `dir`, given as `option` (`--checkout` of `open`, `--to` of `restore`), is
    /// a new or empty directory apart from the workspace and the store; errors name `option`.
    pub(crate) fn check_checkout_dir(
        &self,
        dir: &Path,
        option: &'static str,
    ) -> Result<(), DirectoryError> {
        let to = option == "--to";
        if let Ok(md) = std::fs::symlink_metadata(dir) {
            if !md.is_dir() {
                return Err(DirectoryError::BadDirectory {
                    dir: dir.to_path_buf(),
                    reason: if to {
                        "--to must be a new or empty directory"
                    } else {
                        "--checkout must be a new or empty directory"
                    },
                });
            }
            let mut rd = std::fs::read_dir(dir).map_err(|source| DirectoryError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            if rd.next().is_some() {
                return Err(DirectoryError::BadDirectory {
                    dir: dir.to_path_buf(),
                    reason: if to {
                        "--to directory is not empty"
                    } else {
                        "--checkout directory is not empty"
                    },
                });
            }
        }
        self.check_apart(dir, option)
    }
}

/// Where `open --checkout DIR` writes: DIR, resolved, with materialize's temporary names
/// (`.genesis-tmp-XXXXXX`) beside each file.
fn checkout_place(dir: &Path) -> crate::path::FsPlace {
    let dir = absolute_resolved(dir);
    crate::path::FsPlace {
        what: format!("the --checkout directory {}", dir.display()),
        dir_len: dir.as_os_str().len(),
        temp_name_len: ".genesis-tmp-XXXXXX".len(),
    }
}

/// Undoes what a failed `open --checkout DIR` wrote: when dropped without
/// [`CheckoutGuard::keep`], removes the directories it created (the topmost ancestor of DIR
/// that did not exist, and everything below), or, when DIR existed (empty, as checked), every
/// entry now in it, and gives DIR its permission bits back. So no failed `open` leaves a
/// partly written checkout, and a retry is not refused as "not empty".
struct CheckoutGuard {
    /// The topmost directory this open creates, if DIR did not exist.
    created: Option<PathBuf>,
    /// DIR and its permission bits, if it existed.
    existing: Option<(PathBuf, std::fs::Permissions)>,
    /// Set by [`CheckoutGuard::keep`].
    kept: bool,
}

impl CheckoutGuard {
    fn new(dir: &Path) -> CheckoutGuard {
        if let Ok(md) = std::fs::symlink_metadata(dir) {
            return CheckoutGuard {
                created: None,
                existing: Some((dir.to_path_buf(), md.permissions())),
                kept: false,
            };
        }
        let abs = crate::path::absolute_lexical(dir);
        let mut top = abs.clone();
        while let Some(parent) = top.parent() {
            if std::fs::symlink_metadata(parent).is_ok() {
                break;
            }
            top = parent.to_path_buf();
        }
        CheckoutGuard {
            created: Some(top),
            existing: None,
            kept: false,
        }
    }

    /// The checkout is complete and its session saved: leave it.
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for CheckoutGuard {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        // Best effort: the open already failed with its own error, which is what is reported.
        if let Some(top) = &self.created {
            let _ = std::fs::remove_dir_all(top);
        }
        if let Some((dir, perms)) = &self.existing {
            if let Ok(rd) = std::fs::read_dir(dir) {
                for e in rd.flatten() {
                    let p = e.path();
                    let _ = match e.file_type() {
                        Ok(t) if t.is_dir() => std::fs::remove_dir_all(&p),
                        _ => std::fs::remove_file(&p),
                    };
                }
            }
            let _ = std::fs::set_permissions(dir, perms.clone());
        }
    }
}
