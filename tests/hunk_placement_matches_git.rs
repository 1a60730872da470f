//! Differential test of hunk placement against the real `git apply` (issue 9, item 9).
//!
//! Diffs are made from real source text (this crate's own `src/**/*.rs`, read at test time) with
//! seeded random edits, then applied to *stale* versions of the file: lines added at the top or
//! the end, a region duplicated, lines inserted or removed elsewhere, a line re-indented, CRLF
//! line endings, or the exact file. A quarter of the cases have a shape where git's anchors
//! decide ([`anchored`]): a change appended at the end of the file (no trailing context) applied
//! to a file that gained lines at the top (often a copy of the hunk's own context, so the context
//! occurs twice) or at the end, and a change at the top (old range at line 1) applied to a file
//! that gained lines at the end or the top. Each case goes through `genesis::patch::apply_patch`
//! in-process and through `git apply` on disk. Whenever git refuses, Genesis must refuse;
//! whenever both accept, the bytes must be equal. Genesis may refuse where git accepts; the
//! anchored cases must never be among those refusals (an anchored hunk has one legal place).

mod common;

use std::collections::BTreeMap;

use common::git_apply::{Agreement, Files, compare};
use common::rng::Rng;
use genesis::patch::{FileChange, PatchRules, apply_patch};
use genesis::patch::{PatchError, PreImage, ReadError};
use genesis::path::WorkspacePath;

/// Number of generated cases.
const CASES: usize = 512;
/// The fixed seed.
const SEED: u64 = 0x6765_6e65_7369_7339;

/// xorshift64*: a small deterministic generator, so the cases are the same on every run.
struct One<'a>(&'a Files);

impl PreImage for One<'_> {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.contains_key(path.as_str())
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError> {
        self.0
            .get(path.as_str())
            .map(|(d, _)| d.clone())
            .ok_or(ReadError::NotInTree)
    }
    fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.0.get(path.as_str()).is_some_and(|(_, x)| *x)
    }
    fn paths(&self) -> Vec<WorkspacePath> {
        self.0
            .keys()
            .map(|p| WorkspacePath::new(p).unwrap())
            .collect()
    }
}

/// The crate's own Rust sources, sorted by path, each split into lines (with their `\n`).
fn sources() -> Vec<Vec<Vec<u8>>> {
    let mut paths = Vec::new();
    let mut stack = vec![common::repo_root().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read(p).unwrap();
            text.split_inclusive(|&b| b == b'\n')
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
        })
        .filter(|lines| lines.len() >= 40)
        .collect()
}

/// A position biased towards the two ends of `len` lines (where anchoring matters).
fn place(rng: &mut Rng, len: usize) -> usize {
    match rng.below(10) {
        0..=2 => rng.below(3.min(len + 1)),
        3..=5 => len - rng.below(3.min(len + 1)),
        _ => rng.below(len + 1),
    }
}

/// The edited version: one or two edits (insert, delete, replace) of real lines.
fn edit(rng: &mut Rng, old: &[Vec<u8>], pool: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut new = old.to_vec();
    for _ in 0..1 + rng.below(2) {
        let at = place(rng, new.len());
        let n = 1 + rng.below(3);
        let fresh: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                if rng.chance(50) {
                    pool[rng.below(pool.len())].clone()
                } else {
                    format!("// edit {} {i}\n", rng.next() % 1000).into_bytes()
                }
            })
            .collect();
        match rng.below(3) {
            0 => {
                new.splice(at..at, fresh);
            }
            1 if at < new.len() => {
                let end = (at + n).min(new.len());
                new.drain(at..end);
            }
            _ if at < new.len() => {
                let end = (at + 1).min(new.len());
                new.splice(at..end, fresh);
            }
            _ => {
                new.splice(at..at, fresh);
            }
        }
    }
    new
}

