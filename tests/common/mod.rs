//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

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

/// Writes `files` (path → bytes) under `root`, creating directories.
pub fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (p, data) in files {
        let full = root.join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, data).unwrap();
    }
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Standard output as a string.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as a string.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok()
}

/// Independent canonicalisation: Python's json.dumps with sorted keys, compact separators and
/// raw UTF-8 equals JCS for snapshot documents; returns the SHA-256 of that form of `doc` with
/// `identity` removed.
pub fn python_identity(doc_json: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys,json,hashlib\nd=json.load(sys.stdin)\nd.pop('identity',None)\nprint(hashlib.sha256(json.dumps(d,sort_keys=True,separators=(',',':'),ensure_ascii=False).encode()).hexdigest())",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc_json.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}
