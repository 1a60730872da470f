//! Files git tracks are snapshot members although `.gitignore` matches them (git applies
//! ignore rules only to untracked files): a committed `Cargo.lock` under a `/Cargo.lock` rule,
//! as in rust-lang/cargo. Every repository here is made by running `git` in a temporary
//! directory; `genesis` is run as a process and its exit codes and output checked exactly.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const GITIGNORE: &[u8] = b"/Cargo.lock\n/target/\n";
const LOCK_V1: &[u8] = b"# lockfile v1\n";
const LOCK_V2: &[u8] = b"# lockfile v2\n";
const MAIN_RS: &[u8] = b"fn main() {}\n";
const KEPT: &[u8] = b"kept\n";

/// SHA-256 of the fixture files (checked against `sha256sum` in `blobs_are_sha256sum`).
const GITIGNORE_BLOB: &str = "f41d5aded6551937773c8f83a2593afe2003fc28bd10040d00aee433ee200273";
const LOCK_V1_BLOB: &str = "b26ee4de45cf3590b7bf1bcb3197cea47e706543a8bf4055fc4cb7932ed149ae";
const MAIN_RS_BLOB: &str = "536e506bb90914c243a12b397b9a998f85ae2cbd9ba02dfd03a9e155ca5ca0f4";
const KEPT_BLOB: &str = "78051faade059d70866df6a3fb83ef348721fd74a87e93ef95c493f87d0d236b";

/// Identity of the work tree with the tracked ignored files (`.gitignore`, `Cargo.lock`,
/// `src/main.rs`, `target/keep.txt`).
const WITH_TRACKED: &str = "eca43de6e064679c9d7876fc7d09b8605efd9cb5444da0f3b8079bae3cd5c89a";
/// Identity of the same commit without git (`.gitignore`, `src/main.rs`).
const WITHOUT_GIT: &str = "5b0d7124d036621cd8fb3084feaa26815268edd22e91a2880401a4e8a4f8b09d";

/// A git repository at `dir` whose `.gitignore` lists `/Cargo.lock` and `/target/`, with
/// `Cargo.lock` and `target/keep.txt` committed with `git add -f` and an untracked
/// `target/junk.o`.
fn make_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    write_tree(
        dir,
        &[
            (".gitignore", GITIGNORE),
            ("Cargo.lock", LOCK_V1),
            ("src/main.rs", MAIN_RS),
            ("target/keep.txt", KEPT),
            ("target/junk.o", b"junk\n"),
        ],
    );
    git(dir, &["add", "."]);
    git(dir, &["add", "-f", "Cargo.lock", "target/keep.txt"]);
    git(dir, &["commit", "-q", "-m", "init"]);
    // Git itself says these are tracked and ignored.
    assert_eq!(
        git(dir, &["ls-files", "-ci", "--exclude-standard"]),
        "Cargo.lock\ntarget/keep.txt\n"
    );
}

fn file_entry(path: &str, blob: &str, bytes: usize) -> String {
    format!(
        "    {{\n      \"path\": \"{path}\",\n      \"blob\": \"{blob}\",\n      \"bytes\": {bytes}\n    }}"
    )
}

fn document(identity: &str, entries: &[String]) -> String {
    format!(
        "{{\n  \"schema\": \"genesis/workspace-snapshot-v0.1\",\n  \"identity\": \"{identity}\",\n  \"files\": [\n{}\n  ]\n}}\n",
        entries.join(",\n")
    )
}

fn paths_of(dir: &Path) -> Vec<String> {
    let v = ok_json(&run_in(dir, &["--json", "snapshot", "--no-store"]));
    snapshot_paths(&v["snapshot"])
}

#[test]
fn blobs_are_sha256sum() {
    for (bytes, blob) in [
        (GITIGNORE, GITIGNORE_BLOB),
        (LOCK_V1, LOCK_V1_BLOB),
        (MAIN_RS, MAIN_RS_BLOB),
        (KEPT, KEPT_BLOB),
    ] {
        use std::io::Write;
        let mut child = Command::new("sha256sum")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(&String::from_utf8(out.stdout).unwrap()[..64], blob);
    }
}

