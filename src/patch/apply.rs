//! Checking paths and applying parsed file entries to a [`PreImage`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::binary::apply_binary;
use super::parse::{FilePatch, Hunk, HunkLine, Op, op_name};
use super::{Anchor, FileChange, PatchError, PatchResult, PatchRules, PreImage};
use crate::path::{WorkspacePath, fold_key as fold};

/// Validates one name from the patch.
fn check_path(s: &str, line: usize, opts: &PatchRules) -> Result<WorkspacePath, PatchError> {
    if s.len() > opts.max_path_bytes {
        return Err(PatchError::PathTooLong {
            line,
            len: s.len(),
            limit: opts.max_path_bytes,
        });
    }
    let path = WorkspacePath::new(s).map_err(|source| PatchError::InvalidPath {
        path: s.to_owned(),
        line,
        source,
    })?;
    if path.components().any(|c| is_named(c, ".git")) {
        return Err(PatchError::ForbiddenPath {
            path: s.to_owned(),
            line,
            reason: "a `.git` component (in any case spelling) is never patched",
        });
    }
    if path
        .components()
        .next()
        .is_some_and(|c| is_named(c, ".genesis"))
    {
        return Err(PatchError::ForbiddenPath {
            path: s.to_owned(),
            line,
            reason: "`.genesis` is the engine's store",
        });
    }
    Ok(path)
}

/// Whether a path component would open `name` (`.git`, `.genesis`) on some file system: in any
/// ASCII case, with trailing dots or spaces (NTFS drops them), with Unicode ignorable characters
/// (HFS+ drops them), or as its NTFS short name (`GIT~1`, `GENESI~1`).
fn is_named(component: &str, name: &str) -> bool {
    let cleaned: String = component
        .chars()
        .filter(
            |c| !matches!(*c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF),
        )
        .collect();
    let trimmed = cleaned.trim_end_matches(['.', ' ']);
    if trimmed.eq_ignore_ascii_case(name) {
        return true;
    }
    let stem = &name[1..];
    let short = format!("{}~1", &stem[..stem.len().min(6)]);
    trimmed.eq_ignore_ascii_case(&short)
}

/// Records the paths an entry writes or deletes, refusing a path named twice. Names that
/// differ only by case or normalisation are judged later, on the result tree
/// ([`check_collisions`]).
#[derive(Default)]
struct Seen {
    exact: HashMap<String, usize>,
}

impl Seen {
    fn add(&mut self, path: &WorkspacePath, line: usize) -> Result<(), PatchError> {
        let s = path.as_str();
        if let Some(&first_line) = self.exact.get(s) {
            return Err(PatchError::DuplicatePath {
                path: s.to_owned(),
                line,
                first_line,
            });
        }
        self.exact.insert(s.to_owned(), line);
        Ok(())
    }
}

/// Every prefix of `path` (`a`, `a/b`, `a/b/c` for `a/b/c`): the directories on its way and the
/// path itself, each of which is one directory entry on disk.
fn prefixes(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .map(move |(i, _)| &path[..i])
        .chain(std::iter::once(path))
}

/// Refuses a result tree in which two different spellings of one directory entry (a file or a
/// directory on the way to one) are equal under [`fold`], unless the pre-image already held
/// both: such names cannot both exist on a case-insensitive or normalising file system (macOS,
/// Windows), so one would overwrite the other. Judged on the result, not on the names the patch
/// mentions: `rename from readme.md` / `rename to README.md` leaves one name and is fine.
fn check_collisions(
    tree: &dyn PreImage,
    changes: &BTreeMap<WorkspacePath, FileChange>,
    lines_of: &HashMap<WorkspacePath, usize>,
) -> Result<(), PatchError> {
    let pre = tree.paths();
    let pre_entries: BTreeSet<&str> = pre.iter().flat_map(|p| prefixes(p.as_str())).collect();
    let mut result: BTreeSet<&str> = pre
        .iter()
        .filter(|p| !matches!(changes.get(*p), Some(FileChange::Delete)))
        .map(WorkspacePath::as_str)
        .collect();
    // Each new entry (not in the pre-image) with the patch line that brings it.
    let mut new_entries: HashMap<&str, usize> = HashMap::new();
    for (path, change) in changes {
        if let FileChange::Write { .. } = change {
            result.insert(path.as_str());
            let line = lines_of.get(path).copied().unwrap_or(0);
            for e in prefixes(path.as_str()) {
                if !pre_entries.contains(e) {
                    let l = new_entries.entry(e).or_insert(line);
                    *l = (*l).min(line);
                }
            }
        }
    }
    if new_entries.is_empty() {
        return Ok(());
    }
    let mut groups: HashMap<String, BTreeSet<&str>> = HashMap::new();
    for e in result.iter().flat_map(|p| prefixes(p)) {
        groups.entry(fold(e)).or_default().insert(e);
    }
    let mut worst: Option<(usize, &str, &str)> = None;
    for spellings in groups.values().filter(|s| s.len() > 1) {
        for s in spellings {
            let Some(&line) = new_entries.get(s) else {
                continue;
            };
            let other = spellings
                .iter()
                .filter(|o| *o != s)
                .min_by_key(|o| new_entries.get(*o).copied().unwrap_or(0))
                .copied()
                .unwrap_or(s);
            let later = new_entries.get(other).copied().unwrap_or(0);
            if line >= later && worst.is_none_or(|(l, p, _)| (line, *s) < (l, p)) {
                worst = Some((line, s, other));
            }
        }
    }
    match worst {
        Some((line, path, other)) => Err(PatchError::PathCollision {
            path: path.to_owned(),
            line,
            other: other.to_owned(),
        }),
        None => Ok(()),
    }
}

