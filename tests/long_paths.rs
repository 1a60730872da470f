//! Long paths (issue 9, item 4): whatever `patch` accepts, `verify` and `apply` can write; a
//! path that the workspace root, apply's staging name or the default verify scratch directory
//! would push past PATH_MAX (4096 bytes with the NUL) or NAME_MAX (255 bytes a name) is refused
//! at `patch` with exit 2, naming the limit and the byte counts.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const MANIFEST: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"ok","run":["true"]}]}"#;
const PATH_MAX: usize = 4096;

/// A workspace at `<tmp>/<pad>` (so the test controls the root's length) and a TMPDIR for the
/// verify scratch directory.
struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    tmpdir: PathBuf,
}

fn env(pad: usize) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("w".repeat(pad));
    let tmpdir = base.join("t");
    std::fs::create_dir_all(&tmpdir).unwrap();
    write_tree(&root, &[("genesis.json", MANIFEST), ("a.txt", b"a\n")]);
    Env {
        _tmp: tmp,
        root,
        tmpdir,
    }
}

fn run(e: &Env, args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::genesis()
        .current_dir(&e.root)
        .env("TMPDIR", &e.tmpdir)
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap()
}

/// A path of exactly `total` bytes: directories of 200-byte names, then `file`.
fn deep(total: usize, file: &str) -> String {
    let mut dirs = total - file.len() - 1;
    let mut out = String::new();
    while dirs > 0 {
        let n = match dirs {
            202.. => 200,
            201 => 100,
            n => n,
        };
        out.push_str(&"d".repeat(n));
        out.push('/');
        dirs -= n + usize::from(dirs > n);
    }
    out.push_str(file);
    assert_eq!(out.len(), total);
    out
}

fn len(p: &Path) -> usize {
    p.as_os_str().len()
}

fn short(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(40).collect();
    let tail: String = s.chars().skip(n - 40).collect();
    format!("{head}…{tail}")
}

/// The longest path the verify scratch directory `$TMPDIR/genesis-verify-<id>-pNNNNNNN-XXXXXX` (NNNNNNN: the pid) allows.
fn scratch_max(e: &Env, id: &str) -> usize {
    let dir = len(&e.tmpdir) + 1 + format!("genesis-verify-{id}-pNNNNNNN-XXXXXX").len();
    PATH_MAX - dir - 2
}

fn session_file(e: &Env, id: &str) -> Vec<u8> {
    std::fs::read(e.root.join(format!(".genesis/sessions/{id}.json"))).unwrap()
}

#[test]
fn the_issue_path_is_refused_at_patch_naming_the_limit() {
    // 20 directories of 200 bytes and a 49-byte file name: 4069 bytes, as in the issue.
    let e = env(1);
    ok(&run(&e, &["open", "--session", "s"], b""));
    let before = session_file(&e, "s");
    let path = deep(4069, &"f".repeat(49));
    assert_eq!(path.matches('/').count(), 20);
    let o = run(&e, &["patch", "s", "-"], &new_file_diff(&path));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let scratch = e.tmpdir.join("genesis-verify-s-pNNNNNNN-XXXXXX");
    let total = len(&scratch) + 1 + 4069 + 1;
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: patch refused, nothing recorded: path {} (4069 bytes) cannot be written under the default verify scratch directory {}: that takes {total} bytes with the terminating NUL, over PATH_MAX, the system limit of 4096 bytes (the longest path this place allows is {} bytes)\n",
            short(&path),
            scratch.display(),
            scratch_max(&e, "s"),
        )
    );
    assert_eq!(session_file(&e, "s"), before);
}

