//! Case-only renames (issue 9, item 5): collisions are judged on the result tree, a case-only
//! rename applies (with or without an edit, as a diff text or through `patch --from`), and what
//! is recorded replays and round-trips through `genesis diff SESSION | genesis patch`.

mod common;

use common::*;

const MANIFEST: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[
    ("readme.md", b"# title\nold line\n"),
    ("docs/guide.md", b"guide\n"),
];

/// The sorted list of regular files under `root` (the store left out), as `path=bytes`.
fn files(root: &std::path::Path) -> Vec<String> {
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

const PURE: &[u8] = b"diff --git a/readme.md b/README.md\nsimilarity index 100%\nrename from readme.md\nrename to README.md\n";
const EDIT: &[u8] = b"diff --git a/readme.md b/README.md\nsimilarity index 80%\nrename from readme.md\nrename to README.md\n--- a/readme.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # title\n-old line\n+new line\n";

#[test]
fn pure_case_only_rename_applies() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    let o = patch_stdin(r, "s", PURE);
    ok(&o);
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        files(r),
        [
            "README.md=# title\nold line\n",
            "docs/guide.md=guide\n",
            &("genesis.json=".to_owned() + std::str::from_utf8(MANIFEST).unwrap()),
        ]
    );
    let o = run_in(r, &["replay", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn case_only_rename_with_an_edit_applies() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(r, "s", EDIT));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("README.md")).unwrap(),
        b"# title\nnew line\n"
    );
    assert!(!r.join("readme.md").exists());
    let o = run_in(r, &["replay", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn case_only_directory_rename_applies() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(
        r,
        "s",
        b"diff --git a/docs/guide.md b/Docs/guide.md\nsimilarity index 100%\nrename from docs/guide.md\nrename to Docs/guide.md\n",
    ));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(std::fs::read(r.join("Docs/guide.md")).unwrap(), b"guide\n");
    assert!(!r.join("docs").exists());
}

#[test]
fn a_new_name_beside_a_kept_one_is_still_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    let before = std::fs::read(r.join(".genesis/sessions/s.json")).unwrap();
    // A new README.md while readme.md stays.
    let o = patch_stdin(
        r,
        "s",
        b"diff --git a/README.md b/README.md\nnew file mode 100644\n--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+x\n",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: patch line 1: path README.md would stand beside readme.md in the result; they differ only by case or Unicode normalisation, so they cannot both exist on a case-insensitive or normalising file system (macOS, Windows)\n"
    );
    // A new file in Docs/ while docs/ stays.
    let o = patch_stdin(
        r,
        "s",
        b"diff --git a/Docs/new.md b/Docs/new.md\nnew file mode 100644\n--- /dev/null\n+++ b/Docs/new.md\n@@ -0,0 +1 @@\n+x\n",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("path Docs would stand beside docs in the result"),
        "{}",
        stderr(&o)
    );
    // A copy to another case keeps both names.
    let o = patch_stdin(
        r,
        "s",
        b"diff --git a/readme.md b/README.md\nsimilarity index 100%\ncopy from readme.md\ncopy to README.md\n",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(r.join(".genesis/sessions/s.json")).unwrap(),
        before
    );
}

#[test]
fn patch_from_records_a_case_only_rename_that_replays_and_round_trips() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    let co = tempfile::tempdir().unwrap();
    let checkout = co.path().join("c");
    ok(&run_in(
        r,
        &[
            "open",
            "--session",
            "s",
            "--checkout",
            checkout.to_str().unwrap(),
        ],
    ));
    std::fs::remove_file(checkout.join("readme.md")).unwrap();
    std::fs::write(checkout.join("README.md"), b"# title\nnew line\n").unwrap();
    ok(&run_in(
        r,
        &["patch", "s", "--from", checkout.to_str().unwrap()],
    ));
    let o = run_in(r, &["replay", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("MISMATCH"), "{}", stdout(&o));
    // The recorded diff, fed back to a new session, gives the same snapshot.
    let diff = run_in(r, &["diff", "s"]);
    ok(&diff);
    assert_eq!(
        stdout(&diff),
        "diff --git a/README.md b/README.md\nnew file mode 100644\n--- /dev/null\n+++ b/README.md\n@@ -0,0 +1,2 @@\n+# title\n+new line\ndiff --git a/readme.md b/readme.md\ndeleted file mode 100644\n--- a/readme.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-# title\n-old line\n"
    );
    ok(&run_in(r, &["open", "--session", "t"]));
    ok(&patch_stdin(r, "t", &diff.stdout));
    let s = run_in(r, &["--json", "status", "s"]);
    let t = run_in(r, &["--json", "status", "t"]);
    let cur = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["session"]["current_snapshot"].clone()
    };
    assert_eq!(cur(&s), cur(&t), "{}\n{}", stdout(&s), stdout(&t));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        std::fs::read(r.join("README.md")).unwrap(),
        b"# title\nnew line\n"
    );
    assert!(!r.join("readme.md").exists());
}

