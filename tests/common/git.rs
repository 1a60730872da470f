//! Running `git` and other reference tools the tests compare Genesis with.

use std::path::Path;
use std::process::Command;

/// Runs `git args…` in `dir` with no system or global configuration, author and committer
/// `t <t@t>`, `core.quotePath=true` and `diff.renames=true`; asserts success and returns
/// standard output.
pub fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotePath=true", "-c", "diff.renames=true"])
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// [`git_bytes`] as UTF-8 text.
pub fn git(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git_bytes(dir, args)).expect("git prints UTF-8")
}

/// Whether `program --version` runs and succeeds.
pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Independent canonicalisation: Python's json.dumps with sorted keys, compact separators and
/// raw UTF-8 equals JCS for snapshot documents; returns the SHA-256 of that form of `doc` with
/// `identity` removed.
pub fn python_identity(doc_json: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("python3")
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
