//! An in-place abort judges the workspace with the **base's** rules (issue 9: nothing lost,
//! nothing misplaced): a file the agent hid with a new ignore rule, or one over the v0.1 size
//! limit, is an addition like any other — saved into the store (streamed), removed, listed,
//! and brought back by `restore` — so the workspace hashes to the base after abort; what abort
//! leaves on purpose is listed as kept.

mod common;

use std::path::Path;

use common::*;
use sha2::Digest as _;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

fn sha(data: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(data))
}

fn stored(root: &Path, data: &[u8]) -> bool {
    let store = genesis::store::Store::open(&root.join(".genesis")).unwrap();
    store.has_object(&sha(data).parse().unwrap())
}

/// Every regular file under `root` (the store left out) as `path=bytes` (lossy), sorted.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(root).unwrap().to_str().unwrap();
        if rel.starts_with(".genesis") || !e.file_type().is_file() {
            continue;
        }
        out.push(format!(
            "{rel}={}",
            String::from_utf8_lossy(&std::fs::read(e.path()).unwrap())
        ));
    }
    out
}

fn manifest_entry(m: &[u8]) -> String {
    format!("genesis.json={}", std::str::from_utf8(m).unwrap())
}

#[test]
fn a_file_hidden_by_a_new_ignore_rule_is_saved_removed_and_restored() {
    let t = workspace(MANIFEST, &[("app.py", b"app\n")]);
    let r = t.path();
    ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
    let base = identity(r);
    std::fs::create_dir(r.join("out")).unwrap();
    std::fs::write(r.join(".gitignore"), b"/out/\n").unwrap();
    std::fs::write(r.join("out/result.jsonl"), b"res\n").unwrap();
    let agent = files(r);

    let o = run_in(r, &["abort", "--dry-run", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "abort s would change 2 path(s):\n  delete  .gitignore  (unrecorded: saved first)\n  delete  out/result.jsonl  (unrecorded: saved first)\n"
    );
    assert_eq!(files(r), agent);

    let o = run_in(r, &["abort", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "saved 2 file(s) that no patch recorded before removing or overwriting them:\n  .gitignore (6 bytes, blob {})\n  out/result.jsonl (4 bytes, blob {})\nbring them back with: genesis restore s\naborted session s\n",
            sha(b"/out/\n"),
            sha(b"res\n")
        )
    );
    // Before the fix: exit 1 "A out/result.jsonl".
    let o = run_in(r, &["check", "--expect", &base]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        files(r),
        ["app.py=app\n".to_owned(), manifest_entry(MANIFEST)]
    );
    assert!(!r.join("out").exists());
    assert!(stored(r, b"res\n"));

    ok(&run_in(r, &["restore", "s"]));
    assert_eq!(files(r), agent);
}

#[test]
fn what_abort_leaves_on_purpose_is_listed_as_kept() {
    // The base ignores secret.env; the agent empties .gitignore, so the snapshot of the moment
    // holds secret.env: abort restores .gitignore and keeps secret.env, and says so.
    let t = workspace(
        MANIFEST,
        &[
            (".gitignore", b"secret.env\n"),
            ("secret.env", b"TOKEN=x\n"),
        ],
    );
    let r = t.path();
    ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
    std::fs::write(r.join(".gitignore"), b"").unwrap();
    let o = run_in(r, &["abort", "--dry-run", "s"]);
    assert_eq!(
        stdout(&o),
        "abort s would change 1 path(s):\n  restore .gitignore  (unrecorded: saved first)\nkept 1 path(s) as they are:\n  secret.env (ignored by .gitignore in the base)\n"
    );
    let o = run_in(r, &["--json", "abort", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let v = json_out(&o);
    assert_eq!(
        v["kept"],
        serde_json::json!([{"path": "secret.env", "reason": "ignored by .gitignore in the base"}])
    );
    assert_eq!(
        files(r),
        [
            ".gitignore=secret.env\n".to_owned(),
            manifest_entry(MANIFEST),
            "secret.env=TOKEN=x\n".to_owned()
        ]
    );
}

/// A manifest whose size limit is 1024 bytes stands in for the v0.1 limit of 268435456
/// bytes (the same code path; `abort` of a real 300 MiB file is measured in the report).
const SMALL_LIMIT: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","limits":{"max_file_bytes":1024},"obligations":[]}"#;

#[test]
fn a_file_over_the_size_limit_never_blocks_abort_and_is_recoverable() {
    let t = workspace(SMALL_LIMIT, &[("app.py", b"app\n")]);
    let r = t.path();
    ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
    let base = identity(r);
    let big: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
    let big_edit: Vec<u8> = (0..2048u32).map(|i| (i % 13) as u8 + b'a').collect();
    std::fs::create_dir(r.join("out")).unwrap();
    std::fs::write(r.join("out/result.bin"), &big).unwrap();
    std::fs::write(r.join("app.py"), &big_edit).unwrap();
    // The snapshot rules refuse the tree (that is what blocked abort before the fix) …
    let o = run_in(r, &["snapshot", "--identity"]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    // … abort does not: both files are saved first, then the base comes back.
    let o = run_in(r, &["abort", "--dry-run", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "abort s would change 2 path(s):\n  restore app.py  (unrecorded: saved first)\n  delete  out/result.bin  (unrecorded: saved first)\n"
    );
    let o = run_in(r, &["abort", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "saved 2 file(s) that no patch recorded before removing or overwriting them:\n  app.py (2048 bytes, blob {})\n  out/result.bin (4096 bytes, blob {})\nbring them back with: genesis restore s\naborted session s\n",
            sha(&big_edit),
            sha(&big)
        )
    );
    assert_eq!(
        files(r),
        ["app.py=app\n".to_owned(), manifest_entry(SMALL_LIMIT)]
    );
    let o = run_in(r, &["check", "--expect", &base]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stored(r, &big) && stored(r, &big_edit));
    // The bytes come back exactly.
    ok(&run_in(r, &["restore", "s"]));
    assert_eq!(std::fs::read(r.join("out/result.bin")).unwrap(), big);
    assert_eq!(std::fs::read(r.join("app.py")).unwrap(), big_edit);
}

#[test]
fn a_checkout_abort_saves_and_removes_hidden_and_oversized_files_and_restores_them() {
    let t = workspace(
        SMALL_LIMIT,
        &[(".gitignore", b"/target/\n"), ("app.py", b"app\n")],
    );
    let r = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        r,
        &["open", "--session", "c", "--checkout", co.to_str().unwrap()],
    ));
    let big: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
    write_tree(
        &co,
        &[
            (".gitignore", b"/target/\n/out/\n"),
            ("out/result.jsonl", b"res\n"),
            ("big.bin", &big),
            ("target/cache.o", b"build\n"),
        ],
    );
    let o = run_in(r, &["abort", "--dry-run", "c"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "abort c would change 5 path(s):\n  delete  .gitignore  (unrecorded: saved first)\n  delete  app.py\n  delete  big.bin  (unrecorded: saved first)\n  delete  genesis.json\n  delete  out/result.jsonl  (unrecorded: saved first)\n"
    );
    let o = run_in(r, &["abort", "c"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "saved 3 file(s) that no patch recorded before removing or overwriting them:\n  .gitignore (15 bytes, blob {})\n  big.bin (4096 bytes, blob {})\n  out/result.jsonl (4 bytes, blob {})\nbring them back with: genesis restore c\nkept {}: it still holds files the snapshot rules leave out\naborted session c\n",
            sha(b"/target/\n/out/\n"),
            sha(&big),
            sha(b"res\n"),
            co.display()
        )
    );
    // Only what the base's rules leave out stays.
    assert_eq!(files(&co), ["target/cache.o=build\n"]);
    ok(&run_in(r, &["restore", "c"]));
    assert_eq!(std::fs::read(co.join("big.bin")).unwrap(), big);
    assert_eq!(
        std::fs::read(co.join("out/result.jsonl")).unwrap(),
        b"res\n"
    );
    assert_eq!(
        std::fs::read(co.join(".gitignore")).unwrap(),
        b"/target/\n/out/\n"
    );
    // --to writes the whole tree abort found, the oversized and hidden files included.
    let to = other.path().join("to");
    ok(&run_in(r, &["restore", "c", "--to", to.to_str().unwrap()]));
    assert_eq!(
        files(&to),
        [
            ".gitignore=/target/\n/out/\n".to_owned(),
            "app.py=app\n".to_owned(),
            format!("big.bin={}", String::from_utf8_lossy(&big)),
            manifest_entry(SMALL_LIMIT),
            "out/result.jsonl=res\n".to_owned(),
        ]
    );
}
