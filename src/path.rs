//! Validated workspace-relative paths.
//!
//! A [`WorkspacePath`] is the only way a path enters a snapshot, a patch or an apply. The rules
//! are those of the 004 schema's `relativePath` (`schemas/agent-transaction-v0.1.json`,
//! `#/$defs/relativePath`), checked here component by component in code, because the schema's
//! regex alone is not enough: under ECMA-262 regex rules a path holding U+2028 or U+2029 slips past
//! its `..`, `//` and backslash look-aheads (see `shared/seeds/README.md`).
//!
//! Rules (each violation is a distinct [`PathError`]):
//! - not empty, relative (no leading `/`), components separated by `/`;
//! - no empty component (`a//b`, trailing `/`), no `.` or `..` component;
//! - no backslash and no control character (U+0000–U+001F, U+007F) anywhere;
//! - valid UTF-8 (guaranteed by `&str`; non-UTF-8 file names are rejected earlier, by name).
//!
//! Ordering: [`WorkspacePath`] orders by the UTF-8 bytes of the path, the order of `files` in a
//! snapshot document (DESIGN section 2).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The name of the store directory at the top of a workspace. Never a snapshot member, never
/// written by a session (DESIGN section 2).
pub const STORE_DIR_NAME: &str = ".genesis";

/// Why a session must never write `path`, or `None` when it may: a `.git` component in any
/// case spelling, the top-level store directory [`STORE_DIR_NAME`] in any case spelling, or a
/// first component that is a drive letter (`C:`, another volume on Windows). Pure: reads
/// nothing. Such paths are never snapshot members (DESIGN section 2), so no session may write
/// them either; used by patch, apply, abort and the journal's recovery check.
pub fn forbidden_path(path: &WorkspacePath) -> Option<&'static str> {
    if path.components().any(|c| c.eq_ignore_ascii_case(".git")) {
        return Some("paths inside .git are never written");
    }
    let first = path.components().next().unwrap_or("");
    if first.eq_ignore_ascii_case(STORE_DIR_NAME) {
        return Some("paths inside the store (.genesis) are never written");
    }
    let b = first.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("a drive-letter path (another volume on Windows) is never written");
    }
    None
}

/// `p` joined to the current directory when relative; nothing is resolved (no `..`, no links)
/// and nothing is read. For paths that are only recorded or shown (a BPT `--work-root`). An
/// unreadable current directory counts as empty.
pub fn absolute_lexical(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

/// `p` made absolute ([`absolute_lexical`]), with its deepest existing ancestor canonicalised
/// (links and `..` resolved) and the missing rest appended as given. For comparing where
/// directories really are ([`lies_apart`]) and measuring path lengths
/// ([`check_fs_limits`]). Reads the file system (`lstat` up the path, then `realpath`).
pub fn absolute_resolved(p: &Path) -> PathBuf {
    let p = absolute_lexical(p);
    let mut existing = p.clone();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name(), existing.parent()) {
            (Some(n), Some(parent)) => {
                rest.push(n.to_owned());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut c = std::fs::canonicalize(&existing).unwrap_or(existing);
    for n in rest.iter().rev() {
        c.push(n);
    }
    c
}

/// Whether the directory `dir` lies apart from every one of `others`: not equal to, inside or
/// above any, and not the file-system root. All are compared as [`absolute_resolved`] paths,
/// so a link or `..` cannot hide an overlap. The rule for a `--checkout` or `--workdir`
/// directory against the workspace and the store (DESIGN section 4).
pub fn lies_apart(dir: &Path, others: &[&Path]) -> bool {
    let d = absolute_resolved(dir);
    d.parent().is_some()
        && others.iter().all(|o| {
            let o = absolute_resolved(o);
            !(d.starts_with(&o) || o.starts_with(&d))
        })
}

/// What stops a write at a workspace path: a directory on the way to it that is not a real
/// directory. From [`blocked_parent`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockedParent {
    /// This parent (workspace-relative, `/`-separated) is a symbolic link.
    Link(String),
    /// This parent is a file (or another non-directory) where a directory is needed.
    File(String),
}

/// The one safe walk over the parents of `path` under `root`: each existing directory on the
/// way is opened relative to the one above it without following a link
/// ([`crate::beneath::open_child_dir`]), top down, so the walk sees one consistent chain of
/// real directories even while another process renames. Stops with `None` at the first
/// parent that does not exist or cannot be opened (nothing below it can block) or at a file
/// for which `deletable` holds (a file the change deletes may stand where a directory will
/// be); returns the first link or other file. Used by apply's preconditions and abort's
/// checks; the writes after it are themselves made beneath the root (DESIGN section 6).
pub fn blocked_parent(
    root: &Path,
    path: &WorkspacePath,
    deletable: impl Fn(&str) -> bool,
) -> Option<BlockedParent> {
    let comps: Vec<&str> = path.components().collect();
    let mut fd = crate::beneath::open_root(root).ok()?;
    let mut prefix = String::new();
    for comp in &comps[..comps.len() - 1] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(comp);
        match crate::beneath::open_child_dir(&fd, comp) {
            Ok(child) => fd = child,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Some(BlockedParent::Link(prefix));
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) && deletable(&prefix) => {
                return None;
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
                return Some(BlockedParent::File(prefix));
            }
            Err(_) => return None,
        }
    }
    None
}

