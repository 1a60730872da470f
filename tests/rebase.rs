//! `genesis rebase SESSION [--markers]`: a session moves onto the workspace as it is now, by
//! a three-way merge per path (base snapshot, session's current snapshot, workspace now).
//! Exact exit codes, messages, session documents and bytes on disk.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::json;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}
"#;

/// A workspace with `files` and an open `--checkout` session `s` whose checkout got
/// `session_files` (a `None` removes the path) and was recorded with `patch --from`; then the
/// workspace gets `workspace_files`. Returns the workspace and the checkout directory.
struct Case {
    ws: tempfile::TempDir,
    _co_parent: tempfile::TempDir,
    co: PathBuf,
}

type Edits<'a> = &'a [(&'a str, Option<&'a [u8]>)];

fn edit(root: &Path, edits: Edits) {
    for (p, data) in edits {
        let full = root.join(p);
        match data {
            Some(d) => {
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(&full, d).unwrap();
            }
            None => std::fs::remove_file(&full).unwrap(),
        }
    }
}

fn case(files: &[(&str, &[u8])], session: Edits, workspace: Edits) -> Case {
    let ws = common::workspace(MANIFEST, files);
    let co_parent = tempfile::tempdir().unwrap();
    let co = co_parent.path().join("co");
    let r = ws.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(
        r,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
    ));
    edit(&co, session);
    ok(&run_in(r, &["patch", "s", "--from", co.to_str().unwrap()]));
    edit(r, workspace);
    Case {
        ws,
        _co_parent: co_parent,
        co,
    }
}

fn raw_session(root: &Path) -> Vec<u8> {
    std::fs::read(root.join(".genesis/sessions/s.json")).unwrap()
}

const FIVE: &[u8] = b"1\n2\n3\n4\n5\n";

#[test]
fn clean_merge_is_recorded_as_one_patch_from_the_workspace_and_applies() {
    let c = case(
        &[("a.txt", FIVE), ("keep.txt", b"k\n")],
        &[("a.txt", Some(b"ONE\n2\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\n2\n3\n4\nFIVE\n"))],
    );
    let r = c.ws.path();
    ok(&run_in(r, &["verify", "s"]));
    let before = session_doc(r, "s");
    // apply refuses the moved workspace, and names the way forward.
    let o = run_in(r, &["apply", "s"]);
    assert_eq!(code(&o), Some(3));
    assert!(
        stderr(&o).ends_with("`genesis rebase s` moves the session onto the workspace as it is now (a three-way merge per file)\n"),
        "{}",
        stderr(&o)
    );

    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let doc = session_doc(r, "s");
    let onto = identity(r);
    assert_eq!(doc["base_snapshot"], onto.as_str());
    assert_eq!(doc["patches"].as_array().unwrap().len(), 1);
    assert_eq!(doc["patches"][0]["before_snapshot"], onto.as_str());
    assert_eq!(doc["patches"][0]["after_snapshot"], doc["current_snapshot"]);
    assert_eq!(doc["verification"], serde_json::Value::Null);
    let patch = doc["patches"][0]["patch"].as_str().unwrap();
    assert_eq!(
        stdout(&o),
        format!(
            "M\ta.txt\nsession s rebased onto {onto}: patch {patch} recorded: {onto} → {}; verify again\n",
            doc["current_snapshot"].as_str().unwrap()
        )
    );
    // The checkout held the current snapshot: it now holds the merged tree.
    assert_eq!(
        std::fs::read(c.co.join("a.txt")).unwrap(),
        b"ONE\n2\n3\n4\nFIVE\n"
    );
    assert_eq!(identity(&c.co), doc["current_snapshot"].as_str().unwrap());
    // The history it replaced is kept in the state.
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.join(".genesis/sessions/s.state")).unwrap())
            .unwrap();
    assert_eq!(state["rebased"][0]["onto"], onto.as_str());
    assert_eq!(state["rebased"][0]["base"], before["base_snapshot"]);
    assert_eq!(state["rebased"][0]["patches"], before["patches"]);
    assert_eq!(state["rebased"][0]["verification"], before["verification"]);
    // Verification was cleared: apply refuses until verify runs again; then it applies.
    assert_eq!(code(&run_in(r, &["apply", "s"])), Some(3));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["replay", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"ONE\n2\n3\n4\nFIVE\n"
    );
    assert_eq!(std::fs::read(r.join("keep.txt")).unwrap(), b"k\n");
}

