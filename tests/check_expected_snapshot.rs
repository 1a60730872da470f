//! `genesis check`: exit 0 when a tree hashes to the expected identity or document, exit 1
//! with the differing paths otherwise.

mod common;

use common::*;

#[test]
fn check_matches_and_lists_differences() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("a", b"a"), ("b", b"b")]);
    let doc = stdout(&run_in(r, &["snapshot", "--no-store"]));
    let expect_file = d.path().join("..").join(format!(
        "expected-{}.json",
        r.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&expect_file, &doc).unwrap();
    let id = serde_json::from_str::<serde_json::Value>(&doc).unwrap()["identity"]
        .as_str()
        .unwrap()
        .to_owned();
    let o = run_in(r, &["check", "--expect", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(r.join("a"), b"changed").unwrap();
    std::fs::remove_file(r.join("b")).unwrap();
    std::fs::write(r.join("c"), b"new").unwrap();
    let o = run_in(
        r,
        &["check", "--json", "--expect", expect_file.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["match"], false);
    assert_eq!(
        v["differences"],
        serde_json::json!([
            {"status": "M", "path": "a"},
            {"status": "D", "path": "b"},
            {"status": "A", "path": "c"}
        ])
    );
    std::fs::remove_file(&expect_file).unwrap();
    let o = run_in(r, &["check", "--expect", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}

/// 41 directories of 100 files: 4100 files, past the v0.1 limit of 4096 (a v0.2 tree).
fn big_tree(root: &std::path::Path) {
    for d in 0..41 {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}.txt")), format!("{d} {f}\n")).unwrap();
        }
    }
}

/// Whatever `genesis snapshot` prints (`--json` or not, with or without `--identity`) is taken
/// by `check --expect FILE`, for a v0.1 tree and a v0.2 one (past 4096 files), with a store
/// and without; a v0.2 listing's executable bits are compared (they are in its identity).
#[test]
fn check_takes_every_snapshot_output_of_v0_1_and_v0_2_trees() {
    use std::os::unix::fs::PermissionsExt;
    for big in [false, true] {
        let d = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let r = d.path();
        if big {
            big_tree(r);
        } else {
            write_tree(r, &[("d0/f0.txt", b"0 0\n"), ("b", b"b")]);
        }
        let id = stdout(&run_in(r, &["snapshot", "--identity", "--no-store"]));
        let id = id.trim_end();
        for (name, args) in [
            ("plain", &["snapshot", "--no-store"][..]),
            ("json", &["--json", "snapshot", "--no-store"][..]),
            (
                "json-id",
                &["--json", "snapshot", "--identity", "--no-store"][..],
            ),
        ] {
            let o = run_in(r, args);
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
            let file = out.path().join(name);
            std::fs::write(&file, &o.stdout).unwrap();
            let o = run_in(r, &["check", "--expect", file.to_str().unwrap()]);
            assert_eq!(code(&o), Some(0), "big {big} {name}: {}", stderr(&o));
            assert_eq!(stdout(&o), format!("ok: . matches {id}\n"));
            let o = run_in(r, &["validate", file.to_str().unwrap()]);
            assert_eq!(code(&o), Some(0), "big {big} {name}: {}", stdout(&o));
        }
        // A mode-only change: a v0.2 listing's bits are part of its identity.
        let f = r.join("d0/f0.txt");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        let o = run_in(
            r,
            &[
                "--json",
                "check",
                "--expect",
                out.path().join("json").to_str().unwrap(),
            ],
        );
        if big {
            assert_eq!(code(&o), Some(1), "{}", stderr(&o));
            assert_eq!(
                json_out(&o)["differences"],
                serde_json::json!([{"status": "M", "path": "d0/f0.txt"}])
            );
        } else {
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        }
        // A listing whose files do not give its identity is refused, naming the field.
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.path().join("plain")).unwrap()).unwrap();
        v["identity"] = serde_json::json!("0".repeat(64));
        let bad = out.path().join("bad");
        std::fs::write(&bad, v.to_string()).unwrap();
        let o = run_in(r, &["check", "--expect", bad.to_str().unwrap()]);
        assert_eq!(code(&o), Some(2));
        assert!(
            stderr(&o).contains(&format!(
                ": field /identity: stated {}, but the files hash to {id}",
                "0".repeat(64)
            )),
            "{}",
            stderr(&o)
        );
        let o = run_in(r, &["validate", "--json", bad.to_str().unwrap()]);
        assert_eq!(code(&o), Some(1));
        let v = json_out(&o);
        assert_eq!(v["files"][0]["violations"][0]["pointer"], "/identity");
        assert_eq!(
            v["files"][0]["kind"],
            if big { "tree-listing" } else { "snapshot" }
        );
    }
}
