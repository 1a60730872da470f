//! Every diff `genesis diff` prints applies with both `git apply` and GNU `patch -p1` (issue 9,
//! item 8). git ends a `---`/`+++` name that holds a space with a TAB; without it GNU patch reads
//! the name only up to the first space and says "can't find file to patch".
//!
//! Limits of GNU patch itself (git's own output has them too), so not tested with it: binary
//! patches, and an *empty* new or deleted file whose name holds a space (there is no
//! `---`/`+++` line, and GNU patch cannot split `diff --git a/x y b/x y`).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::*;

/// The old tree: names with spaces, a quoted non-ASCII name with a space, CRLF, a last line
/// without newline, files deleted and a mode change.
const OLD: &[(&str, &[u8])] = &[
    ("caf\u{e9} x", b"q\n"),
    ("crlf f", b"r\r\ns\r\n"),
    ("gone", b""),
    ("gone file", b"x\n"),
    ("has space.txt", b"a\nb\nc\n"),
    ("no eol", b"p\nq"),
    ("run.sh", b"e\n"),
    ("sub dir/plain", b"1\n2\n"),
];

/// The new tree.
const NEW: &[(&str, &[u8])] = &[
    ("caf\u{e9} x", b"Q\n"),
    ("crlf f", b"r\r\nS\r\n"),
    ("empty", b""),
    ("has space.txt", b"a\nB\nc\n"),
    ("new one", b"n\n"),
    ("no eol", b"p\nQ"),
    ("run.sh", b"e\n"),
    ("sub dir/plain", b"1\ntwo\n"),
];

/// What `genesis diff old new` prints, byte for byte.
const EXPECTED: &[u8] = b"diff --git \"a/caf\\303\\251 x\" \"b/caf\\303\\251 x\"\n\
--- \"a/caf\\303\\251 x\"\t\n\
+++ \"b/caf\\303\\251 x\"\t\n\
@@ -1 +1 @@\n\
-q\n\
+Q\n\
diff --git a/crlf f b/crlf f\n\
--- a/crlf f\t\n\
+++ b/crlf f\t\n\
@@ -1,2 +1,2 @@\n \
r\r\n\
-s\r\n\
+S\r\n\
diff --git a/empty b/empty\n\
new file mode 100644\n\
diff --git a/gone b/gone\n\
deleted file mode 100644\n\
diff --git a/gone file b/gone file\n\
deleted file mode 100644\n\
--- a/gone file\t\n\
+++ /dev/null\n\
@@ -1 +0,0 @@\n\
-x\n\
diff --git a/has space.txt b/has space.txt\n\
--- a/has space.txt\t\n\
+++ b/has space.txt\t\n\
@@ -1,3 +1,3 @@\n \
a\n\
-b\n\
+B\n \
c\n\
diff --git a/new one b/new one\n\
new file mode 100644\n\
--- /dev/null\n\
+++ b/new one\t\n\
@@ -0,0 +1 @@\n\
+n\n\
diff --git a/no eol b/no eol\n\
--- a/no eol\t\n\
+++ b/no eol\t\n\
@@ -1,2 +1,2 @@\n \
p\n\
-q\n\
\\ No newline at end of file\n\
+Q\n\
\\ No newline at end of file\n\
diff --git a/run.sh b/run.sh\n\
old mode 100644\n\
new mode 100755\n\
diff --git a/sub dir/plain b/sub dir/plain\n\
--- a/sub dir/plain\t\n\
+++ b/sub dir/plain\t\n\
@@ -1,2 +1,2 @@\n \
1\n\
-2\n\
+two\n";

fn trees(root: &Path) {
    write_tree(&root.join("old"), OLD);
    write_tree(&root.join("new"), NEW);
    let exe = root.join("new/run.sh");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Every regular file under `dir`: relative path, bytes, executable bit.
fn files(dir: &Path) -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let exec = meta.permissions().mode() & 0o111 != 0;
                out.push((rel, std::fs::read(e.path()).unwrap(), exec));
            }
        }
    }
    out.sort();
    out
}

