//! `examples/transaction.rs` refuses bad arguments with a sentence on standard error (the
//! error's `Display`, not Rust's `Debug` form) and exit 1, having created nothing: no store,
//! no session, in the workspace it was given.

mod common;

use common::*;
use std::process::Output;

fn example(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO"))
        .args(["run", "-q", "--example", "transaction", "--"])
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap()
}

#[test]
fn bad_arguments_are_refused_in_words_before_anything_is_created() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write_tree(&ws, &[("a.txt", b"a\n")]);
    let diff = d.path().join("change.diff");
    std::fs::write(&diff, b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
    let (w, f) = (ws.to_str().unwrap(), diff.to_str().unwrap());
    let missing = d.path().join("nope");
    let m = missing.to_str().unwrap();

    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![m, f],
            format!("transaction: error: {m}: not a directory\n"),
        ),
        (
            vec![w, f],
            format!(
                "transaction: error: {w}/genesis.json: no manifest; `genesis init` in the workspace writes one\n"
            ),
        ),
        (
            vec!["one"],
            "transaction: error: usage: transaction [WORKSPACE DIFF]\n".into(),
        ),
    ];
    for (args, message) in &cases {
        let o = example(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert_eq!(&stderr(&o), message, "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        assert!(!ws.join(".genesis").exists(), "{args:?} created a store");
    }
    // With a manifest, a diff that cannot be read is refused before the store is made.
    std::fs::write(
        ws.join("genesis.json"),
        br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
    )
    .unwrap();
    let o = example(&[w, m]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "transaction: error: {m}: cannot read the diff: No such file or directory (os error 2)\n"
        )
    );
    assert!(!ws.join(".genesis").exists());
    // A diff that is not one is refused before the store is made (issue 12 reviewer).
    let garbage = d.path().join("garbage.diff");
    std::fs::write(&garbage, b"this is not a diff\n").unwrap();
    let o = example(&[w, garbage.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "transaction: error: {}: the patch holds no file change (no `diff --git` or `---`/`+++` header found)\n",
            garbage.display()
        )
    );
    assert!(!ws.join(".genesis").exists());
    // A manifest that is not one: its own error, in words, still nothing created.
    std::fs::write(ws.join("genesis.json"), b"{").unwrap();
    let o = example(&[w, f]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with("transaction: error: ") && !e.contains("Os {") && !e.contains("Error {"),
        "{e}"
    );
    assert!(!ws.join(".genesis").exists());
    // And the arguments right: the transaction runs through.
    std::fs::write(
        ws.join("genesis.json"),
        br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
    )
    .unwrap();
    let o = example(&[w, f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"b\n");
}

/// A step that fails after `open` (a diff that does not apply)
/// aborts the session: the example leaves no open session behind in the store it used, and
/// the workspace as it was.
#[test]
fn a_failing_step_aborts_the_session_it_opened() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write_tree(
        &ws,
        &[
            ("a.txt", b"a\n"),
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
            ),
        ],
    );
    let w = ws.to_str().unwrap();
    let bad = d.path().join("bad.diff");
    std::fs::write(&bad, b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n").unwrap();
    let empty = d.path().join("empty.diff");
    std::fs::write(&empty, b"").unwrap();
    let o = example(&[w, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.starts_with("transaction: error: "), "{e}");
    assert!(e.contains("; session ") && e.ends_with(" aborted\n"), "{e}");
    // An empty diff is no diff: refused before a session is opened (parsed first).
    let o = example(&[w, empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("; session "), "{}", stderr(&o));
    let o = run_in(&ws, &["--json", "status"]);
    let v = ok_json(&o);
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{v}");
    assert!(sessions.iter().all(|s| s["status"] == "aborted"), "{v}");
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"a\n");
}
