//! Issue 12 reviewer, item 9: messages that said something else than what happened.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

#[test]
fn man_dir_that_is_a_file_is_not_a_directory() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f"), b"x").unwrap();
    let o = run_in(d.path(), &["man", "--dir", "f"]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(stderr(&o), "genesis: error: --dir f: not a directory\n");
}

#[test]
fn check_expect_says_what_it_takes() {
    let ws = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let o = run_in(ws.path(), &["check", "--expect", "zzzz"]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: --expect \"zzzz\": neither a snapshot identity (64 hex digits, or a unique prefix of 4 or more) nor an existing file\n"
    );
}

#[test]
fn rebase_of_a_session_without_patches_says_so() {
    let ws = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = ws.path();
    ok(&run_in(r, &["init", "-q"]));
    ok(&run_in(r, &["open", "-q", "--session", "s"]));
    std::fs::write(r.join("b.txt"), b"b\n").unwrap();
    let out = ok(&run_in(r, &["rebase", "s"]));
    assert!(
        out.ends_with(": it has no patches; no patch recorded\n"),
        "{out}"
    );
}

#[test]
fn an_add_add_conflict_is_worded() {
    let ws = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = ws.path();
    ok(&run_in(r, &["init", "-q"]));
    ok(&run_in(r, &["open", "-q", "--session", "s"]));
    let diff = b"--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+l1\n+l2\n";
    ok(&run_stdin(r, &["patch", "-q", "s", "-"], diff));
    std::fs::write(r.join("n.txt"), b"l1\nX\n").unwrap();
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    assert!(
        stderr(&o).contains("(both added at the start of the file)\n"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("none (after"), "{}", stderr(&o));
}
