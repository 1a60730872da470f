//! git's line diff (xdiff's Myers, `xdl_do_diff` without `XDF_NEED_MINIMAL`, as `git
//! merge-file` runs it), ported so that a merge aligns its two diffs where git does: the
//! common ends are trimmed (`xdl_trim_ends`); a line with no match in the other file, or one
//! with many matches amid lines without a match, is marked changed at once
//! (`xdl_cleanup_records`); the rest goes through the divide-and-conquer Myers search
//! (`xdl_recs_cmp`, `xdl_split`) with git's tie-breaking and its cost heuristics.

use std::collections::HashMap;

const SNAKE_CNT: isize = 20;
const HEUR_MIN_COST: isize = 256;
const MAX_COST_MIN: isize = 256;
const K_HEUR: isize = 4;
const MAX_EQLIMIT: isize = 1024;
const SIMSCAN_WINDOW: isize = 100;
const KPDIS_RUN: isize = 4;
const LINE_MAX: isize = isize::MAX;

fn bogosqrt(mut n: isize) -> isize {
    let mut i = 1;
    while n > 0 {
        i <<= 1;
        n >>= 2;
    }
    i
}

/// Whether a line with many matches (`dis` 2) at `i` is discarded: it sits in a run of lines
/// without a match (`dis` 0) on both sides, mostly such lines (`xdl_clean_mmatch`).
fn clean_mmatch(dis: &[u8], i: isize, s: isize, e: isize) -> bool {
    let s = if i - s > SIMSCAN_WINDOW {
        i - SIMSCAN_WINDOW
    } else {
        s
    };
    let e = if e - i > SIMSCAN_WINDOW {
        i + SIMSCAN_WINDOW
    } else {
        e
    };
    let (mut rdis0, mut rpdis0) = (0, 1);
    let mut r = 1;
    while i - r >= s {
        match dis[(i - r) as usize] {
            0 => rdis0 += 1,
            2 => rpdis0 += 1,
            _ => break,
        }
        r += 1;
    }
    if rdis0 == 0 {
        return false;
    }
    let (mut rdis1, mut rpdis1) = (0, 1);
    r = 1;
    while i + r <= e {
        match dis[(i + r) as usize] {
            0 => rdis1 += 1,
            2 => rpdis1 += 1,
            _ => break,
        }
        r += 1;
    }
    if rdis1 == 0 {
        return false;
    }
    rdis1 += rdis0;
    rpdis1 += rpdis0;
    rpdis1 * KPDIS_RUN < rpdis1 + rdis1
}

/// One file for the search: the class of each line kept (`ha`), where it is (`rindex`), and
/// the changed-line marks of the whole file (`rchg`).
struct Side {
    ha: Vec<usize>,
    rindex: Vec<usize>,
    rchg: Vec<bool>,
}

struct Search<'a> {
    a: &'a Side,
    b: &'a Side,
    kvdf: Vec<isize>,
    kvdb: Vec<isize>,
    /// Offset of diagonal 0 in `kvdf`/`kvdb`.
    zero: isize,
    mxcost: isize,
}

