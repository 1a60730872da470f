//! Workspaces on disk: writing, copying and reading trees and session documents.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::{ok, run_in};

/// Writes `files` (path → bytes) under `root`, creating directories.
pub fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (p, data) in files {
        let full = root.join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, data).unwrap();
    }
}

/// A fresh temporary workspace holding `genesis.json` = `manifest` and `files` (path → bytes).
pub fn workspace(manifest: &[u8], files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("genesis.json", manifest)]);
    write_tree(d.path(), files);
    d
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary directory on `/dev/shm` when there is one (the fault suites write a lot),
/// otherwise in the default temporary directory.
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::tempdir_in(shm)
    {
        return d;
    }
    tempfile::tempdir().unwrap()
}

/// Copies the tree `from` to `to` with `cp -a`, replacing whatever was at `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let st = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp -a {} {}", from.display(), to.display());
}

/// Sets the permission bits of `p` to `mode`.
pub fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The stored session document `.genesis/sessions/ID.json` of the workspace `root`.
pub fn session_doc(root: &Path, id: &str) -> Value {
    serde_json::from_slice(
        &std::fs::read(root.join(format!(".genesis/sessions/{id}.json"))).unwrap(),
    )
    .unwrap()
}

/// The `status` field of the stored session document of `id` (`open`, `verified`, …).
pub fn session_status(root: &Path, id: &str) -> String {
    session_doc(root, id)["status"].as_str().unwrap().to_owned()
}

/// The identity of `dir` (`genesis snapshot --no-store --identity`), asserting exit 0.
pub fn identity(dir: &Path) -> String {
    ok(&run_in(dir, &["snapshot", "--no-store", "--identity"]))
        .trim()
        .to_owned()
}

/// The snapshot document of `dir` (`genesis snapshot --no-store`), asserting exit 0.
pub fn snapshot_doc(dir: &Path) -> Value {
    serde_json::from_str(&ok(&run_in(dir, &["snapshot", "--no-store"]))).unwrap()
}

/// Opens session `id` in `root`, records `diff` (from standard input) and verifies it,
/// asserting exit 0 at each step.
pub fn verified_session(root: &Path, id: &str, diff: &[u8]) {
    ok(&run_in(root, &["open", "--session", id]));
    ok(&super::cli::patch_stdin(root, id, diff));
    ok(&run_in(root, &["verify", id]));
}

/// The `path` of every entry of a snapshot document's `files`, in order.
pub fn snapshot_paths(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

/// The content of the store object `name` (hex SHA-256) of the workspace store `root/.genesis`,
/// decompressed and checked against its name by the store (objects are zstd frames, DESIGN
/// section 3).
pub fn stored_object(root: &Path, name: &str) -> Vec<u8> {
    genesis::Store::open(&root.join(".genesis"))
        .unwrap()
        .read_object(&name.parse().unwrap())
        .unwrap()
}

/// Every object file of the store of workspace `ws` (`.genesis/objects/xx/rest`), with its
/// name (the hex digest: the directory's two characters and the file's).
pub fn store_objects(ws: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(ws.join(".genesis/objects")).unwrap() {
        let sub = sub.unwrap().path();
        for f in std::fs::read_dir(&sub).unwrap() {
            let p = f.unwrap().path();
            let name = format!(
                "{}{}",
                sub.file_name().unwrap().to_str().unwrap(),
                p.file_name().unwrap().to_str().unwrap()
            );
            out.push((name, p));
        }
    }
    out
}
