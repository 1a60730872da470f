//! Differences between two trees, printed as git-style diffs that `git apply` accepts.
//!
//! A [`Tree`] is a snapshot plus a place to read its blobs from: a directory on disk or the
//! store. [`changes`] lists the paths that differ (by blob or executable bit), sorted by path;
//! [`write_git_diff`] prints them as a `git diff --binary` would:
//!
//! - `diff --git a/P b/P`, then `new file mode`, `deleted file mode` or `old mode`/`new mode`
//!   lines (modes `100644` and `100755`);
//! - text files: `--- a/P` / `+++ b/P` (or `/dev/null`), followed by a TAB when P holds a space
//!   (git's rule, which GNU `patch` needs to read such a name), and unified hunks with 3 lines of
//!   context, `\ No newline at end of file` where a side ends without one, bytes (CRLF
//!   included) kept as they are;
//! - binary files (a NUL byte in the first 8000 bytes of either side, git's rule, or a side
//!   over [`LARGE_FILE_BYTES`], read streaming: see `large.rs`): an
//!   `index <sha1>..<sha1>` line with git's full blob ids, then `GIT binary patch` with a
//!   zlib-compressed, base85-encoded `literal` block for each direction;
//! - paths holding `"`, `\`, control characters or non-ASCII bytes are C-quoted as git does.
//!
//! Renames are shown as a delete plus an add.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha1::Digest as _;

use crate::hash::Digest;
use crate::path::WorkspacePath;
use crate::snapshot::{Snapshot, SnapshotError, SnapshotFile, SnapshotOptions, snapshot_dir};
use crate::store::{Store, StoreError};

/// Where a [`Tree`]'s blobs are read from.
#[derive(Debug, Clone)]
enum Source {
    Dir(PathBuf),
    Store(Store),
    /// A document only: paths and blobs can be compared, content cannot be read.
    None,
}

/// A snapshot with its executable bits and the place its blobs are read from.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The snapshot.
    pub snapshot: Snapshot,
    /// Paths with the executable bit set.
    pub executable: BTreeSet<WorkspacePath>,
    source: Source,
    partial: bool,
}

/// One side of [`Tree::compare`]: a directory with the options to snapshot it, or a tree
/// already read (a stored snapshot, a snapshot document).
#[derive(Debug, Clone)]
pub enum Operand {
    /// A directory on disk and its snapshot options.
    Dir(std::path::PathBuf, SnapshotOptions),
    /// A tree whose members are fixed.
    Tree(Tree),
    /// A snapshot in the store, read only as far as needed: when both operands of
    /// [`Tree::compare`] are stored v0.2 trees of one store, only the nodes whose identities
    /// differ are read ([`crate::tree::diff`]); otherwise it is read whole
    /// ([`Tree::from_store`]).
    Stored(Store, Digest),
}

impl Operand {
    /// The tree as its own rules give it.
    fn read(&self) -> Result<Tree, DiffError> {
        match self {
            Operand::Dir(p, opts) => Tree::from_dir(p, opts),
            Operand::Tree(t) => Ok(t.clone()),
            Operand::Stored(store, id) => Tree::from_store(store, id),
        }
    }

    /// `own` (this operand as [`Operand::read`] gave it), snapshotted again with the member
    /// paths of `other` added to the tracked set when `other` holds a path `own` lacks.
    fn widen(&self, own: Tree, other: &Tree) -> Result<Tree, DiffError> {
        let Operand::Dir(p, opts) = self else {
            return Ok(own);
        };
        let other_paths = other.snapshot.files().iter().map(|f| f.path.as_str());
        if other_paths.clone().all(|q| own.snapshot.get(q).is_some()) {
            return Ok(own);
        }
        let mut opts = opts.clone();
        opts.tracked = std::sync::Arc::new(opts.tracked.with_paths(other_paths));
        Tree::from_dir(p, &opts)
    }
}

/// Errors of diffing. Each names the path or snapshot involved.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// Snapshotting a directory failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// Reading from the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file in a directory changed after it was snapshotted.
    #[error("{}: changed while the diff was being made; run it again", .0.display())]
    Changed(PathBuf),
    /// The tree is a document without content.
    #[error("{0}: the content is not available (the snapshot is not in the store)")]
    NoContent(String),
    /// Writing the output failed.
    #[error("writing the diff: {0}")]
    Output(#[from] io::Error),
}

