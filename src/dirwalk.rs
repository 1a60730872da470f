//! The pieces of a directory walk with the membership ignore rules (DESIGN section 2) that the
//! snapshot scan (`snapshot/collect.rs`) and the nested-repository search
//! ([`crate::tracked`]) share: listing a directory with `getdents64` into one buffer, the
//! `.gitignore` / `.genesisignore` rules of a directory and those above it, consulted per entry
//! without building a path per entry, and the search itself (the snapshot walk notes the
//! repositories it enters and runs the search below a directory only Genesis's own rules leave
//! out, so that its list is the search's: `tracked.rs`, "One walk"). The rules are the
//! `ignore` crate's gitignore matchers, combined as its walker combines them (`.gitignore` and
//! `.genesisignore` files inside the tree only, none above the root, no `.git/info/exclude`,
//! no global excludes, with or without a `.git`; the nearest `.genesisignore` rule that
//! matches decides, else the nearest `.gitignore` rule), so they mean what they meant with
//! that walker.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rayon::prelude::*;
use rustix::fs::{AtFlags, FileType, OFlags, RawDir};

/// Bytes of the `getdents64` buffer of one directory.
const DIRENT_BUFFER: usize = 32 * 1024;

/// A listed entry: its name's span in the directory's name buffer and its type.
pub(crate) type Entry = (usize, usize, FileType);

/// The `.genesisignore` and `.gitignore` matchers of one directory, and the nearest directory
/// above it that has any (directories without ignore files are not in the chain).
pub(crate) struct Level {
    up: Option<Arc<Level>>,
    /// Bytes of the directory's path relative to the root (0 for the root).
    rel_len: usize,
    custom: Gitignore,
    git: Gitignore,
}

impl Level {
    /// No rules: above the root.
    pub(crate) fn top() -> Arc<Level> {
        Arc::new(Level {
            up: None,
            rel_len: 0,
            custom: Gitignore::empty(),
            git: Gitignore::empty(),
        })
    }

    /// The rules in force inside the directory `rel` (relative to the root; `fs_path` on
    /// disk; `abs_root` the root made absolute; `names` and `entries` its listing): `up`'s,
    /// plus its own ignore files when it has any, read as the `ignore` crate reads them
    /// (through a link if the file is one and exists, a bad line passed over, a file that
    /// cannot be read ignored).
    pub(crate) fn of(
        abs_root: &Path,
        rel: &[u8],
        fs_path: &Path,
        names: &[u8],
        entries: &[Entry],
        up: &Arc<Level>,
    ) -> Arc<Level> {
        let has = |n: &str| entries.iter().any(|e| &names[e.0..e.1] == n.as_bytes());
        let (has_custom, has_git) = (has(".genesisignore"), has(".gitignore"));
        if !has_custom && !has_git {
            return up.clone();
        }
        // An absolute base: a candidate path relative to it is never taken for one below it.
        let base = abs_root.join(OsStr::from_bytes(rel));
        let matcher = |present: bool, name: &str| {
            let file = fs_path.join(name);
            if !present || !file.exists() {
                return Gitignore::empty();
            }
            let mut b = GitignoreBuilder::new(&base);
            let _ = b.add(&file);
            b.build().unwrap_or_else(|_| Gitignore::empty())
        };
        let custom = matcher(has_custom, ".genesisignore");
        let git = matcher(has_git, ".gitignore");
        if custom.is_empty() && git.is_empty() {
            return up.clone();
        }
        Arc::new(Level {
            up: Some(up.clone()),
            rel_len: rel.len(),
            custom,
            git,
        })
    }

    /// Whether the ignore files of this directory and those above it leave out `rel`
    /// (relative to the root, an entry of this directory or below it): the nearest
    /// `.genesisignore` rule that matches decides, else the nearest `.gitignore` rule.
    pub(crate) fn ignores(&self, rel: &[u8], is_dir: bool) -> bool {
        let (mut custom, mut git) = (Match::None, Match::None);
        let mut at = Some(self);
        while let Some(l) = at {
            // The candidate relative to the directory of the ignore file.
            let sub = if l.rel_len == 0 {
                rel
            } else {
                &rel[l.rel_len + 1..]
            };
            let sub = Path::new(OsStr::from_bytes(sub));
            if custom.is_none() {
                custom = l.custom.matched(sub, is_dir).map(|_| ());
            }
            if git.is_none() {
                git = l.git.matched(sub, is_dir).map(|_| ());
            }
            if !custom.is_none() {
                break;
            }
            at = l.up.as_deref();
        }
        if custom.is_none() {
            git.is_ignore()
        } else {
            custom.is_ignore()
        }
    }
}