/// A case-insensitive file system (macOS, Windows), simulated on Linux, where none could be
/// mounted here (the kernel lacks CONFIG_UNICODE, so neither `tmpfs -o casefold` nor an ext4
/// `-O casefold` image mounts): there `README.md` and `readme.md` are two spellings of one
/// directory entry, so both names open one inode with one content. A hard link shows the engine
/// exactly that — same bytes, same device and inode under both names. The apply must accept
/// the new name as the file it renames, and must stage the new name's content before it
/// unlinks the old name (on a real case-insensitive file system that unlink removes the only
/// directory entry, so skipping the staging because `README.md` "already holds" its post
/// content would lose the file); the step trace proves the order.
#[test]
fn case_insensitive_file_system_never_loses_the_only_copy() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(r, "s", PURE));
    ok(&run_in(r, &["verify", "s"]));
    std::fs::hard_link(r.join("readme.md"), r.join("README.md")).unwrap();
    let trace = r.join("trace.txt");
    let o = common::genesis()
        .current_dir(r)
        .env("GENESIS_FAULT_TRACE", &trace)
        .args(["apply", "s"])
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let steps: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_owned())
        .collect();
    let at = |name: &str| {
        steps
            .iter()
            .position(|s| s == name)
            .unwrap_or_else(|| panic!("no step {name:?} in {steps:?}"))
    };
    let create = at("create ./.genesis-tmp-s-0");
    let fsync = at("fsync ./.genesis-tmp-s-0");
    let unlink = at("unlink readme.md");
    let rename = at("rename README.md");
    assert!(
        create < fsync && fsync < unlink && unlink < rename,
        "{steps:?}"
    );
    std::fs::remove_file(&trace).unwrap();
    assert_eq!(
        files(r),
        [
            "README.md=# title\nold line\n",
            "docs/guide.md=guide\n",
            &("genesis.json=".to_owned() + std::str::from_utf8(MANIFEST).unwrap()),
        ]
    );
}

/// The same on a real case-insensitive file system. Run by hand, as root with FUSE:
///
/// ```sh
/// mkdir -p /tmp/cib /tmp/cim && scripts/casefold_fs.py /tmp/cib /tmp/cim &
/// GENESIS_CASEFOLD_DIR=/tmp/cim cargo test --test case_only_rename -- --ignored
/// ```
///
/// `scripts/casefold_fs.py` mounts a case-insensitive, case-preserving, normalisation-insensitive
/// file system (as APFS or NTFS behave); a kernel with CONFIG_UNICODE can use
/// `mount -t tmpfs -o casefold=utf8 tmpfs DIR` instead.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn case_only_rename_on_a_real_case_insensitive_mount() {
    let base = std::env::var_os("GENESIS_CASEFOLD_DIR")
        .expect("GENESIS_CASEFOLD_DIR names a case-insensitive mount");
    let probe = tempfile::tempdir_in(&base).unwrap();
    std::fs::write(probe.path().join("probe"), b"p").unwrap();
    assert!(
        probe.path().join("PROBE").exists(),
        "{base:?} is not case-insensitive"
    );
    for (text, content) in [
        (PURE, &b"# title\nold line\n"[..]),
        (EDIT, &b"# title\nnew line\n"[..]),
    ] {
        let d = tempfile::tempdir_in(&base).unwrap();
        let r = d.path();
        write_tree(
            r,
            &[
                ("genesis.json", MANIFEST),
                ("readme.md", b"# title\nold line\n"),
            ],
        );
        ok(&run_in(r, &["open", "--session", "s"]));
        ok(&patch_stdin(r, "s", text));
        ok(&run_in(r, &["verify", "s"]));
        ok(&run_in(r, &["apply", "s"]));
        let mut names: Vec<String> = std::fs::read_dir(r)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != ".genesis")
            .collect();
        names.sort();
        assert_eq!(names, ["README.md", "genesis.json"]);
        assert_eq!(std::fs::read(r.join("README.md")).unwrap(), content);
    }
}

