//! The exact output of every command, human and `--json`, and of refusals with their exit
//! codes, as insta snapshots (`tests/snapshots/cli_output__*.snap`) taken in the pinned
//! environment of `common::pinned` (`GENESIS_TIMESTAMP`, `GENESIS_RANDOMNESS_SEED` per
//! process, `TZ=UTC`, `LC_ALL=C`, private `HOME` and `TMPDIR`, the temporary path shown as
//! `[TMP]`, durations as `[s]`). Session ids are generated (not `--session`), so the snapshots
//! also pin the seeded ids.
//!
//! A change to any output shows as a snapshot diff: review it, then accept it with
//! `INSTA_UPDATE=always cargo test --test cli_output` (or `cargo insta review`). With `CI=true`
//! insta writes nothing and a missing snapshot fails.

mod common;

use common::pinned::Pinned;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","protected":["secret/"],"obligations":[{"id":"has-hello","run":["grep","-q","hello","greeting.txt"],"timeout_s":10}]}
"#;

const GREETING_HELLO: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

const GREETING_BYE: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+bye\n";

const BAD_HUNK: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-nothere\n+hello\n";

/// A workspace with the manifest, a greeting the obligation looks for, and a source file.
fn pinned() -> Pinned {
    Pinned::new(&[
        ("genesis.json", MANIFEST),
        ("greeting.txt", b"hi\n"),
        ("src/lib.rs", b"pub fn f() {}\n"),
    ])
}

/// `--json` first when `json`, then `args`.
fn with_mode<'a>(json: bool, args: &[&'a str]) -> Vec<&'a str> {
    let mut v = Vec::new();
    if json {
        v.push("--json");
    }
    v.extend_from_slice(args);
    v
}

/// The session id the last successful `open` printed (its only session).
fn only_session(p: &Pinned) -> String {
    let dir = p.root.join(".genesis/sessions");
    let mut ids: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 1, "{ids:?}");
    ids.remove(0)
}

/// Runs `args` (with `--json` when `json`) and snapshots what it did as `NAME_human` or
/// `NAME_json`; returns the exit status.
fn snap(p: &Pinned, json: bool, name: &str, args: &[&str]) -> Option<i32> {
    let o = p.run(&with_mode(json, args));
    let mode = if json { "json" } else { "human" };
    insta::assert_snapshot!(format!("{name}_{mode}"), p.shown(&o));
    o.status.code()
}

/// As [`snap`], with `input` on standard input.
fn snap_stdin(p: &Pinned, json: bool, name: &str, args: &[&str], input: &[u8]) -> Option<i32> {
    let o = p.run_stdin(&with_mode(json, args), input);
    let mode = if json { "json" } else { "human" };
    insta::assert_snapshot!(format!("{name}_{mode}"), p.shown(&o));
    o.status.code()
}

#[test]
fn init_open_patch_status_verify_diff_apply_replay() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(snap(&p, json, "init", &["init"]), Some(0));
        assert_eq!(snap(&p, json, "open", &["open"]), Some(0));
        let s = only_session(&p);
        assert_eq!(s, "00e47279-7550-7758-b5de-1c9756cebfc8", "seeded id");
        assert_eq!(
            snap_stdin(&p, json, "patch", &["patch", &s, "-"], GREETING_HELLO),
            Some(0)
        );
        assert_eq!(snap(&p, json, "status_all", &["status"]), Some(0));
        assert_eq!(snap(&p, json, "status_one", &["status", &s]), Some(0));
        assert_eq!(snap(&p, json, "diff_session", &["diff", &s]), Some(0));
        assert_eq!(
            snap(&p, json, "diff_stat", &["diff", &s, "--stat"]),
            Some(0)
        );
        assert_eq!(
            snap(&p, json, "diff_name_status", &["diff", &s, "--name-status"]),
            Some(0)
        );
        assert_eq!(snap(&p, json, "verify_pass", &["verify", &s]), Some(0));
        assert_eq!(
            snap(&p, json, "apply_dry_run", &["apply", &s, "--dry-run"]),
            Some(0)
        );
        assert_eq!(snap(&p, json, "apply", &["apply", &s]), Some(0));
        assert_eq!(snap(&p, json, "replay", &["replay", &s]), Some(0));
        assert_eq!(
            std::fs::read(p.root.join("greeting.txt")).unwrap(),
            b"hello\n"
        );
    }
}

