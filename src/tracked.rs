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
//! **One walk** ([`TrackedFiles::discover_deferred`]): outside a work tree with an index, the
//! nested repositories are those the snapshot walk descends into, so the set can leave them to
//! the first snapshot walk of its root ([`crate::snapshot::scan`]): the walk notes each
//! directory holding a `.git` that it enters (and, for a directory only Genesis's own rules
//! leave out, the manifest's `exclude`, the store, the rules above the tree, it still looks
//! for them below it as the search would), and the set takes the repositories from that list
//! instead of walking the tree a second time. The list is exactly the search's: the search
//! follows the walk's `.gitignore`/`.genesisignore` rules and nothing else, and which
//! directories it enters does not depend on the tracked files (an inner index cannot make it
//! enter an ignored directory; gitlinks are followed from the indexes read, as always). A walk
//! that failed, or of another root, leaves the search to [`TrackedFiles::resolve`], which any
//! query before a walk also runs.
//!
//! **No index** (no `.git` above the root, or a git directory without an `index` file, as in
//! a fresh `git init`): no tracked files, the rules are those of a tree without git. An index
//! that exists but cannot be read or decoded, or a `.git` file that does not name an existing
//! directory, is an error ([`TrackedError`]): membership cannot be decided, and guessing would
//! silently change snapshot identities.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Why the tracked files of a git work tree could not be read. Each names the path.
#[derive(Debug, Clone, thiserror::Error)]
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
///
/// A set from [`TrackedFiles::discover_deferred`] outside a work tree with an index holds its
/// nested repositories' files once they are found (module docs, "One walk"); its clones
/// ([`TrackedFiles::with_paths`]) share that finding.
#[derive(Debug, Clone, Default)]
pub struct TrackedFiles {
    paths: BTreeSet<String>,
    /// Entries whose path is not UTF-8, as raw bytes relative to the root, sorted. Empty when
    /// `nested` is set (there is no index then).
    non_utf8: Vec<Vec<u8>>,
    index: Option<PathBuf>,
    /// The nested repositories of a root in no work tree with an index, found by the first
    /// walk of the root or by [`TrackedFiles::resolve`].
    nested: Option<Arc<Deferred>>,
}

/// The nested repositories' files of one root, found once.
#[derive(Debug)]
struct Deferred {
    /// The root, resolved.
    root: PathBuf,
    found: OnceLock<Result<Nested, TrackedError>>,
}

/// The files of the nested repositories (prefixed by their directory).
#[derive(Debug, Default)]
struct Nested {
    paths: BTreeSet<String>,
    /// Sorted, no duplicates.
    non_utf8: Vec<Vec<u8>>,
}

impl PartialEq for TrackedFiles {
    fn eq(&self, other: &TrackedFiles) -> bool {
        self.index == other.index
            && self.non_utf8() == other.non_utf8()
            && self.iter().eq(other.iter())
    }
}

