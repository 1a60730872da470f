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