// ---- Directory case-only renames (`Dir/` → `dir/`) ----

/// A workspace whose files sit under `Dir/` and `Top/Sub/`.
const DIR_TREE: &[(&str, &[u8])] = &[
    ("genesis.json", MANIFEST),
    ("Dir/a.txt", b"alpha\n"),
    ("Dir/b.txt", b"beta\n"),
    ("Top/Sub/c.txt", b"gamma\n"),
];

/// Every file under `Dir/` moves to `dir/` (one with an edit), and `Top/Sub/c.txt` to
/// `top/sub/c.txt`: three directories change only their spelling.
const DIR_RENAME: &[u8] = b"diff --git a/Dir/a.txt b/dir/a.txt\nsimilarity index 100%\nrename from Dir/a.txt\nrename to dir/a.txt\ndiff --git a/Dir/b.txt b/dir/b.txt\nsimilarity index 80%\nrename from Dir/b.txt\nrename to dir/b.txt\n--- a/Dir/b.txt\n+++ b/dir/b.txt\n@@ -1 +1 @@\n-beta\n+BETA\ndiff --git a/Top/Sub/c.txt b/top/sub/c.txt\nsimilarity index 100%\nrename from Top/Sub/c.txt\nrename to top/sub/c.txt\n";

/// The tree under `root` as `read_dir` spells it: every directory as `path/` and every file as
/// `path=bytes`, sorted, the store left out.
fn spelled(root: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            if rel.is_empty() && name == ".genesis" {
                continue;
            }
            let p = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().unwrap().is_dir() {
                out.push(format!("{p}/"));
                walk(&e.path(), &p, out);
            } else {
                out.push(format!(
                    "{p}={}",
                    String::from_utf8_lossy(&std::fs::read(e.path()).unwrap())
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", &mut out);
    out.sort();
    out
}

fn manifest_entry() -> String {
    "genesis.json=".to_owned() + std::str::from_utf8(MANIFEST).unwrap()
}

/// `DIR_TREE` after `DIR_RENAME`, as `spelled` lists it.
fn dir_renamed() -> Vec<String> {
    let mut v = vec![
        "dir/".to_owned(),
        "dir/a.txt=alpha\n".to_owned(),
        "dir/b.txt=BETA\n".to_owned(),
        manifest_entry(),
        "top/".to_owned(),
        "top/sub/".to_owned(),
        "top/sub/c.txt=gamma\n".to_owned(),
    ];
    v.sort();
    v
}

/// `DIR_TREE` as `spelled` lists it.
fn dir_original() -> Vec<String> {
    let mut v = vec![
        "Dir/".to_owned(),
        "Dir/a.txt=alpha\n".to_owned(),
        "Dir/b.txt=beta\n".to_owned(),
        manifest_entry(),
        "Top/".to_owned(),
        "Top/Sub/".to_owned(),
        "Top/Sub/c.txt=gamma\n".to_owned(),
    ];
    v.sort();
    v
}

/// The session's current snapshot identity.
fn current_snapshot(r: &std::path::Path, s: &str) -> String {
    let o = run_in(r, &["--json", "status", s]);
    ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["session"]["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The session's base snapshot identity.
fn base_snapshot(r: &std::path::Path, s: &str) -> String {
    let o = run_in(r, &["--json", "status", s]);
    ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["session"]["base_snapshot"].as_str().unwrap().to_owned()
}

/// `genesis check . --expect ID` exits 0: the tree as the snapshot reads it (readdir spellings)
/// is the recorded one.
fn assert_check(r: &std::path::Path, id: &str) {
    let o = run_in(r, &["check", ".", "--expect", id]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// The steps `GENESIS_FAULT_TRACE` recorded in `trace`, names only.
fn steps(trace: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_owned())
        .collect()
}

/// On a case-sensitive file system a directory case rename is an ordinary move: `Dir/` and
/// `Top/Sub/` are emptied and removed, `dir/` and `top/sub/` created; no directory is renamed.
#[test]
fn directory_case_rename_on_a_case_sensitive_file_system_moves_the_files() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, DIR_TREE);
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(r, "s", DIR_RENAME));
    ok(&run_in(r, &["verify", "s"]));
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("trace.txt");
    let o = common::genesis()
        .current_dir(r)
        .env("GENESIS_FAULT_TRACE", &trace)
        .args(["apply", "s"])
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let st = steps(&trace);
    assert!(
        !st.iter().any(|s| s.starts_with("respell ")),
        "a directory was renamed on a case-sensitive file system: {st:?}"
    );
    assert!(st.contains(&"mkdir dir".to_owned()), "{st:?}");
    assert!(st.contains(&"mkdir top/sub".to_owned()), "{st:?}");
    assert_eq!(spelled(r), dir_renamed());
    assert_check(r, &current_snapshot(r, "s"));
}

/// Both spellings present on a case-sensitive file system: `Dir/a.txt` moves to `dir/a.txt`
/// while `Dir/b.txt` stays, so the result holds `Dir` and `dir` — a collision, refused at
/// `patch` (exit 2) with nothing recorded; and a tree that already holds both (possible on
/// Linux) keeps them distinct: a change inside `dir/` leaves `Dir/` alone.
#[test]
fn directory_case_split_is_refused_and_distinct_directories_stay_distinct() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, DIR_TREE);
    ok(&run_in(r, &["open", "--session", "s"]));
    let before = std::fs::read(r.join(".genesis/sessions/s.json")).unwrap();
    let o = patch_stdin(
        r,
        "s",
        b"diff --git a/Dir/a.txt b/dir/a.txt\nsimilarity index 100%\nrename from Dir/a.txt\nrename to dir/a.txt\n",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "genesis: error: patch refused, nothing recorded: patch line 1: path dir would stand beside Dir in the result; they differ only by case or Unicode normalisation, so they cannot both exist on a case-insensitive or normalising file system (macOS, Windows)\n"
    );
    assert_eq!(
        std::fs::read(r.join(".genesis/sessions/s.json")).unwrap(),
        before
    );
    assert_eq!(spelled(r), dir_original());

    // Both spellings already in the workspace (Linux): they are two directories.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(
        r,
        &[
            ("genesis.json", MANIFEST),
            ("Dir/a.txt", b"upper\n"),
            ("dir/a.txt", b"lower\n"),
        ],
    );
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(
        r,
        "s",
        b"diff --git a/dir/a.txt b/dir/a.txt\n--- a/dir/a.txt\n+++ b/dir/a.txt\n@@ -1 +1 @@\n-lower\n+LOWER\n",
    ));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        spelled(r),
        [
            "Dir/",
            "Dir/a.txt=upper\n",
            "dir/",
            "dir/a.txt=LOWER\n",
            &manifest_entry(),
        ]
    );
}

