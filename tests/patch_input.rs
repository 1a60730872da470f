//! What `genesis patch` takes as input: a patch may not leave a path that snapshots leave
//! out (excluded or ignored); `diff -ruN` output between differently named directories
//! applies; an empty hunk is a corrupt patch.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn patch_may_not_leave_paths_that_snapshots_leave_out() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "e"]));
    let cases: [&[u8]; 2] = [
        b"diff --git a/target/foo b/target/foo\nnew file mode 100644\n--- /dev/null\n+++ b/target/foo\n@@ -0,0 +1 @@\n+x\n",
        b"diff --git a/.gitignore b/.gitignore\nnew file mode 100644\n--- /dev/null\n+++ b/.gitignore\n@@ -0,0 +1 @@\n+a.txt\n",
    ];
    for (diff, expect) in cases.iter().zip([
        "target/foo (its directory target/ is excluded by the manifest)",
        "a.txt (ignored by .gitignore)",
    ]) {
        let o = run_stdin(r, &["patch", "e", "-"], diff);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(expect), "{}", stderr(&o));
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.join(".genesis/sessions/e.json")).unwrap())
            .unwrap();
    assert_eq!(doc["patches"], serde_json::json!([]));
}

#[test]
fn diff_run_output_between_differently_named_directories_applies() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "ru"]));
    let diff = b"diff -ruN old/a.txt new/a.txt\n--- old/a.txt\t2026-11-30 06:00:00.000000000 +0000\n+++ new/a.txt\t2026-11-30 06:01:00.000000000 +0000\n@@ -1 +1 @@\n-a\n+A\n";
    let o = run_stdin(r, &["patch", "ru", "-"], diff);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("M\ta.txt\n"), "{}", stdout(&o));
    // An empty hunk is a corrupt patch.
    let empty = b"--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +0,0 @@\n";
    let o = run_stdin(r, &["patch", "ru", "-"], empty);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
