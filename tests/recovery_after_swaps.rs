//! Roll-forward after a directory↔file swap is idempotent: a crash or an I/O error at any step
//! of an `apply` (or an in-place `abort`) that replaces `conf/a.txt` by a file `conf`, or the
//! file `conf` by `conf/a.txt`, leaves a journal that `recover` finishes, after which
//! `status`, `open` and `apply` work again.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

type Files = Vec<(&'static str, &'static [u8])>;

/// The swap directions: (name, base files, final files).
fn cases() -> Vec<(&'static str, Files, Files)> {
    vec![
        (
            "dir-to-file",
            vec![("conf/a.txt", b"in a dir\n"), ("keep.txt", b"k\n")],
            vec![("conf", b"now a file\n"), ("keep.txt", b"k\n")],
        ),
        (
            "file-to-dir",
            vec![("conf", b"a file\n"), ("keep.txt", b"k\n")],
            vec![("conf/a.txt", b"now in a dir\n"), ("keep.txt", b"k\n")],
        ),
    ]
}

/// Every regular file under `root` outside the store, with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".genesis")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn expect(list: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = list
        .iter()
        .map(|(p, b)| (p.to_string(), b.to_vec()))
        .chain(std::iter::once((
            "genesis.json".to_owned(),
            MANIFEST.to_vec(),
        )))
        .collect();
    v.sort();
    v
}

/// A template workspace with a verified checkout session `s` that makes the swap (for
/// `apply`), or an in-place session whose workspace holds the final state (for `abort`).
fn template(dir: &Path, base: &[(&str, &[u8])], fin: &[(&str, &[u8])], in_place: bool) -> PathBuf {
    let ws = dir.join("template");
    write_tree(&ws, &[("genesis.json", MANIFEST)]);
    write_tree(&ws, base);
    let set = |root: &Path| {
        for (p, _) in base {
            let f = root.join(p);
            std::fs::remove_file(&f).unwrap();
            let parent = f.parent().unwrap();
            if parent != root && std::fs::read_dir(parent).unwrap().next().is_none() {
                std::fs::remove_dir(parent).unwrap();
            }
        }
        write_tree(root, fin);
    };
    if in_place {
        ok(&run_in(&ws, &["open", "--session", "s", "--in-place"]));
        set(&ws);
        ok(&run_in(&ws, &["patch", "s"]));
    } else {
        let co = dir.join("co");
        ok(&run_in(
            &ws,
            &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
        ));
        set(&co);
        ok(&run_in(
            &ws,
            &["patch", "s", "--from", co.to_str().unwrap()],
        ));
        ok(&run_in(&ws, &["verify", "s"]));
        std::fs::remove_dir_all(&co).unwrap();
    }
    ws
}

fn steps(ws: &Path, scratch: &Path, cmd: &str) -> usize {
    let run = scratch.join("count");
    copy_tree(ws, &run);
    let trace = scratch.join("trace");
    let _ = std::fs::remove_file(&trace);
    let o = common::genesis()
        .current_dir(&run)
        .args([cmd, "s"])
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    ok(&o);
    std::fs::read_to_string(&trace).unwrap().lines().count()
}

