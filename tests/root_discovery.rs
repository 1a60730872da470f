//! Every command finds its workspace by walking up from the current directory to the nearest
//! directory holding `.genesis` (as git, jj and cargo do); `-C DIR` changes directory first
//! (repeatable, relative ones composing, as git's); `--workspace` wins over the search; `init`
//! makes its store in the current directory; paths a command takes (`patch --from DIR`, a diff
//! file, `open --checkout DIR`, `snapshot DIR`) stay relative to the current directory.

mod common;

use common::{code, ok, run_in, run_stdin, stderr, stdout};

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}
"#;

const HELLO: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

/// A workspace with a store, a greeting and `src/deep/dir/` holding a file.
fn initialised() -> tempfile::TempDir {
    let d = common::workspace(
        MANIFEST,
        &[("greeting.txt", b"hi\n"), ("src/deep/dir/f.txt", b"f\n")],
    );
    ok(&run_in(d.path(), &["init"]));
    d
}

#[test]
fn status_works_from_a_deep_directory() {
    let d = initialised();
    let s = ok(&run_in(d.path(), &["open", "--session", "s1"]));
    assert_eq!(s, "s1\n");
    let deep = d.path().join("src/deep/dir");
    let o = run_in(&deep, &["status"]);
    assert_eq!(
        stdout(&o),
        "s1\topen\t0 patch(es)\tnot verified\n",
        "{}",
        stderr(&o)
    );
    assert_eq!(code(&o), Some(0));
    // A patch from there lands in the workspace's session, not in a new store.
    let o = run_stdin(&deep, &["patch", "s1", "-"], HELLO);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(!deep.join(".genesis").exists());
    let doc = common::session_doc(d.path(), "s1");
    assert_eq!(doc["patches"].as_array().unwrap().len(), 1);
}

#[test]
fn no_store_names_the_directory_searched_from_and_says_init() {
    let d = tempfile::tempdir().unwrap();
    let sub = d.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    let o = run_in(&sub, &["status"]);
    assert_eq!(code(&o), Some(2));
    let cwd = sub.canonicalize().unwrap();
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: no Genesis store (.genesis) in {} or any directory above it; run `genesis init` to make one here, or name one with -C DIR, --workspace DIR or --store DIR\n",
            cwd.display()
        )
    );
    assert!(!sub.join(".genesis").exists());
}

