//! Named cases for `genesis::patch::apply_patch`, each with exact bytes, and each checked
//! against the real `git apply` (`common::git_apply`).

mod common;

use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use genesis::patch::{
    Anchor, FileChange, PatchError, PatchResult, PatchRules, PreImage, ReadError, apply_patch,
};
use genesis::path::WorkspacePath;

/// An in-memory tree: path -> (bytes, executable).
#[derive(Default, Clone)]
struct Mem(BTreeMap<String, (Vec<u8>, bool)>);

impl Mem {
    fn with(files: &[(&str, &[u8])]) -> Self {
        let mut m = Mem::default();
        for (p, d) in files {
            m.0.insert((*p).to_owned(), (d.to_vec(), false));
        }
        m
    }
    fn exec(mut self, p: &str) -> Self {
        self.0.get_mut(p).unwrap().1 = true;
        self
    }
    /// The tree after applying an outcome.
    fn after(&self, o: &PatchResult) -> Mem {
        let mut m = self.clone();
        for (p, c) in &o.changes {
            match c {
                FileChange::Delete => {
                    m.0.remove(p.as_str()).expect("deleted file existed");
                }
                FileChange::Write { data, executable } => {
                    m.0.insert(p.to_string(), (data.clone(), *executable));
                }
            }
        }
        m
    }
}

impl PreImage for Mem {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.contains_key(path.as_str())
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError> {
        self.0
            .get(path.as_str())
            .map(|(d, _)| d.clone())
            .ok_or(ReadError::NotInTree)
    }
    fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.0.get(path.as_str()).is_some_and(|(_, x)| *x)
    }
    fn paths(&self) -> Vec<WorkspacePath> {
        self.0
            .keys()
            .filter_map(|p| WorkspacePath::new(p.as_str()).ok())
            .collect()
    }
}

fn wp(s: &str) -> WorkspacePath {
    WorkspacePath::new(s).unwrap()
}

/// Genesis's result, checked against the real `git apply` on the same tree (issue 9, item 9):
/// never accepted where git refuses, and equal bytes where both accept.
fn apply(patch: &[u8], tree: &Mem) -> Result<PatchResult, PatchError> {
    let r = apply_quiet(patch, tree);
    let ours = match &r {
        Ok(o) => Ok(tree.after(o).0),
        Err(e) => Err(e.to_string()),
    };
    let verdict = common::git_apply::compare(&tree.0, patch, &ours);
    assert!(
        !verdict.is_defect(),
        "git apply disagrees: {verdict:?}\nGenesis: {ours:?}\n{}",
        String::from_utf8_lossy(patch)
    );
    r
}

/// Genesis's result alone (for the property tests, which run thousands of cases).
fn apply_quiet(patch: &[u8], tree: &Mem) -> Result<PatchResult, PatchError> {
    apply_patch(patch, tree, &PatchRules::default())
}

/// The error, or a short panic (never a dump of the outcome's bytes).
fn err(patch: &[u8], tree: &Mem) -> PatchError {
    match apply(patch, tree) {
        Ok(o) => panic!(
            "expected an error, got changes to {:?}",
            o.changes.keys().collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

fn write(o: &PatchResult, p: &str) -> (Vec<u8>, bool) {
    match o.changes.get(&wp(p)) {
        Some(FileChange::Write { data, executable }) => (data.clone(), *executable),
        other => panic!("{p}: expected a write, got {other:?}"),
    }
}

fn data(o: &PatchResult, p: &str) -> Vec<u8> {
    write(o, p).0
}

#[test]
fn removing_only_the_final_newline() {
    let tree = Mem::with(&[("f", b"a\nb\n")]);
    let p = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(data(&o, "f"), b"a\nb");
    assert_eq!((o.files_changed, o.lines_added, o.lines_removed), (1, 1, 1));
}

#[test]
fn adding_a_line_after_a_last_line_without_newline() {
    let tree = Mem::with(&[("f", b"a\nb")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "f"), b"a\nb\nc\n");
    // The same with the new last line also lacking its newline.
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "f"), b"a\nb\nc");
}

#[test]
fn adjacent_hunks() {
    let tree = Mem::with(&[("f", b"1\n2\n3\n4\n5\n6\n7\n8\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n";
    assert_eq!(
        data(&apply(p, &tree).unwrap(), "f"),
        b"1\ntwo\n3\n4\nfive\n6\n7\n8\n"
    );
    // Overlapping hunks are refused: hunk 2's "3" was written by hunk 1.
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n";
    let e = err(p, &tree);
    assert!(
        matches!(
            e,
            PatchError::HunkNotFound { hunk: 2, .. } | PatchError::HunkOutOfOrder { hunk: 2, .. }
        ),
        "{e}"
    );
}

/// A hunk without old lines (`diff -U0`) has no trailing context, so `git apply` (without
/// `--unidiff-zero`) puts it at the end of the file, and `-0,0` / `-1,0` also at the start:
/// Genesis accepts it only where it is stated and git puts it.
#[test]
fn insertion_hunks_without_context_follow_git_anchoring() {
    let tree = Mem::with(&[("f", b"1\n2\n3\n4\n5\n6\n")]);
    // After the last line: stated there, and git puts it there.
    let p = b"--- a/f\n+++ b/f\n@@ -6,0 +7 @@\n+end\n";
    assert_eq!(
        data(&apply(p, &tree).unwrap(), "f"),
        b"1\n2\n3\n4\n5\n6\nend\n"
    );
    // At the top of a file that is not empty: git refuses (start and end at once).
    let p = b"--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n";
    assert_eq!(
        err(p, &tree),
        PatchError::HunkNotAnchored {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 0,
            anchor: Anchor::Both,
            found_line: None
        }
    );
    // After line 5: git would append it after line 6, so Genesis refuses.
    let p = b"--- a/f\n+++ b/f\n@@ -5,0 +6,2 @@\n+x\n+y\n";
    let e = err(p, &tree);
    assert_eq!(
        e,
        PatchError::HunkNotAnchored {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 5,
            anchor: Anchor::End,
            found_line: None
        }
    );
    assert_eq!(
        e.to_string(),
        "f: hunk 1 (patch line 3, stated at line 5) does not apply: it has no context lines after its last change, so like `git apply` it must match at the end of the file, and it does not"
    );
    // Past the end: git appends it; Genesis refuses, naming the hunk.
    let p = b"--- a/f\n+++ b/f\n@@ -9,0 +10 @@\n+end\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::HunkNotAnchored {
            hunk: 1,
            target_line: 9,
            anchor: Anchor::End,
            ..
        }
    ));
    // Into an empty file, at the top.
    let tree = Mem::with(&[("e", b"")]);
    let p = b"--- a/e\n+++ b/e\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "e"), b"x\ny\n");
}

#[test]
fn blank_context_line() {
    let tree = Mem::with(&[("f", b"a\n\nb\n")]);
    // The empty line between a and b is written as "\n" instead of " \n".
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "f"), b"a\n\nB\n");
}