#[test]
fn verify_with_a_failing_obligation_and_the_refused_apply() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        let s = only_session(&p);
        assert_eq!(
            p.run_stdin(&["patch", &s, "-"], GREETING_BYE).status.code(),
            Some(0)
        );
        assert_eq!(snap(&p, json, "verify_fail", &["verify", &s]), Some(1));
        assert_eq!(
            snap(&p, json, "apply_after_failed_verify", &["apply", &s]),
            Some(3)
        );
        assert_eq!(std::fs::read(p.root.join("greeting.txt")).unwrap(), b"hi\n");
    }
}

#[test]
fn abort_with_saved_files_and_restore() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        assert_eq!(p.run(&["open", "--in-place"]).status.code(), Some(0));
        let s = only_session(&p);
        // An in-place session records its patches from the workspace.
        std::fs::write(p.root.join("greeting.txt"), b"hello\n").unwrap();
        assert_eq!(snap(&p, json, "patch_in_place", &["patch", &s]), Some(0));
        // Edits no patch recorded: abort saves them before it puts the base back.
        std::fs::write(p.root.join("src/lib.rs"), b"pub fn g() {}\n").unwrap();
        std::fs::write(p.root.join("notes.txt"), b"mine\n").unwrap();
        for f in ["src/lib.rs", "notes.txt"] {
            common::chmod(&p.root.join(f), 0o644);
        }
        assert_eq!(
            snap(&p, json, "abort_dry_run", &["abort", &s, "--dry-run"]),
            Some(0)
        );
        assert_eq!(snap(&p, json, "abort_saving", &["abort", &s]), Some(0));
        assert_eq!(
            std::fs::read(p.root.join("src/lib.rs")).unwrap(),
            b"pub fn f() {}\n"
        );
        assert!(!p.root.join("notes.txt").exists());
        assert_eq!(snap(&p, json, "status_aborted", &["status", &s]), Some(0));
        assert_eq!(snap(&p, json, "restore", &["restore", &s]), Some(0));
        assert_eq!(std::fs::read(p.root.join("notes.txt")).unwrap(), b"mine\n");
    }
}

#[test]
fn snapshot_and_check() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(
            snap(&p, json, "snapshot_no_store", &["snapshot", "--no-store"]),
            Some(0)
        );
        assert_eq!(
            snap(
                &p,
                json,
                "snapshot_identity",
                &["snapshot", "--no-store", "--identity"]
            ),
            Some(0)
        );
        let doc = p.run(&["snapshot", "--no-store"]).stdout;
        let id =
            String::from_utf8(p.run(&["snapshot", "--no-store", "--identity"]).stdout).unwrap();
        let id = id.trim();
        assert_eq!(
            snap(&p, json, "check_match", &["check", "--expect", id]),
            Some(0)
        );
        std::fs::write(p.root.join("greeting.txt"), b"changed\n").unwrap();
        std::fs::write(p.root.join("new.txt"), b"new\n").unwrap();
        assert_eq!(
            snap(&p, json, "check_mismatch", &["check", "--expect", id]),
            Some(1)
        );
        // With the expected document, the differing paths are listed.
        let expect = p.tmp().join("expect.json");
        std::fs::write(&expect, &doc).unwrap();
        let expect = expect.to_str().unwrap();
        assert_eq!(
            snap(
                &p,
                json,
                "check_mismatch_listed",
                &["check", "--expect", expect]
            ),
            Some(1)
        );
        // `snapshot --json` output, on standard input or in a file, is taken by `check
        // --expect` and `validate`.
        std::fs::write(p.root.join("greeting.txt"), b"hi\n").unwrap();
        std::fs::remove_file(p.root.join("new.txt")).unwrap();
        let out = p.run(&["--json", "snapshot", "--no-store"]).stdout;
        assert_eq!(
            snap_stdin(
                &p,
                json,
                "check_expect_snapshot_json_stdin",
                &["check", "--expect", "-"],
                &out
            ),
            Some(0)
        );
        let file = p.tmp().join("snapshot-out.json");
        std::fs::write(&file, &out).unwrap();
        assert_eq!(
            snap(
                &p,
                json,
                "validate_snapshot_json_output",
                &["validate", file.to_str().unwrap()]
            ),
            Some(0)
        );
    }
}

