//! Real input nobody here wrote: the crate sources cargo downloaded for this build.
//!
//! Each tree is snapshotted by the `genesis` binary; every blob is checked against `sha256sum`,
//! every size against the file system, the identity against Python's independent
//! canonicalisation, and (for trees with no ignore files) the membership against a plain walk.
//! A plain `cargo test` checks every eighth tree; `GENESIS_EXHAUSTIVE=1` (as `.ci/run`) all.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::*;

fn registry_trees() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let mut out = Vec::new();
    for index in std::fs::read_dir(home.join("registry/src")).expect("cargo registry sources exist")
    {
        let index = index.unwrap().path();
        for krate in std::fs::read_dir(&index).unwrap() {
            out.push(krate.unwrap().path());
        }
    }
    out.sort();
    out
}

fn plain_walk(root: &Path) -> (BTreeSet<String>, bool) {
    let mut files = BTreeSet::new();
    let mut has_ignore_files = false;
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
    {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy();
        if name == ".gitignore" || name == ".genesisignore" {
            has_ignore_files = true;
        }
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap();
            files.insert(rel.to_str().unwrap().to_owned());
        }
    }
    (files, has_ignore_files)
}

fn sha256sum(root: &Path, paths: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for chunk in paths.chunks(500) {
        let o = std::process::Command::new("sha256sum")
            .arg("--")
            .args(chunk)
            .current_dir(root)
            .output()
            .expect("sha256sum runs");
        assert!(o.status.success());
        for line in String::from_utf8(o.stdout).unwrap().lines() {
            let (hash, path) = line.split_once("  ").unwrap();
            out.insert(path.to_owned(), hash.to_owned());
        }
    }
    out
}

#[test]
fn registry_sources_match_sha256sum_and_python() {
    let trees = registry_trees();
    assert!(
        trees.len() >= 20,
        "expected the crates of this build, found {}",
        trees.len()
    );
    // Every tree with GENESIS_EXHAUSTIVE=1 (.ci/run); every eighth in a plain run.
    let trees = sample_items(trees, 8);
    let (mut checked_trees, mut checked_files, mut exact_membership) = (0, 0, 0);
    for root in &trees {
        let (walked, has_ignore) = plain_walk(root);
        if walked.len() > 4096 || walked.iter().any(|p| p.contains('\\') || p.contains('\n')) {
            continue;
        }
        let o = run_in(root, &["snapshot", "--no-store", "--json"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            root.display(),
            stderr(&o)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let doc = &v["snapshot"];
        let files = doc["files"].as_array().unwrap();
        let paths: Vec<String> = files
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect();
        let sums = sha256sum(root, &paths);
        for f in files {
            let p = f["path"].as_str().unwrap();
            assert_eq!(
                f["blob"].as_str().unwrap(),
                sums[p],
                "{}/{p}",
                root.display()
            );
            let len = std::fs::metadata(root.join(p)).unwrap().len();
            assert_eq!(f["bytes"].as_u64().unwrap(), len, "{}/{p}", root.display());
        }
        let mut sorted = paths.clone();
        sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        assert_eq!(
            paths,
            sorted,
            "{}: files sorted by UTF-8 bytes",
            root.display()
        );
        assert_eq!(
            doc["identity"].as_str().unwrap(),
            python_identity(&doc.to_string()),
            "{}",
            root.display()
        );
        let found: BTreeSet<String> = paths.iter().cloned().collect();
        assert!(found.is_subset(&walked), "{}", root.display());
        if !has_ignore {
            assert_eq!(found, walked, "{}: membership", root.display());
            exact_membership += 1;
        }
        checked_trees += 1;
        checked_files += files.len();
    }
    eprintln!(
        "checked {checked_trees} crate trees, {checked_files} files, exact membership on {exact_membership}"
    );
    assert!(checked_trees >= 20);
}