#[test]
fn a_path_right_at_the_scratch_limit_verifies_and_applies() {
    let e = env(1);
    ok(&run(&e, &["open", "--session", "s"], b""));
    let max = scratch_max(&e, "s");
    // One byte more is refused, nothing recorded.
    let before = session_file(&e, "s");
    let over = deep(max + 1, "file-with-a-long-name.txt");
    let o = run(&e, &["patch", "s", "-"], &new_file_diff(&over));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("over PATH_MAX"), "{}", stderr(&o));
    assert_eq!(session_file(&e, "s"), before);
    // Right at the limit: patch, verify (in the default scratch directory) and apply all work.
    let at = deep(max, "file-with-a-long-name.txt");
    ok(&run(&e, &["patch", "s", "-"], &new_file_diff(&at)));
    ok(&run(&e, &["verify", "s"], b""));
    ok(&run(&e, &["apply", "s"], b""));
    assert_eq!(std::fs::read(e.root.join(&at)).unwrap(), b"x\n");
    assert_eq!(std::fs::read(e.root.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn a_path_right_at_the_staging_limit_verifies_and_applies() {
    // A deep workspace root: apply's staging name `.genesis-tmp-s-<n>` (20 bytes counted, for
    // up to 5 digits), longer than the 1-byte file name, is what binds.
    let e = env(200);
    ok(&run(&e, &["open", "--session", "s"], b""));
    let staging = ".genesis-tmp-s-".len() + 5;
    let max = PATH_MAX - len(&e.root) - 1 - staging - 1 + 1;
    let over = deep(max + 1, "f");
    let o = run(&e, &["patch", "s", "-"], &new_file_diff(&over));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: patch refused, nothing recorded: path {} ({} bytes) cannot be written under the workspace {} (as its 20-byte temporary name): that takes 4097 bytes with the terminating NUL, over PATH_MAX, the system limit of 4096 bytes (the longest path this place allows is {max} bytes)\n",
            short(&over),
            max + 1,
            e.root.display(),
        )
    );
    let at = deep(max, "f");
    ok(&run(&e, &["patch", "s", "-"], &new_file_diff(&at)));
    ok(&run(&e, &["verify", "s"], b""));
    ok(&run(&e, &["apply", "s"], b""));
    assert_eq!(std::fs::read(e.root.join(&at)).unwrap(), b"x\n");
}

#[test]
fn a_name_over_name_max_is_refused_at_patch() {
    let e = env(1);
    ok(&run(&e, &["open", "--session", "s"], b""));
    let name = "n".repeat(256);
    let o = run(
        &e,
        &["patch", "s", "-"],
        &new_file_diff(&format!("dir/{name}")),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: patch refused, nothing recorded: path {} (260 bytes) cannot be written: its component {} is 256 bytes, over NAME_MAX, the limit of 255 bytes for one file or directory name\n",
            short(&format!("dir/{name}")),
            short(&name)
        )
    );
    // 255 bytes is fine.
    ok(&run(
        &e,
        &["patch", "s", "-"],
        &new_file_diff(&format!("dir/{}", &name[1..])),
    ));
}

