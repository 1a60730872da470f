//! Eight sessions on one workspace, applied from eight processes at once: the ones with
//! disjoint paths all land; of two that change the same file exactly one lands and the other
//! exits 3; the store is consistent afterwards.

mod common;

use std::process::{Command, Stdio};

use common::*;

#[test]
fn eight_sessions_applied_at_once() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let mut files: Vec<(String, Vec<u8>)> = (0..6)
        .map(|i| (format!("f{i}.txt"), format!("file {i}\n").into_bytes()))
        .collect();
    files.push(("shared.txt".into(), b"shared\n".to_vec()));
    files.push((
        "genesis.json".into(),
        br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#.to_vec(),
    ));
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_slice()))
        .collect();
    write_tree(r, &refs);
    for i in 0..8 {
        let id = format!("s{i}");
        ok(&run_in(r, &["open", "--session", &id]));
        let (path, old) = if i < 6 {
            (format!("f{i}.txt"), format!("file {i}"))
        } else {
            ("shared.txt".into(), "shared".into())
        };
        let diff = format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+changed by {id}\n");
        ok(&common::genesis()
            .current_dir(r)
            .args(["patch", &id, "-"])
            .write_stdin(diff.into_bytes())
            .output()
            .unwrap());
        ok(&run_in(r, &["verify", &id]));
    }
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let children: Vec<_> = (0..8)
        .map(|i| {
            Command::new(&bin)
                .current_dir(r)
                .args(["--wait", "60", "apply", &format!("s{i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let codes: Vec<(Option<i32>, String)> = children
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().unwrap();
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        })
        .collect();
    for (i, (code, err)) in codes.iter().enumerate().take(6) {
        assert_eq!(*code, Some(0), "s{i}: {err}");
        assert_eq!(
            std::fs::read_to_string(r.join(format!("f{i}.txt"))).unwrap(),
            format!("changed by s{i}\n")
        );
    }
    let shared: Vec<Option<i32>> = codes[6..].iter().map(|(c, _)| *c).collect();
    assert!(
        shared == [Some(0), Some(3)] || shared == [Some(3), Some(0)],
        "{codes:?}"
    );
    let winner = if shared[0] == Some(0) { "s6" } else { "s7" };
    let loser_err = if shared[0] == Some(0) {
        &codes[7].1
    } else {
        &codes[6].1
    };
    assert!(
        loser_err.contains("shared.txt: changed on disk since the session opened"),
        "{loser_err}"
    );
    assert_eq!(
        std::fs::read_to_string(r.join("shared.txt")).unwrap(),
        format!("changed by {winner}\n")
    );
    // The store: every object's content hashes to its name; every session document is valid.
    let mut objects = 0;
    for e in walkdir::WalkDir::new(r.join(".genesis/objects"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_file() {
            let name = format!(
                "{}{}",
                e.path()
                    .parent()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy(),
                e.file_name().to_string_lossy()
            );
            // Each object file is a zstd frame of the named content, or a packed tree object
            // (DESIGN section 3); the codec checks the content against the name.
            let file = std::fs::read(e.path()).unwrap();
            assert!(file.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) || file.starts_with(b"\x89GNP"));
            let content =
                genesis::store::codec::decode_bytes(file, &name.parse().unwrap()).unwrap();
            assert_eq!(genesis::Digest::of(&content).to_string(), name);
            objects += 1;
        }
    }
    assert!(objects > 8);
    for i in 0..8 {
        let p = r.join(format!(".genesis/sessions/s{i}.json"));
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        let (_, violations) = genesis::schema::validate_document(&v);
        assert!(violations.is_empty(), "s{i}: {violations:?}");
        let applied = i < 6 || format!("s{i}") == winner;
        assert_eq!(
            v["status"],
            if applied { "applied" } else { "open" },
            "s{i}"
        );
    }
    assert_eq!(
        std::fs::read_dir(r.join(".genesis/journal"))
            .unwrap()
            .count(),
        0
    );
}