/// The stale file the diff is applied to, and what was done to it.
fn stale(rng: &mut Rng, old: &[Vec<u8>], pool: &[Vec<u8>]) -> (Vec<Vec<u8>>, &'static str) {
    let mut s = old.to_vec();
    let block = |rng: &mut Rng| -> Vec<Vec<u8>> {
        let start = rng.below(pool.len());
        let n = 1 + rng.below(6);
        pool[start..(start + n).min(pool.len())].to_vec()
    };
    let kind = match rng.below(9) {
        0 => {
            let b = block(rng);
            s.splice(0..0, b);
            "lines added at the top"
        }
        1 => {
            let b = block(rng);
            s.extend(b);
            "lines added at the end"
        }
        2 | 3 => {
            // A region of the file itself, duplicated elsewhere (so context occurs twice).
            let from = rng.below(s.len());
            let n = 1 + rng.below(8);
            let region: Vec<Vec<u8>> = s[from..(from + n).min(s.len())].to_vec();
            let at = place(rng, s.len());
            s.splice(at..at, region);
            "a region duplicated"
        }
        4 => {
            let b = block(rng);
            let at = rng.below(s.len() + 1);
            s.splice(at..at, b);
            "lines inserted (an offset)"
        }
        5 => {
            let at = rng.below(s.len());
            let n = 1 + rng.below(3);
            let end = (at + n).min(s.len());
            s.drain(at..end);
            "lines removed"
        }
        6 => {
            let at = place(rng, s.len().saturating_sub(1));
            if let Some(l) = s.get_mut(at) {
                l.splice(0..0, b"  ".iter().copied());
            }
            "a line re-indented"
        }
        7 => {
            for l in &mut s {
                if l.ends_with(b"\n") {
                    l.pop();
                    l.extend_from_slice(b"\r\n");
                }
            }
            "CRLF line endings"
        }
        _ => "the exact file",
    };
    (s, kind)
}

/// A case where git's anchors decide: the edited version and the stale file, with what was done.
///
/// - "appended at the end": 1-3 lines appended (the hunk has no trailing context, so it belongs
///   at the end); the stale file gained lines at the top (a copy of the file's last lines, so
///   the hunk's context also occurs there, or other lines), or lines at the end (git refuses).
/// - "changed at the top": the first line replaced or lines inserted before it (the old range
///   starts at line 1, so the hunk belongs at the start); the stale file gained lines at the end
///   (a copy of its first lines, or other lines), or lines at the top (git refuses).
fn anchored(
    rng: &mut Rng,
    old: &[Vec<u8>],
    pool: &[Vec<u8>],
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, &'static str) {
    let fresh = |rng: &mut Rng| -> Vec<Vec<u8>> {
        (0..1 + rng.below(3))
            .map(|i| format!("// anchored {} {i}\n", rng.next() % 1000).into_bytes())
            .collect()
    };
    let block = |rng: &mut Rng| -> Vec<Vec<u8>> {
        let start = rng.below(pool.len());
        let n = 1 + rng.below(6);
        pool[start..(start + n).min(pool.len())].to_vec()
    };
    let mut new = old.to_vec();
    let mut s = old.to_vec();
    let n = 1 + rng.below(4);
    if rng.chance(50) {
        new.extend(fresh(rng));
        let kind = match rng.below(4) {
            0 | 1 => {
                let tail = old[old.len() - n.min(old.len())..].to_vec();
                s.splice(0..0, tail);
                "appended at the end; its context copied to the top"
            }
            2 => {
                let b = block(rng);
                s.splice(0..0, b);
                "appended at the end; lines added at the top"
            }
            _ => {
                let b = block(rng);
                s.extend(b);
                "appended at the end; lines added at the end"
            }
        };
        (new, s, kind)
    } else {
        let f = fresh(rng);
        if rng.chance(50) {
            new.splice(0..1, f);
        } else {
            new.splice(0..0, f);
        }
        let kind = match rng.below(4) {
            0 | 1 => {
                let head = old[..n.min(old.len())].to_vec();
                s.extend(head);
                "changed at the top; its context copied to the end"
            }
            2 => {
                let b = block(rng);
                s.extend(b);
                "changed at the top; lines added at the end"
            }
            _ => {
                let b = block(rng);
                s.splice(0..0, b);
                "changed at the top; lines added at the top"
            }
        };
        (new, s, kind)
    }
}