#[test]
fn patch_from_a_directory_goes_through_the_same_limits() {
    let e = env(1);
    let co = e.tmpdir.join("c");
    ok(&run(
        &e,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
        b"",
    ));
    // The checkout lies in TMPDIR, so a path that fits there can still be too long for the
    // scratch directory, whose name is longer.
    let path = deep(scratch_max(&e, "s") + 1, "f.txt");
    write_tree(&co, &[(path.as_str(), b"x\n")]);
    let o = run(&e, &["patch", "s", "--from", co.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("over PATH_MAX"), "{}", stderr(&o));
}

fn run_tmp(e: &Env, tmpdir: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::genesis()
        .current_dir(&e.root)
        .env("TMPDIR", tmpdir)
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap()
}

const EDIT_A: &[u8] =
    b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";

/// The message for `path` over PATH_MAX under `place` (whose directory is `dir_len` bytes).
fn over_message(path: &str, place: &str, dir_len: usize) -> String {
    let total = dir_len + 1 + path.len() + 1;
    format!(
        "path {} ({} bytes) cannot be written under {place}: that takes {total} bytes with the terminating NUL, over PATH_MAX, the system limit of 4096 bytes (the longest path this place allows is {} bytes)",
        short(path),
        path.len(),
        path.len() - (total - PATH_MAX),
    )
}

#[test]
fn a_base_path_too_long_for_the_scratch_directory_refuses_every_patch_and_verify() {
    // The workspace root is short, so a deep file fits there; a TMPDIR 41 bytes longer makes
    // the verify scratch directory too long for it. Before the fix `patch` checked only the
    // paths it touched, accepted an edit of a.txt, and `verify` then failed with exit 4.
    let e = env(1);
    let long_tmp = e.tmpdir.join("x".repeat(40));
    std::fs::create_dir_all(&long_tmp).unwrap();
    let scratch = long_tmp.join("genesis-verify-s-pNNNNNNN-XXXXXX");
    let path = deep(
        PATH_MAX - len(&scratch) - 2 + 1,
        "file-with-a-long-name.txt",
    );
    write_tree(&e.root, &[(path.as_str(), b"deep\n")]);
    ok(&run_tmp(&e, &long_tmp, &["open", "--session", "s"], b""));
    let before = session_file(&e, "s");
    let want = format!(
        "genesis: error: patch refused, nothing recorded: {}\n",
        over_message(
            &path,
            &format!("the default verify scratch directory {}", scratch.display()),
            len(&scratch)
        )
    );
    let o = run_tmp(&e, &long_tmp, &["patch", "s", "-"], EDIT_A);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o), want);
    assert_eq!(session_file(&e, "s"), before);
    // verify with no patch: the same clear error (exit 2), and no scratch directory made.
    let o = run_tmp(&e, &long_tmp, &["verify", "s"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: verify refused, nothing run: {}; set TMPDIR to a shorter directory, pass a shorter --workdir, or leave the path out of the workspace\n",
            over_message(
                &path,
                &format!("the default verify scratch directory {}", scratch.display()),
                len(&scratch)
            )
        )
    );
    assert_eq!(std::fs::read_dir(&long_tmp).unwrap().count(), 0);
    assert_eq!(session_file(&e, "s"), before);
    // With the shorter TMPDIR the same edit is accepted, verifies and applies.
    ok(&run(&e, &["patch", "s", "-"], EDIT_A));
    ok(&run(&e, &["verify", "s"], b""));
    ok(&run(&e, &["apply", "s"], b""));
    assert_eq!(std::fs::read(e.root.join("a.txt")).unwrap(), b"b\n");
    assert_eq!(std::fs::read(e.root.join(&path)).unwrap(), b"deep\n");
}

#[test]
fn verify_under_a_longer_tmpdir_or_workdir_names_the_path_and_limit() {
    // Accepted at patch time under the short TMPDIR; at verify time TMPDIR (or --workdir) is
    // longer: exit 2 naming the path and the limit, not an I/O error (exit 4).
    let e = env(1);
    ok(&run(&e, &["open", "--session", "s"], b""));
    let path = deep(scratch_max(&e, "s"), "file-with-a-long-name.txt");
    ok(&run(&e, &["patch", "s", "-"], &new_file_diff(&path)));
    let long_tmp = e.tmpdir.join("y".repeat(10));
    std::fs::create_dir_all(&long_tmp).unwrap();
    let scratch = long_tmp.join("genesis-verify-s-pNNNNNNN-XXXXXX");
    let o = run_tmp(&e, &long_tmp, &["verify", "s"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: verify refused, nothing run: {}; set TMPDIR to a shorter directory, pass a shorter --workdir, or leave the path out of the workspace\n",
            over_message(
                &path,
                &format!("the default verify scratch directory {}", scratch.display()),
                len(&scratch)
            )
        )
    );
    assert_eq!(std::fs::read_dir(&long_tmp).unwrap().count(), 0);
    // The same for a --workdir that is too long; the directory is not created.
    let wd = e.tmpdir.join("z".repeat(60));
    let o = run(&e, &["verify", "s", "--workdir", wd.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: verify refused, nothing run: {}; set TMPDIR to a shorter directory, pass a shorter --workdir, or leave the path out of the workspace\n",
            over_message(
                &path,
                &format!("the verify workdir {}", wd.display()),
                len(&wd)
            )
        )
    );
    assert!(!wd.exists());
    // Back under the TMPDIR of patch time it verifies.
    ok(&run(&e, &["verify", "s"], b""));
}

/// Every entry under `dir`, relative, sorted (directories with a trailing `/`).
fn entries(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).min_depth(1) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
        out.push(if e.file_type().is_dir() {
            format!("{rel}/")
        } else {
            rel
        });
    }
    out.sort();
    out
}

