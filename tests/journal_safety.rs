//! Recovery trusts no journal blindly: a journal naming a path under `.git` or `.genesis`, or
//! another session, is refused (exit 4) before anything is written, and rolling forward never
//! writes through a symbolic link that replaced a directory after the crash.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn a_journal_naming_git_or_another_session_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    std::fs::create_dir_all(r.join(".git")).unwrap();
    std::fs::write(r.join(".git/config"), b"[core]\n").unwrap();
    verified_session(r, "j", b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n");
    let blob = genesis::Digest::of(b"b\n").to_string();
    for (name, session, path) in [
        ("j", "j", ".git/config"),
        ("j", "other", "a.txt"),
        ("j", "j", ".genesis/format"),
    ] {
        let journal = serde_json::json!({
            "schema": "genesis/journal-v0.1", "session": session, "final_status": "applied",
            "ops": [{"path": path, "pre": null, "post": {"blob": blob, "executable": true}}]
        });
        std::fs::write(
            r.join(format!(".genesis/journal/{name}.json")),
            journal.to_string(),
        )
        .unwrap();
        let o = run_in(r, &["status"]);
        assert_eq!(o.status.code(), Some(4), "{path}: {}", stderr(&o));
        assert!(stderr(&o).contains("invalid journal"), "{}", stderr(&o));
        assert_eq!(std::fs::read(r.join(".git/config")).unwrap(), b"[core]\n");
        assert_eq!(std::fs::read(r.join("a.txt")).unwrap(), b"a\n");
    }
}

#[test]
fn recovery_never_goes_through_a_link() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    verified_session(
        r,
        "l",
        b"--- a/keep/me.txt\n+++ b/keep/me.txt\n@@ -1 +1 @@\n-mine\n+changed\n",
    );
    // Crash just after the journal is durable (its write is steps 1-5).
    let o = common::genesis()
        .current_dir(r)
        .args(["apply", "l"])
        .env("GENESIS_FAULT", "6:abort")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None);
    assert!(
        std::fs::read_dir(r.join(".genesis/journal"))
            .unwrap()
            .count()
            > 0
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::rename(r.join("keep"), outside.path().join("keep")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("keep"), r.join("keep")).unwrap();
    let o = run_in(r, &["recover"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("keep: refused: is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(outside.path().join("keep/me.txt")).unwrap(),
        b"mine\n"
    );
    let names: Vec<String> = std::fs::read_dir(outside.path().join("keep"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["me.txt"],
        "nothing staged or deleted through the link"
    );
}
