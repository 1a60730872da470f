//! Outside a git work tree, the nested repositories' tracked files are found by the snapshot's
//! own walk ([`TrackedFiles::discover_deferred`]) instead of a second walk of the tree: the
//! membership must be exactly what the separate search gives ([`TrackedFiles::discover`],
//! which runs it before the scan, the old order, kept as the oracle). Generated trees put real
//! repositories (`git init`, `git add -f`, gitlinks by `git update-index`) in every position:
//! plain, inside an ignored directory, inside a directory only `exclude`, the store or a parent
//! `.gitignore` leaves out, re-included by a `!` rule, nested in nested (walked or only through a
//! gitlink in an ignored directory), behind a `.git` file, behind a symbolic link, with a
//! non-UTF-8 tracked name, broken (`.git` file naming nothing, an index that does not decode).

mod common;

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::rng::Rng;
use common::*;
use genesis::snapshot::{SnapshotOptions, scan};
use genesis::tracked::TrackedFiles;

/// A small deterministic generator (xorshift64*).
fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A repository at `dir` tracking `lib.rs`, and, with `git add -f` although its `.gitignore`
/// lists them, `Cargo.lock` and `n.tmp`; an untracked `u.tmp` that stays ignored.
fn repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    write(&dir.join(".gitignore"), b"/Cargo.lock\n*.tmp\n");
    write(&dir.join("Cargo.lock"), b"lock\n");
    write(&dir.join("n.tmp"), b"tmp\n");
    write(&dir.join("u.tmp"), b"untracked\n");
    write(&dir.join("lib.rs"), b"fn f() {}\n");
    git(dir, &["add", "-A"]);
    git(dir, &["add", "-f", "Cargo.lock", "n.tmp"]);
}

/// A gitlink (mode 160000) at `path` in the index of the repository at `dir`.
fn gitlink(dir: &Path, path: &str) {
    let cacheinfo = format!("160000,{},{path}", "1".repeat(40));
    git(dir, &["update-index", "--add", "--cacheinfo", &cacheinfo]);
}

/// The places a repository may be put, relative to the tree (see the module docs).
const SPOTS: &[&str] = &[
    "r1",
    "a/r2",
    "ign/r3",
    "ign/x/r4",
    "vend/keep/r5",
    "vend/drop/r6",
    "gi/r7",
    "exc/r8",
    "st/r9",
    "pi/r10",
    "deep/p/skip/r11",
    "a/b/c/r12",
];

/// Builds a generated tree at `base/w` (`base/.gitignore` leaves out `w/pi/` for a scan with
/// `ignore_root` = `base`).
fn build(base: &Path, seed: u64) -> PathBuf {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let root = base.join("w");
    std::fs::create_dir_all(&root).unwrap();
    write(&base.join(".gitignore"), b"w/pi/\n");
    write(&root.join("top.txt"), b"top\n");
    write(&root.join("ign/plain.txt"), b"p\n");
    write(&root.join("exc/plain.txt"), b"p\n");
    write(&root.join("pi/plain.txt"), b"p\n");
    write(
        &root.join(".gitignore"),
        b"ign/\n*.tmp\n/Cargo.lock\ndeep/**/skip/\n/vend/*\n!/vend/keep/\n",
    );
    if rng.chance(50) {
        write(&root.join(".genesisignore"), b"gi/\n");
    }
    if rng.chance(20) {
        // A git directory without an index at the top: still no work tree with an index.
        git(&root, &["init", "-q"]);
    }
    let mut made = Vec::new();
    for spot in SPOTS {
        if !rng.chance(45) {
            continue;
        }
        let dir = root.join(spot);
        if rng.chance(15) {
            // A `.git` file naming a git directory outside the tree.
            let gd = base.join(format!("gd-{}", spot.replace('/', "-")));
            std::fs::create_dir_all(&dir).unwrap();
            git(
                &dir,
                &["init", "-q", "--separate-git-dir", gd.to_str().unwrap()],
            );
            write(&dir.join("lib.rs"), b"fn g() {}\n");
            write(&dir.join("k.tmp"), b"k\n");
            git(&dir, &["add", "-f", "lib.rs", "k.tmp"]);
        } else {
            repo(&dir);
        }
        made.push(dir);
    }
    for dir in &made {
        if rng.chance(35) {
            // An embedded repository the walk enters (not ignored).
            repo(&dir.join("inner"));
        }
        if rng.chance(35) {
            // One only a gitlink reaches: its directory is ignored by the repository's rules.
            let sub = dir.join("hid/sub");
            repo(&sub);
            write(&dir.join("hid/.gitignore"), b"*\n");
            gitlink(dir, "hid/sub");
            if rng.chance(50) {
                // And one more level, ignored again.
                repo(&sub.join("deeper"));
                write(&sub.join(".gitignore"), b"deeper/\n");
                gitlink(&sub, "deeper");
            }
        }
        if rng.chance(25) {
            // An embedded repository in a directory the repository's rules ignore, where its
            // index tracks a file (`git add -f`) but lists no gitlink: the tracked file does
            // not make the search enter the directory, so the embedded one is not read.
            write(&dir.join("shadow/.gitignore"), b"*\n");
            write(&dir.join("shadow/t.txt"), b"t\n");
            git(dir, &["add", "-f", "shadow/t.txt"]);
            repo(&dir.join("shadow/emb"));
        }
        if rng.chance(15) {
            // A gitlink through a symbolic link: never followed.
            let target = base.join(format!("outside-{}", rng.next() % 1000));
            repo(&target);
            std::os::unix::fs::symlink(&target, dir.join("lnk")).unwrap();
            gitlink(dir, "lnk");
        }
        if rng.chance(10) {
            // A gitlink to a submodule that is not checked out.
            gitlink(dir, "absent");
        }
    }
    if rng.chance(30) {
        // A symbolic link to a repository: the walk does not follow it.
        repo(&base.join("linked"));
        std::os::unix::fs::symlink(base.join("linked"), root.join("link")).unwrap();
    }
    if rng.chance(15) {
        // A `.git` directory without HEAD: not a repository.
        std::fs::create_dir_all(root.join("nohead/.git")).unwrap();
        write(&root.join("nohead/f.txt"), b"f\n");
    }
    if rng.chance(10) {
        // A tracked name that is not UTF-8, in an ignored directory of its repository.
        let dir = root.join("nu");
        repo(&dir);
        let name = std::ffi::OsStr::from_bytes(b"ig/\xff.rs");
        write(&dir.join(name), b"x\n");
        write(&dir.join(".gitignore"), b"ig/\n");
        git(&dir, &["add", "-f", "--", "ig"]);
    }
    if rng.chance(8) {
        // A `.git` file naming nothing, where the walk may or may not go.
        let spot = ["badfile", "ign/badfile", "exc/badfile"][(rng.next() % 3) as usize];
        write(&root.join(spot).join(".git"), b"not a gitdir line\n");
    }
    if rng.chance(8) {
        // An index that does not decode.
        let spot = ["badidx", "ign/badidx", "st/badidx"][(rng.next() % 3) as usize];
        let dir = root.join(spot);
        repo(&dir);
        std::fs::write(dir.join(".git/index"), b"DIRC garbage").unwrap();
    }
    root
}