#[test]
fn crlf_file_kept_byte_for_byte_and_lf_diff_refused() {
    let tree = Mem::with(&[("f", b"a\r\nb\r\nc\r\n")]);
    let crlf = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n";
    assert_eq!(data(&apply(crlf, &tree).unwrap(), "f"), b"a\r\nB\r\nc\r\n");
    let lf = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let e = err(lf, &tree);
    assert_eq!(
        e,
        PatchError::HunkLineEndings {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 1,
            file_line: 1,
            file_crlf: true
        }
    );
    assert_eq!(
        e.to_string(),
        "f: hunk 1 (patch line 3) does not apply at line 1 nor anywhere else: its lines differ from the file only in line endings (at file line 1 the file has CRLF where the patch has LF); regenerate the diff from the file as it is"
    );
}

#[test]
fn new_empty_file_without_hunks() {
    let tree = Mem::default();
    let p = b"diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(write(&o, "empty"), (Vec::new(), false));
    let p = b"diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..e69de29\n";
    assert_eq!(
        write(&apply(p, &tree).unwrap(), "run.sh"),
        (Vec::new(), true)
    );
    // Creating an existing file is refused.
    let tree = Mem::with(&[("empty", b"x\n")]);
    let p = b"diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n";
    assert_eq!(
        err(p, &tree),
        PatchError::FileExists {
            path: "empty".into(),
            line: 1
        }
    );
}

#[test]
fn new_file_with_content() {
    let tree = Mem::default();
    let p = b"diff --git a/d/n.txt b/d/n.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/d/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "d/n.txt"), b"x\ny\n");
}

#[test]
fn pure_rename() {
    let tree = Mem::with(&[("old.txt", b"same\n")]).exec("old.txt");
    let p = b"diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(o.changes.get(&wp("old.txt")), Some(&FileChange::Delete));
    assert_eq!(write(&o, "new.txt"), (b"same\n".to_vec(), true));
    // Renaming onto an existing file is refused.
    let tree = Mem::with(&[("old.txt", b"same\n"), ("new.txt", b"other\n")]);
    assert!(matches!(err(p, &tree), PatchError::FileExists { .. }));
}

#[test]
fn rename_with_edits() {
    let tree = Mem::with(&[("src/a.rs", b"fn a() {}\nfn b() {}\n")]);
    let p = b"diff --git a/src/a.rs b/src/z.rs\nsimilarity index 60%\nrename from src/a.rs\nrename to src/z.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/z.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn c() {}\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(o.changes.get(&wp("src/a.rs")), Some(&FileChange::Delete));
    assert_eq!(data(&o, "src/z.rs"), b"fn a() {}\nfn c() {}\n");
}

#[test]
fn copy() {
    let tree = Mem::with(&[("a.txt", b"1\n2\n")]);
    let p = b"diff --git a/a.txt b/b.txt\nsimilarity index 50%\ncopy from a.txt\ncopy to b.txt\n--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(o.changes.len(), 1);
    assert_eq!(data(&o, "b.txt"), b"1\n3\n");
    // Pure copy without hunks.
    let p = b"diff --git a/a.txt b/c.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to c.txt\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "c.txt"), b"1\n2\n");
}

#[test]
fn mode_change_only() {
    let tree = Mem::with(&[("run.sh", b"#!/bin/sh\n")]);
    let p = b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    assert_eq!(
        write(&apply(p, &tree).unwrap(), "run.sh"),
        (b"#!/bin/sh\n".to_vec(), true)
    );
    let tree = tree.exec("run.sh");
    let p = b"diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\n";
    assert_eq!(
        write(&apply(p, &tree).unwrap(), "run.sh"),
        (b"#!/bin/sh\n".to_vec(), false)
    );
    // A content change keeps the bit.
    let p = b"diff --git a/run.sh b/run.sh\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n #!/bin/sh\n+echo\n";
    assert_eq!(
        write(&apply(p, &tree).unwrap(), "run.sh"),
        (b"#!/bin/sh\necho\n".to_vec(), true)
    );
}

#[test]
fn symlink_and_gitlink_modes_refused() {
    let tree = Mem::default();
    let p = b"diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n";
    let e = err(p, &tree);
    assert!(
        matches!(&e, PatchError::UnsupportedMode { path, mode, .. } if path == "link" && mode == "120000"),
        "{e}"
    );
    assert!(e.to_string().contains("symbolic link"));
    let p = b"diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..abc\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit abc\n";
    let e = err(p, &tree);
    assert!(
        matches!(&e, PatchError::UnsupportedMode { path, .. } if path == "sub"),
        "{e}"
    );
}