/// The case-insensitive mount named by `GENESIS_CASEFOLD_DIR` (see
/// `case_only_rename_on_a_real_case_insensitive_mount`), checked to fold case.
fn casefold_base() -> std::ffi::OsString {
    let base = std::env::var_os("GENESIS_CASEFOLD_DIR")
        .expect("GENESIS_CASEFOLD_DIR names a case-insensitive mount");
    let probe = tempfile::tempdir_in(&base).unwrap();
    std::fs::create_dir(probe.path().join("Probe")).unwrap();
    assert!(
        probe.path().join("PROBE").is_dir(),
        "{base:?} is not case-insensitive"
    );
    base
}

/// Apply of a directory case rename on a case-insensitive mount: afterwards `read_dir` spells
/// `dir/` and `top/sub/`, the bytes are the post state, and the tree hashes to the recorded
/// snapshot. A second apply-free `recover` changes nothing.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn directory_case_rename_applies_on_a_case_insensitive_mount() {
    let base = casefold_base();
    let d = tempfile::tempdir_in(&base).unwrap();
    let r = d.path();
    write_tree(r, DIR_TREE);
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(r, "s", DIR_RENAME));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(spelled(r), dir_renamed());
    assert_check(r, &current_snapshot(r, "s"));
}

/// An in-place session on a case-insensitive mount: the agent renames `Dir` to `dir` itself;
/// `apply` records it as is, and `abort` of another such session brings back the spelling
/// `Dir` (the journal renames the directory back).
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn in_place_directory_case_rename_applies_and_aborts_on_a_case_insensitive_mount() {
    let base = casefold_base();
    for abort in [false, true] {
        let d = tempfile::tempdir_in(&base).unwrap();
        let r = d.path();
        write_tree(r, DIR_TREE);
        ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
        std::fs::rename(r.join("Dir"), r.join("dir")).unwrap();
        std::fs::write(r.join("dir/b.txt"), b"BETA\n").unwrap();
        std::fs::rename(r.join("Top/Sub"), r.join("Top/sub")).unwrap();
        std::fs::rename(r.join("Top"), r.join("top")).unwrap();
        assert_eq!(spelled(r), dir_renamed());
        ok(&run_in(r, &["patch", "s"]));
        if abort {
            let o = run_in(r, &["abort", "s"]);
            assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
            assert_eq!(spelled(r), dir_original());
            assert_check(r, &base_snapshot(r, "s"));
        } else {
            ok(&run_in(r, &["verify", "s"]));
            ok(&run_in(r, &["apply", "s"]));
            assert_eq!(spelled(r), dir_renamed());
            assert_check(r, &current_snapshot(r, "s"));
        }
    }
}

