//! The snapshot walk (see [`super::scan`]): one task per directory on rayon's threads, each
//! opening its directory once, listing it with `getdents64` into one buffer, consulting the
//! ignore rules per entry without building a path per entry (the `ignore` crate's gitignore
//! matchers, so the rules mean exactly what they meant with its walker), and `statx`-ing each
//! member file relative to the directory's descriptor (no path lookup from the root). Each
//! directory sorts its own files and sub-directories by name (a sub-directory `s` as `s/`, which
//! is where all of its paths fall among its siblings), so the tree of directories, read depth
//! first, gives the files in path order: they are moved once into one list at the end, with no
//! sort of the whole list.
//!
//! When the tracked set still owes the nested repositories of this very root
//! ([`crate::tracked::TrackedFiles::discover_deferred`]), the walk also notes each directory
//! holding a `.git` entry that it enters, and runs the nested-repository search
//! ([`crate::dirwalk::Search`]) below each directory that only Genesis's own rules (`exclude`,
//! the store, the rules above the tree) leave out, so that the list is the one that search
//! would give for the whole tree without walking it a second time ([`settle_tracked`]).

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::overrides::Override;
use rayon::prelude::*;
use rustix::fs::{AtFlags, FileType, OFlags, StatxFlags};

use super::parents::ParentRules;
use super::{ScannedFile, SkipReason, Skipped, SnapshotError, SnapshotOptions, StatKey};
use crate::dirwalk::{Level, Search, list, repository_at, search_enters};
use crate::path::{MAX_DEPTH, PathError, STORE_DIR_NAME, WorkspacePath};

/// What the walk found: files sorted by path bytes, skipped entries and errors in no order.
#[derive(Default)]
pub(super) struct ScanParts {
    pub(super) files: Vec<ScannedFile>,
    pub(super) skipped: Vec<Skipped>,
    /// Errors with the path they were found at (the smallest one is reported, so the error
    /// does not depend on which thread got there first).
    pub(super) errors: Vec<(PathBuf, SnapshotError)>,
    /// The directories holding a `.git` entry that the nested-repository search would enter,
    /// when the walk looked for them (see the module docs), in no order.
    pub(super) nested: Option<Vec<String>>,
}

/// The rules that leave an entry out besides the ignore files: the manifest's `exclude`
/// globs, the ignore files above the tree, `.git`, the store.
pub(super) struct Filters {
    /// `exclude` as `ignore` overrides (checked first; a match decides).
    pub(super) overrides: Option<Override>,
    /// The ignore rules of the directories above the tree.
    pub(super) parents: ParentRules,
    /// The tree's resolved path, to which [`Filters::parents`] rules apply.
    pub(super) canonical_root: PathBuf,
    /// A store directory inside the tree, relative to the root.
    pub(super) store_rel: Option<PathBuf>,
}

/// One walk over a tree.
pub(super) struct Walker<'a> {
    root: &'a Path,
    opts: &'a SnapshotOptions,
    filters: Filters,
    /// The root made absolute: the base of every matcher, so that a relative candidate path is
    /// never mistaken for one under the matcher's directory.
    abs_root: PathBuf,
    count: AtomicUsize,
    failed: AtomicBool,
    skipped: Mutex<Vec<Skipped>>,
    errors: Mutex<Vec<(PathBuf, SnapshotError)>>,
    /// Nested repositories found, when the tracked set owes those of this root.
    nested: Option<Mutex<Vec<String>>>,
}

/// A subdirectory still to walk.
struct Sub {
    rel: Vec<u8>,
    fs_path: PathBuf,
}

/// What the walk found in one directory: its files sorted by path bytes, and its walked
/// sub-directories in name order, each with the number of those files whose paths sort
/// before all of its own.
#[derive(Default)]
struct Found {
    files: Vec<ScannedFile>,
    subs: Vec<(usize, Found)>,
}

impl Found {
    /// How many files it and its sub-directories hold.
    fn count(&self) -> usize {
        self.files.len() + self.subs.iter().map(|(_, f)| f.count()).sum::<usize>()
    }

