//! The pager of `diff` and `log` (as git's): on a terminal, `$GENESIS_PAGER`, else `$PAGER`,
//! else `less -FRX`; `--no-pager` and a standard output that is not a terminal print directly.
//! The terminal is `script(1)`'s pseudo-terminal; the pager a `sed` that marks each line.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"say","run":["echo","hello"],"timeout_s":10}]}
"#;

/// Runs `genesis args` on a pseudo-terminal (`script -qec`) in `dir` with `env`; returns what
/// the terminal showed, carriage returns removed.
fn on_terminal(dir: &Path, args: &str, env: &[(&str, &str)]) -> String {
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let mut c = Command::new("script");
    c.current_dir(dir)
        .args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"])
        .env("NO_COLOR", "1")
        .env_remove("GENESIS_PAGER")
        .env_remove("PAGER");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("script runs");
    assert!(o.status.success(), "{o:?}");
    String::from_utf8_lossy(&o.stdout).replace('\r', "")
}

fn setup() -> tempfile::TempDir {
    let ws = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = ws.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(
        r,
        "s",
        b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
    ));
    ok(&run_in(r, &["verify", "s"]));
    ws
}

const DIFF: &str = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";

#[test]
fn diff_and_log_on_a_terminal_go_through_the_pager() {
    if !have("script") {
        panic!("script(1) is needed for the terminal tests");
    }
    let ws = setup();
    let r = ws.path();
    let marked: String = DIFF.lines().map(|l| format!("PAGED:{l}\n")).collect();
    let pager = [("GENESIS_PAGER", "sed s/^/PAGED:/"), ("PAGER", "false")];
    assert_eq!(on_terminal(r, "diff s", &pager), marked);
    // $PAGER when $GENESIS_PAGER is unset.
    assert_eq!(
        on_terminal(r, "diff s", &[("PAGER", "sed s/^/PAGED:/")]),
        marked
    );
    let log = on_terminal(r, "log s", &pager);
    assert!(log.starts_with("PAGED:verification of "), "{log}");
    assert!(
        log.contains("PAGED:obligation say: passed (exit 0, "),
        "{log}"
    );
    assert!(log.lines().all(|l| l.starts_with("PAGED:")), "{log}");
}

#[test]
fn no_pager_option_cat_and_pipes_print_directly() {
    let ws = setup();
    let r = ws.path();
    let pager = [("GENESIS_PAGER", "sed s/^/PAGED:/")];
    assert_eq!(on_terminal(r, "--no-pager diff s", &pager), DIFF);
    assert_eq!(on_terminal(r, "diff s", &[("GENESIS_PAGER", "cat")]), DIFF);
    assert_eq!(on_terminal(r, "diff s", &[("GENESIS_PAGER", "")]), DIFF);
    // Not a terminal: no pager, whatever the variables say.
    let o = run_env(
        r,
        &["diff", "s"],
        &[("GENESIS_PAGER", "sed s/^/PAGED:/".into())],
    );
    assert_eq!(stdout(&o), DIFF);
}

#[test]
fn the_default_pager_is_less_with_frx() {
    let ws = setup();
    let r = ws.path();
    // A `less` first on PATH that shows how it was called, then marks the lines.
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("less");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho \"less $* LESS=$LESS\"\nsed s/^/LESS:/\n",
    )
    .unwrap();
    chmod(&fake, 0o755);
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let marked: String = DIFF.lines().map(|l| format!("LESS:{l}\n")).collect();
    assert_eq!(
        on_terminal(r, "diff s", &[("PATH", &path)]),
        format!("less -FRX LESS=FRX\n{marked}")
    );
    // A LESS of the user's own is left as it is.
    assert_eq!(
        on_terminal(r, "diff s", &[("PATH", &path), ("LESS", "S")]),
        format!("less -FRX LESS=S\n{marked}")
    );
}

