//! Finding a tree's member files and hashing them (the membership rules of
//! [`crate::snapshot`], DESIGN section 2).

use super::collect::{Filters, Walker, is_executable, settle_tracked, tracked_first};
use super::*;
use std::collections::HashMap;

/// Options for [`scan`] and [`snapshot_dir`].
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    /// Extra gitignore-style globs to leave out (the manifest's `exclude`). Default: none.
    pub exclude: Vec<String>,
    /// The store directory, left out when it lies inside the tree. Default: `None` (only the
    /// top-level `.genesis` is left out).
    pub store_dir: Option<PathBuf>,
    /// Most files allowed. Default: no limit (`usize::MAX`); the manifest's `limits.max_files`
    /// sets one. A tree over [`MAX_FILES`] files gets the v0.2 format.
    pub max_files: usize,
    /// Largest file allowed, in bytes. Default: no limit (`u64::MAX`); the manifest's
    /// `limits.max_file_bytes` sets one. A tree with a file over [`MAX_FILE_BYTES`] bytes gets
    /// the v0.2 format.
    pub max_file_bytes: u64,
    /// The stat cache file: files whose `lstat` fields match their cached entry are not read
    /// again (see [`crate::statcache`]). Default: `None` (every file is read).
    pub stat_cache: Option<PathBuf>,
    /// The workspace root, when the tree may be a directory below it: the ignore files of the
    /// directories from it down to the tree's parent apply too (see
    /// `snapshot/parents.rs`). Default: `None` (the tree's own files only).
    pub ignore_root: Option<PathBuf>,
    /// Files git tracks, relative to the snapshotted root: members although `.gitignore`
    /// matches them (see the module docs). Default: none (the rules of a tree without git).
    /// The engine reads the workspace's index once per command and passes the same set to
    /// [`crate::membership::left_out`]. A set from [`TrackedFiles::discover_deferred`] for this
    /// very root takes its nested repositories from this scan's walk (no second walk).
    pub tracked: Arc<TrackedFiles>,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            exclude: Vec::new(),
            store_dir: None,
            max_files: usize::MAX,
            max_file_bytes: u64::MAX,
            stat_cache: None,
            ignore_root: None,
            tracked: Arc::new(TrackedFiles::none()),
        }
    }
}

/// Why an entry was left out of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// A symbolic link (never followed; v0.1 has no field for links).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block or character device.
    Device,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SkipReason::Symlink => "symbolic link (not followed)",
            SkipReason::Fifo => "FIFO",
            SkipReason::Socket => "socket",
            SkipReason::Device => "device",
        })
    }
}

/// An entry left out of a snapshot, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Path relative to the root (lossy UTF-8 if the name is not UTF-8).
    pub path: String,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// A regular file found by [`scan`], not yet hashed, and the `lstat` fields the stat cache
/// compares (defined in [`crate::statcache`]).
pub use crate::statcache::{ScannedFile, StatKey};

/// What [`scan`] found.
#[derive(Debug, Clone, Default)]
pub struct ScanOutcome {
    /// Regular files, sorted by path bytes.
    pub files: Vec<ScannedFile>,
    /// Entries left out, sorted by path.
    pub skipped: Vec<Skipped>,
    /// The files that are members only because git tracks them: tracked files the walk left
    /// out because `.gitignore` matched them (or a directory above them), sorted by path.
    pub tracked_only: Vec<WorkspacePath>,
}

/// What [`snapshot_dir`] produced.
#[derive(Debug, Clone)]
pub struct SnapshotOutcome {
    /// The snapshot document.
    pub snapshot: Snapshot,
    /// Paths whose executable bit is set (kept beside the snapshot, not in it).
    pub executable: BTreeSet<WorkspacePath>,
    /// Entries left out (symbolic links, FIFOs, sockets, devices).
    pub skipped: Vec<Skipped>,
    /// Files read and hashed.
    pub hashed: usize,
    /// Files whose blob came from the stat cache, unread.
    pub from_cache: usize,
    /// v0.2 tree nodes this snapshot serialised and hashed (0 for v0.1; a directory whose
    /// entries the tree cache beside the stat cache records unchanged is not counted, see
    /// [`crate::tree::cache`]).
    pub nodes_hashed: usize,
    /// The files that are members only because git tracks them
    /// ([`ScanOutcome::tracked_only`]), sorted by path.
    pub tracked_only: Vec<WorkspacePath>,
    /// Whether the identity came from the store's caches, not from serialising and hashing:
    /// the stat cache's summary ([`crate::statcache::Summary`]), or a recent snapshot of the
    /// same files ([`crate::statcache::recent`]). The store checks it when it writes the
    /// snapshot (DESIGN §3).
    pub identity_cached: bool,
}