/// A mode string: `Ok(true)` for 100755, `Ok(false)` for 100644.
fn mode(m: &str, path: &str, line: usize) -> Result<bool, PatchError> {
    let what = match m {
        "100644" => return Ok(false),
        "100755" => return Ok(true),
        "120000" => "a symbolic link",
        "160000" => "a gitlink (submodule)",
        "040000" => "a directory",
        _ => "an unknown mode",
    };
    Err(PatchError::UnsupportedMode {
        path: path.to_owned(),
        line,
        mode: m.to_owned(),
        what,
    })
}

fn read(tree: &dyn PreImage, path: &WorkspacePath) -> Result<Vec<u8>, PatchError> {
    tree.read(path).map_err(|source| PatchError::Read {
        path: path.to_string(),
        source,
    })
}

/// The paths of one file entry, checked.
struct Resolved {
    /// Path read (modify/delete/rename source/copy source); None for creations.
    source: Option<WorkspacePath>,
    /// Path written; None for deletions.
    target: Option<WorkspacePath>,
    /// The executable bit the entry sets, if it sets one.
    new_mode: Option<bool>,
}

/// Checks every entry's paths (valid, not forbidden, none twice) and modes.
fn resolve(files: &[FilePatch<'_>], opts: &PatchRules) -> Result<Vec<Resolved>, PatchError> {
    let mut seen = Seen::default();
    let mut resolved = Vec::with_capacity(files.len());
    for f in files {
        let l = f.line;
        let (source, target) = match &f.op {
            Op::Modify(p) => {
                let p = check_path(p, l, opts)?;
                seen.add(&p, l)?;
                (Some(p.clone()), Some(p))
            }
            Op::Create(p) => {
                let p = check_path(p, l, opts)?;
                seen.add(&p, l)?;
                (None, Some(p))
            }
            Op::Delete(p) => {
                let p = check_path(p, l, opts)?;
                seen.add(&p, l)?;
                (Some(p), None)
            }
            Op::Rename { from, to } => {
                let from = check_path(from, l, opts)?;
                let to = check_path(to, l, opts)?;
                seen.add(&from, l)?;
                seen.add(&to, l)?;
                (Some(from), Some(to))
            }
            Op::Copy { from, to } => {
                let from = check_path(from, l, opts)?;
                let to = check_path(to, l, opts)?;
                seen.add(&to, l)?;
                (Some(from), Some(to))
            }
        };
        let name = op_name(&f.op);
        // `old mode` is validated (a symlink or gitlink is refused) but not compared with the
        // tree (module docs).
        if let Some(m) = f.old_mode.as_deref() {
            mode(m, &name, l)?;
        }
        let new_mode = f
            .new_mode
            .as_deref()
            .map(|m| mode(m, &name, l))
            .transpose()?;
        resolved.push(Resolved {
            source,
            target,
            new_mode,
        });
    }
    Ok(resolved)
}

/// A text deletion must remove exactly the file `old`: only removed lines, together equal to
/// it. Checked before placement, so a file with other content is named as such rather than as
/// a hunk that does not apply.
fn check_text_deletion(f: &FilePatch<'_>, old: &[u8], name: &str) -> Result<(), PatchError> {
    // A text deletion must remove exactly the file: checked before placement, so a file
    // with other content is named as such rather than as a hunk that does not apply.
    let mut removed: Vec<u8> = Vec::with_capacity(old.len());
    let mut only_removals = true;
    for hl in f.hunks.iter().flat_map(|h| &h.lines) {
        match hl {
            HunkLine::Remove(c) => removed.extend_from_slice(c),
            _ => only_removals = false,
        }
    }
    if !only_removals || removed != old {
        return Err(PatchError::DeleteMismatch {
            path: name.to_owned(),
            line: f.line,
        });
    }
    Ok(())
}

/// No file the patch writes may lie below a file of the result (written, or kept from `tree`).
fn check_no_file_below_a_file(
    tree: &dyn PreImage,
    changes: &BTreeMap<WorkspacePath, FileChange>,
    lines_of: &HashMap<WorkspacePath, usize>,
) -> Result<(), PatchError> {
    for (path, change) in changes {
        if !matches!(change, FileChange::Write { .. }) {
            continue;
        }
        let mut parent = path.parent();
        while let Some(p) = parent {
            let blocked = match changes.get(&p) {
                Some(FileChange::Write { .. }) => true,
                Some(FileChange::Delete) => false,
                None => tree.contains(&p),
            };
            if blocked {
                return Err(PatchError::ParentIsFile {
                    path: path.to_string(),
                    parent: p.to_string(),
                    line: lines_of.get(path).copied().unwrap_or(0),
                });
            }
            parent = p.parent();
        }
    }
    Ok(())
}

/// Lines the hunks add and remove.
fn count_lines(hunks: &[Hunk]) -> (u64, u64) {
    let mut counts = (0, 0);
    for hl in hunks.iter().flat_map(|h| &h.lines) {
        match hl {
            HunkLine::Add(_) => counts.0 += 1,
            HunkLine::Remove(_) => counts.1 += 1,
            HunkLine::Context(_) => {}
        }
    }
    counts
}

/// Applies every entry; see the module docs of [`super`] for the rules.
pub(crate) fn apply(
    files: &[FilePatch<'_>],
    tree: &dyn PreImage,
    opts: &PatchRules,
) -> Result<PatchResult, PatchError> {
    // 1. Paths: validity, forbidden places, duplicates and collisions, modes.
    let resolved = resolve(files, opts)?;

    // 2. Contents.
    let mut out = PatchResult {
        files_changed: files.len(),
        ..PatchResult::default()
    };
    let mut lines_of: HashMap<WorkspacePath, usize> = HashMap::new();
    for (f, r) in files.iter().zip(&resolved) {
        let l = f.line;
        let (added, removed) = count_lines(&f.hunks);
        out.lines_added += added;
        out.lines_removed += removed;
        // A plain diff creating a file the GNU-patch way: `--- a/x` / `+++ b/x`, `@@ -0,0 ...`.
        let plain_create = f.plain
            && matches!(f.op, Op::Modify(_))
            && f.hunks.len() == 1
            && f.hunks[0].old_count == 0
            && f.hunks[0].old_start == 0
            && r.source.as_ref().is_some_and(|s| !tree.contains(s));
        let source = if plain_create { None } else { r.source.clone() };

        let (old, old_exec) = match &source {
            Some(s) => {
                if !tree.contains(s) {
                    return Err(PatchError::FileMissing {
                        path: s.to_string(),
                        line: l,
                    });
                }
                (read(tree, s)?, tree.is_executable(s))
            }
            None => (Vec::new(), false),
        };
        let name = op_name(&f.op);
        if let Some(t) = &r.target
            && (source.is_none() || matches!(f.op, Op::Rename { .. } | Op::Copy { .. }))
            && tree.contains(t)
        {
            return Err(PatchError::FileExists {
                path: t.to_string(),
                line: l,
            });
        }
        if source.is_none() {
            for (i, h) in f.hunks.iter().enumerate() {
                if h.old_count > 0 {
                    return Err(PatchError::CreateWithOldLines {
                        path: name.clone(),
                        hunk: i + 1,
                        line: h.line,
                    });
                }
            }
        }
        if matches!(f.op, Op::Modify(_))
            && !plain_create
            && f.hunks.is_empty()
            && f.binary.is_none()
            && r.new_mode.is_none()
        {
            return Err(PatchError::NoChange {
                path: name,
                line: l,
            });
        }

        let is_delete = r.target.is_none();
        if is_delete && f.binary.is_none() && !f.hunks.is_empty() {
            check_text_deletion(f, &old, &name)?;
        }
        let new = match &f.binary {
            Some(b) => apply_binary(&name, f, b, &old, source.is_none(), is_delete)?,
            None => apply_hunks(&name, &old, &f.hunks)?,
        };
        match &r.target {
            None => {
                if !new.is_empty() {
                    return Err(PatchError::DeleteMismatch {
                        path: name,
                        line: l,
                    });
                }
                if let Some(s) = &source {
                    out.changes.insert(s.clone(), FileChange::Delete);
                }
            }
            Some(t) => {
                let executable = r.new_mode.unwrap_or(old_exec);
                if let (Op::Rename { .. }, Some(s)) = (&f.op, &source) {
                    out.changes.insert(s.clone(), FileChange::Delete);
                }
                out.changes.insert(
                    t.clone(),
                    FileChange::Write {
                        data: new,
                        executable,
                    },
                );
                lines_of.insert(t.clone(), l);
            }
        }
    }

    // 3. No file below a file.
    check_no_file_below_a_file(tree, &out.changes, &lines_of)?;

    // 4. No two names that one case-insensitive, normalising file system would merge.
    check_collisions(tree, &out.changes, &lines_of)?;
    Ok(out)
}

/// Splits into lines, each keeping its `\n` (the last one may lack it).
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// The file as `git apply` sees it while it applies the hunks of one file: the lines already
/// written (each with the old line it copies, or `None` for a line a hunk wrote, which no later
/// hunk may match), then the old lines not reached yet.
struct Image<'a, 'b> {
    done: &'b [&'a [u8]],
    origin: &'b [Option<usize>],
    rest: &'b [&'a [u8]],
    /// Index in the old file of `rest[0]`.
    cursor: usize,
}

