//! A workspace: a directory tree, its store, and its package manifest.

use std::path::{Path, PathBuf};

use crate::manifest::{DEFAULT_MANIFEST, Manifest, ManifestError};
use crate::snapshot::{STORE_DIR_NAME, SnapshotOptions};
use crate::store::{Store, StoreError};
use crate::tracked::{TrackedError, TrackedFiles};

/// The file in the store that keeps it out of git; it holds [`STORE_GITIGNORE_TEXT`].
pub const STORE_GITIGNORE: &str = ".gitignore";

/// What `STORE/.gitignore` holds: `*`, every name in the store, itself included (as jj's
/// `.jj/.gitignore`).
pub const STORE_GITIGNORE_TEXT: &[u8] = b"*\n";

/// Why [`Workspace::snapshot_options_for`] failed.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    /// `dir/genesis.json` exists but is invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The git index of the work tree holding `dir` cannot be read.
    #[error(transparent)]
    Tracked(#[from] TrackedError),
    /// `dir` is, or lies inside, the store or a `.git` directory of the workspace: Genesis's
    /// and git's own records, never a tree to snapshot, compare or patch from.
    #[error("{}: inside {what}, which is no tree of the workspace", .path.display())]
    Reserved {
        /// The directory given.
        path: PathBuf,
        /// `the store` or `a .git directory`.
        what: &'static str,
    },
}

/// A workspace root with the location of its store.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    store_dir: PathBuf,
}

impl Workspace {
    /// The workspace at `root`, with its store at `store_dir` (default: `root/.genesis`).
    pub fn new(root: impl Into<PathBuf>, store_dir: Option<PathBuf>) -> Workspace {
        let root = root.into();
        let store_dir = store_dir.unwrap_or_else(|| root.join(STORE_DIR_NAME));
        Workspace { root, store_dir }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the store is (it may not exist).
    pub fn store_dir(&self) -> &Path {
        &self.store_dir
    }

    /// The store, if one exists. Never creates it.
    ///
    /// # Errors
    /// [`StoreError::NotAStore`] if the directory exists but is not a store.
    pub fn existing_store(&self) -> Result<Option<Store>, StoreError> {
        if self.store_dir.exists() {
            Store::open(&self.store_dir).map(Some)
        } else {
            Ok(None)
        }
    }

    /// The store; it must exist.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] (says to run `genesis init`), [`StoreError::NotAStore`].
    pub fn store(&self) -> Result<Store, StoreError> {
        Store::open(&self.store_dir)
    }

    /// Creates the store if needed and opens it, and writes `STORE/.gitignore` holding `*`
    /// ([`STORE_GITIGNORE_TEXT`]) when it is missing, as jj does for `.jj`, so that `git add
    /// -A` never adds the store. An existing `.gitignore` is left as it is.
    ///
    /// # Errors
    /// As [`Store::init`]; [`StoreError::Io`] naming `STORE/.gitignore` if it cannot be written.
    pub fn init_store(&self) -> Result<Store, StoreError> {
        self.init_store_created().map(|(s, _)| s)
    }

    /// [`Workspace::init_store`], and whether this call made the store (`false`: it existed,
    /// or another process made it at the same moment; [`Store::init_with`] builds it aside
    /// and renames it into place, `.gitignore` included).
    ///
    /// # Errors
    /// As [`Workspace::init_store`].
    pub fn init_store_created(&self) -> Result<(Store, bool), StoreError> {
        let (store, created) =
            Store::init_with(&self.store_dir, &[(STORE_GITIGNORE, STORE_GITIGNORE_TEXT)])?;
        if std::fs::symlink_metadata(self.store_dir.join(STORE_GITIGNORE)).is_err() {
            crate::store::write_atomic(&self.store_dir, STORE_GITIGNORE, STORE_GITIGNORE_TEXT)?;
        }
        Ok((store, created))
    }

    /// The nearest directory at or above `start` that holds a Genesis store in `.genesis` (as
    /// git looks for `.git`, jj for `.jj`, cargo for `Cargo.toml`), as a path relative to
    /// `start`; a `.genesis` that is a file or a directory with no store in it (an empty one
    /// left by hand) is passed over, as git passes over a `.git` that is no repository:
    /// `.` for `start` itself, `..` for its parent, `../..` and so on. `None` when neither
    /// `start` nor any parent holds one. `start` should be absolute (the current directory);
    /// a relative one is searched only as far as its own components go.
    pub fn discover_root(start: &Path) -> Option<PathBuf> {
        let mut up = PathBuf::from(".");
        for (i, dir) in start.ancestors().enumerate() {
            if holds_store(&dir.join(STORE_DIR_NAME)) {
                return Some(up);
            }
            up = if i == 0 {
                PathBuf::from("..")
            } else {
                up.join("..")
            };
        }
        None
    }

    /// `Some("the store")` when `dir` (symbolic links resolved) is or lies inside the store,
    /// `Some("a .git directory")` when it is or lies inside a `.git` directory below the
    /// root; `None` otherwise (and when `dir` cannot be resolved: the snapshot says why).
    pub fn reserved(&self, dir: &Path) -> Option<&'static str> {
        let dir = dir.canonicalize().ok()?;
        let store = self
            .store_dir
            .canonicalize()
            .unwrap_or(self.store_dir.clone());
        if dir.starts_with(&store) {
            return Some("the store");
        }
        let root = self.root.canonicalize().unwrap_or(self.root.clone());
        let rel = dir.strip_prefix(&root).ok()?;
        rel.components()
            .any(|c| c.as_os_str() == ".git")
            .then_some("a .git directory")
    }