#[test]
fn delete() {
    let tree = Mem::with(&[("f", b"a\nb\n")]);
    let p = b"diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    let o = apply(p, &tree).unwrap();
    assert_eq!(o.changes.get(&wp("f")), Some(&FileChange::Delete));
    assert_eq!(o.lines_removed, 2);
    // Deleting a missing file.
    assert_eq!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::FileMissing {
            path: "f".into(),
            line: 1
        }
    );
}

#[test]
fn delete_whose_file_differs_is_refused() {
    // The file has an extra line the patch does not remove.
    let tree = Mem::with(&[("f", b"a\nb\nc\n"), ("g", b"1\n")]);
    let p = b"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-1\n+2\ndiff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    assert_eq!(
        err(p, &tree),
        PatchError::DeleteMismatch {
            path: "f".into(),
            line: 7
        }
    );
    // Different content entirely.
    let tree = Mem::with(&[("f", b"x\ny\n")]);
    let p = b"diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    assert!(matches!(err(p, &tree), PatchError::DeleteMismatch { .. }));
    // An empty-file deletion (no hunks) of a file that is not empty.
    let p = b"diff --git a/f b/f\ndeleted file mode 100644\nindex e69de29..0000000\n";
    assert_eq!(
        err(p, &tree),
        PatchError::DeleteMismatch {
            path: "f".into(),
            line: 1
        }
    );
}

