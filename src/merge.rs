//! Three-way merge of one file (DESIGN section 4, `rebase`): base, the session's version
//! ("session", git's *ours*) and the workspace's version ("workspace", git's *theirs*).
//!
//! The line merge is [`diffy::MergeOptions::merge_bytes`] (Myers line diff of base→session and
//! base→workspace; changed base regions that overlap or touch are one region, as in git's
//! `xdl_merge`, where `i1 + chg1 >= i2` is a conflict; a region is clean when both sides made
//! the same change or one side left it as the base had it). Conflict markers are git's default
//! (`merge`) style: `<<<<<<< session`, `=======`, `>>>>>>> workspace`, each on a line of its
//! own (after an incomplete last line a newline is added, as `git merge-file` does). Where this
//! differs from `git merge-file` is measured in `tests/merge_vs_git.rs` and written down in
//! DESIGN section 4.
//!
//! Whole files: a path both sides changed the same way takes that change; a path one side left
//! as the base had it takes the other side (an addition, a deletion, a new executable bit);
//! otherwise a deletion against a change, a binary file (git's rule: a NUL byte in the first
//! 8000 bytes of any of the three), or an addition on both sides with the same bytes but
//! different executable bits is a whole-file conflict without hunks. Both sides adding
//! different text is merged against an empty base (git's add/add).

use diffy::{ConflictStyle, IncompleteHunkStyle, MergeOptions};

/// One side of a path: its bytes and executable bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side<'a> {
    /// The file's bytes.
    pub data: &'a [u8],
    /// Its executable bit.
    pub executable: bool,
}

/// A range of lines of one version of a file. `start` is 1-based; when `count` is 0 the range
/// is the empty place just after line `start` (0: before the first line), as in a unified
/// diff's `@@ -start,0` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineRange {
    /// First line (1-based), or the line after which the empty range lies.
    pub start: usize,
    /// Number of lines.
    pub count: usize,
}

impl std::fmt::Display for LineRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.count {
            0 => write!(f, "none (after line {})", self.start),
            1 => write!(f, "line {}", self.start),
            n => write!(f, "lines {}-{}", self.start, self.start + n - 1),
        }
    }
}

/// One overlapping edit: the lines of each version the conflicting region covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Hunk {
    /// The region in the base.
    pub base: LineRange,
    /// The region in the session's version.
    pub session: LineRange,
    /// The region in the workspace's version.
    pub workspace: LineRange,
}

/// Why a path does not merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConflictKind {
    /// Both sides changed overlapping or touching lines (hunks listed).
    Content,
    /// Both sides added the path with different text (hunks listed, against an empty base).
    AddAdd,
    /// The session changed the file, the workspace deleted it.
    ModifyDelete,
    /// The session deleted the file, the workspace changed it.
    DeleteModify,
    /// Both sides changed a binary file differently (or added different binary files).
    Binary,
    /// Both sides added the same bytes with different executable bits.
    Mode,
    /// The merge would leave a file at this path and files below it (one side made it a
    /// file, the other a directory): a whole-tree conflict, as git's file/directory conflict.
    FileDirectory,
}

impl ConflictKind {
    /// The name used in `--json` (`"content"`, `"add-add"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictKind::Content => "content",
            ConflictKind::AddAdd => "add-add",
            ConflictKind::ModifyDelete => "modify-delete",
            ConflictKind::DeleteModify => "delete-modify",
            ConflictKind::Binary => "binary",
            ConflictKind::Mode => "mode",
            ConflictKind::FileDirectory => "file-directory",
        }
    }

    /// Whether conflict markers can express it (a line conflict), so `--markers` can record it.
    pub fn has_markers(self) -> bool {
        matches!(self, ConflictKind::Content | ConflictKind::AddAdd)
    }
}

impl std::fmt::Display for ConflictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ConflictKind::Content => "both changed the same lines",
            ConflictKind::AddAdd => "both added it with different content",
            ConflictKind::ModifyDelete => "the session changed it, the workspace deleted it",
            ConflictKind::DeleteModify => "the session deleted it, the workspace changed it",
            ConflictKind::Binary => "binary file changed on both sides",
            ConflictKind::Mode => "both added it with different executable bits",
            ConflictKind::FileDirectory => {
                "a file on one side, a directory holding files on the other"
            }
        })
    }
}

/// A file's merged state: its bytes and executable bit, or `None` when deleted.
pub type FileState = Option<(Vec<u8>, bool)>;

/// The result of merging one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// The merged state.
    Clean(FileState),
    /// The sides cannot be merged.
    Conflict {
        /// Why.
        kind: ConflictKind,
        /// The overlapping regions (line conflicts only; in file order).
        hunks: Vec<Hunk>,
        /// The file with conflict markers and its executable bit (line conflicts only).
        marked: Option<(Vec<u8>, bool)>,
    },
}

/// Result of a line merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextMerge {
    /// Merged without conflict: the bytes.
    Clean(Vec<u8>),
    /// Overlapping edits.
    Conflict {
        /// The regions, in file order.
        hunks: Vec<Hunk>,
        /// The merged text with `<<<<<<< session` / `=======` / `>>>>>>> workspace` markers.
        marked: Vec<u8>,
    },
}

