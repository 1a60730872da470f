//! Unified hunks and line counts of two texts (the line diff under `diff`, `--stat` and
//! patches written by Genesis).

/// One unified hunk: 1-based starts (for an empty range, the line before it), lengths, and
/// the lines with their sign (`b' '`, `b'-'`, `b'+'`), each with its line end if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedHunk<'a> {
    /// First old line (1-based), or the line before an empty range.
    pub old_start: usize,
    /// Old lines covered.
    pub old_len: usize,
    /// First new line (1-based), or the line before an empty range.
    pub new_start: usize,
    /// New lines covered.
    pub new_len: usize,
    /// The lines.
    pub lines: Vec<(u8, &'a [u8])>,
}

pub(super) fn range(start: usize, len: usize) -> String {
    if len == 1 {
        format!("{start}")
    } else {
        format!("{start},{len}")
    }
}

pub(super) fn line_diff<'a>(
    old: &'a [u8],
    new: &'a [u8],
) -> (Vec<&'a [u8]>, Vec<&'a [u8]>, Vec<imara_diff::Hunk>) {
    let input = imara_diff::InternedInput::new(
        imara_diff::sources::byte_lines(old),
        imara_diff::sources::byte_lines(new),
    );
    let mut d = imara_diff::Diff::compute(imara_diff::Algorithm::Histogram, &input);
    d.postprocess_lines(&input);
    let a: Vec<&[u8]> = input.before.iter().map(|t| input.interner[*t]).collect();
    let b: Vec<&[u8]> = input.after.iter().map(|t| input.interner[*t]).collect();
    (a, b, d.hunks().collect())
}

/// Lines added and removed between `old` and `new` (git's histogram diff, via imara-diff).
pub fn line_counts(old: &[u8], new: &[u8]) -> (u64, u64) {
    let (_, _, hunks) = line_diff(old, new);
    hunks.iter().fold((0, 0), |(a, r), h| {
        (
            a + u64::from(h.after.end - h.after.start),
            r + u64::from(h.before.end - h.before.start),
        )
    })
}

/// The unified hunks from `old` to `new` with `context` lines of context, hunks closer than
/// `2 * context` lines merged, as git does. The line diff is git's histogram algorithm
/// (imara-diff), linear in practice where Myers is quadratic on files with few common lines.
pub fn unified_hunks<'a>(old: &'a [u8], new: &'a [u8], context: usize) -> Vec<UnifiedHunk<'a>> {
    let (a, b, hunks) = line_diff(old, new);
    let mut out = Vec::new();
    let mut i = 0;
    while i < hunks.len() {
        let mut j = i;
        while j + 1 < hunks.len()
            && (hunks[j + 1].before.start - hunks[j].before.end) as usize <= 2 * context
        {
            j += 1;
        }
        let first = &hunks[i];
        let last = &hunks[j];
        let ctx_start = (first.before.start as usize).saturating_sub(context);
        let ctx_end = (last.before.end as usize + context).min(a.len());
        let lead = first.before.start as usize - ctx_start;
        let new_ctx_start = first.after.start as usize - lead;
        let mut lines = Vec::new();
        let mut pos = ctx_start;
        for h in &hunks[i..=j] {
            for line in &a[pos..h.before.start as usize] {
                lines.push((b' ', *line));
            }
            for line in &a[h.before.start as usize..h.before.end as usize] {
                lines.push((b'-', *line));
            }
            for line in &b[h.after.start as usize..h.after.end as usize] {
                lines.push((b'+', *line));
            }
            pos = h.before.end as usize;
        }
        for line in &a[pos..ctx_end] {
            lines.push((b' ', *line));
        }
        let old_len = lines.iter().filter(|(s, _)| *s != b'+').count();
        let new_len = lines.iter().filter(|(s, _)| *s != b'-').count();
        out.push(UnifiedHunk {
            old_start: if old_len == 0 {
                ctx_start
            } else {
                ctx_start + 1
            },
            old_len,
            new_start: if new_len == 0 {
                new_ctx_start
            } else {
                new_ctx_start + 1
            },
            new_len,
            lines,
        });
        i = j + 1;
    }
    out
}

/// git's base85 alphabet (binary patches, `base85.c`): digit `i` is `BASE85[i]`.
pub(crate) const BASE85: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
