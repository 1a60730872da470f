//! Applying git-style unified diffs to a snapshot tree (DESIGN section 4, `patch`).
//!
//! [`apply_patch`] takes the patch text exactly as an agent, `git diff`, `git diff --binary` or
//! `diff -ruN` produced it, and the tree it applies to ([`PreImage`], a snapshot in the store), and
//! returns the full post-image of every file it changes ([`PatchResult`]). It is pure: it never
//! touches a disk, and on any error it returns nothing (all or nothing). It never panics on any
//! input; every failure is a [`PatchError`] naming the file, the hunk (1-based within that file)
//! and the line in the patch text and/or the target file.
//!
//! # Accepted input
//!
//! - **git diffs** (a `diff --git` line starts each file): extended headers `old mode`,
//!   `new mode`, `new file mode`, `deleted file mode`, `rename from`/`rename to`,
//!   `copy from`/`copy to`, `similarity index`, `dissimilarity index`, `index`; then `---`/`+++`
//!   and hunks, or a `GIT binary patch`, or nothing (mode-only change, pure rename or copy, empty
//!   new or deleted file). Names in `diff --git`, `---` and `+++` always lose exactly one leading
//!   component (`a/`, `b/`, or whatever prefix was used, like `git apply -p1`); names in
//!   `rename`/`copy` lines are taken as they are. The names in `---`/`+++` must agree with the
//!   `diff --git` line.
//! - **plain unified diffs** (`---`/`+++`/`@@` only, as agents write them, or `diff -ruN` with
//!   `\t`-separated timestamps and `diff -ruN a b` lines, which are ignored): the `a/` and `b/`
//!   prefixes are stripped **only when both names carry them** (the old name starts with `a/` and
//!   the new one with `b/`; a `/dev/null` side counts as carrying it). Otherwise the names are
//!   used as written, so `--- src/x.rs` / `+++ src/x.rs` means `src/x.rs`. A plain diff whose old
//!   and new names differ is refused (a rename needs git's `rename from`/`rename to`). A side
//!   named `/dev/null`, or whose timestamp is the Unix epoch (what `diff -N` writes for an absent
//!   file, in any time zone), means creation or deletion. In a plain diff, a file that does not
//!   exist and whose only hunk is `@@ -0,0 +1,N @@` is created (what GNU patch does).
//! - git's C-style quoted names (`"a/sp\303\251cial \"q\".txt"`) are decoded; every name must then
//!   be valid UTF-8 and hold no NUL. Header lines (everything but hunk bodies and binary data)
//!   must be valid UTF-8 and hold no NUL byte; hunk content lines may hold any bytes.
//! - Text before the first file and between files (commit messages, `diff -ruN` command lines,
//!   `Only in` lines, a `-- ` e-mail signature) is ignored, except that a `@@` hunk header outside a
//!   file, and a `Binary files … differ` line, are errors.
//! - An input with no file change at all is refused ([`PatchError::Empty`]).
//!
//! # Hunks
//!
//! - The counts in `@@ -a,b +c,d @@` must agree exactly with the body; a body that is shorter
//!   (truncated patch, or a line that is not ` `, `-`, `+` or `\`) or longer (a ` `/`-`/`+` line
//!   right after the counted lines) is refused. Counts are never used to allocate.
//! - A line that is exactly `\n` inside a hunk is a blank context line (as ` \n`); a line that is
//!   exactly `\r\n` is **not** (it is an error), since it cannot be told apart from damage.
//! - `\ No newline at end of file` (any text after `\`) removes the `\n` of the line before it, on
//!   either side. A `\r` before the `\n` is content: CRLF files are kept byte for byte, and a CRLF
//!   file patched with an LF-only diff fails as a context mismatch (no line-ending leniency).
//! - If the very last line of the patch text lacks its `\n` (an agent that dropped the final
//!   newline) it is read as if it had one; only the `\` marker says a line has no newline.
//! - Placement: context and `-` lines must match byte for byte (no fuzz, no whitespace leniency).
//!   A hunk lands exactly where `git apply` (without options) would put it, or is refused:
//!   - **Anchors** (git's apply.c, `match_beginning`/`match_end`): a hunk whose old range starts
//!     at line 0 or 1 must match at the start of the file; a hunk with no context line after its
//!     last `-`/`+` line (as at the end of a file) must match at the end of the file; both, the
//!     whole file ([`Anchor`], [`PatchError::HunkNotAnchored`]). An anchored hunk is tried
//!     **only** at its anchor, and when its old lines match there it applies there, wherever
//!     else they also occur: the anchor is its one legal place, so it is never ambiguous. A diff
//!     made against a stale file therefore never puts an end-of-file addition before lines that
//!     were appended since, nor a start-of-file addition below lines that were prepended, and
//!     still follows the end (or start) of a file that gained lines at the other end.
//!   - An unanchored hunk: git searches from the hunk's new-side start (`+c`), nearest first
//!     (c, c+1, c−1, c+2, …), skipping lines earlier hunks wrote. Genesis takes git's position
//!     only when it is also its own: the stated old line shifted by the offset of the previous
//!     hunk of the file, or the *only* place the old lines occur in the file; otherwise it
//!     refuses ([`PatchError::HunkAmbiguous`]) rather than guess. Hunks must land in order and
//!     not overlap.
//!   - A hunk with no old lines (`@@ -5,0 +6,2 @@`, as `diff -U0` writes) has no trailing
//!     context, so git puts it at the end of the file: Genesis accepts it only when it is stated
//!     there (`-N,0` with N the last line, or `-0,0` on an empty file), and refuses it elsewhere.
//!   - A hunk holding only context lines is refused (git calls it a corrupt patch).
//!   - When the old lines match nowhere, the error says whether they would match with line
//!     endings ignored ([`PatchError::HunkLineEndings`], e.g. a CRLF file and an LF diff) or
//!     with whitespace ignored ([`PatchError::HunkWhitespace`]), naming the file line; neither is
//!     ever applied.
//! - **Same patch twice**: like `git apply`, an add-only hunk whose context still matches at the
//!   stated place applies again (duplicating its lines). Detecting "already applied" would need
//!   the reverse-apply heuristics `git apply` itself does not use by default, and would make
//!   legitimate duplicate insertions impossible; session history, not this function, is where a
//!   double submission is visible.
//!
//! # Files
//!
//! - Creating a file that exists, or modifying, deleting, renaming or copying one that does not,
//!   is refused. A delete must remove exactly the file's content: the `-` lines (or, for a
//!   deletion with no hunks, an empty file; for a binary deletion, the reverse binary block) must
//!   reproduce the file byte for byte, else the whole patch is refused.
//! - A rename writes the (patched) content to the new name and deletes the old; a copy writes the
//!   new name and keeps the source, which is read from the pre-image (so `git diff -C` output that
//!   also edits the source applies as `git apply` does).
//! - Modes: only `100644` and `100755`. `120000` (symlink) and `160000` (gitlink) are refused
//!   with the path. A file keeps its executable bit unless `new mode`/`new file mode` sets it; new
//!   files without a mode are not executable. `old mode` is not checked against the tree.
//! - A creation may not put a file below a path that is (and stays) a file, nor may two outputs of
//!   one patch be file and directory of each other. (The [`PreImage`] cannot list directories, so a
//!   new file `a` next to an existing `a/x` is left to the caller.)
//! - Binary patches (`GIT binary patch`, literal or delta; decoded by diffy): the forward block
//!   is applied. Like `git apply`, a binary patch must carry an `index OLD..NEW` line (`git diff
//!   --binary` always writes full ids): OLD must be the git blob id of the current bytes (an
//!   abbreviation of at least 7 hex digits is accepted; all zeros for a creation) and NEW that of
//!   the result, so a delta made against other bytes, or a binary deletion of a file whose bytes
//!   differ, is refused. A block whose declared size is over 256 MiB, or that inflates to more
//!   than its declared size, is refused before diffy decodes it (diffy's inflater would grow
//!   without bound on a "zip bomb"). For text patches the `index` line is ignored, as `git apply`
//!   does.
//!   `Binary files a/x and b/x differ` without data is refused.
//!
//! # Paths
//!
//! Every name is checked with [`WorkspacePath::new`], is at most `max_path_bytes` long, and is
//! refused if any component is `.git`, or its first component is `.genesis` (the store), in any
//! ASCII case spelling and also in the spellings that reach the same directory on NTFS or HFS+
//! (trailing dots or spaces, Unicode ignorable characters such as U+200C, the short names
//! `GIT~1` / `GENESI~1`), as git itself guards `.git`. One patch may name a path once: a second
//! entry for the same path (a rename's source included) is refused. Collisions are judged on
//! the **result tree**, not on the names the patch mentions: the result may not hold two names
//! (files, or directories on the way to them) that differ only by case or by Unicode
//! normalisation (NFC/NFD) unless the pre-image already held both, since one would overwrite
//! the other on macOS and Windows file systems. So a case-only rename (`rename from readme.md`,
//! `rename to README.md`, or a deletion of one plus a creation of the other) applies, while a
//! new `README.md` beside a kept `readme.md` is refused. A copy's source is only read, so it
//! does not count as a second entry.
//!
//! # Why not diffy's `patch_set` parser
//!
//! diffy 0.5.2's `PatchSet` was tried on each case above and is used only for binary decoding:
//! its `gitdiff()` mode finds nothing in a plain `---`/`+++` diff, and its `unidiff()` mode finds
//! nothing in mode-only, rename-only, empty-new-file or `Binary files` entries (and silently drops
//! an empty new file from a multi-file patch); it keeps the `a/`/`b/` prefixes; it accepts a
//! hunk body longer than its counts (the extra lines are dropped); it reads a `diff -N` epoch
//! header as a modification; its errors carry byte offsets, not file, hunk and line. Its text
//! `apply` also places a hunk whose context occurs twice (it guesses), which DESIGN forbids.
//! CRLF, `\ No newline`, blank context lines and quoted names it does handle.
//!
//! # Counts
//!
//! `files_changed` is the number of file entries in the patch; `lines_added`/`lines_removed`
//! count `+`/`-` lines of text hunks (binary patches count no lines).