impl Search<'_> {
    fn f(&self, d: isize) -> isize {
        self.kvdf[(d + self.zero) as usize]
    }
    fn set_f(&mut self, d: isize, v: isize) {
        self.kvdf[(d + self.zero) as usize] = v;
    }
    fn b(&self, d: isize) -> isize {
        self.kvdb[(d + self.zero) as usize]
    }
    fn set_b(&mut self, d: isize, v: isize) {
        self.kvdb[(d + self.zero) as usize] = v;
    }
    fn eq(&self, i1: isize, i2: isize) -> bool {
        self.a.ha[i1 as usize] == self.b.ha[i2 as usize]
    }

    /// `xdl_split`: the middle of an edit path of the box; (i1, i2, min_lo, min_hi).
    fn split(
        &mut self,
        off1: isize,
        lim1: isize,
        off2: isize,
        lim2: isize,
        need_min: bool,
    ) -> (isize, isize, bool, bool) {
        let (dmin, dmax) = (off1 - lim2, lim1 - off2);
        let (fmid, bmid) = (off1 - off2, lim1 - lim2);
        let odd = (fmid - bmid) & 1 != 0;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        self.set_f(fmid, off1);
        self.set_b(bmid, lim1);
        let mut ec = 1;
        loop {
            let mut got_snake = false;
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let mut i1 = if self.f(d - 1) >= self.f(d + 1) {
                    self.f(d - 1) + 1
                } else {
                    self.f(d + 1)
                };
                let prev1 = i1;
                let mut i2 = i1 - d;
                while i1 < lim1 && i2 < lim2 && self.eq(i1, i2) {
                    i1 += 1;
                    i2 += 1;
                }
                if i1 - prev1 > SNAKE_CNT {
                    got_snake = true;
                }
                self.set_f(d, i1);
                if odd && bmin <= d && d <= bmax && self.b(d) <= i1 {
                    return (i1, i2, true, true);
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, LINE_MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, LINE_MAX);
            } else {
                bmax -= 1;
            }
            d = bmax;
            while d >= bmin {
                let mut i1 = if self.b(d - 1) < self.b(d + 1) {
                    self.b(d - 1)
                } else {
                    self.b(d + 1) - 1
                };
                let prev1 = i1;
                let mut i2 = i1 - d;
                while i1 > off1 && i2 > off2 && self.eq(i1 - 1, i2 - 1) {
                    i1 -= 1;
                    i2 -= 1;
                }
                if prev1 - i1 > SNAKE_CNT {
                    got_snake = true;
                }
                self.set_b(d, i1);
                if !odd && fmin <= d && d <= fmax && i1 <= self.f(d) {
                    return (i1, i2, true, true);
                }
                d -= 2;
            }
            if !need_min {
                if got_snake && ec > HEUR_MIN_COST {
                    if let Some(s) =
                        self.heur_forward(fmin, fmax, fmid, ec, (off1, lim1, off2, lim2))
                    {
                        return (s.0, s.1, true, false);
                    }
                    if let Some(s) =
                        self.heur_backward(bmin, bmax, bmid, ec, (off1, lim1, off2, lim2))
                    {
                        return (s.0, s.1, false, true);
                    }
                }
                if ec >= self.mxcost {
                    return self.give_up(fmin, fmax, bmin, bmax, (off1, lim1, off2, lim2));
                }
            }
            ec += 1;
        }
    }

    fn heur_forward(
        &self,
        fmin: isize,
        fmax: isize,
        fmid: isize,
        ec: isize,
        (off1, lim1, off2, lim2): (isize, isize, isize, isize),
    ) -> Option<(isize, isize)> {
        let (mut best, mut spl) = (0, None);
        let mut d = fmax;
        while d >= fmin {
            let dd = (d - fmid).abs();
            let i1 = self.f(d);
            let i2 = i1 - d;
            let v = (i1 - off1) + (i2 - off2) - dd;
            if v > K_HEUR * ec
                && v > best
                && off1 + SNAKE_CNT <= i1
                && i1 < lim1
                && off2 + SNAKE_CNT <= i2
                && i2 < lim2
            {
                let mut k = 1;
                while self.eq(i1 - k, i2 - k) {
                    if k == SNAKE_CNT {
                        best = v;
                        spl = Some((i1, i2));
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        spl
    }

    fn heur_backward(
        &self,
        bmin: isize,
        bmax: isize,
        bmid: isize,
        ec: isize,
        (off1, lim1, off2, lim2): (isize, isize, isize, isize),
    ) -> Option<(isize, isize)> {
        let (mut best, mut spl) = (0, None);
        let mut d = bmax;
        while d >= bmin {
            let dd = (d - bmid).abs();
            let i1 = self.b(d);
            let i2 = i1 - d;
            let v = (lim1 - i1) + (lim2 - i2) - dd;
            if v > K_HEUR * ec
                && v > best
                && off1 < i1
                && i1 <= lim1 - SNAKE_CNT
                && off2 < i2
                && i2 <= lim2 - SNAKE_CNT
            {
                let mut k = 0;
                while self.eq(i1 + k, i2 + k) {
                    if k == SNAKE_CNT - 1 {
                        best = v;
                        spl = Some((i1, i2));
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        spl
    }

    fn give_up(
        &self,
        fmin: isize,
        fmax: isize,
        bmin: isize,
        bmax: isize,
        (off1, lim1, off2, lim2): (isize, isize, isize, isize),
    ) -> (isize, isize, bool, bool) {
        let (mut fbest, mut fbest1) = (-1, -1);
        let mut d = fmax;
        while d >= fmin {
            let mut i1 = self.f(d).min(lim1);
            let mut i2 = i1 - d;
            if lim2 < i2 {
                i1 = lim2 + d;
                i2 = lim2;
            }
            if fbest < i1 + i2 {
                fbest = i1 + i2;
                fbest1 = i1;
            }
            d -= 2;
        }
        let (mut bbest, mut bbest1) = (LINE_MAX, LINE_MAX);
        d = bmax;
        while d >= bmin {
            let mut i1 = off1.max(self.b(d));
            let mut i2 = i1 - d;
            if i2 < off2 {
                i1 = off2 + d;
                i2 = off2;
            }
            if i1 + i2 < bbest {
                bbest = i1 + i2;
                bbest1 = i1;
            }
            d -= 2;
        }
        if (lim1 + lim2) - bbest < fbest - (off1 + off2) {
            (fbest1, fbest - fbest1, true, false)
        } else {
            (bbest1, bbest - bbest1, false, true)
        }
    }
}

/// `xdl_recs_cmp`: marks the changed lines of the box (kept-line indices) in both files.
fn recs_cmp(
    s: &mut Search<'_>,
    marks: &mut (Vec<bool>, Vec<bool>),
    mut off1: isize,
    mut lim1: isize,
    mut off2: isize,
    mut lim2: isize,
    need_min: bool,
) {
    while off1 < lim1 && off2 < lim2 && s.eq(off1, off2) {
        off1 += 1;
        off2 += 1;
    }
    while off1 < lim1 && off2 < lim2 && s.eq(lim1 - 1, lim2 - 1) {
        lim1 -= 1;
        lim2 -= 1;
    }
    if off1 == lim1 {
        for i in off2..lim2 {
            marks.1[s.b.rindex[i as usize]] = true;
        }
    } else if off2 == lim2 {
        for i in off1..lim1 {
            marks.0[s.a.rindex[i as usize]] = true;
        }
    } else {
        let (i1, i2, min_lo, min_hi) = s.split(off1, lim1, off2, lim2, need_min);
        recs_cmp(s, marks, off1, i1, off2, i2, min_lo);
        recs_cmp(s, marks, i1, lim1, i2, lim2, min_hi);
    }
}

/// The changed-line marks (file 1, file 2) of git's diff of the lines `l1` → `l2`.
pub(super) fn diff(l1: &[&[u8]], l2: &[&[u8]]) -> (Vec<bool>, Vec<bool>) {
    let mut classes: HashMap<&[u8], usize> = HashMap::new();
    let c1: Vec<usize> = l1
        .iter()
        .map(|l| {
            let n = classes.len();
            *classes.entry(l).or_insert(n)
        })
        .collect();
    let c2: Vec<usize> = l2
        .iter()
        .map(|l| {
            let n = classes.len();
            *classes.entry(l).or_insert(n)
        })
        .collect();
    let (mut len1, mut len2) = (vec![0isize; classes.len()], vec![0isize; classes.len()]);
    c1.iter().for_each(|&c| len1[c] += 1);
    c2.iter().for_each(|&c| len2[c] += 1);
    let (n1, n2) = (l1.len() as isize, l2.len() as isize);
    // xdl_trim_ends.
    let lim = n1.min(n2);
    let mut start = 0;
    while start < lim && c1[start as usize] == c2[start as usize] {
        start += 1;
    }
    let mut tail = 0;
    while tail < lim - start && c1[(n1 - 1 - tail) as usize] == c2[(n2 - 1 - tail) as usize] {
        tail += 1;
    }
    let (dend1, dend2) = (n1 - tail - 1, n2 - tail - 1);
    // xdl_cleanup_records.
    let side = |c: &[usize], other_len: &[isize], n: isize, dend: isize| -> Side {
        let mlim = bogosqrt(n).min(MAX_EQLIMIT);
        let mut dis = vec![0u8; n.max(0) as usize + 1];
        for i in start..=dend {
            let nm = other_len[c[i as usize]];
            dis[i as usize] = if nm == 0 {
                0
            } else if nm >= mlim {
                2
            } else {
                1
            };
        }
        let mut out = Side {
            ha: Vec::new(),
            rindex: Vec::new(),
            rchg: vec![false; n as usize],
        };
        for i in start..=dend {
            let d = dis[i as usize];
            if d == 1 || (d == 2 && !clean_mmatch(&dis, i, start, dend)) {
                out.rindex.push(i as usize);
                out.ha.push(c[i as usize]);
            } else {
                out.rchg[i as usize] = true;
            }
        }
        out
    };
    let a = side(&c1, &len2, n1, dend1);
    let b = side(&c2, &len1, n2, dend2);
    let ndiags = (a.ha.len() + b.ha.len() + 3) as isize;
    let mut marks = (a.rchg.clone(), b.rchg.clone());
    let mut s = Search {
        a: &a,
        b: &b,
        kvdf: vec![0; 2 * ndiags as usize + 2],
        kvdb: vec![0; 2 * ndiags as usize + 2],
        zero: b.ha.len() as isize + 1,
        mxcost: bogosqrt(ndiags).max(MAX_COST_MIN),
    };
    let (r1, r2) = (a.ha.len() as isize, b.ha.len() as isize);
    recs_cmp(&mut s, &mut marks, 0, r1, 0, r2, false);
    marks
}