/// git's binary rule (`buffer_is_binary`): a NUL byte in the first 8000 bytes.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// Merges one path. `None` on a side: the path is absent there. Never fails; see the module
/// documentation for the rules.
pub fn merge_file(base: Option<Side>, session: Option<Side>, workspace: Option<Side>) -> Merged {
    let own = |s: Option<Side>| s.map(|s| (s.data.to_vec(), s.executable));
    if session == workspace {
        return Merged::Clean(own(session));
    }
    if session == base {
        return Merged::Clean(own(workspace));
    }
    if workspace == base {
        return Merged::Clean(own(session));
    }
    let whole = |kind| Merged::Conflict {
        kind,
        hunks: Vec::new(),
        marked: None,
    };
    let (s, w) = match (session, workspace) {
        (Some(s), Some(w)) => (s, w),
        (Some(_), None) => return whole(ConflictKind::ModifyDelete),
        (None, Some(_)) => return whole(ConflictKind::DeleteModify),
        (None, None) => unreachable!("equal sides returned above"),
    };
    let executable = match base {
        _ if s.executable == w.executable => s.executable,
        Some(b) if s.executable == b.executable => w.executable,
        Some(_) => s.executable,
        None if s.data == w.data => return whole(ConflictKind::Mode),
        // Both added, with different content and bits: the content conflict is reported.
        None => s.executable,
    };
    let base_data: &[u8] = base.map_or(&[], |b| b.data);
    let data = if s.data == w.data {
        s.data.to_vec()
    } else if s.data == base_data {
        w.data.to_vec()
    } else if w.data == base_data {
        s.data.to_vec()
    } else if is_binary(base_data) || is_binary(s.data) || is_binary(w.data) {
        return whole(ConflictKind::Binary);
    } else {
        match merge_text(base_data, s.data, w.data) {
            TextMerge::Clean(d) => d,
            TextMerge::Conflict { hunks, marked } => {
                return Merged::Conflict {
                    kind: if base.is_some() {
                        ConflictKind::Content
                    } else {
                        ConflictKind::AddAdd
                    },
                    hunks,
                    marked: Some((marked, executable)),
                };
            }
        }
    };
    Merged::Clean(Some((data, executable)))
}

