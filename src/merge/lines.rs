//! git's line merge, as `git merge-file` does it (xdiff's `xdl_merge` at its default level,
//! `XDL_MERGE_ZEALOUS_ALNUM`), over git's own line diffs ([`super::xdiff`]) compacted as
//! xdiff compacts them (`xdl_change_compact` without the indent heuristic, which `merge-file`
//! does not use):
//!
//! 1. each diff (base → session, base → workspace) is a pair of changed-line marks; every group
//!    of changed lines is slid up as far as it goes, then down as far as it goes (merging with
//!    groups it meets), then back up to the last place it lined up with a change of the other
//!    file, if any: so a change next to lines equal to its own ends at git's one place;
//! 2. the two change lists are walked in base order: a change that ends before the other
//!    side's starts is taken; changes that overlap *or touch* form a conflict unless both are
//!    the same change; each region is appended to the last one when they overlap or touch in
//!    the session's or the workspace's lines (`xdl_append_merge`), a merged region of two modes
//!    being a conflict;
//! 3. a conflict whose two sides hold the same lines is resolved (`xdl_refine_conflicts`).
//!
//! Conflict regions are not refined further (git shrinks each to the lines that differ and
//! joins neighbours separated by lines without letters or digits): that changes markers only,
//! never whether a merge is clean.

/// The changed-line marks of one file of a diff (xdiff's `rchg`), with a `false` sentinel
/// before the first line and after the last.
struct Marks(Vec<bool>);

impl Marks {
    fn new(n: usize) -> Marks {
        Marks(vec![false; n + 2])
    }
    fn n(&self) -> isize {
        self.0.len() as isize - 2
    }
    fn at(&self, i: isize) -> bool {
        self.0[(i + 1) as usize]
    }
    fn set(&mut self, i: isize, v: bool) {
        self.0[(i + 1) as usize] = v;
    }
}

/// A run of changed lines `start..end` (empty between two unchanged lines).
#[derive(Clone, Copy)]
struct Group {
    start: isize,
    end: isize,
}

fn group_init(m: &Marks) -> Group {
    let mut g = Group { start: 0, end: 0 };
    while m.at(g.end) {
        g.end += 1;
    }
    g
}

fn group_next(m: &Marks, g: &mut Group) -> bool {
    if g.end == m.n() {
        return false;
    }
    g.start = g.end + 1;
    g.end = g.start;
    while m.at(g.end) {
        g.end += 1;
    }
    true
}

fn group_previous(m: &Marks, g: &mut Group) -> bool {
    if g.start == 0 {
        return false;
    }
    g.end = g.start - 1;
    g.start = g.end;
    while m.at(g.start - 1) {
        g.start -= 1;
    }
    true
}

fn slide_down(m: &mut Marks, recs: &[&[u8]], g: &mut Group) -> bool {
    if g.end < m.n() && recs[g.start as usize] == recs[g.end as usize] {
        m.set(g.start, false);
        g.start += 1;
        m.set(g.end, true);
        g.end += 1;
        while m.at(g.end) {
            g.end += 1;
        }
        return true;
    }
    false
}

fn slide_up(m: &mut Marks, recs: &[&[u8]], g: &mut Group) -> bool {
    if g.start > 0 && recs[(g.start - 1) as usize] == recs[(g.end - 1) as usize] {
        g.start -= 1;
        m.set(g.start, true);
        g.end -= 1;
        m.set(g.end, false);
        while m.at(g.start - 1) {
            g.start -= 1;
        }
        return true;
    }
    false
}