mod dirs;
mod hunks;
mod large;
pub(crate) use hunks::BASE85;
use hunks::range;
pub use hunks::{UnifiedHunk, line_counts, unified_hunks};
use large::write_literal;
pub use large::{BoundedText, LARGE_FILE_BYTES};

impl Tree {
    /// Snapshots the directory `root` (without storing anything) and reads blobs from it.
    ///
    /// # Errors
    /// [`DiffError::Snapshot`].
    pub fn from_dir(root: &Path, opts: &SnapshotOptions) -> Result<Tree, DiffError> {
        let outcome = snapshot_dir(root, opts)?;
        Ok(Tree {
            snapshot: outcome.snapshot,
            executable: outcome.executable,
            source: Source::Dir(root.to_path_buf()),
            partial: false,
        })
    }

    /// Two trees to compare, read so that membership rules never make a difference: a
    /// directory operand is snapshotted with its options' tracked set plus every member path
    /// of the other operand (its own snapshot, for a directory), so a file both sides hold is
    /// compared by content even when only one side's git index exempts it from `.gitignore`
    /// (a `--checkout` or a `git archive` has no index). `.genesisignore` and `exclude` still
    /// apply. A directory is snapshotted a second time only when the other side holds a path
    /// its first snapshot lacks.
    ///
    /// # Errors
    /// As [`Tree::from_dir`] and [`Tree::from_store`].
    ///
    /// Two [`Operand::Stored`] v0.2 trees of one store are compared by [`crate::tree::diff`],
    /// reading only the nodes whose identities differ; each tree returned then lists only its
    /// side of the changed paths ([`Tree::is_partial`]), which is all [`changes`],
    /// [`stats`] and [`write_git_diff`] need.
    pub fn compare(a: Operand, b: Operand) -> Result<(Tree, Tree), DiffError> {
        if let (Operand::Stored(sa, ia), Operand::Stored(sb, ib)) = (&a, &b)
            && sa.path() == sb.path()
            && sa.is_stored_tree(ia)
            && sa.is_stored_tree(ib)
        {
            return Tree::stored_changes(sa, ia, ib);
        }
        let (a1, b1) = (a.read()?, b.read()?);
        let b2 = b.widen(b1.clone(), &a1)?;
        let a2 = a.widen(a1, &b1)?;
        Ok((a2, b2))
    }

    /// [`Tree::compare`] for output that names no snapshot identity (`diff`, `--stat`,
    /// `--name-status`): two [`Operand::Dir`] directories are compared file by file, paired by
    /// path and decided by size, then bytes up to the first difference, so nothing they hold
    /// alike is hashed (see `diff/dirs.rs`). Each tree returned then lists only its side of the
    /// changed paths ([`Tree::is_partial`]), with their blobs; its snapshot identity is that of
    /// the files listed, not the directory's. Any other pair of operands is [`Tree::compare`].
    ///
    /// Membership is the same as [`Tree::compare`]'s, so [`changes`], [`stats`] and
    /// [`write_git_diff`] give the same output as they give for its trees.
    ///
    /// # Errors
    /// As [`Tree::compare`].
    pub fn compare_contents(a: Operand, b: Operand) -> Result<(Tree, Tree), DiffError> {
        match (&a, &b) {
            (Operand::Dir(pa, oa), Operand::Dir(pb, ob)) => dirs::compare((pa, oa), (pb, ob)),
            _ => Tree::compare(a, b),
        }
    }