#[test]
fn overlapping_edits_record_nothing_and_list_hunks_exit_3() {
    let c = case(
        &[("a.txt", FIVE)],
        &[("a.txt", Some(b"1\nTWO\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\nzwei\ndrei\n4\n5\n"))],
    );
    let r = c.ws.path();
    let before = raw_session(r);
    let onto = identity(r);
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: session s cannot be rebased onto the workspace ({onto}): 1 path(s) conflict; nothing recorded\n  a.txt: both changed the same lines\n    session lines 2-3, workspace lines 2-3 (base lines 2-3)\n(`--markers` records them with conflict markers, to resolve with another patch)\n"
        )
    );
    assert_eq!(raw_session(r), before);
    assert_eq!(
        std::fs::read(c.co.join("a.txt")).unwrap(),
        b"1\nTWO\n3\n4\n5\n"
    );

    let o = run_in(r, &["--json", "rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    let v = json_out(&o);
    assert_eq!(
        v["conflicts"],
        json!([{"path": "a.txt", "kind": "content", "message": "both changed the same lines", "hunks": [{
            "base": {"start": 2, "count": 2},
            "session": {"start": 2, "count": 2},
            "workspace": {"start": 2, "count": 2}
        }]}])
    );
    assert_eq!(v["moved"], false);
    assert_eq!(v["entry"], serde_json::Value::Null);
    assert_eq!(raw_session(r), before);
}

#[test]
fn markers_record_git_style_conflict_markers() {
    let c = case(
        &[("a.txt", FIVE), ("b.txt", b"x\n")],
        &[("a.txt", Some(b"1\nTWO\n3\n4\n5\n"))],
        &[
            ("a.txt", Some(b"1\nzwei\n3\n4\n5\n")),
            ("b.txt", Some(b"y\n")),
        ],
    );
    let r = c.ws.path();
    let o = run_in(r, &["rebase", "s", "--markers"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(
            "conflict markers written: a.txt: both changed the same lines\n    session line 2, workspace line 2 (base line 2)\nM\ta.txt\n"
        ),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        std::fs::read(c.co.join("a.txt")).unwrap(),
        b"1\n<<<<<<< session\nTWO\n=======\nzwei\n>>>>>>> workspace\n3\n4\n5\n"
    );
    assert_eq!(std::fs::read(c.co.join("b.txt")).unwrap(), b"y\n");
    assert_eq!(session_doc(r, "s")["verification"], serde_json::Value::Null);
}

/// Issue 12 reviewer: apply names `genesis rebase` only for conflicts a rebase resolves; a
/// directory turned into a symbolic link is not one (rebase would leave it, apply refuse again).
#[test]
fn apply_hints_rebase_only_for_conflicts_rebase_resolves() {
    let c = case(&[("d/a.txt", b"a\n")], &[("d/new", Some(b"n\n"))], &[]);
    let r = c.ws.path();
    ok(&run_in(r, &["verify", "-q", "s"]));
    let elsewhere = c._co_parent.path().join("real-d");
    std::fs::rename(r.join("d"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, r.join("d")).unwrap();
    let o = run_in(r, &["apply", "s"]);
    assert_eq!(code(&o), Some(3));
    assert!(
        stderr(&o).contains("d/new: d is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("genesis rebase"), "{}", stderr(&o));
}

/// Issue 12 reviewer: the state records which files hold the markers a rebase wrote; status
/// names them; apply refuses (exit 3, naming them) until a patch changes those files (git
/// refuses to commit unmerged paths), unless `--allow-markers`.
#[test]
fn unresolved_markers_are_shown_and_block_apply_until_a_patch_changes_them() {
    let c = case(
        &[("a.txt", FIVE), ("b.txt", b"x\n")],
        &[("a.txt", Some(b"1\nTWO\n3\n4\n5\n"))],
        &[
            ("a.txt", Some(b"1\nzwei\n3\n4\n5\n")),
            ("b.txt", Some(b"y\n")),
        ],
    );
    let r = c.ws.path();
    ok(&run_in(r, &["rebase", "-q", "s", "--markers"]));
    let st = ok(&run_in(r, &["status", "s"]));
    assert!(
        st.contains("conflict markers in: a.txt (apply refuses until a patch changes them)\n"),
        "{st}"
    );
    let j = ok_json(&run_in(r, &["--json", "status", "s"]));
    assert_eq!(j["conflict_markers"], json!(["a.txt"]));
    ok(&run_in(r, &["verify", "-q", "s"]));
    let o = run_in(r, &["apply", "s"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session s cannot be applied: unresolved conflict markers (from `genesis rebase --markers`) in: a.txt; record a patch that resolves them, or pass --allow-markers\n"
    );
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"1\nzwei\n3\n4\n5\n"
    );
    let o = run_in(r, &["apply", "--dry-run", "--allow-markers", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    // A patch that changes a.txt resolves it.
    std::fs::write(c.co.join("a.txt"), b"1\nTWO zwei\n3\n4\n5\n").unwrap();
    ok(&run_in(
        r,
        &["patch", "-q", "s", "--from", c.co.to_str().unwrap()],
    ));
    let j = ok_json(&run_in(r, &["--json", "status", "s"]));
    assert_eq!(j["conflict_markers"], json!([]));
    ok(&run_in(r, &["verify", "-q", "s"]));
    ok(&run_in(r, &["apply", "-q", "s"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"1\nTWO zwei\n3\n4\n5\n"
    );
}

#[test]
fn whole_file_conflicts_are_listed_and_never_marked() {
    let c = case(
        &[
            ("gone.txt", b"g\n"),
            ("bin.dat", b"\0base"),
            ("new.txt", b""),
        ],
        &[
            ("gone.txt", None),
            ("bin.dat", Some(b"\0session")),
            ("added.txt", Some(b"session\n")),
        ],
        &[
            ("gone.txt", Some(b"g2\n")),
            ("bin.dat", Some(b"\0workspace")),
            ("added.txt", Some(b"workspace\n")),
        ],
    );
    let r = c.ws.path();
    let before = raw_session(r);
    // --markers records nothing here, and says why.
    let reason = "--markers recorded nothing: conflict markers express only line conflicts, and bin.dat, gone.txt are whole-file conflicts (a deletion against a change, a binary file, executable bits, or a file against a directory); resolve them with a patch to the session, then rebase again";
    let o = run_in(r, &["rebase", "s", "--markers"]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).ends_with(&format!("\n({reason})\n")),
        "{}",
        stderr(&o)
    );
    let o = run_in(r, &["--json", "rebase", "s", "--markers"]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert_eq!(json_out(&o)["not_recorded_reason"], reason);
    assert_eq!(
        json_out(&o)["conflicts"],
        json!([
            {"path": "added.txt", "kind": "add-add", "message": "both added it with different content", "hunks": [{
                "base": {"start": 0, "count": 0},
                "session": {"start": 1, "count": 1},
                "workspace": {"start": 1, "count": 1}
            }]},
            {"path": "bin.dat", "kind": "binary", "message": "binary file changed on both sides", "hunks": []},
            {"path": "gone.txt", "kind": "delete-modify", "message": "the session deleted it, the workspace changed it", "hunks": []}
        ])
    );
    assert_eq!(raw_session(r), before);
}

#[test]
fn one_sided_changes_merge_whole_files_binary_and_executable_bit() {
    let c = case(
        &[
            ("bin.dat", b"\0base"),
            ("run.sh", b"echo 1\n"),
            ("x.txt", b"x\n"),
        ],
        &[("bin.dat", Some(b"\0session")), ("x.txt", None)],
        &[("run.sh", Some(b"echo 2\n"))],
    );
    let r = c.ws.path();
    // The session also sets the executable bit of run.sh; the workspace changes its text.
    std::fs::set_permissions(c.co.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    ok(&run_in(
        r,
        &["patch", "s", "--from", c.co.to_str().unwrap()],
    ));
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().take(3).collect::<Vec<_>>(),
        ["M\tbin.dat", "M\trun.sh", "D\tx.txt"]
    );
    assert_eq!(std::fs::read(c.co.join("bin.dat")).unwrap(), b"\0session");
    assert_eq!(std::fs::read(c.co.join("run.sh")).unwrap(), b"echo 2\n");
    let mode = std::fs::metadata(c.co.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    assert!(!c.co.join("x.txt").exists());
}

#[test]
fn a_session_already_on_the_workspace_records_nothing() {
    let c = case(&[("a.txt", FIVE)], &[("a.txt", Some(b"ONE\n"))], &[]);
    let r = c.ws.path();
    let before = raw_session(r);
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(0));
    assert_eq!(
        stdout(&o),
        format!(
            "session s is already on the workspace ({}); nothing recorded\n",
            identity(r)
        )
    );
    assert_eq!(raw_session(r), before);
}

#[test]
fn in_place_sessions_are_refused_exit_3() {
    let ws = common::workspace(MANIFEST, &[("a.txt", FIVE)]);
    let r = ws.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "p", "--in-place"]));
    let o = run_in(r, &["rebase", "p"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session p cannot be rebased: it is in-place: its changes are in the workspace itself\n"
    );
}

#[test]
fn a_checkout_the_session_did_not_record_is_left_as_it_was() {
    let c = case(
        &[("a.txt", FIVE)],
        &[("a.txt", Some(b"ONE\n2\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\n2\n3\n4\nFIVE\n"))],
    );
    let r = c.ws.path();
    let made_from = session_doc(r, "s")["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(c.co.join("a.txt"), b"unrecorded\n").unwrap();
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: warning: the checkout {co} was left as it was: it did not hold the session's current snapshot, so `patch --from` it is refused from now on (it would undo the rebase); record its own changes as a diff: `genesis diff {made_from} {co} | genesis patch s -`\n",
            co = c.co.display()
        )
    );
    assert_eq!(std::fs::read(c.co.join("a.txt")).unwrap(), b"unrecorded\n");
}

/// After a rebase that left the checkout as it was, the checkout still holds the old session
/// result: `patch --from` it would record that state and silently undo the workspace edit the
/// rebase merged in. It is refused (exit 3, naming the session, the checkout and the way
/// out), nothing recorded; the suggested diff records the checkout's own change on top.
#[test]
fn patch_from_a_checkout_a_rebase_left_stale_is_refused_exit_3() {
    let c = case(
        &[("a.txt", FIVE), ("b.txt", b"b\n")],
        &[("a.txt", Some(b"ONE\n2\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\n2\n3\n4\nFIVE\n"))],
    );
    let r = c.ws.path();
    let made_from = session_doc(r, "s")["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    // An edit in the checkout no patch recorded: the rebase leaves the checkout as it was.
    std::fs::write(c.co.join("b.txt"), b"B\n").unwrap();
    ok(&run_in(r, &["rebase", "s"]));
    let before = raw_session(r);
    let current = session_doc(r, "s")["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    // Any spelling of the checkout is the checkout.
    let spelled = format!("{}/../co", c.co.display());
    for dir in [c.co.to_str().unwrap(), spelled.as_str()] {
        let o = run_in(r, &["patch", "s", "--from", dir]);
        assert_eq!(code(&o), Some(3), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "genesis: error: session s: the checkout {co} was made from snapshot {made_from}, which `genesis rebase` has since replaced (the session is now at {current}); recording its state would undo the workspace changes the rebase merged in, so nothing was recorded. Record the checkout's own changes as a diff instead: `genesis diff {made_from} {co} | genesis patch s -` (or abort the session and open a new checkout)\n",
                co = c.co.display()
            )
        );
        assert_eq!(raw_session(r), before);
    }
    // The way out it names: the checkout's own change, as a diff onto the merged result.
    let diff = ok(&run_in(r, &["diff", &made_from, c.co.to_str().unwrap()]));
    ok(&patch_stdin(r, "s", diff.as_bytes()));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"ONE\n2\n3\n4\nFIVE\n"
    );
    assert_eq!(std::fs::read(r.join("b.txt")).unwrap(), b"B\n");
}

/// A checkout the rebase rewrote holds the merged tree: `patch --from` it still works.
#[test]
fn patch_from_a_checkout_the_rebase_rewrote_is_recorded() {
    let c = case(
        &[("a.txt", FIVE), ("b.txt", b"b\n")],
        &[("a.txt", Some(b"ONE\n2\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\n2\n3\n4\nFIVE\n"))],
    );
    let r = c.ws.path();
    ok(&run_in(r, &["rebase", "s"]));
    std::fs::write(c.co.join("b.txt"), b"B\n").unwrap();
    let o = run_in(r, &["patch", "s", "--from", c.co.to_str().unwrap()]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    // And again after that patch: the checkout is recorded as its result.
    std::fs::write(c.co.join("b.txt"), b"BB\n").unwrap();
    ok(&run_in(
        r,
        &["patch", "s", "--from", c.co.to_str().unwrap()],
    ));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"ONE\n2\n3\n4\nFIVE\n"
    );
    assert_eq!(std::fs::read(r.join("b.txt")).unwrap(), b"BB\n");
}

#[test]
fn an_applied_session_is_not_rebased_exit_3() {
    let c = case(&[("a.txt", FIVE)], &[("a.txt", Some(b"ONE\n"))], &[]);
    let r = c.ws.path();
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session s is applied; only an open session can be changed\n"
    );
}

/// A tree past 4096 files (v0.2) rebases as a small one does: the merged tree is a v0.2
/// snapshot, not refused by the v0.1 file count.
#[test]
fn a_tree_past_4096_files_rebases() {
    let mut owned: Vec<(String, Vec<u8>)> = (0..4100)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i / 100),
                format!("{i}\n").into_bytes(),
            )
        })
        .collect();
    owned.push(("a.txt".into(), FIVE.to_vec()));
    let files: Vec<(&str, &[u8])> = owned
        .iter()
        .map(|(p, d)| (p.as_str(), d.as_slice()))
        .collect();
    let c = case(
        &files,
        &[("a.txt", Some(b"one\n2\n3\n4\n5\n"))],
        &[("a.txt", Some(b"1\n2\n3\n4\nfive\n"))],
    );
    let r = c.ws.path();
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"one\n2\n3\n4\nfive\n"
    );
}

