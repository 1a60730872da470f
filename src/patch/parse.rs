//! Parsing patch text into file entries (see the module docs of [`super`] for the accepted input).
//!
//! The parser is our own, line based, so that every error can name its patch line and so that
//! CRLF content, blank context lines, `\ No newline` markers, quoted names, mode-only changes,
//! renames and copies without hunks and empty new files are handled the way `git apply` does.
//! diffy is used only to decode git binary blocks (base85 + zlib, literal and delta).

use diffy::binary::{BinaryBlock, BinaryBlockKind, BinaryData};

use super::names::{
    git_line_names, header_name, is_epoch, is_hex_id, plain_name, plain_op, strip_one,
};
use super::{PatchError, PatchRules};

/// Largest declared size of a binary block we accept (256 MiB, the v0.1 per-file limit): a
/// literal is decoded in memory, so this bounds what one patch can make Genesis allocate.
/// Larger files go into snapshots but cannot be changed by a patch (DESIGN section 2).
pub(crate) const MAX_BINARY_BYTES: u64 = 268_435_456;

/// What a file entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Op {
    Modify(String),
    Create(String),
    Delete(String),
    Rename { from: String, to: String },
    Copy { from: String, to: String },
}

/// One line of a hunk body: its kind and its content (with its `\n` unless marked otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkLine {
    Context(Vec<u8>),
    Remove(Vec<u8>),
    Add(Vec<u8>),
}

impl HunkLine {
    fn content_mut(&mut self) -> &mut Vec<u8> {
        match self {
            HunkLine::Context(c) | HunkLine::Remove(c) | HunkLine::Add(c) => c,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// Patch line of the `@@` header.
    pub line: usize,
    pub old_start: u64,
    pub old_count: u64,
    /// The `+c` of `@@ -a,b +c,d @@`: where `git apply` starts looking for the hunk.
    pub new_start: u64,
    pub lines: Vec<HunkLine>,
}

#[derive(Debug, Clone)]
pub(crate) struct Binary<'a> {
    /// Patch line of `GIT binary patch`.
    pub line: usize,
    pub forward: BinaryBlock<'a>,
    #[allow(dead_code)] // parsed and checked for shape; only the forward block is applied
    pub reverse: Option<BinaryBlock<'a>>,
}

#[derive(Debug, Clone)]
pub(crate) struct FilePatch<'a> {
    /// Patch line of the entry's first header line.
    pub line: usize,
    pub op: Op,
    /// Whether the entry came from a plain (non-git) unified diff.
    pub plain: bool,
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    pub hunks: Vec<Hunk>,
    pub binary: Option<Binary<'a>>,
    /// The `index OLD..NEW` blob ids (hex, possibly abbreviated) and the line they are on.
    pub index: Option<(String, String, usize)>,
}

struct Parser<'a> {
    input: &'a [u8],
    /// (start, end) of each line, `end` past its `\n`.
    lines: Vec<(usize, usize)>,
    i: usize,
    hunks_total: usize,
    max_hunks: usize,
}

/// Parses the whole patch.
pub(crate) fn parse<'a>(
    input: &'a [u8],
    opts: &PatchRules,
) -> Result<Vec<FilePatch<'a>>, PatchError> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < input.len() {
        let end = match input[start..].iter().position(|&b| b == b'\n') {
            Some(p) => start + p + 1,
            None => input.len(),
        };
        lines.push((start, end));
        start = end;
    }
    let mut p = Parser {
        input,
        lines,
        i: 0,
        hunks_total: 0,
        max_hunks: opts.max_hunks,
    };
    let mut files = Vec::new();
    while p.i < p.lines.len() {
        let line = p.raw(p.i);
        let starts_file = line.starts_with(b"diff --git ")
            || (line.starts_with(b"--- ")
                && p.i + 1 < p.lines.len()
                && p.raw(p.i + 1).starts_with(b"+++ "));
        if starts_file && files.len() >= opts.max_files {
            return Err(PatchError::TooManyFiles {
                line: p.i + 1,
                limit: opts.max_files,
            });
        }
        if line.starts_with(b"diff --git ") {
            files.push(p.git_section()?);
        } else if starts_file {
            files.push(p.plain_section()?);
        } else if line.starts_with(b"@@ ") {
            return Err(PatchError::HunkWithoutFile { line: p.i + 1 });
        } else if line.starts_with(b"Binary files ") {
            return Err(binary_stub(line, p.i + 1));
        } else {
            // Preamble, commit message, `diff -ruN` command line, `Only in`: ignored.
            p.i += 1;
        }
    }
    if files.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(files)
}