/// xdiff's `xdl_change_compact` (no indent heuristic) of the marks `x` of the lines `recs`,
/// `o` being the other file's marks. Stops, leaving what it did, if the two lose step (they
/// never do for marks made from one diff).
fn compact(x: &mut Marks, recs: &[&[u8]], o: &Marks) {
    let (mut g, mut go) = (group_init(x), group_init(o));
    loop {
        if g.end != g.start {
            let (mut earliest_end, mut end_matching_other);
            loop {
                let size = g.end - g.start;
                end_matching_other = -1;
                while slide_up(x, recs, &mut g) {
                    if !group_previous(o, &mut go) {
                        return;
                    }
                }
                earliest_end = g.end;
                if go.end > go.start {
                    end_matching_other = g.end;
                }
                while slide_down(x, recs, &mut g) {
                    if !group_next(o, &mut go) {
                        return;
                    }
                    if go.end > go.start {
                        end_matching_other = g.end;
                    }
                }
                if size == g.end - g.start {
                    break;
                }
            }
            if g.end != earliest_end && end_matching_other != -1 {
                while go.end == go.start {
                    if !slide_up(x, recs, &mut g) || !group_previous(o, &mut go) {
                        return;
                    }
                }
            }
        }
        if !group_next(x, &mut g) || !group_next(o, &mut go) {
            return;
        }
    }
}

/// One change of a diff: base lines `i1..i1 + chg1` became side lines `i2..i2 + chg2`.
#[derive(Debug, Clone, Copy)]
struct Change {
    i1: usize,
    chg1: usize,
    i2: usize,
    chg2: usize,
}

/// The changes base → side: git's diff ([`super::xdiff`]), compacted on both files as
/// xdiff does.
fn script(base: &[&[u8]], side: &[&[u8]]) -> Vec<Change> {
    let (mut mb, mut ms) = (Marks::new(base.len()), Marks::new(side.len()));
    let (cb, cs) = super::xdiff::diff(base, side);
    for (i, &c) in cb.iter().enumerate() {
        mb.set(i as isize, c);
    }
    for (i, &c) in cs.iter().enumerate() {
        ms.set(i as isize, c);
    }
    compact(&mut mb, base, &ms);
    compact(&mut ms, side, &mb);
    let (mut i, mut j, mut out) = (0isize, 0isize, Vec::new());
    while i < mb.n() || j < ms.n() {
        if mb.at(i) || ms.at(j) {
            let (i0, j0) = (i, j);
            while i < mb.n() && mb.at(i) {
                i += 1;
            }
            while j < ms.n() && ms.at(j) {
                j += 1;
            }
            out.push(Change {
                i1: i0 as usize,
                chg1: (i - i0) as usize,
                i2: j0 as usize,
                chg2: (j - j0) as usize,
            });
        } else {
            i += 1;
            j += 1;
        }
    }
    out
}

/// One region of the merge (xdiff's `xdmerge_t`): base lines `i0..+chg0`, session lines
/// `i1..+chg1`, workspace lines `i2..+chg2`; `mode` 1 takes the session's, 2 the workspace's,
/// 0 is a conflict, 4 a conflict whose sides are the same (resolved).
#[derive(Debug, Clone, Copy)]
pub(super) struct Region {
    pub(super) mode: u8,
    pub(super) i0: isize,
    pub(super) chg0: isize,
    pub(super) i1: isize,
    pub(super) chg1: isize,
    pub(super) i2: isize,
    pub(super) chg2: isize,
}

