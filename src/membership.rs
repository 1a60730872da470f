//! Membership rules applied to a snapshot in the store (no directory on disk): which of its
//! files would a fresh snapshot of the same tree leave out?
//!
//! A patch applied in the store can add a path that `.gitignore`, `.genesisignore` or the
//! manifest's `exclude` leaves out, or add an ignore file that leaves out a path already
//! there. Such a snapshot could never be reproduced from disk (after `apply`, the workspace
//! would not hash to it), so `patch` refuses it. The rules are those of [`crate::snapshot`]'s
//! walk, in the same precedence: manifest excludes first; then `.genesisignore` files, deepest
//! first; then `.gitignore` files, deepest first; a directory that is left out takes everything
//! below it along, whatever the ignore files inside it say.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::snapshot::{Snapshot, SnapshotFile};

const VIRTUAL_ROOT: &str = "/genesis-virtual-root";

/// A path a fresh snapshot would leave out, and the rule that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The path in the snapshot.
    pub path: String,
    /// The rule, for example `ignored by sub/.gitignore` or `excluded by the manifest`.
    pub reason: String,
}

struct Matchers {
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

/// Which files of `snapshot` the snapshot rules would leave out. `read` gives the bytes of an
/// ignore file in the snapshot; `exclude` holds the manifest's globs.
///
/// # Errors
/// Whatever `read` returns for an ignore file.
pub fn left_out<E>(
    snapshot: &Snapshot,
    exclude: &[String],
    read: impl Fn(&SnapshotFile) -> Result<Vec<u8>, E>,
) -> Result<Vec<LeftOut>, E> {
    left_out_files(snapshot.files(), exclude, read)
}

/// [`left_out`] of a list of files (sorted by path, no path twice) that need not fit in a
/// v0.1 snapshot document: for example a base snapshot together with the files an agent
/// added, to ask which of them the base's rules leave out.
///
/// # Errors
/// Whatever `read` returns for an ignore file.
pub fn left_out_files<E>(
    files: &[SnapshotFile],
    exclude: &[String],
    read: impl Fn(&SnapshotFile) -> Result<Vec<u8>, E>,
) -> Result<Vec<LeftOut>, E> {
    let mut m = Matchers {
        by_dir: BTreeMap::new(),
        exclude: None,
    };
    for f in files {
        let name = f.path.file_name();
        if name != ".gitignore" && name != ".genesisignore" {
            continue;
        }
        let dir = f.path.parent().map(|p| p.to_string()).unwrap_or_default();
        let gi = build(&dir, &read(f)?);
        let entry = m.by_dir.entry(dir).or_default();
        if name == ".genesisignore" {
            entry.0 = gi;
        } else {
            entry.1 = gi;
        }
    }
    if !exclude.is_empty() {
        let mut ob = ignore::overrides::OverrideBuilder::new(VIRTUAL_ROOT);
        for g in exclude {
            let _ = ob.add(&format!("!{g}"));
        }
        m.exclude = ob.build().ok();
    }
    let mut out = Vec::new();
    for f in files {
        let comps: Vec<&str> = f.path.components().collect();
        for k in 1..=comps.len() {
            let rel = comps[..k].join("/");
            let is_dir = k < comps.len();
            if let Some(reason) = decide(&m, &comps[..k - 1], &rel, is_dir) {
                out.push(LeftOut {
                    path: f.path.to_string(),
                    reason: if is_dir {
                        format!("its directory {rel}/ is {reason}")
                    } else {
                        reason
                    },
                });
                break;
            }
        }
    }
    Ok(out)
}

/// Whether `rel` (a file, or a directory when `is_dir`) is left out by the rules of its
/// ancestor directories `ancestors` (and the manifest).
fn decide(m: &Matchers, ancestors: &[&str], rel: &str, is_dir: bool) -> Option<String> {
    let full = Path::new(VIRTUAL_ROOT).join(rel);
    if let Some(ov) = &m.exclude
        && ov.matched(&full, is_dir).is_ignore()
    {
        return Some("excluded by the manifest".into());
    }
    // Ancestor directories, deepest first.
    let dirs: Vec<String> = (0..=ancestors.len())
        .rev()
        .map(|k| ancestors[..k].join("/"))
        .collect();
    for custom in [true, false] {
        for d in &dirs {
            let Some((genesis, git)) = m.by_dir.get(d) else {
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