fn binary_stub(line: &[u8], lineno: usize) -> PatchError {
    let text = String::from_utf8_lossy(strip_eol(line)).into_owned();
    let path = text
        .strip_prefix("Binary files ")
        .and_then(|r| r.split(" and ").nth(1))
        .map(|r| r.strip_suffix(" differ").unwrap_or(r).to_owned())
        .unwrap_or(text);
    PatchError::BinaryWithoutData { path, line: lineno }
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A header line as text: without its line ending, valid UTF-8, without NUL.
fn header_str(line: &[u8], lineno: usize) -> Result<&str, PatchError> {
    let line = strip_eol(line);
    if line.contains(&0) {
        return Err(PatchError::HeaderNul { line: lineno });
    }
    std::str::from_utf8(line).map_err(|_| PatchError::HeaderNotUtf8 { line: lineno })
}

pub(super) fn malformed(line: usize, reason: impl Into<String>) -> PatchError {
    PatchError::MalformedHeader {
        line,
        reason: reason.into(),
    }
}

/// The extended header lines of a `diff --git` entry.
#[derive(Default)]
struct ExtHeaders {
    old_mode: Option<String>,
    new_mode: Option<String>,
    new_file: bool,
    deleted: bool,
    rename_from: Option<String>,
    rename_to: Option<String>,
    copy_from: Option<String>,
    copy_to: Option<String>,
    index: Option<(String, String, usize)>,
}

const DEV_NULL: &str = "/dev/null";

impl<'a> Parser<'a> {
    fn raw(&self, i: usize) -> &'a [u8] {
        let (s, e) = self.lines[i];
        &self.input[s..e]
    }

    fn at_file_header(&self) -> bool {
        self.i + 1 < self.lines.len()
            && self.raw(self.i).starts_with(b"--- ")
            && self.raw(self.i + 1).starts_with(b"+++ ")
    }

    /// Reads a `---`/`+++` pair; returns the raw (unstripped) names, `None` for `/dev/null`.
    fn minus_plus(&mut self) -> Result<(Option<String>, Option<String>, usize), PatchError> {
        self.minus_plus_written().map(|(names, _)| names)
    }

    /// [`Parser::minus_plus`], and the two names as written: a side that is absent (`None`)
    /// by a GNU `diff -N` epoch timestamp still names the file (`diff -ruN OLD NEW` writes
    /// `OLD/x` and `NEW/x` for a file on one side only).
    #[allow(clippy::type_complexity)]
    fn minus_plus_written(
        &mut self,
    ) -> Result<((Option<String>, Option<String>, usize), (String, String)), PatchError> {
        let l1 = self.i + 1;
        let minus = header_str(self.raw(self.i), l1)?;
        let plus = header_str(self.raw(self.i + 1), l1 + 1)?;
        let (old, old_ts) = header_name(&minus[4..], l1)?;
        let (new, new_ts) = header_name(&plus[4..], l1 + 1)?;
        self.i += 2;
        let written = (old.clone(), new.clone());
        let old = (old != DEV_NULL && !old_ts.as_deref().is_some_and(is_epoch)).then_some(old);
        let new = (new != DEV_NULL && !new_ts.as_deref().is_some_and(is_epoch)).then_some(new);
        Ok(((old, new, l1), written))
    }

    fn plain_section(&mut self) -> Result<FilePatch<'a>, PatchError> {
        let ((old, new, line), written) = self.minus_plus_written()?;
        // One leading component goes for `a/x`/`b/x` names, and for `diff -ruN OLD/x NEW/x`
        // (first components differ, the rest is the same; also for a file on one side only,
        // whose other side `diff -N` dates at the epoch); names without such a prefix
        // (`src/x` on both lines, as agents write them) stay as they are.
        let git_style = old.as_deref().is_none_or(|o| o.starts_with("a/"))
            && new.as_deref().is_none_or(|n| n.starts_with("b/"));
        let dir_pair = written.0 != DEV_NULL
            && written.1 != DEV_NULL
            && match (written.0.split_once('/'), written.1.split_once('/')) {
                (Some((od, or)), Some((nd, nr))) => od != nd && or == nr,
                _ => false,
            };
        let strip = git_style || dir_pair;
        let fix = |n: String| {
            if strip {
                n.split_once('/')
                    .map_or(n.clone(), |(_, rest)| rest.to_owned())
            } else {
                n
            }
        };
        let op = match (old.map(fix), new.map(fix)) {
            (None, None) => return Err(malformed(line, "both names are /dev/null")),
            (None, Some(n)) => Op::Create(n),
            (Some(o), None) => Op::Delete(o),
            (Some(o), Some(n)) if o == n => Op::Modify(o),
            (Some(o), Some(n)) => {
                return Err(malformed(
                    line,
                    format!(
                        "old name {o:?} and new name {n:?} differ; a rename needs a git diff with `rename from`/`rename to`"
                    ),
                ));
            }
        };
        let name = op_name(&op);
        let hunks = self.hunks(&name)?;
        Ok(FilePatch {
            line,
            op,
            plain: true,
            old_mode: None,
            new_mode: None,
            hunks,
            binary: None,
            index: None,
        })
    }

    /// The extended header lines after `diff --git` (modes, rename/copy, index), up to the
    /// first other line.
    fn ext_headers(&mut self) -> Result<ExtHeaders, PatchError> {
        let mut h = ExtHeaders::default();
        while self.i < self.lines.len() {
            let raw = self.raw(self.i);
            let ln = self.i + 1;
            const EXT: [&[u8]; 11] = [
                b"old mode ",
                b"new mode ",
                b"deleted file mode ",
                b"new file mode ",
                b"rename from ",
                b"rename to ",
                b"copy from ",
                b"copy to ",
                b"similarity index ",
                b"dissimilarity index ",
                b"index ",
            ];
            if !EXT.iter().any(|p| raw.starts_with(p)) {
                break;
            }
            let s = header_str(raw, ln)?;
            if let Some(m) = s.strip_prefix("old mode ") {
                h.old_mode = Some(m.to_owned());
            } else if let Some(m) = s.strip_prefix("new mode ") {
                h.new_mode = Some(m.to_owned());
            } else if let Some(m) = s.strip_prefix("deleted file mode ") {
                h.deleted = true;
                h.old_mode = Some(m.to_owned());
            } else if let Some(m) = s.strip_prefix("new file mode ") {
                h.new_file = true;
                h.new_mode = Some(m.to_owned());
            } else if let Some(n) = s.strip_prefix("rename from ") {
                h.rename_from = Some(plain_name(n, ln)?);
            } else if let Some(n) = s.strip_prefix("rename to ") {
                h.rename_to = Some(plain_name(n, ln)?);
            } else if let Some(n) = s.strip_prefix("copy from ") {
                h.copy_from = Some(plain_name(n, ln)?);
            } else if let Some(n) = s.strip_prefix("copy to ") {
                h.copy_to = Some(plain_name(n, ln)?);
            } else if let Some(ids) = s.strip_prefix("index ") {
                // Only binary patches use it (see apply); a malformed one is ignored here.
                let ids = ids.split(' ').next().unwrap_or("");
                h.index = ids
                    .split_once("..")
                    .filter(|(o, n)| is_hex_id(o) && is_hex_id(n))
                    .map(|(o, n)| (o.to_ascii_lowercase(), n.to_ascii_lowercase(), ln));
            }
            self.i += 1;
        }
        Ok(h)
    }

    fn git_section(&mut self) -> Result<FilePatch<'a>, PatchError> {
        let line = self.i + 1;
        let head = header_str(self.raw(self.i), line)?;
        let git_names = git_line_names(&head["diff --git ".len()..], line)?;
        self.i += 1;

        let ExtHeaders {
            old_mode,
            new_mode,
            new_file,
            deleted,
            rename_from,
            rename_to,
            copy_from,
            copy_to,
            index,
        } = self.ext_headers()?;

        let mut minus_plus = None;
        if self.i < self.lines.len() && self.raw(self.i).starts_with(b"--- ") {
            if !self.at_file_header() {
                return Err(malformed(
                    self.i + 1,
                    "`---` line not followed by a `+++` line",
                ));
            }
            let (o, n, l) = self.minus_plus()?;
            let o = o.map(|o| strip_one(&o, l)).transpose()?;
            let n = n.map(|n| strip_one(&n, l + 1)).transpose()?;
            minus_plus = Some((o, n, l));
        }

        let check_pair = |from: &String, to: &String| -> Result<(), PatchError> {
            if let Some((o, n, l)) = &minus_plus
                && (o.as_ref().is_some_and(|o| o != from) || n.as_ref().is_some_and(|n| n != to))
            {
                return Err(malformed(
                    *l,
                    format!(
                        "`---`/`+++` names disagree with the rename/copy headers ({from:?} -> {to:?})"
                    ),
                ));
            }
            Ok(())
        };
        let op = match (rename_from, rename_to, copy_from, copy_to) {
            (Some(from), Some(to), None, None) => {
                check_pair(&from, &to)?;
                Op::Rename { from, to }
            }
            (None, None, Some(from), Some(to)) => {
                check_pair(&from, &to)?;
                Op::Copy { from, to }
            }
            (None, None, None, None) => plain_op(
                line,
                git_names.as_ref(),
                minus_plus.as_ref(),
                new_file,
                deleted,
            )?,
            _ => {
                return Err(malformed(
                    line,
                    "incomplete or mixed `rename from/to` / `copy from/to` headers",
                ));
            }
        };
        if new_file && !matches!(op, Op::Create(_)) || deleted && !matches!(op, Op::Delete(_)) {
            return Err(malformed(
                line,
                "`new file mode`/`deleted file mode` contradicts the other headers",
            ));
        }

        let name = op_name(&op);
        let mut binary = None;
        let mut hunks = Vec::new();
        if self.i < self.lines.len() {
            let raw = self.raw(self.i);
            if raw.starts_with(b"GIT binary patch") {
                binary = Some(self.binary(&name)?);
            } else if raw.starts_with(b"Binary files ") {
                return Err(PatchError::BinaryWithoutData {
                    path: name,
                    line: self.i + 1,
                });
            } else {
                hunks = self.hunks(&name)?;
            }
        }
        Ok(FilePatch {
            line,
            op,
            plain: false,
            old_mode,
            new_mode,
            hunks,
            binary,
            index,
        })
    }

    fn binary(&mut self, path: &str) -> Result<Binary<'a>, PatchError> {
        let line = self.i + 1;
        self.i += 1;
        let forward = self
            .binary_block(path)?
            .ok_or_else(|| PatchError::BadBinary {
                path: path.to_owned(),
                line,
                reason: "missing `literal N` or `delta N` block".into(),
            })?;
        let reverse = self.binary_block(path)?;
        Ok(Binary {
            line,
            forward,
            reverse,
        })
    }

    fn binary_block(&mut self, path: &str) -> Result<Option<BinaryBlock<'a>>, PatchError> {
        if self.i >= self.lines.len() {
            return Ok(None);
        }
        let raw = self.raw(self.i);
        let ln = self.i + 1;
        let kind = if raw.starts_with(b"literal ") {
            BinaryBlockKind::Literal
        } else if raw.starts_with(b"delta ") {
            BinaryBlockKind::Delta
        } else {
            return Ok(None);
        };
        let bad = |reason: String| PatchError::BadBinary {
            path: path.to_owned(),
            line: ln,
            reason,
        };
        let s = header_str(raw, ln)?;
        let size: u64 = s
            .split_once(' ')
            .and_then(|(_, n)| n.parse().ok())
            .ok_or_else(|| bad(format!("bad block header {s:?}")))?;
        if size > MAX_BINARY_BYTES {
            return Err(bad(format!(
                "declared size {size} is over the limit of {MAX_BINARY_BYTES} bytes"
            )));
        }
        self.i += 1;
        let start = self.lines.get(self.i).map_or(self.input.len(), |l| l.0);
        let mut end = start;
        while self.i < self.lines.len() {
            let raw = self.raw(self.i);
            self.i += 1;
            if strip_eol(raw).is_empty() {
                break;
            }
            end = self.lines[self.i - 1].1;
        }
        if end == start {
            return Err(bad("block has no data lines".into()));
        }
        Ok(Some(BinaryBlock {
            kind,
            data: BinaryData {
                size,
                data: &self.input[start..end],
            },
        }))
    }

    /// Reads the hunks of one file entry.
    fn hunks(&mut self, path: &str) -> Result<Vec<Hunk>, PatchError> {
        let mut hunks = Vec::new();
        while self.i < self.lines.len() && self.raw(self.i).starts_with(b"@@ ") {
            let number = hunks.len() + 1;
            self.hunks_total += 1;
            if self.hunks_total > self.max_hunks {
                return Err(PatchError::TooManyHunks {
                    line: self.i + 1,
                    limit: self.max_hunks,
                });
            }
            hunks.push(self.hunk(path, number)?);
        }
        Ok(hunks)
    }

    fn hunk(&mut self, path: &str, number: usize) -> Result<Hunk, PatchError> {
        let header_line = self.i + 1;
        let raw = self.raw(self.i);
        let bad_header = |reason: &str| PatchError::MalformedHunkHeader {
            path: path.to_owned(),
            hunk: number,
            line: header_line,
            reason: reason.to_owned(),
        };
        let ((old_start, old_count), (new_start, new_count)) =
            parse_ranges(raw).map_err(bad_header)?;
        if old_count > 0 && old_start == 0 {
            return Err(bad_header("old range starts at line 0 but is not empty"));
        }
        if old_count == 0 && new_count == 0 {
            // git apply calls this a corrupt patch: a hunk must hold at least one line.
            return Err(bad_header("the hunk is empty (0 old and 0 new lines)"));
        }
        self.i += 1;

        let mismatch = |line: usize, reason: &str| PatchError::HunkCountMismatch {
            path: path.to_owned(),
            hunk: number,
            header_line,
            line,
            reason: reason.to_owned(),
        };
        let (mut old_left, mut new_left) = (old_count, new_count);
        let mut lines: Vec<HunkLine> = Vec::new();
        while old_left > 0 || new_left > 0 {
            if self.i >= self.lines.len() {
                return Err(PatchError::Truncated {
                    path: path.to_owned(),
                    hunk: number,
                    header_line,
                    line: self.lines.len(),
                    old_missing: old_left,
                    new_missing: new_left,
                });
            }
            let raw = self.raw(self.i);
            let ln = self.i + 1;
            let content = || {
                let mut c = raw[1..].to_vec();
                if !c.ends_with(b"\n") {
                    // The patch text's own last line lost its newline; see the module docs.
                    c.push(b'\n');
                }
                c
            };
            match raw[0] {
                // A line starting with `\n` is exactly "\n": a blank context line.
                b' ' | b'\n' => {
                    if old_left == 0 || new_left == 0 {
                        return Err(mismatch(ln, "more context lines than the header counts"));
                    }
                    old_left -= 1;
                    new_left -= 1;
                    lines.push(HunkLine::Context(if raw[0] == b'\n' {
                        b"\n".to_vec()
                    } else {
                        content()
                    }));
                }
                b'-' => {
                    if old_left == 0 {
                        return Err(mismatch(ln, "more removed lines than the header counts"));
                    }
                    old_left -= 1;
                    lines.push(HunkLine::Remove(content()));
                }
                b'+' => {
                    if new_left == 0 {
                        return Err(mismatch(ln, "more added lines than the header counts"));
                    }
                    new_left -= 1;
                    lines.push(HunkLine::Add(content()));
                }
                b'\\' => no_newline(&mut lines).map_err(|r| mismatch(ln, r))?,
                _ => {
                    return Err(mismatch(
                        ln,
                        "the hunk ends before the line counts in its header are reached",
                    ));
                }
            }
            self.i += 1;
        }
        if self.i < self.lines.len() && self.raw(self.i).starts_with(b"\\") {
            no_newline(&mut lines).map_err(|r| mismatch(self.i + 1, r))?;
            self.i += 1;
        }
        if self.i < self.lines.len() {
            let next = self.raw(self.i);
            let is_signature = strip_eol(next) == b"-- " || strip_eol(next) == b"--";
            let more_body = matches!(next.first(), Some(b' ' | b'+' | b'-' | b'\\'));
            if more_body && !is_signature && !self.at_file_header() {
                return Err(mismatch(
                    self.i + 1,
                    "the hunk has more lines than the counts in its header",
                ));
            }
        }
        if lines.iter().all(|l| matches!(l, HunkLine::Context(_))) {
            // git apply calls this a corrupt patch too.
            return Err(bad_header(
                "the hunk changes nothing (it holds only context lines)",
            ));
        }
        Ok(Hunk {
            line: header_line,
            old_start,
            old_count,
            new_start,
            lines,
        })
    }
}

