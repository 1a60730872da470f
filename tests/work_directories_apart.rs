//! Directories Genesis makes and empties lie apart from what it must not touch: a verify
//! `--workdir` outside the workspace and store, new or made by Genesis (its excluded build
//! cache survives the next run); a `--checkout` outside the store and the workspace.

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// The workspace's files besides the manifest.
const FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn workdir_must_be_apart_new_or_marked() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "w"]));
    for bad in [".", "keep", ".genesis", "..", "/"] {
        let o = run_in(r, &["verify", "w", "--workdir", bad]);
        assert_eq!(o.status.code(), Some(2), "--workdir {bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("must lie outside the workspace"),
            "{}",
            stderr(&o)
        );
    }
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("thesis.txt"), b"precious\n").unwrap();
    let o = run_in(
        r,
        &["verify", "w", "--workdir", other.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("was not made by Genesis"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(other.path().join("thesis.txt")).unwrap(),
        b"precious\n"
    );
    // A new directory works, and on the next run its excluded build cache survives while a
    // stray member file goes.
    let wd = other.path().join("wd");
    ok(&run_in(
        r,
        &["verify", "w", "--workdir", wd.to_str().unwrap()],
    ));
    std::fs::create_dir_all(wd.join("target")).unwrap();
    std::fs::write(wd.join("target/cache"), b"cache").unwrap();
    std::fs::write(wd.join("stray.txt"), b"x").unwrap();
    ok(&run_in(
        r,
        &["verify", "w", "--workdir", wd.to_str().unwrap()],
    ));
    assert_eq!(std::fs::read(wd.join("target/cache")).unwrap(), b"cache");
    assert!(!wd.join("stray.txt").exists());
    assert_eq!(std::fs::read(wd.join("a.txt")).unwrap(), b"a\n");
    // The workspace was never touched.
    assert_eq!(std::fs::read(r.join("keep/me.txt")).unwrap(), b"mine\n");
}

/// A verify whose checkout into a new `--workdir` stopped half way (here a blob missing from
/// the store, exit 4) has marked the directory already: the next verify syncs it instead of
/// refusing it as "not made by Genesis".
#[test]
fn a_workdir_left_half_written_is_taken_by_the_next_verify() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "w"]));
    let blob = genesis::hash::Digest::of(b"mine\n").to_string();
    let object = walkdir::WalkDir::new(r.join(".genesis"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_file() && e.path().to_string_lossy().ends_with(&blob[2..]))
        .expect("the blob of keep/me.txt is stored")
        .into_path();
    let other = tempfile::tempdir().unwrap();
    let aside = other.path().join("aside");
    std::fs::rename(&object, &aside).unwrap();
    let wd = other.path().join("wd");
    let o = run_in(r, &["verify", "w", "--workdir", wd.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(wd.join(".genesis-workdir")).unwrap(),
        genesis::engine::WORKDIR_TEXT
    );
    std::fs::rename(&aside, &object).unwrap();
    ok(&run_in(
        r,
        &["verify", "w", "--workdir", wd.to_str().unwrap()],
    ));
    assert_eq!(std::fs::read(wd.join("keep/me.txt")).unwrap(), b"mine\n");
    assert_eq!(std::fs::read(wd.join("a.txt")).unwrap(), b"a\n");
}

#[test]
fn checkout_inside_the_store_or_workspace_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["init"]));
    for bad in [".genesis/sessions", ".genesis/x", "sub"] {
        let o = run_in(r, &["open", "--session", "c", "--checkout", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
    }
    assert!(!r.join(".genesis/sessions/c.json").exists());
}

/// Verify's default scratch directory is made in `TMPDIR`: like `--workdir`, it must not lie
/// inside the workspace or the store. Refused with exit 2 naming TMPDIR, nothing made there
/// and nothing run; `TMPDIR` outside (or above) the workspace verifies.
#[test]
fn tmpdir_inside_the_workspace_or_store_is_refused() {
    let d = workspace(MANIFEST, FILES);
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "t"]));
    let before = identity(r);
    for inside in ["scratch", "keep", ".genesis/tmp"] {
        let tmp = r.join(inside);
        std::fs::create_dir_all(&tmp).unwrap();
        let listing = |p: &std::path::Path| {
            let mut v: Vec<_> = std::fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            v.sort();
            v
        };
        let had = listing(&tmp);
        let o = run_env(
            r,
            &["verify", "t"],
            &[("TMPDIR", tmp.display().to_string())],
        );
        assert_eq!(code(&o), Some(2), "TMPDIR={inside}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "genesis: error: {}: TMPDIR lies inside the workspace or the store, where verify would make its scratch directory; set TMPDIR to a directory outside both, or pass --workdir DIR\n",
                tmp.display()
            )
        );
        assert_eq!(listing(&tmp), had, "TMPDIR={inside}: something was made");
        assert!(session_doc(r, "t")["verification"].is_null());
    }
    std::fs::remove_dir(r.join("scratch")).unwrap();
    assert_eq!(identity(r), before);
    // Above the workspace (its parent) and elsewhere: the scratch directory is apart.
    let parent = r.parent().unwrap().display().to_string();
    ok(&run_env(r, &["verify", "t"], &[("TMPDIR", parent)]));
    let outside = tempfile::tempdir().unwrap();
    ok(&run_env(
        r,
        &["verify", "t"],
        &[("TMPDIR", outside.path().display().to_string())],
    ));
    assert_eq!(session_doc(r, "t")["verification"]["obligations_ok"], true);
    assert_eq!(identity(r), before);
}
