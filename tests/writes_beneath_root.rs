//! `apply` never writes outside the workspace when a directory is swapped for a symbolic link
//! while it runs (DESIGN section 6, "Writes beneath the root"; `src/beneath.rs`).
//!
//! The race a concurrent process can win (`renameat2(RENAME_EXCHANGE)` of `sub` and a link
//! `subalt -> /outside` in a loop) is made deterministic with the fault seam: at file-system
//! step N of the apply (`GENESIS_FAULT=N:swap`), `sub` and `subalt` are exchanged once. For
//! every step N, the directory outside keeps exactly its one file with its bytes, and whatever
//! the apply wrote is in the real directory inside the workspace.

mod common;

use std::path::Path;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;
const EDIT: &[u8] = b"--- a/sub/file.txt\n+++ b/sub/file.txt\n@@ -1 +1 @@\n-inside\n+pwned\n";
const ADD: &[u8] = b"--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+pwned\n";

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A workspace with `sub/file.txt` and the link `subalt` to `outside`, and a verified session
/// `s` changing `sub/file.txt` and adding `sub/new.txt`.
fn setup(outside: &Path) -> tempfile::TempDir {
    let d = workspace(MANIFEST, &[("sub/file.txt", b"inside\n")]);
    std::fs::write(outside.join("file.txt"), b"inside\n").unwrap();
    std::os::unix::fs::symlink(outside, d.path().join("subalt")).unwrap();
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&common::cli::patch_stdin(r, "s", EDIT));
    ok(&common::cli::patch_stdin(r, "s", ADD));
    ok(&run_in(r, &["verify", "s"]));
    d
}

fn apply(r: &Path, env: &[(&str, String)]) -> std::process::Output {
    let mut c = common::genesis();
    c.current_dir(r).args(["apply", "s"]);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn a_directory_swapped_for_a_link_at_any_step_gets_nothing_written_outside() {
    // Count the steps of an undisturbed apply.
    let outside = tempfile::tempdir().unwrap();
    let d = setup(outside.path());
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("trace.txt");
    let o = apply(
        d.path(),
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    ok(&o);
    let steps = std::fs::read_to_string(&trace).unwrap();
    let names: Vec<&str> = steps.lines().collect();
    assert!(
        names.iter().any(|l| l.contains("rename sub/new.txt")),
        "{steps}"
    );
    assert_eq!(
        std::fs::read(d.path().join("sub/new.txt")).unwrap(),
        b"pwned\n"
    );
    let mut refused = 0;
    for n in 1..=names.len() {
        let outside = tempfile::tempdir().unwrap();
        let d = setup(outside.path());
        let r = d.path();
        let swap = format!("{}|{}", r.join("sub").display(), r.join("subalt").display());
        let o = apply(
            r,
            &[
                ("GENESIS_FAULT", format!("{n}:swap")),
                ("GENESIS_FAULT_SWAP", swap),
            ],
        );
        let step = names[n - 1];
        assert_eq!(
            listing(outside.path()),
            ["file.txt"],
            "step {step}: {}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read(outside.path().join("file.txt")).unwrap(),
            b"inside\n",
            "step {step}"
        );
        // The real directory is `subalt` once swapped; what was written is there.
        let real = if r.join("sub").is_symlink() {
            "subalt"
        } else {
            "sub"
        };
        assert!(
            r.join(real).is_dir() && !r.join(real).is_symlink(),
            "step {step}"
        );
        if o.status.success() {
            assert_eq!(
                std::fs::read(r.join(real).join("new.txt")).unwrap(),
                b"pwned\n",
                "step {step}"
            );
            assert_eq!(
                std::fs::read(r.join(real).join("file.txt")).unwrap(),
                b"pwned\n",
                "step {step}"
            );
        } else {
            refused += 1;
            assert_eq!(o.status.code(), Some(3), "step {step}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("sub: refused: is a symbolic link"),
                "step {step}: {}",
                stderr(&o)
            );
        }
    }
    // A swap before the last rename is refused (a link on the way), never followed.
    assert!(refused > 0, "{steps}");
}