/// The option variants every tree is scanned with.
fn variants(base: &Path, root: &Path) -> Vec<(&'static str, SnapshotOptions)> {
    let plain = SnapshotOptions::default();
    let exclude = SnapshotOptions {
        exclude: vec!["exc".into(), "*.rs".into()],
        ..SnapshotOptions::default()
    };
    let store = SnapshotOptions {
        store_dir: Some(root.join("st")),
        ..SnapshotOptions::default()
    };
    let parents = SnapshotOptions {
        ignore_root: Some(base.to_path_buf()),
        ..SnapshotOptions::default()
    };
    vec![
        ("plain", plain),
        ("exclude", exclude),
        ("store", store),
        ("parents", parents),
    ]
}

/// What a scan gave, comparably: member paths, tracked-only paths, skipped entries; or the
/// error's message.
fn outcome(root: &Path, opts: &SnapshotOptions) -> Result<[Vec<String>; 3], String> {
    let o = scan(root, opts).map_err(|e| e.to_string())?;
    Ok([
        o.files.iter().map(|f| f.path.to_string()).collect(),
        o.tracked_only.iter().map(|p| p.to_string()).collect(),
        o.skipped
            .iter()
            .map(|s| format!("{} {}", s.path, s.reason))
            .collect(),
    ])
}

/// The old order (the search before the scan) against the new (the scan's walk finds the
/// repositories), for one tree and one option variant; the old result.
fn compare(
    root: &Path,
    name: &str,
    base_opts: &SnapshotOptions,
) -> Result<[Vec<String>; 3], String> {
    let old_set = TrackedFiles::discover(root);
    let old = match &old_set {
        Ok(t) => outcome(
            root,
            &SnapshotOptions {
                tracked: Arc::new(t.clone()),
                ..base_opts.clone()
            },
        ),
        Err(e) => Err(e.to_string()),
    };
    let new_set = TrackedFiles::discover_deferred(root).expect("no top-level git error here");
    let new = outcome(
        root,
        &SnapshotOptions {
            tracked: Arc::new(new_set.clone()),
            ..base_opts.clone()
        },
    );
    assert_eq!(new, old, "{name}: {}", root.display());
    // The set the walk settled (shared by the clone the scan had) is the search's.
    match old_set {
        Ok(t) => {
            assert!(new_set.resolve().is_ok(), "{name}");
            assert_eq!(
                new_set.iter().collect::<Vec<_>>(),
                t.iter().collect::<Vec<_>>(),
                "{name}"
            );
            assert_eq!(new_set.non_utf8(), t.non_utf8(), "{name}");
            assert_eq!(new_set, t, "{name}");
        }
        Err(e) => assert_eq!(new_set.resolve().unwrap_err().to_string(), e.to_string()),
    }
    old
}