#[test]
fn tracked_ignored_files_are_members_in_a_git_work_tree() {
    let tmp = tempfile::tempdir().unwrap();
    make_repo(tmp.path());
    let o = run_in(tmp.path(), &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let expected = document(
        WITH_TRACKED,
        &[
            file_entry(".gitignore", GITIGNORE_BLOB, GITIGNORE.len()),
            file_entry("Cargo.lock", LOCK_V1_BLOB, LOCK_V1.len()),
            file_entry("src/main.rs", MAIN_RS_BLOB, MAIN_RS.len()),
            file_entry("target/keep.txt", KEPT_BLOB, KEPT.len()),
        ],
    );
    assert_eq!(stdout(&o), expected);
    // The identity is the independent JCS hash of the document; the untracked ignored
    // target/junk.o stays out.
    assert_eq!(python_identity(&stdout(&o)), WITH_TRACKED);
}

#[test]
fn archive_of_the_commit_leaves_them_out_a_git_worktree_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    make_repo(&repo);

    // `git archive`: no .git, so no index: the .gitignore rules leave the lockfile out.
    let export = tmp.path().join("export");
    std::fs::create_dir(&export).unwrap();
    let tar = tmp.path().join("c.tar");
    git(&repo, &["archive", "-o", tar.to_str().unwrap(), "HEAD"]);
    let st = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&export)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        paths_of(&export),
        [".gitignore", "src/main.rs"],
        "an archive has no index: tracked-but-ignored files are left out"
    );
    let o = run_in(&export, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        document(
            WITHOUT_GIT,
            &[
                file_entry(".gitignore", GITIGNORE_BLOB, GITIGNORE.len()),
                file_entry("src/main.rs", MAIN_RS_BLOB, MAIN_RS.len()),
            ]
        )
    );
    assert_eq!(python_identity(&stdout(&o)), WITHOUT_GIT);

    // `git worktree add` (a `.git` *file* naming the worktree's git directory) gives the
    // same identity as the work tree the commit came from.
    let wt = tmp.path().join("wt");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            wt.to_str().unwrap(),
            "HEAD",
        ],
    );
    assert!(wt.join(".git").is_file());
    assert_eq!(identity(&wt), WITH_TRACKED);
    assert_eq!(identity(&repo), WITH_TRACKED);

    // A .genesisignore whitelist makes the rule Genesis's own: the archive then hashes like
    // the work tree does with the same file.
    std::fs::write(export.join(".genesisignore"), "!/Cargo.lock\n").unwrap();
    std::fs::write(repo.join(".genesisignore"), "!/Cargo.lock\n").unwrap();
    assert_eq!(
        paths_of(&export),
        [".genesisignore", ".gitignore", "Cargo.lock", "src/main.rs"]
    );
    std::fs::remove_dir_all(repo.join("target")).unwrap();
    assert_eq!(identity(&export), identity(&repo));
}

