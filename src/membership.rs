//! Membership rules applied to a snapshot in the store (no directory on disk): which of its
//! files would a fresh snapshot of the same tree leave out?
//!
//! A patch applied in the store can add a path that `.gitignore`, `.genesisignore` or the
//! manifest's `exclude` leaves out, or add an ignore file that leaves out a path already
//! there. Such a snapshot could never be reproduced from disk (after `apply`, the workspace
//! would not hash to it), so `patch` refuses it. The rules are those of [`crate::snapshot`]'s
//! walk, in the same precedence: manifest excludes first; then `.genesisignore` files, deepest
//! first; then `.gitignore` files, deepest first; a directory that is left out takes everything
//! below it along, whatever the ignore files inside it say. Files git tracks
//! ([`crate::tracked`]) are exempt from `.gitignore` (not from `.genesisignore` or `exclude`),
//! also when a directory above them is ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::path::WorkspacePath;
use crate::tracked::TrackedFiles;

const VIRTUAL_ROOT: &str = "/genesis-virtual-root";

/// A path a fresh snapshot would leave out, and the rule that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The path in the snapshot.
    pub path: String,
    /// The rule, for example `ignored by sub/.gitignore` or `excluded by the manifest`.
    pub reason: String,
}

/// The ignore rules of a tree: the manifest's `exclude` globs and the `.genesisignore` and
/// `.gitignore` files added with [`Rules::add_ignore_file`], evaluated as the snapshot walk
/// does (see the module docs). Used for stored snapshots here and, by
/// [`crate::snapshot::scan`], for tracked files the walk did not enter.
pub(crate) struct Rules {
    /// Directory (relative, "" for the root) → (.genesisignore, .gitignore) matchers.
    by_dir: BTreeMap<String, (Option<Gitignore>, Option<Gitignore>)>,
    exclude: Option<ignore::overrides::Override>,
}

fn build(dir: &str, content: &[u8]) -> Option<Gitignore> {
    let root = if dir.is_empty() {
        PathBuf::from(VIRTUAL_ROOT)
    } else {
        Path::new(VIRTUAL_ROOT).join(dir)
    };
    let mut b = GitignoreBuilder::new(root);
    for line in String::from_utf8_lossy(content).lines() {
        let _ = b.add_line(None, line);
    }
    b.build().ok()
}

impl Rules {
    /// Rules with the manifest's `exclude` globs and no ignore files yet.
    pub(crate) fn new(exclude: &[String]) -> Rules {
        let mut m = Rules {
            by_dir: BTreeMap::new(),
            exclude: None,
        };
        if !exclude.is_empty() {
            let mut ob = ignore::overrides::OverrideBuilder::new(VIRTUAL_ROOT);
            for g in exclude {
                let _ = ob.add(&format!("!{g}"));
            }
            m.exclude = ob.build().ok();
        }
        m
    }

    /// Adds the ignore file `name` (`.genesisignore` or `.gitignore`) of directory `dir`
    /// (relative, "" for the root) with its bytes.
    pub(crate) fn add_ignore_file(&mut self, dir: &str, name: &str, content: &[u8]) {
        let gi = build(dir, content);
        let entry = self.by_dir.entry(dir.to_owned()).or_default();
        if name == ".genesisignore" {
            entry.0 = gi;
        } else {
            entry.1 = gi;
        }
    }

    /// Why the file `path` is left out, or `None` if it is a member. With `tracked` (git
    /// tracks it), `.gitignore` files do not apply, neither to it nor to its directories.
    pub(crate) fn left_out(&self, path: &str, tracked: bool) -> Option<String> {
        let comps: Vec<&str> = path.split('/').collect();
        for k in 1..=comps.len() {
            let rel = comps[..k].join("/");
            let is_dir = k < comps.len();
            if let Some(reason) = self.decide(&comps[..k - 1], &rel, is_dir, tracked) {
                return Some(if is_dir {
                    format!("its directory {rel}/ is {reason}")
                } else {
                    reason
                });
            }
        }
        None
    }

