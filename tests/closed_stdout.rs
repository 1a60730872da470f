//! A reader that goes away (`genesis … | head -1`, `| true`) does not change a command's exit
//! status: the rest of the output is dropped and the command finishes as it would have.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::*;

/// Runs `genesis args…` in `dir` with its standard output a pipe whose reading end is closed
/// before the command writes anything; returns the exit status and standard error.
fn with_stdout_closed(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let mut child = Command::new(bin)
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("GENESIS_STORE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_mismatching_check_exits_1_when_its_reader_is_gone() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    // sha256 of nothing: certainly not this tree's identity.
    let other = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    for _ in 0..3 {
        let (code, err) = with_stdout_closed(d.path(), &["check", ".", "--expect", other]);
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(err, "");
    }
    let ok_id =
        String::from_utf8(run_in(d.path(), &["snapshot", "--no-store", "--identity", "."]).stdout)
            .unwrap();
    let (code, err) = with_stdout_closed(d.path(), &["check", ".", "--expect", ok_id.trim()]);
    assert_eq!(code, Some(0), "{err}");
}