    /// Moves its files and its sub-directories' into `out`, in path order.
    fn flatten_into(self, out: &mut Vec<ScannedFile>) {
        let mut files = self.files.into_iter();
        let mut done = 0;
        for (before, sub) in self.subs {
            out.extend(files.by_ref().take(before - done));
            done = before;
            sub.flatten_into(out);
        }
        out.extend(files);
    }
}

/// The order of two sibling directories' paths as their paths below them sort: `a/` against
/// `b/` (so `a.b` comes before `a`, though `a` < `a.b`).
fn dir_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| {
        let at = |p: &[u8]| p.get(n).copied().unwrap_or(b'/');
        at(a).cmp(&at(b))
    })
}

/// The order of path `path` (no `/` after `dir/`) among the paths below directory `sub`, a
/// sibling: `path` against `sub/`. A file `a.b` comes before `a/…` and `a0` after it.
fn file_before_dir(path: &[u8], sub: &[u8]) -> bool {
    let n = path.len().min(sub.len());
    match path[..n].cmp(&sub[..n]) {
        std::cmp::Ordering::Equal => match path.get(n) {
            // `path` is `sub` itself or a prefix of it: shorter first.
            None => true,
            Some(b) => *b < b'/',
        },
        o => o.is_lt(),
    }
}

impl<'a> Walker<'a> {
    pub(super) fn new(root: &'a Path, opts: &'a SnapshotOptions, filters: Filters) -> Self {
        let abs_root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        // Only for the root the set was discovered for (the engine judges other trees, such as
        // a checkout, with the workspace's set: their repositories are not its own).
        let nested = opts
            .tracked
            .pending_root()
            .is_some_and(|r| std::fs::canonicalize(root).is_ok_and(|c| c == r))
            .then(|| Mutex::new(Vec::new()));
        Walker {
            root,
            opts,
            filters,
            abs_root,
            count: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            skipped: Mutex::new(Vec::new()),
            errors: Mutex::new(Vec::new()),
            nested,
        }
    }

    /// Walks the whole tree on rayon's threads.
    pub(super) fn run(self) -> ScanParts {
        let found = self.dir(Vec::new(), self.root.to_path_buf(), &Level::top());
        let mut files = Vec::with_capacity(found.count());
        found.flatten_into(&mut files);
        debug_assert!(files.is_sorted_by(|a, b| a.path < b.path));
        ScanParts {
            files,
            skipped: self.skipped.into_inner().unwrap_or_else(|e| e.into_inner()),
            errors: self.errors.into_inner().unwrap_or_else(|e| e.into_inner()),
            nested: self
                .nested
                .map(|n| n.into_inner().unwrap_or_else(|e| e.into_inner())),
        }
    }

    /// Whether the directory `rel` (`name` in `dir` on disk) is as deep as a path may be, so
    /// that its members would be deeper: then it is not entered (the walk goes one call deeper
    /// per level; see [`crate::path::MAX_DEPTH`]) and the error naming it is recorded.
    fn too_deep(&self, rel: &[u8], dir: &Path, name: &[u8]) -> bool {
        if rel.iter().filter(|b| **b == b'/').count() + 1 < MAX_DEPTH {
            return false;
        }
        let at = dir.join(OsStr::from_bytes(name));
        let source = PathError::TooDeep(String::from_utf8_lossy(rel).into_owned());
        self.fail(
            at.clone(),
            SnapshotError::InvalidPath {
                fs_path: at,
                source,
            },
        );
        true
    }

    /// Records the error `e` found at `at`. The walk goes on after an error about one path
    /// (so the smallest such path is the one reported, whatever the directory order or the
    /// threads' timing); it stops only once the file-count limit is passed, where no path
    /// is wrong and going on would only count further.
    fn fail(&self, at: PathBuf, e: SnapshotError) {
        if matches!(e, SnapshotError::TooManyFiles { .. }) {
            self.failed.store(true, Ordering::Relaxed);
        }
        self.errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((at, e));
    }

