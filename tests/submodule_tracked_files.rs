//! A nested repository's tracked files are snapshot members although `.gitignore` matches them,
//! as at the top (issue 9, "nothing lost"): a submodule (a gitlink in the outer index, checked
//! out with a `.git` file or directory) and a plain nested repository that the walk enters
//! contribute their own index's files, recursively, exactly as `git ls-files
//! --recurse-submodules` lists them (less what `.genesisignore` leaves out). Every repository
//! here is made by running `git` in a temporary directory; `genesis` runs as a process.

mod common;

use std::path::Path;

use common::*;

const MANIFEST: &[u8] = br#"{"schema": "genesis/manifest-v0.1", "obligations": []}"#;

fn paths_of(dir: &Path) -> Vec<String> {
    let v = ok_json(&run_in(dir, &["--json", "snapshot", "--no-store"]));
    snapshot_paths(&v["snapshot"])
}

/// `git ls-files --recurse-submodules` of `dir`, one path a line, sorted by bytes.
fn git_members(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = git(dir, &["ls-files", "--recurse-submodules"])
        .lines()
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

/// A repository at `dir` whose `.gitignore` lists `/Cargo.lock` and `*.tmp`, with
/// `Cargo.lock` and `notes.tmp` committed with `git add -f`, and `lib.rs`.
fn make_inner(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    write_tree(
        dir,
        &[
            (".gitignore", b"/Cargo.lock\n*.tmp\n"),
            ("Cargo.lock", b"l\n"),
            ("notes.tmp", b"n\n"),
            ("lib.rs", b"s\n"),
        ],
    );
    git(dir, &["add", "-A"]);
    git(dir, &["add", "-f", "Cargo.lock", "notes.tmp"]);
    git(dir, &["commit", "-q", "-m", "inner"]);
}

/// `git submodule add URL PATH` in `dir` (file-protocol clones allowed).
fn submodule_add(dir: &Path, url: &str, path: &str) {
    git(
        dir,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            path,
        ],
    );
}

/// An outer repository at `tmp/ws` (`top.rs`, `genesis.json`, a `.genesisignore` leaving out
/// `*.tmp`) with `tmp/inner-src` cloned in as the submodule `inner` (its `.git` is a file
/// naming `.git/modules/inner`), committed.
fn outer_with_submodule(tmp: &Path) -> std::path::PathBuf {
    make_inner(&tmp.join("inner-src"));
    let ws = tmp.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    git(&ws, &["init", "-q", "-b", "main"]);
    write_tree(
        &ws,
        &[
            ("top.rs", b"t\n"),
            ("genesis.json", MANIFEST),
            (".genesisignore", b"*.tmp\n"),
        ],
    );
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "top"]);
    submodule_add(&ws, tmp.join("inner-src").to_str().unwrap(), "inner");
    git(&ws, &["commit", "-q", "-m", "sub"]);
    ws
}

/// The reviewer's case with a cloned submodule: `inner/Cargo.lock` is tracked by the
/// submodule's index, so it is a member; the members are git's recursive list less the
/// `.genesisignore`d `inner/notes.tmp`. A patch to `inner/Cargo.lock` passes the store-side
/// membership check and is applied byte for byte.
#[test]
fn submodule_tracked_ignored_files_are_members() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = outer_with_submodule(tmp.path());
    let dot_git = std::fs::read_to_string(ws.join("inner/.git")).unwrap();
    assert_eq!(dot_git, "gitdir: ../.git/modules/inner\n");
    let expected: Vec<String> = git_members(&ws)
        .into_iter()
        .filter(|p| !p.ends_with(".tmp"))
        .collect();
    assert_eq!(
        expected,
        [
            ".genesisignore",
            ".gitmodules",
            "genesis.json",
            "inner/.gitignore",
            "inner/Cargo.lock",
            "inner/lib.rs",
            "top.rs"
        ]
    );
    assert_eq!(paths_of(&ws), expected);

    let diff = b"diff --git a/inner/Cargo.lock b/inner/Cargo.lock\n--- a/inner/Cargo.lock\n+++ b/inner/Cargo.lock\n@@ -1 +1 @@\n-l\n+l2\n";
    verified_session(&ws, "s", diff);
    ok(&run_in(&ws, &["apply", "s"]));
    assert_eq!(std::fs::read(ws.join("inner/Cargo.lock")).unwrap(), b"l2\n");
}