    /// The two stored v0.2 trees `a` and `b`, each listing only its side of the paths that
    /// differ ([`crate::tree::diff`]: only nodes whose identities differ are read).
    fn stored_changes(store: &Store, a: &Digest, b: &Digest) -> Result<(Tree, Tree), DiffError> {
        let list = crate::tree::diff(store, a, b)?;
        let side = |id: &Digest, pick: &dyn Fn(&crate::tree::TreeChange) -> Option<&crate::tree::FlatFile>| {
            let mut files = Vec::new();
            let mut executable = BTreeSet::new();
            for f in list.iter().filter_map(pick) {
                if f.executable {
                    executable.insert(f.path.clone());
                }
                files.push(SnapshotFile {
                    path: f.path.clone(),
                    blob: f.blob,
                    bytes: f.bytes,
                });
            }
            Tree {
                snapshot: Snapshot::partial_v0_2(*id, files),
                executable,
                source: Source::Store(store.clone()),
                partial: true,
            }
        };
        Ok((side(a, &|c| c.old.as_ref()), side(b, &|c| c.new.as_ref())))
    }

    /// Whether this tree lists only the paths that differ from the tree it was compared with
    /// (two stored v0.2 trees, see [`Tree::compare`]), not every file of its snapshot.
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// The stored snapshot `identity`, with blobs read from `store`.
    ///
    /// # Errors
    /// [`DiffError::Store`] if the snapshot is missing or invalid.
    pub fn from_store(store: &Store, identity: &Digest) -> Result<Tree, DiffError> {
        let (snapshot, executable) = store.read_snapshot(identity)?;
        Ok(Tree {
            snapshot,
            executable,
            source: Source::Store(store.clone()),
            partial: false,
        })
    }

    /// A tree made of a stored snapshot and explicit executable bits.
    pub fn from_parts(
        store: &Store,
        snapshot: Snapshot,
        executable: BTreeSet<WorkspacePath>,
    ) -> Tree {
        Tree {
            snapshot,
            executable,
            source: Source::Store(store.clone()),
            partial: false,
        }
    }

    /// A snapshot document alone, without content (for comparisons by blob).
    pub fn from_snapshot(snapshot: Snapshot) -> Tree {
        Tree::from_snapshot_with(snapshot, BTreeSet::new())
    }

    /// [`Tree::from_snapshot`] with the executable bits `executable` (of a v0.2 listing,
    /// [`Snapshot::from_listing_json`]).
    pub fn from_snapshot_with(snapshot: Snapshot, executable: BTreeSet<WorkspacePath>) -> Tree {
        Tree {
            snapshot,
            executable,
            source: Source::None,
            partial: false,
        }
    }

    /// The bytes of `file`, checked against its blob hash.
    ///
    /// # Errors
    /// [`DiffError::Changed`] if a directory file no longer matches; store errors otherwise.
    pub fn read(&self, file: &SnapshotFile) -> Result<Vec<u8>, DiffError> {
        match &self.source {
            Source::None => Err(DiffError::NoContent(file.path.to_string())),
            Source::Store(store) => Ok(store.read_object(&file.blob)?),
            Source::Dir(root) => {
                let p = file.path.to_fs_path(root);
                let data = std::fs::read(&p).map_err(|_| DiffError::Changed(p.clone()))?;
                if Digest::of(&data) != file.blob {
                    return Err(DiffError::Changed(p));
                }
                Ok(data)
            }
        }
    }

    /// Whether `path` has its executable bit set in this tree.
    pub fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.executable.contains(path)
    }
}

/// How a path differs between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ChangeStatus {
    /// Only in the new tree (`A`).
    Added,
    /// Only in the old tree (`D`).
    Deleted,
    /// In both, with other content or another executable bit (`M`).
    Modified,
}

impl ChangeStatus {
    /// The `--name-status` letter: `A`, `D` or `M`.
    pub fn letter(&self) -> char {
        match self {
            ChangeStatus::Added => 'A',
            ChangeStatus::Deleted => 'D',
            ChangeStatus::Modified => 'M',
        }
    }
}

/// One side of a [`Change`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The snapshot entry.
    pub file: SnapshotFile,
    /// Its executable bit.
    pub executable: bool,
}

impl Side {
    fn mode(&self) -> &'static str {
        if self.executable { "100755" } else { "100644" }
    }
}

/// A path that differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path.
    pub path: WorkspacePath,
    /// Added, deleted or modified.
    pub status: ChangeStatus,
    /// The old side (absent when added).
    pub old: Option<Side>,
    /// The new side (absent when deleted).
    pub new: Option<Side>,
}