    /// Walks the directory `rel` (relative to the root, `fs_path` on disk) below `level`.
    fn dir(&self, rel: Vec<u8>, fs_path: PathBuf, level: &Arc<Level>) -> Found {
        if self.failed.load(Ordering::Relaxed) {
            return Found::default();
        }
        // The root is followed if it is a link (as it always was); nothing below it is.
        let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if !rel.is_empty() {
            flags |= OFlags::NOFOLLOW;
        }
        let walk_err = |path: &Path, e: rustix::io::Errno| SnapshotError::Walk {
            path: path.to_path_buf(),
            source: e.into(),
        };
        let fd = match rustix::fs::open(&fs_path, flags, rustix::fs::Mode::empty()) {
            Ok(fd) => fd,
            Err(e) => {
                self.fail(fs_path.clone(), walk_err(&fs_path, e));
                return Found::default();
            }
        };
        let (names, entries) = match list(&fd) {
            Ok(l) => l,
            Err(e) => {
                self.fail(fs_path.clone(), walk_err(&fs_path, e));
                return Found::default();
            }
        };
        if let Some(found) = &self.nested
            && let Some(r) = repository_at(&rel, &names, &entries)
        {
            found.lock().unwrap_or_else(|e| e.into_inner()).push(r);
        }
        let level = Level::of(&self.abs_root, &rel, &fs_path, &names, &entries, level);
        let mut subs: Vec<Sub> = Vec::new();
        // Directories left out that the nested-repository search enters.
        let mut searched: Vec<Sub> = Vec::new();
        let mut files = Vec::with_capacity(entries.len());
        let mut cand = rel.clone();
        if !cand.is_empty() {
            cand.push(b'/');
        }
        let base = cand.len();
        // The directory's own path when it is UTF-8 (then each member's name alone is checked).
        let prefix = std::str::from_utf8(&rel).ok();
        for &(start, end, ft) in &entries {
            let name = &names[start..end];
            cand.truncate(base);
            cand.extend_from_slice(name);
            let is_dir = ft == FileType::Directory;
            if self.left_out(&cand, name, is_dir, &level) {
                if is_dir
                    && self.nested.is_some()
                    && search_enters(&cand, name, STORE_DIR_NAME.as_bytes(), &level)
                {
                    searched.push(Sub {
                        rel: cand.clone(),
                        fs_path: fs_path.join(OsStr::from_bytes(name)),
                    });
                }
                continue;
            }
            if is_dir && self.too_deep(&cand, &fs_path, name) {
                continue;
            }
            if is_dir {
                subs.push(Sub {
                    rel: cand.clone(),
                    fs_path: fs_path.join(OsStr::from_bytes(name)),
                });
                continue;
            }
            match self.file(&fd, &fs_path, prefix, &cand, name, ft) {
                Ok(Some(f)) => files.push(f),
                Ok(None) => {}
                Err((at, e)) => self.fail(at, e),
            }
        }
        drop(fd);
        if self.failed.load(Ordering::Relaxed) {
            return Found::default();
        }
        if let Some(found) = &self.nested
            && !searched.is_empty()
        {
            let search = Search {
                abs_root: &self.abs_root,
                store_name: STORE_DIR_NAME.as_bytes(),
                found,
            };
            searched
                .into_par_iter()
                .for_each(|s| search.dir(s.rel, s.fs_path, &level));
        }
        // Paths are unique; names in one directory sort as their paths do.
        files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        // Sub-directories as `name/`: `a.b/` before `a/`.
        subs.sort_unstable_by(|a, b| dir_order(&a.rel, &b.rel));
        let before: Vec<usize> = subs
            .iter()
            .map(|s| files.partition_point(|f| file_before_dir(f.path.as_str().as_bytes(), &s.rel)))
            .collect();
        let found: Vec<Found> = subs
            .into_par_iter()
            .map(|s| self.dir(s.rel, s.fs_path, &level))
            .collect();
        Found {
            files,
            subs: before.into_iter().zip(found).collect(),
        }
    }

