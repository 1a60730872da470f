//! Crash and error injection into `genesis apply` and `genesis recover` (DESIGN section 6).
//!
//! A change set touching 200+ files (adds, modifies, deletes, a rename, a new and a removed
//! directory, executable bits) is applied with a crash (`std::process::abort`) injected at
//! every file-system step N in turn; after each crash `genesis recover` must leave the
//! workspace byte for byte at the base or the final snapshot (identity and executable bits),
//! with no temp files, a canary outside the root unchanged, and the session consistent. Then
//! the same with a second crash during recovery; then ENOSPC and EIO at every step.
//!
//! A plain `cargo test` samples the steps (`common::sample_steps`); `GENESIS_EXHAUSTIVE=1`
//! (set by `.ci/run`) runs every one.

mod common;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use genesis::snapshot::{SnapshotOptions, snapshot_dir};

struct Fixture {
    _tmp: tempfile::TempDir,
    template: PathBuf,
    base: (String, BTreeSet<String>),
    fin: (String, BTreeSet<String>),
    canary: PathBuf,
}

fn state(root: &Path) -> (String, BTreeSet<String>) {
    let out = snapshot_dir(root, &SnapshotOptions::default()).unwrap();
    (
        out.snapshot.identity().to_string(),
        out.executable.iter().map(|p| p.to_string()).collect(),
    )
}

