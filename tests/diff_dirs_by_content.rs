//! `Tree::compare_contents` (what `genesis diff DIR DIR` uses without `--json`) pairs the
//! files of two directories by path and decides each pair by size, then bytes, hashing only
//! what differs. Its change list, `--stat` counts and diff text must be exactly those of
//! `Tree::compare` (both directories hashed in full), on every kind of change, and it must
//! hash nothing the two directories hold alike.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use genesis::diff::{DiffOptions, Operand, changes, stats, write_git_diff, write_stat};
use genesis::snapshot::SnapshotOptions;
use genesis::{Digest, Tree};

fn write(root: &Path, files: &[(&str, &[u8])]) {
    for (p, data) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, data).unwrap();
    }
}

fn set_exec(p: &Path) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn big(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

/// Everything `genesis diff` prints for `a` → `b`: name-status lines, the stat, the diff.
fn outputs(a: &Tree, b: &Tree) -> (Vec<String>, String, String) {
    let list = changes(a, b);
    let names = list
        .iter()
        .map(|c| {
            format!(
                "{} {} {:?} {:?}",
                c.status.letter(),
                c.path,
                c.old
                    .as_ref()
                    .map(|s| (s.file.blob, s.file.bytes, s.executable)),
                c.new
                    .as_ref()
                    .map(|s| (s.file.blob, s.file.bytes, s.executable))
            )
        })
        .collect();
    let mut stat = Vec::new();
    if !list.is_empty() {
        write_stat(&stats(a, b, &list).unwrap(), &mut stat).unwrap();
    }
    let mut diff = Vec::new();
    write_git_diff(a, b, &list, &DiffOptions::default(), &mut diff).unwrap();
    (
        names,
        String::from_utf8(stat).unwrap(),
        String::from_utf8_lossy(&diff).into_owned(),
    )
}

fn dir(p: &Path) -> Operand {
    Operand::Dir(p.to_path_buf(), SnapshotOptions::default())
}

#[test]
fn content_comparison_gives_exactly_the_hashed_comparison() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let same_big = big(7, 700_000); // several read chunks, equal
    let mut late_diff = same_big.clone();
    *late_diff.last_mut().unwrap() ^= 1; // same size, differs in the last chunk only
    write(
        &a,
        &[
            ("same.txt", b"one\ntwo\n"),
            ("same/big.bin", &same_big),
            ("late.bin", &same_big),
            ("size.txt", b"a\nb\n"),
            ("bytes.txt", b"abc\n"),
            ("mode.sh", b"echo hi\n"),
            ("gone.txt", b"bye\n"),
            ("empty-gone", b""),
            ("bin.dat", b"\x00\x01"),
            ("no-eol.txt", b"x\ny"),
        ],
    );
    write(
        &b,
        &[
            ("same.txt", b"one\ntwo\n"),
            ("same/big.bin", &same_big),
            ("late.bin", &late_diff),
            ("size.txt", b"a\nb\nc\n"),
            ("bytes.txt", b"abd\n"),
            ("mode.sh", b"echo hi\n"),
            ("new/added.txt", b"hello\n"),
            ("empty-new", b""),
            ("bin.dat", b"\x00\x02"),
            ("no-eol.txt", b"x\nz"),
        ],
    );
    set_exec(&b.join("mode.sh"));
    let (ha, hb) = Tree::compare(dir(&a), dir(&b)).unwrap();
    let (ca, cb) = Tree::compare_contents(dir(&a), dir(&b)).unwrap();
    assert!(ca.is_partial() && cb.is_partial());
    let (hashed, by_content) = (outputs(&ha, &hb), outputs(&ca, &cb));
    assert_eq!(by_content, hashed);
    // The exact list, so the comparison above cannot pass on two empty outputs.
    let letters: Vec<String> = hashed
        .0
        .iter()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        letters,
        [
            "M bin.dat",
            "M bytes.txt",
            "D empty-gone",
            "A empty-new",
            "D gone.txt",
            "M late.bin",
            "M mode.sh",
            "A new/added.txt",
            "M no-eol.txt",
            "M size.txt",
        ]
    );
    // The mode-only change names the one blob on both sides.
    let blob = Digest::of(b"echo hi\n").to_string();
    let mode = hashed
        .0
        .iter()
        .find(|l| l.starts_with("M mode.sh"))
        .unwrap();
    assert_eq!(mode.matches(&blob).count(), 2, "{mode}");
    // Reversed, too.
    let (ra, rb) = Tree::compare(dir(&b), dir(&a)).unwrap();
    let (sa, sb) = Tree::compare_contents(dir(&b), dir(&a)).unwrap();
    assert_eq!(outputs(&sa, &sb), outputs(&ra, &rb));
}

#[test]
fn equal_files_are_not_listed_and_identical_trees_give_no_change() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let files: &[(&str, &[u8])] = &[("x.txt", b"x\n"), ("d/y.bin", &[0u8; 300_000])];
    write(&a, files);
    write(&b, files);
    let (ca, cb) = Tree::compare_contents(dir(&a), dir(&b)).unwrap();
    assert!(ca.snapshot.files().is_empty());
    assert!(cb.snapshot.files().is_empty());
    assert!(changes(&ca, &cb).is_empty());
}

#[test]
fn membership_is_widened_as_the_hashed_comparison_widens_it() {
    // `b` ignores `build.log` by its .gitignore; `a` holds it as an ordinary file. Both
    // comparisons widen `b` by `a`'s paths, so the file is compared by content, not shown
    // as deleted.
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    write(&a, &[("build.log", b"1\n"), ("k.txt", b"k\n")]);
    write(
        &b,
        &[
            ("build.log", b"2\n"),
            ("k.txt", b"k\n"),
            (".gitignore", b"build.log\n"),
        ],
    );
    let (ha, hb) = Tree::compare(dir(&a), dir(&b)).unwrap();
    let (ca, cb) = Tree::compare_contents(dir(&a), dir(&b)).unwrap();
    let (hashed, by_content) = (outputs(&ha, &hb), outputs(&ca, &cb));
    assert_eq!(by_content, hashed);
    assert_eq!(hashed.0.len(), 2, "{:?}", hashed.0);
    assert!(hashed.0[0].starts_with("A .gitignore"), "{:?}", hashed.0);
    assert!(hashed.0[1].starts_with("M build.log"), "{:?}", hashed.0);
}