#[test]
fn refusals_print_the_error_and_exit_code() {
    for json in [false, true] {
        let p = pinned();
        // No store yet.
        assert_eq!(snap(&p, json, "refused_no_store", &["status"]), Some(2));
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        assert_eq!(
            snap(&p, json, "refused_unknown_session", &["status", "nope"]),
            Some(2)
        );
        assert_eq!(snap(&p, json, "refused_usage", &["apply"]), Some(2));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        let s = only_session(&p);
        assert_eq!(
            snap_stdin(&p, json, "refused_bad_hunk", &["patch", &s, "-"], BAD_HUNK),
            Some(2)
        );
        assert_eq!(
            snap(&p, json, "refused_apply_unverified", &["apply", &s]),
            Some(3)
        );
        assert_eq!(p.run(&["abort", &s]).status.code(), Some(0));
        assert_eq!(
            snap_stdin(
                &p,
                json,
                "refused_patch_after_abort",
                &["patch", &s, "-"],
                GREETING_HELLO
            ),
            Some(3)
        );
        let o = p.run_env(
            &with_mode(json, &["status"]),
            &[("GENESIS_TIMESTAMP", "yesterday")],
        );
        let mode = if json { "json" } else { "human" };
        insta::assert_snapshot!(format!("refused_bad_timestamp_{mode}"), p.shown(&o));
        assert_eq!(o.status.code(), Some(2));
        let o = p.run_env(
            &with_mode(json, &["status"]),
            &[("GENESIS_RANDOMNESS_SEED", "-1")],
        );
        insta::assert_snapshot!(format!("refused_bad_seed_{mode}"), p.shown(&o));
        assert_eq!(o.status.code(), Some(2));
    }
}

/// `status` marks each session id's shortest unique prefix (brackets when not on a terminal;
/// `short_id` in `--json`), and that prefix names the session.
#[test]
fn status_with_short_ids() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        assert_eq!(snap(&p, json, "status_short_ids", &["status"]), Some(0));
        assert_eq!(
            snap(&p, json, "status_ambiguous_prefix", &["status", "00e47279"]),
            Some(2)
        );
        assert_eq!(
            snap(&p, json, "status_too_short_prefix", &["status", "00e"]),
            Some(2)
        );
    }
}

/// `--help`: global options under their own heading, the event options only on the commands
/// that emit events, examples and exit statuses last.
#[test]
fn help_texts() {
    let p = pinned();
    for (name, args) in [
        ("help_top", &["--help"][..]),
        ("help_verify", &["verify", "--help"]),
        ("help_status", &["status", "--help"]),
        ("help_init", &["init", "--help"]),
    ] {
        let o = p.run(args);
        insta::assert_snapshot!(name, p.shown(&o));
        assert_eq!(o.status.code(), Some(0));
    }
}

