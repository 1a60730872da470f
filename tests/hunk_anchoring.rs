//! Hunks anchored to the start or the end of a file, as `git apply` anchors them (issue 9, item
//! 9), end to end through the CLI: exact bytes on disk, exact exit codes and messages.
//!
//! A hunk whose old range starts at line 0 or 1 must match at the start of the file; a hunk with
//! no context after its last change must match at the end. A diff made against a stale file
//! therefore never lands silently somewhere else. See `src/patch/mod.rs`, "Hunks".

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const MANIFEST: &[u8] = br#"{"schema": "genesis/manifest-v0.1", "obligations": []}"#;

fn ws(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("ws");
    write_tree(&root, &[("genesis.json", MANIFEST)]);
    write_tree(&root, files);
    let o = run_in(&root, &["open", "--session", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    d
}

fn root(d: &tempfile::TempDir) -> std::path::PathBuf {
    d.path().join("ws")
}

/// Records, verifies and applies `diff`; returns the file's bytes on disk afterwards.
fn patch_and_apply(r: &Path, diff: &[u8], file: &str) -> Vec<u8> {
    let o = patch_stdin(r, "s", diff);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(r, &["verify", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(r, &["apply", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::read(r.join(file)).unwrap()
}

/// The refusal left nothing behind: no change recorded, the file untouched.
fn nothing_recorded(r: &Path, file: &str, bytes: &[u8]) {
    let o = run_in(r, &["diff", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(std::fs::read(r.join(file)).unwrap(), bytes);
}

/// `git apply --check` of `diff` on a directory holding `file` = `bytes`: its exit code.
fn git_check(file: &str, bytes: &[u8], diff: &[u8]) -> Option<i32> {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(file), bytes).unwrap();
    std::fs::write(d.path().join("p.diff"), diff).unwrap();
    Command::new("git")
        .args(["apply", "--check", "p.diff"])
        .current_dir(d.path())
        .env("GIT_CEILING_DIRECTORIES", d.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", d.path())
        .output()
        .unwrap()
        .status
        .code()
}

/// The issue's example: context `a b c` then `+APPENDED`, no trailing context, so the hunk ends
/// the file; the file has gained a line `last` since.
const APPEND: &[u8] = b"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n b\n c\n+APPENDED\n";

#[test]
fn end_of_file_hunk_is_refused_when_the_file_has_grown() {
    let grown: &[u8] = b"a\nb\nc\nlast\n";
    assert_eq!(git_check("f.txt", grown, APPEND), Some(1), "git refuses it");
    let d = ws(&[("f.txt", grown)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", APPEND);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: f.txt: hunk 1 (patch line 3, stated at line 1) does not apply: its old range starts at line 0 or 1 and it has no context lines after its last change, so like `git apply` it must match at the start and the end of the file, and it does not (its context and removed lines occur at line 1; the patch was made against another version of the file)\n"
    );
    nothing_recorded(&r, "f.txt", grown);
}

#[test]
fn end_of_file_hunk_applies_at_the_end() {
    let exact: &[u8] = b"a\nb\nc\n";
    assert_eq!(git_check("f.txt", exact, APPEND), Some(0));
    let d = ws(&[("f.txt", exact)]);
    assert_eq!(
        patch_and_apply(&root(&d), APPEND, "f.txt"),
        b"a\nb\nc\nAPPENDED\n"
    );
}

/// Lines added at the top since: an end-anchored hunk (stated at line 8 of 10) still belongs at
/// the end, which is where git and Genesis put it.
#[test]
fn end_anchored_hunk_follows_the_end_when_lines_were_added_at_the_top() {
    let numbers: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let stale = format!("new 1\nnew 2\n{numbers}");
    let diff = b"--- a/n.txt\n+++ b/n.txt\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n";
    assert_eq!(git_check("n.txt", stale.as_bytes(), diff), Some(0));
    let d = ws(&[("n.txt", stale.as_bytes())]);
    assert_eq!(
        patch_and_apply(&root(&d), diff, "n.txt"),
        format!("{stale}11\n").into_bytes()
    );
}

/// Lines added at the end since: the hunk would no longer end the file; git refuses, and so
/// does Genesis (before, it put `11` above the new lines).
#[test]
fn end_anchored_hunk_is_refused_when_lines_were_added_at_the_end() {
    let stale = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nnew\n";
    let diff = b"--- a/n.txt\n+++ b/n.txt\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n";
    assert_eq!(git_check("n.txt", stale, diff), Some(1));
    let d = ws(&[("n.txt", stale)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: n.txt: hunk 1 (patch line 3, stated at line 8) does not apply: it has no context lines after its last change, so like `git apply` it must match at the end of the file, and it does not (its context and removed lines occur at line 8; the patch was made against another version of the file)\n"
    );
    nothing_recorded(&r, "n.txt", stale);
}

/// A hunk with no leading context stated at line 1 belongs at the start: with a new first line
/// `x`, git refuses it, and so does Genesis (before, it moved it below `x`).
#[test]
fn start_of_file_hunk_is_refused_below_a_new_first_line() {
    let diff = b"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n+NEW\n a\n b\n";
    let stale: &[u8] = b"x\na\nb\n";
    assert_eq!(git_check("f.txt", stale, diff), Some(1));
    let d = ws(&[("f.txt", stale)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: f.txt: hunk 1 (patch line 3, stated at line 1) does not apply: its old range starts at line 0 or 1, so like `git apply` it must match at the start of the file, and it does not (its context and removed lines occur at line 2; the patch was made against another version of the file)\n"
    );
    nothing_recorded(&r, "f.txt", stale);

    let exact: &[u8] = b"a\nb\nc\n";
    assert_eq!(git_check("f.txt", exact, diff), Some(0));
    let d = ws(&[("f.txt", exact)]);
    assert_eq!(patch_and_apply(&root(&d), diff, "f.txt"), b"NEW\na\nb\nc\n");
}

/// Context that fails only because of line endings, or only in whitespace: the error says so,
/// naming the file, the hunk and the file line; nothing is applied.
#[test]
fn line_ending_and_whitespace_mismatches_are_named() {
    let crlf: &[u8] = b"one\r\ntwo\r\nthree\r\nfour\r\n";
    let lf_diff = b"--- a/w.txt\n+++ b/w.txt\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n";
    let d = ws(&[("w.txt", crlf)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", lf_diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: w.txt: hunk 1 (patch line 3) does not apply at line 2 nor anywhere else: its lines differ from the file only in line endings (at file line 2 the file has CRLF where the patch has LF); regenerate the diff from the file as it is\n"
    );
    nothing_recorded(&r, "w.txt", crlf);

    // The reverse: an LF file, a CRLF diff.
    let lf: &[u8] = b"one\ntwo\nthree\nfour\n";
    let crlf_diff =
        b"--- a/w.txt\n+++ b/w.txt\n@@ -2,3 +2,3 @@\n two\r\n-three\r\n+THREE\r\n four\r\n";
    let d = ws(&[("w.txt", lf)]);
    let o = patch_stdin(&root(&d), "s", crlf_diff);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "w.txt: hunk 1 (patch line 3) does not apply at line 2 nor anywhere else: its lines differ from the file only in line endings (at file line 2 the file has LF where the patch has CRLF)"
        ),
        "{}",
        stderr(&o)
    );
    nothing_recorded(&root(&d), "w.txt", lf);

    // Whitespace: the file is indented with spaces, the diff with a tab.
    let src: &[u8] = b"fn main() {\n    body();\n}\n";
    let tab_diff =
        b"--- a/m.rs\n+++ b/m.rs\n@@ -1,3 +1,4 @@\n fn main() {\n \tbody();\n+\tmore();\n }\n";
    assert_eq!(git_check("m.rs", src, tab_diff), Some(1));
    let d = ws(&[("m.rs", src)]);
    let o = patch_stdin(&root(&d), "s", tab_diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: m.rs: hunk 1 (patch line 3) does not apply at line 1 nor anywhere else: its lines differ from the file only in whitespace (from file line 1); whitespace is never ignored, regenerate the diff from the file as it is\n"
    );
    nothing_recorded(&root(&d), "m.rs", src);
}

/// `git apply` of `diff` on `file` = `bytes`: the file's bytes afterwards, or git's error.
fn git_result(file: &str, bytes: &[u8], diff: &[u8]) -> Result<Vec<u8>, String> {
    let tree: common::git_apply::Files = [(file.to_owned(), (bytes.to_vec(), false))].into();
    common::git_apply::git_apply(&tree, diff).map(|t| t[file].0.clone())
}

/// The reviewer's case (issue 9, "nothing wrongly refused"): `git diff -U2` of appending
/// `APPENDED` to `x } } mid } }`, so the hunk (context `}` `}`, stated at line 5) has no
/// trailing context and is anchored to the end. The file has gained a first line since, and
/// `}` `}` also occurs at lines 3-4. The end is the hunk's one legal place: Genesis applies it
/// there, like git, instead of refusing it as ambiguous.
#[test]
fn end_anchored_hunk_with_repeated_context_applies_at_the_end() {
    let diff = b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -5,2 +5,3 @@ mid\n }\n }\n+APPENDED\n";
    let stale: &[u8] = b"stale top\nx\n}\n}\nmid\n}\n}\n";
    let expected: &[u8] = b"stale top\nx\n}\n}\nmid\n}\n}\nAPPENDED\n";
    assert_eq!(git_result("f.txt", stale, diff).as_deref(), Ok(expected));
    let d = ws(&[("f.txt", stale)]);
    assert_eq!(patch_and_apply(&root(&d), diff, "f.txt"), expected);

    // The same hunk on a file whose end has changed: git refuses, and so does Genesis, naming
    // the anchor (the context still occurs at line 3).
    let moved: &[u8] = b"x\n}\n}\nmid\n}\n}\nlast\n";
    assert!(git_result("f.txt", moved, diff).is_err());
    let d = ws(&[("f.txt", moved)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: f.txt: hunk 1 (patch line 4, stated at line 5) does not apply: it has no context lines after its last change, so like `git apply` it must match at the end of the file, and it does not (its context and removed lines occur at line 5; the patch was made against another version of the file)\n"
    );
    nothing_recorded(&r, "f.txt", moved);
}

/// A change at the top (old range at line 1, so anchored to the start) whose context also
/// occurs at the end of the file, which has gained those lines since: applied at the start, like
/// git; and an unanchored hunk with the same repeated context is still refused as ambiguous.
#[test]
fn start_anchored_hunk_with_repeated_context_applies_at_the_start() {
    let diff =
        b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n";
    let stale: &[u8] = b"a\nb\nc\nd\na\nb\nc\n";
    let expected: &[u8] = b"A\nb\nc\nd\na\nb\nc\n";
    assert_eq!(git_result("f.txt", stale, diff).as_deref(), Ok(expected));
    let d = ws(&[("f.txt", stale)]);
    assert_eq!(patch_and_apply(&root(&d), diff, "f.txt"), expected);

    // Unanchored (stated at line 3, with context on both sides) and not at its stated place:
    // its old lines occur twice, so Genesis refuses to guess (git would take the nearer).
    let diff =
        b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,3 @@\n a\n-b\n+B\n c\n";
    let stale: &[u8] = b"a\nb\nc\nd\na\nb\nc\ne\n";
    assert!(git_result("f.txt", stale, diff).is_ok());
    let d = ws(&[("f.txt", stale)]);
    let r = root(&d);
    let o = patch_stdin(&r, "s", diff);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: f.txt: hunk 1 (patch line 4) does not match at line 3, and its context occurs 2 times elsewhere in the file; refusing to guess\n"
    );
    nothing_recorded(&r, "f.txt", stale);
}