/// Why a string is not a valid workspace path. Every variant carries the offending path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is the empty string.
    #[error("invalid path: the path is empty")]
    Empty,
    /// The path starts with `/`.
    #[error("invalid path {0:?}: absolute paths are not allowed")]
    Absolute(String),
    /// The path holds an empty component (`a//b` or a trailing `/`).
    #[error("invalid path {0:?}: empty path component")]
    EmptyComponent(String),
    /// The path holds a `.` or `..` component.
    #[error("invalid path {0:?}: '.' and '..' components are not allowed")]
    DotComponent(String),
    /// The path holds a backslash.
    #[error("invalid path {0:?}: backslash is not allowed")]
    Backslash(String),
    /// The path holds a control character (U+0000–U+001F or U+007F).
    #[error("invalid path {0:?}: control character U+{1:04X} is not allowed")]
    ControlCharacter(String, u32),
    /// The path has more than [`MAX_DEPTH`] components.
    #[error("invalid path {0:?}: more than {MAX_DEPTH} components (directories nested too deep)")]
    TooDeep(String),
}

/// The most components a workspace path may have (`a/b/c` has 3). A deeper path is refused
/// ([`PathError::TooDeep`]) wherever one is made: in a document, a patch, or a walk of a tree,
/// which does not enter a directory at this depth. Walking, building and reading a tree go one
/// call deeper per directory level, and a tree 1,000 levels deep overflowed a 2 MiB thread
/// stack (a fresh reviewer, session 11). Genesis's own limit, not a rule of the 004 schema; far
/// past real trees (git bounds the same recursion with `core.maxTreeDepth`).
pub const MAX_DEPTH: usize = 256;

/// A relative, `/`-separated path inside a workspace, valid under the 004 `relativePath` rule
/// and with at most [`MAX_DEPTH`] components.
///
/// The field is private: the only constructors are [`WorkspacePath::new`] and [`FromStr`], which
/// validate. Displays as the path itself. Held as a boxed `str` (16 bytes and the path, no
/// spare capacity): a snapshot holds one per member file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkspacePath(Box<str>);

impl WorkspacePath {
    /// Validates `path` and wraps it.
    ///
    /// # Errors
    /// A [`PathError`] naming the path and the rule it breaks (see the module docs).
    pub fn new(path: impl Into<String>) -> Result<Self, PathError> {
        let path = path.into();
        validate(&path)?;
        Ok(WorkspacePath(path.into_boxed_str()))
    }

    /// The path as a string slice, for example `src/main.rs`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's components, split at `/`.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// The parent directory path, or `None` for a top-level entry.
    pub fn parent(&self) -> Option<WorkspacePath> {
        self.0
            .rsplit_once('/')
            .map(|(parent, _)| WorkspacePath(parent.into()))
    }

    /// The last component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// Joins a validated path onto `root` with the platform's separator.
    pub fn to_fs_path(&self, root: &std::path::Path) -> std::path::PathBuf {
        let mut out = root.to_path_buf();
        for component in self.components() {
            out.push(component);
        }
        out
    }
}

