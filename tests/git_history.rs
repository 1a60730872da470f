//! Real history: this repository's own commits.
//!
//! For up to the last 30 commits on the first-parent line (5 in a plain `cargo test`, 30
//! with `GENESIS_EXHAUSTIVE=1`), each commit is exported with `git archive`, and for each
//! consecutive pair: `genesis diff --name-status` lists exactly the paths `git diff
//! --name-status --no-renames` lists, and `git apply` of the `genesis diff` output on the
//! parent's tree reproduces the child's identity, and so does GNU `patch -p1` when the diff
//! has no binary patch.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// How many commits back the history goes: 31 (30 pairs) with `GENESIS_EXHAUSTIVE=1`, as
/// `.ci/run` sets; 6 (5 pairs) in a plain `cargo test`.
fn depth() -> &'static str {
    if exhaustive() { "31" } else { "6" }
}

fn export(commit: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let archive = Command::new("git")
        .args(["archive", "--format=tar", commit])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(archive.status.success());
    let mut tar = Command::new("tar")
        .args(["-x", "-C"])
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    tar.stdin
        .take()
        .unwrap()
        .write_all(&archive.stdout)
        .unwrap();
    assert!(tar.wait().unwrap().success());
}

#[test]
fn diff_between_consecutive_commits_matches_git() {
    let commits: Vec<String> = git(
        &repo_root(),
        &["rev-list", "--first-parent", "-n", depth(), "HEAD"],
    )
    .lines()
    .rev()
    .map(str::to_owned)
    .collect();
    assert!(!commits.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    for c in &commits {
        export(c, &tmp.path().join(c));
    }
    let mut pairs = 0;
    let mut gnu_pairs = 0;
    for pair in commits.windows(2) {
        let (parent, child) = (&pair[0], &pair[1]);
        let (pdir, cdir) = (tmp.path().join(parent), tmp.path().join(child));
        let ours = run_in(tmp.path(), &["diff", "--name-status", parent, child]);
        assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
        let theirs = git(
            &repo_root(),
            &["diff", "--name-status", "--no-renames", parent, child],
        );
        assert_eq!(stdout(&ours), theirs, "{parent}..{child}");

        let patch = run_in(tmp.path(), &["diff", parent, child]);
        assert_eq!(patch.status.code(), Some(0));
        let work = tmp.path().join(format!("apply-{child}"));
        let cp = Command::new("cp")
            .arg("-a")
            .arg(&pdir)
            .arg(&work)
            .status()
            .unwrap();
        assert!(cp.success());
        let patch_file = tmp.path().join(format!("{child}.diff"));
        std::fs::write(&patch_file, &patch.stdout).unwrap();
        let applied = Command::new("git")
            .args(["apply", "--binary", "--whitespace=nowarn"])
            .arg(&patch_file)
            .current_dir(&work)
            .env("GIT_CEILING_DIRECTORIES", tmp.path())
            .output()
            .unwrap();
        assert!(
            applied.status.success(),
            "git apply {parent}..{child}: {}",
            String::from_utf8_lossy(&applied.stderr)
        );
        assert_eq!(identity(&work), identity(&cdir), "{parent}..{child}");
        // GNU patch applies the same text too (it has no binary patches; issue 9, item 8).
        if !patch.stdout.windows(17).any(|w| w == b"GIT binary patch\n") {
            let work = tmp.path().join(format!("gnu-patch-{child}"));
            let cp = Command::new("cp")
                .arg("-a")
                .arg(&pdir)
                .arg(&work)
                .status()
                .unwrap();
            assert!(cp.success());
            let applied = Command::new("patch")
                .args(["-p1", "-f", "-s", "--no-backup-if-mismatch", "-i"])
                .arg(&patch_file)
                .current_dir(&work)
                .output()
                .expect("GNU patch runs (.ci/run installs it)");
            assert_eq!(
                applied.status.code(),
                Some(0),
                "patch -p1 {parent}..{child}: {}{}",
                String::from_utf8_lossy(&applied.stdout),
                String::from_utf8_lossy(&applied.stderr)
            );
            assert_eq!(
                identity(&work),
                identity(&cdir),
                "patch -p1 {parent}..{child}"
            );
            gnu_pairs += 1;
        }
        pairs += 1;
    }
    eprintln!("checked {pairs} commit pairs, {gnu_pairs} of them with GNU patch too");
    assert!(gnu_pairs > 0 || pairs == 0);
}

const HISTORY_MANIFEST: &str = r#"{
  "schema": "genesis/manifest-v0.1",
  "obligations": [
    {"id": "json-parses", "run": ["python3", "-c", "import glob, json\nfor f in glob.glob('**/*.json', recursive=True):\n    json.load(open(f, encoding='utf-8'))"], "timeout_s": 60},
    {"id": "manifest-present", "run": ["sh", "-c", "test -s Cargo.toml"], "timeout_s": 10}
  ]
}
"#;

/// Each commit, end to end: open a session on the parent, record `git diff --binary PARENT
/// COMMIT`, verify, apply; the workspace then matches git's own checkout of the commit, and
/// `genesis replay` reproduces every after_snapshot.
#[test]
fn every_commit_goes_through_a_session() {
    let commits: Vec<String> = git(
        &repo_root(),
        &["rev-list", "--first-parent", "-n", depth(), "HEAD"],
    )
    .lines()
    .rev()
    .map(str::to_owned)
    .collect();
    let tmp = tempfile::tempdir().unwrap();
    let mut sessions = 0;
    for pair in commits.windows(2) {
        let (parent, child) = (&pair[0], &pair[1]);
        let ws = tmp.path().join(format!("ws-{child}"));
        export(parent, &ws);
        std::fs::write(ws.join("genesis.json"), HISTORY_MANIFEST).unwrap();
        let o = run_in(&ws, &["open", "--session", "history"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let diff = git(&repo_root(), &["diff", "--binary", parent, child]);
        let o = common::genesis()
            .current_dir(&ws)
            .args(["patch", "history", "-"])
            .write_stdin(diff.into_bytes())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{parent}..{child}: {}",
            stderr(&o)
        );
        let o = run_in(&ws, &["verify", "history"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{parent}..{child}: {}",
            stderr(&o)
        );
        let o = run_in(&ws, &["apply", "history"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{parent}..{child}: {}",
            stderr(&o)
        );
        // git's own checkout of the commit, with the same manifest added.
        let theirs = tmp.path().join(format!("git-{child}"));
        export(child, &theirs);
        std::fs::write(theirs.join("genesis.json"), HISTORY_MANIFEST).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(
            &std::fs::read(ws.join(".genesis/sessions/history.json")).unwrap(),
        )
        .unwrap();
        let current = doc["current_snapshot"].as_str().unwrap();
        assert_eq!(doc["status"], "applied");
        let o = run_in(
            tmp.path(),
            &["check", theirs.to_str().unwrap(), "--expect", current],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{parent}..{child}: {}",
            stdout(&o)
        );
        let o = run_in(&ws, &["replay", "history"]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        sessions += 1;
    }
    eprintln!("took {sessions} commits through a session");
}
