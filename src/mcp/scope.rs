//! The one workspace a `genesis mcp` server serves, and the rule that keeps every path a tool
//! is given inside it.
//!
//! A path argument is taken relative to the workspace root (an absolute path must name a place
//! inside the root). It is refused — [`ScopeError`], reported as a tool error of kind
//! `bad-input`, exit code 2 — when it leaves the root lexically (`..` past the root, an
//! absolute path elsewhere), when it does not exist, or when, with every symbolic link
//! resolved, it lies outside the root (a link pointing out). The check is made on the
//! canonical path, and that canonical path is what the tool then uses. A directory argument
//! that is or lies inside the store or a `.git` directory is refused too
//! ([`ScopeError::Reserved`]): neither is a tree of the workspace (the snapshot walk never
//! enters them).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::workspace::Workspace;

/// Why a path argument was refused.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    /// The path leaves the workspace (`..` past the root, an absolute path elsewhere, or a
    /// symbolic link pointing out).
    #[error("{field} {given:?}: outside the workspace {root}; every path must lie inside it")]
    Outside {
        /// The argument's name.
        field: String,
        /// The path as given.
        given: String,
        /// The workspace root.
        root: PathBuf,
    },
    /// The path does not exist (or cannot be read).
    #[error("{field} {given:?}: {reason}")]
    Missing {
        /// The argument's name.
        field: String,
        /// The path as given.
        given: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The path is, or lies inside, the store or a version-control directory (`.git`): those
    /// are Genesis's and git's own records, never a tree to snapshot, diff, check or patch
    /// from.
    #[error("{field} {given:?}: inside {what}, which is no tree of the workspace")]
    Reserved {
        /// The argument's name.
        field: String,
        /// The path as given.
        given: String,
        /// `the store (PATH)` or `a .git directory`.
        what: String,
    },
    /// The path cannot name anything in the workspace (empty, a NUL, a pattern, a name a
    /// workspace path cannot have).
    #[error("{field} {given:?}: {reason}")]
    Invalid {
        /// The argument's name.
        field: String,
        /// The path as given.
        given: String,
        /// Why.
        reason: String,
    },
    /// The path names something other than a directory where one is needed.
    #[error("{field} {given:?}: not a directory")]
    NotADirectory {
        /// The argument's name.
        field: String,
        /// The path as given.
        given: String,
    },
}

/// The workspace of a server: its canonical root, its store (if not the default
/// `ROOT/.genesis`) and how long an operation waits for the store lock.
#[derive(Debug, Clone)]
pub struct Scope {
    root: PathBuf,
    store: Option<PathBuf>,
    wait: Duration,
    secrets: Vec<String>,
}

impl Scope {
    /// The scope of `root` (made canonical: symbolic links resolved), with `store` (`None`:
    /// `ROOT/.genesis`) and the store-lock `wait`; the secrets are the environment's.
    ///
    /// # Errors
    /// `root` does not exist or cannot be resolved (the operating system's error).
    pub fn new(root: &Path, store: Option<PathBuf>, wait: Duration) -> std::io::Result<Scope> {
        Ok(Scope {
            root: root.canonicalize()?,
            store,
            wait,
            secrets: crate::events::env_secrets(std::env::vars_os()),
        })
    }

    /// The secrets of the server's environment ([`crate::events::env_secrets`], read when the
    /// scope is made): the obligations inherit that environment, so these values are redacted
    /// from their output (notifications and stored logs) as the event streams redact theirs.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How long an operation waits for another process's store lock.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// The workspace (root and store).
    pub fn workspace(&self) -> Workspace {
        Workspace::new(self.root.clone(), self.store.clone())
    }

    /// The existing directory `given` names inside the workspace, canonical (see the module
    /// documentation for the rule); `field` names the argument in errors.
    ///
    /// # Errors
    /// [`ScopeError`]: outside the workspace, missing, or not a directory.
    pub fn dir(&self, field: &str, given: &str) -> Result<PathBuf, ScopeError> {
        let p = self.resolve(field, given)?;
        let reserved = |what: String| ScopeError::Reserved {
            field: field.into(),
            given: given.into(),
            what,
        };
        let store = self.workspace().store_dir().to_path_buf();
        let store = store.canonicalize().unwrap_or(store);
        if p.starts_with(&store) {
            return Err(reserved(format!("the store ({})", store.display())));
        }
        let rel = p.strip_prefix(&self.root).unwrap_or(&p);
        if rel.components().any(|c| c.as_os_str() == ".git") {
            return Err(reserved("a .git directory".into()));
        }
        if !p.is_dir() {
            return Err(ScopeError::NotADirectory {
                field: field.into(),
                given: given.into(),
            });
        }
        Ok(p)
    }

