//! Hostile input: each case asserts the exit status, the error text, and that nothing was
//! written — the workspace (a canary tree compared by identity), a canary file outside the
//! root, the session document and the list of files in the store are all unchanged.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::*;

struct Env {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    canary: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write_tree(
        &ws,
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","limits":{"max_patch_bytes":65536}}"#,
            ),
            ("a.txt", b"a\n"),
            ("dup.txt", b"x\nsame\ny\nx\nsame\ny\nend\n"),
            ("src/lib.rs", b"pub fn f() {}\n"),
        ],
    );
    let canary = tmp.path().join("canary.txt");
    std::fs::write(&canary, b"outside\n").unwrap();
    let o = run_in(&ws, &["open", "--session", "h"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    Env {
        _tmp: tmp,
        ws,
        canary,
    }
}

fn store_files(root: &Path) -> BTreeSet<PathBuf> {
    walkdir::WalkDir::new(root.join(".genesis"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() != "lock")
        .map(|e| e.path().to_path_buf())
        .collect()
}

struct State {
    identity: String,
    session: Vec<u8>,
    store: BTreeSet<PathBuf>,
    canary: Vec<u8>,
}

fn state(e: &Env) -> State {
    State {
        identity: stdout(&run_in(&e.ws, &["snapshot", "--no-store", "--identity"])),
        session: std::fs::read(e.ws.join(".genesis/sessions/h.json")).unwrap(),
        store: store_files(&e.ws),
        canary: std::fs::read(&e.canary).unwrap(),
    }
}

fn assert_nothing_written(e: &Env, before: &State, case: &str) {
    let after = state(e);
    assert_eq!(after.identity, before.identity, "{case}: workspace changed");
    assert_eq!(after.session, before.session, "{case}: session changed");
    assert_eq!(after.store, before.store, "{case}: store files changed");
    assert_eq!(after.canary, before.canary, "{case}: canary changed");
}

#[test]
fn hostile_patches_are_refused_and_nothing_is_written() {
    let e = env();
    let before = state(&e);
    let long = "d/".repeat(2100) + "f";
    let cases: Vec<(&str, Vec<u8>, i32, &str)> = vec![
        ("traversal in ---/+++", b"--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n".to_vec(), 2, "'.' and '..' components are not allowed"),
        ("traversal in diff --git", new_file_diff("../x"), 2, "'.' and '..' components are not allowed"),
        ("traversal in rename to", b"diff --git a/a.txt b/x\nsimilarity index 100%\nrename from a.txt\nrename to ../x\n".to_vec(), 2, "'.' and '..' components are not allowed"),
        ("traversal in copy to", b"diff --git a/a.txt b/x\nsimilarity index 100%\ncopy from a.txt\ncopy to ../../x\n".to_vec(), 2, "'.' and '..' components are not allowed"),
        ("traversal in a quoted name", b"diff --git \"a/\\056\\056/x\" \"b/\\056\\056/x\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/\\056\\056/x\"\n@@ -0,0 +1 @@\n+x\n".to_vec(), 2, "'.' and '..' components are not allowed"),
        ("absolute path", b"diff --git a//etc/passwd b//etc/passwd\nnew file mode 100644\n--- /dev/null\n+++ b//etc/passwd\n@@ -0,0 +1 @@\n+x\n".to_vec(), 2, "absolute paths are not allowed"),
        ("drive-letter path", new_file_diff("C:/Windows/x"), 2, "drive-letter path"),
        ("new symbolic link (mode 120000)", b"diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n".to_vec(), 2, "mode 120000 is not supported"),
        ("gitlink (mode 160000)", b"diff --git a/sub b/sub\nnew file mode 160000\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1234567890123456789012345678901234567890\n".to_vec(), 2, "mode 160000 is not supported"),
        (".git", new_file_diff(".git/config"), 2, "a `.git` component"),
        (".GIT", new_file_diff(".GIT/config"), 2, "a `.git` component"),
        ("nested .Git", new_file_diff("sub/.Git/hooks/pre-commit"), 2, "a `.git` component"),
        ("the store", new_file_diff(".genesis/sessions/evil.json"), 2, "`.genesis` is the engine's store"),
        ("two entries for one path", [new_file_diff("n.txt"), new_file_diff("n.txt")].concat(), 2, "n.txt"),
        ("case collision", [new_file_diff("Readme.md"), new_file_diff("README.md")].concat(), 2, "differ only by case or Unicode normalisation"),
        ("normalisation collision", b"diff --git \"a/caf\\303\\251\" \"b/caf\\303\\251\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\303\\251\"\n@@ -0,0 +1 @@\n+x\ndiff --git \"a/cafe\\314\\201\" \"b/cafe\\314\\201\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/cafe\\314\\201\"\n@@ -0,0 +1 @@\n+y\n".to_vec(), 2, "differ only by case or Unicode normalisation"),
        ("counts disagree with the body", b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-a\n+b\n".to_vec(), 2, "hunk 1"),
        ("huge counts", b"--- a/a.txt\n+++ b/a.txt\n@@ -1,99999999999 +1 @@\n-a\n+b\n".to_vec(), 2, "a.txt"),
        ("truncated patch", b"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-a\n".to_vec(), 2, "hunk 1"),
        ("NUL in a header", b"--- a/a\0.txt\n+++ b/a\0.txt\n@@ -1 +1 @@\n-a\n+b\n".to_vec(), 2, "NUL"),
        ("invalid UTF-8 in a header", b"--- a/\xff.txt\n+++ b/\xff.txt\n@@ -1 +1 @@\n-a\n+b\n".to_vec(), 2, "UTF-8"),
        ("binary stub without content", b"diff --git a/x.bin b/x.bin\nindex 1234567..89abcde 100644\nBinary files a/x.bin and b/x.bin differ\n".to_vec(), 2, "regenerate the diff with `git diff --binary`"),
        ("empty input", Vec::new(), 2, "holds no file change"),
        ("garbage", b"rm -rf /\n".to_vec(), 2, "holds no file change"),
        ("backslash", new_file_diff("b\\\\c"), 2, "backslash is not allowed"),
        ("path too long", new_file_diff(&long), 2, "path"),
        // Context on both sides, found twice and not at the stated line: refused, not guessed (a
        // hunk without trailing context would be anchored to the end of the file, as in git).
        ("context found twice", b"--- a/dup.txt\n+++ b/dup.txt\n@@ -9,3 +9,3 @@\n x\n-same\n+other\n y\n".to_vec(), 2, "dup.txt"),
        ("delete of a file that differs", b"diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-not a\n".to_vec(), 2, "a.txt"),
        ("create over an existing file", new_file_diff("a.txt"), 2, "a.txt"),
        ("a file where a directory is", new_file_diff("src"), 2, "src"),
        ("adds an ignored path", b"diff --git a/.gitignore b/.gitignore\nnew file mode 100644\n--- /dev/null\n+++ b/.gitignore\n@@ -0,0 +1 @@\n+*.txt\n".to_vec(), 2, "ignored by .gitignore"),
        ("over the manifest's patch size limit", [b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+".to_vec(), vec![b'b'; 70000], b"\n".to_vec()].concat(), 2, "over the limit of 65536 bytes"),
    ];
    let n = cases.len();
    for (name, input, code, text) in cases {
        let o = patch_stdin(&e.ws, "h", &input);
        assert_eq!(o.status.code(), Some(code), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(text),
            "{name}: expected {text:?} in {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{name}");
        assert_nothing_written(&e, &before, name);
    }
    eprintln!("{n} hostile patches refused");
}

#[test]
fn write_through_an_existing_symlink_is_refused_at_apply() {
    let e = env();
    let outside = e.canary.parent().unwrap().join("outside-dir");
    std::fs::create_dir(&outside).unwrap();
    // The patch adds linkdir/x; on disk linkdir becomes a link to a directory outside.
    let o = patch_stdin(&e.ws, "h", &new_file_diff("linkdir/x"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(run_in(&e.ws, &["verify", "h"]).status.code(), Some(0));
    std::os::unix::fs::symlink(&outside, e.ws.join("linkdir")).unwrap();
    let o = run_in(&e.ws, &["apply", "h"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("linkdir is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
}

#[test]
fn invalid_manifest_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    write_tree(
        tmp.path(),
        &[("genesis.json", b"{not json"), ("a.txt", b"a\n")],
    );
    let o = run_in(tmp.path(), &["open"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("genesis.json: invalid JSON"),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join(".genesis").exists());
    let o = run_in(tmp.path(), &["open", "--manifest", "a.txt"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::create_dir(tmp.path().join("m")).unwrap();
    let o = run_in(tmp.path(), &["open", "--manifest", "m"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!tmp.path().join(".genesis").exists());
}

#[test]
fn session_pointing_at_a_missing_snapshot_is_reported() {
    let e = env();
    let p = e.ws.join(".genesis/sessions/h.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    doc["current_snapshot"] = serde_json::json!("b".repeat(64));
    std::fs::write(&p, serde_json::to_vec(&doc).unwrap()).unwrap();
    let before = state(&e);
    for args in [
        vec!["status", "h"],
        vec!["verify", "h"],
        vec!["apply", "h"],
        vec!["replay", "h"],
    ] {
        let o = run_in(&e.ws, &args);
        assert_eq!(o.status.code(), Some(4), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "/current_snapshot: snapshot {} is not in the store",
                "b".repeat(64)
            )),
            "{}",
            stderr(&o)
        );
    }
    let o = patch_stdin(
        &e.ws,
        "h",
        b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert_eq!(o.status.code(), Some(4));
    assert_nothing_written(&e, &before, "missing snapshot");
}
