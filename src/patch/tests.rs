//! Unit tests for the rules that the named cases in `tests/patch_cases.rs` do not pin down.

use std::collections::BTreeMap;

use super::*;

struct Mem(BTreeMap<&'static str, (&'static [u8], bool)>);

impl PreImage for Mem {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.contains_key(path.as_str())
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError> {
        match self.0.get(path.as_str()) {
            Some((d, _)) if *d != b"<io error>" => Ok(d.to_vec()),
            _ => Err(ReadError::Other("disk on fire".into())),
        }
    }
    fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.0.get(path.as_str()).is_some_and(|(_, x)| *x)
    }
    fn paths(&self) -> Vec<WorkspacePath> {
        self.0
            .keys()
            .filter_map(|p| WorkspacePath::new(*p).ok())
            .collect()
    }
}

fn tree(files: &[(&'static str, &'static [u8])]) -> Mem {
    Mem(files.iter().map(|(p, d)| (*p, (*d, false))).collect())
}

/// The differential check against the real `git apply` that `tests/patch_cases.rs` uses.
#[path = "../../tests/common/git_apply.rs"]
#[allow(dead_code)]
mod git_apply;

/// Genesis's result, checked against `git apply` on the same tree (issue 9, item 9): never
/// accepted where git refuses, and equal bytes where both accept.
fn run(patch: &[u8], t: &Mem) -> Result<PatchResult, PatchError> {
    let r = apply_patch(patch, t, &PatchRules::default());
    let files: git_apply::Files =
        t.0.iter()
            .map(|(p, (d, x))| ((*p).to_owned(), (d.to_vec(), *x)))
            .collect();
    let ours = match &r {
        Ok(o) => {
            let mut after = files.clone();
            for (p, c) in &o.changes {
                match c {
                    FileChange::Write { data, executable } => {
                        after.insert(p.to_string(), (data.clone(), *executable));
                    }
                    FileChange::Delete => {
                        after.remove(p.as_str());
                    }
                }
            }
            Ok(after)
        }
        Err(e) => Err(e.to_string()),
    };
    let verdict = git_apply::compare(&files, patch, &ours);
    assert!(
        !verdict.is_defect(),
        "git apply disagrees: {verdict:?}\n{}",
        String::from_utf8_lossy(patch)
    );
    r
}