mod apply;
mod binary;
mod names;
mod parse;
pub(crate) use parse::MAX_BINARY_BYTES;

use std::collections::BTreeMap;

use crate::path::{PathError, WorkspacePath};

/// The tree a patch applies to (a snapshot in the store). Content is loaded on demand.
pub trait PreImage {
    /// Whether `path` is a regular file in the tree.
    fn contains(&self, path: &WorkspacePath) -> bool;
    /// Its bytes.
    ///
    /// # Errors
    /// [`ReadError`]: the tree's own error, kept typed, so store corruption found while
    /// reading stays store corruption (exit 4, DESIGN section 7).
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError>;
    /// Whether its executable bit is set.
    fn is_executable(&self, path: &WorkspacePath) -> bool;
    /// Every regular file in the tree (used to judge case and normalisation collisions on the
    /// result tree).
    fn paths(&self) -> Vec<WorkspacePath>;
}

/// Why a [`PreImage`] could not give a file's bytes. It is kept in [`PatchError::Read`], whose
/// kind is this error's ([`ReadError::kind`]).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReadError {
    /// The tree says it holds the path but has no content for it. Bad input (exit 2).
    #[error("not in the tree")]
    NotInTree,
    /// Reading a snapshot's content failed (the engine's trees): a store object that is
    /// missing or corrupt is [`crate::diff::DiffError::Store`], I/O (exit 4). Shared, so that
    /// [`PatchError`] stays `Clone`.
    #[error(transparent)]
    Diff(std::sync::Arc<crate::diff::DiffError>),
    /// A reader outside the engine (a test's or fuzzer's tree) failed, with its message:
    /// I/O (exit 4).
    #[error("{0}")]
    Other(String),
}