impl<'a> Image<'a, '_> {
    fn len(&self) -> usize {
        self.done.len() + self.rest.len()
    }

    /// The line at image index `i`, and the old-file index it copies (`None`: written by a hunk).
    fn line(&self, i: usize) -> (&'a [u8], Option<usize>) {
        if i < self.done.len() {
            (self.done[i], self.origin[i])
        } else {
            let j = i - self.done.len();
            (self.rest[j], Some(self.cursor + j))
        }
    }

    /// Whether `pre` matches at image index `q` under `eq`, on lines no hunk wrote.
    fn matches_at(&self, q: usize, pre: &[&[u8]], eq: &dyn Fn(&[u8], &[u8]) -> bool) -> bool {
        q + pre.len() <= self.len()
            && pre.iter().enumerate().all(|(i, p)| {
                let (l, origin) = self.line(q + i);
                origin.is_some() && eq(l, p)
            })
    }

    /// git's `find_pos`: the first index where `pre` matches, trying `start`, `start + 1`,
    /// `start - 1`, `start + 2`, … (clamped to the image); with an anchor, only the anchored
    /// index.
    fn find(
        &self,
        pre: &[&[u8]],
        start: usize,
        at_start: bool,
        at_end: bool,
        eq: &dyn Fn(&[u8], &[u8]) -> bool,
    ) -> Option<usize> {
        let len = self.len();
        if at_start || at_end {
            let q = if at_start {
                0
            } else {
                len.checked_sub(pre.len())?
            };
            let fits = !at_end || q + pre.len() == len;
            // At the end git compares up to the end of the file: byte for byte.
            let eq: &dyn Fn(&[u8], &[u8]) -> bool = if at_end { &exact } else { eq };
            return (fits && self.matches_at(q, pre, eq)).then_some(q);
        }
        let start = start.min(len);
        for d in 0..=len {
            if d == 0 {
                if self.matches_at(start, pre, eq) {
                    return Some(start);
                }
                continue;
            }
            let (fwd, back) = (
                start.checked_add(d).filter(|f| *f <= len),
                start.checked_sub(d),
            );
            if fwd.is_none() && back.is_none() {
                break;
            }
            for q in [fwd, back].into_iter().flatten() {
                if self.matches_at(q, pre, eq) {
                    return Some(q);
                }
            }
        }
        None
    }

    /// How many indices `pre` matches at exactly (unanchored), counting up to `limit`.
    fn count(&self, pre: &[&[u8]], limit: usize) -> usize {
        let len = self.len();
        if pre.len() > len {
            return 0;
        }
        (0..=len - pre.len())
            .filter(|&q| self.matches_at(q, pre, &exact))
            .take(limit)
            .count()
    }
}