fn set_exec(p: &Path, on: bool) {
    let mode = if on { 0o755 } else { 0o644 };
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A workspace with `files` files and an open, verified session whose change touches about
/// `files` paths, in a [`scratch`] directory (on tmpfs when there is one: each injected run
/// repeats hundreds of fsyncs, which tmpfs makes free without changing a line of the code
/// under test).
fn fixture(files: usize) -> Fixture {
    let tmp = scratch();
    let ws = tmp.path().join("template");
    std::fs::create_dir(&ws).unwrap();
    write_tree(
        &ws,
        &[(
            "genesis.json",
            br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
        )],
    );
    for i in 0..files {
        let p = ws.join(format!("d{}/f{i:03}.txt", i % 10));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("file {i}\nline two\n")).unwrap();
        if i % 17 == 0 {
            set_exec(&p, true);
        }
    }
    std::fs::create_dir_all(ws.join("gone")).unwrap();
    std::fs::write(ws.join("gone/only.txt"), b"the directory goes too\n").unwrap();
    let canary = tmp.path().join("canary.txt");
    std::fs::write(&canary, b"outside the root\n").unwrap();
    let co = tmp.path().join("checkout");
    let o = run_in(
        &ws,
        &[
            "open",
            "--session",
            "crash",
            "--checkout",
            co.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The change: modify, delete, add, rename, executable bits, a new and a removed directory.
    for i in 0..files {
        let p = co.join(format!("d{}/f{i:03}.txt", i % 10));
        match i % 5 {
            0 | 1 => std::fs::write(&p, format!("file {i} changed\nline two\n")).unwrap(),
            2 => std::fs::remove_file(&p).unwrap(),
            3 => set_exec(&p, i % 17 != 0),
            _ => {}
        }
    }
    for i in 0..files / 4 {
        let p = co.join(format!("new/n{}/added{i:03}.txt", i % 3));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("added {i}\n")).unwrap();
    }
    std::fs::rename(co.join("d4/f004.txt"), co.join("d4/renamed.txt")).unwrap();
    std::fs::remove_dir_all(co.join("gone")).unwrap();
    let o = run_in(&ws, &["patch", "crash", "--from", co.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(&ws, &["verify", "crash"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fin = state(&co);
    std::fs::remove_dir_all(&co).unwrap();
    let base = state(&ws);
    assert_ne!(base, fin);
    Fixture {
        _tmp: tmp,
        template: ws,
        base,
        fin,
        canary,
    }
}

fn fresh_copy(f: &Fixture, name: &str) -> PathBuf {
    let dst = f.template.parent().unwrap().join(name);
    if dst.exists() {
        std::fs::remove_dir_all(&dst).unwrap();
    }
    let st = Command::new("cp")
        .arg("-a")
        .arg(&f.template)
        .arg(&dst)
        .status()
        .unwrap();
    assert!(st.success());
    dst
}

fn count_steps(f: &Fixture, args: &[&str]) -> usize {
    let ws = fresh_copy(f, "count");
    let trace = f.template.parent().unwrap().join("trace.txt");
    let _ = std::fs::remove_file(&trace);
    let o = run_env(
        &ws,
        args,
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let n = std::fs::read_to_string(&trace).unwrap().lines().count();
    std::fs::remove_dir_all(&ws).unwrap();
    n
}

fn temp_files(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".genesis-tmp-"))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// After recovery: base or final, no temps, canary intact, session and journal consistent.
fn assert_consistent(f: &Fixture, ws: &Path, what: &str) -> bool {
    let now = state(ws);
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.join(".genesis/sessions/crash.json")).unwrap())
            .unwrap();
    let (_, violations) = genesis::schema::validate_document(&doc);
    assert!(violations.is_empty(), "{what}: {violations:?}");
    assert!(
        temp_files(ws).is_empty(),
        "{what}: temp files left: {:?}",
        temp_files(ws)
    );
    assert_eq!(
        std::fs::read(&f.canary).unwrap(),
        b"outside the root\n",
        "{what}"
    );
    let journal_left = std::fs::read_dir(ws.join(".genesis/journal"))
        .unwrap()
        .count();
    assert_eq!(journal_left, 0, "{what}: journal left behind");
    if now == f.fin {
        assert_eq!(doc["status"], "applied", "{what}");
        true
    } else {
        assert_eq!(now, f.base, "{what}: neither base nor final");
        assert_eq!(doc["status"], "open", "{what}");
        false
    }
}

#[test]
fn crash_at_every_step_then_recover() {
    let f = fixture(200);
    let steps = count_steps(&f, &["apply", "crash"]);
    assert!(steps > 600, "expected many steps, got {steps}");
    let (mut at_base, mut at_final) = (0, 0);
    let mut recovery_crashes = 0;
    for n in common::sample_steps(steps, 23) {
        let ws = fresh_copy(&f, "run");
        let o = run_env(
            &ws,
            &["apply", "crash"],
            &[("GENESIS_FAULT", format!("{n}:abort"))],
        );
        assert_eq!(
            o.status.code(),
            None,
            "step {n}: the process must have been killed"
        );
        // Every other step, crash recovery too, at a step that moves with n.
        if n % 2 == 0 {
            let m = 1 + (n * 7) % 40;
            let o = run_env(
                &ws,
                &["recover"],
                &[("GENESIS_FAULT", format!("{m}:abort"))],
            );
            if o.status.code().is_none() {
                recovery_crashes += 1;
            }
        }
        let o = run_in(&ws, &["recover"]);
        assert_eq!(o.status.code(), Some(0), "step {n}: {}", stderr(&o));
        if assert_consistent(&f, &ws, &format!("crash at step {n}")) {
            at_final += 1;
        } else {
            at_base += 1;
        }
    }
    eprintln!(
        "crash points covered: {steps} ({at_base} ended at the base, {at_final} at the final state; {recovery_crashes} recoveries crashed too)"
    );
    assert!(at_base > 0 && at_final > 0);
    assert!(recovery_crashes > 0);
}

#[test]
fn io_errors_at_every_step_exit_4_and_recover() {
    let f = fixture(24);
    let steps = count_steps(&f, &["apply", "crash"]);
    for n in common::sample_steps(steps, 10) {
        for kind in ["enospc", "eio"] {
            let ws = fresh_copy(&f, "err");
            let o = run_env(
                &ws,
                &["apply", "crash"],
                &[("GENESIS_FAULT", format!("{n}:{kind}"))],
            );
            assert_eq!(o.status.code(), Some(4), "step {n} {kind}: {}", stderr(&o));
            let expect = if kind == "enospc" {
                "No space left on device"
            } else {
                "Input/output error"
            };
            assert!(
                stderr(&o).contains(expect),
                "step {n} {kind}: {}",
                stderr(&o)
            );
            let o = run_in(&ws, &["recover"]);
            assert_eq!(o.status.code(), Some(0), "step {n} {kind}: {}", stderr(&o));
            assert_consistent(&f, &ws, &format!("{kind} at step {n}"));
        }
    }
    eprintln!("error points covered: {steps} x 2");
}

#[test]
fn in_place_abort_restores_the_base_under_crashes() {
    let tmp = scratch();
    let ws = tmp.path().join("ws");
    write_tree(
        &ws,
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
            ),
            ("a.txt", b"a\n"),
            ("dir/b.txt", b"b\n"),
        ],
    );
    let o = run_in(&ws, &["open", "--session", "ip", "--in-place"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let base = state(&ws);
    // The agent edits the workspace itself.
    std::fs::write(ws.join("a.txt"), b"edited\n").unwrap();
    std::fs::remove_file(ws.join("dir/b.txt")).unwrap();
    std::fs::write(ws.join("new.txt"), b"new\n").unwrap();
    let o = run_in(&ws, &["patch", "ip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A diff is refused for an in-place session.
    let o = common::genesis()
        .current_dir(&ws)
        .args(["patch", "ip", "-"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(ws.join("later.txt"), b"unrecorded edit\n").unwrap();
    let tmpl = tmp.path().join("template");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(&ws)
            .arg(&tmpl)
            .status()
            .unwrap()
            .success()
    );
    let trace = tmp.path().join("trace");
    let o = run_env(
        &ws,
        &["abort", "ip"],
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(state(&ws), base);
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"a\n");
    assert!(!ws.join("later.txt").exists());
    let steps = std::fs::read_to_string(&trace).unwrap().lines().count();
    for n in common::sample_steps(steps, 6) {
        let run = tmp.path().join("run");
        let _ = std::fs::remove_dir_all(&run);
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&tmpl)
                .arg(&run)
                .status()
                .unwrap()
                .success()
        );
        let o = run_env(
            &run,
            &["abort", "ip"],
            &[("GENESIS_FAULT", format!("{n}:abort"))],
        );
        assert_eq!(o.status.code(), None);
        let o = run_in(&run, &["recover"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(run.join(".genesis/sessions/ip.json")).unwrap())
                .unwrap();
        if doc["status"] == "aborted" {
            assert_eq!(state(&run), base, "step {n}");
        } else {
            assert_eq!(doc["status"], "open", "step {n}");
        }
        assert!(temp_files(&run).is_empty(), "step {n}");
    }
}