    /// The workspace-relative path `given` names, lexically (it need not exist: a `diff`
    /// filter may name a deleted file), normalised as a git pathspec is: `./src`, `src/` and
    /// `src` are `src`; `.` (or the root itself) is `""`, the whole workspace. Issue 13,
    /// review 2 C.
    ///
    /// # Errors
    /// [`ScopeError::Outside`] for a path leaving the root; [`ScopeError::Invalid`] for an
    /// empty path, a NUL, a wildcard (`*`, `?`, `[`: paths are literal) or a name a workspace
    /// path cannot have.
    pub fn relative(&self, field: &str, given: &str) -> Result<String, ScopeError> {
        let invalid = |reason: &str| ScopeError::Invalid {
            field: field.into(),
            given: given.into(),
            reason: reason.into(),
        };
        if given.is_empty() {
            return Err(invalid("an empty path; give `.` for the whole workspace"));
        }
        if given.contains('\0') {
            return Err(invalid("a path cannot hold a NUL character"));
        }
        if given.contains(['*', '?', '[']) {
            return Err(invalid(
                "a path is taken literally, not as a pattern (`*`, `?`, `[`)",
            ));
        }
        let p = Path::new(given);
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        let rest = if p.is_absolute() {
            p.strip_prefix(&self.root)
                .map_err(|_| ScopeError::Outside {
                    field: field.into(),
                    given: given.into(),
                    root: self.root.clone(),
                })?
        } else {
            p
        };
        for c in rest.components() {
            match c {
                Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(ScopeError::Outside {
                            field: field.into(),
                            given: given.into(),
                            root: self.root.clone(),
                        });
                    }
                }
                Component::Normal(n) => parts.push(n),
            }
        }
        let joined = parts
            .iter()
            .map(|s| s.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if joined.is_empty() {
            return Ok(joined);
        }
        crate::path::WorkspacePath::new(joined.as_str())
            .map(|w| w.as_str().to_owned())
            .map_err(|e| invalid(&e.to_string()))
    }

    /// The existing path `given` names inside the workspace, canonical.
    ///
    /// # Errors
    /// [`ScopeError::Outside`], [`ScopeError::Missing`].
    pub fn resolve(&self, field: &str, given: &str) -> Result<PathBuf, ScopeError> {
        let outside = || ScopeError::Outside {
            field: field.into(),
            given: given.into(),
            root: self.root.clone(),
        };
        if given.contains('\0') {
            return Err(ScopeError::Missing {
                field: field.into(),
                given: given.into(),
                reason: "a path cannot hold a NUL character".into(),
            });
        }
        let p = Path::new(given);
        // Lexically first: a path that names a place outside is refused as such, whether or
        // not that place exists.
        let mut lexical = if p.is_absolute() {
            PathBuf::from("/")
        } else {
            self.root.clone()
        };
        for c in p.components() {
            match c {
                Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
                Component::ParentDir => {
                    if !lexical.pop() {
                        return Err(outside());
                    }
                }
                Component::Normal(n) => lexical.push(n),
            }
        }
        if !lexical.starts_with(&self.root) {
            return Err(outside());
        }
        let real = lexical.canonicalize().map_err(|e| ScopeError::Missing {
            field: field.into(),
            given: given.into(),
            reason: e.to_string(),
        })?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(real)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(outer.path().join("other")).unwrap();
        std::os::unix::fs::symlink(outer.path().join("other"), root.join("out")).unwrap();
        let s = Scope::new(&root, None, Duration::from_secs(1)).unwrap();
        let real = root.canonicalize().unwrap();
        assert_eq!(s.dir("dir", "sub").unwrap(), real.join("sub"));
        assert_eq!(s.dir("dir", "./sub/../sub").unwrap(), real.join("sub"));
        assert_eq!(s.dir("dir", ".").unwrap(), real);
        for bad in ["..", "../other", "sub/../../other", "/etc", "out"] {
            assert!(
                matches!(s.dir("dir", bad), Err(ScopeError::Outside { .. })),
                "{bad}"
            );
        }
        let abs_inside = real.join("sub");
        assert!(s.dir("dir", abs_inside.to_str().unwrap()).is_ok());
        assert!(matches!(
            s.dir("dir", "missing"),
            Err(ScopeError::Missing { .. })
        ));
    }

    #[test]
    fn filter_paths_are_normalised_like_pathspecs() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let s = Scope::new(&root, None, Duration::from_secs(1)).unwrap();
        let abs = s.root().join("src/a.rs");
        for (given, want) in [
            ("./src", "src"),
            ("src/", "src"),
            ("src//lib.rs", "src/lib.rs"),
            (".", ""),
            ("./", ""),
            ("src/../docs", "docs"),
            ("gone.txt", "gone.txt"),
            (abs.to_str().unwrap(), "src/a.rs"),
            (s.root().to_str().unwrap(), ""),
        ] {
            assert_eq!(s.relative("paths", given).unwrap(), want, "{given}");
        }
        for bad in ["../x", "/etc/passwd", "src/../../x"] {
            assert!(
                matches!(s.relative("paths", bad), Err(ScopeError::Outside { .. })),
                "{bad}"
            );
        }
        for bad in ["", "a\0b", "*", "src/*.rs", "a?", "[ab]"] {
            assert!(
                matches!(s.relative("paths", bad), Err(ScopeError::Invalid { .. })),
                "{bad:?}"
            );
        }
    }
}