/// Checks `path` against the `relativePath` rules without allocating.
///
/// # Errors
/// The first rule `path` breaks, as a [`PathError`].
pub fn validate(path: &str) -> Result<(), PathError> {
    if is_valid_fast(path.as_bytes()) {
        return Ok(());
    }
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if let Some(c) = path.chars().find(|c| (*c as u32) < 0x20 || *c == '\u{7f}') {
        return Err(PathError::ControlCharacter(path.to_owned(), c as u32));
    }
    if path.starts_with('/') {
        return Err(PathError::Absolute(path.to_owned()));
    }
    if path.contains('\\') {
        return Err(PathError::Backslash(path.to_owned()));
    }
    for component in path.split('/') {
        match component {
            "" => return Err(PathError::EmptyComponent(path.to_owned())),
            "." | ".." => return Err(PathError::DotComponent(path.to_owned())),
            _ => {}
        }
    }
    if path.bytes().filter(|b| *b == b'/').count() >= MAX_DEPTH {
        return Err(PathError::TooDeep(path.to_owned()));
    }
    Ok(())
}

/// Whether `path` keeps every rule of [`validate`], in one pass over its bytes (a control
/// character, U+0000–U+001F or U+007F, is one byte below 0x80 in UTF-8, as are `/`, `.` and
/// `\\`). `false` sends the path through the rules one by one, which name the first one broken.
fn is_valid_fast(path: &[u8]) -> bool {
    if path.first().is_none_or(|b| *b == b'/') {
        return false;
    }
    let mut start = 0;
    let mut slashes = 0;
    for (i, &b) in path.iter().enumerate() {
        if b < 0x20 || b == 0x7f || b == b'\\' {
            return false;
        }
        if b == b'/' {
            if !plain_component(&path[start..i]) {
                return false;
            }
            start = i + 1;
            slashes += 1;
        }
    }
    slashes < MAX_DEPTH && plain_component(&path[start..])
}

/// A component that is neither empty, `.` nor `..`.
fn plain_component(c: &[u8]) -> bool {
    !matches!(c, b"" | b"." | b"..")
}

/// `PATH_MAX` of Linux: the longest path a system call accepts, counting its terminating NUL
/// (`<linux/limits.h>`); a longer one fails with `ENAMETOOLONG` ("File name too long").
pub const PATH_MAX: usize = 4096;

/// `NAME_MAX` of Linux file systems (ext4, xfs, btrfs, tmpfs): the longest name of one
/// directory entry, in bytes (`<linux/limits.h>`).
pub const NAME_MAX: usize = 255;

/// One directory a workspace path will be written under, for [`check_fs_limits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsPlace {
    /// What the directory is, for messages (for example `the workspace /home/me/ws`).
    pub what: String,
    /// Length in bytes of the directory's absolute path, without a trailing `/`.
    pub dir_len: usize,
    /// Length in bytes of the longest temporary name written beside the file in its directory
    /// before being renamed to it (0 when none is).
    pub temp_name_len: usize,
}

/// A workspace path that could not be written under some directory on this system.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsLimitError {
    /// A component is longer than [`NAME_MAX`].
    #[error(
        "path {path} ({len} bytes) cannot be written: its component {component} is {component_len} bytes, over NAME_MAX, the limit of {limit} bytes for one file or directory name"
    )]
    NameTooLong {
        /// The path, shortened for display when long (first and last 40 characters).
        path: String,
        /// Length of the whole path in bytes.
        len: usize,
        /// The component, shortened like the path.
        component: String,
        /// Its length in bytes.
        component_len: usize,
        /// [`NAME_MAX`].
        limit: usize,
    },
    /// Joined to a directory (or with a temporary name in place of its file name) the path is
    /// longer than [`PATH_MAX`].
    #[error(
        "path {path} ({len} bytes) cannot be written under {place}: that takes {total} bytes with the terminating NUL, over PATH_MAX, the system limit of {limit} bytes (the longest path this place allows is {max} bytes)"
    )]
    PathTooLong {
        /// The path, shortened for display when long (first and last 40 characters).
        path: String,
        /// Length of the path in bytes.
        len: usize,
        /// The directory (see [`FsPlace::what`]), and the temporary name when that is longer.
        place: String,
        /// Bytes the longest system-call argument would need, NUL included.
        total: usize,
        /// [`PATH_MAX`].
        limit: usize,
        /// The longest workspace path (same directories and file name length) that fits.
        max: usize,
    },
}