#[test]
fn patch_to_a_tracked_ignored_file_is_accepted_and_applied() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    let o = run_in(ws, &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The default manifest excludes target/: Genesis's own rule beats tracking.
    assert_eq!(
        paths_of(ws),
        [".gitignore", "Cargo.lock", "genesis.json", "src/main.rs"]
    );
    let o = run_in(ws, &["open"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    let diff = "diff --git a/Cargo.lock b/Cargo.lock\n--- a/Cargo.lock\n+++ b/Cargo.lock\n@@ -1 +1 @@\n-# lockfile v1\n+# lockfile v2\n";
    let patch = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(patch.path(), diff).unwrap();
    let o = run_in(ws, &["patch", &id, patch.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("M\tCargo.lock"));
    let o = run_in(ws, &["verify", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(ws, &["apply", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(ws.join("Cargo.lock")).unwrap(), LOCK_V2);
    // The workspace now hashes to the session's current snapshot.
    let o = run_in(ws, &["--json", "status", &id]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let current = v["session"]["current_snapshot"]
        .as_str()
        .or_else(|| v["current_snapshot"].as_str())
        .unwrap()
        .to_owned();
    assert_eq!(identity(ws), current);
}

#[test]
fn patch_from_a_checkout_keeps_the_tracked_ignored_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    make_repo(&ws);
    assert_eq!(run_in(&ws, &["init"]).status.code(), Some(0));
    let co = tmp.path().join("checkout");
    let o = run_in(&ws, &["open", "--checkout", co.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    // The checkout has no .git; the workspace's index still decides.
    assert_eq!(std::fs::read(co.join("Cargo.lock")).unwrap(), LOCK_V1);
    std::fs::write(co.join("Cargo.lock"), LOCK_V2).unwrap();
    let o = run_in(&ws, &["patch", &id, "--from", co.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("M\tCargo.lock"));
    let o = run_in(&ws, &["diff", &id, "--name-status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "M\tCargo.lock\n");
}

#[test]
fn untracked_ignored_paths_are_still_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let id = stdout(&run_in(ws, &["open"])).trim().to_owned();
    let patch = tempfile::NamedTempFile::new().unwrap();
    // Adds an ignore rule and an untracked file it matches: refused, exit 2.
    std::fs::write(
        patch.path(),
        "diff --git a/.gitignore b/.gitignore\n--- a/.gitignore\n+++ b/.gitignore\n@@ -2 +2,2 @@\n /target/\n+notes.txt\ndiff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+n\n",
    )
    .unwrap();
    let o = run_in(ws, &["patch", &id, patch.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: notes.txt (ignored by .gitignore)\n"
    );
    // A rule that matches the tracked src/main.rs does not leave it out: accepted.
    std::fs::write(
        patch.path(),
        "diff --git a/.gitignore b/.gitignore\n--- a/.gitignore\n+++ b/.gitignore\n@@ -2 +2,2 @@\n /target/\n+*.rs\n",
    )
    .unwrap();
    let o = run_in(ws, &["patch", &id, patch.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn genesisignore_still_leaves_a_tracked_file_out() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    std::fs::write(ws.join(".genesisignore"), "/Cargo.lock\n").unwrap();
    assert_eq!(
        paths_of(ws),
        [
            ".genesisignore",
            ".gitignore",
            "src/main.rs",
            "target/keep.txt"
        ]
    );
    // Also in a directory the walk never enters (target/ is ignored by .gitignore).
    std::fs::write(ws.join("target/.genesisignore"), "keep.txt\n").unwrap();
    assert_eq!(
        paths_of(ws),
        [".genesisignore", ".gitignore", "src/main.rs"]
    );
}

#[test]
fn workspace_in_a_subdirectory_strips_the_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    git(top, &["init", "-q", "-b", "main"]);
    write_tree(
        top,
        &[
            (".gitignore", b"Cargo.lock\n"),
            ("Cargo.lock", LOCK_V1),
            ("ws/Cargo.lock", LOCK_V1),
            ("ws/a.txt", b"a\n"),
            ("wsx/Cargo.lock", LOCK_V1),
        ],
    );
    git(top, &["add", "."]);
    git(
        top,
        &["add", "-f", "Cargo.lock", "ws/Cargo.lock", "wsx/Cargo.lock"],
    );
    git(top, &["commit", "-q", "-m", "init"]);
    // The .gitignore above the workspace is not read; the index is.
    assert_eq!(paths_of(&top.join("ws")), ["Cargo.lock", "a.txt"]);
    std::fs::write(top.join("ws/.gitignore"), "Cargo.lock\n").unwrap();
    assert_eq!(
        paths_of(&top.join("ws")),
        [".gitignore", "Cargo.lock", "a.txt"]
    );
    // Untracked ignored file beside it stays out.
    std::fs::write(top.join("ws/sub.lock"), "x").unwrap();
    std::fs::write(top.join("ws/.gitignore"), "*.lock\n").unwrap();
    assert_eq!(
        paths_of(&top.join("ws")),
        [".gitignore", "Cargo.lock", "a.txt"]
    );
}

#[test]
fn skip_worktree_entry_absent_on_disk_is_not_a_member() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    git(ws, &["update-index", "--skip-worktree", "Cargo.lock"]);
    std::fs::remove_file(ws.join("Cargo.lock")).unwrap();
    let o = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_eq!(
        paths_of(ws),
        [".gitignore", "src/main.rs", "target/keep.txt"]
    );
}

#[test]
fn tracked_file_below_a_symlinked_directory_is_not_a_member() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    make_repo(&ws);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), KEPT).unwrap();
    std::fs::remove_dir_all(ws.join("target")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, ws.join("target")).unwrap();
    assert_eq!(paths_of(&ws), [".gitignore", "Cargo.lock", "src/main.rs"]);
}

/// gitoxide's errors for an index whose last checksum byte is flipped (pinned by Cargo.lock).
const GIX_CHECKSUM: &str = "Shared index checksum mismatch";
const GIX_SHA256: &str = "Shared index checksum mismatch";

#[test]
fn missing_index_means_no_tracked_files_corrupt_index_is_exit_4() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    git(ws, &["init", "-q", "-b", "main"]);
    write_tree(ws, &[(".gitignore", GITIGNORE), ("Cargo.lock", LOCK_V1)]);
    // `git init` writes no index: the rules of a tree without git.
    assert!(!ws.join(".git/index").exists());
    assert_eq!(paths_of(ws), [".gitignore"]);
    git(ws, &["add", "-f", "Cargo.lock"]);
    assert_eq!(paths_of(ws), [".gitignore", "Cargo.lock"]);
    // A damaged index: membership cannot be decided; exit 4 naming the file.
    let index = ws.join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 0xff;
    std::fs::write(&index, &bytes).unwrap();
    let o = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(stdout(&o), "");
    let real_index = std::fs::canonicalize(&index).unwrap();
    // A plain message: the index path, gitoxide's error for each object format tried, and
    // what follows; no claim about what other tools would say.
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {}: git index cannot be read: as sha1: {GIX_CHECKSUM}; as sha256: {GIX_SHA256}; without it Genesis cannot tell which files git tracks, so it cannot decide which files are members\n",
            real_index.display()
        )
    );
    // The same for every command that snapshots, with --json too.
    let o = run_in(ws, &["--json", "snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["code"], 4);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!(
                "{}: git index cannot be read: as sha1: ",
                real_index.display()
            )),
        "{v}"
    );
    assert!(!stderr(&o).contains("git status"), "{}", stderr(&o));
    // A .git file naming no directory: exit 4 too.
    std::fs::remove_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git"), "gitdir: /nonexistent/x\n").unwrap();
    let o = run_in(ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stderr(&o).contains("not a usable .git file"),
        "{}",
        stderr(&o)
    );
}

/// A real clone: sveltejs/svelte's last commit (`../shared/realrepos/svelte-history.bundle`,
/// 9080 tracked files, five `.gitignore` files) has no tracked ignored file
/// (`git ls-files -ci --exclude-standard` is empty), so the test commits two with
/// `git add -f`: `.env` (its `.gitignore` lists `.env`) and a file in an ignored `coverage`
/// directory. The snapshot's members are then exactly git's tracked files (less the manifest's
/// excludes) plus the untracked manifest, and the store-side check agrees with the walk.
#[test]
fn real_clone_members_are_gits_tracked_files() {
    let bundle = common::repo_root().join("../shared/realrepos/svelte-history.bundle");
    assert!(bundle.is_file(), "{} is missing", bundle.display());
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("svelte");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            bundle.to_str().unwrap(),
            repo.to_str().unwrap(),
        ],
    );
    assert_eq!(git(&repo, &["ls-files", "-ci", "--exclude-standard"]), "");
    write_tree(
        &repo,
        &[
            (".env", b"SECRET=tracked\n"),
            ("packages/svelte/coverage/lcov.info", b"TN:\n"),
        ],
    );
    git(
        &repo,
        &["add", "-f", ".env", "packages/svelte/coverage/lcov.info"],
    );
    git(&repo, &["commit", "-q", "-m", "tracked ignored files"]);
    assert_eq!(
        git(&repo, &["ls-files", "-ci", "--exclude-standard"]),
        ".env\npackages/svelte/coverage/lcov.info\n"
    );
    // 9082 files are more than a v0.1 snapshot holds: the manifest leaves 5333 out.
    std::fs::write(
        repo.join("genesis.json"),
        r#"{"schema":"genesis/manifest-v0.1","exclude":["packages/svelte/tests/runtime-legacy/","packages/svelte/tests/runtime-runes/"],"obligations":[]}"#,
    )
    .unwrap();
    let ws = genesis::Workspace::new(&repo, None);
    let opts = ws.snapshot_options_for(&repo).unwrap();
    assert_eq!(opts.tracked.len(), 9082);
    let out = genesis::snapshot::snapshot_dir(&repo, &opts).unwrap();
    let members: Vec<&str> = out
        .snapshot
        .files()
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    let mut expected: Vec<String> = git(&repo, &["ls-files"])
        .lines()
        .filter(|p| {
            !p.starts_with("packages/svelte/tests/runtime-legacy/")
                && !p.starts_with("packages/svelte/tests/runtime-runes/")
        })
        .map(str::to_owned)
        .collect();
    expected.push("genesis.json".into());
    expected.sort();
    assert_eq!(members.len(), 3750);
    assert_eq!(members, expected);
    assert!(out.snapshot.get(".env").is_some());
    // The members only tracking keeps, as `open` records them (`base_tracked`).
    let only: Vec<&str> = out.tracked_only.iter().map(|p| p.as_str()).collect();
    assert_eq!(only, [".env", "packages/svelte/coverage/lcov.info"]);
    assert!(
        out.snapshot
            .get("packages/svelte/coverage/lcov.info")
            .is_some()
    );
    // The store-side check, given the same tracked set, leaves nothing out; without it, the
    // two tracked ignored files are what it would refuse.
    let read = |f: &genesis::SnapshotFile| std::fs::read(repo.join(f.path.as_str()));
    let left =
        genesis::membership::left_out(&out.snapshot, &opts.exclude, &opts.tracked, read).unwrap();
    assert_eq!(left, []);
    let none = genesis::tracked::TrackedFiles::none();
    let left = genesis::membership::left_out(&out.snapshot, &opts.exclude, &none, read).unwrap();
    let left: Vec<(String, String)> = left.into_iter().map(|l| (l.path, l.reason)).collect();
    assert_eq!(
        left,
        [
            (".env".to_owned(), "ignored by .gitignore".to_owned()),
            (
                "packages/svelte/coverage/lcov.info".to_owned(),
                "its directory packages/svelte/coverage/ is ignored by .gitignore".to_owned()
            ),
        ]
    );
}

/// `git rm --cached Cargo.lock` during a session (the `/Cargo.lock` rule then ignores it):
/// the base's recorded tracked members still exempt it at every path a patch does not touch,
/// so an unrelated patch is accepted and records exactly its own change; a patch that writes
/// Cargo.lock is judged with the index of the moment and refused (exit 2), the message saying
/// that git no longer tracks the file.
#[test]
fn untracking_a_base_file_during_the_session_blocks_only_patches_that_touch_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let id = stdout(&run_in(ws, &["open"])).trim().to_owned();
    git(ws, &["rm", "-q", "--cached", "Cargo.lock"]);
    assert_eq!(git(ws, &["ls-files", "Cargo.lock"]), "");
    let before = std::fs::read(ws.join(format!(".genesis/sessions/{id}.json"))).unwrap();
    // A patch that writes Cargo.lock: refused, nothing recorded.
    let lock = "diff --git a/Cargo.lock b/Cargo.lock\n--- a/Cargo.lock\n+++ b/Cargo.lock\n@@ -1 +1 @@\n-# lockfile v1\n+# lockfile v2\n";
    let o = patch_stdin(ws, &id, lock.as_bytes());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: Cargo.lock (ignored by .gitignore; git no longer tracks it, as it did when the session opened)\n"
    );
    assert_eq!(
        std::fs::read(ws.join(format!(".genesis/sessions/{id}.json"))).unwrap(),
        before
    );
    // An unrelated patch: accepted (before the fix: exit 2 naming Cargo.lock).
    let main = "diff --git a/src/main.rs b/src/main.rs\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { println!(); }\n";
    let o = patch_stdin(ws, &id, main.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("M\tsrc/main.rs"));
    let o = run_in(ws, &["diff", &id, "--name-status"]);
    assert_eq!(stdout(&o), "M\tsrc/main.rs\n");
    // The recorded tree still holds the base's Cargo.lock, byte for byte.
    let o = run_in(ws, &["--json", "status", &id]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let current = v["session"]["current_snapshot"]
        .as_str()
        .or_else(|| v["current_snapshot"].as_str())
        .unwrap()
        .to_owned();
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.join(format!(".genesis/snapshots/{current}.json"))).unwrap(),
    )
    .unwrap();
    let lock_entry = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "Cargo.lock")
        .unwrap();
    assert_eq!(lock_entry["blob"], LOCK_V1_BLOB);
}

