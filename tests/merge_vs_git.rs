//! The line merge of `genesis rebase` ([`genesis::merge::merge_text`]) against
//! `git merge-file -p` (git's default `merge` conflict style): on generated cases (small
//! line-based files with random edits on both sides, seeded) and on real ones (pairs of
//! commits of the svelte history that change the same file). Clean/conflict must agree, and a
//! clean result must be byte-identical, in every case (DESIGN section 4). Conflict markers are
//! not compared: git shrinks each conflict to the lines that differ, Genesis does not.

mod common;

use std::path::Path;
use std::process::Command;

use genesis::merge::{TextMerge, merge_text};

/// SplitMix64: a seeded generator, so every run tries the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A few distinct line texts, so edits often meet lines equal to their neighbours (the cases
/// where diff alignments can differ).
fn line(rng: &mut Rng) -> String {
    const WORDS: [&str; 8] = ["a", "b", "c", "d", "e", "}", "", "fn x() {"];
    WORDS[rng.below(WORDS.len() as u64) as usize].to_owned()
}

fn base_text(rng: &mut Rng) -> Vec<String> {
    (0..rng.below(12)).map(|_| line(rng)).collect()
}

/// One side: the base with 1 to 3 random edits (replace, insert, delete a line or two).
fn edit(rng: &mut Rng, base: &[String]) -> Vec<String> {
    let mut out = base.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(out.len() as u64 + 1) as usize;
        match rng.below(4) {
            0 if at < out.len() => out[at] = format!("{}{}", line(rng), rng.below(3)),
            1 => out.insert(at, format!("new{}", rng.below(4))),
            // Appends at the end (both sides appending at EOF is its own case in git).
            2 => {
                for _ in 0..1 + rng.below(2) {
                    out.push(line(rng));
                }
            }
            _ if at < out.len() => {
                let n = (1 + rng.below(2) as usize).min(out.len() - at);
                out.drain(at..at + n);
            }
            _ => out.push(line(rng)),
        }
    }
    out
}

fn join(lines: &[String], final_newline: bool) -> Vec<u8> {
    let mut s = lines.join("\n");
    if final_newline && !lines.is_empty() {
        s.push('\n');
    }
    s.into_bytes()
}

