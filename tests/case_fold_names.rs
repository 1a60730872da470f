//! Names equal under case folding or Unicode normalisation (issue 9, item 5): a snapshot holding
//! two of them is reported (it cannot be checked out on macOS or Windows), and `check` and
//! `diff --name-status` print non-ASCII names quoted as git does (core.quotePath), so composed
//! and decomposed `café.txt` look different.

mod common;

use common::*;

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

/// Full Unicode case folding (Unicode 16 `CaseFolding.txt`, C and F): final sigma `ς`, sigma `σ`
/// and capital sigma `Σ` are one letter, and `ß` is `ss`; names that differ otherwise (`σ` and
/// `ο`, `strase` and `straße`, `ß` and `s`) are not flagged.
#[test]
fn full_case_folding_merges_final_sigma_and_sharp_s_only() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    write_tree(
        &t,
        &[
            ("ΟΔΟΣ.txt", b"1\n"),
            ("οδος.txt", b"2\n"),
            ("οδοσ.txt", b"3\n"),
            ("straße.txt", b"4\n"),
            ("STRASSE.txt", b"5\n"),
            // Distinct names, none of which may be reported.
            ("οδοο.txt", b"6\n"),
            ("strase.txt", b"7\n"),
            ("straẞenbahn/x", b"8\n"),
            ("strasenbahn/x", b"9\n"),
            ("Ärger.txt", b"a\n"),
            ("arger.txt", b"b\n"),
        ],
    );
    let o = run_in(d.path(), &["snapshot", "--no-store", "--identity", "t"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let warn = |names: &str| {
        format!(
            "genesis: warning: {names} differ only by case or Unicode normalisation; this snapshot cannot be checked out on a case-insensitive or normalising file system (macOS, Windows)\n"
        )
    };
    assert_eq!(
        stderr(&o),
        [
            warn("STRASSE.txt and \"stra\\303\\237e.txt\""),
            warn(
                "\"\\316\\237\\316\\224\\316\\237\\316\\243.txt\" and \"\\316\\277\\316\\264\\316\\277\\317\\202.txt\" and \"\\316\\277\\316\\264\\316\\277\\317\\203.txt\""
            ),
        ]
        .concat()
    );
    let o = run_in(d.path(), &["--json", "snapshot", "--no-store", "t"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["collisions"],
        serde_json::json!([
            ["STRASSE.txt", "straße.txt"],
            ["ΟΔΟΣ.txt", "οδος.txt", "οδοσ.txt"]
        ])
    );
}

#[test]
fn patch_refuses_a_name_that_folds_onto_an_existing_one() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
            ),
            ("οδος.txt", b"street\n"),
            ("Maße.txt", b"m\n"),
        ],
    );
    let o = run_in(d.path(), &["open", "--session", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let add = |name: &str| {
        format!(
            "diff --git a/{name} b/{name}\nnew file mode 100644\n--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+x\n"
        )
    };
    let session = d.path().join(".genesis/sessions/s.json");
    let before = std::fs::read(&session).unwrap();
    for (name, other) in [("ΟΔΟΣ.txt", "οδος.txt"), ("MASSE.txt", "Maße.txt")] {
        std::fs::write(d.path().join("p.diff"), add(name)).unwrap();
        let o = run_in(d.path(), &["patch", "s", "p.diff"]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "genesis: error: patch refused, nothing recorded: patch line 1: path {name} would stand beside {other} in the result; they differ only by case or Unicode normalisation, so they cannot both exist on a case-insensitive or normalising file system (macOS, Windows)\n"
            )
        );
        assert_eq!(std::fs::read(&session).unwrap(), before);
    }
    // A name that differs by more than case is accepted.
    std::fs::write(d.path().join("p.diff"), add("οδοι.txt")).unwrap();
    let o = run_in(d.path(), &["patch", "s", "p.diff"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