fn err(patch: &[u8], t: &Mem) -> PatchError {
    match run(patch, t) {
        Ok(o) => panic!(
            "expected an error, got {:?}",
            o.changes.keys().collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

fn out(patch: &[u8], t: &Mem, path: &str) -> Vec<u8> {
    match run(patch, t)
        .unwrap()
        .changes
        .remove(&WorkspacePath::new(path).unwrap())
    {
        Some(FileChange::Write { data, .. }) => data,
        other => panic!("{other:?}"),
    }
}

#[test]
fn defaults() {
    let o = PatchRules::default();
    assert_eq!(
        (
            o.max_patch_bytes,
            o.max_files,
            o.max_hunks,
            o.max_path_bytes
        ),
        (64 << 20, usize::MAX, 100_000, 4096)
    );
}

#[test]
fn errors_name_file_hunk_and_lines() {
    let t = tree(&[("src/m.rs", b"a\nb\nc\nd\n")]);
    let p = b"--- a/src/m.rs\n+++ b/src/m.rs\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -3,2 +3,2 @@\n-x\n+X\n d\n";
    let e = err(p, &t);
    assert_eq!(
        e,
        PatchError::HunkNotFound {
            path: "src/m.rs".into(),
            hunk: 2,
            line: 7,
            target_line: 3
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("src/m.rs")
            && msg.contains("hunk 2")
            && msg.contains("patch line 7")
            && msg.contains("line 3"),
        "{msg}"
    );
}

#[test]
fn hunk_found_only_before_the_previous_hunk_is_out_of_order() {
    let t = tree(&[("f", b"1\n2\n3\n4\n5\n6\n")]);
    // Hunk 2 stated at line 6, but its old side ("1", "2") occurs only at line 1, before hunk
    // 1's end.
    let p =
        b"--- a/f\n+++ b/f\n@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n@@ -6,2 +6,2 @@\n-1\n+one\n 2\n";
    let e = err(p, &t);
    assert!(
        matches!(
            e,
            PatchError::HunkOutOfOrder {
                hunk: 2,
                target_line: 6,
                found_line: 1,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn offsets_carry_to_later_hunks() {
    // Two lines were added at the top since the diff was made: both hunks move by 2.
    let t = tree(&[("f", b"x\ny\n1\n2\n3\n4\n5\n6\n7\n8\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -7,2 +7,3 @@\n 7\n+after7\n 8\n";
    assert_eq!(
        out(p, &t, "f"),
        b"x\ny\n1\n2\nthree\n4\n5\n6\n7\nafter7\n8\n"
    );
}

#[test]
fn crlf_alone_is_not_a_blank_context_line() {
    let t = tree(&[("f", b"a\n\r\nb\n")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\r\n-b\n+B\n";
    assert!(matches!(
        err(p, &t),
        PatchError::HunkCountMismatch { line: 5, .. }
    ));
}

#[test]
fn no_newline_marker_rules() {
    let t = tree(&[("f", b"a\nb\n")]);
    // A no-newline line followed by more lines in the result.
    let p = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n\\ No newline at end of file\n b\n";
    let e = err(p, &t);
    assert!(
        matches!(e, PatchError::NoNewlineInMiddle { hunk: 1, .. }),
        "{e:?}"
    );
    // A marker with nothing before it.
    let p = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+A\n";
    assert!(matches!(
        err(p, &t),
        PatchError::HunkCountMismatch { line: 4, .. }
    ));
    // Two markers for one line.
    let p = b"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n\\ No newline\n\\ No newline\n+B\n";
    assert!(matches!(
        err(p, &t),
        PatchError::HunkCountMismatch { line: 6, .. }
    ));
    // The marker's text may be localised; CRLF before it stays content.
    let t = tree(&[("f", b"a\r")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\r\n\\ Kein Zeilenumbruch am Dateiende.\n+b\r\n";
    assert_eq!(out(p, &t, "f"), b"b\r\n");
}

#[test]
fn header_checks() {
    let t = tree(&[("f", b"a\n")]);
    let e = err(b"--- a/f\n+++ b/f\n@@ -0,1 +1 @@\n-a\n+b\n", &t);
    assert!(
        matches!(
            e,
            PatchError::MalformedHunkHeader {
                hunk: 1,
                line: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = err(b"--- a/f\n+++ b/f\n@@ -1 +1\n-a\n+b\n", &t);
    assert!(matches!(e, PatchError::MalformedHunkHeader { .. }), "{e}");
    // Rename headers disagreeing with ---/+++.
    let p =
        b"diff --git a/f b/g\nrename from f\nrename to g\n--- a/f\n+++ b/h\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(
        err(p, &t),
        PatchError::MalformedHeader { line: 4, .. }
    ));
    // ---/+++ disagreeing with diff --git.
    let p = b"diff --git a/f b/f\n--- a/f\n+++ b/other\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(
        err(p, &t),
        PatchError::MalformedHeader { line: 2, .. }
    ));
    // A lone rename from.
    let p = b"diff --git a/f b/g\nrename from f\n";
    assert!(matches!(
        err(p, &t),
        PatchError::MalformedHeader { line: 1, .. }
    ));
    // A diff --git entry that changes nothing.
    let p = b"diff --git a/f b/f\nindex 1..2 100644\n";
    assert_eq!(
        err(p, &t),
        PatchError::NoChange {
            path: "f".into(),
            line: 1
        }
    );
    // --- without +++ inside a git entry.
    let p = b"diff --git a/f b/f\n--- a/f\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(
        err(p, &t),
        PatchError::MalformedHeader { line: 2, .. }
    ));
    // `git diff --no-prefix`: nothing to strip, refused with a hint.
    let p = b"diff --git f f\n--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n";
    let e = err(p, &t);
    assert!(e.to_string().contains("a/PATH and b/PATH"), "{e}");
    // Unknown mode.
    let p = b"diff --git a/f b/f\nold mode 100644\nnew mode 100777\n";
    assert!(matches!(err(p, &t), PatchError::UnsupportedMode { .. }));
}

#[test]
fn creation_rules() {
    let t = tree(&[]);
    let p = b"--- /dev/null\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(
        err(p, &t),
        PatchError::CreateWithOldLines { hunk: 1, .. }
    ));
    // A plain diff naming a missing file with a hunk that has old lines: missing, not created.
    let p = b"--- a/n\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        err(p, &t),
        PatchError::FileMissing {
            path: "n".into(),
            line: 1
        }
    );
    // A new file's mode.
    let p = b"diff --git a/x.sh b/x.sh\nnew file mode 100755\n--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+echo\n";
    let o = run(p, &t).unwrap();
    assert_eq!(
        o.changes.values().next(),
        Some(&FileChange::Write {
            data: b"echo\n".to_vec(),
            executable: true
        })
    );
}

#[test]
fn copy_source_may_also_be_modified() {
    // git diff -C: x is copied to y and x itself is edited, in one patch.
    let t = tree(&[("x", b"1\n2\n")]);
    let p = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n 1\n-2\n+two\ndiff --git a/x b/y\ncopy from x\ncopy to y\n";
    let o = run(p, &t).unwrap();
    assert_eq!(o.files_changed, 2);
    assert_eq!(out(p, &t, "x"), b"1\ntwo\n");
    assert_eq!(out(p, &t, "y"), b"1\n2\n");
}

#[test]
fn read_errors_pass_through() {
    let t = tree(&[("f", b"<io error>")]);
    let p = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        err(p, &t),
        PatchError::Read {
            path: "f".into(),
            source: ReadError::Other("disk on fire".into())
        }
    );
}

#[test]
fn binary_patch_needs_an_index_line() {
    let t = tree(&[]);
    let p = b"diff --git a/b.bin b/b.bin\nnew file mode 100644\nGIT binary patch\nliteral 10\nUcmV+l0QLU>0RjUA1qKHQ2>`DEE&u=k\n\nliteral 0\nKcmV+b0RR6000031\n\n";
    assert!(matches!(err(p, &t), PatchError::BadBinary { line: 3, .. }));
    // With git's index line it applies (the example from diffy's docs).
    let p = b"diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..df93f5f3f72487244976c34e85525cf445016566\nGIT binary patch\nliteral 10\nUcmV+l0QLU>0RjUA1qKHQ2>`DEE&u=k\n\nliteral 0\nKcmV+b0RR6000031\n\n";
    assert_eq!(out(p, &t, "b.bin"), b"\0\x01\x02\x03\x04\x05\x06\x07\x08\t");
    // A wrong result id is reported as such.
    let wrong = String::from_utf8_lossy(p).replace("df93f5f3", "df93f5f4");
    assert!(
        err(wrong.as_bytes(), &t)
            .to_string()
            .contains("the result is blob")
    );
    // Garbage data.
    let p = b"diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1234567\nGIT binary patch\nliteral 10\n!!!!\n\n";
    assert!(matches!(err(p, &t), PatchError::BadBinary { .. }));
    // A declared size over the limit is refused before decoding.
    let p = b"diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1234567\nGIT binary patch\nliteral 999999999999\nUcmV+l0QLU>0RjUA1qKHQ2>`DEE&u=k\n\n";
    assert!(matches!(err(p, &t), PatchError::BadBinary { line: 5, .. }));
}

#[test]
fn counts() {
    let t = tree(&[("a", b"1\n2\n"), ("b", b"x\n")]);
    let p = b"--- a/a\n+++ b/a\n@@ -1,2 +1,3 @@\n-1\n+one\n+uno\n 2\ndiff --git a/b b/b\nold mode 100644\nnew mode 100755\n";
    let o = run(p, &t).unwrap();
    assert_eq!((o.files_changed, o.lines_added, o.lines_removed), (2, 2, 1));
}

/// git's base85 line encoding of `data` (for building binary patches in tests).
fn base85(data: &[u8]) -> String {
    const A: &[u8; 85] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let mut s = String::new();
    for chunk in data.chunks(52) {
        let n = chunk.len();
        s.push(if n <= 26 {
            (b'A' + n as u8 - 1) as char
        } else {
            (b'a' + n as u8 - 27) as char
        });
        for g in chunk.chunks(4) {
            let mut b = [0u8; 4];
            b[..g.len()].copy_from_slice(g);
            let mut v = u32::from_be_bytes(b);
            let mut five = [0u8; 5];
            for c in five.iter_mut().rev() {
                *c = A[(v % 85) as usize];
                v /= 85;
            }
            s.push_str(std::str::from_utf8(&five).unwrap());
        }
        s.push('\n');
    }
    s
}

#[test]
fn binary_bomb_is_refused_without_inflating_it() {
    use std::io::Write as _;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&vec![0u8; 4 << 20]).unwrap();
    let compressed = z.finish().unwrap();
    let p = format!(
        "diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1234567\nGIT binary patch\nliteral 100\n{}\n",
        base85(&compressed)
    );
    let e = err(p.as_bytes(), &tree(&[]));
    assert!(
        e.to_string()
            .contains("inflates to more than its declared 100 bytes"),
        "{e}"
    );
    // The same data with its true size decodes (and then fails only on the made-up id).
    let p = p.replace("literal 100\n", &format!("literal {}\n", 4 << 20));
    let e = err(p.as_bytes(), &tree(&[]));
    assert!(e.to_string().contains("the result is blob"), "{e}");
}

#[test]
fn collisions_are_judged_on_the_result_tree() {
    let t = tree(&[
        ("readme.md", b"r\n"),
        ("docs/a.md", b"a\n"),
        ("Both", b"1\n"),
        ("both", b"2\n"),
    ]);
    let w = |p: &str| WorkspacePath::new(p).unwrap();
    // A case-only rename leaves one name.
    let o = run(
        b"diff --git a/readme.md b/README.md\nsimilarity index 100%\nrename from readme.md\nrename to README.md\n",
        &t,
    )
    .unwrap();
    assert_eq!(o.changes.get(&w("readme.md")), Some(&FileChange::Delete));
    assert_eq!(
        o.changes.get(&w("README.md")),
        Some(&FileChange::Write {
            data: b"r\n".to_vec(),
            executable: false
        })
    );
    // So does a deletion plus a creation (what `genesis diff` writes for it).
    let p = b"diff --git a/README.md b/README.md\nnew file mode 100644\n--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+r\ndiff --git a/readme.md b/readme.md\ndeleted file mode 100644\n--- a/readme.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-r\n";
    assert_eq!(run(p, &t).unwrap().changes.len(), 2);
    // A new spelling beside a kept one is refused, naming both and the entry's line.
    let p = b"diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\ndiff --git a/README.md b/README.md\nnew file mode 100644\n--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+r\n";
    assert_eq!(
        err(p, &t),
        PatchError::PathCollision {
            path: "README.md".into(),
            line: 7,
            other: "readme.md".into()
        }
    );
    // A directory in another spelling too.
    let p = b"diff --git a/DOCS/b.md b/DOCS/b.md\nnew file mode 100644\n--- /dev/null\n+++ b/DOCS/b.md\n@@ -0,0 +1 @@\n+b\n";
    assert_eq!(
        err(p, &t),
        PatchError::PathCollision {
            path: "DOCS".into(),
            line: 1,
            other: "docs".into()
        }
    );
    // Names the tree already held both of stay patchable.
    let p = b"--- a/Both\n+++ b/Both\n@@ -1 +1 @@\n-1\n+one\n";
    assert_eq!(out(p, &t, "Both"), b"one\n");
}

/// `diff -ruN OLD NEW`: a file on one side only is dated at the epoch on the other, and still
/// named `OLD/x` / `NEW/x` there, so the leading directory goes for a deletion and a creation
/// as for a change (a fresh reviewer's finding, session 11: the deletion was refused, naming
/// `ws2/flat/f1.txt`). Checked against `git apply`.
#[test]
fn gnu_diff_dash_run_strips_the_directory_of_one_sided_files() {
    let t = tree(&[("flat/f1.txt", b"one\n"), ("flat/f2.txt", b"two\n")]);
    let patch = b"diff -ruN ws2/flat/f1.txt new/flat/f1.txt
--- ws2/flat/f1.txt\t2026-12-02 06:07:30.597151502 +0000
+++ new/flat/f1.txt\t1970-01-01 00:00:00.000000000 +0000
@@ -1 +0,0 @@
-one
diff -ruN ws2/flat/f2.txt new/flat/f2.txt
--- ws2/flat/f2.txt\t2026-12-02 06:07:30.597151502 +0000
+++ new/flat/f2.txt\t2026-12-02 06:07:31.597151502 +0000
@@ -1 +1 @@
-two
+2
diff -ruN ws2/flat/f3.txt new/flat/f3.txt
--- ws2/flat/f3.txt\t1970-01-01 00:00:00.000000000 +0000
+++ new/flat/f3.txt\t2026-12-02 06:07:30.597151502 +0000
@@ -0,0 +1 @@
+three
";
    let changes = run(patch, &t).unwrap().changes;
    let paths: Vec<&str> = changes.keys().map(|p| p.as_str()).collect();
    assert_eq!(paths, ["flat/f1.txt", "flat/f2.txt", "flat/f3.txt"]);
    assert!(matches!(
        changes[&WorkspacePath::new("flat/f1.txt").unwrap()],
        FileChange::Delete
    ));
    assert_eq!(out(patch, &t, "flat/f3.txt"), b"three\n");
    assert_eq!(out(patch, &t, "flat/f2.txt"), b"2\n");
}