    /// The default manifest path, `root/genesis.json`.
    pub fn manifest_path(&self) -> PathBuf {
        self.root.join(DEFAULT_MANIFEST)
    }

    /// Snapshot options for a tree at `dir`: the manifest's `exclude` globs when `dir` holds a
    /// `genesis.json`, the store directory left out, and the files git tracks in the work tree
    /// holding `dir` ([`TrackedFiles::discover_deferred`]: a nested repository outside a work
    /// tree is found by the snapshot's walk of `dir`; none outside git).
    ///
    /// # Errors
    /// [`OptionsError::Manifest`] if `dir/genesis.json` exists but is invalid;
    /// [`OptionsError::Tracked`] if `dir` is in a git work tree whose index cannot be read;
    /// [`OptionsError::Reserved`] if `dir` is the store or a `.git` directory ([`Workspace::reserved`]).
    pub fn snapshot_options_for(&self, dir: &Path) -> Result<SnapshotOptions, OptionsError> {
        if let Some(what) = self.reserved(dir) {
            return Err(OptionsError::Reserved {
                path: dir.to_path_buf(),
                what,
            });
        }
        let mut opts = SnapshotOptions {
            store_dir: Some(self.store_dir.clone()),
            // A directory below the root inherits the root's ignore rules (a directory
            // elsewhere, or the root itself, has none above it).
            ignore_root: Some(self.root.clone()),
            tracked: std::sync::Arc::new(TrackedFiles::discover_deferred(dir)?),
            ..SnapshotOptions::default()
        };
        let manifest_path =
            crate::path::WorkspacePath::new(DEFAULT_MANIFEST).expect("a valid path");
        match Manifest::load_in(dir, &manifest_path) {
            Ok(m) => {
                opts.exclude = m.exclude;
                if let Some(n) = m.limits.max_files {
                    opts.max_files = n;
                }
                if let Some(n) = m.limits.max_file_bytes {
                    opts.max_file_bytes = n;
                }
            }
            Err(ManifestError::Missing(_)) => {}
            Err(e) => {
                // A nested index that cannot be read is reported first, as when the tracked
                // set was read before the manifest.
                opts.tracked.resolve()?;
                return Err(e.into());
            }
        }
        Ok(opts)
    }
}

/// Whether `dir` holds a Genesis store, for the search: its `format` file, or (a damaged
/// store, whose own error is then reported) its `objects` or `sessions` directory. A file,
/// or a directory with none of these (empty, or someone else's), is not one.
fn holds_store(dir: &Path) -> bool {
    dir.is_dir()
        && (dir.join("format").is_file()
            || dir.join("objects").is_dir()
            || dir.join("sessions").is_dir())
}
