//! Issue 12 reviewer: `-q` is quiet as git's: only errors and the data a command exists to
//! print (diff, log, status) — no progress, no notes, no "recorded" lines.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"talk","run":["sh","-c","echo hi"],"timeout_s":30}]}"#;
const FAILING: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"no","run":["sh","-c","echo bad; exit 3"],"timeout_s":30}]}"#;

fn silent(o: &std::process::Output) {
    assert_eq!(code(o), Some(0), "{}", stderr(o));
    assert_eq!((stdout(o).as_str(), stderr(o).as_str()), ("", ""));
}

#[test]
fn quiet_commands_print_nothing_but_data_and_errors() {
    let ws = workspace(MANIFEST, &[("a.txt", b"one\n")]);
    let r = ws.path();
    silent(&run_in(r, &["-q", "init"]));
    // open's data is the session id (for `S=$(genesis open -q)`).
    let o = run_in(r, &["-q", "open", "--session", "s"]);
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("s\n", ""));
    silent(&run_stdin(
        r,
        &["-q", "patch", "s", "-"],
        &new_file_diff("n.txt"),
    ));
    silent(&run_in(r, &["-q", "verify", "s"]));
    silent(&run_in(r, &["-q", "rebase", "s"]));
    // Data is still printed.
    let o = run_in(r, &["-q", "diff", "s", "--name-status"]);
    assert_eq!(stdout(&o), "A\tn.txt\n");
    let o = run_in(r, &["-q", "apply", "--dry-run", "s"]);
    assert_eq!(stdout(&o), "A\tn.txt\n", "{}", stderr(&o));
    silent(&run_in(r, &["-q", "apply", "s"]));
    // A failure is still told.
    std::fs::write(r.join("genesis.json"), FAILING).unwrap();
    ok(&run_in(r, &["-q", "open", "--session", "f"]));
    let o = run_in(r, &["-q", "verify", "f"]);
    assert_eq!(code(&o), Some(1));
    assert!(
        stderr(&o).contains("genesis: obligation no: FAILED (exit 3"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("  stdout| bad\n"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("running"), "{}", stderr(&o));
}
