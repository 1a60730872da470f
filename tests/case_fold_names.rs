//! Names equal under case folding or Unicode normalisation (issue 9, item 5): a snapshot holding
//! two of them is reported (it cannot be checked out on macOS or Windows), and `check` and
//! `diff --name-status` print non-ASCII names quoted as git does (core.quotePath), so composed
//! and decomposed `café.txt` look different.

mod common;

use common::{run_in, stderr, stdout, write_tree};

const NFC: &str = "caf\u{e9}.txt";
const NFD: &str = "cafe\u{301}.txt";

#[test]
fn snapshot_reports_names_equal_under_case_folding_or_nfc() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    write_tree(
        &t,
        &[
            (NFC, b"composed\n"),
            (NFD, b"decomposed\n"),
            ("README.md", b"a\n"),
            ("readme.md", b"b\n"),
            ("Src/x.rs", b"x\n"),
            ("src/y.rs", b"y\n"),
            ("plain.txt", b"p\n"),
        ],
    );
    let o = run_in(d.path(), &["snapshot", "--no-store", "--identity", "t"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).len(), 65);
    let warn = |names: &str| {
        format!(
            "genesis: warning: {names} differ only by case or Unicode normalisation; this snapshot cannot be checked out on a case-insensitive or normalising file system (macOS, Windows)\n"
        )
    };
    assert_eq!(
        stderr(&o),
        [
            warn("README.md and readme.md"),
            warn("Src and src"),
            warn("\"cafe\\314\\201.txt\" and \"caf\\303\\251.txt\""),
        ]
        .concat()
    );
    let o = run_in(d.path(), &["--json", "snapshot", "--no-store", "t"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["collisions"],
        serde_json::json!([["README.md", "readme.md"], ["Src", "src"], [NFD, NFC]])
    );
}

#[test]
fn a_tree_without_such_names_reports_nothing() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    write_tree(&t, &[(NFC, b"composed\n"), ("README.md", b"a\n")]);
    let o = run_in(d.path(), &["--json", "snapshot", "--no-store", "t"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["collisions"], serde_json::json!([]));
}

#[test]
fn check_and_name_status_quote_names_so_nfc_and_nfd_differ() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    write_tree(&a, &[(NFC, b"x\n"), ("same.txt", b"s\n")]);
    write_tree(&b, &[(NFD, b"x\n"), ("same.txt", b"s\n")]);
    let doc = run_in(d.path(), &["snapshot", "--no-store", "a"]);
    assert_eq!(doc.status.code(), Some(0));
    std::fs::write(d.path().join("a.json"), &doc.stdout).unwrap();
    let o = run_in(d.path(), &["check", "b", "--expect", "a.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(
        lines,
        ["A\t\"cafe\\314\\201.txt\"", "D\t\"caf\\303\\251.txt\""]
    );
    let o = run_in(d.path(), &["diff", "a", "b", "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "A\t\"cafe\\314\\201.txt\"\nD\t\"caf\\303\\251.txt\"\n"
    );
    // --json keeps the names as they are.
    let o = run_in(d.path(), &["--json", "diff", "a", "b", "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(NFD), "{}", stdout(&o));
}

#[test]
fn open_reports_them_too() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
            ),
            (NFC, b"composed\n"),
            (NFD, b"decomposed\n"),
        ],
    );
    let o = run_in(d.path(), &["--json", "open", "--session", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: warning: \"cafe\\314\\201.txt\" and \"caf\\303\\251.txt\" differ only by case or Unicode normalisation; this snapshot cannot be checked out on a case-insensitive or normalising file system (macOS, Windows)\n"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["collisions"], serde_json::json!([[NFD, NFC]]));
}
