//! The "skipped: symbolic link" warning is given once per store for a given tree and set of
//! skipped entries (remembered in `.genesis/warned`), again when the set changes; `-v` gives it
//! every time, `-q` never; without a store every run gives it. `--json` lists the skipped
//! entries every time.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

const ONCE: &str = "genesis: (said once for these entries; -v says it every time)\n";

fn ws_with_link() -> tempfile::TempDir {
    let d = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    assert_eq!(code(&run_in(d.path(), &["init"])), Some(0));
    std::os::unix::fs::symlink("a.txt", d.path().join("link")).unwrap();
    d
}

#[test]
fn the_skipped_link_warning_is_given_once_per_store() {
    let d = ws_with_link();
    let r = d.path();
    let warn = "genesis: skipped link: symbolic link (not followed)\n";
    let o = run_in(r, &["snapshot", "--identity"]);
    assert_eq!(code(&o), Some(0));
    assert_eq!(stderr(&o), format!("{warn}{ONCE}"));
    // The same set again, by any command that snapshots the workspace: silent.
    assert_eq!(stderr(&run_in(r, &["snapshot", "--identity"])), "");
    let o = run_in(r, &["open", "--session", "s1"]);
    assert_eq!(code(&o), Some(0));
    assert_eq!(
        stderr(&o),
        format!("genesis: opened session s1 on snapshot {}\n", identity(r))
    );
    // -v: every time; -q: never, and --json still lists it.
    let o = run_in(r, &["-v", "snapshot", "--identity"]);
    assert_eq!(stderr(&o), warn);
    let o = run_in(r, &["-q", "-v", "snapshot"]);
    assert_eq!(code(&o), Some(2), "-q and -v conflict");
    std::os::unix::fs::symlink("a.txt", r.join("link2")).unwrap();
    let o = run_in(r, &["-q", "--json", "snapshot"]);
    assert_eq!(stderr(&o), "");
    assert_eq!(
        ok_json(&o)["skipped"],
        serde_json::json!([
            {"path": "link", "reason": "symlink"},
            {"path": "link2", "reason": "symlink"}
        ])
    );
    // A new set (link2 added; -q remembered nothing) is reported again, whole, then not.
    let o = run_in(r, &["snapshot", "--identity"]);
    assert_eq!(
        stderr(&o),
        format!("{warn}genesis: skipped link2: symbolic link (not followed)\n{ONCE}")
    );
    assert_eq!(stderr(&run_in(r, &["snapshot", "--identity"])), "");
    // The store remembers one line per reported set: 64 hex digits each.
    let warned = std::fs::read_to_string(r.join(".genesis/warned")).unwrap();
    let lines: Vec<&str> = warned.lines().collect();
    assert_eq!(lines.len(), 2, "{warned}");
    assert!(
        lines
            .iter()
            .all(|l| l.len() == 64 && l.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    // Without a store nothing is remembered: every run says it.
    for _ in 0..2 {
        let o = run_in(r, &["snapshot", "--no-store", "--identity"]);
        assert_eq!(
            stderr(&o),
            format!("{warn}genesis: skipped link2: symbolic link (not followed)\n")
        );
    }
}

#[test]
fn another_tree_in_the_same_store_is_reported_on_its_own() {
    let d = ws_with_link();
    let r = d.path();
    let o = run_in(r, &["snapshot", "--identity"]);
    assert!(stderr(&o).ends_with(ONCE), "{}", stderr(&o));
    // The same entry names in another directory snapshotted into this store: its own set.
    let other = tempfile::tempdir().unwrap();
    write_tree(other.path(), &[("a.txt", b"a\n")]);
    std::os::unix::fs::symlink("a.txt", other.path().join("link")).unwrap();
    let dir = other.path().to_str().unwrap();
    let into = ["--store", ".genesis", "snapshot", "--identity", dir];
    let o = run_in(r, &into);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("genesis: skipped link: symbolic link (not followed)\n{ONCE}")
    );
    assert_eq!(stderr(&run_in(r, &into)), "");
    // Without --store, `snapshot DIR` has no store of DIR's: no memory, said every time.
    for _ in 0..2 {
        let o = run_in(r, &["snapshot", "--identity", dir]);
        assert_eq!(
            stderr(&o),
            "genesis: skipped link: symbolic link (not followed)\n"
        );
    }
}

#[test]
fn a_coloured_diff_is_refused_naming_the_colour() {
    let d = workspace(MANIFEST, &[("a.txt", b"one\n")]);
    let r = d.path();
    let o = run_in(r, &["open", "--session", "c1"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let before = session_doc(r, "c1");
    // As `git diff --color=always` writes it.
    let coloured = b"\x1b[1mdiff --git a/a.txt b/a.txt\x1b[m\n\x1b[1m--- a/a.txt\x1b[m\n\x1b[1m+++ b/a.txt\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[31m-one\x1b[m\n\x1b[32m+ONE\x1b[m\n";
    let o = patch_stdin(r, "c1", coloured);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: standard input: a coloured diff: line 1 starts with an ANSI escape (ESC[), as `git diff --color=always` or `color.ui = always` writes; give it without colour: `git diff --no-color`\n"
    );
    assert_eq!(session_doc(r, "c1"), before, "nothing recorded");
    // From a file, the file is named; and the same diff without colour is recorded.
    let f = d.path().join("coloured.diff");
    std::fs::write(&f, coloured).unwrap();
    let o = run_in(r, &["patch", "c1", f.to_str().unwrap()]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).starts_with(&format!(
            "genesis: error: {}: a coloured diff: line 1 ",
            f.display()
        )),
        "{}",
        stderr(&o)
    );
    let plain = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n";
    let o = patch_stdin(r, "c1", plain);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}

#[test]
fn quiet_silences_notes_and_warnings_but_not_errors() {
    let d = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = d.path();
    // Without -q, init warns that the manifest has no obligations; with it, nothing.
    let o = run_in(r, &["-q", "init"]);
    assert_eq!(code(&o), Some(0));
    assert_eq!(stderr(&o), "");
    let o = run_in(r, &["-q", "open", "--session", "q1"]);
    assert_eq!(
        (code(&o), stdout(&o), stderr(&o)),
        (Some(0), "q1\n".into(), String::new())
    );
    let o = run_in(r, &["open", "--session", "q2"]);
    assert!(
        stderr(&o).starts_with("genesis: opened session q2 on snapshot "),
        "{}",
        stderr(&o)
    );
    let o = run_in(r, &["-q", "status", "nope"]);
    assert_eq!(code(&o), Some(2));
    assert!(stderr(&o).starts_with("genesis: error: "), "{}", stderr(&o));
}
