//! The fast path of [`super::materialize`] for a directory that is empty when it starts (a new
//! verify scratch directory or workdir, `open --checkout`, `restore --to`): nothing there to
//! compare, delete or replace, so the sync rule reduces to "write every file".
//!
//! - Each directory of the snapshot is made once (`mkdirat(2)` relative to its parent's
//!   descriptor, in one depth-first pass), not checked again for every file under it.
//! - The files are written in parallel (rayon, one task per directory): the directory opened
//!   once beneath the root without following a link ([`beneath::open_dir_at`]), each file
//!   created there under its final name `O_CREAT | O_EXCL | O_NOFOLLOW` (`0600` until written),
//!   the object (opened relative to the store's `objects/`, opened once) decoded and checked
//!   into it by the store's codec, then its permission bits set. No temp file and rename: nobody
//!   else's file is replaced and a file that is there already makes the create fail.
//! - Permission bits as in the general path (DESIGN section 10): from the same path in
//!   [`super::MaterializeOptions::modes_from`], looked up with one `fstatat(2)` relative to
//!   that directory (opened once per directory, links followed as a `stat` of the path would),
//!   else the umask's default.
//!
//! Anything unexpected (something appeared in the directory, a store or write error) makes
//! [`write_fresh`] return [`Fresh::Fallback`]: the caller then runs the general sync, which
//! finishes the job or fails with the error it always gave. So this path changes neither what
//! ends up on disk nor the errors, only how fast a whole tree is written. (The one error
//! returned as it comes is a failed directory `fsync` of a durable write: the general path
//! fails there too, after the same writes.)

use std::collections::{BTreeSet, HashMap};
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rayon::prelude::*;

use super::{MaterializeError, MaterializeOptions, MaterializeOutcome};
use crate::beneath;
use crate::fsmode;
use crate::path::WorkspacePath;
use crate::snapshot::{Snapshot, SnapshotFile};
use crate::store::{Store, codec, fsync_dir};

/// What [`write_fresh`] did.
pub(super) enum Fresh {
    /// Every file was written.
    Done(MaterializeOutcome),
    /// Something failed or was in the way: run the general sync (it may find files written
    /// here, and takes them as they are when right).
    Fallback,
}

/// Writes every file of `snapshot` into the directory `dir`, which the caller found empty.
///
/// # Errors
/// Only the directory `fsync`s of a durable write (as the general path, which would not
/// repeat them); everything else is a [`Fresh::Fallback`].
pub(super) fn write_fresh(
    store: &Store,
    snapshot: &Snapshot,
    executable: &BTreeSet<WorkspacePath>,
    dir: &Path,
    opts: &MaterializeOptions,
) -> Result<Fresh, MaterializeError> {
    let Ok(root) = beneath::open_root(dir) else {
        return Ok(Fresh::Fallback);
    };
    let Ok(objects) = beneath::open_root(&store.path().join("objects")) else {
        return Ok(Fresh::Fallback);
    };
    let groups = by_directory(snapshot.files());
    if make_directories(&root, &groups).is_err() {
        return Ok(Fresh::Fallback);
    }
    let written = groups
        .par_iter()
        .with_max_len(1)
        .try_for_each(|(parent, files)| {
            let at = Dirs {
                root: &root,
                objects: &objects,
            };
            write_group(executable, &at, parent, files, opts)
        });
    if written.is_err() {
        return Ok(Fresh::Fallback);
    }
    if opts.durable {
        // As the general path: every directory a file was written in, by path, in order.
        let mut dirs: Vec<std::path::PathBuf> = groups
            .iter()
            .map(|(parent, _)| {
                let mut p = dir.to_path_buf();
                p.extend(parent.split('/').filter(|c| !c.is_empty()));
                p
            })
            .collect();
        dirs.sort();
        for d in &dirs {
            fsync_dir(d)?;
        }
    }
    Ok(Fresh::Done(MaterializeOutcome {
        written: snapshot.files().len(),
        deleted: 0,
        unchanged: 0,
    }))
}