use super::read::hash_content;
pub use super::read::{HashFn, hash_file, open_regular};

/// How [`snapshot_dir_using`] turns a file into a blob.
pub struct Hashing<'a, E = SnapshotError> {
    /// Reads the file once and returns its SHA-256 and length (and may store it on the way).
    pub hash: &'a HashFn<'a, E>,
    /// Whether a blob named by the stat cache may be used without reading the file (for
    /// example: it is in the store). Default for [`snapshot_dir`]: always.
    pub trust_cached: &'a (dyn Fn(&Digest) -> bool + Sync),
    /// Whether `hash` stores each blob it hashes, so that the stat cache may record the files
    /// read: an entry promises that its blob is in the store, since a store snapshot does not
    /// read a file the cache answers for ([`crate::store::Store::snapshot_into`]). `false` (as
    /// [`snapshot_dir`]): the stat cache is read, never written, so a snapshot that stores
    /// nothing (apply's check of an in-place workspace) cannot make a later one skip storing
    /// a file whose blob was never stored.
    pub stores: bool,
    /// Threads reading files: `None` for rayon's (one per core, for hashing that only
    /// computes); more for a `hash` that waits on the disk, such as the store's `fsync` of each
    /// new object, so that the waits overlap.
    pub threads: Option<usize>,
}