/// `s` cut to its first and last 40 characters around `…` when longer than 100 characters.
fn shorten(s: &str) -> String {
    let n = s.chars().count();
    if n <= 100 {
        return s.to_owned();
    }
    let head: String = s.chars().take(40).collect();
    let tail: String = s.chars().skip(n - 40).collect();
    format!("{head}…{tail}")
}

/// Checks that `path` can be created, staged and renamed under each of `places` without any
/// system-call argument exceeding [`PATH_MAX`] and without any name exceeding [`NAME_MAX`]:
/// each component is at most `NAME_MAX` bytes, and `dir_len + 1 + len(path) + 1` (the file) and
/// `dir_len + 1 + len(parent) + 1 + temp_name_len + 1` (its temporary name) are at most
/// `PATH_MAX`.
///
/// # Errors
/// The first limit broken, as an [`FsLimitError`] naming the path, the place and the limit.
pub fn check_fs_limits(path: &WorkspacePath, places: &[FsPlace]) -> Result<(), FsLimitError> {
    let p = path.as_str();
    // Fast path, so a whole 4096-file tree costs one length comparison a file: a path no longer
    // than NAME_MAX has no component over it, and one that fits every place with the longest
    // temporary name in place of nothing (parent ≤ path) breaks no PATH_MAX rule either.
    if p.len() <= NAME_MAX
        && places
            .iter()
            .all(|pl| pl.dir_len + p.len() + pl.temp_name_len + 2 <= PATH_MAX)
    {
        return Ok(());
    }
    if let Some(c) = path.components().find(|c| c.len() > NAME_MAX) {
        return Err(FsLimitError::NameTooLong {
            path: shorten(p),
            len: p.len(),
            component: shorten(c),
            component_len: c.len(),
            limit: NAME_MAX,
        });
    }
    let parent_len = p.len() - path.file_name().len();
    for place in places {
        let file = place.dir_len + 1 + p.len() + 1;
        let temp = place.dir_len + 1 + parent_len + place.temp_name_len + 1;
        let total = file.max(temp);
        if total > PATH_MAX {
            let place_text = if temp > file {
                format!(
                    "{} (as its {}-byte temporary name)",
                    place.what, place.temp_name_len
                )
            } else {
                place.what.clone()
            };
            let over = total - PATH_MAX;
            return Err(FsLimitError::PathTooLong {
                path: shorten(p),
                len: p.len(),
                place: place_text,
                total,
                limit: PATH_MAX,
                max: p.len().saturating_sub(over),
            });
        }
    }
    Ok(())
}

/// The key under which two names collide on a case-insensitive, normalising file system
/// (macOS APFS/HFS+, Windows NTFS): Unicode *canonical caseless matching* (Unicode 16, section
/// 3.13, D145: `NFD(toCasefold(NFD(name)))`), composed again (NFC) for a readable key. Case
/// folding is Unicode's **full** folding (`CaseFolding.txt` statuses C and F, from the
/// `caseless` crate), so `README.md` and `readme.md` have one key, and so have `ΟΔΟΣ.txt`,
/// `οδος.txt` and `οδοσ.txt` (final sigma `ς`, `σ` and `Σ` all fold to `σ`), `straße` and
/// `STRASSE` (`ß` folds to `ss`), and `caf\u{e9}.txt` (composed) and `cafe\u{301}.txt`
/// (decomposed). Names that differ otherwise keep distinct keys. Full folding may flag a pair
/// that one file system keeps apart (NTFS folds one code point at a time): a warning or a
/// refused new name there is the safe side.
///
/// An ASCII name takes a fast path with the same result: NFD and NFC leave ASCII unchanged and
/// the only ASCII entries of `CaseFolding.txt` are `A`–`Z` to `a`–`z`, so its key is
/// [`str::to_ascii_lowercase`].
pub fn fold_key(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    fold_key_full(name)
}

/// [`fold_key`] without the ASCII fast path: `NFC(NFD(toCasefold(NFD(name))))`.
fn fold_key_full(name: &str) -> String {
    use caseless::Caseless;
    use unicode_normalization::UnicodeNormalization;
    name.nfd().default_case_fold().nfd().nfc().collect()
}

/// A 64-bit hash of [`fold_key`]`(name)` under `state`, computed for an ASCII name without
/// allocating (its lower-case bytes go through `buf`, reused across calls). Equal keys give
/// equal hashes; equal hashes are only candidates (compare the keys).
pub fn fold_key_hash(name: &str, buf: &mut Vec<u8>, state: &impl std::hash::BuildHasher) -> u64 {
    if name.is_ascii() {
        buf.clear();
        buf.extend(name.bytes().map(|b| b.to_ascii_lowercase()));
        state.hash_one(buf.as_slice())
    } else {
        state.hash_one(fold_key_full(name).as_bytes())
    }
}