fn exact(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// How git's `match_fragment` compares an image line `l` with a preimage line `p` away from
/// the end of the file: a `memcmp` over the preimage's bytes after a hash that ignores
/// whitespace, so a preimage line without its newline (`\ No newline at end of file`) also
/// matches a line that continues with whitespace and a newline.
fn git_eq(l: &[u8], p: &[u8]) -> bool {
    if p.ends_with(b"\n") {
        l == p
    } else {
        l.starts_with(p) && l[p.len()..].iter().all(u8::is_ascii_whitespace)
    }
}

/// A line without its line end (`\n`, `\r\n`, or a lone final `\r`).
fn strip_eol(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Equal but for CR before LF (both lines end in `\n`, or neither does).
fn same_but_eol(a: &[u8], b: &[u8]) -> bool {
    a.ends_with(b"\n") == b.ends_with(b"\n") && strip_eol(a) == strip_eol(b)
}

fn same_but_whitespace(a: &[u8], b: &[u8]) -> bool {
    let squeeze = |l: &[u8]| -> Vec<u8> {
        l.iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect()
    };
    squeeze(a) == squeeze(b)
}

/// The old lines (context and removed) and the new lines (context and added) of a hunk.
fn sides(h: &Hunk) -> (Vec<&[u8]>, Vec<&[u8]>) {
    let mut old_side = Vec::with_capacity(h.lines.len());
    let mut new_side = Vec::with_capacity(h.lines.len());
    for l in &h.lines {
        match l {
            HunkLine::Context(c) => {
                old_side.push(c.as_slice());
                new_side.push(c.as_slice());
            }
            HunkLine::Remove(c) => old_side.push(c.as_slice()),
            HunkLine::Add(c) => new_side.push(c.as_slice()),
        }
    }
    (old_side, new_side)
}

/// git's anchors of a hunk (apply.c, apply_one_fragment, without --unidiff-zero): whether it
/// must match at the start of the file, at its end, and the [`Anchor`] that names them.
fn anchors(h: &Hunk) -> (bool, bool, Option<Anchor>) {
    let at_start = h.old_start <= 1;
    let at_end = matches!(h.lines.last(), Some(HunkLine::Add(_) | HunkLine::Remove(_)));
    let anchor = match (at_start, at_end) {
        (true, true) => Some(Anchor::Both),
        (true, false) => Some(Anchor::Start),
        (false, true) => Some(Anchor::End),
        (false, false) => None,
    };
    (at_start, at_end, anchor)
}

/// Applies the hunks of one file, placing each where `git apply` would (see the module docs of
/// [`super`]) or refusing it.
fn apply_hunks(path: &str, old: &[u8], hunks: &[Hunk]) -> Result<Vec<u8>, PatchError> {
    let file = split_lines(old);
    let mut done: Vec<&[u8]> = Vec::with_capacity(file.len());
    let mut origin: Vec<Option<usize>> = Vec::with_capacity(file.len());
    let mut cursor = 0usize;
    let mut offset: i128 = 0;
    for (idx, h) in hunks.iter().enumerate() {
        let number = idx + 1;
        let (old_side, new_side) = sides(h);
        let k = old_side.len();
        let (at_start, at_end, anchor) = anchors(h);
        // 0-based old index of the first old line (for insertions: the line to insert before).
        let stated: i128 = if h.old_count == 0 {
            i128::from(h.old_start)
        } else {
            i128::from(h.old_start) - 1
        };
        let expected = stated + offset;
        let target_line = h.old_start;
        let img = Image {
            done: &done,
            origin: &origin,
            rest: &file[cursor..],
            cursor,
        };
        let git_start = usize::try_from(h.new_start.saturating_sub(1)).unwrap_or(usize::MAX);
        let Some(g) = img.find(&old_side, git_start, at_start, at_end, &git_eq) else {
            return Err(not_found(
                path, number, h, &img, &old_side, git_start, anchor,
            ));
        };
        let out_of_order = |found: u64| PatchError::HunkOutOfOrder {
            path: path.to_owned(),
            hunk: number,
            line: h.line,
            target_line,
            found_line: found,
        };
        if !img.matches_at(g, &old_side, &exact) {
            // git's nearest match holds a line the hunk says has no newline, followed by one:
            // Genesis matches byte for byte only.
            return Err(PatchError::HunkNotFound {
                path: path.to_owned(),
                hunk: number,
                line: h.line,
                target_line,
            });
        }
        if g < done.len() {
            // git would put it before (or among) the lines earlier hunks wrote.
            let found = img.line(g).1.map_or(0, |o| o as u64 + 1);
            return Err(out_of_order(found));
        }
        let pos = cursor + (g - done.len());
        // Genesis's own rule: a hunk with old lines and an anchor has one legal place, its
        // anchor, where `find` matched it; an unanchored hunk goes to the stated line (shifted by
        // the previous hunk's offset) or the only place its old lines occur. A hunk without old
        // lines has no context to confirm any place: the stated line only.
        let ours = pos as i128 == expected
            || (k > 0 && (anchor.is_some() || img.count(&old_side, 2) == 1));
        if !ours {
            if k == 0 {
                return Err(PatchError::HunkNotAnchored {
                    path: path.to_owned(),
                    hunk: number,
                    line: h.line,
                    target_line,
                    anchor: anchor.unwrap_or(Anchor::End),
                    found_line: None,
                });
            }
            return Err(PatchError::HunkAmbiguous {
                path: path.to_owned(),
                hunk: number,
                line: h.line,
                target_line,
                count: img.count(&old_side, 64),
            });
        }
        let no_newline = || PatchError::NoNewlineInMiddle {
            path: path.to_owned(),
            hunk: number,
            line: h.line,
        };
        for (i, l) in file[cursor..pos].iter().enumerate() {
            if done.last().is_some_and(|p| !p.ends_with(b"\n")) {
                return Err(no_newline());
            }
            done.push(l);
            origin.push(Some(cursor + i));
        }
        for l in &new_side {
            if done.last().is_some_and(|p| !p.ends_with(b"\n")) {
                return Err(no_newline());
            }
            done.push(l);
            origin.push(None);
        }
        cursor = pos + k;
        offset = pos as i128 - stated;
    }
    if cursor < file.len() && done.last().is_some_and(|p| !p.ends_with(b"\n")) {
        return Err(PatchError::NoNewlineInMiddle {
            path: path.to_owned(),
            hunk: hunks.len(),
            line: hunks.last().map_or(0, |h| h.line),
        });
    }
    let mut out = Vec::with_capacity(old.len());
    for l in done.iter().chain(file[cursor..].iter()) {
        out.extend_from_slice(l);
    }
    Ok(out)
}

/// The error for a hunk whose old lines match nowhere git would accept them: at another place
/// than its anchor, or only with line endings or whitespace ignored, or not at all.
fn not_found(
    path: &str,
    number: usize,
    h: &Hunk,
    img: &Image<'_, '_>,
    old_side: &[&[u8]],
    start: usize,
    anchor: Option<Anchor>,
) -> PatchError {
    let file_line = |q: usize| img.line(q).1.map_or(0, |o| o as u64 + 1);
    if let Some(anchor) = anchor {
        let found = if old_side.is_empty() {
            None
        } else {
            img.find(old_side, start, false, false, &exact)
                .map(file_line)
        };
        if found.is_some() || old_side.is_empty() {
            return PatchError::HunkNotAnchored {
                path: path.to_owned(),
                hunk: number,
                line: h.line,
                target_line: h.old_start,
                anchor,
                found_line: found,
            };
        }
    }
    if let Some(q) = img.find(old_side, start, false, false, &same_but_eol) {
        // The first line that differs tells which side has CRLF.
        let file_crlf = old_side
            .iter()
            .enumerate()
            .find(|(i, p)| img.line(q + i).0 != **p)
            .is_some_and(|(i, _)| img.line(q + i).0.ends_with(b"\r\n"));
        return PatchError::HunkLineEndings {
            path: path.to_owned(),
            hunk: number,
            line: h.line,
            target_line: h.old_start,
            file_line: file_line(q),
            file_crlf,
        };
    }
    if let Some(q) = img.find(old_side, start, false, false, &same_but_whitespace) {
        return PatchError::HunkWhitespace {
            path: path.to_owned(),
            hunk: number,
            line: h.line,
            target_line: h.old_start,
            file_line: file_line(q),
        };
    }
    PatchError::HunkNotFound {
        path: path.to_owned(),
        hunk: number,
        line: h.line,
        target_line: h.old_start,
    }
}
