//! Which files a snapshot holds, on edge-case trees: hidden files kept, ignore rules applied
//! (never through a link, never from above the root), `.git`, the store, links and special
//! files left out, names that cannot be paths refused, the file count and size limits; exact
//! paths, hashes, messages and exit statuses.

mod common;

use std::os::unix::ffi::OsStrExt;

use common::*;

#[test]
fn hidden_files_are_included_with_exact_hashes() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[(".hidden", b"h\n"), ("a.txt", b"a\n"), (".dir/x", b"x")],
    );
    let doc = snapshot_doc(d.path());
    assert_eq!(snapshot_paths(&doc), [".dir/x", ".hidden", "a.txt"]);
    // sha256("a\n")
    assert_eq!(
        doc["files"][2]["blob"],
        "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"
    );
    assert_eq!(
        doc["identity"].as_str().unwrap(),
        python_identity(&doc.to_string())
    );
}

#[test]
fn gitignore_is_honoured_without_a_git_directory() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            (".gitignore", b"*.log\nbuild/\n!keep.log\n"),
            ("keep.txt", b"k"),
            ("x.log", b"l"),
            ("keep.log", b"kept by negation"),
            ("build/out.bin", b"o"),
            ("sub/y.log", b"y"),
            ("sub/.gitignore", b"local\n"),
            ("sub/local", b"ignored by nested file"),
            ("sub/other", b"o"),
            (".genesisignore", b"secret.txt\n"),
            ("secret.txt", b"s"),
        ],
    );
    let doc = snapshot_doc(d.path());
    assert_eq!(
        snapshot_paths(&doc),
        [
            ".genesisignore",
            ".gitignore",
            "keep.log",
            "keep.txt",
            "sub/.gitignore",
            "sub/other"
        ]
    );
}

#[test]
fn gitignore_above_the_root_is_not_read() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[(".gitignore", b"*.txt\n"), ("ws/a.txt", b"a")]);
    let doc = snapshot_doc(&d.path().join("ws"));
    assert_eq!(snapshot_paths(&doc), ["a.txt"]);
}

#[test]
fn git_directories_are_never_included() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            (".git/config", b"[core]\n"),
            (".git/objects/ab/cd", b"x"),
            ("sub/.git/HEAD", b"ref"),
            ("sub/file", b"f"),
            (".gitmodules", b""),
        ],
    );
    let doc = snapshot_doc(d.path());
    assert_eq!(snapshot_paths(&doc), [".gitmodules", "sub/file"]);
}

#[test]
fn store_directory_is_left_out() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("a", b"a")]);
    let o = run_in(d.path(), &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run_in(d.path(), &["snapshot", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(snapshot_paths(&v["snapshot"]), ["a", "genesis.json"]);
    assert_eq!(v["stored"], true);
    assert_eq!(v["blobs_added"], 2);
    // The same tree, hashed purely, has the same identity.
    let pure = snapshot_doc(d.path());
    assert_eq!(pure["identity"], v["identity"]);
}

#[test]
fn symlinks_fifos_are_left_out_and_reported() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(
        r,
        &[(".gitignore", b"build/\ncache\n"), ("real/f.txt", b"f\n")],
    );
    // A directory-only ignore pattern does not match a symlink (git's rule): reported.
    std::os::unix::fs::symlink("real", r.join("build")).unwrap();
    // A plain pattern matches the link itself: ignored silently.
    std::os::unix::fs::symlink("real", r.join("cache")).unwrap();
    std::os::unix::fs::symlink("does-not-exist", r.join("dangling")).unwrap();
    let fifo = r.join("pipe");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);

    let o = run_in(r, &["snapshot", "--no-store", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(snapshot_paths(&v["snapshot"]), [".gitignore", "real/f.txt"]);
    assert_eq!(
        v["skipped"],
        serde_json::json!([
            {"path": "build", "reason": "symlink"},
            {"path": "dangling", "reason": "symlink"},
            {"path": "pipe", "reason": "fifo"},
        ])
    );
    assert_eq!(
        stderr(&o),
        "genesis: skipped build: symbolic link (not followed)\n\
         genesis: skipped dangling: symbolic link (not followed)\n\
         genesis: skipped pipe: FIFO\n"
    );
}

#[test]
fn non_utf8_name_is_an_error_unless_ignored() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("ok", b"o")]);
    let bad = std::ffi::OsStr::from_bytes(b"bad-\xff.txt");
    std::fs::write(r.join(bad), b"x").unwrap();
    let o = run_in(r, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad-\u{fffd}.txt: file name is not valid UTF-8"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    std::fs::write(r.join(".genesisignore"), b"bad-*\n").unwrap();
    let doc = snapshot_doc(r);
    assert_eq!(snapshot_paths(&doc), [".genesisignore", "ok"]);
}

#[test]
fn backslash_in_a_name_is_an_error_naming_it() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("a\\b", b"x")]);
    let o = run_in(d.path(), &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("backslash is not allowed"),
        "{}",
        stderr(&o)
    );
}