/// The files grouped by their parent directory (`""`: the root), groups in path order.
fn by_directory(files: &[SnapshotFile]) -> Vec<(&str, Vec<&SnapshotFile>)> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<(&str, Vec<&SnapshotFile>)> = Vec::new();
    for f in files {
        let parent = beneath::split(f.path.as_str()).0;
        let i = *index.entry(parent).or_insert_with(|| {
            groups.push((parent, Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(f);
    }
    groups
}

/// Makes every directory the files need (each group's parent and its ancestors), parents
/// first, each with `mkdirat(2)` relative to its parent's descriptor (a stack of descriptors
/// along the current path, so at most the tree's depth are open).
fn make_directories(root: &OwnedFd, groups: &[(&str, Vec<&SnapshotFile>)]) -> std::io::Result<()> {
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    for (parent, _) in groups {
        let mut d = *parent;
        while !d.is_empty() && dirs.insert(d) {
            d = beneath::split(d).0;
        }
    }
    // Depth-first order (by components, so `a/b` follows `a` directly, before `a-b`).
    let mut dirs: Vec<&str> = dirs.into_iter().collect();
    dirs.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    let mut stack: Vec<(&str, OwnedFd)> = Vec::new();
    for d in dirs {
        let (parent, leaf) = beneath::split(d);
        while stack.last().is_some_and(|(p, _)| *p != parent) {
            stack.pop();
        }
        let fd = stack.last().map_or(root, |(_, fd)| fd);
        beneath::mkdir(fd, leaf)?;
        let child = beneath::open_child_dir(fd, leaf)?;
        stack.push((d, child));
    }
    Ok(())
}

/// Where [`write_group`] reads and writes.
struct Dirs<'a> {
    /// The directory written, open.
    root: &'a OwnedFd,
    /// The store's `objects/`, open.
    objects: &'a OwnedFd,
}

/// Writes the files of one directory `parent` (all of whose paths are `parent/leaf`).
fn write_group(
    executable: &BTreeSet<WorkspacePath>,
    at: &Dirs<'_>,
    parent: &str,
    files: &[&SnapshotFile],
    opts: &MaterializeOptions,
) -> Result<(), ()> {
    let pfd = beneath::open_dir_at(at.root, parent).map_err(drop)?;
    // The directory of the same files in the workspace, for their permission bits.
    let modes_dir = opts.modes_from.as_ref().map(|ws| {
        let mut p = ws.clone();
        p.extend(parent.split('/').filter(|c| !c.is_empty()));
        beneath::open_dir_to_read(&p).ok()
    });
    for f in files {
        let exec = executable.contains(&f.path);
        let leaf = beneath::split(f.path.as_str()).1;
        let mode = match (&modes_dir, &opts.modes_from) {
            (Some(Some(wfd)), _) => match beneath::file_mode(wfd, leaf) {
                Some(m) => fsmode::for_existing(m, exec),
                None => fsmode::for_new_file(exec),
            },
            // Not opened: the path's own lookup decides, as in the general path.
            (Some(None), Some(ws)) => fsmode::for_path(&f.path.to_fs_path(ws), exec),
            _ => fsmode::for_new_file(exec),
        };
        // The object file `objects/ab/cdef…` (as `Store::object_path`), decoded and checked
        // against its name by the store's codec.
        let hex = f.blob.to_hex();
        let mut object = beneath::open_read_at(at.objects, &format!("{}/{}", &hex[..2], &hex[2..]))
            .map_err(drop)?;
        let mut out = beneath::create_new(&pfd, leaf, 0o600).map_err(drop)?;
        let done = match codec::decode_into(&mut object, &f.blob, &mut out, codec::Limits::DEFAULT)
        {
            Ok(codec::Decoded::Ok(_)) => out
                .set_permissions(std::fs::Permissions::from_mode(mode))
                .and_then(|()| if opts.durable { out.sync_all() } else { Ok(()) })
                .is_ok(),
            _ => false,
        };
        if !done {
            // The general path then finds no half-written file here (it would take one of
            // the right size and content but the wrong bits as right).
            let _ = beneath::unlink(&pfd, leaf);
            return Err(());
        }
    }
    Ok(())
}
