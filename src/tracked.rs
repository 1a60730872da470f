//! Files git tracks: the paths of a git index that ignore rules must not leave out.
//!
//! Git applies `.gitignore` only to *untracked* files: a file that is in the index (for example
//! a `Cargo.lock` committed with `git add -f` while `.gitignore` lists `/Cargo.lock`) is part
//! of the project. Genesis follows that rule in a git work tree: every path of
//! [`TrackedFiles`] is exempt from `.gitignore` — in a fresh snapshot from disk
//! ([`crate::snapshot::scan`]) and in the store-side check of a patched snapshot
//! ([`crate::membership::left_out`]), which both take the same set. Genesis's own rules (the
//! manifest's `exclude`, `.genesisignore`) still apply to tracked files.
//!
//! **Which index** ([`TrackedFiles::discover`]): starting at the tree's root (symbolic links
//! resolved) and going up, the first directory that holds a `.git` entry is the top of the
//! work tree, as git finds it; the search does not cross into another file system (git's
//! default). `.git` is either the git directory, or a file `gitdir: PATH` (worktrees,
//! submodules; `PATH` relative to the file's directory). `GIT_DIR`, `GIT_WORK_TREE` and
//! `core.worktree` are not read. The index is `<git dir>/index`, read with gitoxide's
//! `gix-index` (SHA-1 or SHA-256 object format, split indexes resolved, checksum verified).
//!
//! **Which entries**: regular and executable files (modes 100644, 100755), at any stage (an
//! unmerged path is tracked too), including skip-worktree and intent-to-add entries; a
//! skip-worktree file that is absent from disk is simply not found on disk. Symbolic links
//! (120000) and sparse-directory entries are not in the set: they stay as they are without
//! git. A gitlink (160000) is not a file either; it leads to the submodule's own index (see
//! "Nested repositories"). Paths are relative to the top of the work tree; when the tree being
//! snapshotted is a subdirectory of the work tree, entries outside it are dropped and the
//! subdirectory's prefix is stripped. Entries whose path is not UTF-8 are kept apart
//! ([`TrackedFiles::non_utf8`]): a snapshot cannot hold such a name, so the walk refuses one
//! it finds on disk that Genesis's own rules do not leave out, exactly as it refuses an
//! untracked non-UTF-8 name ([`crate::snapshot::SnapshotError::NonUtf8Path`], exit 2), even when
//! `.gitignore` matches it — leaving it out silently would drop a file git tracks.
//!
//! **Nested repositories** (as `git ls-files --recurse-submodules`): a repository inside the
//! tree contributes its own index's tracked files, with its directory as prefix, and so on
//! recursively. A nested repository is a directory below the root that holds a `.git` (a
//! directory holding `HEAD`, or a `gitdir: PATH` file as git writes for a submodule) and that
//! is either a gitlink (mode 160000) of an index already read — even when `.gitignore`
//! matches its directory — or, only when the root is in no work tree with an index, a
//! directory the snapshot walk descends into (not ignored). Inside a work tree an embedded
//! repository the outer index does not list is opaque, as it is to git: its files follow the
//! ignore rules (its `.gitignore` included) without its own index. A gitlink reached through a
//! symbolic link, a submodule that is not checked out (no `.git`) and a nested git directory
//! without an `index` add no files; a nested index that cannot be decoded, or a nested `.git`
//! file that names no directory, is an error as at the top.
//!
//! **No index** (no `.git` above the root, or a git directory without an `index` file, as in
//! a fresh `git init`): no tracked files, the rules are those of a tree without git. An index
//! that exists but cannot be read or decoded, or a `.git` file that does not name an existing
//! directory, is an error ([`TrackedError`]): membership cannot be decided, and guessing would
//! silently change snapshot identities.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why the tracked files of a git work tree could not be read. Each names the path.
#[derive(Debug, thiserror::Error)]
pub enum TrackedError {
    /// A `.git` file that is not `gitdir: PATH`, or whose `PATH` is not a directory.
    #[error(
        "{}: not a usable .git file ({reason}); git would refuse this work tree too — fix or remove it",
        .path.display()
    )]
    BadGitFile {
        /// The `.git` file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The index exists but cannot be read or decoded by gitoxide's `gix-index` (as SHA-1 and
    /// as SHA-256); the message is gitoxide's, for each format tried.
    #[error(
        "{}: git index cannot be read: {message}; without it Genesis cannot tell which files git tracks, so it cannot decide which files are members",
        .path.display()
    )]
    Index {
        /// The index file.
        path: PathBuf,
        /// gitoxide's message (for both object formats tried).
        message: String,
    },
}

