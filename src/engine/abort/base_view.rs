//! The tree abort changes, judged with the **base's** rules (issue 9: nothing lost, nothing
//! wrongly refused).
//!
//! Abort snapshots the tree it changes with the snapshot rules of the moment. Two kinds of
//! files the agent wrote escape that snapshot although the base's rules count them:
//!
//! - files hidden by an ignore rule the agent added (`echo /out/ >> .gitignore`): judged with
//!   the base's ignore files they are additions, saved and removed like any other;
//! - files over the manifest's `max_file_bytes`, when it sets one (there is no default size
//!   limit, DESIGN section 2): the limit is for snapshots, not for what abort saves; they are
//!   streamed into the store.
//!
//! [`base_view`] walks the tree with the base's rules (the manifest's `exclude`, the base
//! snapshot's `.gitignore`/`.genesisignore` files, the base's tracked members) and returns
//! those files, and the exclude globs that keep the snapshot of the moment to what both rules
//! count and within the size limit (so a huge file or a directory the agent un-ignored never
//! blocks the abort).

use std::collections::BTreeSet;
use std::path::Path;

use super::AbortError;
use crate::diff::Tree;
use crate::engine::Engine;
use crate::path::WorkspacePath;

/// What [`base_view`] found.
pub(super) struct BaseView {
    /// Exclude globs (anchored, literal) to add to the snapshot of the moment: every directory
    /// the base's rules leave out whole, and every file over the size limit.
    pub(super) excludes: Vec<String>,
    /// Every regular file the base's rules count, sorted by path.
    pub(super) files: Vec<WorkspacePath>,
}

/// `path` as an anchored gitignore glob matching only itself (`/` + each of `\*?[]!# ` escaped).
fn literal_glob(path: &str, dir: bool) -> String {
    let mut g = String::with_capacity(path.len() + 2);
    g.push('/');
    for ch in path.chars() {
        if matches!(ch, '\\' | '*' | '?' | '[' | ']' | '!' | '#' | ' ') {
            g.push('\\');
        }
        g.push(ch);
    }
    if dir {
        g.push('/');
    }
    g
}

/// Walks `dir` (the workspace of an in-place session) with the base's rules; see the module
/// docs. Links, special files and names that are not valid workspace paths are not followed
/// or listed (the snapshot of the moment reports or refuses them as usual); `.git`, the
/// top-level `.genesis` and the store are never entered.
///
/// # Errors
/// A base ignore file that cannot be read from the store (exit 4); the tracked set's errors.
pub(super) fn base_view(
    engine: &Engine,
    dir: &Path,
    base: &Tree,
    state: &crate::session::SessionState,
    manifest: &crate::manifest::Manifest,
    max_file_bytes: u64,
) -> Result<BaseView, AbortError> {
    let mut rules = crate::membership::Rules::new(&manifest.exclude);
    for f in base.snapshot.files() {
        let name = f.path.file_name();
        if name == ".gitignore" || name == ".genesisignore" {
            let d = f.path.parent().map(|p| p.to_string()).unwrap_or_default();
            rules.add_ignore_file(&d, name, &engine.store().read_object(&f.blob)?);
        }
    }
    let tracked = engine.base_tracked(state)?;
    let store = crate::path::absolute_resolved(engine.workspace().store_dir());
    let root = crate::path::absolute_resolved(dir);
    let mut excludes = Vec::new();
    let mut files = Vec::new();
    let mut it = walkdir::WalkDir::new(&root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = it.next() {
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        let ft = entry.file_type();
        let Some(rel) = entry
            .path()
            .strip_prefix(&root)
            .ok()
            .and_then(|r| r.to_str())
            .map(str::to_owned)
        else {
            if ft.is_dir() {
                it.skip_current_dir();
            }
            continue;
        };
        let name = entry.file_name();
        if ft.is_dir() {
            let skip = name == ".git"
                || (entry.depth() == 1 && name == ".genesis")
                || entry.path() == store;
            if skip {
                it.skip_current_dir();
                continue;
            }
            let comps: Vec<&str> = rel.split('/').collect();
            let prefix = format!("{rel}/");
            if rules
                .decide(&comps[..comps.len() - 1], &rel, true, false)
                .is_some()
                && !tracked.iter().any(|t| t.starts_with(&prefix))
            {
                excludes.push(literal_glob(&rel, true));
                it.skip_current_dir();
            }
            continue;
        }
        if !ft.is_file() || name == ".git" {
            continue;
        }
        let Ok(path) = WorkspacePath::new(&rel) else {
            continue;
        };
        if rules.left_out(&rel, tracked.contains(&rel)).is_some() {
            continue;
        }
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if size > max_file_bytes {
            excludes.push(literal_glob(&rel, false));
        }
        files.push(path);
    }
    files.sort();
    Ok(BaseView { excludes, files })
}

/// The paths of `view` that the snapshot `now` does not hold (hidden by a rule of the moment,
/// or over the size limit), sorted.
pub(super) fn missing_from(
    view: &BaseView,
    now: &crate::snapshot::Snapshot,
) -> BTreeSet<WorkspacePath> {
    view.files
        .iter()
        .filter(|p| now.get(p.as_str()).is_none())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::literal_glob;

    #[test]
    fn literal_globs_escape_every_special_character() {
        assert_eq!(literal_glob("out", true), "/out/");
        assert_eq!(
            literal_glob("a b/[x]*?.txt", false),
            "/a\\ b/\\[x\\]\\*\\?.txt"
        );
        assert_eq!(literal_glob("#n/!m\\", false), "/\\#n/\\!m\\\\");
    }
}
