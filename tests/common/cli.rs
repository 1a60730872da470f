//! Running the `genesis` binary and reading what it printed.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// A `genesis` command in a fixed environment: no colour, no store from the environment.
pub fn genesis() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("genesis").expect("binary built");
    c.env("NO_COLOR", "1").env_remove("GENESIS_STORE");
    c
}

/// Runs `genesis args…` in `dir` and returns the output.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    genesis()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
}

/// Runs `genesis args…` in `dir` with `input` on standard input.
pub fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    genesis()
        .current_dir(dir)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("runs")
}

/// Runs `genesis args…` in `dir` with the extra environment variables `env` (name, value).
pub fn run_env(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut c = genesis();
    c.current_dir(dir).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

/// `genesis patch SESSION -` in `dir` with `diff` on standard input.
pub fn patch_stdin(dir: &Path, session: &str, diff: &[u8]) -> Output {
    run_stdin(dir, &["patch", session, "-"], diff)
}

/// The exit status (`None` when killed by a signal).
pub fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// Standard output as a string (lossy UTF-8).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as a string (lossy UTF-8).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts exit status 0 (showing both streams otherwise) and returns standard output.
pub fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(o), stderr(o));
    stdout(o)
}

/// Standard output parsed as one JSON document (showing both streams when it is not).
pub fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", stdout(o), stderr(o)))
}

/// Asserts exit status 0 and returns standard output parsed as JSON.
pub fn ok_json(o: &Output) -> Value {
    ok(o);
    json_out(o)
}

/// The JSON lines of the file at `path`, each parsed.
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A git-style diff that creates `path` holding the one line `x`.
pub fn new_file_diff(path: &str) -> Vec<u8> {
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    )
    .into_bytes()
}