/// Workspace paths of the regular and executable files in a git index (see the module docs).
///
/// Shape: a sorted set of `/`-separated paths relative to the snapshotted root, each as git
/// stores it (UTF-8 only). Empty when there is no index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackedFiles {
    paths: BTreeSet<String>,
    /// Entries whose path is not UTF-8, as raw bytes relative to the root, sorted.
    non_utf8: Vec<Vec<u8>>,
    index: Option<PathBuf>,
}

impl TrackedFiles {
    /// No tracked files (a tree without git).
    pub fn none() -> TrackedFiles {
        TrackedFiles::default()
    }

    /// A set made of the given paths (for tests and callers that know the set).
    pub fn from_paths<I, S>(paths: I) -> TrackedFiles
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TrackedFiles {
            paths: paths.into_iter().map(Into::into).collect(),
            non_utf8: Vec::new(),
            index: None,
        }
    }

    /// This set with `more` paths added (for example the members of another tree being
    /// compared, or a session's recorded tracked members). The index path is kept.
    pub fn with_paths<'a>(&self, more: impl IntoIterator<Item = &'a str>) -> TrackedFiles {
        let mut t = self.clone();
        t.paths.extend(more.into_iter().map(str::to_owned));
        t
    }

    /// The tracked files of the git work tree holding `root`, relative to `root`.
    ///
    /// # Errors
    /// [`TrackedError::BadGitFile`] for a `.git` file that names no directory;
    /// [`TrackedError::Index`] for an index that exists but cannot be read or decoded.
    ///
    /// Nested repositories (module docs, "Nested repositories") add their own tracked files:
    /// each gitlink of an index read, and — only when the root is in no work tree with an
    /// index — each directory holding a `.git` that the snapshot walk descends into. Cost: one
    /// index read per repository, and outside a work tree one directory walk of the tree
    /// (ignored directories are not entered; one `lstat` per directory walked).
    pub fn discover(root: &Path) -> Result<TrackedFiles, TrackedError> {
        let Ok(real_root) = std::fs::canonicalize(root) else {
            return Ok(TrackedFiles::none());
        };
        let mut t = TrackedFiles::none();
        let mut queue: Vec<String> = Vec::new();
        if let Some((top, git_dir)) = find_git_dir(root)? {
            let prefix = real_root.strip_prefix(&top).unwrap_or(Path::new(""));
            let index = git_dir.join("index");
            if let Some(e) = read_entries(&index, prefix)? {
                t.paths = e.files;
                t.non_utf8 = e.non_utf8;
                queue = e.gitlinks;
                t.index = Some(index);
            }
        }
        // Inside a work tree, git's own rule: only gitlinks lead into nested repositories (an
        // embedded repository the outer index does not list is opaque to git, and its files
        // follow the ignore rules here). Outside one, each repository the walk enters counts;
        // that costs one directory walk, which a work tree is spared (its no-change snapshot
        // stays one walk).
        if t.index.is_none() {
            queue.extend(nested_repositories(&real_root));
        }
        t.add_nested(&real_root, queue)?;
        t.non_utf8.sort();
        t.non_utf8.dedup();
        Ok(t)
    }

    /// Adds the tracked files of the nested repositories at `queue` (directories relative to
    /// `root`), and of theirs, recursively. A directory is read once; one that is not a real
    /// directory (a symbolic link on the way), or has no `.git`, or whose git directory has
    /// no index, adds nothing.
    fn add_nested(&mut self, root: &Path, mut queue: Vec<String>) -> Result<(), TrackedError> {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        while let Some(rel) = queue.pop() {
            if rel.is_empty() || !seen.insert(rel.clone()) || !real_directory(root, &rel) {
                continue;
            }
            let dir = root.join(&rel);
            let Some(git_dir) = nested_git_dir(&dir)? else {
                continue;
            };
            let Some(e) = read_entries(&git_dir.join("index"), Path::new(""))? else {
                continue;
            };
            self.paths
                .extend(e.files.into_iter().map(|f| format!("{rel}/{f}")));
            self.non_utf8.extend(e.non_utf8.into_iter().map(|f| {
                let mut b = rel.as_bytes().to_vec();
                b.push(b'/');
                b.extend_from_slice(&f);
                b
            }));
            queue.extend(e.gitlinks.into_iter().map(|g| format!("{rel}/{g}")));
        }
        Ok(())
    }

    /// The tracked files of the index file at `index`, for the tree at `prefix` (relative to
    /// the top of the work tree; empty for the top itself). A missing index gives no files.
    ///
    /// # Errors
    /// [`TrackedError::Index`] if the file exists but cannot be read or decoded.
    ///
    /// Only this index: gitlinks in it are not followed (see [`TrackedFiles::discover`]).
    pub fn from_index(index: &Path, prefix: &Path) -> Result<TrackedFiles, TrackedError> {
        let Some(mut e) = read_entries(index, prefix)? else {
            return Ok(TrackedFiles::none());
        };
        e.non_utf8.sort();
        e.non_utf8.dedup();
        Ok(TrackedFiles {
            paths: e.files,
            non_utf8: e.non_utf8,
            index: Some(index.to_path_buf()),
        })
    }

    /// Whether git tracks `path` (relative to the snapshotted root).
    pub fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// The tracked paths, sorted by UTF-8 bytes.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(String::as_str)
    }

    /// The tracked paths that are not UTF-8, as raw bytes relative to the root (`/`-separated),
    /// sorted. They are not in [`TrackedFiles::iter`].
    pub fn non_utf8(&self) -> &[Vec<u8>] {
        &self.non_utf8
    }

    /// How many UTF-8 paths ([`TrackedFiles::iter`]).
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether there are none, UTF-8 or not.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.non_utf8.is_empty()
    }

    /// The index file read, if there was one.
    pub fn index_path(&self) -> Option<&Path> {
        self.index.as_deref()
    }
}