impl PartialEq for ReadError {
    /// Equal when the same variant holds the same error: `Diff` compares the shared error
    /// itself (the same `Arc`), never its text.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ReadError::NotInTree, ReadError::NotInTree) => true,
            (ReadError::Diff(a), ReadError::Diff(b)) => std::sync::Arc::ptr_eq(a, b),
            (ReadError::Other(a), ReadError::Other(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for ReadError {}

impl From<crate::diff::DiffError> for ReadError {
    fn from(e: crate::diff::DiffError) -> Self {
        ReadError::Diff(std::sync::Arc::new(e))
    }
}

/// What a patch does to one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// The file's full new content and executable bit.
    Write {
        /// The post-image bytes.
        data: Vec<u8>,
        /// Whether the file is executable afterwards.
        executable: bool,
    },
    /// The file is removed.
    Delete,
}

/// The result of a successful [`apply_patch`].
#[derive(Debug, Clone, Default)]
pub struct PatchResult {
    /// Every path the patch changes, with its post-image.
    pub changes: BTreeMap<WorkspacePath, FileChange>,
    /// Number of file entries in the patch.
    pub files_changed: usize,
    /// Number of `+` lines in text hunks.
    pub lines_added: u64,
    /// Number of `-` lines in text hunks.
    pub lines_removed: u64,
}

/// Limits on untrusted input.
#[derive(Debug, Clone)]
pub struct PatchRules {
    /// Largest accepted patch text, in bytes (default 64 MiB).
    pub max_patch_bytes: usize,
    /// Most file entries in one patch. Default: no limit (`usize::MAX`; the text is bounded by
    /// `max_patch_bytes` and `max_hunks`); the manifest's `limits.max_changed_files` sets one.
    pub max_files: usize,
    /// Most hunks in one patch, all files together (default 100 000).
    pub max_hunks: usize,
    /// Longest accepted path, in bytes (default 4096).
    pub max_path_bytes: usize,
}

impl Default for PatchRules {
    fn default() -> Self {
        PatchRules {
            max_patch_bytes: 64 * 1024 * 1024,
            max_files: usize::MAX,
            max_hunks: 100_000,
            max_path_bytes: 4096,
        }
    }
}

/// Why a patch was refused. Nothing is applied when any error occurs.
///
/// `line` is always a 1-based line number in the patch text; `hunk` is 1-based within its file;
/// `target_line` is a 1-based line number in the target file (the hunk's stated start).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch text is larger than `max_patch_bytes`.
    #[error("patch is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// Size of the patch.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A patch Genesis writes (`patch --from`) would pass `max_patch_bytes`: writing stopped
    /// there, while writing the change of `path` (as the `diff --git` header names it).
    #[error("patch is over the limit of {limit} bytes (stopped while writing {path})")]
    TooLargeAt {
        /// The file being written when the text passed the limit.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A patch Genesis writes (`patch --from`, `rebase`) would change a file over the largest
    /// binary literal a patch may hold (268435456 bytes: a literal is decoded in memory);
    /// refused before any text is written.
    #[error(
        "{path}: {bytes} bytes, over the limit of {limit} bytes for a file a patch changes (a binary literal is decoded in memory)"
    )]
    FileTooLargeToPatch {
        /// The file.
        path: String,
        /// Its size (the larger side).
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// More file entries than `max_files`.
    #[error("patch line {line}: more than {limit} files in one patch")]
    TooManyFiles {
        /// Patch line of the first file over the limit.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// More hunks than `max_hunks`.
    #[error("patch line {line}: more than {limit} hunks in one patch")]
    TooManyHunks {
        /// Patch line of the first hunk over the limit.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// The patch holds no file change.
    #[error("the patch holds no file change (no `diff --git` or `---`/`+++` header found)")]
    Empty,
    /// A header line is not valid UTF-8 (after decoding a quoted name, if any).
    #[error("patch line {line}: header is not valid UTF-8")]
    HeaderNotUtf8 {
        /// Patch line.
        line: usize,
    },
    /// A header line holds a NUL byte.
    #[error("patch line {line}: header holds a NUL byte")]
    HeaderNul {
        /// Patch line.
        line: usize,
    },
    /// A header line cannot be understood.
    #[error("patch line {line}: malformed header: {reason}")]
    MalformedHeader {
        /// Patch line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A `@@` line appears outside any file.
    #[error("patch line {line}: hunk header without a file header (`---`/`+++` or `diff --git`)")]
    HunkWithoutFile {
        /// Patch line.
        line: usize,
    },
    /// A `@@` line cannot be parsed.
    #[error("{path}: hunk {hunk} at patch line {line}: malformed hunk header: {reason}")]
    MalformedHunkHeader {
        /// File the hunk belongs to.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The hunk body does not agree with the counts in its header.
    #[error(
        "{path}: hunk {hunk} (header at patch line {header_line}): body does not match the line counts in its header at patch line {line}: {reason}"
    )]
    HunkCountMismatch {
        /// File the hunk belongs to.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        header_line: usize,
        /// Patch line where the mismatch was found.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The patch ends inside a hunk.
    #[error(
        "{path}: hunk {hunk} (header at patch line {header_line}): patch is truncated, it ends at line {line} with {old_missing} old and {new_missing} new lines still missing"
    )]
    Truncated {
        /// File the hunk belongs to.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        header_line: usize,
        /// Last line of the patch.
        line: usize,
        /// Old-side lines the header promised but the body lacks.
        old_missing: u64,
        /// New-side lines the header promised but the body lacks.
        new_missing: u64,
    },
    /// A path is not a valid workspace path.
    #[error("patch line {line}: {source}")]
    InvalidPath {
        /// The path as written (after prefix stripping).
        path: String,
        /// Patch line.
        line: usize,
        /// The rule it breaks.
        source: PathError,
    },
    /// A path is longer than `max_path_bytes`.
    #[error("patch line {line}: path of {len} bytes is over the limit of {limit} bytes")]
    PathTooLong {
        /// Patch line.
        line: usize,
        /// Length of the path.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// A path inside `.git` or the store.
    #[error("patch line {line}: path {path} is forbidden: {reason}")]
    ForbiddenPath {
        /// The path.
        path: String,
        /// Patch line.
        line: usize,
        /// Why.
        reason: &'static str,
    },
    /// The same path appears twice in one patch.
    #[error(
        "patch line {line}: path {path} already appears in this patch (patch line {first_line})"
    )]
    DuplicatePath {
        /// The path.
        path: String,
        /// Patch line of the second entry.
        line: usize,
        /// Patch line of the first entry.
        first_line: usize,
    },
    /// The result tree would hold two names (files, or directories on the way to them) that
    /// differ only by case or Unicode normalisation, and the pre-image did not already hold
    /// both.
    #[error(
        "patch line {line}: path {path} would stand beside {other} in the result; they differ only by case or Unicode normalisation, so they cannot both exist on a case-insensitive or normalising file system (macOS, Windows)"
    )]
    PathCollision {
        /// The name the patch brings in (a file or a directory on the way to one).
        path: String,
        /// Patch line of the entry that brings it in.
        line: usize,
        /// The name it collides with (in the pre-image, or brought in by an earlier entry).
        other: String,
    },
    /// A file would be created below a path that is a file.
    #[error("patch line {line}: cannot write {path}: {parent} is a file")]
    ParentIsFile {
        /// The path.
        path: String,
        /// The file in the way.
        parent: String,
        /// Patch line of the entry.
        line: usize,
    },
    /// A mode other than 100644/100755.
    #[error(
        "{path}: patch line {line}: mode {mode} is not supported ({what}); only regular files (100644, 100755) can be patched"
    )]
    UnsupportedMode {
        /// The path.
        path: String,
        /// Patch line.
        line: usize,
        /// The mode as written.
        mode: String,
        /// What the mode means.
        what: &'static str,
    },
    /// `Binary files … differ` without content.
    #[error(
        "patch line {line}: binary change to {path} has no content (`Binary files ... differ`); regenerate the diff with `git diff --binary`"
    )]
    BinaryWithoutData {
        /// The path as written in the stub.
        path: String,
        /// Patch line.
        line: usize,
    },
    /// A `GIT binary patch` that cannot be decoded or applied.
    #[error("{path}: binary patch at patch line {line}: {reason}")]
    BadBinary {
        /// The path.
        path: String,
        /// Patch line of `GIT binary patch` (or of the bad block).
        line: usize,
        /// What failed.
        reason: String,
    },
    /// The file to create already exists.
    #[error("{path}: patch line {line}: cannot create the file, it already exists")]
    FileExists {
        /// The path.
        path: String,
        /// Patch line.
        line: usize,
    },
    /// The file to modify, delete, rename or copy does not exist.
    #[error("{path}: patch line {line}: no such file in the tree")]
    FileMissing {
        /// The path.
        path: String,
        /// Patch line.
        line: usize,
    },
    /// Reading the pre-image failed; the error's kind is the source's
    /// ([`PatchError::kind`]): store corruption is I/O (exit 4).
    #[error("{path}: cannot read the file: {source}")]
    Read {
        /// The path.
        path: String,
        /// The tree's error.
        source: ReadError,
    },
    /// A file entry with neither hunks nor a mode change.
    #[error("{path}: patch line {line}: file entry changes nothing (no hunks, no mode change)")]
    NoChange {
        /// The path.
        path: String,
        /// Patch line.
        line: usize,
    },
    /// The hunk's old lines occur nowhere in the file.
    #[error(
        "{path}: hunk {hunk} (patch line {line}) does not apply: its context and removed lines do not match at line {target_line} nor anywhere else in the file"
    )]
    HunkNotFound {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
    },
    /// The hunk must match at the start and/or the end of the file (git's anchoring, see
    /// [`Anchor`]) and does not match there.
    #[error(
        "{path}: hunk {hunk} (patch line {line}, stated at line {target_line}) does not apply: {anchor}, so like `git apply` it must match at the {} of the file, and it does not{}",
        anchor.place(),
        found_line.map(|f| format!(" (its context and removed lines occur at line {f}; the patch was made against another version of the file)")).unwrap_or_default()
    )]
    HunkNotAnchored {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
        /// Where the hunk must match.
        anchor: Anchor,
        /// The 1-based file line where the hunk's old lines do occur (not at the anchor), if
        /// anywhere; `None` for a hunk without old lines.
        found_line: Option<u64>,
    },
    /// The hunk matches nowhere, but would match if line endings (CR/LF) were ignored.
    #[error(
        "{path}: hunk {hunk} (patch line {line}) does not apply at line {target_line} nor anywhere else: its lines differ from the file only in line endings (at file line {file_line} the file has {} where the patch has {}); regenerate the diff from the file as it is",
        if *file_crlf { "CRLF" } else { "LF" },
        if *file_crlf { "LF" } else { "CRLF" }
    )]
    HunkLineEndings {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
        /// 1-based file line where the hunk would match with line endings ignored.
        file_line: u64,
        /// Whether the file's line there ends in CRLF (and the patch's in LF); `false` for the
        /// reverse.
        file_crlf: bool,
    },
    /// The hunk matches nowhere, but would match if whitespace were ignored.
    #[error(
        "{path}: hunk {hunk} (patch line {line}) does not apply at line {target_line} nor anywhere else: its lines differ from the file only in whitespace (from file line {file_line}); whitespace is never ignored, regenerate the diff from the file as it is"
    )]
    HunkWhitespace {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
        /// 1-based file line where the hunk would match with whitespace ignored.
        file_line: u64,
    },
    /// An unanchored hunk (see [`Anchor`]) does not match at its stated line and matches in
    /// several other places.
    #[error(
        "{path}: hunk {hunk} (patch line {line}) does not match at line {target_line}, and its context occurs {count} times elsewhere in the file; refusing to guess"
    )]
    HunkAmbiguous {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
        /// Number of places it matches.
        count: usize,
    },
    /// The hunk would land before or over the previous hunk, or outside the file.
    #[error(
        "{path}: hunk {hunk} (patch line {line}) stated at line {target_line} would land at line {found_line}, before the end of the previous hunk or outside the file; hunks must be in order and not overlap"
    )]
    HunkOutOfOrder {
        /// The path.
        path: String,
        /// Hunk number within the file.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
        /// Stated line in the target file.
        target_line: u64,
        /// Where it would land (1-based).
        found_line: u64,
    },
    /// A deletion whose `-` lines differ from the file.
    #[error(
        "{path}: patch line {line}: refusing to delete the file, its content differs from the patch's removed lines"
    )]
    DeleteMismatch {
        /// The path.
        path: String,
        /// Patch line of the file entry.
        line: usize,
    },
    /// A line without its newline would end up before another line.
    #[error(
        "{path}: hunk {hunk} (patch line {line}): a line marked `\\ No newline at end of file` would not be the last line of the file"
    )]
    NoNewlineInMiddle {
        /// The path.
        path: String,
        /// Hunk number.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
    },
    /// A creation whose hunks have old lines.
    #[error("{path}: hunk {hunk} (patch line {line}): a new file's hunk cannot have old lines")]
    CreateWithOldLines {
        /// The path.
        path: String,
        /// Hunk number.
        hunk: usize,
        /// Patch line of the `@@` header.
        line: usize,
    },
}