#[test]
fn hunk_whose_context_appears_twice_is_refused() {
    let tree = Mem::with(&[("f", b"x\nsame\nsame2\nend\ny\nsame\nsame2\nend\nz\n")]);
    // Stated at line 40 (wrong); the old side occurs at lines 2 and 6. (git would take line 6,
    // the nearer to 40.)
    let p = b"--- a/f\n+++ b/f\n@@ -40,3 +40,3 @@\n same\n-same2\n+changed\n end\n";
    assert_eq!(
        err(p, &tree),
        PatchError::HunkAmbiguous {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 40,
            count: 2
        }
    );
    // At the stated place it applies there (and only there).
    let p = b"--- a/f\n+++ b/f\n@@ -6,3 +6,3 @@\n same\n-same2\n+changed\n end\n";
    assert_eq!(
        data(&apply(p, &tree).unwrap(), "f"),
        b"x\nsame\nsame2\nend\ny\nsame\nchanged\nend\nz\n"
    );
    // Moved but unique: applies where it is.
    let p = b"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n y\n-same\n+moved\n same2\n";
    assert_eq!(
        data(&apply(p, &tree).unwrap(), "f"),
        b"x\nsame\nsame2\nend\ny\nmoved\nsame2\nend\nz\n"
    );
    // No trailing context, stated at line 7 of a 4-line file whose last two lines occur twice:
    // the hunk is anchored to the end, its one legal place, so it applies there (as git does);
    // the repeated context elsewhere does not make it ambiguous.
    let twice = Mem::with(&[("f", b"x\nsame\nx\nsame\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -7,2 +7,2 @@\n x\n-same\n+other\n";
    assert_eq!(
        data(&apply(p, &twice).unwrap(), "f"),
        b"x\nsame\nx\nother\n"
    );
    // Stated at line 1 with no trailing context: it must be the whole file, as in git.
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n y\n-same\n+moved\n";
    assert_eq!(
        err(p, &tree),
        PatchError::HunkNotAnchored {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 1,
            anchor: Anchor::Both,
            found_line: Some(5)
        }
    );
}

#[test]
fn same_add_only_patch_twice_applies_twice_like_git() {
    let tree = Mem::with(&[("f", b"a\nb\nc\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+new\n b\n";
    let once = tree.after(&apply(p, &tree).unwrap());
    assert_eq!(once.0["f"].0, b"a\nnew\nb\nc\n");
    // An insertion whose context survives it (trailing context only, not at the start): the
    // second time it no longer matches at line 2, and moves to its only match, line 3.
    let p2 = b"--- a/f\n+++ b/f\n@@ -2 +2,2 @@\n+new\n b\n";
    let t1 = tree.after(&apply(p2, &tree).unwrap());
    assert_eq!(t1.0["f"].0, b"a\nnew\nb\nc\n");
    let t2 = t1.after(&apply(p2, &t1).unwrap());
    assert_eq!(t2.0["f"].0, b"a\nnew\nnew\nb\nc\n");
    // The first patch, applied again, does not match at the start (b no longer follows a) and
    // its context occurs nowhere: refused.
    assert!(matches!(err(p, &once), PatchError::HunkNotFound { .. }));
}

#[test]
fn modify_missing_file_refused() {
    let p = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::FileMissing {
            path: "f".into(),
            line: 1
        }
    );
}

#[test]
fn binary_stub_refused() {
    let tree = Mem::with(&[("img.png", b"\x89PNG")]);
    let p = b"diff --git a/img.png b/img.png\nindex 1234567..89abcde 100644\nBinary files a/img.png and b/img.png differ\n";
    assert_eq!(
        err(p, &tree),
        PatchError::BinaryWithoutData {
            path: "img.png".into(),
            line: 3
        }
    );
    // diff -ruN's stub, without a git header.
    let p = b"diff -ruN a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::BinaryWithoutData { line: 2, .. }
    ));
}

#[test]
fn quoted_paths_with_non_ascii() {
    let name = "sp\u{e9}cial \"q\".txt";
    let tree = Mem::with(&[(name, b"old\n")]);
    let p = b"diff --git \"a/sp\\303\\251cial \\\"q\\\".txt\" \"b/sp\\303\\251cial \\\"q\\\".txt\"\nindex 1..2 100644\n--- \"a/sp\\303\\251cial \\\"q\\\".txt\"\n+++ \"b/sp\\303\\251cial \\\"q\\\".txt\"\n@@ -1 +1 @@\n-old\n+new\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), name), b"new\n");
    // Invalid UTF-8 through an octal escape.
    let p = b"diff --git \"a/\\377\" \"b/\\377\"\n--- \"a/\\377\"\n+++ \"b/\\377\"\n@@ -1 +1 @@\n-old\n+new\n";
    assert_eq!(err(p, &tree), PatchError::HeaderNotUtf8 { line: 1 });
}

#[test]
fn quoted_paths_from_real_git() {
    let Some(dir) = git_repo() else { return };
    let d = dir.path();
    let name = "dir/sp\u{e9}cial \"q\" x.txt";
    std::fs::create_dir_all(d.join("dir")).unwrap();
    std::fs::write(d.join(name), b"one\ntwo\n").unwrap();
    git_bytes(d, &["add", "-A"]);
    git_bytes(d, &["commit", "-qm", "a"]);
    std::fs::write(d.join(name), b"one\nthree\n").unwrap();
    let diff = git_bytes(d, &["diff", "--binary"]);
    assert!(
        diff.starts_with(b"diff --git \"a/dir/sp\\303\\251cial"),
        "{}",
        String::from_utf8_lossy(&diff)
    );
    let tree = Mem::with(&[(name, b"one\ntwo\n")]);
    assert_eq!(data(&apply(&diff, &tree).unwrap(), name), b"one\nthree\n");
}

#[test]
fn hostile_paths() {
    let cases: &[(&str, &str)] = &[
        ("../etc/passwd", "invalid"),
        ("/etc/passwd", "invalid"),
        ("a//b", "invalid"),
        ("a\\b", "invalid"),
        (".git/config", "forbidden"),
        (".GIT/config", "forbidden"),
        ("x/.Git/hooks/pre-commit", "forbidden"),
        (".genesis/objects/ab", "forbidden"),
        (".GENESIS/lock", "forbidden"),
        (".git./config", "forbidden"),
        (".git /config", "forbidden"),
        ("GIT~1/config", "forbidden"),
        (".g\u{200c}it/config", "forbidden"),
        ("GENESI~1/lock", "forbidden"),
    ];
    for (path, kind) in cases {
        let p = format!("--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+x\n");
        let e = apply(p.as_bytes(), &Mem::default()).unwrap_err();
        match *kind {
            "invalid" => assert!(matches!(e, PatchError::InvalidPath { .. }), "{path}: {e}"),
            _ => assert!(matches!(e, PatchError::ForbiddenPath { .. }), "{path}: {e}"),
        }
    }
    // .genesis below the root is an ordinary directory.
    let p = b"--- /dev/null\n+++ docs/.genesis\n@@ -0,0 +1 @@\n+x\n";
    assert!(apply(p, &Mem::default()).is_ok());
    // A control character via a quoted name.
    let p = b"--- /dev/null\n+++ \"b/a\\nb\"\n@@ -0,0 +1 @@\n+x\n";
    assert!(matches!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::InvalidPath { .. }
    ));
    // Rename into .git.
    let tree = Mem::with(&[("a", b"x\n")]);
    let p = b"diff --git a/a b/.git/HEAD\nrename from a\nrename to .git/HEAD\n";
    assert!(matches!(err(p, &tree), PatchError::ForbiddenPath { .. }));
    // NUL and invalid UTF-8 in headers.
    let p = b"--- /dev/null\n+++ b/a\0b\n@@ -0,0 +1 @@\n+x\n";
    assert_eq!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::HeaderNul { line: 2 }
    );
    let p = b"--- /dev/null\n+++ b/caf\xe9\n@@ -0,0 +1 @@\n+x\n";
    assert_eq!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::HeaderNotUtf8 { line: 2 }
    );
    let p = b"diff --git a/x b/x\nnew file mode 100644\xff\n";
    assert_eq!(
        apply(p, &Mem::default()).unwrap_err(),
        PatchError::HeaderNotUtf8 { line: 2 }
    );
    // Content lines may hold any bytes.
    let p = b"--- /dev/null\n+++ b/bin\n@@ -0,0 +1 @@\n+\xff\0\xfe\n";
    assert_eq!(
        data(&apply(p, &Mem::default()).unwrap(), "bin"),
        b"\xff\0\xfe\n"
    );
}

#[test]
fn duplicate_and_colliding_paths() {
    let tree = Mem::with(&[("a", b"1\n"), ("b", b"1\n")]);
    let m = |p: &str| format!("--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-1\n+2\n");
    let c = |p: &str| format!("--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+x\n");
    // The same path twice.
    let p = m("a") + &m("a");
    assert_eq!(
        err(p.as_bytes(), &tree),
        PatchError::DuplicatePath {
            path: "a".into(),
            line: 6,
            first_line: 1
        }
    );
    // A rename's source used again.
    let p = format!(
        "diff --git a/a b/c\nrename from a\nrename to c\ndiff --git a/a b/a\n{}",
        m("a")
    );
    assert!(matches!(
        err(p.as_bytes(), &tree),
        PatchError::DuplicatePath { .. }
    ));
    // Case.
    let p = c("README.md") + &c("readme.MD");
    assert!(matches!(
        err(p.as_bytes(), &tree),
        PatchError::PathCollision { .. }
    ));
    // NFC vs NFD.
    let p = c("caf\u{e9}") + &c("cafe\u{301}");
    let e = err(p.as_bytes(), &tree);
    assert!(
        matches!(&e, PatchError::PathCollision { path, other, .. } if path == "cafe\u{301}" && other == "caf\u{e9}"),
        "{e}"
    );
    // A file below a file.
    let p = c("a/x");
    assert!(matches!(
        err(p.as_bytes(), &tree),
        PatchError::ParentIsFile { .. }
    ));
    // ... unless that file is deleted in the same patch.
    let p =
        "diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n@@ -1 +0,0 @@\n-1\n"
            .to_owned()
            + &c("a/x");
    assert!(apply(p.as_bytes(), &tree).is_ok());
}