    /// Whether the entry at `rel` (relative to the root; `name` its last component) is left
    /// out: by `exclude` (which decides when it matches), else by the nearest
    /// `.genesisignore` rule matching it, else by the nearest `.gitignore` rule (the `ignore`
    /// crate's precedence); or because it is `.git`, the store, or left out by the rules
    /// above the tree.
    fn left_out(&self, rel: &[u8], name: &[u8], is_dir: bool, level: &Level) -> bool {
        if name == b".git" {
            return true;
        }
        let f = &self.filters;
        let path = Path::new(OsStr::from_bytes(rel));
        let decided = f
            .overrides
            .as_ref()
            .map_or(Match::None, |o| o.matched(path, is_dir).map(|_| ()));
        if decided.is_ignore() {
            return true;
        }
        if decided.is_none() && level.ignores(rel, is_dir) {
            return true;
        }
        if !f.parents.is_empty() && f.parents.ignores(&f.canonical_root.join(path), is_dir) {
            return true;
        }
        if rel == STORE_DIR_NAME.as_bytes() {
            return true;
        }
        f.store_rel
            .as_ref()
            .is_some_and(|s| !s.as_os_str().is_empty() && s.as_path() == path)
    }

    /// A member entry that is not a directory: `Some` regular file, `None` for a special file
    /// (recorded as skipped), or the error with the path it concerns.
    fn file(
        &self,
        dir: &OwnedFd,
        dir_path: &Path,
        prefix: Option<&str>,
        rel: &[u8],
        name: &[u8],
        ft: FileType,
    ) -> Result<Option<ScannedFile>, (PathBuf, SnapshotError)> {
        let at = || dir_path.join(OsStr::from_bytes(name));
        let reason = special_reason(ft);
        if reason == Some(SkipReason::Symlink)
            && (name == b".gitignore" || name == b".genesisignore")
        {
            // The rules were read through the link (git does not): refuse rather than let a
            // file outside the tree decide membership.
            return Err((at(), SnapshotError::IgnoreFileIsLink(at())));
        }
        if let Some(reason) = reason {
            self.skipped
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Skipped {
                    path: String::from_utf8_lossy(rel).into_owned(),
                    reason,
                });
            return Ok(None);
        }
        // Only the name is checked for UTF-8 when the directory's path is known to be.
        let non_utf8 = || (at(), SnapshotError::NonUtf8Path(at()));
        let rel_str = match prefix {
            Some(p) => {
                let name = std::str::from_utf8(name).map_err(|_| non_utf8())?;
                let mut s = String::with_capacity(rel.len());
                if !p.is_empty() {
                    s.push_str(p);
                    s.push('/');
                }
                s.push_str(name);
                s
            }
            None => std::str::from_utf8(rel).map_err(|_| non_utf8())?.to_owned(),
        };
        let path = WorkspacePath::new(rel_str).map_err(|source| {
            (
                at(),
                SnapshotError::InvalidPath {
                    fs_path: at(),
                    source,
                },
            )
        })?;
        let (stat, executable) = stat_at(dir, name)
            .map_err(|source| (at(), SnapshotError::Walk { path: at(), source }))?;
        let bytes = stat.size;
        if bytes > self.opts.max_file_bytes {
            return Err((
                at(),
                SnapshotError::FileTooLarge {
                    path,
                    bytes,
                    limit: self.opts.max_file_bytes,
                },
            ));
        }
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.opts.max_files {
            // The walk stops here, so the count is the first one past the limit, whichever
            // thread got there (the whole tree is not counted).
            return Err((
                at(),
                SnapshotError::TooManyFiles {
                    count: self.opts.max_files.saturating_add(1),
                    limit: self.opts.max_files,
                },
            ));
        }
        Ok(Some(ScannedFile {
            path,
            executable,
            stat,
        }))
    }
}