/// The paths that differ between `a` and `b`, sorted by path. Content is compared by blob, so
/// nothing is read.
pub fn changes(a: &Tree, b: &Tree) -> Vec<Change> {
    let (fa, fb) = (a.snapshot.files(), b.snapshot.files());
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    let side = |t: &Tree, f: &SnapshotFile| Side {
        file: f.clone(),
        executable: t.is_executable(&f.path),
    };
    while i < fa.len() || j < fb.len() {
        let ord = match (fa.get(i), fb.get(j)) {
            (Some(x), Some(y)) => x.path.cmp(&y.path),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                out.push(Change {
                    path: fa[i].path.clone(),
                    status: ChangeStatus::Deleted,
                    old: Some(side(a, &fa[i])),
                    new: None,
                });
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(Change {
                    path: fb[j].path.clone(),
                    status: ChangeStatus::Added,
                    old: None,
                    new: Some(side(b, &fb[j])),
                });
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (o, n) = (side(a, &fa[i]), side(b, &fb[j]));
                if o.file.blob != n.file.blob || o.executable != n.executable {
                    out.push(Change {
                        path: fa[i].path.clone(),
                        status: ChangeStatus::Modified,
                        old: Some(o),
                        new: Some(n),
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Options for [`write_git_diff`].
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Lines of context around each change. Default: 3 (git's default).
    pub context: usize,
    /// ANSI colour (headers bold, `-` red, `+` green, `@@` cyan). Default: off.
    pub color: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            context: 3,
            color: false,
        }
    }
}

/// Line counts of one changed file, for `--stat`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileStat {
    /// The path.
    pub path: String,
    /// Added, deleted or modified.
    pub status: ChangeStatus,
    /// Whether either side is binary (then the counts are 0).
    pub binary: bool,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Size before, in bytes (0 when added).
    pub old_bytes: u64,
    /// Size after, in bytes (0 when deleted).
    pub new_bytes: u64,
}

/// Whether `data` is binary by git's rule: a NUL byte in its first 8000 bytes.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// Counts lines added and removed for each change (reads both sides); a change with a side
/// over [`LARGE_FILE_BYTES`] is counted as binary without reading it.
///
/// # Errors
/// As [`Tree::read`].
pub fn stats(a: &Tree, b: &Tree, changes: &[Change]) -> Result<Vec<FileStat>, DiffError> {
    use rayon::prelude::*;
    // One change per task on rayon's threads; the results are gathered in order first, so the
    // error returned is the first change's that fails, as in a serial pass.
    let each: Vec<Result<FileStat, DiffError>> = changes
        .par_iter()
        .with_max_len(1)
        .map(|c| {
            if large::is_large(c) {
                return Ok(FileStat {
                    path: c.path.to_string(),
                    status: c.status,
                    binary: true,
                    added: 0,
                    removed: 0,
                    old_bytes: c.old.as_ref().map_or(0, |s| s.file.bytes),
                    new_bytes: c.new.as_ref().map_or(0, |s| s.file.bytes),
                });
            }
            let old = read_side(a, c.old.as_ref())?;
            let new = read_side(b, c.new.as_ref())?;
            let binary = is_binary(&old) || is_binary(&new);
            let (mut added, mut removed) = (0, 0);
            if !binary && old != new {
                let (a, r) = line_counts(&old, &new);
                added = a;
                removed = r;
            }
            Ok(FileStat {
                path: c.path.to_string(),
                status: c.status,
                binary,
                added,
                removed,
                old_bytes: c.old.as_ref().map_or(0, |s| s.file.bytes),
                new_bytes: c.new.as_ref().map_or(0, |s| s.file.bytes),
            })
        })
        .collect();
    each.into_iter().collect()
}

fn read_side(t: &Tree, s: Option<&Side>) -> Result<Vec<u8>, DiffError> {
    match s {
        Some(s) => t.read(&s.file),
        None => Ok(Vec::new()),
    }
}

/// Quotes a path as git does (core.quotePath=true): wrapped in `"` with C escapes when it holds
/// `"`, `\`, a control character or a byte ≥ 0x80; otherwise as is. `prefix` (`a/` or `b/`) goes
/// inside the quotes.
pub fn quote_path(prefix: &str, path: &str) -> String {
    let needs = path
        .bytes()
        .any(|b| b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b));
    if !needs {
        return format!("{prefix}{path}");
    }
    let mut s = String::from("\"");
    s.push_str(prefix);
    for b in path.bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            0x0c => s.push_str("\\f"),
            0x0b => s.push_str("\\v"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03o}")),
        }
    }
    s.push('"');
    s
}

