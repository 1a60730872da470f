//! Differential checks of `genesis::patch::apply_patch` against the real `git apply`.
//!
//! The rule (issue 9, item 9): whenever `git apply` refuses a patch, Genesis refuses it; whenever
//! both accept it, the resulting files are byte for byte (and executable bit for bit) equal.
//! Genesis may refuse where git accepts (it moves a hunk only to an unambiguous place).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// A tree: path → (bytes, executable).
pub type Files = BTreeMap<String, (Vec<u8>, bool)>;

/// What `git apply` did with a patch on a tree: the files afterwards, or its error output.
pub fn git_apply(tree: &Files, patch: &[u8]) -> Result<Files, String> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("w");
    std::fs::create_dir_all(&root).unwrap();
    for (p, (data, exec)) in tree {
        let full = root.join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, data).unwrap();
        if *exec {
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let patch_file = tmp.path().join("change.diff");
    // One documented leniency (src/patch/mod.rs, "Hunks"): Genesis reads a patch text whose very
    // last line lacks its newline as if it had one; git calls that corrupt. git is given the text
    // as Genesis reads it.
    let mut text = patch.to_vec();
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    std::fs::write(&patch_file, &text).unwrap();
    let o = Command::new("git")
        .args(["apply", "--whitespace=nowarn"])
        .arg(format!("-p{}", strip_level(patch)))
        .arg(&patch_file)
        .current_dir(&root)
        .env("GIT_CEILING_DIRECTORIES", tmp.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", tmp.path())
        .output()
        .expect("git runs");
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(read_tree(&root))
}

/// The `-p` level that makes git read the names as Genesis does: 1, except for a plain diff (no
/// `diff --git` line) whose first `---`/`+++` names do not both carry the `a/`/`b/` prefixes (a
/// `/dev/null` side counts as carrying them) and are not a `diff -ruN OLD NEW` pair (first
/// components different, the rest equal): Genesis takes those names as written, like `-p0`
/// (`src/patch/mod.rs`, "plain unified diffs").
pub fn strip_level(patch: &[u8]) -> u32 {
    let lines: Vec<&[u8]> = patch.split(|&b| b == b'\n').collect();
    if lines.iter().any(|l| l.starts_with(b"diff --git ")) {
        return 1;
    }
    let name = |l: &[u8]| -> Vec<u8> {
        let l = &l[4..];
        let end = l.iter().position(|&b| b == b'\t').unwrap_or(l.len());
        let n = &l[..end];
        n.strip_prefix(b"\"").unwrap_or(n).to_vec()
    };
    for w in lines.windows(2) {
        if w[0].starts_with(b"--- ") && w[1].starts_with(b"+++ ") {
            let (old, new) = (name(w[0]), name(w[1]));
            let carries = |n: &[u8], prefix: &[u8]| n == b"/dev/null" || n.starts_with(prefix);
            // `diff -ruN OLD/x NEW/x`: first components differ, the rest is the same.
            let split = |n: &[u8]| {
                let at = n.iter().position(|&b| b == b'/')?;
                Some((n[..at].to_vec(), n[at..].to_vec()))
            };
            let dir_pair = match (split(&old), split(&new)) {
                (Some((od, or)), Some((nd, nr))) => od != nd && or == nr && old != b"/dev/null",
                _ => false,
            };
            return u32::from(dir_pair || (carries(&old, b"a/") && carries(&new, b"b/")));
        }
    }
    1
}

/// Every regular file under `root` (relative `/`-separated paths).
pub fn read_tree(root: &Path) -> Files {
    let mut out = Files::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else if meta.is_file() {
                let rel = e
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let exec = meta.permissions().mode() & 0o111 != 0;
                out.insert(rel, (std::fs::read(e.path()).unwrap(), exec));
            }
        }
    }
    out
}

/// How Genesis and git compare on one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agreement {
    /// Both accepted, with equal results.
    BothAccept,
    /// Both refused.
    BothRefuse,
    /// git accepted, Genesis refused (allowed).
    OnlyGitAccepts,
    /// Genesis accepted what git refuses (a defect).
    OnlyGenesisAccepts(String),
    /// Both accepted, with different results (a defect); the first differing path.
    Different(String),
}

impl Agreement {
    /// Whether this is one of the two defects.
    pub fn is_defect(&self) -> bool {
        matches!(
            self,
            Agreement::OnlyGenesisAccepts(_) | Agreement::Different(_)
        )
    }
}

/// Compares Genesis's result on `tree` (the files afterwards, or its error message) with
/// `git apply`'s.
pub fn compare(tree: &Files, patch: &[u8], genesis: &Result<Files, String>) -> Agreement {
    match (genesis, git_apply(tree, patch)) {
        (Err(_), Err(_)) => Agreement::BothRefuse,
        (Err(_), Ok(_)) => Agreement::OnlyGitAccepts,
        (Ok(_), Err(git)) => Agreement::OnlyGenesisAccepts(git),
        (Ok(ours), Ok(theirs)) => {
            if *ours == theirs {
                Agreement::BothAccept
            } else {
                let path = ours
                    .iter()
                    .find(|(p, v)| theirs.get(*p) != Some(*v))
                    .map(|(p, _)| p.clone())
                    .or_else(|| theirs.keys().find(|p| !ours.contains_key(*p)).cloned())
                    .unwrap_or_default();
                Agreement::Different(path)
            }
        }
    }
}