impl fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for WorkspacePath {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WorkspacePath::new(s)
    }
}

impl AsRef<str> for WorkspacePath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl serde::Serialize for WorkspacePath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for WorkspacePath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        WorkspacePath::new(s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_ordinary_paths() {
        for p in [
            "a",
            "src/main.rs",
            ".gitignore",
            "dir with space/ü.txt",
            "a..b",
            "...",
            "x/.y",
        ] {
            assert_eq!(WorkspacePath::new(p).unwrap().as_str(), p);
        }
    }

    #[test]
    fn rejects_each_rule() {
        assert_eq!(validate(""), Err(PathError::Empty));
        assert_eq!(
            validate("/etc/passwd"),
            Err(PathError::Absolute("/etc/passwd".into()))
        );
        assert_eq!(
            validate("a//b"),
            Err(PathError::EmptyComponent("a//b".into()))
        );
        assert_eq!(validate("a/"), Err(PathError::EmptyComponent("a/".into())));
        assert_eq!(
            validate("../x"),
            Err(PathError::DotComponent("../x".into()))
        );
        assert_eq!(
            validate("a/./b"),
            Err(PathError::DotComponent("a/./b".into()))
        );
        assert_eq!(validate("a\\b"), Err(PathError::Backslash("a\\b".into())));
        assert_eq!(
            validate("a\nb"),
            Err(PathError::ControlCharacter("a\nb".into(), 0x0a))
        );
        assert_eq!(
            validate("a\u{7f}"),
            Err(PathError::ControlCharacter("a\u{7f}".into(), 0x7f))
        );
    }

    #[test]
    fn line_separators_do_not_hide_dot_dot() {
        // The case the seed README warns about: U+2028 must not let '..' through.
        assert!(validate("a\u{2028}/../b").is_err());
        assert!(validate("\u{2029}..").is_ok()); // a single component "\u{2029}.." is a name
        assert!(validate("\u{2029}/..").is_err());
    }

    #[test]
    fn paths_have_at_most_max_depth_components() {
        let deepest = vec!["d"; MAX_DEPTH].join("/");
        assert!(WorkspacePath::new(deepest.clone()).is_ok());
        let deeper = format!("{deepest}/x");
        assert_eq!(
            WorkspacePath::new(deeper.clone()),
            Err(PathError::TooDeep(deeper.clone()))
        );
        // The rule-by-rule path names the same rule (a control character sends a path there
        // only when it has one; here the depth is the only fault).
        assert_eq!(validate(&deeper), Err(PathError::TooDeep(deeper)));
        assert!(matches!(
            validate(&format!("{deepest}/\u{1}")),
            Err(PathError::ControlCharacter(..))
        ));
    }

    #[test]
    fn fold_key_merges_case_and_normalisation_only() {
        assert_eq!(fold_key("README.md"), fold_key("readme.md"));
        assert_eq!(fold_key("caf\u{e9}.txt"), fold_key("cafe\u{301}.txt"));
        assert_eq!(fold_key("CAF\u{c9}.txt"), fold_key("cafe\u{301}.txt"));
        assert_ne!(fold_key("readme.md"), fold_key("readme.rs"));
        // Full folding: final sigma, capital sigma and sigma; sharp s and "ss".
        assert_eq!(fold_key("ΟΔΟΣ.txt"), "οδοσ.txt");
        assert_eq!(fold_key("οδος.txt"), "οδοσ.txt");
        assert_eq!(fold_key("straße"), "strasse");
        assert_eq!(fold_key("STRASSE"), "strasse");
        assert_eq!(fold_key("\u{1e9e}"), "ss"); // capital sharp s
        // Canonical equivalence survives folding: Å (U+212B ANGSTROM SIGN) and Å.
        assert_eq!(fold_key("\u{212b}"), fold_key("a\u{30a}"));
        assert_ne!(fold_key("strase"), fold_key("straße"));
        assert_ne!(fold_key("σ"), fold_key("ο"));
    }

    #[test]
    fn fs_limits_at_and_over_path_max() {
        let place = |dir_len, temp_name_len| FsPlace {
            what: "the place".into(),
            dir_len,
            temp_name_len,
        };
        // dir (10) + '/' + path + NUL = 4096 exactly: accepted; one byte more: refused.
        let at = WorkspacePath::new(format!(
            "{}/{}",
            vec!["d".repeat(200); 20].join("/"),
            "f".repeat(64)
        ))
        .unwrap();
        assert_eq!(at.as_str().len(), 4084);
        assert_eq!(check_fs_limits(&at, &[place(10, 0)]), Ok(()));
        let e = check_fs_limits(&at, &[place(11, 0)]).unwrap_err();
        assert!(
            matches!(
                e,
                FsLimitError::PathTooLong {
                    total: 4097,
                    limit: 4096,
                    max: 4083,
                    len: 4084,
                    ..
                }
            ),
            "{e:?}"
        );
        // A temporary name longer than the file name binds.
        let short = WorkspacePath::new(format!("{}/f", "d".repeat(200))).unwrap();
        assert_eq!(
            check_fs_limits(&short, &[place(4096 - 203 - 20, 20)]),
            Ok(())
        );
        assert!(check_fs_limits(&short, &[place(4096 - 202 - 20, 20)]).is_err());
        // NAME_MAX.
        let long = WorkspacePath::new("n".repeat(256)).unwrap();
        assert!(matches!(
            check_fs_limits(&long, &[]),
            Err(FsLimitError::NameTooLong {
                component_len: 256,
                limit: 255,
                ..
            })
        ));
        assert_eq!(
            check_fs_limits(&WorkspacePath::new("n".repeat(255)).unwrap(), &[]),
            Ok(())
        );
    }

    /// The rules one by one, as `validate` applies them when the one-pass check fails.
    fn validate_by_rules(path: &str) -> bool {
        !path.is_empty()
            && !path.chars().any(|c| (c as u32) < 0x20 || c == '\u{7f}')
            && !path.starts_with('/')
            && !path.contains('\\')
            && path.split('/').all(|c| !matches!(c, "" | "." | ".."))
    }

    #[test]
    fn the_one_pass_check_keeps_every_rule() {
        for (p, ok) in [
            ("a", true),
            ("a/b.c/ü", true),
            ("...", true),
            ("a/.b/..c", true),
            ("", false),
            ("/a", false),
            ("a/", false),
            ("a//b", false),
            (".", false),
            ("a/..", false),
            ("./a", false),
            ("a\\b", false),
            ("a\u{7f}", false),
            ("a\u{1f}b", false),
        ] {
            assert_eq!(is_valid_fast(p.as_bytes()), ok, "{p:?}");
            assert_eq!(validate_by_rules(p), ok, "{p:?}");
        }
    }

    proptest! {
        #[test]
        fn the_one_pass_check_agrees_with_the_rules(s in "[a./\\\\\\x00\\x1f\\x7f\u{e9}\u{10000}]{0,12}") {
            prop_assert_eq!(is_valid_fast(s.as_bytes()), validate_by_rules(&s));
            prop_assert_eq!(validate(&s).is_ok(), validate_by_rules(&s));
        }

        #[test]
        fn the_ascii_fast_path_folds_as_the_full_path(s in "[\\x00-\\x7f]{0,24}") {
            prop_assert_eq!(fold_key(&s), fold_key_full(&s));
            use std::hash::BuildHasher;
            let state = std::hash::RandomState::new();
            let mut buf = Vec::new();
            prop_assert_eq!(
                fold_key_hash(&s, &mut buf, &state),
                state.hash_one(fold_key_full(&s).as_bytes())
            );
        }

        #[test]
        fn parse_then_print_round_trips(s in "[^/\\\\\\x00-\\x1f\\x7f]{1,8}(/[^/\\\\\\x00-\\x1f\\x7f]{1,8}){0,4}") {
            match WorkspacePath::new(s.clone()) {
                Ok(p) => {
                    prop_assert_eq!(p.to_string(), s.clone());
                    prop_assert_eq!(p.to_string().parse::<WorkspacePath>().unwrap(), p);
                }
                Err(e) => prop_assert!(matches!(e, PathError::DotComponent(_)), "{e}"),
            }
        }

        #[test]
        fn never_panics(s in ".*") {
            let _ = validate(&s);
        }
    }
}
