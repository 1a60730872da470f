//! `genesis diff --stat` and `--name-status` print names as git does with core.quotePath
//! (issue 9 leftover): a name with a space as is; one with `"`, or a non-ASCII byte, in `"…"`
//! with C and octal escapes. Checked against `git diff --stat` / `--name-status` of the same
//! change (differential), and against exact bytes.

mod common;

use common::*;

/// Tree A and tree B: a modification, additions, a deletion and a binary change, under names
/// that need quoting and names that do not. (The path rules refuse backslashes and control
/// characters, so those cannot occur in a snapshot.)
const A: &[(&str, &[u8])] = &[
    ("plain.txt", b"one\ntwo\n"),
    ("with space.txt", b"a\nb\nc\n"),
    ("caf\u{e9}.txt", b"x\n"),
    ("gone \"quoted\".txt", b"bye\n"),
    ("dir \u{3a3}/bin\u{e4}r.dat", b"\x00\x01\x02"),
];
const B: &[(&str, &[u8])] = &[
    ("plain.txt", b"one\nTWO\nthree\n"),
    ("with space.txt", b"a\nc\n"),
    ("caf\u{e9}.txt", b"x\ny\n"),
    ("new \"q\" \u{3bf}\u{3b4}\u{3bf}\u{3c2}.txt", b"1\n2\n"),
    ("dir \u{3a3}/bin\u{e4}r.dat", b"\x00\x01\x02\x03"),
];

/// Genesis's and git's output for the change A → B, with `flag`.
fn both(flag: &str) -> (String, String) {
    let d = tempfile::tempdir().unwrap();
    let (a, b, g) = (d.path().join("a"), d.path().join("b"), d.path().join("g"));
    write_tree(&a, A);
    write_tree(&b, B);
    let o = run_in(d.path(), &["diff", "a", "b", flag]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ours = stdout(&o);
    write_tree(&g, A);
    git(&g, &["init", "-q"]);
    git(&g, &["add", "-A"]);
    git(&g, &["commit", "-qm", "a"]);
    for (p, _) in A {
        std::fs::remove_file(g.join(p)).unwrap();
    }
    write_tree(&g, B);
    git(&g, &["add", "-A"]);
    let theirs = git(&g, &["diff", "--cached", "--no-renames", flag]);
    (ours, theirs)
}

#[test]
fn stat_quotes_names_as_git_does() {
    let (ours, theirs) = both("--stat");
    assert_eq!(ours, theirs);
    assert_eq!(
        ours,
        concat!(
            " \"caf\\303\\251.txt\"                                |   1 +\n",
            " \"dir \\316\\243/bin\\303\\244r.dat\"                  | Bin 3 -> 4 bytes\n",
            " \"gone \\\"quoted\\\".txt\"                            |   1 -\n",
            " \"new \\\"q\\\" \\316\\277\\316\\264\\316\\277\\317\\202.txt\" |   2 ++\n",
            " plain.txt                                        |   3 ++-\n",
            " with space.txt                                   |   1 -\n",
            " 6 files changed, 5 insertions(+), 3 deletions(-)\n",
        )
    );
}

#[test]
fn name_status_quotes_names_as_git_does() {
    let (ours, theirs) = both("--name-status");
    assert_eq!(ours, theirs);
    assert_eq!(
        ours,
        concat!(
            "M\t\"caf\\303\\251.txt\"\n",
            "M\t\"dir \\316\\243/bin\\303\\244r.dat\"\n",
            "D\t\"gone \\\"quoted\\\".txt\"\n",
            "A\t\"new \\\"q\\\" \\316\\277\\316\\264\\316\\277\\317\\202.txt\"\n",
            "M\tplain.txt\n",
            "M\twith space.txt\n",
        )
    );
}

#[test]
fn json_stat_keeps_names_unquoted() {
    let d = tempfile::tempdir().unwrap();
    write_tree(&d.path().join("a"), A);
    write_tree(&d.path().join("b"), B);
    let o = run_in(d.path(), &["--json", "diff", "a", "b", "--stat"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    // The names in `files` are the paths themselves; only the `diff` text quotes them, as git.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"caf\u{e9}.txt"), "{out}");
    assert!(paths.iter().all(|p| !p.contains('\\')), "{paths:?}");
    assert!(
        v["diff"]
            .as_str()
            .unwrap()
            .contains("\"a/caf\\303\\251.txt\""),
        "{out}"
    );
}