/// The names of the directory open at `fd` (all in one buffer) and, per entry, its name's
/// span in it and its type (`lstat`ed when the file system does not say).
///
/// # Errors
/// Those of `getdents64` and `fstatat`.
pub(crate) fn list(fd: &OwnedFd) -> rustix::io::Result<(Vec<u8>, Vec<Entry>)> {
    let mut buf = Vec::with_capacity(DIRENT_BUFFER);
    let mut names = Vec::new();
    let mut entries = Vec::new();
    let mut dir = RawDir::new(fd, buf.spare_capacity_mut());
    while let Some(entry) = dir.next() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let mut ft = entry.file_type();
        if ft == FileType::Unknown {
            ft = FileType::from_raw_mode(
                rustix::fs::statat(fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)?.st_mode,
            );
        }
        let start = names.len();
        names.extend_from_slice(name);
        entries.push((start, names.len(), ft));
    }
    Ok((names, entries))
}

/// The directories below `root` (relative, `/`-separated, UTF-8, sorted) that hold a `.git`
/// entry and that the snapshot walk descends into: the ignore rules above, no symbolic links
/// followed, `.git` directories and the top-level `store_name` never entered. Unreadable
/// directories are passed over. One `open` and `getdents64` per directory walked, on rayon's
/// threads; no `stat`.
pub(crate) fn repositories(root: &Path, store_name: &str) -> Vec<String> {
    let abs_root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let found = Mutex::new(Vec::new());
    let search = Search {
        abs_root: &abs_root,
        store_name: store_name.as_bytes(),
        found: &found,
    };
    search.dir(Vec::new(), root.to_path_buf(), &Level::top());
    let mut out = found.into_inner().unwrap_or_else(|e| e.into_inner());
    out.sort();
    out
}

/// The directory `rel` (relative to the root, `names` and `entries` its listing) as a nested
/// repository of the search ([`repositories`]): a directory below the root, with a UTF-8
/// path, holding an entry named `.git` of any type.
pub(crate) fn repository_at(rel: &[u8], names: &[u8], entries: &[Entry]) -> Option<String> {
    if rel.is_empty() || !entries.iter().any(|e| &names[e.0..e.1] == b".git") {
        return None;
    }
    std::str::from_utf8(rel).ok().map(str::to_owned)
}

/// Whether the search ([`repositories`]) enters the directory `cand` (relative to the root;
/// `name` its last component) under the rules `level`: not `.git`, not the top-level
/// `store_name`, not left out by the ignore files.
pub(crate) fn search_enters(cand: &[u8], name: &[u8], store_name: &[u8], level: &Level) -> bool {
    name != b".git" && cand != store_name && !level.ignores(cand, true)
}

/// One search for nested repositories ([`repositories`]); the snapshot walk runs one below
/// each directory that only Genesis's own rules leave out.
pub(crate) struct Search<'a> {
    /// The root made absolute.
    pub(crate) abs_root: &'a Path,
    /// The top-level store directory's name.
    pub(crate) store_name: &'a [u8],
    /// The repositories found ([`repository_at`]), in no order.
    pub(crate) found: &'a Mutex<Vec<String>>,
}

impl Search<'_> {
    /// Searches the directory `rel` (relative to the root, `fs_path` on disk) whose parent's
    /// rules are `level`, and below it, on rayon's threads.
    pub(crate) fn dir(&self, rel: Vec<u8>, fs_path: PathBuf, level: &Arc<Level>) {
        let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if !rel.is_empty() {
            flags |= OFlags::NOFOLLOW;
        }
        let Ok(fd) = rustix::fs::open(&fs_path, flags, rustix::fs::Mode::empty()) else {
            return;
        };
        let Ok((names, entries)) = list(&fd) else {
            return;
        };
        drop(fd);
        let name_of = |e: &Entry| &names[e.0..e.1];
        if let Some(r) = repository_at(&rel, &names, &entries) {
            self.found.lock().unwrap_or_else(|e| e.into_inner()).push(r);
        }
        let level = Level::of(self.abs_root, &rel, &fs_path, &names, &entries, level);
        let mut subs = Vec::new();
        for e in entries.iter().filter(|e| e.2 == FileType::Directory) {
            let name = name_of(e);
            let mut cand = rel.clone();
            if !cand.is_empty() {
                cand.push(b'/');
            }
            cand.extend_from_slice(name);
            // No deeper than a member path may be (`crate::path::MAX_DEPTH`): each level is
            // one call deeper.
            let depth = cand.iter().filter(|b| **b == b'/').count() + 1;
            if depth >= crate::path::MAX_DEPTH
                || !search_enters(&cand, name, self.store_name, &level)
            {
                continue;
            }
            subs.push((cand, fs_path.join(OsStr::from_bytes(name))));
        }
        subs.into_par_iter()
            .for_each(|(r, p)| self.dir(r, p, &level));
    }
}