/// Polls `tmux capture-pane` of session `t` on `socket` until `want` holds (10 s at most);
/// returns the last capture.
fn pane_until(socket: &str, want: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..200 {
        let o = Command::new("tmux")
            .args(["-L", socket, "capture-pane", "-p", "-t", "t"])
            .output()
            .expect("tmux runs");
        last = String::from_utf8_lossy(&o.stdout).into_owned();
        if want(&last) {
            return last;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the pane never showed what was expected:\n{last}");
}

/// The real default pager in a real terminal (tmux): a diff longer than the screen stops in
/// `less` (its `:` prompt on the last line, the command not finished), and `q` quits it, after
/// which the command ends with exit 0.
#[test]
fn less_starts_on_a_long_diff_and_quits_on_q_in_tmux() {
    let tmux = Command::new("tmux").arg("-V").output();
    if !tmux.is_ok_and(|o| o.status.success()) || !have("less") {
        panic!("tmux and less are needed for the terminal test");
    }
    let ws = setup();
    let r = ws.path();
    let long: String = (0..60).map(|i| format!("line {i}\n")).collect();
    std::fs::write(r.join("long.txt"), &long).unwrap();
    ok(&run_in(r, &["open", "--session", "l"]));
    let diff: String =
        std::iter::once("--- a/long.txt\n+++ b/long.txt\n@@ -1,60 +1,60 @@\n".to_owned())
            .chain((0..60).map(|i| format!("-line {i}\n+LINE {i}\n")))
            .collect();
    ok(&patch_stdin(r, "l", diff.as_bytes()));
    let socket = format!("genesis-pager-test-{}", std::process::id());
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let script = format!(
        "cd {} && env -u GENESIS_PAGER -u PAGER -u LESS NO_COLOR=1 {} diff l; echo EXITED $?; sleep 30",
        r.display(),
        bin.display()
    );
    let started = Command::new("tmux")
        .args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
        ])
        .args(["-x", "80", "-y", "12", &script])
        .status()
        .expect("tmux runs");
    assert!(started.success());
    let kill = || {
        let _ = Command::new("tmux")
            .args(["-L", &socket, "kill-server"])
            .status();
    };
    let shown = std::panic::catch_unwind(|| {
        let paged = pane_until(&socket, |p| {
            p.contains("diff --git a/long.txt b/long.txt")
                && p.lines().rfind(|l| !l.trim().is_empty()) == Some(":")
        });
        assert!(!paged.contains("EXITED"), "{paged}");
        let sent = Command::new("tmux")
            .args(["-L", &socket, "send-keys", "-t", "t", "q"])
            .status()
            .expect("tmux runs");
        assert!(sent.success());
        pane_until(&socket, |p| p.contains("EXITED"))
    });
    kill();
    let shown = shown.unwrap();
    assert!(shown.contains("EXITED 0"), "{shown}");
}

/// A pager that cannot be run (not found, whether run directly or through the shell, or not
/// executable) is passed over with a warning, and the output goes to the terminal, as git
/// does: nothing is lost.
#[test]
fn a_pager_that_cannot_be_run_falls_back_to_standard_output_with_a_warning() {
    let ws = setup();
    let r = ws.path();
    let not_exe = r.join("not-executable-pager");
    std::fs::write(&not_exe, b"#!/bin/sh\ncat\n").unwrap();
    let not_exe = not_exe.to_str().unwrap().to_owned();
    for (pager, error) in [
        (
            "no-such-pager-xyz",
            "No such file or directory (os error 2)",
        ),
        (
            "no-such-pager-xyz -R",
            "No such file or directory (os error 2)",
        ),
        ("no-such-pager-xyz | cat", "no-such-pager-xyz: not found"),
        (not_exe.as_str(), "Permission denied (os error 13)"),
    ] {
        let shown = on_terminal(r, "diff s", &[("GENESIS_PAGER", pager)]);
        assert_eq!(
            shown,
            format!(
                "genesis: warning: cannot run the pager `{pager}` ($GENESIS_PAGER): {error}; writing to standard output (`--no-pager` or PAGER=cat says so for good)\n{DIFF}"
            )
        );
        // -q: no warning, the output still shown.
        assert_eq!(on_terminal(r, "-q diff s", &[("PAGER", pager)]), DIFF);
    }
}
