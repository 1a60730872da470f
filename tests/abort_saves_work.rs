//! `abort` never loses a byte: every file it removes or overwrites that no patch recorded is
//! stored first and listed, files the base snapshot's rules leave out are never touched,
//! `abort --dry-run` changes nothing, and `genesis restore` brings the saved files back.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use sha2::Digest as _;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

fn open_in_place(root: &Path) -> String {
    let o = run_in(root, &["open", "--session", "s", "--in-place"]);
    ok(&o);
    "s".into()
}

fn sha(data: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(data))
}

fn stored(root: &Path, data: &[u8]) -> bool {
    let store = genesis::store::Store::open(&root.join(".genesis")).unwrap();
    store.has_object(&sha(data).parse().unwrap())
}

#[test]
fn in_place_abort_saves_unrecorded_edits_and_new_files_and_restore_brings_them_back() {
    let t = workspace(MANIFEST, &[("app.py", b"app\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join("app.py"), b"v2\n").unwrap();
    ok(&run_in(root, &["patch", &id]));
    std::fs::create_dir(root.join("out")).unwrap();
    std::fs::write(root.join("out/result.jsonl"), b"data\n").unwrap();
    std::fs::write(root.join("app.py"), b"v2\ntweak\n").unwrap();

    let out = ok(&run_in(root, &["abort", &id]));
    assert_eq!(
        out,
        format!(
            "saved 2 file(s) that no patch recorded before removing or overwriting them:\n  app.py (9 bytes, blob {})\n  out/result.jsonl (5 bytes, blob {})\nbring them back with: genesis restore s\naborted session s\n",
            sha(b"v2\ntweak\n"),
            sha(b"data\n")
        )
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"app\n");
    assert!(!root.join("out").exists());
    assert!(stored(root, b"v2\ntweak\n") && stored(root, b"data\n"));
    assert_eq!(session_status(root, &id), "aborted");
    let out = ok(&run_in(root, &["status", &id]));
    assert!(
        out.contains("saved by abort: 2 file(s) no patch recorded; `genesis restore s` brings them back\n  app.py (9 bytes)\n  out/result.jsonl (5 bytes)\n"),
        "{out}"
    );

    let out = ok(&run_in(root, &["restore", &id]));
    assert!(
        out.ends_with("wrote 2 file(s) into . (0 already there)\n"),
        "{out}"
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"v2\ntweak\n");
    assert_eq!(
        std::fs::read(root.join("out/result.jsonl")).unwrap(),
        b"data\n"
    );
    // Twice is harmless.
    let out = ok(&run_in(root, &["restore", &id]));
    assert_eq!(out, "wrote 0 file(s) into . (2 already there)\n");
}

#[test]
fn in_place_abort_never_touches_a_file_the_base_left_out() {
    let t = workspace(
        MANIFEST,
        &[
            (".gitignore", b"secret.env\n"),
            ("secret.env", b"TOKEN=x\n"),
        ],
    );
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join(".gitignore"), b"").unwrap();
    ok(&run_in(root, &["abort", &id]));
    assert_eq!(
        std::fs::read(root.join("secret.env")).unwrap(),
        b"TOKEN=x\n"
    );
    assert_eq!(
        std::fs::read(root.join(".gitignore")).unwrap(),
        b"secret.env\n"
    );
}

#[test]
fn a_member_hidden_by_a_new_ignore_rule_is_saved_before_it_is_overwritten() {
    let t = workspace(MANIFEST, &[("notes.txt", b"base\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join(".gitignore"), b"notes.txt\n").unwrap();
    std::fs::write(root.join("notes.txt"), b"agent's notes\n").unwrap();
    let o = run_in(root, &["--json", "abort", &id]);
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let saved: Vec<&str> = v["saved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(saved, [".gitignore", "notes.txt"]);
    assert_eq!(v["restore_command"], "genesis restore s");
    assert_eq!(std::fs::read(root.join("notes.txt")).unwrap(), b"base\n");
    assert!(!root.join(".gitignore").exists());
    assert!(stored(root, b"agent's notes\n"));
    ok(&run_in(root, &["restore", &id]));
    assert_eq!(
        std::fs::read(root.join("notes.txt")).unwrap(),
        b"agent's notes\n"
    );
}

#[test]
fn abort_dry_run_lists_and_changes_nothing() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join("a.txt"), b"recorded\n").unwrap();
    ok(&run_in(root, &["patch", &id]));
    std::fs::remove_file(root.join("b.txt")).unwrap();
    std::fs::write(root.join("c.txt"), b"new\n").unwrap();
    let objects = walkdir::WalkDir::new(root.join(".genesis/objects"))
        .into_iter()
        .count();
    let out = ok(&run_in(root, &["abort", &id, "--dry-run"]));
    assert_eq!(
        out,
        "abort s would change 3 path(s):\n  restore a.txt\n  create  b.txt\n  delete  c.txt  (unrecorded: saved first)\n"
    );
    assert_eq!(session_status(root, &id), "open");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"recorded\n");
    assert_eq!(std::fs::read(root.join("c.txt")).unwrap(), b"new\n");
    assert!(!root.join("b.txt").exists());
    let after = walkdir::WalkDir::new(root.join(".genesis/objects"))
        .into_iter()
        .count();
    assert_eq!(objects, after, "dry run stored nothing");
}

#[test]
fn restore_refuses_a_path_changed_since_the_abort_and_writes_nothing() {
    let t = workspace(MANIFEST, &[("app.py", b"app\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join("app.py"), b"edit\n").unwrap();
    std::fs::write(root.join("new.txt"), b"new\n").unwrap();
    ok(&run_in(root, &["abort", &id]));
    std::fs::write(root.join("app.py"), b"mine\n").unwrap();
    let o = run_in(root, &["restore", &id]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("app.py: changed since it was saved; nothing restored (use --to DIR)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"mine\n");
    assert!(!root.join("new.txt").exists());
    // --to writes the tree abort found into a new directory instead.
    let other = tempfile::tempdir().unwrap();
    let dest = other.path().join("rescued");
    ok(&run_in(
        root,
        &["restore", &id, "--to", dest.to_str().unwrap()],
    ));
    assert_eq!(std::fs::read(dest.join("app.py")).unwrap(), b"edit\n");
    assert_eq!(std::fs::read(dest.join("new.txt")).unwrap(), b"new\n");
    assert_eq!(std::fs::read(dest.join("genesis.json")).unwrap(), MANIFEST);
    // A second --to into the now non-empty directory is refused, naming the option given.
    let o = run_in(root, &["restore", &id, "--to", dest.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--to directory is not empty") && !stderr(&o).contains("--checkout"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn restore_of_an_open_session_exits_3() {
    let t = workspace(MANIFEST, &[("a", b"a\n")]);
    let root = t.path();
    let id = open_in_place(root);
    let o = run_in(root, &["restore", &id]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session s: nothing to restore: it is open; only an aborted (or recovered) session has saved work\n"
    );
}

#[test]
fn checkout_abort_saves_edits_and_keeps_ignored_files() {
    let t = workspace(
        MANIFEST,
        &[(".gitignore", b"target/\n"), ("app.py", b"app\n")],
    );
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        root,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("app.py"), b"recorded\n").unwrap();
    ok(&run_in(
        root,
        &["patch", "c", "--from", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("app.py"), b"recorded\nand more\n").unwrap();
    std::fs::create_dir_all(co.join("target")).unwrap();
    std::fs::write(co.join("target/build.o"), b"\x7fELF").unwrap();
    let out = ok(&run_in(root, &["abort", "c"]));
    assert!(
        out.contains(&format!(
            "  app.py (18 bytes, blob {})\n",
            sha(b"recorded\nand more\n")
        )),
        "{out}"
    );
    assert!(out.contains("it still holds files the snapshot rules leave out"));
    assert!(!co.join("app.py").exists());
    assert!(!co.join(".gitignore").exists());
    assert_eq!(
        std::fs::read(co.join("target/build.o")).unwrap(),
        b"\x7fELF"
    );
    // The workspace is untouched.
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"app\n");
    ok(&run_in(root, &["restore", "c"]));
    assert_eq!(
        std::fs::read(co.join("app.py")).unwrap(),
        b"recorded\nand more\n"
    );
    assert_eq!(std::fs::read(co.join(".gitignore")).unwrap(), b"target/\n");
}

#[test]
fn checkout_abort_with_only_members_removes_the_directory() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        root,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::create_dir_all(co.join("deep/er")).unwrap();
    std::fs::write(co.join("deep/er/x.txt"), b"x\n").unwrap();
    let out = ok(&run_in(root, &["abort", "c"]));
    assert!(out.contains("  deep/er/x.txt (2 bytes"), "{out}");
    assert!(!co.exists());
    assert!(stored(root, b"x\n"));
}

#[test]
fn abort_refuses_to_empty_a_directory_holding_an_ignored_file() {
    let t = workspace(MANIFEST, &[(".gitignore", b"*.log\n"), ("conf", b"file\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::remove_file(root.join("conf")).unwrap();
    std::fs::create_dir(root.join("conf")).unwrap();
    std::fs::write(root.join("conf/a.txt"), b"a\n").unwrap();
    std::fs::write(root.join("conf/run.log"), b"log\n").unwrap();
    let o = run_in(root, &["abort", &id]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("conf: is a directory holding conf/run.log"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(root.join("conf/a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(root.join("conf/run.log")).unwrap(), b"log\n");
    assert_eq!(session_status(root, &id), "open");
}

/// A crash at every step of an in-place abort that saves files: after `recover`, the session
/// is aborted with the workspace at the base and every saved blob in the store (and
/// `restore` brings them back), or it is still open with the workspace as the agent left it.
#[test]
fn in_place_abort_with_saved_files_survives_a_crash_at_every_step() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n"), ("dir/b.txt", b"b\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join("a.txt"), b"recorded\n").unwrap();
    ok(&run_in(root, &["patch", &id]));
    std::fs::write(root.join("a.txt"), b"recorded\nunrecorded\n").unwrap();
    std::fs::remove_file(root.join("dir/b.txt")).unwrap();
    std::fs::write(root.join("dir/new.txt"), b"new\n").unwrap();
    let tmpl = tempfile::tempdir().unwrap();
    let template = tmpl.path().join("template");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(root)
            .arg(&template)
            .status()
            .unwrap()
            .success()
    );
    let trace = tmpl.path().join("trace");
    let o = common::genesis()
        .current_dir(root)
        .args(["abort", &id])
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    ok(&o);
    let steps = std::fs::read_to_string(&trace).unwrap().lines().count();
    assert!(steps > 5, "{steps}");
    let (mut aborted, mut open) = (0, 0);
    for n in common::sample_steps(steps, 6) {
        let run = tmpl.path().join("run");
        let _ = std::fs::remove_dir_all(&run);
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&template)
                .arg(&run)
                .status()
                .unwrap()
                .success()
        );
        let o = common::genesis()
            .current_dir(&run)
            .args(["abort", &id])
            .env("GENESIS_FAULT", format!("{n}:abort"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), None, "step {n}");
        ok(&run_in(&run, &["recover"]));
        if session_status(&run, &id) == "aborted" {
            aborted += 1;
            assert_eq!(
                std::fs::read(run.join("a.txt")).unwrap(),
                b"a\n",
                "step {n}"
            );
            assert_eq!(std::fs::read(run.join("dir/b.txt")).unwrap(), b"b\n");
            assert!(!run.join("dir/new.txt").exists(), "step {n}");
            assert!(stored(&run, b"recorded\nunrecorded\n"), "step {n}");
            assert!(stored(&run, b"new\n"), "step {n}");
            ok(&run_in(&run, &["restore", &id]));
            assert_eq!(
                std::fs::read(run.join("a.txt")).unwrap(),
                b"recorded\nunrecorded\n"
            );
            assert_eq!(std::fs::read(run.join("dir/new.txt")).unwrap(), b"new\n");
        } else {
            open += 1;
            assert_eq!(session_status(&run, &id), "open", "step {n}");
            assert_eq!(
                std::fs::read(run.join("a.txt")).unwrap(),
                b"recorded\nunrecorded\n",
                "step {n}"
            );
            assert_eq!(std::fs::read(run.join("dir/new.txt")).unwrap(), b"new\n");
        }
    }
    assert!(aborted > 0 && open > 0, "{aborted} {open}");
}

/// A crash at every step of a checkout abort: the session is open with the checkout as the
/// agent left it, or aborted with every unrecorded file in the store; `restore` then brings
/// the checkout back whatever part of it the crash left.
#[test]
fn checkout_abort_survives_a_crash_at_every_step() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n"), ("d/b.txt", b"b\n")]);
    let root = t.path();
    let scratch = tempfile::tempdir().unwrap();
    let template = scratch.path().join("template");
    let co_name = "co";
    std::fs::create_dir(&template).unwrap();
    std::fs::create_dir(template.join("ws")).unwrap();
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", root.display()))
            .arg(template.join("ws"))
            .status()
            .unwrap()
            .success()
    );
    let tws = template.join("ws");
    let co = template.join(co_name);
    ok(&run_in(
        &tws,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("a.txt"), b"edited\n").unwrap();
    std::fs::write(co.join("d/new.txt"), b"new\n").unwrap();
    // Each run works on a copy at the same absolute path, as the session records it.
    let keep = scratch.path().join("keep");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(&template)
            .arg(&keep)
            .status()
            .unwrap()
            .success()
    );
    let trace = scratch.path().join("trace");
    let o = common::genesis()
        .current_dir(&tws)
        .args(["abort", "c"])
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    ok(&o);
    let steps = std::fs::read_to_string(&trace).unwrap().lines().count();
    assert!(steps >= 4, "{steps}");
    for n in common::sample_steps(steps, 6) {
        std::fs::remove_dir_all(&template).unwrap();
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&keep)
                .arg(&template)
                .status()
                .unwrap()
                .success()
        );
        let o = common::genesis()
            .current_dir(&tws)
            .args(["abort", "c"])
            .env("GENESIS_FAULT", format!("{n}:abort"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), None, "step {n}");
        ok(&run_in(&tws, &["recover"]));
        if session_status(&tws, "c") == "aborted" {
            assert!(
                stored(&tws, b"edited\n") && stored(&tws, b"new\n"),
                "step {n}"
            );
            ok(&run_in(&tws, &["restore", "c"]));
        } else {
            assert_eq!(session_status(&tws, "c"), "open", "step {n}");
        }
        assert_eq!(
            std::fs::read(co.join("a.txt")).unwrap(),
            b"edited\n",
            "step {n}"
        );
        assert_eq!(
            std::fs::read(co.join("d/new.txt")).unwrap(),
            b"new\n",
            "step {n}"
        );
        assert_eq!(
            std::fs::read(co.join("d/b.txt")).unwrap(),
            b"b\n",
            "step {n}"
        );
    }
}

/// The number of the first fault-injection step of `genesis args…` in a copy of `root` whose
/// name contains `prefix`.
fn step_named(root: &Path, args: &[&str], prefix: &str) -> usize {
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("copy");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(root)
            .arg(&copy)
            .status()
            .unwrap()
            .success()
    );
    let trace = scratch.path().join("trace");
    let o = common::genesis()
        .current_dir(&copy)
        .args(args)
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    ok(&o);
    let text = std::fs::read_to_string(&trace).unwrap();
    text.lines()
        .find_map(|l| {
            let (n, name) = l.split_once(' ')?;
            name.contains(prefix).then(|| n.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no step {prefix} in {text}"))
}

#[test]
fn checkout_abort_never_follows_a_link_or_takes_another_sessions_checkout() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n"), ("src/main.py", b"m\n")]);
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        root,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    // The checkout replaced by a link to the workspace itself.
    std::fs::remove_dir_all(&co).unwrap();
    std::os::unix::fs::symlink(root, &co).unwrap();
    let o = run_in(root, &["abort", "c"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("the checkout directory is now a link or a file"));
    assert_eq!(std::fs::read(root.join("src/main.py")).unwrap(), b"m\n");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    assert_eq!(session_status(root, "c"), "open");
    // The checkout path reused by a second open session.
    std::fs::remove_file(&co).unwrap();
    ok(&run_in(
        root,
        &["open", "--session", "d", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("work.txt"), b"d's work\n").unwrap();
    let o = run_in(root, &["abort", "c"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("is now the checkout of open session d"));
    assert_eq!(std::fs::read(co.join("work.txt")).unwrap(), b"d's work\n");
}

#[test]
fn a_directory_replaced_by_a_file_a_new_ignore_rule_hides_is_saved_and_swapped_back() {
    // Judged with the base's rules (which have no a/.gitignore), the file a/b is the agent's
    // addition: saved, removed, and the base's a/b/c.txt comes back; restore undoes it.
    let t = workspace(MANIFEST, &[("a/b/c.txt", b"c\n")]);
    let root = t.path();
    let id = open_in_place(root);
    let base = identity(root);
    std::fs::remove_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b"), b"precious notes\n").unwrap();
    std::fs::write(root.join("a/.gitignore"), b"b\n").unwrap();
    let o = run_in(root, &["abort", &id]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "saved 2 file(s) that no patch recorded before removing or overwriting them:\n  a/.gitignore (2 bytes, blob {})\n  a/b (15 bytes, blob {})\nbring them back with: genesis restore s\naborted session s\n",
            sha(b"b\n"),
            sha(b"precious notes\n")
        )
    );
    assert_eq!(std::fs::read(root.join("a/b/c.txt")).unwrap(), b"c\n");
    assert!(!root.join("a/.gitignore").exists());
    let o = run_in(root, &["check", "--expect", &base]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    // restore needs a/b/ gone first (it holds the base's file): exit 3, nothing written.
    let o = run_in(root, &["restore", &id]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert_eq!(std::fs::read(root.join("a/b/c.txt")).unwrap(), b"c\n");
    assert!(stored(root, b"precious notes\n"));
}

#[test]
fn a_refused_abort_or_restore_leaves_no_journal_and_changes_nothing() {
    // A directory replaced by a link: abort cannot put the base back through it.
    for kind in ["link"] {
        let t = workspace(MANIFEST, &[("a/b/c.txt", b"c\n")]);
        let root = t.path();
        let id = open_in_place(root);
        std::fs::remove_dir_all(root.join("a/b")).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        if kind == "file" {
            std::fs::write(root.join("a/b"), b"precious notes\n").unwrap();
            std::fs::write(root.join("a/.gitignore"), b"b\n").unwrap();
        } else {
            std::os::unix::fs::symlink(elsewhere.path(), root.join("a/b")).unwrap();
        }
        for args in [vec!["abort", "s", "--dry-run"], vec!["abort", "s"]] {
            let o = run_in(root, &args);
            assert_eq!(o.status.code(), Some(3), "{kind} {args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("a/b/c.txt: a/b is a"), "{}", stderr(&o));
        }
        assert!(!root.join(".genesis/journal/s.json").exists(), "{kind}");
        ok(&run_in(root, &["status", &id]));
        assert_eq!(session_status(root, &id), "open");
        if kind == "file" {
            assert_eq!(
                std::fs::read(root.join("a/b")).unwrap(),
                b"precious notes\n"
            );
        }
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
    // restore with a file where a saved file's directory must be.
    let t = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::create_dir(root.join("out")).unwrap();
    std::fs::write(root.join("out/result.jsonl"), b"data\n").unwrap();
    ok(&run_in(root, &["abort", &id]));
    std::fs::write(root.join("out"), b"now a file\n").unwrap();
    let o = run_in(root, &["restore", &id]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("out/result.jsonl: out is a file where a directory is needed"),
        "{}",
        stderr(&o)
    );
    assert!(!root.join(".genesis/journal/s.json").exists());
    ok(&run_in(root, &["status", &id]));
    assert_eq!(std::fs::read(root.join("out")).unwrap(), b"now a file\n");
}

#[test]
fn a_session_applied_before_this_one_opened_does_not_shield_its_paths_from_abort() {
    let t = workspace(MANIFEST, &[("sec", b"s\n"), ("g", b"g\n")]);
    let root = t.path();
    ok(&run_in(root, &["open", "--session", "a", "--in-place"]));
    std::fs::write(root.join("sec"), b"s2\n").unwrap();
    std::fs::write(root.join("g"), b"g2\n").unwrap();
    ok(&run_in(root, &["patch", "a"]));
    ok(&run_in(root, &["verify", "a"]));
    ok(&run_in(root, &["apply", "a"]));
    ok(&run_in(root, &["open", "--session", "b", "--in-place"]));
    std::fs::write(root.join("sec"), b"s3\n").unwrap();
    std::fs::write(root.join("g"), b"g3\n").unwrap();
    ok(&run_in(root, &["patch", "b"]));
    std::fs::write(root.join("sec"), b"s4\n").unwrap();
    let out = ok(&run_in(root, &["abort", "b"]));
    assert!(out.contains("  sec (3 bytes"), "{out}");
    assert_eq!(std::fs::read(root.join("sec")).unwrap(), b"s2\n");
    assert_eq!(std::fs::read(root.join("g")).unwrap(), b"g2\n");
    assert!(stored(root, b"s4\n"));
}

#[test]
fn a_path_another_session_applied_while_this_one_was_open_is_left_alone() {
    let t = workspace(
        MANIFEST,
        &[("shared.txt", b"base\n"), ("mine.txt", b"base\n")],
    );
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(root, &["open", "--session", "b", "--in-place"]));
    ok(&run_in(
        root,
        &["open", "--session", "a", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("shared.txt"), b"from a\n").unwrap();
    ok(&run_in(
        root,
        &["patch", "a", "--from", co.to_str().unwrap()],
    ));
    ok(&run_in(root, &["verify", "a"]));
    ok(&run_in(root, &["apply", "a"]));
    std::fs::write(root.join("mine.txt"), b"b's edit\n").unwrap();
    ok(&run_in(root, &["abort", "b"]));
    assert_eq!(std::fs::read(root.join("shared.txt")).unwrap(), b"from a\n");
    assert_eq!(std::fs::read(root.join("mine.txt")).unwrap(), b"base\n");
}

#[test]
fn roll_forward_saves_a_file_written_after_the_crash() {
    let t = workspace(MANIFEST, &[("app.py", b"app\n")]);
    let id = open_in_place(t.path());
    std::fs::write(t.path().join("app.py"), b"agent\n").unwrap();
    // Crash just after the journal is durable (the first staging step). The step is counted
    // on a copy, and the crash run is on another copy, so both see the same stat cache.
    let n = step_named(t.path(), &["abort", &id], "create ./.genesis-tmp-");
    let scratch = tempfile::tempdir().unwrap();
    let run = scratch.path().join("run");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(t.path())
            .arg(&run)
            .status()
            .unwrap()
            .success()
    );
    let root = run.as_path();
    let o = common::genesis()
        .current_dir(root)
        .args(["abort", &id])
        .env("GENESIS_FAULT", format!("{n}:abort"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None);
    assert!(root.join(".genesis/journal/s.json").exists());
    // The user writes the file before the next command.
    std::fs::write(root.join("app.py"), b"written after the crash\n").unwrap();
    let o = run_in(root, &["status", &id]);
    ok(&o);
    assert!(
        stderr(&o).contains(&format!(
            "genesis: app.py held neither its old nor its new content; saved it (blob {}) before finishing session s",
            sha(b"written after the crash\n")
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(root.join("app.py")).unwrap(), b"app\n");
    assert!(stored(root, b"written after the crash\n"));
    ok(&run_in(root, &["restore", &id]));
    assert_eq!(
        std::fs::read(root.join("app.py")).unwrap(),
        b"written after the crash\n"
    );
}

#[test]
fn restore_gives_back_the_saved_permission_bits() {
    use std::os::unix::fs::PermissionsExt;
    let t = workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let root = t.path();
    let id = open_in_place(root);
    std::fs::write(root.join("key.pem"), b"secret\n").unwrap();
    std::fs::set_permissions(root.join("key.pem"), std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&run_in(root, &["abort", &id]));
    assert!(!root.join("key.pem").exists());
    ok(&run_in(root, &["restore", &id]));
    let md = std::fs::metadata(root.join("key.pem")).unwrap();
    assert_eq!(md.permissions().mode() & 0o777, 0o600);
    let dest = tempfile::tempdir().unwrap();
    let to = dest.path().join("to");
    ok(&run_in(
        root,
        &["restore", &id, "--to", to.to_str().unwrap()],
    ));
    assert_eq!(std::fs::read(to.join("key.pem")).unwrap(), b"secret\n");
}

#[test]
fn an_interrupted_checkout_abort_is_finished_by_aborting_again() {
    let t = workspace(MANIFEST, &[("a.txt", b"a\n"), ("d/b.txt", b"b\n")]);
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        root,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("a.txt"), b"edited\n").unwrap();
    // A first pair only counts the steps (the fault is never reached) and checks restore.
    let o = common::genesis()
        .current_dir(root)
        .args(["abort", "c"])
        .env("GENESIS_FAULT_TRACE", other.path().join("trace"))
        .env("GENESIS_FAULT", "1000000:eio")
        .output()
        .unwrap();
    ok(&o);
    let o = run_in(root, &["restore", "c"]);
    ok(&o);
    let text = std::fs::read_to_string(other.path().join("trace")).unwrap();
    let unlinks: Vec<usize> = text
        .lines()
        .filter_map(|l| {
            let (n, name) = l.split_once(' ')?;
            name.starts_with("unlink ")
                .then(|| name.contains("/co/"))
                .filter(|x| *x)
                .map(|_| n.parse().unwrap())
        })
        .collect();
    assert!(unlinks.len() >= 3, "{text}");
    // EIO at the second unlink of the checkout's files, on a fresh pair: the session is
    // aborted, with the saved list, and some files are still in the checkout.
    let t2 = workspace(MANIFEST, &[("a.txt", b"a\n"), ("d/b.txt", b"b\n")]);
    let root2 = t2.path();
    let co2 = other.path().join("co2");
    ok(&run_in(
        root2,
        &[
            "open",
            "--session",
            "c",
            "--checkout",
            co2.to_str().unwrap(),
        ],
    ));
    std::fs::write(co2.join("a.txt"), b"edited\n").unwrap();
    let o = common::genesis()
        .current_dir(root2)
        .args(["abort", "c"])
        .env("GENESIS_FAULT", format!("{}:eio", unlinks[1]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(session_status(root2, "c"), "aborted");
    assert!(co2.exists());
    let o = run_in(root2, &["abort", "c"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!co2.exists(), "the second abort finished the cleanup");
    // A third abort has nothing left to do: the session is not open.
    let o = run_in(root2, &["abort", "c"]);
    assert_eq!(o.status.code(), Some(3));
    ok(&run_in(root2, &["restore", "c"]));
    assert_eq!(std::fs::read(co2.join("a.txt")).unwrap(), b"edited\n");
    assert_eq!(std::fs::read(co2.join("d/b.txt")).unwrap(), b"b\n");
}

/// A manifest excluding `target/` with one obligation that always passes.
const MANIFEST_EXCLUDING_TARGET: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// Files beside [`MANIFEST_EXCLUDING_TARGET`].
const A_AND_KEEP_FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn in_place_abort_leaves_another_sessions_applied_change() {
    let d = workspace(MANIFEST_EXCLUDING_TARGET, A_AND_KEEP_FILES);
    let r = d.path();
    std::fs::write(r.join("c.txt"), b"orig\n").unwrap();
    ok(&run_in(r, &["open", "--session", "a", "--in-place"]));
    verified_session(
        r,
        "b",
        b"--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-orig\n+fromB\n",
    );
    ok(&run_in(r, &["apply", "b"]));
    std::fs::write(r.join("a.txt"), b"agent edit\n").unwrap();
    ok(&run_in(r, &["abort", "a"]));
    assert_eq!(
        std::fs::read(r.join("a.txt")).unwrap(),
        b"a\n",
        "the agent's edit is undone"
    );
    assert_eq!(
        std::fs::read(r.join("c.txt")).unwrap(),
        b"fromB\n",
        "b's applied change stays"
    );
}