impl Eq for TrackedFiles {}

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
            ..TrackedFiles::default()
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
    /// (ignored directories are not entered; one `open` and `getdents64` per directory
    /// walked). A caller that walks the tree anyway takes [`TrackedFiles::discover_deferred`].
    pub fn discover(root: &Path) -> Result<TrackedFiles, TrackedError> {
        let t = TrackedFiles::discover_deferred(root)?;
        t.resolve()?;
        Ok(t)
    }

    /// [`TrackedFiles::discover`], leaving the search for nested repositories outside a work
    /// tree with an index to the first snapshot walk of `root` ([`crate::snapshot::scan`]
    /// with this set in [`crate::snapshot::SnapshotOptions::tracked`]), so a snapshot lists
    /// each directory once (module docs, "One walk"). The set is the same; only the time the
    /// search runs, and so the time its errors are reported, differ: [`TrackedFiles::resolve`]
    /// (which `scan` calls, before reporting any error of its own) reports them, and finds the
    /// repositories itself if no walk of `root` did. A query before either ([`Self::contains`],
    /// [`Self::iter`], …) runs the search too, but cannot report its error: a caller that
    /// queries without scanning calls [`TrackedFiles::resolve`] first.
    ///
    /// # Errors
    /// As [`TrackedFiles::discover`] for the index of the work tree holding `root`.
    pub fn discover_deferred(root: &Path) -> Result<TrackedFiles, TrackedError> {
        let Ok(real_root) = std::fs::canonicalize(root) else {
            return Ok(TrackedFiles::none());
        };
        let mut t = TrackedFiles::none();
        if let Some((top, git_dir)) = find_git_dir(root)? {
            let prefix = real_root.strip_prefix(&top).unwrap_or(Path::new(""));
            let index = git_dir.join("index");
            if let Some(e) = read_entries(&index, prefix)? {
                t.paths = e.files;
                t.non_utf8 = e.non_utf8;
                t.index = Some(index);
                // Inside a work tree, git's own rule: only gitlinks lead into nested
                // repositories (an embedded repository the outer index does not list is
                // opaque to git, and its files follow the ignore rules here).
                let nested = nested_of(&real_root, e.gitlinks)?;
                t.paths.extend(nested.paths);
                t.non_utf8.extend(nested.non_utf8);
                t.non_utf8.sort();
                t.non_utf8.dedup();
                return Ok(t);
            }
        }
        // Outside one, each repository the walk enters counts: found by the snapshot's own
        // walk, or by a walk of its own when asked before one.
        t.nested = Some(Arc::new(Deferred {
            root: real_root,
            found: OnceLock::new(),
        }));
        Ok(t)
    }

    /// Finds the nested repositories of a set from [`TrackedFiles::discover_deferred`] by a
    /// walk of its root, unless a snapshot walk of the root (or an earlier call) found them
    /// already; nothing for any other set. Shared by the set's clones.
    ///
    /// # Errors
    /// As [`TrackedFiles::discover`] for a nested repository: [`TrackedError::BadGitFile`],
    /// [`TrackedError::Index`] (the same error each time it is asked).
    pub fn resolve(&self) -> Result<(), TrackedError> {
        let Some(d) = &self.nested else {
            return Ok(());
        };
        d.found
            .get_or_init(|| nested_of(&d.root, nested_repositories(&d.root)))
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// The resolved root whose walk would find this set's nested repositories, while they are
    /// not found yet ([`TrackedFiles::settle`]).
    pub(crate) fn pending_root(&self) -> Option<&Path> {
        self.nested
            .as_deref()
            .filter(|d| d.found.get().is_none())
            .map(|d| d.root.as_path())
    }

    /// Takes the nested repositories from a snapshot walk of [`Self::pending_root`] that
    /// finished without error: `found` holds the directories (relative, `/`-separated, UTF-8)
    /// holding a `.git` entry that the search of [`TrackedFiles::resolve`] would enter, in
    /// any order. Nothing changes when they are found already.
    ///
    /// # Errors
    /// As [`TrackedFiles::resolve`].
    pub(crate) fn settle(&self, mut found: Vec<String>) -> Result<(), TrackedError> {
        let Some(d) = &self.nested else {
            return Ok(());
        };
        d.found
            .get_or_init(|| {
                // The order the search gives (sorted), so that of two broken indexes the same
                // one is reported.
                found.sort();
                found.dedup();
                nested_of(&d.root, found)
            })
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// The nested repositories' files, found now if they are not yet; `None` when there are
    /// none to find, or when finding them failed (reported by [`TrackedFiles::resolve`]).
    fn nested(&self) -> Option<&Nested> {
        let d = self.nested.as_deref()?;
        d.found
            .get_or_init(|| nested_of(&d.root, nested_repositories(&d.root)))
            .as_ref()
            .ok()
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
            nested: None,
        })
    }

    /// Whether git tracks `path` (relative to the snapshotted root).
    pub fn contains(&self, path: &str) -> bool {
        self.paths.contains(path) || self.nested().is_some_and(|n| n.paths.contains(path))
    }

    /// The tracked paths, sorted by UTF-8 bytes.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let nested = self.nested().map(|n| n.paths.iter());
        Union {
            a: self.paths.iter().peekable(),
            b: nested.into_iter().flatten().peekable(),
        }
    }

    /// The tracked paths that are not UTF-8, as raw bytes relative to the root (`/`-separated),
    /// sorted. They are not in [`TrackedFiles::iter`].
    pub fn non_utf8(&self) -> &[Vec<u8>] {
        match self.nested() {
            Some(n) => &n.non_utf8,
            None => &self.non_utf8,
        }
    }

    /// How many UTF-8 paths ([`TrackedFiles::iter`]).
    pub fn len(&self) -> usize {
        match self.nested() {
            Some(n) if !n.paths.is_empty() => self.iter().count(),
            _ => self.paths.len(),
        }
    }

    /// Whether there are none, UTF-8 or not.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
            && self.non_utf8().is_empty()
            && self.nested().is_none_or(|n| n.paths.is_empty())
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

/// The two sorted sets of [`TrackedFiles::iter`] merged, each path once.
struct Union<'a, A: Iterator<Item = &'a String>, B: Iterator<Item = &'a String>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<'a, A: Iterator<Item = &'a String>, B: Iterator<Item = &'a String>> Iterator
    for Union<'a, A, B>
{
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let next = match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if x == y => {
                self.b.next();
                self.a.next()
            }
            (Some(x), Some(y)) if x < y => self.a.next(),
            (Some(_), Some(_)) | (None, _) => self.b.next(),
            (Some(_), None) => self.a.next(),
        };
        next.map(String::as_str)
    }
}

/// The tracked files of the nested repositories at `queue` (directories relative to the
/// resolved `root`) and of theirs, non-UTF-8 paths sorted ([`TrackedFiles::add_nested`]).
fn nested_of(root: &Path, queue: Vec<String>) -> Result<Nested, TrackedError> {
    let mut t = TrackedFiles::none();
    t.add_nested(root, queue)?;
    t.non_utf8.sort();
    t.non_utf8.dedup();
    Ok(Nested {
        paths: t.paths,
        non_utf8: t.non_utf8,
    })
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
