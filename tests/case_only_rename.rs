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
