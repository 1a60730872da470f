//! Three-way merge of one file (DESIGN section 4, `rebase`): base, the session's version
//! ("session", git's *ours*) and the workspace's version ("workspace", git's *theirs*).
//!
//! The line merge is git's (`git merge-file`): xdiff's Myers line diff of base→session and
//! base→workspace, ported with its tie-breaking, pre-pass and compaction (`xdiff.rs`,
//! `lines.rs`); changed base regions that overlap or touch are one region, as in git's
//! `xdl_merge`, where `i1 + chg1 >= i2` is a conflict; a region is clean when both sides made
//! the same change or one side left it as the base had it. Conflict markers are git's default
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

mod lines;
mod xdiff;

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
            0 if self.start == 0 => write!(f, "no lines, at the start"),
            0 => write!(f, "no lines, after line {}", self.start),
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
    /// The merged tree holds a file the workspace's rules now leave out (a `.gitignore` or
    /// `exclude` the workspace added matches a file the session added or changed): it could
    /// never be reproduced from disk.
    LeftOut,
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
            ConflictKind::LeftOut => "left-out",
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
            ConflictKind::LeftOut => {
                "the session's file is one the workspace's ignore rules now leave out"
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

/// Line-merges three texts as `git merge-file` does (`lines.rs`; see the module
/// documentation).
pub fn merge_text(base: &[u8], session: &[u8], workspace: &[u8]) -> TextMerge {
    let (b, s, w) = (lines(base), lines(session), lines(workspace));
    let regions = lines::regions(&b, &s, &w);
    let conflicted = regions.iter().any(|r| r.mode == 0);
    let mut out = Vec::with_capacity(session.len().max(workspace.len()));
    let mut hunks = Vec::new();
    let mut cur: isize = 0;
    let push_all =
        |out: &mut Vec<u8>, ls: &[&[u8]]| ls.iter().for_each(|l| out.extend_from_slice(l));
    // A side's lines between markers end with a newline (git adds one after an incomplete
    // last line).
    let push_side = |out: &mut Vec<u8>, ls: &[&[u8]]| {
        push_all(out, ls);
        if !ls.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
    };
    let range = |a: isize, n: isize| {
        let (a, n) = (a.max(0) as usize, n.max(0) as usize);
        LineRange {
            start: if n > 0 { a + 1 } else { a },
            count: n,
        }
    };
    let of = lines::Region::of;
    for r in &regions {
        if r.mode == 4 {
            continue;
        }
        push_all(&mut out, of(&s, cur, r.i1 - cur));
        match r.mode {
            1 => push_all(&mut out, of(&s, r.i1, r.chg1)),
            2 => push_all(&mut out, of(&w, r.i2, r.chg2)),
            _ => {
                out.extend_from_slice(b"<<<<<<< session\n");
                push_side(&mut out, of(&s, r.i1, r.chg1));
                out.extend_from_slice(b"=======\n");
                push_side(&mut out, of(&w, r.i2, r.chg2));
                out.extend_from_slice(b">>>>>>> workspace\n");
                hunks.push(Hunk {
                    base: range(r.i0, r.chg0),
                    session: range(r.i1, r.chg1),
                    workspace: range(r.i2, r.chg2),
                });
            }
        }
        cur = r.i1 + r.chg1;
    }
    push_all(&mut out, of(&s, cur, s.len() as isize - cur));
    if conflicted {
        TextMerge::Conflict { hunks, marked: out }
    } else {
        TextMerge::Clean(out)
    }
}

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
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
    fn both_appending_at_the_end_conflicts_as_in_git() {
        // git merge-file: a conflict (`}` against `a`); diffy's alignment called it clean.
        let TextMerge::Conflict { hunks, marked } =
            merge_text(b"a\nc\na\n", b"a\nc\na\n}\n", b"c\na\na\n")
        else {
            panic!("expected a conflict")
        };
        assert_eq!(
            marked,
            b"c\na\n<<<<<<< session\n}\n=======\na\n>>>>>>> workspace\n".to_vec()
        );
        assert_eq!(hunks.len(), 1);
        // Different lines appended on both sides, without final newlines: a conflict.
        assert!(matches!(
            merge_text(b"x\n", b"x\ny", b"x\nz"),
            TextMerge::Conflict { .. }
        ));
        // The same lines appended: clean.
        assert_eq!(
            merge_text(b"x\n", b"x\ny\n", b"x\ny\n"),
            TextMerge::Clean(b"x\ny\n".to_vec())
        );
    }

    #[test]
    fn an_insertion_aligned_as_git_aligns_it_merges_cleanly() {
        // git's diff matches `d` with the later `d` and deletes `d }  e`: the insertion
        // before `c` touches nothing (diffy's alignment made it touch: a conflict).
        assert_eq!(
            merge_text(
                b"e\n\na\nb\nd\nd\n}\ne\n}\nc\n\n",
                b"e\n\na\nb\nd\nd\n}\ne\n}\nnew3\nc\n\n",
                b"e\n\na\nb\nd1\nd\n}\nc\n"
            ),
            TextMerge::Clean(b"e\n\na\nb\nd1\nd\n}\nnew3\nc\n".to_vec())
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