#[test]
fn a_checkout_too_long_for_a_base_path_is_refused_before_anything_is_written() {
    // The workspace root is short, so the deep base file fits there; the checkout directory is
    // 402 bytes longer. Before the fix `open --checkout` failed half way with exit 4 "File
    // name too long", leaving the directory partly written and no session.
    let e = env(1);
    let co = e.tmpdir.join("c".repeat(200)).join("c".repeat(200));
    let file = "file-with-a-long-name.txt";
    let path = deep(PATH_MAX - len(&co) - 2 + 1, file);
    write_tree(&e.root, &[(path.as_str(), b"deep\n")]);
    ok(&run(&e, &["init"], b""));
    for existing in [false, true] {
        if existing {
            std::fs::create_dir_all(&co).unwrap();
        }
        let o = run(
            &e,
            &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
            b"",
        );
        assert_eq!(code(&o), Some(2), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "genesis: error: open refused, nothing written: {}; pass a shorter --checkout directory, or leave the path out of the workspace\n",
                over_message(
                    &path,
                    &format!("the --checkout directory {}", co.display()),
                    len(&co)
                )
            )
        );
        assert!(!e.root.join(".genesis/sessions/s.json").exists());
        assert_eq!(co.exists(), existing);
        assert_eq!(entries(&e.tmpdir).len(), usize::from(existing) * 2);
    }
    // One byte shorter fits: the checkout is made and holds the file.
    std::fs::remove_dir_all(e.tmpdir.join("c".repeat(200))).unwrap();
    let co = e.tmpdir.join("c".repeat(200)).join("c".repeat(199));
    ok(&run(
        &e,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
        b"",
    ));
    assert_eq!(std::fs::read(co.join(&path)).unwrap(), b"deep\n");
}

#[test]
fn a_failed_open_checkout_leaves_no_partly_written_directory() {
    // The checkout is written, then saving the session fails (an injected EIO at the store's
    // first write of sessions/s.*): the directories open made are removed (a new one, and its
    // new parent), or an existing empty one is emptied again, so a retry succeeds.
    let e = env(1);
    write_tree(&e.root, &[("src/lib.rs", b"fn f() {}\n")]);
    ok(&run(&e, &["init"], b""));
    let parent = e.tmpdir.join("new-parent");
    let co = parent.join("co");
    let trace = e.tmpdir.join("trace");
    // Count the steps of a successful open into a throwaway checkout (the second one, when
    // the store already holds the snapshot, as for the opens below).
    let probe = e.tmpdir.join("probe");
    ok(&run(&e, &["open", "--session", "p"], b""));
    let o = common::genesis()
        .current_dir(&e.root)
        .env("TMPDIR", &e.tmpdir)
        .env("GENESIS_FAULT_TRACE", &trace)
        .args(["open", "--session", "q", "--checkout"])
        .arg(&probe)
        .output()
        .unwrap();
    ok(&o);
    let steps = std::fs::read_to_string(&trace).unwrap();
    let step = steps
        .lines()
        .find(|l| l.contains("sessions/q."))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    std::fs::remove_file(&trace).unwrap();
    std::fs::remove_dir_all(&probe).unwrap();
    for existing in [false, true] {
        if existing {
            std::fs::create_dir_all(&co).unwrap();
            chmod(&co, 0o755);
        }
        let o = common::genesis()
            .current_dir(&e.root)
            .env("TMPDIR", &e.tmpdir)
            .env("GENESIS_FAULT", format!("{step}:eio"))
            .args(["open", "--session", "s", "--checkout"])
            .arg(&co)
            .output()
            .unwrap();
        assert_eq!(code(&o), Some(4), "{}", stderr(&o));
        assert!(!e.root.join(".genesis/sessions/s.json").exists());
        if existing {
            assert_eq!(entries(&parent), vec!["co/".to_owned()]);
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&co).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o755);
        } else {
            assert!(!parent.exists(), "{:?}", entries(&parent));
        }
    }
    ok(&run(
        &e,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
        b"",
    ));
    assert_eq!(
        std::fs::read(co.join("src/lib.rs")).unwrap(),
        b"fn f() {}\n"
    );
}