/// A manifest with no obligations: `init` warns and shows how to add one; `verify` says no
/// command was run.
#[test]
fn no_obligations_are_said() {
    for json in [false, true] {
        let p = Pinned::new(&[("greeting.txt", b"hi\n")]);
        assert_eq!(snap(&p, json, "init_no_obligations", &["init"]), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        let s = only_session(&p);
        assert_eq!(
            snap(&p, json, "verify_no_obligations", &["verify", &s]),
            Some(0)
        );
    }
}

/// The same command with the same seed and clock prints the same bytes; another seed makes
/// another session id.
#[test]
fn pinned_runs_repeat_byte_for_byte() {
    let a = pinned();
    let b = pinned();
    for p in [&a, &b] {
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
    }
    let oa = a.run(&["--json", "open"]);
    let ob = b.run(&["--json", "open"]);
    assert_eq!(oa.status.code(), Some(0));
    assert_eq!(oa.stdout, ob.stdout);
    let oc = a.run_env(&["open"], &[("GENESIS_RANDOMNESS_SEED", "99")]);
    assert_eq!(oc.status.code(), Some(0));
    let other = String::from_utf8(oc.stdout).unwrap();
    assert!(other.starts_with("00e47279-7550-7"), "{other}");
    assert!(
        !String::from_utf8_lossy(&oa.stdout).contains(other.trim()),
        "{other}"
    );
}

/// `line` with every `seconds` member (a measured duration) set to `"[s]"`.
fn without_durations(mut line: serde_json::Value) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "seconds" {
                        *x = "[s]".into();
                    } else {
                        walk(x);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut line);
    line
}

/// Event streams in every dialect carry the pinned time and seeded ids (UUIDv7 event ids in
/// BPT, Orbiplex and APS), so whole streams are snapshots.
#[test]
fn event_streams_in_every_dialect() {
    for dialect in ["genesis", "bpt", "orbiplex", "aps"] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        let events = p.tmp().join("events.jsonl");
        let events = events.to_str().unwrap();
        let with = |args: &[&str]| -> Vec<String> {
            let mut v: Vec<String> = [
                "--events",
                events,
                "--events-format",
                dialect,
                "--worker-id",
                "worker-1",
            ]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
            v.extend(args.iter().map(|s| (*s).to_owned()));
            v
        };
        let run = |args: &[&str]| {
            let a = with(args);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            p.run(&a)
        };
        assert_eq!(run(&["open"]).status.code(), Some(0));
        let s = only_session(&p);
        let a = with(&["patch", &s, "-"]);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        assert_eq!(p.run_stdin(&a, GREETING_HELLO).status.code(), Some(0));
        assert_eq!(run(&["verify", &s]).status.code(), Some(0));
        assert_eq!(run(&["apply", &s]).status.code(), Some(0));
        let lines: Vec<String> = common::json_lines(std::path::Path::new(events))
            .into_iter()
            .map(|l| serde_json::to_string(&without_durations(l)).unwrap())
            .collect();
        insta::assert_snapshot!(
            format!("events_{dialect}"),
            common::pinned::redact_durations(&p.redact(&lines.join("\n")))
        );
    }
}

#[test]
fn rebase_after_the_workspace_moved() {
    for json in [false, true] {
        let p = pinned();
        p.run(&["init"]);
        p.run(&["open"]);
        let s = only_session(&p);
        p.run_stdin(&["patch", &s, "-"], GREETING_HELLO);
        p.run(&["verify", &s]);
        // The workspace changes the same line: apply refuses and names rebase.
        std::fs::write(p.root.join("greeting.txt"), b"bye\n").unwrap();
        assert_eq!(snap(&p, json, "apply_moved", &["apply", &s]), Some(3));
        assert_eq!(snap(&p, json, "rebase_conflict", &["rebase", &s]), Some(3));
        assert_eq!(
            snap(&p, json, "rebase_markers", &["rebase", &s, "--markers"]),
            Some(0)
        );
        // Another file changes in the workspace: a clean rebase.
        std::fs::write(p.root.join("src/lib.rs"), b"pub fn g() {}\n").unwrap();
        assert_eq!(snap(&p, json, "rebase_clean", &["rebase", &s]), Some(0));
        assert_eq!(snap(&p, json, "rebase_again", &["rebase", &s]), Some(0));
    }
}

