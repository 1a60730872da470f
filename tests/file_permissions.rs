//! Permission bits: a modified file keeps its bits through `apply` (journaled and in place)
//! and `abort`; only the recorded executable bit changes; a new file gets the umask's
//! default; checkouts and verify's scratch directory are private (0700) and never make a file
//! more readable than the workspace's.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// The umask the genesis child processes inherit (the test process's).
fn umask() -> u32 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let v = s.lines().find_map(|l| l.strip_prefix("Umask:")).unwrap();
    u32::from_str_radix(v.trim(), 8).unwrap()
}

/// A workspace with files of modes 0600, 0640 and 0664.
fn workspace_with_modes(manifest: &str) -> tempfile::TempDir {
    let t = workspace(
        manifest.as_bytes(),
        &[
            ("secret.txt", b"TOKEN=1\n"),
            ("tool.sh", b"echo hi\n"),
            ("group.txt", b"shared\n"),
        ],
    );
    chmod(&t.path().join("secret.txt"), 0o600);
    chmod(&t.path().join("tool.sh"), 0o640);
    chmod(&t.path().join("group.txt"), 0o664);
    t
}

const EMPTY: &str = r#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

#[test]
fn apply_keeps_permission_bits_and_changes_only_the_executable_bit() {
    let t = workspace_with_modes(EMPTY);
    let root = t.path();
    let other = tempfile::tempdir().unwrap();
    let co = other.path().join("co");
    ok(&run_in(
        root,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
    ));
    // The checkout is private, and its files are no more readable than the workspace's.
    assert_eq!(mode(&co), 0o700);
    assert_eq!(mode(&co.join("secret.txt")), 0o600);
    assert_eq!(mode(&co.join("tool.sh")), 0o640);
    std::fs::write(co.join("secret.txt"), b"TOKEN=2\n").unwrap();
    chmod(&co.join("tool.sh"), 0o750);
    std::fs::write(co.join("group.txt"), b"shared, changed\n").unwrap();
    std::fs::write(co.join("new.txt"), b"new\n").unwrap();
    std::fs::write(co.join("new.sh"), b"echo new\n").unwrap();
    chmod(&co.join("new.sh"), 0o755);
    ok(&run_in(
        root,
        &["patch", "s", "--from", co.to_str().unwrap()],
    ));
    ok(&run_in(root, &["verify", "s"]));
    ok(&run_in(root, &["apply", "s"]));
    assert_eq!(
        std::fs::read(root.join("secret.txt")).unwrap(),
        b"TOKEN=2\n"
    );
    assert_eq!(mode(&root.join("secret.txt")), 0o600);
    assert_eq!(mode(&root.join("tool.sh")), 0o750, "x added where r is");
    assert_eq!(mode(&root.join("group.txt")), 0o664);
    assert_eq!(mode(&root.join("new.txt")), 0o666 & !umask());
    assert_eq!(mode(&root.join("new.sh")), 0o777 & !umask());
}

#[test]
fn in_place_abort_keeps_permission_bits() {
    let t = workspace_with_modes(EMPTY);
    let root = t.path();
    ok(&run_in(root, &["open", "--session", "s", "--in-place"]));
    std::fs::write(root.join("secret.txt"), b"TOKEN=leaked\n").unwrap();
    ok(&run_in(root, &["abort", "s"]));
    assert_eq!(
        std::fs::read(root.join("secret.txt")).unwrap(),
        b"TOKEN=1\n"
    );
    assert_eq!(mode(&root.join("secret.txt")), 0o600);
}

#[test]
fn verify_scratch_directory_is_private_and_keeps_file_bits() {
    let probe = tempfile::tempdir().unwrap();
    let out = probe.path().join("modes.txt");
    let manifest = serde_json::json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [{
            "id": "modes",
            "run": ["sh", "-c", format!("stat -c '%a %n' . secret.txt group.txt > {}", out.display())],
            "timeout_s": 30
        }]
    })
    .to_string();
    let t = workspace_with_modes(&manifest);
    let root = t.path();
    ok(&run_in(root, &["open", "--session", "s"]));
    ok(&run_in(root, &["verify", "s"]));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "700 .\n600 secret.txt\n664 group.txt\n"
    );
}