#[test]
fn hunk_counts_must_agree() {
    let tree = Mem::with(&[("f", b"a\nb\nc\n")]);
    // Body shorter than the header (next file starts early).
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n@@ -5 +5 @@\n-x\n+y\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::HunkCountMismatch {
            hunk: 1,
            line: 7,
            ..
        }
    ));
    // Body longer than the header.
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::HunkCountMismatch {
            hunk: 1,
            line: 7,
            ..
        }
    ));
    // Truncated.
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::Truncated {
            hunk: 1,
            header_line: 3,
            line: 5,
            old_missing: 1,
            new_missing: 2,
            ..
        }
    ));
    // Huge counts: rejected without allocating.
    let p = b"--- a/f\n+++ b/f\n@@ -1,99999999999 +1 @@\n a\n";
    assert!(matches!(err(p, &tree), PatchError::Truncated { .. }));
    let p = b"--- a/f\n+++ b/f\n@@ -1,999999999999999999999999 +1 @@\n a\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::MalformedHunkHeader { .. }
    ));
    // A hunk outside a file.
    assert_eq!(
        err(b"@@ -1 +1 @@\n-a\n+b\n", &tree),
        PatchError::HunkWithoutFile { line: 1 }
    );
    assert_eq!(err(b"just some text\n", &tree), PatchError::Empty);
}

#[test]
fn limits() {
    let tree = Mem::default();
    let c = |p: &str| format!("--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+x\n@@ -0,0 +1 @@\n+y\n");
    let p = c("a") + &c("b");
    let opts = PatchRules {
        max_files: 1,
        ..PatchRules::default()
    };
    assert_eq!(
        apply_patch(p.as_bytes(), &tree, &opts).unwrap_err(),
        PatchError::TooManyFiles { line: 7, limit: 1 }
    );
    let opts = PatchRules {
        max_hunks: 3,
        ..PatchRules::default()
    };
    assert_eq!(
        apply_patch(p.as_bytes(), &tree, &opts).unwrap_err(),
        PatchError::TooManyHunks { line: 11, limit: 3 }
    );
    let opts = PatchRules {
        max_patch_bytes: 10,
        ..PatchRules::default()
    };
    assert!(matches!(
        apply_patch(p.as_bytes(), &tree, &opts).unwrap_err(),
        PatchError::TooLarge { .. }
    ));
    let opts = PatchRules {
        max_path_bytes: 3,
        ..PatchRules::default()
    };
    let p = c("abcd");
    assert!(matches!(
        apply_patch(p.as_bytes(), &tree, &opts).unwrap_err(),
        PatchError::PathTooLong { len: 4, .. }
    ));
}

#[test]
fn plain_agent_diff_prefix_rules() {
    let tree = Mem::with(&[("src/x.rs", b"a\n"), ("a/x.rs", b"1\n")]);
    // No prefixes: names used as written.
    let p = b"--- src/x.rs\n+++ src/x.rs\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "src/x.rs"), b"b\n");
    // `a/` on both sides is a real directory when `+++` lacks `b/`.
    let p = b"--- a/x.rs\n+++ a/x.rs\n@@ -1 +1 @@\n-1\n+2\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "a/x.rs"), b"2\n");
    // Names that differ without git's rename headers are refused.
    let p = b"--- src/x.rs\n+++ src/y.rs\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(
        err(p, &tree),
        PatchError::MalformedHeader { line: 1, .. }
    ));
    // GNU-patch-style creation: the file does not exist, the hunk is -0,0.
    let p = b"--- a/new.rs\n+++ b/new.rs\n@@ -0,0 +1 @@\n+fn main() {}\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "new.rs"), b"fn main() {}\n");
    // Patch text missing its own final newline.
    let p = b"--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n-a\n+b";
    assert_eq!(data(&apply(p, &tree).unwrap(), "src/x.rs"), b"b\n");
}

#[test]
fn format_patch_email_is_accepted() {
    let tree = Mem::with(&[("f", b"a\n")]);
    let p = b"From 123 Mon Sep 17 00:00:00 2001\nFrom: X <x@y>\nSubject: [PATCH] f\n\n---\n f | 2 +-\n 1 file changed\n\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.47.3\n\n";
    assert_eq!(data(&apply(p, &tree).unwrap(), "f"), b"b\n");
}

// ---------------------------------------------------------------- real tools