impl Region {
    /// Its lines `i..i + n` of `ls` (clamped to the file: never out of range).
    pub(super) fn of<'a>(ls: &'a [&'a [u8]], i: isize, n: isize) -> &'a [&'a [u8]] {
        let len = ls.len() as isize;
        let a = i.clamp(0, len);
        let z = (i + n).clamp(a, len);
        &ls[a as usize..z as usize]
    }
}

/// `a + b - c` (may be negative, as in xdiff, until regions are merged).
fn shift(a: usize, b: usize, c: usize) -> isize {
    a as isize + b as isize - c as isize
}

fn append(list: &mut Vec<Region>, r: Region) {
    if let Some(m) = list.last_mut()
        && (r.i1 <= m.i1 + m.chg1 || r.i2 <= m.i2 + m.chg2)
    {
        if r.mode != m.mode {
            m.mode = 0;
        }
        m.chg0 = r.i0 + r.chg0 - m.i0;
        m.chg1 = r.i1 + r.chg1 - m.i1;
        m.chg2 = r.i2 + r.chg2 - m.i2;
        return;
    }
    list.push(r);
}

/// The session's change `p` alone, `i2` where it lies in the workspace's lines.
fn ours_only(p: &Change, i2: isize) -> Region {
    let (i0, chg0) = (p.i1 as isize, p.chg1 as isize);
    let (i1, chg1) = (p.i2 as isize, p.chg2 as isize);
    Region {
        mode: 1,
        i0,
        chg0,
        i1,
        chg1,
        i2,
        chg2: chg0,
    }
}

/// The workspace's change `q` alone, `i1` where it lies in the session's lines.
fn theirs_only(q: &Change, i1: isize) -> Region {
    let (i0, chg0) = (q.i1 as isize, q.chg1 as isize);
    let (i2, chg2) = (q.i2 as isize, q.chg2 as isize);
    Region {
        mode: 2,
        i0,
        chg0,
        i1,
        chg1: chg0,
        i2,
        chg2,
    }
}

/// The conflict region of the overlapping changes `p` (session) and `q` (workspace): from the
/// earlier start to the later end, on all three files (xdl_merge's arithmetic).
fn conflict(p: &Change, q: &Change) -> Region {
    let off = p.i1 as isize - q.i1 as isize;
    let ffo = off + p.chg1 as isize - q.chg1 as isize;
    let (mut i0, mut i1, mut i2) = (p.i1 as isize, p.i2 as isize, q.i2 as isize);
    if off > 0 {
        i0 -= off;
        i1 -= off;
    } else {
        i2 += off;
    }
    let mut chg0 = (p.i1 + p.chg1) as isize - i0;
    let mut chg1 = (p.i2 + p.chg2) as isize - i1;
    let mut chg2 = (q.i2 + q.chg2) as isize - i2;
    if ffo < 0 {
        chg0 -= ffo;
        chg1 -= ffo;
    } else {
        chg2 += ffo;
    }
    Region {
        mode: 0,
        i0,
        chg0,
        i1,
        chg1,
        i2,
        chg2,
    }
}

/// The regions of git's merge of `session` and `workspace` against `base` (lines), sorted.
pub(super) fn regions(base: &[&[u8]], session: &[&[u8]], workspace: &[&[u8]]) -> Vec<Region> {
    let x1 = script(base, session);
    let x2 = script(base, workspace);
    let (mut a, mut c) = (x1.iter().peekable(), x2.iter().peekable());
    let mut out: Vec<Region> = Vec::new();
    while let (Some(&&p), Some(&&q)) = (a.peek(), c.peek()) {
        if p.i1 + p.chg1 < q.i1 {
            let i2 = shift(q.i2, p.i1, q.i1);
            append(&mut out, ours_only(&p, i2));
            a.next();
            continue;
        }
        if q.i1 + q.chg1 < p.i1 {
            let i1 = shift(p.i2, q.i1, p.i1);
            append(&mut out, theirs_only(&q, i1));
            c.next();
            continue;
        }
        let same = p.i1 == q.i1
            && p.chg1 == q.chg1
            && p.chg2 == q.chg2
            && session[p.i2..p.i2 + p.chg2] == workspace[q.i2..q.i2 + q.chg2];
        if !same {
            append(&mut out, conflict(&p, &q));
        }
        let (e1, e2) = (p.i1 + p.chg1, q.i1 + q.chg1);
        if e1 >= e2 {
            c.next();
        }
        if e2 >= e1 {
            a.next();
        }
    }
    for &p in a {
        let i2 = shift(p.i1, workspace.len(), base.len());
        append(&mut out, ours_only(&p, i2));
    }
    for &q in c {
        let i1 = shift(q.i1, session.len(), base.len());
        append(&mut out, theirs_only(&q, i1));
    }
    // A conflict whose two sides are the same lines is no conflict (both sides empty is one:
    // git does not refine a conflict with an empty side).
    for m in &mut out {
        if m.mode == 0
            && m.chg1 > 0
            && m.chg2 > 0
            && Region::of(session, m.i1, m.chg1) == Region::of(workspace, m.i2, m.chg2)
        {
            m.mode = 4;
        }
    }
    out
}
