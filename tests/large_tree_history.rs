//! A real repository above the v0.1 limit, commit by commit: sveltejs/svelte
//! (`../shared/realrepos/svelte-history.bundle`, 9,080 files, 61 commits). For consecutive
//! commits, the workspace (a clone at the parent) goes through `open` → `patch` (git's own
//! `diff --binary --no-renames` of the pair) → `verify` → `apply`, and each step ends at the
//! identity Genesis computes for git's own checkout (`git archive`) of the child, with the
//! workspace's manifest (`genesis.json`, which `init` writes and a session must hold) beside
//! it. The trees are
//! v0.2 (past 4096 files): their identity is the root node's, stored as an object that hashes
//! to its name. A plain `cargo test` takes the first pair; `GENESIS_EXHAUSTIVE=1` (CI) the first 8;
//! `GENESIS_SVELTE_PAIRS=60` all of them (about half an hour in a debug build).

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// A scratch directory on tmpfs when there is one: the store `fsync`s every object, which
/// costs nothing there and seconds per thousand files on a shared disk.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

fn archive_identity(repo: &Path, commit: &str, dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(repo.join("genesis.json"), dir.join("genesis.json")).unwrap();
    let archive = Command::new("git")
        .args(["archive", "--format=tar", commit])
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(archive.status.success());
    let mut tar = Command::new("tar")
        .args(["-x", "-C"])
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    tar.stdin
        .take()
        .unwrap()
        .write_all(&archive.stdout)
        .unwrap();
    assert!(tar.wait().unwrap().success());
    let o = run_in(dir, &["snapshot", "--no-store", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o).trim_end().to_owned()
}

#[test]
fn svelte_commits_through_open_patch_verify_apply() {
    let bundle = repo_root().join("../shared/realrepos/svelte-history.bundle");
    assert!(bundle.is_file(), "{} is missing", bundle.display());
    let tmp = scratch();
    let ws = tmp.path().join("svelte");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            "--no-checkout",
            bundle.to_str().unwrap(),
            ws.to_str().unwrap(),
        ],
    );
    let commits: Vec<String> = git(&ws, &["rev-list", "--reverse", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(commits.len(), 61);
    let pairs = std::env::var("GENESIS_SVELTE_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if exhaustive() { 8 } else { 1 });
    git(&ws, &["checkout", "-q", &commits[0]]);
    let count = git(&ws, &["ls-files"]).lines().count();
    assert!(count > 4096, "the first commit's tree has {count} files");
    assert_eq!(run_in(&ws, &["init"]).status.code(), Some(0));
    // No protected paths (the default manifest protects `.github/workflows/`, which these
    // commits change) and no obligations: the test is about the trees.
    std::fs::write(
        ws.join("genesis.json"),
        r#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
    )
    .unwrap();
    let store = genesis::store::Store::open(&ws.join(".genesis")).unwrap();
    for (n, pair) in commits.windows(2).take(pairs).enumerate() {
        let (parent, child) = (&pair[0], &pair[1]);
        let expected = archive_identity(&ws, child, &tmp.path().join(format!("archive-{n}")));
        let id = format!("s{n}");
        let o = run_in(&ws, &["--json", "open", "--session", &id]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let diff = git_bytes(
            &ws,
            &[
                "diff",
                "--binary",
                "--no-renames",
                "--full-index",
                parent,
                child,
            ],
        );
        let o = patch_stdin(&ws, &id, &diff);
        assert_eq!(o.status.code(), Some(0), "{child}: {}", stderr(&o));
        let o = run_in(&ws, &["verify", &id]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{child}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let doc: serde_json::Value = serde_json::from_slice(
            &std::fs::read(ws.join(".genesis/sessions").join(format!("{id}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(doc["current_snapshot"], expected.as_str(), "{child}");
        let o = run_in(&ws, &["apply", &id]);
        assert_eq!(o.status.code(), Some(0), "{child}: {}", stderr(&o));
        // The workspace now is the child's tree, byte for byte and bit for bit: git agrees,
        // and so does a fresh snapshot.
        git(&ws, &["reset", "-q", child]);
        assert_eq!(
            git(&ws, &["status", "--porcelain", "--untracked-files=no"]),
            ""
        );
        let o = run_in(&ws, &["snapshot", "--identity"]);
        assert_eq!(stdout(&o), format!("{expected}\n"), "{child}");
        // A v0.2 tree: its root node is stored under the identity and hashes to it.
        let root: genesis::hash::Digest = expected.parse().unwrap();
        let bytes = store.read_object(&root).unwrap();
        assert_eq!(genesis::hash::Digest::of(&bytes), root);
        assert!(bytes.ends_with(br#","schema":"genesis/tree-v0.2"}"#));
        assert!(
            !ws.join(format!(".genesis/snapshots/{expected}.json"))
                .exists()
        );
    }
}