/// The same through `genesis patch SESSION` of an in-place session (the workspace recorded as
/// it is): after `git rm --cached Cargo.lock` an edit elsewhere records only that edit (before,
/// Cargo.lock was recorded as deleted, silently); an edit of Cargo.lock is refused (exit 2),
/// the message saying that git no longer tracks it.
#[test]
fn untracking_a_base_file_during_an_in_place_session_records_no_deletion() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    make_repo(ws);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let o = run_in(ws, &["open", "--in-place", "--session", "p"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    git(ws, &["rm", "-q", "--cached", "Cargo.lock"]);
    std::fs::write(ws.join("src/main.rs"), b"fn main() { println!(); }\n").unwrap();
    let o = run_in(ws, &["patch", "p"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(ws, &["diff", "p", "--name-status"]);
    assert_eq!(stdout(&o), "M\tsrc/main.rs\n");
    let before = std::fs::read(ws.join(".genesis/sessions/p.json")).unwrap();
    std::fs::write(ws.join("Cargo.lock"), LOCK_V2).unwrap();
    let o = run_in(ws, &["patch", "p"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: it leaves paths that snapshots of the workspace leave out, so the result could never be reproduced from disk: Cargo.lock (ignored by .gitignore; git no longer tracks it, as it did when the session opened)\n"
    );
    assert_eq!(
        std::fs::read(ws.join(".genesis/sessions/p.json")).unwrap(),
        before
    );
    // With Cargo.lock as the base had it, the session verifies and applies (before, apply
    // exited 3: "Cargo.lock: differs from the session's current snapshot").
    std::fs::write(ws.join("Cargo.lock"), LOCK_V1).unwrap();
    let o = run_in(ws, &["verify", "p"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(ws, &["apply", "p"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(ws.join("Cargo.lock")).unwrap(), LOCK_V1);
    assert_eq!(
        std::fs::read(ws.join("src/main.rs")).unwrap(),
        b"fn main() { println!(); }\n"
    );
}

/// Issue 11 reviewer: a session that deletes a directory leaves the files the ignore rules
/// kept out of it (an ignored `Cargo.lock`), as `git rm -r` does; apply now says so (a warning
/// on standard error, `left_ignored` in `--json`), on a dry run too.
#[test]
fn apply_names_the_ignored_files_left_under_a_deleted_directory() {
    let manifest: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;
    let delete: &[u8] = b"diff --git a/crate/src/lib.rs b/crate/src/lib.rs\ndeleted file mode 100644\n--- a/crate/src/lib.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-fn main() {}\n";
    for json in [false, true] {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write_tree(
            r,
            &[
                ("genesis.json", manifest),
                (".gitignore", b"Cargo.lock\ntarget/\n"),
                ("crate/src/lib.rs", MAIN_RS),
                ("crate/Cargo.lock", LOCK_V1),
                ("crate/src/target/debug/x.o", b"o\n"),
                ("keep/Cargo.lock", LOCK_V1),
                ("keep/a.txt", KEPT),
            ],
        );
        ok(&run_in(r, &["init", "-q"]));
        ok(&run_in(r, &["open", "-q", "--session", "s"]));
        ok(&run_stdin(r, &["patch", "-q", "s", "-"], delete));
        ok(&run_in(r, &["verify", "-q", "s"]));
        let current = session_current(r);
        let left = "crate/Cargo.lock\n  crate/src/target/debug/x.o";
        let warning = |verb: &str| {
            format!(
                "genesis: warning: {verb} 2 file(s) the snapshot rules leave out (ignored) under directories session s deletes, as git does; the workspace then holds more than snapshot {current}:\n  {left}\n"
            )
        };
        let want = serde_json::json!(["crate/Cargo.lock", "crate/src/target/debug/x.o"]);
        if json {
            let o = run_in(r, &["--json", "apply", "s", "--dry-run"]);
            assert_eq!(json_out(&o)["left_ignored"], want);
            let o = run_in(r, &["--json", "apply", "s"]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(json_out(&o)["left_ignored"], want);
            assert_eq!(stderr(&o), "");
        } else {
            let o = run_in(r, &["apply", "s", "--dry-run"]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stderr(&o), warning("would leave"));
            let o = run_in(r, &["apply", "-q", "s"]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stderr(&o), warning("left"));
        }
        assert!(!r.join("crate/src/lib.rs").exists());
        assert!(
            r.join("crate/Cargo.lock").is_file() && r.join("crate/src/target/debug/x.o").is_file()
        );
        assert!(r.join("keep/Cargo.lock").is_file());
    }
}

fn session_current(r: &Path) -> String {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.join(".genesis/sessions/s.json")).unwrap())
            .unwrap();
    doc["current_snapshot"].as_str().unwrap().to_owned()
}