/// 4096 files keep the v0.1 document and identity; the 4097th makes the tree v0.2 (no limit);
/// only a manifest's `limits.max_files` refuses a count.
#[test]
fn file_count_past_4096_is_v0_2_and_only_the_manifest_limits_it() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..4096 {
        std::fs::write(d.path().join(format!("f{i:04}")), b"").unwrap();
    }
    let files = |n: usize| -> Vec<genesis::snapshot::SnapshotFile> {
        let mut v: Vec<genesis::snapshot::SnapshotFile> = (0..n)
            .map(|i| genesis::snapshot::SnapshotFile {
                path: if i < 4096 {
                    format!("f{i:04}")
                } else {
                    "one-more".to_owned()
                }
                .parse()
                .unwrap(),
                blob: genesis::hash::Digest::EMPTY,
                bytes: 0,
            })
            .collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    };
    let o = run_in(d.path(), &["snapshot", "--no-store", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v01 = genesis::snapshot::snapshot_identity(&files(4096));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{v01}\n"));
    std::fs::write(d.path().join("one-more"), b"").unwrap();
    let o = run_in(d.path(), &["snapshot", "--no-store", "--identity"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v02 = genesis::tree::build(&files(4097), &Default::default(), None).root;
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{v02}\n"));
    std::fs::write(
        d.path().join("genesis.json"),
        r#"{"schema":"genesis/manifest-v0.1","obligations":[],"limits":{"max_files":4097}}"#,
    )
    .unwrap();
    let o = run_in(d.path(), &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: 4098 files found, more than the limit of 4097; leave paths out with \
         .genesisignore or the manifest's \"exclude\"\n"
    );
}

/// The walk stops once the limit is passed, on whichever thread gets there first: the count
/// it reports is the first past the limit, the same every time (it was the count of the files
/// found by then, which varied from run to run).
#[test]
fn the_count_past_the_limit_is_the_same_every_run() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..35 {
        let dir = d.path().join(format!("d{}", i % 7));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{i}")), b"x").unwrap();
    }
    let opts = genesis::snapshot::SnapshotOptions {
        max_files: 10,
        ..Default::default()
    };
    for _ in 0..20 {
        let e = genesis::snapshot::snapshot_dir(d.path(), &opts).unwrap_err();
        assert_eq!(
            e.to_string(),
            "11 files found, more than the limit of 10; leave paths out with .genesisignore or \
             the manifest's \"exclude\""
        );
    }
}

/// No default size limit (issue 11): a file of exactly 268435456 bytes keeps the v0.1
/// document; one byte more makes the tree v0.2; only the manifest's `limits.max_file_bytes`
/// refuses a file, naming it (exit 2). The files are sparse (`set_len`): no disk used.
#[test]
fn file_over_256_mib_is_v0_2_and_only_the_manifest_limits_it() {
    let d = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(d.path().join("huge.bin")).unwrap();
    f.set_len(268_435_456).unwrap();
    let doc = snapshot_doc(d.path());
    assert_eq!(doc["schema"], "genesis/workspace-snapshot-v0.1");
    assert_eq!(doc["files"][0]["bytes"], 268_435_456u64);
    f.set_len(268_435_457).unwrap();
    let o = run_in(d.path(), &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listing: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(listing["schema"], "genesis/tree-v0.2");
    assert_eq!(listing["files"][0]["bytes"], 268_435_457u64);
    // 268435457 zero bytes (`head -c 268435457 /dev/zero | sha256sum`).
    assert_eq!(
        listing["files"][0]["blob"],
        "da6ce8755151acd05195db67ebce3ee0fb5f4012e71e821cc5750f3304eaf41e"
    );
    std::fs::write(
        d.path().join("genesis.json"),
        r#"{"schema":"genesis/manifest-v0.1","obligations":[],"limits":{"max_file_bytes":268435456}}"#,
    )
    .unwrap();
    let o = run_in(d.path(), &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: huge.bin: 268435457 bytes, more than the limit of 268435456 bytes per \
         file; leave it out with .genesisignore or the manifest's \"exclude\"\n",
    );
}

#[test]
fn empty_file_has_the_empty_blob() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("empty", b"")]);
    let doc = snapshot_doc(d.path());
    assert_eq!(
        doc["files"],
        serde_json::json!([{
            "path": "empty",
            "blob": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "bytes": 0
        }])
    );
    assert_eq!(
        doc["identity"],
        "c9ff50692a46019c44eb8cf8c6c1a39639b6c8c4723db2ad35510d643680187a"
    );
}

#[test]
fn manifest_exclude_globs_apply() {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","exclude":["*.tmp","target/"]}"#,
            ),
            ("a.tmp", b"t"),
            ("target/debug/x", b"x"),
            ("src/lib.rs", b"l"),
        ],
    );
    let doc = snapshot_doc(d.path());
    assert_eq!(snapshot_paths(&doc), ["genesis.json", "src/lib.rs"]);
}

#[test]
fn symlinked_ignore_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    std::fs::write(&outside, b"*.log\n").unwrap();
    let r = d.path().join("ws");
    write_tree(&r, &[("a.log", b"x")]);
    std::os::unix::fs::symlink(&outside, r.join(".gitignore")).unwrap();
    let o = run_in(&r, &["snapshot", "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(".gitignore: ignore files must be regular files"),
        "{}",
        stderr(&o)
    );
}