/// Settles the tracked set's nested repositories (see the module docs) before the walk's
/// errors are reported: from the walk's list when it found them without error, else by the
/// search of [`crate::tracked::TrackedFiles::resolve`] (nothing to do for a set that owes
/// none). An error here is the one `TrackedFiles::discover` gave before the walk, so it comes
/// first, as it did.
///
/// # Errors
/// [`SnapshotError::Tracked`] for a nested `.git` file or index that cannot be used.
pub(super) fn settle_tracked(
    opts: &SnapshotOptions,
    parts: &mut ScanParts,
) -> Result<(), SnapshotError> {
    if let Some(found) = parts.nested.take()
        && parts.errors.is_empty()
    {
        opts.tracked.settle(found)?;
    }
    opts.tracked.resolve()?;
    Ok(())
}

/// `e`, an error found before the walk, unless settling the tracked set's nested repositories
/// fails: that error came first when they were found before the scan.
pub(super) fn tracked_first(opts: &SnapshotOptions, e: SnapshotError) -> SnapshotError {
    match opts.tracked.resolve() {
        Err(t) => t.into(),
        Ok(()) => e,
    }
}

/// The stat cache's fields and the owner's executable bit of `name` in the directory open at
/// `dir`, not following a link (`statx`, the call `std::fs::symlink_metadata` makes, so the
/// fields are those [`StatKey::of`] gives).
fn stat_at(dir: &OwnedFd, name: &[u8]) -> std::io::Result<(StatKey, bool)> {
    let st = rustix::fs::statx(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW,
        StatxFlags::BASIC_STATS,
    )?;
    let ns = |t: &rustix::fs::StatxTimestamp| {
        t.tv_sec
            .saturating_mul(1_000_000_000)
            .saturating_add(i64::from(t.tv_nsec))
    };
    let key = StatKey {
        size: st.stx_size,
        mtime_ns: ns(&st.stx_mtime),
        ctime_ns: ns(&st.stx_ctime),
        ino: st.stx_ino,
        dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
    };
    Ok((key, st.stx_mode & 0o100 != 0))
}

pub(super) fn is_executable(md: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    md.permissions().mode() & 0o100 != 0
}