/// Why a snapshot of a directory failed. Each variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The root is missing or not a directory.
    #[error("{}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// Walking the tree failed (permission denied, a loop, …).
    #[error("{}: cannot read directory entry: {source}", .path.display())]
    Walk {
        /// The path being read.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file or directory name that is not valid UTF-8 (JSON cannot hold it).
    #[error("{}: file name is not valid UTF-8; rename it or add it to .genesisignore", .0.display())]
    NonUtf8Path(PathBuf),
    /// A name that breaks the 004 `relativePath` rule (for example one holding a backslash or a
    /// control character).
    #[error("{path}: {source}; rename it or add it to .genesisignore", path = .fs_path.display())]
    InvalidPath {
        /// The file on disk.
        fs_path: PathBuf,
        /// The rule it breaks.
        source: PathError,
    },
    /// More files than the limit.
    #[error(
        "{count} files found, more than the limit of {limit}; leave paths out with .genesisignore or the manifest's \"exclude\""
    )]
    TooManyFiles {
        /// Files found so far (at least limit + 1).
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A file larger than the limit.
    #[error(
        "{path}: {bytes} bytes, more than the limit of {limit} bytes per file; leave it out with .genesisignore or the manifest's \"exclude\""
    )]
    FileTooLarge {
        /// Its workspace path.
        path: WorkspacePath,
        /// Its size in bytes.
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Reading a file failed.
    #[error("{}: {source}", .path.display())]
    Read {
        /// The file on disk.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An exclude glob is not valid gitignore syntax.
    #[error("exclude glob {glob:?}: {message}")]
    BadExclude {
        /// The glob.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// A `.gitignore` or `.genesisignore` that is a symbolic link.
    #[error("{}: ignore files must be regular files, not symbolic links (git does not read them through links either); replace it with a copy", .0.display())]
    IgnoreFileIsLink(PathBuf),
    /// The files found do not form a valid snapshot document (other than their number).
    #[error(transparent)]
    Document(SnapshotDocumentError),
    /// A file changed (type or size) while it was read.
    #[error("{}: changed while it was being read; snapshot again", .0.display())]
    Changed(PathBuf),
    /// The git index (or the `.git` file naming it) of the tree's work tree cannot be read.
    #[error(transparent)]
    Tracked(#[from] TrackedError),
}

/// Finds the member files of the tree at `root` (see the module docs for the rules).
///
/// # Errors
/// A [`SnapshotError`] naming the path: unreadable directories, non-UTF-8 or invalid names,
/// too many files, a file over the size limit, a bad exclude glob.
pub fn scan(root: &Path, opts: &SnapshotOptions) -> Result<ScanOutcome, SnapshotError> {
    let meta = std::fs::metadata(root).map_err(|_| SnapshotError::NotADirectory(root.into()))?;
    if !meta.is_dir() {
        return Err(SnapshotError::NotADirectory(root.into()));
    }
    // A store directory inside the tree, as a path relative to the root.
    let store_rel: Option<PathBuf> = opts.store_dir.as_ref().and_then(|s| {
        let s = std::fs::canonicalize(s).ok()?;
        let r = std::fs::canonicalize(root).ok()?;
        s.strip_prefix(&r).ok().map(Path::to_path_buf)
    });

    let parents = match &opts.ignore_root {
        Some(top) => {
            super::parents::ParentRules::of(top, root).map_err(|e| tracked_first(opts, e))?
        }
        None => super::parents::ParentRules::default(),
    };
    let canonical_root = if parents.is_empty() {
        root.to_path_buf()
    } else {
        std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
    };
    let filters = Filters {
        overrides: exclude_overrides(root, &opts.exclude).map_err(|e| tracked_first(opts, e))?,
        parents,
        canonical_root,
        store_rel: store_rel.clone(),
    };
    // One task per directory on rayon's threads (see `collect.rs`); the files come back in
    // path order, the rest is sorted below, so the result does not depend on the walk's order.
    let mut parts = Walker::new(root, opts, filters).run();
    settle_tracked(opts, &mut parts)?;
    if let Some(e) = parts.errors.into_iter().min_by(|a, b| a.0.cmp(&b.0)) {
        return Err(e.1);
    }
    let mut out = ScanOutcome {
        files: parts.files,
        skipped: parts.skipped,
        tracked_only: Vec::new(),
    };
    debug_assert!(out.files.windows(2).all(|w| w[0].path < w[1].path));
    out.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    if !opts.tracked.is_empty() {
        add_tracked(root, opts, store_rel.as_deref(), &mut out)?;
    }
    Ok(out)
}

/// The manifest's `exclude` globs as overrides of the walk (each one a `!glob`), or `None`
/// when there is none.
pub(super) fn exclude_overrides(
    root: &Path,
    exclude: &[String],
) -> Result<Option<ignore::overrides::Override>, SnapshotError> {
    if exclude.is_empty() {
        return Ok(None);
    }
    // Matched against paths relative to the root: an absolute base is never taken for a
    // prefix of one.
    let base = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let mut ob = ignore::overrides::OverrideBuilder::new(base);
    for glob in exclude {
        ob.add(&format!("!{glob}"))
            .map_err(|e| SnapshotError::BadExclude {
                glob: glob.clone(),
                message: e.to_string(),
            })?;
    }
    let ov = ob.build().map_err(|e| SnapshotError::BadExclude {
        glob: exclude.join(", "),
        message: e.to_string(),
    })?;
    Ok(Some(ov))
}

/// Adds the tracked files the walk left out because `.gitignore` matched them (or a directory
/// above them), unless Genesis's own rules leave them out: `exclude`, the `.genesisignore`
/// files of their directories (read from disk, as the walk reads them), `.git`, the store.
/// Each must be a regular file under real directories. Cost: one binary search per tracked
/// path, and `lstat`s only for tracked paths the walk did not find.
fn add_tracked(
    root: &Path,
    opts: &SnapshotOptions,
    store_rel: Option<&Path>,
    out: &mut ScanOutcome,
) -> Result<(), SnapshotError> {
    let mut rules = crate::membership::Rules::new(&opts.exclude);
    load_genesisignore(root, "", &mut rules)?;
    // Directory → whether files below it can be members: a real directory (not a link) that
    // Genesis's rules do not leave out, and whose parent is usable too. Its .genesisignore is
    // loaded when it is. Each directory is decided once, so a big excluded tree costs one
    // lookup per tracked file in it.
    let mut usable: HashMap<&str, bool> = HashMap::new();
    let mut added = Vec::new();
    // Both lists are sorted by path bytes: walk them side by side.
    let mut next = 0;
    for t in opts.tracked.iter() {
        while next < out.files.len() && out.files[next].path.as_str() < t {
            next += 1;
        }
        if out.files.get(next).is_some_and(|f| f.path.as_str() == t) {
            continue;
        }
        let mut below_usable_dirs = true;
        for (i, _) in t.match_indices('/') {
            let d = &t[..i];
            let ok = match usable.get(d) {
                Some(ok) => *ok,
                None => {
                    let comps: Vec<&str> = d.split('/').collect();
                    let name = comps[comps.len() - 1];
                    let ok = name != ".git"
                        && !(comps.len() == 1 && name == STORE_DIR_NAME)
                        && !store_rel
                            .is_some_and(|s| !s.as_os_str().is_empty() && s == Path::new(d))
                        && std::fs::symlink_metadata(root.join(d)).is_ok_and(|m| m.is_dir())
                        && rules
                            .decide(&comps[..comps.len() - 1], d, true, true)
                            .is_none();
                    if ok {
                        load_genesisignore(root, d, &mut rules)?;
                    }
                    usable.insert(d, ok);
                    ok
                }
            };
            if !ok {
                below_usable_dirs = false;
                break;
            }
        }
        if !below_usable_dirs {
            continue;
        }
        let comps: Vec<&str> = t.split('/').collect();
        let name = comps[comps.len() - 1];
        if name == ".git"
            || (comps.len() == 1 && name == STORE_DIR_NAME)
            || rules
                .decide(&comps[..comps.len() - 1], t, false, true)
                .is_some()
        {
            continue;
        }
        let Ok(path) = WorkspacePath::new(t) else {
            continue;
        };
        let fs_path = root.join(t);
        let Ok(md) = std::fs::symlink_metadata(&fs_path) else {
            continue;
        };
        if !md.is_file() {
            continue;
        }
        if md.len() > opts.max_file_bytes {
            return Err(SnapshotError::FileTooLarge {
                path,
                bytes: md.len(),
                limit: opts.max_file_bytes,
            });
        }
        added.push(ScannedFile {
            path,
            executable: is_executable(&md),
            stat: StatKey::of(&md),
        });
    }
    refuse_tracked_non_utf8(root, opts, store_rel, &mut rules)?;
    if added.is_empty() {
        return Ok(());
    }
    // `opts.tracked` is sorted, so these are too.
    out.tracked_only = added.iter().map(|f| f.path.clone()).collect();
    out.files.extend(added);
    if out.files.len() > opts.max_files {
        return Err(SnapshotError::TooManyFiles {
            count: out.files.len(),
            limit: opts.max_files,
        });
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(())
}

/// Refuses a tracked file whose name is not UTF-8 ([`TrackedFiles::non_utf8`]) that is a
/// regular file on disk under real directories and that Genesis's own rules (`exclude`,
/// `.genesisignore`, `.git`, the store) do not leave out: the walk refuses such a name when
/// `.gitignore` does not match it, and a tracked file is a member although `.gitignore`
/// matches it, so it is refused the same way ([`SnapshotError::NonUtf8Path`], naming the file
/// on disk) rather than dropped. Rules are matched against the name with each invalid byte
/// read as U+FFFD.
fn refuse_tracked_non_utf8(
    root: &Path,
    opts: &SnapshotOptions,
    store_rel: Option<&Path>,
    rules: &mut crate::membership::Rules,
) -> Result<(), SnapshotError> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let store_prefix: Option<Vec<u8>> = store_rel.filter(|s| !s.as_os_str().is_empty()).map(|s| {
        let mut b = s.as_os_str().to_owned().into_vec();
        b.push(b'/');
        b
    });
    'paths: for raw in opts.tracked.non_utf8() {
        if store_prefix.as_deref().is_some_and(|p| raw.starts_with(p)) {
            continue;
        }
        let raw_comps: Vec<&[u8]> = raw.split(|b| *b == b'/').collect();
        let comps: Vec<String> = raw_comps
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        if comps.iter().any(|c| c == ".git") || comps[0] == STORE_DIR_NAME {
            continue;
        }
        let mut fs_path = root.to_path_buf();
        for k in 0..raw_comps.len() {
            fs_path.push(std::ffi::OsStr::from_bytes(raw_comps[k]));
            let is_dir = k + 1 < raw_comps.len();
            let md = std::fs::symlink_metadata(&fs_path);
            let real = md.is_ok_and(|m| if is_dir { m.is_dir() } else { m.is_file() });
            let ancestors: Vec<&str> = comps[..k].iter().map(String::as_str).collect();
            let rel = comps[..=k].join("/");
            if !real || rules.decide(&ancestors, &rel, is_dir, true).is_some() {
                continue 'paths;
            }
            if is_dir
                && raw_comps[..=k]
                    .iter()
                    .all(|c| std::str::from_utf8(c).is_ok())
            {
                load_genesisignore(root, &rel, rules)?;
            }
        }
        return Err(SnapshotError::NonUtf8Path(fs_path));
    }
    Ok(())
}

/// Adds `root/dir/.genesisignore` to `rules` if it exists; refuses one that is a link, as the
/// walk does.
fn load_genesisignore(
    root: &Path,
    dir: &str,
    rules: &mut crate::membership::Rules,
) -> Result<(), SnapshotError> {
    let file = root.join(dir).join(".genesisignore");
    match std::fs::symlink_metadata(&file) {
        Ok(md) if md.file_type().is_symlink() => Err(SnapshotError::IgnoreFileIsLink(file)),
        Ok(md) if md.is_file() => {
            let bytes = std::fs::read(&file).map_err(|source| SnapshotError::Read {
                path: file.clone(),
                source,
            })?;
            rules.add_ignore_file(dir, ".genesisignore", &bytes);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Snapshots the tree at `root`: [`scan`], then hash every file in parallel, streaming.
///
/// # Errors
/// Those of [`scan`], plus [`SnapshotError::Read`] when a file cannot be read and
/// [`SnapshotError::Changed`] when a file stops being a regular file or grows past the limit
/// while it is read.
pub fn snapshot_dir(root: &Path, opts: &SnapshotOptions) -> Result<SnapshotOutcome, SnapshotError> {
    snapshot_dir_using(
        root,
        opts,
        &Hashing {
            hash: &hash_content,
            trust_cached: &|_| true,
            stores: false,
            threads: None,
        },
    )
}