#[test]
fn log_and_status_after_a_failed_verification() {
    for json in [false, true] {
        let p = pinned();
        p.run(&["init"]);
        assert_eq!(snap(&p, json, "status_no_sessions", &["status"]), Some(0));
        p.run(&["open"]);
        let s = only_session(&p);
        assert_eq!(snap(&p, json, "log_unverified", &["log", &s]), Some(3));
        p.run_stdin(&["patch", &s, "-"], GREETING_BYE);
        assert_eq!(p.run(&["verify", &s]).status.code(), Some(1));
        assert_eq!(snap(&p, json, "status_failed", &["status"]), Some(0));
        // Durations: `0.01 s` in human output is redacted by `shown`; `"seconds": 0.0155…`
        // in JSON here.
        let o = p.run(&with_mode(json, &["log", &s]));
        let shown = p
            .shown(&o)
            .lines()
            .map(|l| match l.split_once("\"seconds\": ") {
                Some((head, _)) => format!("{head}\"seconds\": [s],\n"),
                None => format!("{l}\n"),
            })
            .collect::<String>();
        let mode = if json { "json" } else { "human" };
        insta::assert_snapshot!(format!("log_{mode}"), shown);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(
            snap(&p, json, "log_unknown_obligation", &["log", &s, "nope"]),
            Some(2)
        );
    }
}

/// New messages: the skipped-link warning with its once-note, then silence; a coloured diff
/// refused (exit 2) saying so.
#[test]
fn skipped_once_and_coloured_diff_refused() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        std::os::unix::fs::symlink("greeting.txt", p.root.join("link")).unwrap();
        let args = ["snapshot", "--identity"];
        assert_eq!(snap(&p, json, "skipped_first_time", &args), Some(0));
        assert_eq!(snap(&p, json, "skipped_second_time", &args), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        let s = only_session(&p);
        let coloured = b"\x1b[1m--- a/greeting.txt\x1b[m\n\x1b[1m+++ b/greeting.txt\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[31m-hi\x1b[m\n\x1b[32m+hello\x1b[m\n";
        assert_eq!(
            snap_stdin(&p, json, "refused_coloured_diff", &["patch", &s], coloured),
            Some(2)
        );
    }
}

#[test]
fn gc_dry_run_and_removal() {
    for json in [false, true] {
        let p = pinned();
        assert_eq!(p.run(&["init"]).status.code(), Some(0));
        assert_eq!(p.run(&["open"]).status.code(), Some(0));
        // A snapshot no session names, and a crashed writer's temporary file.
        std::fs::write(p.root.join("notes.txt"), b"not in any session\n").unwrap();
        common::chmod(&p.root.join("notes.txt"), 0o644);
        assert_eq!(p.run(&["snapshot", "--identity"]).status.code(), Some(0));
        std::fs::write(p.root.join(".genesis/tmp/.tmp-crashed"), b"half").unwrap();
        // Stat caches depend on file ages: not part of this output.
        let _ = std::fs::remove_dir_all(p.root.join(".genesis/statcache"));
        assert_eq!(snap(&p, json, "gc_young", &["gc"]), Some(0));
        assert_eq!(
            snap(&p, json, "gc_dry_run", &["gc", "--dry-run", "--prune=now"]),
            Some(0)
        );
        assert_eq!(snap(&p, json, "gc_now", &["gc", "--prune=now"]), Some(0));
        assert_eq!(snap(&p, json, "gc_again", &["gc", "--prune=now"]), Some(0));
        assert_eq!(
            snap(&p, json, "gc_bad_prune", &["gc", "--prune=soon"]),
            Some(2)
        );
    }
}