/// Where a hunk must match, by `git apply`'s rules (apply.c, `match_beginning` and
/// `match_end`, without `--unidiff-zero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Its old range starts at line 0 or 1: its old lines must be the first lines of the file.
    Start,
    /// It has no context line after its last `-`/`+` line: its old lines must be the last lines
    /// of the file (the end of the file is its trailing context).
    End,
    /// Both: its old lines must be the whole file.
    Both,
}

impl Anchor {
    /// Where the hunk must match: `"start"`, `"end"` or `"start and the end"`.
    pub fn place(&self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::End => "end",
            Anchor::Both => "start and the end",
        }
    }
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Anchor::Start => "its old range starts at line 0 or 1",
            Anchor::End => "it has no context lines after its last change",
            Anchor::Both => {
                "its old range starts at line 0 or 1 and it has no context lines after its last change"
            }
        })
    }
}

/// Checks that `patch` parses under `opts` (size, headers, hunks) without applying it — what a
/// caller runs before creating anything for it. Returns the number of file patches (≥ 1).
///
/// # Errors
/// As [`apply_patch`] for everything that is wrong with the text itself (not with a tree).
pub fn check_patch(patch: &[u8], opts: &PatchRules) -> Result<usize, PatchError> {
    if patch.len() > opts.max_patch_bytes {
        return Err(PatchError::TooLarge {
            size: patch.len(),
            limit: opts.max_patch_bytes,
        });
    }
    Ok(parse::parse(patch, opts)?.len())
}

/// Applies `patch` to `tree` and returns the post-image of every changed file.
///
/// # Errors
/// A [`PatchError`] naming the file, hunk and line that failed; see the module docs for the rules.
pub fn apply_patch(
    patch: &[u8],
    tree: &dyn PreImage,
    opts: &PatchRules,
) -> Result<PatchResult, PatchError> {
    if patch.len() > opts.max_patch_bytes {
        return Err(PatchError::TooLarge {
            size: patch.len(),
            limit: opts.max_patch_bytes,
        });
    }
    let files = parse::parse(patch, opts)?;
    apply::apply(&files, tree, opts)
}

#[cfg(test)]
mod tests;
