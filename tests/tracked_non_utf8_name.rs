//! A file git tracks whose name is not UTF-8 and that `.gitignore` matches is refused like
//! an untracked non-UTF-8 name (exit 2, the name with U+FFFD for each invalid byte), never
//! dropped silently; Genesis's own rules (`.genesisignore`, `exclude`) still leave it out.

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use common::{git, run_in, stderr, stdout, write_tree};

fn members(dir: &std::path::Path) -> Vec<String> {
    let o = run_in(dir, &["--json", "snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["snapshot"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn tracked_ignored_non_utf8_name_is_exit_2_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    git(ws, &["init", "-q", "-b", "main"]);
    write_tree(
        ws,
        &[(".gitignore", b"*.lock\n/target/\n"), ("a.txt", b"a\n")],
    );
    // Latin-1 "café.lock" and "target/é.o": not UTF-8.
    std::fs::write(ws.join(OsStr::from_bytes(b"caf\xe9.lock")), b"lock\n").unwrap();
    std::fs::create_dir(ws.join("target")).unwrap();
    std::fs::write(ws.join(OsStr::from_bytes(b"target/\xe9.o")), b"o\n").unwrap();
    // Untracked and ignored: left out, as before.
    assert_eq!(members(ws), [".gitignore", "a.txt"]);

    git(ws, &["add", "."]);
    git(ws, &["add", "-f", "--", "target"]);
    let o = std::process::Command::new("git")
        .arg("-C")
        .arg(ws)
        .args(["add", "-f", "--"])
        .arg(OsStr::from_bytes(b"caf\xe9.lock"))
        .status()
        .unwrap();
    assert!(o.success());
    assert_eq!(
        git(ws, &["ls-files", "-ci", "--exclude-standard"]),
        "\"caf\\351.lock\"\n\"target/\\351.o\"\n"
    );
    let o = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "genesis: error: ./caf\u{fffd}.lock: file name is not valid UTF-8; rename it or add it to .genesisignore\n"
    );
    // The same message as for the name untracked and not ignored (the walk's error).
    git(ws, &["rm", "-q", "-r", "--cached", "--", "target"]);
    let o = std::process::Command::new("git")
        .arg("-C")
        .arg(ws)
        .args(["rm", "-q", "--cached", "--"])
        .arg(OsStr::from_bytes(b"caf\xe9.lock"))
        .status()
        .unwrap();
    assert!(o.success());
    std::fs::write(ws.join(".gitignore"), b"/target/\n").unwrap();
    let walk = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(walk.status.code(), Some(2));
    assert_eq!(
        stderr(&walk),
        "genesis: error: ./caf\u{fffd}.lock: file name is not valid UTF-8; rename it or add it to .genesisignore\n"
    );

    // Tracked inside an ignored directory: named with its directory.
    std::fs::write(ws.join(".gitignore"), b"*.lock\n/target/\n").unwrap();
    std::fs::remove_file(ws.join(OsStr::from_bytes(b"caf\xe9.lock"))).unwrap();
    git(ws, &["add", "-f", "--", "target"]);
    let o = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: ./target/\u{fffd}.o: file name is not valid UTF-8; rename it or add it to .genesisignore\n"
    );
    // Genesis's own rules leave it out: no error.
    std::fs::write(ws.join(".genesisignore"), b"/target/\n").unwrap();
    assert_eq!(members(ws), [".genesisignore", ".gitignore", "a.txt"]);
    std::fs::remove_file(ws.join(".genesisignore")).unwrap();
    std::fs::write(
        ws.join("genesis.json"),
        br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[]}"#,
    )
    .unwrap();
    assert_eq!(members(ws), [".gitignore", "a.txt", "genesis.json"]);
    // A tracked non-UTF-8 file absent from disk (removed from the work tree) is no member and
    // no error.
    std::fs::remove_file(ws.join("genesis.json")).unwrap();
    std::fs::remove_file(ws.join(OsStr::from_bytes(b"target/\xe9.o"))).unwrap();
    assert_eq!(members(ws), [".gitignore", "a.txt"]);
}