/// A submodule whose directory the outer `.gitignore` matches: the walk does not enter it, but
/// the gitlink is followed, so the submodule's tracked files are members (git lists them too);
/// and a submodule inside the submodule (recursive) adds its own.
#[test]
fn ignored_and_recursive_submodules_contribute_their_tracked_files() {
    let tmp = tempfile::tempdir().unwrap();
    make_inner(&tmp.path().join("deep-src"));
    let mid = tmp.path().join("mid-src");
    std::fs::create_dir_all(&mid).unwrap();
    git(&mid, &["init", "-q", "-b", "main"]);
    write_tree(&mid, &[("mid.rs", b"m\n")]);
    git(&mid, &["add", "-A"]);
    submodule_add(&mid, tmp.path().join("deep-src").to_str().unwrap(), "deep");
    git(&mid, &["commit", "-q", "-m", "mid"]);

    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    git(&ws, &["init", "-q", "-b", "main"]);
    write_tree(
        &ws,
        &[
            (".gitignore", b"/vendor/\n"),
            (".genesisignore", b"*.tmp\n"),
            ("genesis.json", MANIFEST),
        ],
    );
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "top"]);
    git(
        &ws,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            "-f",
            mid.to_str().unwrap(),
            "vendor/mid",
        ],
    );
    git(
        &ws,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "update",
            "-q",
            "--init",
            "--recursive",
        ],
    );
    let expected: Vec<String> = git_members(&ws)
        .into_iter()
        .filter(|p| !p.ends_with(".tmp"))
        .collect();
    assert_eq!(
        expected,
        [
            ".genesisignore",
            ".gitignore",
            ".gitmodules",
            "genesis.json",
            "vendor/mid/.gitmodules",
            "vendor/mid/deep/.gitignore",
            "vendor/mid/deep/Cargo.lock",
            "vendor/mid/deep/lib.rs",
            "vendor/mid/mid.rs"
        ]
    );
    assert_eq!(paths_of(&ws), expected);
}

/// A plain nested repository (its own `.git` directory, not a gitlink of the outer index, so
/// git's recursive list does not show it) that the walk enters: its index's tracked files are
/// members, prefixed with its directory — in an outer work tree and in a tree without git.
#[test]
fn nested_plain_repository_contributes_its_tracked_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    make_inner(&ws.join("vendor/lib"));
    write_tree(&ws, &[("top.rs", b"t\n"), (".genesisignore", b"*.tmp\n")]);
    let expected: Vec<String> = [".genesisignore", "top.rs"]
        .into_iter()
        .map(str::to_owned)
        .chain(
            git_members(&ws.join("vendor/lib"))
                .into_iter()
                .filter(|p| !p.ends_with(".tmp"))
                .map(|p| format!("vendor/lib/{p}")),
        )
        .collect();
    assert_eq!(
        expected,
        [
            ".genesisignore",
            "top.rs",
            "vendor/lib/.gitignore",
            "vendor/lib/Cargo.lock",
            "vendor/lib/lib.rs"
        ]
    );
    // No git above: only the nested index.
    assert_eq!(paths_of(&ws), expected);
    // An outer work tree that does not list the nested repository: opaque, as to git; its
    // files follow the ignore rules (its own `.gitignore` leaves Cargo.lock out).
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "top.rs"]);
    git(&ws, &["commit", "-q", "-m", "top"]);
    let opaque: Vec<String> = expected
        .iter()
        .filter(|p| *p != "vendor/lib/Cargo.lock")
        .cloned()
        .collect();
    assert_eq!(paths_of(&ws), opaque);
    // Once the outer index lists it (a gitlink), its index counts again.
    git(&ws, &["add", "vendor/lib"]);
    assert_eq!(paths_of(&ws), expected);
    git(&ws, &["rm", "-q", "-f", "--cached", "vendor/lib"]);
    // A nested repository inside an ignored directory is not entered: nothing of it is kept.
    write_tree(&ws, &[(".gitignore", b"/vendor/\n")]);
    assert_eq!(paths_of(&ws), [".genesisignore", ".gitignore", "top.rs"]);
}

/// A submodule whose git directory has no index (removed), or that is not checked out at all
/// (no `.git`), is not an error: it has no tracked files, and its files follow the ignore
/// rules as without git. A submodule `.git` file naming no directory is an error, exit 4, as at
/// the top.
#[test]
fn submodule_without_index_has_no_tracked_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = outer_with_submodule(tmp.path());
    std::fs::remove_file(ws.join(".git/modules/inner/index")).unwrap();
    let o = run_in(&ws, &["snapshot", "--no-store", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        paths_of(&ws),
        [
            ".genesisignore",
            ".gitmodules",
            "genesis.json",
            "inner/.gitignore",
            "inner/lib.rs",
            "top.rs"
        ]
    );
    // Not checked out: no `.git` in the directory.
    std::fs::remove_file(ws.join("inner/.git")).unwrap();
    assert_eq!(
        paths_of(&ws),
        [
            ".genesisignore",
            ".gitmodules",
            "genesis.json",
            "inner/.gitignore",
            "inner/lib.rs",
            "top.rs"
        ]
    );
    // A `.git` file naming no directory.
    std::fs::write(ws.join("inner/.git"), "gitdir: ../.git/modules/gone\n").unwrap();
    let o = run_in(&ws, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(stdout(&o), "");
    let real = std::fs::canonicalize(&ws).unwrap();
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {0}/inner/.git: not a usable .git file ({0}/inner/../.git/modules/gone is not a directory); git would refuse this work tree too — fix or remove it\n",
            real.display()
        )
    );
}