fn trees(count: u64) {
    let mut nested_members = 0;
    let mut errors = 0;
    for seed in 0..count {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let root = build(&base, seed);
        for (name, opts) in variants(&base, &root) {
            match compare(&root, &format!("seed {seed} {name}"), &opts) {
                Ok([files, _, _]) => {
                    nested_members += files.iter().filter(|f| f.ends_with("Cargo.lock")).count()
                }
                Err(_) => errors += 1,
            }
        }
    }
    // The generator reaches both outcomes: members from nested indexes, and errors.
    assert!(
        nested_members > 0 && errors > 0,
        "{nested_members} {errors}"
    );
}

/// Many generated trees, each under four option variants; more with GENESIS_EXHAUSTIVE=1.
#[test]
fn generated_trees_give_the_old_membership() {
    trees(if exhaustive() { 60 } else { 6 });
}

/// One tree with a repository in each position, and the exact members.
#[test]
fn every_position_exact_members() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("w");
    write(&root.join(".gitignore"), b"ign/\n*.tmp\n/Cargo.lock\n");
    write(&root.join("top.txt"), b"t\n");
    repo(&root.join("r1"));
    // Walked into although no index lists it: nested in nested.
    repo(&root.join("r1/inner"));
    // Only a gitlink reaches it: r1's rules ignore its directory.
    repo(&root.join("r1/hid/sub"));
    write(&root.join("r1/hid/.gitignore"), b"*\n");
    gitlink(&root.join("r1"), "hid/sub");
    // A file r1 tracks in a directory its rules ignore does not make the search enter it: the
    // repository embedded there is not read.
    write(&root.join("r1/shadow/.gitignore"), b"*\n");
    write(&root.join("r1/shadow/t.txt"), b"t\n");
    git(&root.join("r1"), &["add", "-f", "shadow/t.txt"]);
    repo(&root.join("r1/shadow/emb"));
    // In an ignored directory: not entered, its index not read.
    repo(&root.join("ign/r3"));
    // In a directory only `exclude` leaves out: found, and left out by `exclude`.
    repo(&root.join("exc/r4"));
    let opts = SnapshotOptions {
        exclude: vec!["exc".into()],
        ..SnapshotOptions::default()
    };
    let [files, tracked_only, _] = compare(&root, "positions", &opts).unwrap();
    let expect = [
        ".gitignore",
        "r1/.gitignore",
        "r1/Cargo.lock",
        "r1/hid/sub/.gitignore",
        "r1/hid/sub/Cargo.lock",
        "r1/hid/sub/lib.rs",
        "r1/hid/sub/n.tmp",
        "r1/inner/.gitignore",
        "r1/inner/Cargo.lock",
        "r1/inner/lib.rs",
        "r1/inner/n.tmp",
        "r1/lib.rs",
        "r1/n.tmp",
        "r1/shadow/t.txt",
        "top.txt",
    ];
    assert_eq!(files, expect);
    assert_eq!(
        tracked_only,
        [
            "r1/Cargo.lock",
            "r1/hid/sub/.gitignore",
            "r1/hid/sub/Cargo.lock",
            "r1/hid/sub/lib.rs",
            "r1/hid/sub/n.tmp",
            "r1/inner/Cargo.lock",
            "r1/inner/n.tmp",
            "r1/n.tmp",
            "r1/shadow/t.txt",
        ]
    );
    let set = TrackedFiles::discover(&root).unwrap();
    assert!(set.contains("exc/r4/Cargo.lock"));
    assert!(!set.contains("ign/r3/lib.rs"));
    assert!(!set.contains("r1/shadow/emb/lib.rs"));
    assert_eq!(set.len(), 17);
}

/// A broken nested index the walk reaches is the scan's error, as it was `discover`'s, even
/// when the walk finds another error of its own (a non-UTF-8 name).
#[test]
fn broken_nested_index_is_reported_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    repo(&root.join("bad"));
    std::fs::write(root.join("bad/.git/index"), b"DIRC garbage").unwrap();
    write(&root.join(std::ffi::OsStr::from_bytes(b"z\xff")), b"x\n");
    let t = TrackedFiles::discover_deferred(&root).unwrap();
    let opts = SnapshotOptions {
        tracked: Arc::new(t.clone()),
        ..SnapshotOptions::default()
    };
    let e = scan(&root, &opts).unwrap_err().to_string();
    let index = root.join("bad/.git/index");
    assert!(
        e.starts_with(&format!("{}: git index cannot be read", index.display())),
        "{e}"
    );
    assert_eq!(e, TrackedFiles::discover(&root).unwrap_err().to_string());
    assert_eq!(t.resolve().unwrap_err().to_string(), e);
}
