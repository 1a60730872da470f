//! Help and messages: every command's `--help` puts the global options under their own
//! heading, shows the event options only on the commands that emit events, and ends with
//! examples and exit statuses; usage errors name the missing argument in `--json` too; the
//! event options still work given before the command name.

mod common;

use common::{code, ok, run_in, stderr, stdout};

const ALL: [&str; 23] = [
    "init",
    "snapshot",
    "diff",
    "check",
    "validate",
    "open",
    "patch",
    "rebase",
    "verify",
    "apply",
    "abort",
    "restore",
    "status",
    "log",
    "replay",
    "recover",
    "bpt",
    "completions",
    "man",
    "mcp",
    "gc",
    "push",
    "pull",
];

const EMITTING: [&str; 7] = ["open", "patch", "rebase", "verify", "apply", "abort", "bpt"];

/// The lines of `help` under `heading` (up to the next blank line).
fn section<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    help.split(&format!("\n{heading}\n"))
        .nth(1)
        .map(|rest| rest.lines().take_while(|l| !l.is_empty()).collect())
        .unwrap_or_default()
}

#[test]
fn each_help_has_global_options_apart_examples_and_exit_statuses() {
    let d = tempfile::tempdir().unwrap();
    for cmd in ALL {
        let help = ok(&run_in(d.path(), &[cmd, "--help"]));
        let global = section(&help, "Global options:");
        for opt in [
            "-C <DIR>",
            "--workspace <DIR>",
            "--store <DIR>",
            "--json",
            "--wait",
        ] {
            assert!(
                global.iter().any(|l| l.contains(opt)),
                "{cmd}: {opt} not under Global options:\n{help}"
            );
        }
        let own = section(&help, "Options:");
        assert!(
            !own.iter()
                .any(|l| l.contains("--workspace") || l.contains("--json")),
            "{cmd}: a global option among the command's own:\n{help}"
        );
        let examples = help.find("\nExamples:\n  ");
        let exit = help.find("\nExit status: 0 ");
        assert!(
            examples.is_some() && exit.is_some() && examples < exit,
            "{cmd}: no examples then exit statuses:\n{help}"
        );
        // The exit statuses are the last paragraph.
        let last = help.trim_end().rsplit("\n\n").next().unwrap();
        assert!(last.starts_with("Exit status: 0 "), "{cmd}: {last}");
        let events = section(&help, "Events:");
        if EMITTING.contains(&cmd) {
            for opt in [
                "--events <PATH>",
                "--events-format <DIALECT>",
                "--worker-id <ID>",
            ] {
                assert!(
                    events.iter().any(|l| l.contains(opt)),
                    "{cmd}: {opt}\n{help}"
                );
            }
        } else {
            assert!(!help.contains("--events"), "{cmd} shows --events:\n{help}");
            assert!(!help.contains("--worker-id"), "{cmd} shows --worker-id");
        }
    }
}

#[test]
fn event_options_are_taken_after_and_before_the_command() {
    let d = common::workspace(
        br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
        &[("a.txt", b"a\n")],
    );
    let w = d.path();
    ok(&run_in(w, &["init"]));
    let after = w.join("after.jsonl");
    let before = w.join("before.jsonl");
    ok(&run_in(
        w,
        &[
            "open",
            "--session",
            "s1",
            "--events",
            after.to_str().unwrap(),
        ],
    ));
    ok(&run_in(
        w,
        &[
            "--events",
            before.to_str().unwrap(),
            "open",
            "--session",
            "s2",
        ],
    ));
    for f in [&after, &before] {
        let lines = common::json_lines(f);
        assert!(!lines.is_empty(), "{}", f.display());
    }
    // A command that emits nothing does not take them.
    let o = run_in(w, &["status", "--events", "x.jsonl"]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).starts_with("error: unexpected argument '--events' found"),
        "{}",
        stderr(&o)
    );
    assert!(!w.join("x.jsonl").exists());
    // Given before such a command, --events makes no (empty) file, and says so.
    let o = run_in(w, &["--events", "y.jsonl", "status"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: warning: --events y.jsonl: this command emits no events (only open, patch, rebase, verify, apply, abort and bpt do); nothing is written there\n"
    );
    assert!(!w.join("y.jsonl").exists());
    let o = run_in(w, &["-q", "--events", "y.jsonl", "replay", "s1"]);
    assert_eq!(stderr(&o), "");
    assert!(!w.join("y.jsonl").exists());
}

/// `--workspace`'s help says what the default is without an odd "else" (the search; `init`
/// takes the current directory), and `--store` shows its variable without a value.
#[test]
fn workspace_and_store_help_say_their_defaults_plainly() {
    let d = tempfile::tempdir().unwrap();
    let help = ok(&run_in(d.path(), &["status", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("--workspace <DIR> Workspace root; skips the search. Default: the nearest directory at or above the current one whose .genesis holds a store (`init`: the current directory)"),
        "{help}"
    );
    assert!(
        flat.contains(
            "--store <DIR> Store directory. Default: WORKSPACE/.genesis [env: GENESIS_STORE]"
        ),
        "{help}"
    );
}

#[test]
fn usage_errors_name_the_missing_argument_in_json() {
    let d = tempfile::tempdir().unwrap();
    for (args, missing) in [
        (&["--json", "patch"][..], "<SESSION>"),
        (&["--json", "check"], "--expect <IDENTITY|FILE|->"),
        (&["--json", "completions"], "<SHELL>"),
    ] {
        let o = run_in(d.path(), args);
        assert_eq!(code(&o), Some(2));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            v["error"]["message"],
            format!("the following required arguments were not provided: {missing}"),
            "{}",
            stdout(&o)
        );
    }
}