/// Line-merges three texts with [`diffy`] (see the module documentation).
pub fn merge_text(base: &[u8], session: &[u8], workspace: &[u8]) -> TextMerge {
    // Markers longer than any run of marker characters that starts a line of the inputs, so
    // the library's marker lines can be told from content and relabelled exactly.
    let longest = [base, session, workspace]
        .iter()
        .flat_map(|t| t.split(|&b| b == b'\n'))
        .map(|line| {
            let first = line.first().copied().unwrap_or(0);
            if matches!(first, b'<' | b'=' | b'>') {
                line.iter().take_while(|&&b| b == first).count()
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    let len = longest.max(7) + 1;
    let mut opts = MergeOptions::new();
    opts.set_conflict_style(ConflictStyle::Merge)
        .set_incomplete_hunk_style(IncompleteHunkStyle::Git)
        .set_conflict_marker_length(len);
    match opts.merge_bytes(base, session, workspace) {
        Ok(clean) => TextMerge::Clean(clean),
        Err(marked) => {
            let open = [vec![b'<'; len], b" ours\n".to_vec()].concat();
            let mid = [vec![b'='; len], b"\n".to_vec()].concat();
            let close = [vec![b'>'; len], b" theirs\n".to_vec()].concat();
            let mut out = Vec::with_capacity(marked.len());
            for line in marked.split_inclusive(|&b| b == b'\n') {
                if line == open.as_slice() {
                    out.extend_from_slice(b"<<<<<<< session\n");
                } else if line == mid.as_slice() {
                    out.extend_from_slice(b"=======\n");
                } else if line == close.as_slice() {
                    out.extend_from_slice(b">>>>>>> workspace\n");
                } else {
                    out.extend_from_slice(line);
                }
            }
            TextMerge::Conflict {
                hunks: conflict_hunks(base, session, workspace),
                marked: out,
            }
        }
    }
}

/// One change of a line diff, 0-based half-open line ranges in the old and the new text.
#[derive(Debug, Clone, Copy)]
struct Edit {
    old: (usize, usize),
    new: (usize, usize),
}

/// The changes base → `text`, from diffy's diff with no context (the same diff its merge uses).
fn edits(base: &[u8], text: &[u8]) -> Vec<Edit> {
    let patch = diffy::DiffOptions::new()
        .set_context_len(0)
        .create_patch_bytes(base, text);
    let zero_based = |r: diffy::HunkRange| {
        let start = if r.is_empty() {
            r.start()
        } else {
            r.start() - 1
        };
        (start, start + r.len())
    };
    patch
        .hunks()
        .iter()
        .map(|h| Edit {
            old: zero_based(h.old_range()),
            new: zero_based(h.new_range()),
        })
        .collect()
}

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// The conflicting regions of a line merge: the two sides' changes are grouped where their
/// base ranges overlap or touch (as in diffy's merge and git's `xdl_merge`); a group is a
/// conflict unless both sides give the same lines or one side gives the base's lines.
fn conflict_hunks(base: &[u8], session: &[u8], workspace: &[u8]) -> Vec<Hunk> {
    let (b, s, w) = (lines(base), lines(session), lines(workspace));
    let (es, ew) = (edits(base, session), edits(base, workspace));
    let mut all: Vec<(usize, usize, bool)> = es
        .iter()
        .map(|e| (e.old.0, e.old.1, true))
        .chain(ew.iter().map(|e| (e.old.0, e.old.1, false)))
        .collect();
    all.sort_by_key(|&(start, end, _)| (start, end));
    // Groups of base ranges.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for (start, end, _) in all {
        match groups.last_mut() {
            Some(g) if start <= g.1 => g.1 = g.1.max(end),
            _ => groups.push((start, end)),
        }
    }
    // A base range mapped onto a side through that side's edits.
    // (Every edit of a group starts inside it; earlier groups end before it starts.)
    let map = |edits: &[Edit], (gs, ge): (usize, usize)| {
        let delta = |e: &Edit| (e.new.1 - e.new.0) as isize - (e.old.1 - e.old.0) as isize;
        let before: isize = edits.iter().filter(|e| e.old.0 < gs).map(delta).sum();
        let inside: isize = edits
            .iter()
            .filter(|e| (gs..=ge).contains(&e.old.0))
            .map(delta)
            .sum();
        (
            (gs as isize + before) as usize,
            (ge as isize + before + inside) as usize,
        )
    };
    let range = |(a, z): (usize, usize)| LineRange {
        start: if z > a { a + 1 } else { a },
        count: z - a,
    };
    let mut out = Vec::new();
    for g in groups {
        let (ss, se) = map(&es, g);
        let (ws, we) = map(&ew, g);
        let (bs, bw, sw) = (&b[g.0..g.1], &s[ss..se], &w[ws..we]);
        if sw == bw || bs == sw || bs == bw {
            continue;
        }
        out.push(Hunk {
            base: range(g),
            session: range((ss, se)),
            workspace: range((ws, we)),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(data: &[u8]) -> Option<Side<'_>> {
        Some(Side {
            data,
            executable: false,
        })
    }

    #[test]
    fn separate_edits_merge() {
        assert_eq!(
            merge_text(b"a\nb\nc\nd\n", b"A\nb\nc\nd\n", b"a\nb\nc\nD\n"),
            TextMerge::Clean(b"A\nb\nc\nD\n".to_vec())
        );
    }

    #[test]
    fn overlapping_edits_conflict_with_hunks_and_markers() {
        let TextMerge::Conflict { hunks, marked } =
            merge_text(b"a\nb\nc\n", b"a\nB\nc\n", b"a\nX\nY\nc\n")
        else {
            panic!("expected a conflict")
        };
        assert_eq!(
            hunks,
            vec![Hunk {
                base: LineRange { start: 2, count: 1 },
                session: LineRange { start: 2, count: 1 },
                workspace: LineRange { start: 2, count: 2 },
            }]
        );
        assert_eq!(
            marked,
            b"a\n<<<<<<< session\nB\n=======\nX\nY\n>>>>>>> workspace\nc\n".to_vec()
        );
    }

    #[test]
    fn content_that_looks_like_markers_is_kept() {
        let TextMerge::Conflict { marked, .. } = merge_text(
            b"<<<<<<< ours\nx\n",
            b"<<<<<<< ours\ns\n",
            b"<<<<<<< ours\nw\n",
        ) else {
            panic!("expected a conflict")
        };
        assert_eq!(
            marked,
            b"<<<<<<< ours\n<<<<<<< session\ns\n=======\nw\n>>>>>>> workspace\n".to_vec()
        );
    }

    #[test]
    fn whole_file_cases() {
        assert_eq!(
            merge_file(side(b"a\n"), None, side(b"b\n")),
            Merged::Conflict {
                kind: ConflictKind::DeleteModify,
                hunks: vec![],
                marked: None
            }
        );
        assert_eq!(
            merge_file(side(b"a\n"), side(b"a\n"), None),
            Merged::Clean(None)
        );
        assert_eq!(
            merge_file(side(b"\0a"), side(b"\0b"), side(b"\0c")),
            Merged::Conflict {
                kind: ConflictKind::Binary,
                hunks: vec![],
                marked: None
            }
        );
        let x = |e| {
            Some(Side {
                data: b"x\n",
                executable: e,
            })
        };
        assert_eq!(
            merge_file(None, x(true), x(false)),
            Merged::Conflict {
                kind: ConflictKind::Mode,
                hunks: vec![],
                marked: None
            }
        );
        // One side sets the bit, the other edits the text: both are kept.
        assert_eq!(
            merge_file(
                x(false),
                x(true),
                Some(Side {
                    data: b"y\n",
                    executable: false
                })
            ),
            Merged::Clean(Some((b"y\n".to_vec(), true)))
        );
    }
}
