//! Writing a session's changes into the workspace.
//!
//! Preconditions ([`check_preconditions`]): compare-and-swap per path. Every path the session
//! changes must still hold its base content on disk (a regular file with the base blob and
//! executable bit, or nothing where the base had nothing), and no directory on the way to it
//! may be a symbolic link.
//!
//! Writing ([`write_changes`]), in phases so that a failure before phase 3 leaves the
//! workspace untouched:
//! 1. stage every new file as a temp file in its target directory (or the root when that
//!    directory does not exist yet), write it from the store, set its mode, `fsync` it;
//! 2. delete removed files, then the directories they leave empty;
//! 3. create missing directories (never through a link) and rename each staged file into place;
//! 4. `fsync` every touched directory.
//!
//! The crash-proof journal around phases 2–4 comes with `genesis recover`.

use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::diff::{Change, Status};
use crate::engine::EngineError;
use crate::snapshot::hash_file;
use crate::store::{Store, fsync_dir};

/// Checks that each changed path still holds its base state. Returns the conflicts, sorted,
/// each `(path, reason)`; empty when the apply may go ahead.
pub fn check_preconditions(root: &Path, list: &[Change]) -> Vec<(String, String)> {
    let deleted: BTreeSet<&str> = list
        .iter()
        .filter(|c| c.status == Status::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    let mut out = Vec::new();
    for c in list {
        let p = c.path.as_str();
        // Directories on the way must be real directories (or a file this apply deletes).
        let comps: Vec<&str> = c.path.components().collect();
        let mut cur = root.to_path_buf();
        let mut prefix = String::new();
        let mut blocked = None;
        for comp in &comps[..comps.len() - 1] {
            cur.push(comp);
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(comp);
            match std::fs::symlink_metadata(&cur) {
                Ok(md) if md.file_type().is_symlink() => {
                    blocked = Some(format!(
                        "{prefix} is a symbolic link; nothing is written through links"
                    ));
                    break;
                }
                Ok(md) if md.is_dir() => {}
                Ok(_) if deleted.contains(prefix.as_str()) => break,
                Ok(_) => {
                    blocked = Some(format!("{prefix} is a file where a directory is needed"));
                    break;
                }
                Err(_) => break,
            }
        }
        if let Some(reason) = blocked {
            out.push((p.to_owned(), reason));
            continue;
        }
        let target = c.path.to_fs_path(root);
        let md = std::fs::symlink_metadata(&target);
        match (&c.old, md) {
            (None, Err(_)) => {}
            (None, Ok(md))
                if md.is_dir() && deleted.iter().any(|d| d.starts_with(&format!("{p}/"))) => {}
            (None, Ok(_)) => out.push((
                p.to_owned(),
                "exists on disk, but the session adds it".into(),
            )),
            (Some(_), Err(_)) => out.push((
                p.to_owned(),
                "missing on disk; it was in the base snapshot".into(),
            )),
            (Some(_), Ok(md)) if md.file_type().is_symlink() => {
                out.push((p.to_owned(), "is a symbolic link on disk".into()))
            }
            (Some(_), Ok(md)) if !md.is_file() => {
                out.push((p.to_owned(), "is not a regular file on disk".into()))
            }
            (Some(old), Ok(md)) => {
                let exec = md.permissions().mode() & 0o100 != 0;
                match hash_file(&target) {
                    Ok((blob, _)) if blob != old.file.blob => out.push((
                        p.to_owned(),
                        format!(
                            "changed on disk since the session opened (base {}, now {blob})",
                            old.file.blob
                        ),
                    )),
                    Ok(_) if exec != old.executable => out.push((
                        p.to_owned(),
                        "its executable bit changed on disk since the session opened".into(),
                    )),
                    Ok(_) => {}
                    Err(e) => out.push((p.to_owned(), format!("cannot be read: {e}"))),
                }
            }
        }
    }
    out.sort();
    out
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError + '_ {
    move |source| EngineError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Creates the directories of `rel_dir` under `root`, refusing to pass through a symbolic link
/// or a non-directory.
fn make_dirs(
    root: &Path,
    comps: &[&str],
    touched: &mut BTreeSet<PathBuf>,
) -> Result<PathBuf, EngineError> {
    let mut cur = root.to_path_buf();
    let mut rel = String::new();
    for comp in comps {
        let parent = cur.clone();
        cur.push(comp);
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(comp);
        match std::fs::symlink_metadata(&cur) {
            Ok(md) if md.is_dir() && !md.file_type().is_symlink() => {}
            Ok(_) => {
                return Err(EngineError::Unsafe {
                    path: rel,
                    reason: "is not a directory (a link or a file); nothing is written through it"
                        .into(),
                });
            }
            Err(_) => {
                std::fs::create_dir(&cur).map_err(io(&cur))?;
                touched.insert(parent);
            }
        }
    }
    Ok(cur)
}

/// Writes `list` (base → current) into the workspace at `root` (see the module docs).
///
/// # Errors
/// [`EngineError::Io`] naming the path; [`EngineError::Unsafe`] when a directory on the way
/// became a link or a file.
pub fn write_changes(store: &Store, root: &Path, list: &[Change]) -> Result<(), EngineError> {
    // Phase 1: stage.
    let mut staged = Vec::new();
    for c in list {
        let Some(new) = &c.new else { continue };
        let target = c.path.to_fs_path(root);
        let parent = target.parent().unwrap_or(root).to_path_buf();
        let stage_dir = match std::fs::symlink_metadata(&parent) {
            Ok(md) if md.is_dir() && !md.file_type().is_symlink() => parent.clone(),
            _ => root.to_path_buf(),
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".genesis-tmp-")
            .tempfile_in(&stage_dir)
            .map_err(io(&stage_dir))?;
        {
            let mut w = std::io::BufWriter::with_capacity(256 * 1024, tmp.as_file_mut());
            store.copy_object_to(&new.file.blob, &mut w)?;
            w.flush().map_err(io(&target))?;
        }
        let mode = if new.executable { 0o755 } else { 0o644 };
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io(&target))?;
        tmp.as_file().sync_all().map_err(io(&target))?;
        staged.push((c, tmp));
    }
    // Phase 2: deletions, then directories left empty.
    let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
    for c in list.iter().filter(|c| c.new.is_none()) {
        let target = c.path.to_fs_path(root);
        match std::fs::remove_file(&target) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&target)(e)),
        }
        let mut dir = target.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if d == root || !d.starts_with(root) {
                touched.insert(d);
                break;
            }
            if std::fs::remove_dir(&d).is_err() {
                touched.insert(d);
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
    }
    // Phase 3: directories and renames.
    for (c, tmp) in staged {
        let comps: Vec<&str> = c.path.components().collect();
        let parent = make_dirs(root, &comps[..comps.len() - 1], &mut touched)?;
        let target = parent.join(comps[comps.len() - 1]);
        if let Ok(md) = std::fs::symlink_metadata(&target)
            && md.is_dir()
        {
            // A directory the deletions emptied, now replaced by a file.
            std::fs::remove_dir(&target).map_err(io(&target))?;
        }
        tmp.persist(&target).map_err(|e| io(&target)(e.error))?;
        touched.insert(parent);
    }
    // Phase 4: durability of names.
    for d in &touched {
        if d.is_dir() {
            fsync_dir(d)?;
        }
    }
    Ok(())
}