/// A crash at every step of a directory case rename's apply on a case-insensitive mount, then
/// `recover`: the tree always ends exactly at the recorded snapshot, spelling included, with
/// every file's bytes (no step deleted the only copy), and a second `recover` is a no-op.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn directory_case_rename_recovers_from_a_crash_at_every_step_on_a_case_insensitive_mount() {
    let base = casefold_base();
    let setup = || {
        let d = tempfile::tempdir_in(&base).unwrap();
        write_tree(d.path(), DIR_TREE);
        ok(&run_in(d.path(), &["open", "--session", "s"]));
        ok(&patch_stdin(d.path(), "s", DIR_RENAME));
        ok(&run_in(d.path(), &["verify", "s"]));
        d
    };
    let d = setup();
    let trace = std::path::Path::new(&base).join(format!("trace-{}.txt", std::process::id()));
    let o = common::genesis()
        .current_dir(d.path())
        .env("GENESIS_FAULT_TRACE", &trace)
        .args(["apply", "s"])
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let all = steps(&trace);
    std::fs::remove_file(&trace).unwrap();
    assert!(all.iter().any(|s| s == "respell dir"), "{all:?}");
    assert!(all.iter().any(|s| s == "respell top/sub"), "{all:?}");
    for n in 1..=all.len() {
        let d = setup();
        let r = d.path();
        let o = common::genesis()
            .current_dir(r)
            .env("GENESIS_FAULT", format!("{n}:abort"))
            .args(["apply", "s"])
            .output()
            .unwrap();
        assert_ne!(code(&o), Some(0), "step {n} ({}) did not crash", all[n - 1]);
        let o = run_in(r, &["recover"]);
        assert_eq!(code(&o), Some(0), "step {n}: {}", stderr(&o));
        if !r.join(".genesis/journal/s.json").exists() && spelled(r) == dir_original() {
            // Crashed before the journal was durable: nothing changed; apply again.
            assert!(n <= 4, "step {n} ({}) left the base", all[n - 1]);
            assert_check(r, &base_snapshot(r, "s"));
            ok(&run_in(r, &["apply", "s"]));
        }
        assert_eq!(
            spelled(r),
            dir_renamed(),
            "crash at step {n} ({})",
            all[n - 1]
        );
        assert_check(r, &current_snapshot(r, "s"));
        ok(&run_in(r, &["recover"]));
        assert_eq!(spelled(r), dir_renamed());
    }
}