/// Applies a `\ No newline at end of file` marker to the line before it.
fn no_newline(lines: &mut [HunkLine]) -> Result<(), &'static str> {
    let Some(last) = lines.last_mut() else {
        return Err("`\\ No newline at end of file` marker without a line before it");
    };
    let c = last.content_mut();
    if c.pop() != Some(b'\n') {
        return Err("two `\\ No newline at end of file` markers for one line");
    }
    Ok(())
}

type Range = (u64, u64);

/// Parses `@@ -a[,b] +c[,d] @@...`.
fn parse_ranges(raw: &[u8]) -> Result<(Range, Range), &'static str> {
    fn number(s: &[u8], pos: &mut usize) -> Result<u64, &'static str> {
        let start = *pos;
        while *pos < s.len() && s[*pos].is_ascii_digit() {
            *pos += 1;
        }
        if *pos == start {
            return Err("expected a number");
        }
        let mut v: u64 = 0;
        for &d in &s[start..*pos] {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d - b'0')))
                .ok_or("line number or count too large")?;
        }
        Ok(v)
    }
    fn range(s: &[u8], pos: &mut usize) -> Result<Range, &'static str> {
        let start = number(s, pos)?;
        let count = if s.get(*pos) == Some(&b',') {
            *pos += 1;
            number(s, pos)?
        } else {
            1
        };
        Ok((start, count))
    }
    let s = raw;
    let mut pos = 0;
    if !s.starts_with(b"@@ -") {
        return Err("expected `@@ -`");
    }
    pos += 4;
    let old = range(s, &mut pos)?;
    if !s[pos..].starts_with(b" +") {
        return Err("expected ` +` after the old range");
    }
    pos += 2;
    let new = range(s, &mut pos)?;
    if !s[pos..].starts_with(b" @@") {
        return Err("expected ` @@` after the new range");
    }
    Ok((old, new))
}