/// What git says: `Ok(bytes)` when clean, `Err(conflicts)` otherwise.
fn git_merge(dir: &Path, base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, i32> {
    std::fs::write(dir.join("base"), base).unwrap();
    std::fs::write(dir.join("ours"), ours).unwrap();
    std::fs::write(dir.join("theirs"), theirs).unwrap();
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "merge.conflictStyle=merge", "merge-file", "-p"])
        .args(["ours", "base", "theirs"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    match out.status.code() {
        Some(0) => Ok(out.stdout),
        Some(n) if n > 0 && n < 128 => Err(n),
        other => panic!(
            "git merge-file failed: {other:?} {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Every text `marked` can become by resolving each conflict (between the `open`, `mid` and
/// `close` marker lines) to one of its two sides; at most 2^6 of them.
fn resolutions(marked: &[u8], open: &[u8], mid: &[u8], close: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![Vec::new()];
    let mut side: Option<(Vec<u8>, Vec<u8>, bool)> = None;
    for line in marked.split_inclusive(|&b| b == b'\n') {
        match &mut side {
            None if line.starts_with(open) => side = Some((Vec::new(), Vec::new(), false)),
            None => out.iter_mut().for_each(|o| o.extend_from_slice(line)),
            Some((_, _, second)) if line == mid => *second = true,
            Some((a, b, _)) if line.starts_with(close) => {
                let (a, b) = (std::mem::take(a), std::mem::take(b));
                out = out
                    .into_iter()
                    .flat_map(|o| [[o.as_slice(), &a].concat(), [o.as_slice(), &b].concat()])
                    .collect();
                assert!(out.len() <= 64, "too many conflicts to enumerate");
                side = None;
            }
            Some((a, b, second)) => if *second { b } else { a }.extend_from_slice(line),
        }
    }
    out
}

/// git's output with markers for the files [`git_merge`] last wrote.
fn git_marked(dir: &Path) -> Vec<u8> {
    Command::new("git")
        .current_dir(dir)
        .args(["-c", "merge.conflictStyle=merge", "merge-file", "-p"])
        .args(["ours", "base", "theirs"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs")
        .stdout
}

/// The lines of `text` in `range`, a final line without newline given one (as the markers
/// of git's style put a newline after it).
fn lines_of(text: &[u8], range: genesis::merge::LineRange) -> Vec<u8> {
    let first = range.start.saturating_sub(1);
    let first = if range.count == 0 { range.start } else { first };
    let mut out: Vec<u8> = text
        .split_inclusive(|&b| b == b'\n')
        .skip(first)
        .take(range.count)
        .flatten()
        .copied()
        .collect();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

/// The (session, workspace) sides of each conflict of Genesis's marked text.
fn sides_of_conflicts(marked: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cur: Option<(Vec<u8>, Vec<u8>, bool)> = None;
    for line in marked.split_inclusive(|&b| b == b'\n') {
        match &mut cur {
            None if line == b"<<<<<<< session\n" => cur = Some((Vec::new(), Vec::new(), false)),
            None => {}
            Some((_, _, second)) if line == b"=======\n" => *second = true,
            Some((a, b, _)) if line == b">>>>>>> workspace\n" => {
                out.push((std::mem::take(a), std::mem::take(b)));
                cur = None;
            }
            Some((a, b, second)) => if *second { b } else { a }.extend_from_slice(line),
        }
    }
    out
}

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    both_clean_same: usize,
    both_conflict: usize,
    clean_bytes_differ: Vec<String>,
    genesis_conflict_git_clean: Vec<String>,
    genesis_clean_git_conflict: Vec<String>,
}

fn compare(t: &mut Tally, dir: &Path, base: &[u8], ours: &[u8], theirs: &[u8]) {
    t.cases += 1;
    if let Ok(d) = std::env::var("MERGE_DUMP") {
        let d = Path::new(&d).join(t.cases.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("base"), base).unwrap();
        std::fs::write(d.join("ours"), ours).unwrap();
        std::fs::write(d.join("theirs"), theirs).unwrap();
    }
    let show = || {
        if base.len() + ours.len() + theirs.len() > 600 {
            return format!(
                "case {} ({} {} {} bytes)",
                t.cases,
                base.len(),
                ours.len(),
                theirs.len()
            );
        }
        format!(
            "base {:?}\nours {:?}\ntheirs {:?}",
            String::from_utf8_lossy(base),
            String::from_utf8_lossy(ours),
            String::from_utf8_lossy(theirs)
        )
    };
    let merged = merge_text(base, ours, theirs);
    // Each conflict of the marked text is one listed hunk.
    if let TextMerge::Conflict { hunks, marked } = &merged {
        let opened = marked
            .split_inclusive(|&b| b == b'\n')
            .filter(|l| *l == b"<<<<<<< session\n")
            .count();
        assert!(opened > 0 && opened == hunks.len(), "{hunks:?} {}", show());
        // Each hunk's line ranges are exactly the two sides between its markers.
        let blocks = sides_of_conflicts(marked);
        for (h, (s_side, w_side)) in hunks.iter().zip(&blocks) {
            assert_eq!(&lines_of(ours, h.session), s_side, "{h:?} {}", show());
            assert_eq!(&lines_of(theirs, h.workspace), w_side, "{h:?} {}", show());
        }
    }
    match (merged, git_merge(dir, base, ours, theirs)) {
        (TextMerge::Clean(g), Ok(r)) if g == r => t.both_clean_same += 1,
        (TextMerge::Clean(g), Ok(r)) => t.clean_bytes_differ.push(format!(
            "{}\ngenesis {:?}\ngit {:?}",
            show(),
            String::from_utf8_lossy(&g),
            String::from_utf8_lossy(&r)
        )),
        (TextMerge::Conflict { .. }, Err(_)) => t.both_conflict += 1,
        // The safe direction: nothing is recorded, the user resolves by hand.
        (TextMerge::Conflict { .. }, Ok(_)) => t.genesis_conflict_git_clean.push(show()),
        (TextMerge::Clean(g), Err(_)) => {
            // Genesis's clean result must be one way to resolve git's conflicts.
            let marked = git_marked(dir);
            let ways = resolutions(&marked, b"<<<<<<< ours", b"=======\n", b">>>>>>> theirs");
            assert!(
                ways.contains(&g),
                "ours is no resolution of git's conflicts: {}",
                show()
            );
            t.genesis_clean_git_conflict.push(show())
        }
    }
}

/// Runs `n` seeded generated triples (a fifth with both sides making the same edits; each
/// file with or without a final newline) through [`compare`].
fn generated(seed: u64, n: usize, eof_only: bool) -> Tally {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    for i in 0..n {
        let base = base_text(&mut rng);
        let side = |rng: &mut Rng| {
            if eof_only {
                // Both sides append at the end of the same base (git's EOF insertions).
                let mut s = base.clone();
                for _ in 0..rng.below(3) {
                    s.push(line(rng));
                }
                s
            } else {
                edit(rng, &base)
            }
        };
        let ours = side(&mut rng);
        let theirs = if i % 5 == 0 {
            ours.clone()
        } else {
            side(&mut rng)
        };
        let nl = |rng: &mut Rng| rng.below(8) != 0;
        let (nb, no, nt) = (nl(&mut rng), nl(&mut rng), nl(&mut rng));
        compare(
            &mut t,
            dir.path(),
            &join(&base, nb),
            &join(&ours, no),
            &join(&theirs, nt),
        );
    }
    t
}

/// How many generated cases: 2000 in a plain `cargo test`, 20 000 with `GENESIS_EXHAUSTIVE=1`
/// (or `MERGE_CASES`).
fn case_count() -> usize {
    if let Some(n) = std::env::var("MERGE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var_os("GENESIS_EXHAUSTIVE").is_some() {
        20_000
    } else {
        2_000
    }
}

/// The seeded generated cases agree with `git merge-file` in every one: the same clean or
/// conflict verdict, and byte-identical clean results (random replacements, insertions,
/// deletions and appends on both sides, lines equal to their neighbours, missing final
/// newlines). Measured: of 2000, 737 clean in both and 1263 conflicts in both; of 20 000
/// (`GENESIS_EXHAUSTIVE=1`), none differs either.
#[test]
fn generated_cases_agree_with_git_merge_file() {
    let n = case_count();
    let t = generated(12, n, false);
    assert!(t.genesis_clean_git_conflict.is_empty(), "{t:#?}");
    assert!(t.clean_bytes_differ.is_empty(), "{t:#?}");
    assert!(t.genesis_conflict_git_clean.is_empty(), "{t:#?}");
    assert_eq!(t.cases, n);
    assert_eq!(t.both_clean_same + t.both_conflict, n, "{t:#?}");
    if n == 2_000 {
        assert_eq!((t.both_clean_same, t.both_conflict), (737, 1263), "{t:#?}");
    }
}

/// Both sides appending at the end of the file (with and without final newlines): git
/// conflicts unless they append the same lines; so does Genesis, in every case.
#[test]
fn appends_at_the_end_on_both_sides_agree_with_git_merge_file() {
    let n = case_count() / 4;
    let t = generated(7, n, true);
    assert!(t.genesis_clean_git_conflict.is_empty(), "{t:#?}");
    assert!(t.clean_bytes_differ.is_empty(), "{t:#?}");
    assert!(t.genesis_conflict_git_clean.is_empty(), "{t:#?}");
    assert_eq!(t.both_clean_same + t.both_conflict, n, "{t:#?}");
    assert!(t.both_conflict > n / 4, "{t:#?}");
}

/// Real cases: every file of the svelte history (`../shared/realrepos/svelte-history.bundle`)
/// that two commits change, at v0 (before the first), v1 (after it) and v2 (after the
/// second): merged as base v0, session v1, workspace v2 (the session's change is already in the
/// workspace) and as base v1, session v0, workspace v2 (the session undoes the first commit,
/// the workspace made the second).
#[test]
fn real_history_cases_agree_with_git_merge_file() {
    let bundle = common::repo_root().join("../shared/realrepos/svelte-history.bundle");
    assert!(bundle.is_file(), "{} is missing", bundle.display());
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("svelte");
    common::git::git(
        tmp.path(),
        &[
            "clone",
            "-q",
            bundle.to_str().unwrap(),
            repo.to_str().unwrap(),
        ],
    );
    let commits: Vec<String> = common::git::git(&repo, &["rev-list", "--reverse", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect();
    // Path -> the commits (after the first) that modify it.
    let mut touched: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for c in &commits[1..] {
        let names = common::git::git(
            &repo,
            &[
                "diff-tree",
                "--no-commit-id",
                "-r",
                "--diff-filter=M",
                "--name-only",
                c,
            ],
        );
        for n in names.lines() {
            touched.entry(n.to_owned()).or_default().push(c.clone());
        }
    }
    let show = |c: &str, p: &str| common::git::git_bytes(&repo, &["show", &format!("{c}:{p}")]);
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::default();
    for (path, cs) in &touched {
        for pair in cs.windows(2) {
            let v0 = show(&format!("{}^", pair[0]), path);
            let v1 = show(&pair[0], path);
            let v2 = show(&pair[1], path);
            // git merge-file refuses binary files; rebase reports them whole (tests/rebase.rs).
            if [&v0, &v1, &v2].iter().any(|v| genesis::merge::is_binary(v)) {
                continue;
            }
            compare(&mut t, dir.path(), &v0, &v1, &v2);
            compare(&mut t, dir.path(), &v1, &v0, &v2);
        }
    }
    assert!(t.clean_bytes_differ.is_empty(), "{t:#?}");
    // Every case agrees: 55 clean and byte-identical, 17 conflicts in both.
    assert_eq!(
        (
            t.cases,
            t.both_clean_same,
            t.both_conflict,
            t.genesis_conflict_git_clean.len(),
            t.genesis_clean_git_conflict.len()
        ),
        (72, 55, 17, 0, 0),
        "{t:#?}"
    );
}