/// `git apply` of `patch` (a file) in `dir`; returns the exit code and standard error.
fn git_apply(dir: &Path, patch: &Path) -> (Option<i32>, String) {
    let o = Command::new("git")
        .args(["apply", "--whitespace=nowarn"])
        .arg(patch)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// GNU `patch -p1` of `patch` in `dir`, never asking (`-f`: an empty file's deletion would
/// otherwise ask whether the patch is reversed), no backup files.
fn gnu_patch(dir: &Path, patch: &Path) -> (Option<i32>, String) {
    let o = Command::new("patch")
        .args(["-p1", "-f", "--no-backup-if-mismatch", "-i"])
        .arg(patch)
        .current_dir(dir)
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.code(), text)
}

#[test]
fn names_with_spaces_end_with_a_tab_and_both_tools_apply_the_diff() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    trees(r);
    let o = run_in(r, &["diff", "old", "new"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(EXPECTED)
    );
    assert_eq!(o.stdout, EXPECTED);
    let patch = r.join("change.diff");
    std::fs::write(&patch, &o.stdout).unwrap();
    let want = files(&r.join("new"));
    assert_eq!(want.len(), NEW.len());

    assert!(have("git"), "the tests need git");
    let work = r.join("by-git");
    copy_tree(&r.join("old"), &work);
    let (code, err) = git_apply(&work, &patch);
    assert_eq!(code, Some(0), "git apply: {err}");
    assert_eq!(files(&work), want);

    assert!(
        have("patch"),
        "the tests need GNU patch (.ci/run installs it)"
    );
    let work = r.join("by-patch");
    copy_tree(&r.join("old"), &work);
    let (code, out) = gnu_patch(&work, &patch);
    assert_eq!(code, Some(0), "patch -p1: {out}");
    assert_eq!(files(&work), want);
}

/// Without the TAB (the old output), GNU patch cannot find a file whose name holds a space:
/// the check above can fail.
#[test]
fn without_the_tab_gnu_patch_cannot_find_the_file() {
    if !have("patch") {
        panic!("the tests need GNU patch (.ci/run installs it)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    write_tree(&r.join("w"), &[("has space.txt", b"a\nb\nc\n")]);
    let patch = r.join("old-style.diff");
    std::fs::write(
        &patch,
        b"diff --git a/has space.txt b/has space.txt\n--- a/has space.txt\n+++ b/has space.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    )
    .unwrap();
    let (code, out) = gnu_patch(&r.join("w"), &patch);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("can't find file to patch"), "{out}");
    assert_eq!(
        std::fs::read(r.join("w/has space.txt")).unwrap(),
        b"a\nb\nc\n"
    );
}

/// A session's diff (`genesis diff SESSION`) goes through the same printer: recorded with
/// `patch --from`, printed, and applied by GNU patch to a copy of the workspace.
#[test]
fn session_diff_applies_with_gnu_patch() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write_tree(
        &ws,
        &[
            (
                "genesis.json",
                br#"{"schema": "genesis/manifest-v0.1", "obligations": []}"#,
            ),
            ("docs/read me.md", b"# Title\n\nold text\n"),
        ],
    );
    let o = run_in(&ws, &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(&ws, &["open", "--session", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let edited = tmp.path().join("edited");
    write_tree(
        &edited,
        &[
            (
                "genesis.json",
                br#"{"schema": "genesis/manifest-v0.1", "obligations": []}"#,
            ),
            ("docs/read me.md", b"# Title\n\nnew text\n"),
            ("docs/new page.md", b"hello\n"),
        ],
    );
    let o = run_in(&ws, &["patch", "s", "--from", edited.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(&ws, &["diff", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("--- a/docs/read me.md\t\n+++ b/docs/read me.md\t\n"),
        "{text}"
    );
    assert!(
        text.contains("--- /dev/null\n+++ b/docs/new page.md\t\n"),
        "{text}"
    );
    let patch = tmp.path().join("s.diff");
    std::fs::write(&patch, &o.stdout).unwrap();
    let work = tmp.path().join("copy");
    write_tree(
        &work,
        &[
            (
                "genesis.json",
                br#"{"schema": "genesis/manifest-v0.1", "obligations": []}"#,
            ),
            ("docs/read me.md", b"# Title\n\nold text\n"),
        ],
    );
    let (code, out) = gnu_patch(&work, &patch);
    assert_eq!(code, Some(0), "patch -p1: {out}");
    assert_eq!(files(&work), files(&edited));
}