/// What one index holds below a prefix (prefix stripped).
struct Entries {
    /// Regular and executable files with UTF-8 paths.
    files: BTreeSet<String>,
    /// Regular and executable files whose path is not UTF-8 (raw bytes).
    non_utf8: Vec<Vec<u8>>,
    /// Gitlinks (mode 160000, submodules) with UTF-8 paths.
    gitlinks: Vec<String>,
}

/// The entries of the index at `index` below `prefix`; `None` when the file does not exist.
fn read_entries(index: &Path, prefix: &Path) -> Result<Option<Entries>, TrackedError> {
    use std::os::unix::ffi::OsStrExt;
    match std::fs::metadata(index) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(TrackedError::Index {
                path: index.into(),
                message: e.to_string(),
            });
        }
        Ok(_) => {}
    }
    let file = read_index(index)?;
    let mut prefix_bytes: Vec<u8> = Vec::new();
    for c in prefix.components() {
        prefix_bytes.extend_from_slice(c.as_os_str().as_bytes());
        prefix_bytes.push(b'/');
    }
    use gix_index::entry::Mode;
    let mut out = Entries {
        files: BTreeSet::new(),
        non_utf8: Vec::new(),
        gitlinks: Vec::new(),
    };
    for entry in file.entries() {
        let is_file = entry.mode == Mode::FILE || entry.mode == Mode::FILE_EXECUTABLE;
        let is_link = entry.mode == Mode::COMMIT;
        if !is_file && !is_link {
            continue;
        }
        let path: &[u8] = entry.path(&file);
        let Some(rest) = path.strip_prefix(prefix_bytes.as_slice()) else {
            continue;
        };
        match (std::str::from_utf8(rest), is_link) {
            (Ok(s), false) => {
                out.files.insert(s.to_owned());
            }
            (Err(_), false) => out.non_utf8.push(rest.to_vec()),
            (Ok(s), true) => out.gitlinks.push(s.to_owned()),
            // A submodule whose name is not UTF-8 cannot hold snapshot members.
            (Err(_), true) => {}
        }
    }
    Ok(Some(out))
}