fn git_repo() -> Option<tempfile::TempDir> {
    if !have("git") {
        eprintln!("git not found; skipping");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    git_bytes(dir.path(), &["init", "-q"]);
    Some(dir)
}

/// A pseudo-random binary blob.
fn noise(seed: u32, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn binary_literal_and_delta_from_real_git() {
    let Some(dir) = git_repo() else { return };
    let d = dir.path();
    // A big file with a small change gives a delta; a small one a literal.
    let mut big_old = noise(1, 20_000);
    big_old.extend(std::iter::repeat_n(0u8, 100));
    let mut big_new = big_old.clone();
    big_new[10_000..10_010].copy_from_slice(b"0123456789");
    let small_old = b"\0\x01\x02abc".to_vec();
    let small_new = noise(7, 300);
    let mut gone = vec![0u8];
    gone.extend(noise(9, 500));
    std::fs::write(d.join("big.bin"), &big_old).unwrap();
    std::fs::write(d.join("small.bin"), &small_old).unwrap();
    std::fs::write(d.join("gone.bin"), &gone).unwrap();
    git_bytes(d, &["add", "-A"]);
    git_bytes(d, &["commit", "-qm", "a"]);
    std::fs::write(d.join("big.bin"), &big_new).unwrap();
    std::fs::write(d.join("small.bin"), &small_new).unwrap();
    std::fs::write(d.join("created.bin"), noise(3, 1000)).unwrap();
    std::fs::remove_file(d.join("gone.bin")).unwrap();
    git_bytes(d, &["add", "-A"]);
    let diff = git_bytes(d, &["diff", "--cached", "--binary"]);
    let text = String::from_utf8_lossy(&diff);
    assert!(text.contains("\ndelta "), "expected a delta block:\n{text}");
    assert!(
        text.contains("\nliteral "),
        "expected a literal block:\n{text}"
    );
    let tree = Mem::with(&[
        ("big.bin", &big_old),
        ("small.bin", &small_old),
        ("gone.bin", &gone),
    ]);
    let o = apply(&diff, &tree).unwrap();
    assert_eq!(data(&o, "big.bin"), big_new);
    assert_eq!(data(&o, "small.bin"), small_new);
    assert_eq!(data(&o, "created.bin"), noise(3, 1000));
    assert_eq!(o.changes.get(&wp("gone.bin")), Some(&FileChange::Delete));
    // The delta against a different base is refused.
    let mut other = big_old.clone();
    other[5] ^= 1;
    let tree2 = Mem::with(&[
        ("big.bin", &other),
        ("small.bin", &small_old),
        ("gone.bin", &gone),
    ]);
    let e = err(&diff, &tree2);
    assert!(
        matches!(&e, PatchError::BadBinary { path, .. } if path == "big.bin"),
        "{e}"
    );
    // Deleting a binary file whose content differs.
    let tree3 = Mem::with(&[
        ("big.bin", &big_old),
        ("small.bin", &small_old),
        ("gone.bin", b"other"),
    ]);
    let e = err(&diff, &tree3);
    assert!(matches!(e, PatchError::DeleteMismatch { .. }), "{e}");
}

#[test]
fn diff_run_output() {
    if !have("diff") {
        eprintln!("diff not found; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["a/src", "b/src"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::write(d.join("a/src/keep.txt"), b"1\n2\n3\n4\n5\n6\n7\n8\n9\n").unwrap();
    std::fs::write(
        d.join("b/src/keep.txt"),
        b"1\n2\nthree\n4\n5\n6\n7\n8\nnine",
    )
    .unwrap();
    std::fs::write(d.join("a/old.txt"), b"bye\n").unwrap();
    std::fs::write(d.join("b/new.txt"), b"hello\r\nworld\r\n").unwrap();
    std::fs::write(d.join("a/crlf.txt"), b"x\r\ny\r\n").unwrap();
    std::fs::write(d.join("b/crlf.txt"), b"x\r\nY\r\n").unwrap();
    for tz in ["UTC", "America/New_York", "Asia/Kolkata"] {
        let out = Command::new("diff")
            .current_dir(d)
            .env("TZ", tz)
            .args(["-ruN", "a", "b"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let tree = Mem::with(&[
            ("src/keep.txt", b"1\n2\n3\n4\n5\n6\n7\n8\n9\n"),
            ("old.txt", b"bye\n"),
            ("crlf.txt", b"x\r\ny\r\n"),
        ]);
        let o = apply(&out.stdout, &tree)
            .unwrap_or_else(|e| panic!("{tz}: {e}\n{}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(
            data(&o, "src/keep.txt"),
            b"1\n2\nthree\n4\n5\n6\n7\n8\nnine"
        );
        assert_eq!(data(&o, "new.txt"), b"hello\r\nworld\r\n");
        assert_eq!(data(&o, "crlf.txt"), b"x\r\nY\r\n");
        assert_eq!(
            o.changes.get(&wp("old.txt")),
            Some(&FileChange::Delete),
            "{tz}"
        );
    }
}

/// For the last 20 commits of a real repository, `git diff --binary PARENT COMMIT` applied to the
/// parent's files gives exactly the commit's files.
#[test]
fn real_history_replays() {
    if !have("git") {
        eprintln!("git not found; skipping");
        return;
    }
    let Some((_keep, repo)) = find_history_repo() else {
        eprintln!("no repository with enough history; skipping");
        return;
    };
    let r = repo.as_path();
    let revs = git_bytes(r, &["rev-list", "--first-parent", "-n", "21", "HEAD"]);
    let revs: Vec<String> = String::from_utf8(revs)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(revs.len() >= 2);
    let mut checked = 0;
    let mut seen = std::collections::BTreeSet::new();
    for pair in revs.windows(2) {
        let (commit, parent) = (&pair[0], &pair[1]);
        let before = tree_at(r, parent);
        let after = tree_at(r, commit);
        let diff = git_bytes(r, &["diff", "--binary", "-M", "-C", parent, commit]);
        let text = String::from_utf8_lossy(&diff);
        for feature in [
            "\nrename from ",
            "\nnew mode ",
            "GIT binary patch",
            "\r\n",
            "\ndeleted file mode ",
            "\nnew file mode ",
        ] {
            if text.contains(feature) {
                seen.insert(feature);
            }
        }
        let o = apply(&diff, &before).unwrap_or_else(|e| panic!("{parent}..{commit}: {e}"));
        let got = before.after(&o);
        assert_eq!(
            got.0.keys().collect::<Vec<_>>(),
            after.0.keys().collect::<Vec<_>>(),
            "{commit}"
        );
        for (p, (d, x)) in &after.0 {
            assert_eq!(&got.0[p].0, d, "{commit}: {p}");
            assert_eq!(got.0[p].1, *x, "{commit}: {p} mode");
        }
        checked += 1;
    }
    eprintln!("replayed {checked} commits, with {seen:?}");
    assert!(checked >= 20);
}

/// The tree of a commit: regular files only (symlinks and submodules left out, as snapshots do).
fn tree_at(repo: &Path, rev: &str) -> Mem {
    let ls = git_bytes(repo, &["ls-tree", "-r", "-z", rev]);
    let mut files = Vec::new();
    for entry in ls.split(|&b| b == 0).filter(|e| !e.is_empty()) {
        let tab = entry.iter().position(|&b| b == b'\t').unwrap();
        let meta = String::from_utf8_lossy(&entry[..tab]).into_owned();
        let path = String::from_utf8(entry[tab + 1..].to_vec()).unwrap();
        let mut parts = meta.split(' ');
        let (mode, _, oid) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap().to_owned(),
        );
        if mode != "100644" && mode != "100755" {
            continue;
        }
        files.push((path, oid, mode == "100755"));
    }
    // Every blob through one `git cat-file --batch`: `<oid> blob <size>\n<bytes>\n` each.
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let list: String = files.iter().map(|(_, oid, _)| format!("{oid}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(list.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let mut m = Mem::default();
    let mut at = 0;
    for (path, oid, exec) in files {
        let nl = at + out.stdout[at..].iter().position(|&b| b == b'\n').unwrap();
        let header = String::from_utf8_lossy(&out.stdout[at..nl]).into_owned();
        let mut h = header.split(' ');
        assert_eq!(h.next(), Some(oid.as_str()), "{header}");
        assert_eq!(h.next(), Some("blob"), "{header}");
        let size: usize = h.next().unwrap().parse().unwrap();
        let data = out.stdout[nl + 1..nl + 1 + size].to_vec();
        at = nl + 1 + size + 1;
        m.0.insert(path, (data, exec));
    }
    m
}

/// Clones this repository when it has at least 21 commits; otherwise builds a repository from crate
/// sources under ~/.cargo/registry/src with a series of edits. Returns the temp dir and the repo.
fn find_history_repo() -> Option<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().unwrap();
    let main = Path::new(env!("CARGO_MANIFEST_DIR"));
    let clone = dir.path().join("r");
    if main.join(".git").exists() {
        let ok = Command::new("git")
            .args(["clone", "-q", "--no-local"])
            .arg(main)
            .arg(&clone)
            .output()
            .is_ok_and(|o| o.status.success());
        let n = Command::new("git")
            .arg("-C")
            .arg(&clone)
            .args(["rev-list", "--count", "HEAD"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse::<u32>().ok())
            .unwrap_or(0);
        if ok && n >= 21 {
            return Some((dir, clone));
        }
    }
    let synth = build_synthetic_history()?;
    let path = synth.path().to_path_buf();
    Some((synth, path))
}

fn build_synthetic_history() -> Option<tempfile::TempDir> {
    let home = std::env::var_os("HOME")?;
    let reg = Path::new(&home).join(".cargo/registry/src");
    let index = std::fs::read_dir(&reg)
        .ok()?
        .filter_map(Result::ok)
        .next()?
        .path();
    let mut crates: Vec<_> = std::fs::read_dir(&index)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    crates.sort();
    let crates: Vec<_> = crates
        .into_iter()
        .filter(|c| c.join("src").is_dir())
        .take(25)
        .collect();
    if crates.len() < 21 {
        return None;
    }
    let dir = git_repo()?;
    let d = dir.path();
    let mut sources = Vec::new();
    for c in &crates {
        for e in std::fs::read_dir(c.join("src"))
            .ok()?
            .filter_map(Result::ok)
        {
            if e.path().is_file() {
                sources.push(e.path());
            }
        }
    }
    sources.sort();
    std::fs::write(d.join("README"), b"history\n").unwrap();
    git_bytes(d, &["add", "-A"]);
    git_bytes(d, &["commit", "-qm", "init"]);
    for (i, c) in crates.iter().enumerate() {
        let name = c.file_name().unwrap().to_string_lossy().into_owned();
        // Add a crate's sources, edit an earlier one, rename, delete, chmod, binary.
        let dst = d.join(&name);
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(c.join("src"))
            .ok()?
            .filter_map(Result::ok)
            .take(6)
        {
            if e.path().is_file() {
                std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
            }
        }
        if i > 0 {
            let prev = d.join(crates[i - 1].file_name().unwrap());
            let mut files: Vec<_> = std::fs::read_dir(&prev)
                .unwrap()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect();
            files.sort();
            if let Some(f) = files.first() {
                let text = std::fs::read(f).unwrap();
                let mut lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
                let mid = lines.len() / 2;
                if !lines.is_empty() {
                    lines.remove(mid);
                }
                lines.insert(mid.min(lines.len()), b"// edited\r\n");
                std::fs::write(f, lines.concat()).unwrap();
            }
            match i % 4 {
                0 if files.len() > 1 => {
                    std::fs::rename(&files[1], prev.join("renamed.rs")).unwrap()
                }
                1 if files.len() > 1 => std::fs::remove_file(&files[1]).unwrap(),
                2 if files.len() > 1 => {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&files[1], std::fs::Permissions::from_mode(0o755))
                        .unwrap();
                }
                _ => std::fs::write(d.join(format!("blob{i}.bin")), noise(i as u32 + 1, 3000))
                    .unwrap(),
            }
        }
        git_bytes(d, &["add", "-A"]);
        git_bytes(d, &["commit", "-qm", &name]);
    }
    Some(dir)
}

// ---------------------------------------------------------------- properties

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Small texts: lines from a tiny alphabet (so hunks repeat and move), some with CRLF, and
    /// an optional final newline.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        (
            proptest::collection::vec(
                prop_oneof![Just("a"), Just("b"), Just("c\r"), Just(""), Just("dd")],
                0..12,
            ),
            any::<bool>(),
        )
            .prop_map(|(lines, final_nl)| {
                let mut t = lines.join("\n").into_bytes();
                if final_nl && !lines.is_empty() {
                    t.push(b'\n');
                }
                t
            })
    }

    fn git_style(old: &[u8], new: &[u8]) -> Vec<u8> {
        let p = diffy::create_patch_bytes(old, new).to_bytes();
        // Replace diffy's `--- original` / `+++ modified` with git's header and names.
        let body_start = p.windows(3).position(|w| w == b"@@ ").unwrap_or(p.len());
        let mut out =
            b"diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n".to_vec();
        out.extend_from_slice(&p[body_start..]);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn diffy_patches_apply_exactly(old in text(), new in text()) {
            prop_assume!(old != new);
            let patch = git_style(&old, &new);
            let tree = Mem::with(&[("f", &old)]);
            let o = apply_quiet(&patch, &tree).map_err(|e| TestCaseError::fail(format!("{e}\n{}", String::from_utf8_lossy(&patch))))?;
            prop_assert_eq!(data(&o, "f"), new);
        }

        #[test]
        fn never_panics_on_damaged_patches(
            old in text(),
            new in text(),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            prop_assume!(old != new);
            let mut patch = git_style(&old, &new);
            let tree = Mem::with(&[("f", &old)]);
            let i = flip.index(patch.len());
            patch[i] = byte;
            let _ = apply_quiet(&patch, &tree);
            patch.truncate(cut.index(patch.len()));
            let _ = apply_quiet(&patch, &tree);
        }

        #[test]
        fn never_panics_on_patch_like_noise(lines in proptest::collection::vec(prop_oneof![
            Just("diff --git a/f b/f".to_owned()),
            Just("--- a/f".to_owned()),
            Just("+++ b/f".to_owned()),
            Just("--- /dev/null".to_owned()),
            Just("+++ /dev/null".to_owned()),
            Just("new file mode 100644".to_owned()),
            Just("deleted file mode 100755".to_owned()),
            Just("rename from f".to_owned()),
            Just("rename to g".to_owned()),
            Just("copy from f".to_owned()),
            Just("copy to h".to_owned()),
            Just("GIT binary patch".to_owned()),
            Just("literal 3".to_owned()),
            Just("delta 5".to_owned()),
            Just("\\ No newline at end of file".to_owned()),
            Just("".to_owned()),
            "@@ -[0-9]{1,2}(,[0-9]{1,2})? \\+[0-9]{1,2}(,[0-9]{1,2})? @@",
            "[ +-][a-c\r]{0,3}",
            "[A-Za-z0-9]{1,12}",
        ], 0..40)) {
            let patch = lines.join("\n");
            let tree = Mem::with(&[("f", b"a\nb\nc\n"), ("g", b"")]);
            let _ = apply_quiet(patch.as_bytes(), &tree);
        }
    }
}

#[test]
fn large_file_many_hunks() {
    let old: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let new: String = (0..20_000)
        .map(|i| {
            if i % 10 == 0 {
                format!("LINE {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    let p = diffy::create_patch(&old, &new).to_string();
    let body = &p[p.find("@@ ").unwrap()..];
    let patch = format!("diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n{body}");
    let tree = Mem::with(&[("big.txt", old.as_bytes())]);
    let start = std::time::Instant::now();
    let o = apply(patch.as_bytes(), &tree).unwrap();
    assert_eq!(data(&o, "big.txt"), new.as_bytes());
    assert_eq!((o.lines_added, o.lines_removed), (2_000, 2_000));
    eprintln!(
        "applied {} bytes of patch in {:?}",
        patch.len(),
        start.elapsed()
    );
}

#[test]
fn names_with_spaces_from_real_git() {
    let Some(dir) = git_repo() else { return };
    let d = dir.path();
    let body: String = (0..20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(d.join("has space.txt"), &body).unwrap();
    std::fs::write(d.join("other file.txt"), b"x\n").unwrap();
    git_bytes(d, &["add", "-A"]);
    git_bytes(d, &["commit", "-qm", "a"]);
    git_bytes(d, &["mv", "has space.txt", "new name.txt"]);
    std::fs::write(d.join("new name.txt"), body.replace("line 7\n", "seven\n")).unwrap();
    std::fs::write(d.join("other file.txt"), b"y\n").unwrap();
    git_bytes(d, &["add", "-A"]);
    let diff = git_bytes(d, &["diff", "--cached", "-M"]);
    assert!(String::from_utf8_lossy(&diff).contains("rename from has space.txt"));
    let tree = Mem::with(&[
        ("has space.txt", body.as_bytes()),
        ("other file.txt", b"x\n"),
    ]);
    let o = apply(&diff, &tree).unwrap();
    assert_eq!(
        o.changes.get(&wp("has space.txt")),
        Some(&FileChange::Delete)
    );
    assert_eq!(
        data(&o, "new name.txt"),
        body.replace("line 7\n", "seven\n").as_bytes()
    );
    assert_eq!(data(&o, "other file.txt"), b"y\n");
}

/// A hunk whose last context line is marked `\ No newline at end of file` while the file goes
/// on: git's byte comparison takes it for a match and joins two lines; Genesis refuses it.
#[test]
fn no_newline_context_line_in_the_middle_of_a_file_is_refused() {
    let tree = Mem::with(&[("f", b"a\nb\nc\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+x\n b\n\\ No newline at end of file\n";
    assert_eq!(
        err(p, &tree),
        PatchError::HunkNotFound {
            path: "f".into(),
            hunk: 1,
            line: 3,
            target_line: 1
        }
    );
    let git = common::git_apply::git_apply(&tree.0, p).expect("git accepts it");
    assert_eq!(git["f"].0, b"a\nx\nbc\n");
}