/// git's blob id: SHA-1 of `blob <len>\0` followed by the bytes, as 40 hex characters.
pub fn git_blob_id(data: &[u8]) -> String {
    let mut h = sha1::Sha1::new();
    h.update(format!("blob {}\0", data.len()).as_bytes());
    h.update(data);
    hex::encode(h.finalize())
}

struct Colors {
    meta: &'static str,
    frag: &'static str,
    old: &'static str,
    new: &'static str,
    reset: &'static str,
}

impl Colors {
    fn new(on: bool) -> Self {
        if on {
            Colors {
                meta: "\x1b[1m",
                frag: "\x1b[36m",
                old: "\x1b[31m",
                new: "\x1b[32m",
                reset: "\x1b[m",
            }
        } else {
            Colors {
                meta: "",
                frag: "",
                old: "",
                new: "",
                reset: "",
            }
        }
    }
}

/// Writes `changes` from `a` to `b` as a git-style diff (see the module docs) to `out`.
///
/// # Errors
/// [`DiffError::Output`] if writing fails; read errors of either tree.
pub fn write_git_diff(
    a: &Tree,
    b: &Tree,
    changes: &[Change],
    opts: &DiffOptions,
    out: &mut dyn Write,
) -> Result<(), DiffError> {
    let c = Colors::new(opts.color);
    for ch in changes {
        let p = ch.path.as_str();
        let (qa, qb) = (quote_path("a/", p), quote_path("b/", p));
        writeln!(out, "{}diff --git {qa} {qb}{}", c.meta, c.reset)?;
        match (&ch.old, &ch.new) {
            (None, Some(n)) => writeln!(out, "{}new file mode {}{}", c.meta, n.mode(), c.reset)?,
            (Some(o), None) => {
                writeln!(out, "{}deleted file mode {}{}", c.meta, o.mode(), c.reset)?
            }
            (Some(o), Some(n)) if o.executable != n.executable => {
                writeln!(out, "{}old mode {}{}", c.meta, o.mode(), c.reset)?;
                writeln!(out, "{}new mode {}{}", c.meta, n.mode(), c.reset)?;
            }
            _ => {}
        }
        let same_content = match (&ch.old, &ch.new) {
            (Some(o), Some(n)) => o.file.blob == n.file.blob,
            _ => false,
        };
        if same_content {
            continue; // mode change only
        }
        if large::is_large(ch) {
            large::write_large(a, b, ch, &c, out)?;
            continue;
        }
        let old = read_side(a, ch.old.as_ref())?;
        let new = read_side(b, ch.new.as_ref())?;
        if old.is_empty() && new.is_empty() {
            continue; // empty file added or deleted: the header says it all
        }
        let (old_name, new_name) = (
            if ch.old.is_some() {
                qa.clone()
            } else {
                "/dev/null".into()
            },
            if ch.new.is_some() {
                qb.clone()
            } else {
                "/dev/null".into()
            },
        );
        if is_binary(&old) || is_binary(&new) {
            let zero = "0".repeat(40);
            let oid = |d: &[u8], present: bool| {
                if present {
                    git_blob_id(d)
                } else {
                    zero.clone()
                }
            };
            let mode_suffix = match (&ch.old, &ch.new) {
                (Some(o), Some(n)) if o.executable == n.executable => format!(" {}", o.mode()),
                _ => String::new(),
            };
            writeln!(
                out,
                "{}index {}..{}{mode_suffix}{}",
                c.meta,
                oid(&old, ch.old.is_some()),
                oid(&new, ch.new.is_some()),
                c.reset
            )?;
            writeln!(out, "GIT binary patch")?;
            write_literal(out, &new)?;
            writeln!(out)?;
            write_literal(out, &old)?;
            writeln!(out)?;
            continue;
        }
        // git ends a `---`/`+++` name holding a space with a TAB (after the colour reset), so
        // GNU patch, which otherwise reads the name only up to the first space, finds the file.
        let tab = if p.contains(' ') { "\t" } else { "" };
        let (old_tab, new_tab) = (
            if ch.old.is_some() { tab } else { "" },
            if ch.new.is_some() { tab } else { "" },
        );
        writeln!(out, "{}--- {old_name}{}{old_tab}", c.meta, c.reset)?;
        writeln!(out, "{}+++ {new_name}{}{new_tab}", c.meta, c.reset)?;
        for h in unified_hunks(&old, &new, opts.context) {
            writeln!(
                out,
                "{}@@ -{} +{} @@{}",
                c.frag,
                range(h.old_start, h.old_len),
                range(h.new_start, h.new_len),
                c.reset
            )?;
            for (sign, text) in &h.lines {
                let (sign, text, color) = match sign {
                    b'-' => (b'-', *text, c.old),
                    b'+' => (b'+', *text, c.new),
                    _ => (b' ', *text, ""),
                };
                out.write_all(color.as_bytes())?;
                out.write_all(&[sign])?;
                out.write_all(text)?;
                let no_eol = !text.ends_with(b"\n");
                if !color.is_empty() {
                    // Keep the colour off the line end, so a CR stays at the end of the line.
                    out.write_all(c.reset.as_bytes())?;
                }
                if no_eol {
                    out.write_all(b"\n\\ No newline at end of file\n")?;
                }
            }
        }
    }
    Ok(())
}