/// The directories below `root` (relative, `/`-separated, UTF-8) that hold a `.git` entry
/// and that the snapshot walk ([`crate::snapshot::scan`]) descends into: the walk's
/// `.gitignore`/`.genesisignore` rules (the one definition they share, [`crate::dirwalk`]), no
/// symbolic links followed, `.git` directories and the top-level `.genesis` never entered.
/// Unreadable directories are passed over (the snapshot's own walk reports them).
fn nested_repositories(root: &Path) -> Vec<String> {
    crate::dirwalk::repositories(root, crate::path::STORE_DIR_NAME)
}

/// Whether `root/rel` is a directory reached through real directories only (no component is a
/// symbolic link), so a gitlink cannot lead the search outside the tree.
fn real_directory(root: &Path, rel: &str) -> bool {
    let mut p = root.to_path_buf();
    for c in rel.split('/') {
        if c.is_empty() || c == "." || c == ".." {
            return false;
        }
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(md) if md.is_dir() => {}
            _ => return false,
        }
    }
    true
}

/// The git directory of the nested repository at `dir`: its `.git` directory (holding
/// `HEAD`), or the directory its `.git` file names (`gitdir: PATH`, as a submodule's).
/// `None` when `dir` has no `.git` (an uninitialised submodule) or a `.git` directory without
/// `HEAD` (not a repository).
///
/// # Errors
/// [`TrackedError::BadGitFile`] for a `.git` file that names no directory (as at the top).
fn nested_git_dir(dir: &Path) -> Result<Option<PathBuf>, TrackedError> {
    let dot_git = dir.join(".git");
    match std::fs::symlink_metadata(&dot_git) {
        Ok(md) if md.is_dir() => Ok(dot_git.join("HEAD").exists().then_some(dot_git)),
        Ok(md) if md.is_file() => read_git_file(&dot_git, dir).map(Some),
        _ => Ok(None),
    }
}

/// Reads the index, trying SHA-1 and then SHA-256 (the checksum tells them apart).
fn read_index(index: &Path) -> Result<gix_index::File, TrackedError> {
    let opts = gix_index::decode::Options::default();
    let kinds = [gix_index::hash::Kind::Sha1, gix_index::hash::Kind::Sha256];
    let mut messages = Vec::new();
    for kind in kinds {
        match gix_index::File::at(index, kind, false, opts) {
            Ok(f) => return Ok(f),
            Err(e) => messages.push(format!("as {kind}: {e}")),
        }
    }
    Err(TrackedError::Index {
        path: index.into(),
        message: messages.join("; "),
    })
}

/// The top of the work tree holding `root` and its git directory, found as git does (see
/// the module docs), or `None` outside a git work tree.
fn find_git_dir(root: &Path) -> Result<Option<(PathBuf, PathBuf)>, TrackedError> {
    use std::os::unix::fs::MetadataExt;
    let Ok(start) = std::fs::canonicalize(root) else {
        return Ok(None);
    };
    let Ok(start_md) = std::fs::metadata(&start) else {
        return Ok(None);
    };
    let mut dir: &Path = &start;
    loop {
        let dot_git = dir.join(".git");
        if let Ok(md) = std::fs::metadata(&dot_git) {
            if md.is_dir() {
                if dot_git.join("HEAD").exists() {
                    return Ok(Some((dir.to_path_buf(), dot_git)));
                }
            } else if md.is_file() {
                return Ok(Some((dir.to_path_buf(), read_git_file(&dot_git, dir)?)));
            }
        }
        let Some(parent) = dir.parent() else {
            return Ok(None);
        };
        match std::fs::metadata(parent) {
            Ok(md) if md.dev() == start_md.dev() => dir = parent,
            _ => return Ok(None),
        }
    }
}

/// The git directory a `.git` file names (`gitdir: PATH`, relative to `dir`).
fn read_git_file(dot_git: &Path, dir: &Path) -> Result<PathBuf, TrackedError> {
    let bad = |reason: String| TrackedError::BadGitFile {
        path: dot_git.into(),
        reason,
    };
    let text = std::fs::read(dot_git).map_err(|e| bad(e.to_string()))?;
    let text = String::from_utf8(text).map_err(|_| bad("not UTF-8".into()))?;
    let line = text.lines().next().unwrap_or("");
    let target = line
        .strip_prefix("gitdir:")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| bad("expected a line `gitdir: PATH`".into()))?;
    let path = dir.join(target);
    if !path.is_dir() {
        return Err(bad(format!("{} is not a directory", path.display())));
    }
    Ok(path)
}