/// An in-place session on a case-insensitive mount whose agent renamed a file by case only
/// (`readme.md` → `README.md`): `abort` brings back `readme.md` with its bytes. Before the fix
/// abort took `readme.md` (which opens `README.md`) for the base file already in place, then
/// deleted `README.md`: the file was gone.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn in_place_file_case_rename_aborts_on_a_case_insensitive_mount() {
    let base = casefold_base();
    let d = tempfile::tempdir_in(&base).unwrap();
    let r = d.path();
    write_tree(
        r,
        &[
            ("genesis.json", MANIFEST),
            ("readme.md", b"# title\nold line\n"),
        ],
    );
    ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
    std::fs::rename(r.join("readme.md"), r.join("README.md")).unwrap();
    ok(&run_in(r, &["patch", "s"]));
    let o = run_in(r, &["abort", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        spelled(r),
        [manifest_entry(), "readme.md=# title\nold line\n".to_owned()]
    );
    assert_check(r, &base_snapshot(r, "s"));
}

/// A crash at every step of the in-place abort of a directory case rename on a
/// case-insensitive mount, then `recover`: the tree always ends at the base, spelled `Dir/`
/// and `Top/Sub/`, with every file's bytes.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn in_place_abort_of_a_directory_case_rename_recovers_from_a_crash_at_every_step_on_a_case_insensitive_mount()
 {
    let base = casefold_base();
    let setup = || {
        let d = tempfile::tempdir_in(&base).unwrap();
        let r = d.path();
        write_tree(r, DIR_TREE);
        ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
        std::fs::rename(r.join("Dir"), r.join("dir")).unwrap();
        std::fs::write(r.join("dir/b.txt"), b"BETA\n").unwrap();
        std::fs::rename(r.join("Top/Sub"), r.join("Top/sub")).unwrap();
        std::fs::rename(r.join("Top"), r.join("top")).unwrap();
        ok(&run_in(r, &["patch", "s"]));
        d
    };
    let d = setup();
    let trace = std::path::Path::new(&base).join(format!("trace-a-{}.txt", std::process::id()));
    let o = common::genesis()
        .current_dir(d.path())
        .env("GENESIS_FAULT_TRACE", &trace)
        .args(["abort", "s"])
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let all = steps(&trace);
    std::fs::remove_file(&trace).unwrap();
    assert!(all.iter().any(|s| s == "respell Dir"), "{all:?}");
    assert!(all.iter().any(|s| s == "respell Top/Sub"), "{all:?}");
    for n in 1..=all.len() {
        let d = setup();
        let r = d.path();
        let o = common::genesis()
            .current_dir(r)
            .env("GENESIS_FAULT", format!("{n}:abort"))
            .args(["abort", "s"])
            .output()
            .unwrap();
        assert_ne!(code(&o), Some(0), "step {n} ({}) did not crash", all[n - 1]);
        let o = run_in(r, &["recover"]);
        assert_eq!(code(&o), Some(0), "step {n}: {}", stderr(&o));
        if !r.join(".genesis/journal/s.json").exists() && spelled(r) == dir_renamed() {
            // Crashed before the journal was durable: nothing changed; abort again.
            let o = run_in(r, &["abort", "s"]);
            assert_eq!(code(&o), Some(0), "step {n}: {}", stderr(&o));
        }
        assert_eq!(
            spelled(r),
            dir_original(),
            "crash at step {n} ({})",
            all[n - 1]
        );
        assert_check(r, &base_snapshot(r, "s"));
        ok(&run_in(r, &["recover"]));
        assert_eq!(spelled(r), dir_original());
    }
}