/// A git-style diff of `old` → `new` for the file `f`, with git's 3 lines of context.
fn diff(old: &[u8], new: &[u8]) -> Vec<u8> {
    let mut out = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n".to_vec();
    for h in genesis::diff::unified_hunks(old, new, 3) {
        let range = |start: usize, len: usize| {
            if len == 1 {
                format!("{start}")
            } else {
                format!("{start},{len}")
            }
        };
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@\n",
                range(h.old_start, h.old_len),
                range(h.new_start, h.new_len)
            )
            .as_bytes(),
        );
        for (sign, text) in &h.lines {
            out.push(*sign);
            out.extend_from_slice(text);
            if !text.ends_with(b"\n") {
                out.extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[test]
fn genesis_never_accepts_what_git_refuses_and_agrees_on_bytes() {
    let started = std::time::Instant::now();
    let files = sources();
    assert!(files.len() >= 10, "too few source files: {}", files.len());
    let pool: Vec<Vec<u8>> = files.iter().flatten().cloned().collect();
    let mut rng = Rng(SEED);
    let mut tally: BTreeMap<&'static str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut defects = Vec::new();
    let mut refusals: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut anchored_refusals = Vec::new();
    for case in 0..CASES {
        let src = &files[rng.below(files.len())];
        // A window of the file, so that its ends are near the edits now and then.
        let len = (30 + rng.below(120)).min(src.len());
        let from = rng.below(src.len() - len + 1);
        let old: Vec<Vec<u8>> = src[from..from + len].to_vec();
        let is_anchored = rng.below(4) == 0;
        let (new, base, kind) = if is_anchored {
            anchored(&mut rng, &old, &pool)
        } else {
            let new = edit(&mut rng, &old, &pool);
            let (base, kind) = stale(&mut rng, &old, &pool);
            (new, base, kind)
        };
        if new == old {
            continue;
        }
        let patch = diff(&old.concat(), &new.concat());
        let tree: Files = [("f".to_owned(), (base.concat(), false))].into();
        let ours = apply_patch(&patch, &One(&tree), &PatchRules::default());
        let ours_files = match &ours {
            Ok(o) => {
                let mut t = tree.clone();
                for (p, c) in &o.changes {
                    match c {
                        FileChange::Write { data, executable } => {
                            t.insert(p.to_string(), (data.clone(), *executable));
                        }
                        FileChange::Delete => {
                            t.remove(p.as_str());
                        }
                    }
                }
                Ok(t)
            }
            Err(e) => {
                let name = match e {
                    PatchError::HunkNotFound { .. } => "not found",
                    PatchError::HunkNotAnchored { .. } => "not at its anchor",
                    PatchError::HunkAmbiguous { .. } => "ambiguous",
                    PatchError::HunkOutOfOrder { .. } => "out of order",
                    PatchError::HunkLineEndings { .. } => "line endings only",
                    PatchError::HunkWhitespace { .. } => "whitespace only",
                    _ => "other",
                };
                *refusals.entry(name).or_default() += 1;
                Err(e.to_string())
            }
        };
        let verdict = compare(&tree, &patch, &ours_files);
        let label = match &verdict {
            Agreement::BothAccept => "both accept",
            Agreement::BothRefuse => "both refuse",
            Agreement::OnlyGitAccepts => "only git accepts",
            Agreement::OnlyGenesisAccepts(_) => "DEFECT: only Genesis accepts",
            Agreement::Different(_) => "DEFECT: different bytes",
        };
        *tally.entry(kind).or_default().entry(label).or_default() += 1;
        if is_anchored && matches!(verdict, Agreement::OnlyGitAccepts) {
            anchored_refusals.push(format!(
                "case {case} ({kind}): {ours_files:?}\n{}",
                String::from_utf8_lossy(&patch)
            ));
        }
        if verdict.is_defect() {
            defects.push(format!(
                "case {case} ({kind}): {verdict:?}\n{}",
                String::from_utf8_lossy(&patch)
            ));
        }
    }
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for (kind, t) in &tally {
        eprintln!("{kind}: {t:?}");
        for (label, n) in t {
            *totals.entry(label).or_default() += n;
        }
    }
    eprintln!("all: {totals:?}");
    eprintln!("Genesis's refusals: {refusals:?}");
    eprintln!(
        "{} cases in {:?}",
        totals.values().sum::<usize>(),
        started.elapsed()
    );
    assert!(
        defects.is_empty(),
        "{} defects:\n{}",
        defects.len(),
        defects.join("\n")
    );
    assert!(
        anchored_refusals.is_empty(),
        "{} anchored hunks refused where git accepts:\n{}",
        anchored_refusals.len(),
        anchored_refusals.join("\n")
    );
    for shape in ["appended at the end", "changed at the top"] {
        let accepted: usize = tally
            .iter()
            .filter(|(k, _)| k.starts_with(shape))
            .filter_map(|(_, t)| t.get("both accept"))
            .sum();
        let refused: usize = tally
            .iter()
            .filter(|(k, _)| k.starts_with(shape))
            .filter_map(|(_, t)| t.get("both refuse"))
            .sum();
        assert!(accepted >= 20 && refused >= 5, "{shape}: {tally:?}");
    }
    // The cases exercise every outcome the rule allows, so the check cannot pass vacuously.
    assert!(
        totals.get("both accept").copied().unwrap_or(0) >= 150,
        "{totals:?}"
    );
    assert!(
        totals.get("both refuse").copied().unwrap_or(0) >= 50,
        "{totals:?}"
    );
    assert!(
        totals.values().sum::<usize>() >= CASES * 9 / 10,
        "{totals:?}"
    );
}