/// A file on one side where the other side has a directory holding files (both kinds of
/// clash: the session adds the file, or the workspace does) is a conflict listed by path
/// (exit 3, kind `file-directory`), not a usage error; nothing is recorded, also with
/// `--markers`.
#[test]
fn a_file_against_a_directory_is_a_conflict_exit_3() {
    for (session, workspace) in [
        (
            &[("x", Some(&b"file\n"[..]))][..],
            &[("x/y", Some(&b"in dir\n"[..]))][..],
        ),
        (
            &[("x/y", Some(&b"in dir\n"[..]))][..],
            &[("x", Some(&b"file\n"[..]))][..],
        ),
    ] {
        let c = case(&[("a.txt", FIVE)], session, workspace);
        let r = c.ws.path();
        let before = raw_session(r);
        let onto = identity(r);
        let o = run_in(r, &["rebase", "s"]);
        assert_eq!(code(&o), Some(3), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "genesis: error: session s cannot be rebased onto the workspace ({onto}): 1 path(s) conflict; nothing recorded\n  x: a file on one side, a directory holding files on the other\n"
            )
        );
        let o = run_in(r, &["--json", "rebase", "s", "--markers"]);
        assert_eq!(code(&o), Some(3), "{}", stderr(&o));
        assert_eq!(
            json_out(&o)["conflicts"],
            json!([{"path": "x", "kind": "file-directory", "message": "a file on one side, a directory holding files on the other", "hunks": []}])
        );
        assert_eq!(raw_session(r), before);
    }
}

/// A file the session added that an ignore rule the workspace added now leaves out is a
/// conflict listed by path (exit 3, kind `left-out`), not a usage error: the merged tree could
/// never be reproduced from disk, so nothing is recorded.
#[test]
fn a_session_file_the_workspace_now_ignores_is_a_conflict_exit_3() {
    let c = case(
        &[("a.txt", FIVE)],
        &[("build/out.txt", Some(&b"built\n"[..]))],
        &[(".gitignore", Some(&b"build/\n"[..]))],
    );
    let r = c.ws.path();
    let before = raw_session(r);
    let onto = identity(r);
    let o = run_in(r, &["rebase", "s"]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: session s cannot be rebased onto the workspace ({onto}): 1 path(s) conflict; nothing recorded\n  build/out.txt: the session's file is one the workspace's ignore rules now leave out\n"
        )
    );
    let o = run_in(r, &["--json", "rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(json_out(&o)["conflicts"][0]["kind"], "left-out");
    assert_eq!(raw_session(r), before);
}