/// On a case-insensitive mount, an apply that adds `dir/new.txt` where only an ignored
/// `Dir/x.log` lives renames the directory to the recorded spelling (the ignored file moves
/// with it, as it is the same directory); a `restore` into a base directory spelled `Dir`
/// keeps that spelling (it deletes nothing there, so it respells nothing).
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn directory_spelling_of_an_apply_into_ignored_files_and_of_a_restore_on_a_case_insensitive_mount()
{
    let base = casefold_base();
    let d = tempfile::tempdir_in(&base).unwrap();
    let r = d.path();
    write_tree(
        r,
        &[
            ("genesis.json", MANIFEST),
            (".gitignore", b"*.log\n"),
            ("Dir/x.log", b"log\n"),
        ],
    );
    ok(&run_in(r, &["open", "--session", "s"]));
    ok(&patch_stdin(
        r,
        "s",
        b"diff --git a/dir/new.txt b/dir/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/dir/new.txt\n@@ -0,0 +1 @@\n+new\n",
    ));
    ok(&run_in(r, &["verify", "s"]));
    ok(&run_in(r, &["apply", "s"]));
    assert_eq!(
        spelled(r),
        [
            ".gitignore=*.log\n",
            "dir/",
            "dir/new.txt=new\n",
            "dir/x.log=log\n",
            &manifest_entry(),
        ]
    );
    assert_check(r, &current_snapshot(r, "s"));

    // Restore: the agent renamed Dir to dir in place and wrote an unrecorded file there.
    let d = tempfile::tempdir_in(&base).unwrap();
    let r = d.path();
    write_tree(r, DIR_TREE);
    ok(&run_in(r, &["open", "--session", "t", "--in-place"]));
    std::fs::rename(r.join("Dir"), r.join("dir")).unwrap();
    ok(&run_in(r, &["patch", "t"]));
    std::fs::write(r.join("dir/extra.txt"), b"unrecorded\n").unwrap();
    let o = run_in(r, &["abort", "t"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(spelled(r), dir_original());
    let o = run_in(r, &["restore", "t"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    let mut want = dir_original();
    want.push("Dir/extra.txt=unrecorded\n".to_owned());
    want.sort();
    assert_eq!(spelled(r), want);
}

/// Restore after the in-place abort of the agent's case-only renames on a case-insensitive
/// mount: `README.md` (and `dir/SUB/…`) opens the base's `readme.md` (`Dir/Sub/…`) that abort
/// put back, which is exactly as abort left it, so restore brings the agent's files back
/// spelled as saved, the base spelling gone (before the fix: exit 3 "README.md: changed since
/// it was saved"). Afterwards the tree hashes to the snapshot abort saved.
#[test]
#[ignore = "needs a case-insensitive mount named by GENESIS_CASEFOLD_DIR"]
fn restore_after_aborting_case_only_renames_on_a_case_insensitive_mount() {
    let base = casefold_base();
    let d = tempfile::tempdir_in(&base).unwrap();
    let r = d.path();
    write_tree(
        r,
        &[
            ("genesis.json", MANIFEST),
            ("readme.md", b"r\n"),
            ("Dir/Sub/a.txt", b"a\n"),
            ("Dir/Sub/b.txt", b"b\n"),
            ("Dir/top.txt", b"t\n"),
        ],
    );
    let original = spelled(r);
    ok(&run_in(r, &["open", "--session", "s", "--in-place"]));
    std::fs::rename(r.join("readme.md"), r.join("README.md")).unwrap();
    std::fs::rename(r.join("Dir"), r.join("dir")).unwrap();
    std::fs::rename(r.join("dir/Sub"), r.join("dir/SUB")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(r.join("README.md"))
        .unwrap();
    std::io::Write::write_all(&mut f, b"agent-edit\n").unwrap();
    drop(f);
    std::fs::write(r.join("dir/SUB/b.txt"), b"b\nagent\n").unwrap();
    let agent = spelled(r);
    let o = run_in(r, &["abort", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(spelled(r), original);
    let o = run_in(r, &["restore", "s"]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o),
        "wrote README.md\nwrote dir/SUB/a.txt\nwrote dir/SUB/b.txt\nwrote dir/top.txt\nwrote 4 file(s) into . (0 already there)\n"
    );
    assert_eq!(spelled(r), agent);
    assert_eq!(
        agent,
        [
            "README.md=r\nagent-edit\n",
            "dir/",
            "dir/SUB/",
            "dir/SUB/a.txt=a\n",
            "dir/SUB/b.txt=b\nagent\n",
            "dir/top.txt=t\n",
            &manifest_entry(),
        ]
    );
    let saved = session_doc_state_saved_snapshot(r, "s");
    assert_check(r, &saved);
}

/// The snapshot abort saved for session `s` (`saved.snapshot` in its state file).
fn session_doc_state_saved_snapshot(r: &std::path::Path, s: &str) -> String {
    let v: serde_json::Value = serde_json::from_slice(
        &std::fs::read(r.join(format!(".genesis/sessions/{s}.state"))).unwrap(),
    )
    .unwrap();
    v["saved"]["snapshot"].as_str().unwrap().to_owned()
}