fn special_reason(ft: FileType) -> Option<SkipReason> {
    match ft {
        FileType::RegularFile => None,
        FileType::Symlink => Some(SkipReason::Symlink),
        FileType::Fifo => Some(SkipReason::Fifo),
        FileType::Socket => Some(SkipReason::Socket),
        _ => Some(SkipReason::Device),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk for a set that owes the nested repositories of its root lists exactly those the
    /// separate search finds ([`crate::dirwalk::repositories`]): the ones it enters, and those
    /// below directories only `exclude`, the store or a parent's rules leave out; not those in
    /// ignored directories, below `.git`, the top-level store or through a link.
    #[test]
    fn walk_lists_the_searched_repositories() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let root = base.join("w");
        let mk = |rel: &str| std::fs::create_dir_all(root.join(rel)).unwrap();
        for d in [
            "a/.git",
            "a/b/.git",
            "c/d/e/.git",
            "ign/r/.git",
            "exc/r/.git",
            "exc/x/y/.git",
            "st/r/.git",
            "pi/r/.git",
            "gi/r/.git",
            ".genesis/r/.git",
            "f/.git/r/.git",
            "k/keep/r/.git",
            "k/drop/r/.git",
        ] {
            mk(d);
        }
        mk("g");
        std::fs::write(root.join("g/.git"), b"gitdir: x\n").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        std::fs::write(root.join(".gitignore"), b"ign/\n/k/*\n!/k/keep/\n").unwrap();
        std::fs::write(root.join(".genesisignore"), b"gi/\n").unwrap();
        std::fs::write(base.join(".gitignore"), b"w/pi/\n").unwrap();
        let tracked = Arc::new(crate::tracked::TrackedFiles::discover_deferred(&root).unwrap());
        let opts = SnapshotOptions {
            exclude: vec!["exc".into()],
            store_dir: Some(root.join("st")),
            ignore_root: Some(base.clone()),
            tracked: tracked.clone(),
            ..SnapshotOptions::default()
        };
        let filters = Filters {
            overrides: super::super::walk::exclude_overrides(&root, &opts.exclude).unwrap(),
            parents: ParentRules::of(&base, &root).unwrap(),
            canonical_root: root.clone(),
            store_rel: Some(PathBuf::from("st")),
        };
        let mut found = Walker::new(&root, &opts, filters).run().nested.unwrap();
        found.sort();
        let expect = [
            "a", "a/b", "c/d/e", "exc/r", "exc/x/y", "f", "g", "k/keep/r", "pi/r", "st/r",
        ];
        assert_eq!(found, expect);
        assert_eq!(crate::dirwalk::repositories(&root, STORE_DIR_NAME), expect);
        // Not owed for another root: the walk of a copy lists nothing.
        let other = SnapshotOptions {
            tracked,
            ..SnapshotOptions::default()
        };
        let filters = Filters {
            overrides: None,
            parents: ParentRules::default(),
            canonical_root: root.join("a"),
            store_rel: None,
        };
        assert!(
            Walker::new(&root.join("a"), &other, filters)
                .run()
                .nested
                .is_none()
        );
    }

    /// The walk gives files in path-byte order with no sort of the whole list: names that
    /// sort differently as directories (`a/` after `a.b`, before `a0`) at every depth, and
    /// every pair of the names below as both file and directory.
    #[test]
    fn the_walk_gives_files_in_path_order() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("w");
        let names = [
            "a", "a.b", "a-b", "a0", "a b", "ab", "b", "\u{e9}", "A", "a~",
        ];
        let mut expect = Vec::new();
        // Each name as a directory holding each other name as a file, and as a file beside.
        for (i, d) in names.iter().enumerate() {
            for (j, f) in names.iter().enumerate() {
                if (i + j) % 3 == 0 {
                    let p = format!("{d}/{f}");
                    std::fs::create_dir_all(root.join(d)).unwrap();
                    std::fs::write(root.join(&p), b"x").unwrap();
                    expect.push(p);
                } else if (i + j) % 3 == 1 {
                    let p = format!("{d}/{f}/{d}");
                    std::fs::create_dir_all(root.join(format!("{d}/{f}"))).unwrap();
                    std::fs::write(root.join(&p), b"x").unwrap();
                    expect.push(p);
                }
            }
            let p = format!("{d}.f");
            std::fs::write(root.join(&p), b"x").unwrap();
            expect.push(p);
        }
        expect.sort();
        let opts = SnapshotOptions::default();
        let filters = Filters {
            overrides: None,
            parents: ParentRules::default(),
            canonical_root: root.clone(),
            store_rel: None,
        };
        let got: Vec<String> = Walker::new(&root, &opts, filters)
            .run()
            .files
            .into_iter()
            .map(|f| f.path.as_str().to_owned())
            .collect();
        assert_eq!(got, expect);
        for (a, b) in [("a", "a.b"), ("a", "a0"), ("a.b", "a-b"), ("ab", "a")] {
            let (x, y) = (a.as_bytes(), b.as_bytes());
            assert_eq!(
                dir_order(x, y),
                format!("{a}/").cmp(&format!("{b}/")),
                "{a} {b}"
            );
            assert_eq!(
                file_before_dir(x, y),
                a < format!("{b}/").as_str(),
                "{a} {b}"
            );
        }
    }

    /// The walk's `statx` gives the fields `std::fs::symlink_metadata` gives, so caches
    /// written by either agree.
    #[test]
    fn stat_at_matches_std() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"12345").unwrap();
        let fd = rustix::fs::open(
            dir.path(),
            OFlags::RDONLY | OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        let md = std::fs::symlink_metadata(dir.path().join("f")).unwrap();
        let (key, exec) = stat_at(&fd, b"f").unwrap();
        assert_eq!(key, StatKey::of(&md));
        assert_eq!(key.size, 5);
        assert_eq!(exec, is_executable(&md));
    }
}