fn enumerate(in_place: bool) {
    let cmd = if in_place { "abort" } else { "apply" };
    for (name, base, fin) in cases() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = template(tmp.path(), &base, &fin, in_place);
        // apply goes base → final; an in-place abort goes final → base.
        let (from, to) = if in_place {
            (expect(&fin), expect(&base))
        } else {
            (expect(&base), expect(&fin))
        };
        let done = if in_place { "aborted" } else { "applied" };
        let n = steps(&ws, tmp.path(), cmd);
        assert!(n >= 4, "{name}: {n} steps");
        for step in common::sample_steps(n, 6) {
            for fault in ["abort", "eio"] {
                let what = format!("{name} {cmd} {fault} at step {step}");
                let run = tmp.path().join("run");
                copy_tree(&ws, &run);
                let o = common::genesis()
                    .current_dir(&run)
                    .args([cmd, "s"])
                    .env("GENESIS_FAULT", format!("{step}:{fault}"))
                    .output()
                    .unwrap();
                let code = o.status.code();
                assert!(code.is_none() || code == Some(4), "{what}: {code:?}");
                // Every command recovers first; `status` must work straight away.
                let o = run_in(&run, &["status", "s"]);
                assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
                let o = run_in(&run, &["recover"]);
                assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
                assert_eq!(
                    std::fs::read_dir(run.join(".genesis/journal"))
                        .map(|r| r.count())
                        .unwrap_or(0),
                    0,
                    "{what}: journal left"
                );
                let now = files(&run);
                if session_status(&run, "s") == done {
                    assert_eq!(now, to, "{what}");
                } else {
                    assert_eq!(session_status(&run, "s"), "open", "{what}");
                    assert_eq!(now, from, "{what}");
                }
                // A new session opens on the result.
                let o = run_in(&run, &["open", "--session", "next"]);
                assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
            }
        }
    }
}

#[test]
fn apply_of_a_swap_recovers_from_a_crash_or_eio_at_every_step() {
    enumerate(false);
}

#[test]
fn in_place_abort_of_a_swap_recovers_from_a_crash_or_eio_at_every_step() {
    enumerate(true);
}

/// A file that replaces a directory still holding a file the session does not delete (one the
/// snapshot rules leave out) is a conflict found before the journal is written: exit 3,
/// nothing changed, and no journal that recovery could never finish.
#[test]
fn apply_refuses_to_replace_a_directory_that_holds_an_ignored_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, base, fin) = cases().remove(0);
    let ws = template(tmp.path(), &base, &fin, false);
    std::fs::write(ws.join(".gitignore"), b"*.log\n").unwrap();
    std::fs::write(ws.join("conf/run.log"), b"log\n").unwrap();
    let o = run_in(&ws, &["apply", "s"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "conf: is a directory holding conf/run.log, which this change does not delete"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(ws.join("conf/a.txt")).unwrap(), b"in a dir\n");
    assert_eq!(std::fs::read(ws.join("conf/run.log")).unwrap(), b"log\n");
    assert_eq!(session_status(&ws, "s"), "open");
    assert!(!ws.join(".genesis/journal/s.json").exists());
}

/// A roll-forward that a file appearing after the crash blocks (a file in the directory the new
/// file must replace) stops with exit 3 naming that file and what to do; once it is moved away,
/// recovery finishes.
#[test]
fn a_blocked_swap_roll_forward_names_the_blocking_file_and_then_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, base, fin) = cases().remove(0);
    let ws = template(tmp.path(), &base, &fin, false);
    let trace = tmp.path().join("trace");
    let count = tmp.path().join("count");
    copy_tree(&ws, &count);
    let o = common::genesis()
        .current_dir(&count)
        .args(["apply", "s"])
        .env("GENESIS_FAULT_TRACE", &trace)
        .output()
        .unwrap();
    ok(&o);
    let text = std::fs::read_to_string(&trace).unwrap();
    let n: usize = text
        .lines()
        .find_map(|l| {
            let (n, name) = l.split_once(' ')?;
            (name == "unlink conf/a.txt").then(|| n.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("{text}"));
    let o = common::genesis()
        .current_dir(&ws)
        .args(["apply", "s"])
        .env("GENESIS_FAULT", format!("{n}:abort"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None);
    std::fs::write(ws.join("conf/x.log"), b"appeared\n").unwrap();
    let o = run_in(&ws, &["recover"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("conf: refused: is a directory still holding conf/x.log, which this change does not delete; move it out of the way, then run `genesis recover` to finish"),
        "{}",
        stderr(&o)
    );
    std::fs::rename(ws.join("conf/x.log"), ws.join("x.log")).unwrap();
    ok(&run_in(&ws, &["recover"]));
    assert_eq!(std::fs::read(ws.join("conf")).unwrap(), b"now a file\n");
    assert_eq!(std::fs::read(ws.join("x.log")).unwrap(), b"appeared\n");
    assert_eq!(session_status(&ws, "s"), "applied");
}