#[test]
fn dash_c_changes_directory_first_and_composes_as_git() {
    let d = initialised();
    ok(&run_in(d.path(), &["open", "--session", "s1"]));
    let above = d.path().parent().unwrap();
    let name = d.path().file_name().unwrap().to_str().unwrap();
    // Relative -C's compose: NAME, then src, then deep.
    let o = run_in(above, &["-C", name, "-C", "src", "-C", "deep", "status"]);
    assert_eq!(
        stdout(&o),
        "s1\topen\t0 patch(es)\tnot verified\n",
        "{}",
        stderr(&o)
    );
    // An absolute -C starts again; an empty one changes nothing.
    let abs = d.path().join("src").to_str().unwrap().to_owned();
    let o = run_in(above, &["-C", "nowhere-at-all", "status"]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).starts_with("genesis: error: -C nowhere-at-all: cannot change to it: "),
        "{}",
        stderr(&o)
    );
    let o = run_in(above, &["-C", name, "-C", &abs, "-C", "", "status", "s1"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    // -C after the subcommand too (it is a global option).
    let o = run_in(above, &["status", "-C", name]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}

#[test]
fn workspace_option_wins_over_the_search() {
    let outer = initialised();
    ok(&run_in(outer.path(), &["open", "--session", "outer"]));
    let other = initialised();
    ok(&run_in(other.path(), &["open", "--session", "other"]));
    let deep = outer.path().join("src/deep/dir");
    let o = run_in(
        &deep,
        &["--workspace", other.path().to_str().unwrap(), "status"],
    );
    assert_eq!(stdout(&o), "[othe]r\topen\t0 patch(es)\tnot verified\n");
}

#[test]
fn init_makes_the_store_in_the_current_directory() {
    let d = initialised();
    let deep = d.path().join("src/deep");
    let o = run_in(&deep, &["init"]);
    assert_eq!(code(&o), Some(0));
    assert!(deep.join(".genesis/format").is_file());
    assert!(deep.join("genesis.json").is_file());
    assert_eq!(
        stderr(&o).lines().next().unwrap(),
        format!(
            "genesis: note: the workspace at {} holds this directory; this makes a separate workspace nested inside it",
            d.path().canonicalize().unwrap().display()
        )
    );
    // From there on, the nearer store is the one found.
    ok(&run_in(&deep, &["open", "--session", "inner"]));
    let o = run_in(&deep.join("dir"), &["status"]);
    assert_eq!(stdout(&o), "[inne]r\topen\t0 patch(es)\tnot verified\n");
    let o = run_in(d.path(), &["status"]);
    assert_eq!(stdout(&o), "no sessions; `genesis open` starts one\n");
}

#[test]
fn paths_given_to_commands_stay_relative_to_the_current_directory() {
    let d = initialised();
    let src = d.path().join("src");
    let co = d.path().parent().unwrap().join(format!(
        "{}-co",
        d.path().file_name().unwrap().to_str().unwrap()
    ));
    let co_rel = format!("../../{}", co.file_name().unwrap().to_str().unwrap());
    // open --checkout DIR, relative to src/.
    let o = run_in(&src, &["open", "--session", "c", "--checkout", &co_rel]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(co.join("greeting.txt")).unwrap(), b"hi\n");
    // patch --from DIR, relative to src/.
    std::fs::write(co.join("greeting.txt"), b"hello\n").unwrap();
    let o = run_in(&src, &["patch", "c", "--from", &co_rel]);
    assert_eq!(
        stdout(&o).lines().next(),
        Some("M\tgreeting.txt"),
        "{}",
        stderr(&o)
    );
    // A diff file, relative to src/.
    std::fs::write(
        src.join("bye.diff"),
        b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hello\n+bye\n",
    )
    .unwrap();
    let o = run_in(&src, &["patch", "c", "bye.diff"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    std::fs::remove_file(src.join("bye.diff")).unwrap();
    assert_eq!(
        common::session_doc(d.path(), "c")["patches"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    std::fs::remove_dir_all(&co).unwrap();
}

#[test]
fn snapshot_and_check_keep_the_directory_they_name() {
    let d = initialised();
    let src = d.path().join("src");
    // No DIR: the workspace root, from anywhere inside it.
    let root_id = ok(&run_in(d.path(), &["snapshot", "--identity"]));
    assert_eq!(ok(&run_in(&src, &["snapshot", "--identity"])), root_id);
    // DIR: that directory, relative to the current one, as before.
    let deep_alone = ok(&run_in(
        &src.join("deep"),
        &["snapshot", "--no-store", "--identity", "."],
    ));
    assert_ne!(deep_alone, root_id);
    assert_eq!(
        ok(&run_in(
            &src,
            &["snapshot", "--no-store", "--identity", "deep"]
        )),
        deep_alone
    );
    let o = run_in(&src, &["check", "deep", "--expect", deep_alone.trim()]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = run_in(&src, &["check", "--expect", root_id.trim()]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    // diff A B: directories relative to the current one.
    let o = run_in(&src, &["diff", "deep", "deep", "--name-status"]);
    assert_eq!((code(&o), stdout(&o)), (Some(0), String::new()));
}

/// A relative `--store` or `GENESIS_STORE` is taken from the current directory (after `-C`,
/// as git's `GIT_DIR`), also when it does not exist yet and is a single name (whose parent
/// is the empty path), and every error names the path as given.
#[test]
fn relative_store_paths_resolve_from_the_current_directory_and_errors_name_them() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let r = d.path();
    let o = common::run_env(
        r,
        &["open", "--session", "s1"],
        &[("GENESIS_STORE", "newst".into())],
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(r.join("newst/format").is_file());
    assert!(r.join("newst/.gitignore").is_file());
    let o = run_in(r, &["--store", "sub/st2", "open", "--session", "s2"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(r.join("sub/st2/format").is_file());
    let above = r.parent().unwrap();
    let name = r.file_name().unwrap().to_str().unwrap();
    let o = run_in(
        above,
        &["-C", name, "--store", "st3", "open", "--session", "s3"],
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(r.join("st3/format").is_file());
    let o = run_in(r, &["--store", "st3", "status"]);
    assert_eq!(stdout(&o), "s3\topen\t0 patch(es)\tnot verified\n");
    // Errors name the path as given.
    let o = common::run_env(r, &["status"], &[("GENESIS_STORE", "nothere".into())]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: nothere: no Genesis store here; run `genesis init` (or pass --store DIR)\n"
    );
    std::fs::write(r.join("afile"), b"").unwrap();
    let o = run_in(r, &["--store", "afile", "open"]);
    assert_eq!(code(&o), Some(4));
    assert_eq!(
        stderr(&o),
        "genesis: error: afile: Not a directory (os error 20)\n"
    );
    // Nothing half-made is left beside the stores.
    let names: Vec<String> = std::fs::read_dir(r)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".init-"))
        .collect();
    assert_eq!(names, Vec::<String>::new());
}

/// Two `genesis init` at once in one directory make one store: it is built aside and renamed
/// into place, so one of them makes it and the other finds it made and says so (exit 0, as a
/// second `init` and git's "Reinitialized"); nothing half-made is left.
#[test]
fn two_inits_at_once_make_one_store_and_the_other_says_already_initialised() {
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    for _ in 0..8 {
        let d = tempfile::tempdir().unwrap();
        let spawn = || {
            std::process::Command::new(&bin)
                .current_dir(d.path())
                .args(["init"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let mut firsts: Vec<String> = [a, b]
            .into_iter()
            .map(|c| {
                let o = c.wait_with_output().unwrap();
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                stdout(&o).lines().next().unwrap().to_owned()
            })
            .collect();
        firsts.sort();
        assert_eq!(
            firsts,
            [
                "store: ./.genesis",
                "store: ./.genesis (already initialised)"
            ]
        );
        let mut names: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".genesis", "genesis.json"]);
        let o = run_in(d.path(), &["status"]);
        assert_eq!(stdout(&o), "no sessions; `genesis open` starts one\n");
    }
}

/// A `.genesis` that holds no store — an empty directory or a file left by hand — does not
/// stop the search, as git passes over a `.git` that is no repository: the workspace above
/// is found, and with none, the usual "no Genesis store" error.
#[test]
fn a_stray_genesis_without_a_store_is_passed_over() {
    let d = initialised();
    ok(&run_in(d.path(), &["open", "--session", "s1"]));
    std::fs::create_dir(d.path().join("src/.genesis")).unwrap();
    std::fs::write(d.path().join("src/deep/.genesis"), b"").unwrap();
    let o = run_in(&d.path().join("src/deep/dir"), &["status"]);
    assert_eq!(
        stdout(&o),
        "s1\topen\t0 patch(es)\tnot verified\n",
        "{}",
        stderr(&o)
    );
    assert_eq!(code(&o), Some(0));
    // Without a store above: the error of no store at all.
    let bare = tempfile::tempdir().unwrap();
    let sub = bare.path().join("a");
    std::fs::create_dir_all(sub.join(".genesis")).unwrap();
    let o = run_in(&sub, &["status"]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).starts_with("genesis: error: no Genesis store (.genesis) in "),
        "{}",
        stderr(&o)
    );
}