/// The name used in errors for an entry (the new name for renames and copies).
pub(crate) fn op_name(op: &Op) -> String {
    match op {
        Op::Modify(p) | Op::Create(p) | Op::Delete(p) => p.clone(),
        Op::Rename { to, .. } | Op::Copy { to, .. } => to.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::names::unquote;
    use super::*;

    #[test]
    fn epoch_in_any_zone() {
        assert!(is_epoch("1970-01-01 00:00:00.000000000 +0000"));
        assert!(is_epoch("1969-12-31 19:00:00.000000000 -0500"));
        assert!(is_epoch("1970-01-01 01:00:00 +0100"));
        assert!(!is_epoch("2024-05-01 10:00:00.000000000 +0000"));
        assert!(!is_epoch("garbage"));
        assert!(!is_epoch(
            "9999999999999999999-01-01 9999999999999999999:00:00 +0000"
        ));
    }

    #[test]
    fn unquotes_git_names() {
        let (n, rest) = unquote(r#""a/sp\303\251cial \"q\".txt" tail"#, 1).unwrap();
        assert_eq!(n, "a/spécial \"q\".txt");
        assert_eq!(rest, " tail");
        assert!(matches!(
            unquote("\"a/\\377\"", 1),
            Err(PatchError::HeaderNotUtf8 { line: 1 })
        ));
        assert!(matches!(
            unquote("\"a/\\000\"", 1),
            Err(PatchError::HeaderNul { line: 1 })
        ));
        assert!(unquote("\"abc", 1).is_err());
    }

    #[test]
    fn diff_git_names_with_spaces() {
        assert_eq!(
            git_line_names("a/x y b/x y", 1).unwrap(),
            Some(("x y".into(), "x y".into()))
        );
        assert_eq!(git_line_names("a/x b/y", 1).unwrap(), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_ranges(b"@@ -1,2 +3 @@ x\n"), Ok(((1, 2), (3, 1))));
        assert_eq!(parse_ranges(b"@@ -5,0 +6,2 @@\n"), Ok(((5, 0), (6, 2))));
        assert!(parse_ranges(b"@@ -1,99999999999999999999999 +1 @@\n").is_err());
        assert!(parse_ranges(b"@@ -x +1 @@\n").is_err());
        assert!(parse_ranges(b"@@@ -1 +1 @@@\n").is_err());
    }
}
