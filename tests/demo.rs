//! The README's main job: the sample workspace in testdata/demo through the CLI, with the
//! exact bytes on disk afterwards; and the Rust example doing the same.

mod common;

use common::*;

fn copy_demo() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("workspace");
    let st = std::process::Command::new("cp")
        .arg("-a")
        .arg(repo_root().join("testdata/demo/workspace"))
        .arg(&ws)
        .status()
        .unwrap();
    assert!(st.success());
    (tmp, ws)
}

#[test]
fn demo_through_the_cli() {
    let (_tmp, ws) = copy_demo();
    // The base fails its own test: the change fixes it.
    let diff = repo_root().join("testdata/demo/change.diff");
    let o = run_in(&ws, &["open", "--session", "demo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(&ws, &["verify", "demo"]);
    assert_eq!(o.status.code(), Some(1), "the base fails: {}", stderr(&o));
    let o = run_in(&ws, &["patch", "demo", diff.to_str().unwrap(), "--verify"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "verified snapshot 11fe88114acdc3b8a0808506acf357f927d83f1cee1ac5ced766b8b9f6473773"
        ),
        "{}",
        stdout(&o)
    );
    let o = run_in(&ws, &["apply", "demo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(ws.join("greet.py")).unwrap(),
        "def greet(name):\n    return f\"Hello, {name}!\"\n"
    );
}

#[test]
fn the_rust_example_runs_the_demo() {
    let o = std::process::Command::new(env!("CARGO"))
        .args(["run", "-q", "--example", "transaction"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("4. apply    session"), "{out}");
    assert!(
        out.contains(
            "now hashes to 11fe88114acdc3b8a0808506acf357f927d83f1cee1ac5ced766b8b9f6473773"
        ),
        "{out}"
    );
}