/// Writes a `git diff --stat`-like summary: ` path | N ++--` per file and a total line. Each
/// path is printed as git prints it (core.quotePath, [`quote_path`]): a name with a space
/// as is, one with `"`, `\`, a control character or a non-ASCII byte in `"…"` with C and octal
/// escapes; the column is as wide as the longest printed name.
///
/// # Errors
/// [`DiffError::Output`].
pub fn write_stat(stats: &[FileStat], out: &mut dyn Write) -> Result<(), DiffError> {
    let names: Vec<String> = stats
        .iter()
        .map(|s| quote_path("", s.path.as_str()))
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let max_change = stats
        .iter()
        .filter(|s| !s.binary)
        .map(|s| s.added + s.removed)
        .max()
        .unwrap_or(0);
    // git right-aligns the counts in a column as wide as the largest, at least as wide as
    // "Bin" when a binary file is listed (diff.c, show_stats).
    let number_width = max_change
        .to_string()
        .len()
        .max(if stats.iter().any(|s| s.binary) { 3 } else { 0 });
    let bar = 40u64;
    let (mut ins, mut del) = (0, 0);
    for (s, name) in stats.iter().zip(&names) {
        let pad = width - name.chars().count();
        if s.binary {
            writeln!(
                out,
                " {}{} | Bin {} -> {} bytes",
                name,
                " ".repeat(pad),
                s.old_bytes,
                s.new_bytes
            )?;
            continue;
        }
        ins += s.added;
        del += s.removed;
        let total = s.added + s.removed;
        let (mut plus, mut minus) = (s.added, s.removed);
        if max_change > bar {
            plus = (s.added * bar).div_ceil(max_change);
            minus = (s.removed * bar).div_ceil(max_change);
        }
        let bar = format!(
            "{}{}",
            "+".repeat(plus as usize),
            "-".repeat(minus as usize)
        );
        let line = format!(
            " {}{} | {total:>number_width$} {bar}",
            name,
            " ".repeat(pad)
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    // git's summary: zero counts are left out unless both are zero.
    let n = stats.len();
    let mut line = format!(" {n} file{} changed", if n == 1 { "" } else { "s" });
    if ins > 0 || del == 0 {
        line.push_str(&format!(
            ", {ins} insertion{}(+)",
            if ins == 1 { "" } else { "s" }
        ));
    }
    if del > 0 || ins == 0 {
        line.push_str(&format!(
            ", {del} deletion{}(-)",
            if del == 1 { "" } else { "s" }
        ));
    }
    writeln!(out, "{line}")?;
    Ok(())
}
