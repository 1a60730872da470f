//! The ignore rules a tree inherits from the directories above it: when the tree is a
//! directory below the workspace root ([`SnapshotOptions::ignore_root`]), the `.gitignore` and
//! `.genesisignore` files of the root and of every directory between it and the tree's parent
//! apply to the tree as git applies them to a subdirectory, so that `snapshot sub/` leaves out
//! what the workspace's snapshot leaves out under `sub/` (a tracked file still counts, as
//! always).
//!
//! Precedence: the deeper file wins over the shallower, `.genesisignore` over `.gitignore` of
//! the same directory; a path the tree's own files leave out stays out. (One difference with
//! git: a `!pattern` in the tree's own files cannot bring back a path a parent's rule leaves
//! out.) If the tree itself is ignored by a parent's rule, every file in it is.

use std::path::Path;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::SnapshotError;

/// The rules of the directories above a tree, deepest first.
#[derive(Debug, Default)]
pub(super) struct ParentRules {
    matchers: Vec<Gitignore>,
    /// The tree's own directory is left out by a parent's rule.
    tree_ignored: bool,
}

impl ParentRules {
    /// The rules of the directories from `top` down to `tree`'s parent; none when `tree` is
    /// not strictly below `top` (both resolved).
    ///
    /// # Errors
    /// An ignore file that is a symbolic link ([`SnapshotError::IgnoreFileIsLink`]) or that
    /// cannot be read.
    pub(super) fn of(top: &Path, tree: &Path) -> Result<ParentRules, SnapshotError> {
        let (Ok(top), Ok(tree)) = (top.canonicalize(), tree.canonicalize()) else {
            return Ok(ParentRules::default());
        };
        let Ok(rel) = tree.strip_prefix(&top) else {
            return Ok(ParentRules::default());
        };
        if rel.as_os_str().is_empty() {
            return Ok(ParentRules::default());
        }
        let mut dirs = vec![top.clone()];
        let mut at = top.clone();
        let parts: Vec<_> = rel.components().collect();
        for c in &parts[..parts.len() - 1] {
            at.push(c);
            dirs.push(at.clone());
        }
        let mut matchers = Vec::new();
        for dir in &dirs {
            for name in [".gitignore", ".genesisignore"] {
                let file = dir.join(name);
                match std::fs::symlink_metadata(&file) {
                    Ok(m) if m.file_type().is_symlink() => {
                        return Err(SnapshotError::IgnoreFileIsLink(file));
                    }
                    Ok(m) if m.is_file() => {
                        // As the walk does, a line that is no valid glob is passed over.
                        let mut b = GitignoreBuilder::new(dir);
                        let _ = b.add(&file);
                        let g = b.build().map_err(|e| SnapshotError::BadExclude {
                            glob: file.display().to_string(),
                            message: e.to_string(),
                        })?;
                        matchers.push(g);
                    }
                    _ => {}
                }
            }
        }
        matchers.reverse();
        let mut rules = ParentRules {
            matchers,
            tree_ignored: false,
        };
        // The tree, or a directory between the root and it, left out by a rule above it.
        let mut at = top;
        for c in &parts {
            at.push(c);
            if rules.ignores(&at, true) {
                rules.tree_ignored = true;
                break;
            }
        }
        Ok(rules)
    }

    /// Whether nothing applies.
    pub(super) fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }

    /// Whether the rules leave out `path` (absolute, inside the tree; `is_dir` for a
    /// directory).
    pub(super) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        if self.tree_ignored {
            return true;
        }
        for m in &self.matchers {
            match m.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}
