//! A session's `--checkout` directory has no `.git`, hence no git index: `snapshot`, `check`
//! and `diff` judge it with the tracked members the session recorded at open, and `diff` and
//! `check` of two trees compare a path that either side holds as a member by content, so a
//! committed `Cargo.lock` under a `/Cargo.lock` rule is never reported deleted or added
//! because one side has no index. Repositories are made with `git` in temporary directories;
//! `genesis` runs as a process and its exact output and exit codes are checked.

mod common;

use std::path::Path;

use common::*;

const GITIGNORE: &[u8] = b"/Cargo.lock\n/target/\n";
const LOCK: &[u8] = b"# lockfile v1\n";
const MAIN_RS: &[u8] = b"fn main() {}\n";
const MAIN_RS_2: &[u8] = b"fn main() { println!(\"hi\"); }\n";

/// A git work tree at `ws` whose `.gitignore` lists `/Cargo.lock`, with `Cargo.lock`
/// committed (`git add -f`), and a Genesis store (`genesis init`; its manifest excludes
/// `target/`).
fn make_workspace(ws: &Path) {
    git(ws, &["init", "-q", "-b", "main"]);
    write_tree(
        ws,
        &[
            (".gitignore", GITIGNORE),
            ("Cargo.lock", LOCK),
            ("src/main.rs", MAIN_RS),
        ],
    );
    git(ws, &["add", "."]);
    git(ws, &["add", "-f", "Cargo.lock"]);
    git(ws, &["commit", "-q", "-m", "init"]);
    assert_eq!(
        git(ws, &["ls-files", "-ci", "--exclude-standard"]),
        "Cargo.lock\n"
    );
    let o = run_in(ws, &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

fn open_checkout(ws: &Path, co: &Path) -> (String, String) {
    let o = run_in(ws, &["open", "--checkout", co.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    let o = run_in(ws, &["--json", "status", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let base = v["session"]["base_snapshot"]
        .as_str()
        .or_else(|| v["base_snapshot"].as_str())
        .expect("base_snapshot")
        .to_owned();
    (id, base)
}

fn members(dir: &Path, args: &[&str]) -> Vec<String> {
    let o = run_in(dir, args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["snapshot"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn snapshot_and_check_of_a_checkout_keep_the_tracked_ignored_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    make_workspace(&ws);
    let co = tmp.path().join("co");
    let (id, base) = open_checkout(&ws, &co);
    let co_s = co.to_str().unwrap();
    assert_eq!(std::fs::read(co.join("Cargo.lock")).unwrap(), LOCK);
    // Open recorded the base's tracked members (only .gitignore's exemption needs them),
    // and that the checkout was made from the base.
    let state = std::fs::read_to_string(ws.join(format!(".genesis/sessions/{id}.state"))).unwrap();
    assert!(
        state.ends_with(&format!(
            ",\n  \"base_tracked\": [\n    \"Cargo.lock\"\n  ],\n  \"checkout_from\": \"{base}\"\n}}\n"
        )),
        "{state}"
    );

    // From the workspace, the checkout is the session's: it hashes to the base.
    let o = run_in(&ws, &["snapshot", "--no-store", "--identity", co_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{base}\n"));
    assert_eq!(
        members(&ws, &["--json", "snapshot", "--no-store", co_s]),
        [".gitignore", "Cargo.lock", "genesis.json", "src/main.rs"]
    );
    let o = run_in(&ws, &["check", co_s, "--expect", &base]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("ok: {co_s} matches {base}\n"));

    // Elsewhere (no store, so no session), the checkout alone follows the rules of a tree
    // without git; checked against the base's document, the lockfile both hold is compared
    // by content and matches.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    assert_eq!(
        members(&elsewhere, &["--json", "snapshot", "--no-store", co_s]),
        [".gitignore", "genesis.json", "src/main.rs"]
    );
    let o = run_in(&ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = elsewhere.join("base.json");
    std::fs::write(&doc, &o.stdout).unwrap();
    let o = run_in(
        &elsewhere,
        &["check", co_s, "--expect", doc.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("ok: {co_s} matches {base}\n"));

    // A real difference in the lockfile is still reported, as a change.
    std::fs::write(co.join("Cargo.lock"), b"# edited\n").unwrap();
    let o = run_in(
        &elsewhere,
        &["check", co_s, "--expect", doc.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("mismatch: {co_s} hashes to ")),
        "{out}"
    );
    assert!(
        out.ends_with(&format!(", expected {base}\nM\tCargo.lock\n")),
        "{out}"
    );
}

#[test]
fn diff_of_workspace_and_checkout_piped_to_patch_records_only_the_edit() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    make_workspace(&ws);
    let co = tmp.path().join("co");
    let (id, _) = open_checkout(&ws, &co);
    let co_s = co.to_str().unwrap();
    let ws_s = ws.to_str().unwrap();

    // Unchanged: no difference at all, from the workspace or from anywhere else.
    let o = run_in(&ws, &["diff", ".", co_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let o = run_in(tmp.path(), &["diff", ws_s, co_s, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");

    std::fs::write(co.join("src/main.rs"), MAIN_RS_2).unwrap();
    let o = run_in(&ws, &["diff", ".", co_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let diff = stdout(&o);
    assert_eq!(
        diff,
        "diff --git a/src/main.rs b/src/main.rs\n\
         --- a/src/main.rs\n\
         +++ b/src/main.rs\n\
         @@ -1 +1 @@\n\
         -fn main() {}\n\
         +fn main() { println!(\"hi\"); }\n"
    );
    // The other way round, from outside the workspace: the same single change.
    let o = run_in(tmp.path(), &["diff", co_s, ws_s, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\tsrc/main.rs\n");

    let o = run_stdin(&ws, &["patch", &id, "-"], diff.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(&ws, &["diff", &id, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\tsrc/main.rs\n");
    // The checkout now hashes to the session's current snapshot.
    let o = run_in(&ws, &["--json", "status", &id]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let current = v["session"]["current_snapshot"]
        .as_str()
        .or_else(|| v["current_snapshot"].as_str())
        .unwrap()
        .to_owned();
    let o = run_in(&ws, &["check", co_s, "--expect", &current]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // A deletion in the checkout is still a deletion.
    std::fs::remove_file(co.join("Cargo.lock")).unwrap();
    let o = run_in(&ws, &["diff", ".", co_s, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "D\tCargo.lock\nM\tsrc/main.rs\n");
}

#[test]
fn diff_against_an_archive_without_index_reports_no_deletion() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    make_workspace(&ws);
    // `git archive` of HEAD: no .git, so its own rules leave Cargo.lock out.
    let export = tmp.path().join("export");
    std::fs::create_dir(&export).unwrap();
    let tar = tmp.path().join("c.tar");
    git(&ws, &["archive", "-o", tar.to_str().unwrap(), "HEAD"]);
    let st = std::process::Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&export)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        members(&export, &["--json", "snapshot", "--no-store"]),
        [".gitignore", "src/main.rs"]
    );
    std::fs::remove_file(ws.join("genesis.json")).unwrap();
    let (ws_s, ex_s) = (ws.to_str().unwrap(), export.to_str().unwrap());
    for (a, b) in [(ws_s, ex_s), (ex_s, ws_s)] {
        let o = run_in(tmp.path(), &["diff", a, b, "--name-status"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "", "diff {a} {b}");
    }
    // Against the stored snapshot of the work tree, too.
    let o = run_in(&ws, &["snapshot", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    let o = run_in(&ws, &["diff", &id, ex_s, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    // Different bytes are a modification, not a deletion and an addition.
    std::fs::write(export.join("Cargo.lock"), b"# other\n").unwrap();
    let o = run_in(tmp.path(), &["diff", ws_s, ex_s, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\tCargo.lock\n");
}