    /// Whether `rel` (a file, or a directory when `is_dir`) is left out by the rules of its
    /// ancestor directories `ancestors` (and the manifest); `.gitignore` is skipped when
    /// `tracked`.
    pub(crate) fn decide(
        &self,
        ancestors: &[&str],
        rel: &str,
        is_dir: bool,
        tracked: bool,
    ) -> Option<String> {
        let full = Path::new(VIRTUAL_ROOT).join(rel);
        if let Some(ov) = &self.exclude
            && ov.matched(&full, is_dir).is_ignore()
        {
            return Some("excluded by the manifest".into());
        }
        // Ancestor directories, deepest first.
        let dirs: Vec<String> = (0..=ancestors.len())
            .rev()
            .map(|k| ancestors[..k].join("/"))
            .collect();
        let layers: &[bool] = if tracked { &[true] } else { &[true, false] };
        for &custom in layers {
            for d in &dirs {
                let Some((genesis, git)) = self.by_dir.get(d) else {
                    continue;
                };
                let gi = if custom { genesis } else { git };
                let Some(gi) = gi else { continue };
                match gi.matched(&full, is_dir) {
                    Match::Ignore(_) => {
                        let file = if custom {
                            ".genesisignore"
                        } else {
                            ".gitignore"
                        };
                        let at = if d.is_empty() {
                            file.to_owned()
                        } else {
                            format!("{d}/{file}")
                        };
                        return Some(format!("ignored by {at}"));
                    }
                    Match::Whitelist(_) => return None,
                    Match::None => {}
                }
            }
        }
        None
    }
}

/// A file of a tree as the membership rules see it: its workspace path. Implemented by
/// [`crate::snapshot::SnapshotFile`] (this module reads no snapshot type, so the snapshot walk
/// can use the ignore rules here without an import circle).
pub trait MemberFile {
    /// The file's path, relative to the tree's root.
    fn member_path(&self) -> &WorkspacePath;
}

/// Which files of `snapshot` (a [`crate::snapshot::Snapshot`], or any sorted list of files)
/// the snapshot rules would leave out. `read` gives the bytes of an
/// ignore file in the snapshot; `exclude` holds the manifest's globs; `tracked` the files git
/// tracks in the workspace (exempt from `.gitignore`, as in [`crate::snapshot::scan`] with
/// the same set; [`TrackedFiles::none`] outside git).
///
/// # Errors
/// Whatever `read` returns for an ignore file.
pub fn left_out<E, F: MemberFile>(
    snapshot: &impl AsRef<[F]>,
    exclude: &[String],
    tracked: &TrackedFiles,
    read: impl Fn(&F) -> Result<Vec<u8>, E>,
) -> Result<Vec<LeftOut>, E> {
    left_out_files(snapshot.as_ref(), exclude, tracked, read)
}

/// [`left_out`] of a list of files (sorted by path, no path twice) that need not fit in a
/// v0.1 snapshot document: for example a base snapshot together with the files an agent
/// added, to ask which of them the base's rules leave out.
///
/// # Errors
/// Whatever `read` returns for an ignore file.
pub fn left_out_files<E, F: MemberFile>(
    files: &[F],
    exclude: &[String],
    tracked: &TrackedFiles,
    read: impl Fn(&F) -> Result<Vec<u8>, E>,
) -> Result<Vec<LeftOut>, E> {
    let mut rules = Rules::new(exclude);
    for f in files {
        let name = f.member_path().file_name();
        if name != ".gitignore" && name != ".genesisignore" {
            continue;
        }
        let dir = f
            .member_path()
            .parent()
            .map(|p| p.to_string())
            .unwrap_or_default();
        rules.add_ignore_file(&dir, name, &read(f)?);
    }
    let mut out = Vec::new();
    for f in files {
        let path = f.member_path().as_str();
        if let Some(reason) = rules.left_out(path, tracked.contains(path)) {
            out.push(LeftOut {
                path: path.to_owned(),
                reason,
            });
        }
    }
    Ok(out)
}
