//! Journaled, crash-safe writes into the workspace (DESIGN section 6), and recovery.
//!
//! A [`Journal`] lists every path a session changes with its pre and post state (blob and
//! executable bit; the post blobs are in the store). Protocol, under the store lock:
//!
//! 1. write the journal (`journal/<session>.json`: temp file, fsync, rename, fsync of the
//!    directory) — from here on the change *will* happen;
//! 2. `execute`: stage every new file as `.genesis-tmp-<session>-<n>` in its directory (or
//!    the root when the directory does not exist yet), written from the store and fsynced;
//!    delete removed files and the directories they leave empty; create missing directories
//!    (never through a link), give existing directories the journal's spelling where a
//!    case-insensitive file system kept another one (`Dir` → `dir`, see `respell_dirs`), and
//!    rename each staged file into place; fsync every touched directory;
//! 3. mark the session with the journal's final status and save it;
//! 4. delete the journal and fsync its directory.
//!
//! `execute` is idempotent: a path already holding its post state is left alone, stale temp
//! files of an earlier run are removed first. So `recover` simply runs steps 2–4 again for
//! every journal it finds, and recovery survives being interrupted itself. A crash before step
//! 1 completes leaves no journal and an untouched workspace; after it, the next `genesis`
//! command (or `genesis recover`) finishes the change. Either way the workspace ends byte for
//! byte at the base or the final state.
//!
//! If staging fails (a full disk) before anything visible changed, the staged files and the
//! journal are removed and the workspace is as it was.

use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::beneath;
use crate::fault::point;
use crate::hash::Digest;
use crate::path::WorkspacePath;
use crate::session::{self, SessionError, Status};
use crate::snapshot::hash_file;
use crate::store::{Store, StoreError, fsync_dir, write_atomic};

/// The `schema` value of journal files.
pub const JOURNAL_SCHEMA: &str = "genesis/journal-v0.1";

/// A file's content and executable bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileState {
    /// The blob (in the store).
    pub blob: Digest,
    /// The executable bit.
    pub executable: bool,
    /// Exact permission bits to give the file (`restore` of a saved file); `None`: the
    /// [`crate::fsmode`] rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

/// One path's change.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JournalOp {
    /// The path.
    pub path: WorkspacePath,
    /// Its state before (`None`: absent).
    pub pre: Option<FileState>,
    /// Its state after (`None`: deleted).
    pub post: Option<FileState>,
}

/// An in-flight change to the workspace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Journal {
    /// Always [`JOURNAL_SCHEMA`].
    pub schema: String,
    /// The session making the change.
    pub session: String,
    /// The status the session gets when the change is done (`applied`, or `aborted` for an
    /// in-place session restoring its base).
    pub final_status: Status,
    /// The changes, sorted by path.
    pub ops: Vec<JournalOp>,
}

/// Errors of journaled writes. Each names the path.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// A store error (reading a post blob, writing the journal).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Loading or saving the session failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A workspace file-system step failed.
    #[error("{}: {source}{}", .path.display(), if *.visible { "; the change is journaled: run `genesis recover` to finish it" } else { "; nothing was changed" })]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
        /// Whether the workspace may already be partly changed (recovery will finish it).
        visible: bool,
    },
    /// A directory on the way is a link or a file: nothing is written through it.
    #[error("{path}: refused: {reason}")]
    Unsafe {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// A journal with a member name twice in one object: Genesis never writes one, so it was
    /// edited; refused, and nothing is replayed (see [`crate::json`]).
    #[error("{}: {source}", .path.display())]
    DuplicateKey {
        /// The journal file.
        path: PathBuf,
        /// The name and its JSON pointer.
        source: crate::json::DuplicateKey,
    },
    /// A journal file that cannot be read.
    #[error("{}: invalid journal: {message}", .path.display())]
    Invalid {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The journal file of session `session`: `journal/<session>.json` in the store. While it
/// exists an apply or abort of the session is unfinished (see [`crate::engine::Engine::recover`]).
pub(crate) fn journal_path(store: &Store, session: &str) -> PathBuf {
    journal_dir(store).join(format!("{session}.json"))
}

fn journal_dir(store: &Store) -> PathBuf {
    store.path().join("journal")
}

fn temp_name(session: &str, n: usize) -> String {
    format!(".genesis-tmp-{session}-{n}")
}

/// Writes the journal durably (step 1).
///
/// # Errors
/// [`JournalError::Store`] on failure; nothing in the workspace has changed then.
pub(crate) fn begin(store: &Store, journal: &Journal) -> Result<(), JournalError> {
    let dir = journal_dir(store);
    std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
        path: dir.clone(),
        source,
    })?;
    let mut bytes = serde_json::to_vec_pretty(journal).expect("serialisable");
    bytes.push(b'\n');
    write_atomic(&dir, &format!("{}.json", journal.session), &bytes)?;
    Ok(())
}

fn io(path: &Path, visible: bool) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.to_path_buf(),
        source,
        visible,
    }
}

/// `io`, except that a link met on the way while opening the directory `rel` beneath the root
/// ([`crate::beneath::open_dir`]: `ELOOP`, `EXDEV`) is [`JournalError::Unsafe`] naming `rel`.
fn opening<'a>(
    rel: &'a str,
    path: &'a Path,
    visible: bool,
) -> impl FnOnce(std::io::Error) -> JournalError + 'a {
    move |source| match source.raw_os_error() {
        Some(libc::ELOOP | libc::EXDEV) => JournalError::Unsafe {
            path: rel.to_owned(),
            reason: "is a symbolic link; nothing is written or deleted through links".into(),
        },
        _ => io(path, visible)(source),
    }
}

fn holds(path: &Path, state: &FileState) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(md) if md.is_file() => {
            let exec = md.permissions().mode() & 0o100 != 0;
            exec == state.executable && hash_file(path).is_ok_and(|(b, _)| b == state.blob)
        }
        _ => false,
    }
}

/// The paths `journal` deletes, by [`crate::path::fold_key`]: the names a case-insensitive or
/// normalising file system (macOS, Windows) treats as one.
fn deleted_by_fold_key(journal: &Journal) -> std::collections::HashMap<String, Vec<&str>> {
    let mut out: std::collections::HashMap<String, Vec<&str>> = Default::default();
    for d in journal.ops.iter().filter(|o| o.post.is_none()) {
        out.entry(crate::path::fold_key(d.path.as_str()))
            .or_default()
            .push(d.path.as_str());
    }
    out
}

/// Whether a deletion (`deleted`, from [`deleted_by_fold_key`]) names `path` in another
/// spelling: a case-only rename `readme.md` → `README.md`. On a case-insensitive file system
/// the new name already "holds" the content (it opens the old file), and the deletion of the
/// old name would then remove the only copy; so such a path is always staged, and the staged
/// copy is renamed into place after the deletion.
fn spelled_like_a_deletion(
    deleted: &std::collections::HashMap<String, Vec<&str>>,
    path: &WorkspacePath,
) -> bool {
    deleted
        .get(&crate::path::fold_key(path.as_str()))
        .is_some_and(|names| names.iter().any(|n| *n != path.as_str()))
}

fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|md| md.is_dir() && !md.file_type().is_symlink())
}

/// Gives every existing directory on the way to a post path of `journal` the journal's
/// spelling (DESIGN section 6, "Spellings"), parents first.
///
/// On a case-insensitive or normalising file system (macOS, Windows) `dir/a.txt` opens
/// `Dir/a.txt`, so a change that moves every file of `Dir/` to `dir/` would otherwise write its
/// files into the directory still spelled `Dir`, and the tree on disk would no longer hash to
/// the recorded snapshot. A directory is renamed when, and only when, the parent's listing
/// lacks the journal's spelling (`dir`), holds exactly one other spelling of it under
/// [`crate::path::fold_key`] (`Dir`) that is a real directory, the journal's spelling opens that
/// very directory (same device and inode: the file system folds names), no post path of the
/// journal uses the old spelling, and the journal is an apply's or deletes a file below the
/// old spelling (an in-place abort moving files back; never a restore into a directory other
/// files live in). On a case-sensitive file system the journal's spelling
/// either is listed or does not exist, so nothing is ever renamed there. A rename moves no
/// file and deletes none; the post paths in the journal are the record, so a re-run (recovery)
/// finds the directory already spelled right and does nothing.
///
/// # Errors
/// [`JournalError::Io`] (visible) naming the directory when the rename fails.
fn respell_dirs(
    root: &Path,
    journal: &Journal,
    touched: &mut BTreeSet<PathBuf>,
) -> Result<(), JournalError> {
    use std::os::unix::fs::MetadataExt;
    let mut wanted: BTreeSet<&str> = BTreeSet::new();
    for op in journal.ops.iter().filter(|o| o.post.is_some()) {
        let p = op.path.as_str();
        wanted.extend(p.match_indices('/').map(|(i, _)| &p[..i]));
    }
    let mut listings: std::collections::HashMap<PathBuf, std::collections::HashSet<String>> =
        Default::default();
    // Sorted, so `top` comes before `top/sub`.
    for dir in &wanted {
        let (parent_rel, name) = match dir.rsplit_once('/') {
            Some((a, b)) => (Some(a), b),
            None => (None, *dir),
        };
        let parent = parent_rel.map_or_else(|| root.to_path_buf(), |a| root.join(a));
        let to = parent.join(name);
        let Ok(to_md) = std::fs::symlink_metadata(&to) else {
            continue; // absent: made by make_dirs with this spelling
        };
        if !to_md.is_dir() || to_md.file_type().is_symlink() {
            continue; // check_parents and make_dirs refuse it
        }
        // Each parent is listed once (the listing of a directory respelled here is read
        // after the rename, as its children come later in the sorted set).
        let names = listings.entry(parent.clone()).or_insert_with(|| {
            std::fs::read_dir(&parent)
                .map(|rd| {
                    rd.flatten()
                        .filter_map(|e| e.file_name().into_string().ok())
                        .collect()
                })
                .unwrap_or_default()
        });
        if names.contains(name) {
            continue; // spelled as wanted: always so on a case-sensitive file system
        }
        let key = crate::path::fold_key(name);
        let others: Vec<String> = names
            .iter()
            .filter(|n| crate::path::fold_key(n) == key)
            .cloned()
            .collect();
        if others.len() != 1 {
            continue;
        }
        let old = &others[0];
        let old_rel = parent_rel.map_or_else(|| old.clone(), |a| format!("{a}/{old}"));
        if wanted.contains(old_rel.as_str()) {
            continue; // both spellings wanted: a collision `patch` refuses; leave it
        }
        // An apply's result holds no member under the old spelling (that would be a collision
        // `patch` refuses), so the directory is this change's. Any other journal (in-place
        // abort, restore) lists only some paths: it renames a directory only when it moves
        // files out of it, so a restore never respells a directory other members live in.
        // (The deletion's parents may themselves have been spelled otherwise: `top/sub/c.txt`
        // deleted is below `Top/sub` once `top` became `Top`.)
        let depth = dir.split('/').count();
        let parent_key = crate::path::fold_key(parent_rel.unwrap_or(""));
        let moves_out = |p: &str| {
            let comps: Vec<&str> = p.split('/').collect();
            comps.len() > depth
                && comps[depth - 1] == old.as_str()
                && crate::path::fold_key(&comps[..depth - 1].join("/")) == parent_key
        };
        if journal.final_status != Status::Applied
            && !journal
                .ops
                .iter()
                .any(|o| o.post.is_none() && moves_out(o.path.as_str()))
        {
            continue;
        }
        let from = parent.join(old);
        let same = std::fs::symlink_metadata(&from).is_ok_and(|m| {
            m.is_dir()
                && !m.file_type().is_symlink()
                && m.dev() == to_md.dev()
                && m.ino() == to_md.ino()
        });
        if !same {
            continue;
        }
        point(&format!("respell {dir}")).map_err(io(&to, true))?;
        let pfd = beneath::open_dir(root, parent_rel.unwrap_or("")).map_err(opening(
            parent_rel.unwrap_or(""),
            &parent,
            true,
        ))?;
        beneath::rename(&pfd, old, &pfd, name).map_err(io(&to, true))?;
        if let Some(names) = listings.get_mut(&parent) {
            names.remove(old.as_str());
            names.insert(name.to_owned());
        }
        touched.insert(parent);
    }
    Ok(())
}

/// Creates the directories `comps` under `root`, never through a link or a file: each one is
/// opened or made relative to the descriptor of its parent ([`crate::beneath`]). Returns the
/// last directory's path and descriptor.
fn make_dirs(
    root: &Path,
    comps: &[&str],
    touched: &mut BTreeSet<PathBuf>,
) -> Result<(PathBuf, OwnedFd), JournalError> {
    let mut cur = root.to_path_buf();
    let mut fd = beneath::open_root(root).map_err(io(root, true))?;
    let mut rel = String::new();
    for comp in comps {
        let parent = cur.clone();
        cur.push(comp);
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(comp);
        let unsafe_dir = |e: &std::io::Error| JournalError::Unsafe {
            path: rel.clone(),
            reason: if e.raw_os_error() == Some(libc::ELOOP) {
                "is a symbolic link; nothing is written or deleted through links".into()
            } else {
                "is not a directory (a link or a file); nothing is written through it".into()
            },
        };
        fd = match beneath::open_child_dir(&fd, comp) {
            Ok(child) => child,
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                return Err(unsafe_dir(&e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                point(&format!("mkdir {rel}")).map_err(io(&cur, true))?;
                beneath::mkdir(&fd, comp).map_err(io(&cur, true))?;
                touched.insert(parent);
                match beneath::open_child_dir(&fd, comp) {
                    Ok(child) => child,
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                        return Err(unsafe_dir(&e));
                    }
                    Err(e) => return Err(io(&cur, true)(e)),
                }
            }
            Err(e) => return Err(io(&cur, true)(e)),
        };
    }
    Ok((cur, fd))
}

/// Before anything is touched: no directory on the way to any path may be a symbolic link,
/// and none may be a file unless this change deletes that file. The walk is
/// [`crate::path::blocked_parent`], the one apply's preconditions and abort use.
pub(crate) fn check_parents(root: &Path, journal: &Journal) -> Result<(), JournalError> {
    use crate::path::{BlockedParent, blocked_parent};
    let deleted: BTreeSet<&str> = journal
        .ops
        .iter()
        .filter(|o| o.post.is_none())
        .map(|o| o.path.as_str())
        .collect();
    for op in &journal.ops {
        // A file this change deletes (not yet deleted), or a file above a path this change
        // deletes: that path cannot exist, so its deletion is already done. The second case
        // is the state a directory↔file swap reaches once the new file is in place; without
        // it, a re-run (recovery) could never finish.
        let deletable = |prefix: &str| deleted.contains(prefix) || op.post.is_none();
        match blocked_parent(root, &op.path, deletable) {
            None => {}
            Some(BlockedParent::Link(path)) => {
                return Err(JournalError::Unsafe {
                    path,
                    reason: "is a symbolic link; nothing is written or deleted through links"
                        .into(),
                });
            }
            Some(BlockedParent::File(path)) => {
                return Err(JournalError::Unsafe {
                    path,
                    reason: "is a file where a directory is needed".into(),
                });
            }
        }
    }
    Ok(())
}

fn remove_stale_temps(root: &Path, journal: &Journal) {
    for (n, op) in journal.ops.iter().enumerate() {
        let name = temp_name(&journal.session, n);
        for dir in [beneath::split(op.path.as_str()).0, ""] {
            if let Ok(fd) = beneath::open_dir(root, dir)
                && beneath::kind(&fd, &name) == Some(beneath::Kind::File)
            {
                let _ = beneath::unlink(&fd, &name);
            }
        }
    }
}

/// Removes the journal of a change that failed before anything visible happened.
///
/// # Errors
/// [`StoreError::Io`].
pub(crate) fn cancel(store: &Store, session: &str) -> Result<(), JournalError> {
    remove_journal(store, session, false)
}

/// Deletes `journal/<session>.json` (already gone is fine) and fsyncs the directory; with
/// `fault_point`, a fault-injection point (`unlink <path>`) comes first.
fn remove_journal(store: &Store, session: &str, fault_point: bool) -> Result<(), JournalError> {
    let dir = journal_dir(store);
    let path = journal_path(store, session);
    if fault_point {
        point(&format!("unlink {}", path.display())).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
    }
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(StoreError::Io { path, source }.into()),
    }
    fsync_dir(&dir)?;
    Ok(())
}

/// Brings every path of `journal` to its post state (step 2), idempotently.
///
/// # Errors
/// [`JournalError::Io`] naming the path (`visible` says whether anything in the workspace had
/// changed yet); [`JournalError::Unsafe`]; store errors for missing or corrupt post blobs.
pub(crate) fn execute(store: &Store, root: &Path, journal: &Journal) -> Result<(), JournalError> {
    execute_with(store, root, journal, false).map(|_| ())
}

/// `execute` of a journal whose every path the caller found at its pre state just before the
/// journal was written (apply's preconditions, under the store lock): no path can already hold
/// its post state (a journal lists only paths whose pre and post differ), so none is read to
/// find out, and every post state is staged. A crash leaves the same journal for recovery,
/// which runs the ordinary, idempotent `execute_with`.
///
/// # Errors
/// As `execute`.
pub(crate) fn execute_at_pre(
    store: &Store,
    root: &Path,
    journal: &Journal,
) -> Result<(), JournalError> {
    execute_inner(store, root, journal, false, true).map(|_| ())
}

/// A file roll-forward found at neither its pre nor its post state (written after the journal
/// was made, for example between a crash and the recovery), copied into the store before the
/// journal overwrote or removed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rescued {
    /// The path.
    pub path: WorkspacePath,
    /// Hex SHA-256 of its bytes (in the store).
    pub blob: Digest,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its executable bit.
    pub executable: bool,
    /// Its permission bits.
    pub mode: u32,
}

/// `execute`; with `rescue` (recovery), every regular file at a journal path that holds
/// neither the pre nor the post state is first copied into the store and returned, so a
/// roll-forward never destroys bytes written after the journal was made.
///
/// # Errors
/// As `execute`; store errors while rescuing (nothing visible has changed then).
pub(crate) fn execute_with(
    store: &Store,
    root: &Path,
    journal: &Journal,
    rescue: bool,
) -> Result<Vec<Rescued>, JournalError> {
    execute_inner(store, root, journal, rescue, false)
}

/// `execute_with`; `at_pre`: see `execute_at_pre`.
fn execute_inner(
    store: &Store,
    root: &Path,
    journal: &Journal,
    rescue: bool,
    at_pre: bool,
) -> Result<Vec<Rescued>, JournalError> {
    check_parents(root, journal)?;
    remove_stale_temps(root, journal);
    let rescued = if rescue {
        rescue_files(store, root, journal)?
    } else {
        Vec::new()
    };
    // Phase 1: stage.
    let staged = stage(store, root, journal, at_pre)?;
    // Phase 2: deletions, then the directories they leave empty.
    let mut touched = delete(root, journal)?;
    // Phase 3: directory spellings, directories and renames.
    respell_dirs(root, journal, &mut touched)?;
    for t in &staged {
        rename_staged(root, &journal.ops[t.op], t, &mut touched)?;
    }
    // Phase 4: durable names.
    for d in &touched {
        if real_dir(d) {
            fsync_dir(d)?;
        }
    }
    Ok(rescued)
}

/// Recovery's rescue: every regular file at a journal path that holds neither the pre nor the
/// post state is copied into the store and returned.
fn rescue_files(
    store: &Store,
    root: &Path,
    journal: &Journal,
) -> Result<Vec<Rescued>, JournalError> {
    let mut rescued = Vec::new();
    for op in &journal.ops {
        let target = op.path.to_fs_path(root);
        let Ok(md) = std::fs::symlink_metadata(&target) else {
            continue;
        };
        if !md.is_file()
            || op.pre.as_ref().is_some_and(|s| holds(&target, s))
            || op.post.as_ref().is_some_and(|s| holds(&target, s))
        {
            continue;
        }
        let (blob, bytes) = store.ingest_file(&target)?;
        let mode = md.permissions().mode();
        rescued.push(Rescued {
            path: op.path.clone(),
            blob,
            bytes,
            executable: mode & 0o100 != 0,
            mode: mode & 0o777,
        });
    }
    Ok(rescued)
}

/// A staged file: op index, its directory (workspace-relative, `""` for the root), its
/// name there, and its path (for messages).
struct Staged {
    op: usize,
    dir: String,
    name: String,
    path: PathBuf,
}

/// Phase 1: writes each post state that is not already in place to a temporary name beside
/// its target (fsynced), and returns where each went; on failure removes what it staged.
/// `at_pre`: every path is known to hold its pre state (see `execute_at_pre`), so none is
/// checked for its post state.
fn stage(
    store: &Store,
    root: &Path,
    journal: &Journal,
    at_pre: bool,
) -> Result<Vec<Staged>, JournalError> {
    let deleted = deleted_by_fold_key(journal);
    let mut staged: Vec<Staged> = Vec::new();
    let result = (|| -> Result<(), JournalError> {
        for (n, op) in journal.ops.iter().enumerate() {
            let Some(post) = &op.post else { continue };
            let target = op.path.to_fs_path(root);
            if !at_pre && holds(&target, post) && !spelled_like_a_deletion(&deleted, &op.path) {
                continue;
            }
            let parent_rel = beneath::split(op.path.as_str()).0;
            let (stage_rel, stage_fd) = match beneath::open_dir(root, parent_rel) {
                Ok(fd) => (parent_rel, fd),
                Err(_) => ("", beneath::open_root(root).map_err(io(root, false))?),
            };
            let name = temp_name(&journal.session, n);
            let tmp = root.join(stage_rel).join(&name);
            point(&format!("create {}", tmp.display())).map_err(io(&tmp, false))?;
            // The file there keeps its permission bits (only the recorded executable bit
            // changes); a new file gets the umask's default (crate::fsmode).
            let mode = match post.mode {
                Some(m) => m & 0o777,
                None => crate::fsmode::for_path(&target, post.executable),
            };
            let mut f = beneath::create_new(&stage_fd, &name, 0o600).map_err(io(&tmp, false))?;
            staged.push(Staged {
                op: n,
                dir: stage_rel.to_owned(),
                name,
                path: tmp.clone(),
            });
            point(&format!("write {}", tmp.display())).map_err(io(&tmp, false))?;
            store.copy_object_named(&post.blob, &mut f, Some(&target))?;
            f.set_permissions(std::fs::Permissions::from_mode(mode))
                .map_err(io(&tmp, false))?;
            point(&format!("fsync {}", tmp.display())).map_err(io(&tmp, false))?;
            f.sync_all().map_err(io(&tmp, false))?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        for t in &staged {
            if let Ok(fd) = beneath::open_dir(root, &t.dir) {
                let _ = beneath::unlink(&fd, &t.name);
            }
        }
        return Err(e);
    }
    Ok(staged)
}

/// Phase 2: unlinks each deleted path, then removes the directories that leaves empty;
/// returns the directories touched (to fsync).
fn delete(root: &Path, journal: &Journal) -> Result<BTreeSet<PathBuf>, JournalError> {
    let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
    for op in journal.ops.iter().filter(|o| o.post.is_none()) {
        let target = op.path.to_fs_path(root);
        let (parent_rel, leaf) = beneath::split(op.path.as_str());
        match beneath::open_dir(root, parent_rel) {
            Ok(fd) => {
                if matches!(
                    beneath::kind(&fd, leaf),
                    Some(beneath::Kind::File | beneath::Kind::Link)
                ) {
                    point(&format!("unlink {}", op.path)).map_err(io(&target, true))?;
                    beneath::unlink(&fd, leaf).map_err(io(&target, true))?;
                }
            }
            // A link on the way (swapped in after check_parents): nothing is deleted through it.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::EXDEV)) => {
                return Err(opening(parent_rel, &target, true)(e));
            }
            // Missing, or a file above: the path cannot exist, its deletion is done.
            Err(_) => {}
        }
        let mut dir = target.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if d == root || !d.starts_with(root) || !real_dir(&d) {
                touched.insert(d);
                break;
            }
            let empty = std::fs::read_dir(&d)
                .map(|mut r| r.next().is_none())
                .unwrap_or(false);
            if !empty {
                touched.insert(d);
                break;
            }
            point(&format!("rmdir {}", d.display())).map_err(io(&d, true))?;
            let rel = d
                .strip_prefix(root)
                .unwrap_or(&d)
                .to_string_lossy()
                .into_owned();
            let (prel, leaf) = beneath::split(&rel);
            let pfd = beneath::open_dir(root, prel).map_err(opening(prel, &d, true))?;
            match beneath::rmdir(&pfd, leaf) {
                Ok(()) => {}
                // Filled or swapped for a link since the check: it stays.
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ENOTEMPTY | libc::EEXIST | libc::ENOTDIR)
                    ) =>
                {
                    touched.insert(d);
                    break;
                }
                Err(e) => return Err(io(&d, true)(e)),
            }
            dir = d.parent().map(Path::to_path_buf);
        }
    }
    Ok(touched)
}

/// Phase 3, one op: makes the target's directories, removes an emptied directory standing
/// where the file goes (naming the blocking entry when it is not empty), and renames the
/// staged file into place.
fn rename_staged(
    root: &Path,
    op: &JournalOp,
    tmp: &Staged,
    touched: &mut BTreeSet<PathBuf>,
) -> Result<(), JournalError> {
    let comps: Vec<&str> = op.path.components().collect();
    let leaf = comps[comps.len() - 1];
    let (parent, pfd) = make_dirs(root, &comps[..comps.len() - 1], touched)?;
    let target = parent.join(leaf);
    if beneath::kind(&pfd, leaf) == Some(beneath::Kind::Dir) {
        // A directory the deletions emptied, replaced by a file.
        point(&format!("rmdir {}", target.display())).map_err(io(&target, true))?;
        if let Err(e) = beneath::rmdir(&pfd, leaf) {
            if e.raw_os_error() == Some(libc::ENOTEMPTY) {
                let first = std::fs::read_dir(&target)
                    .ok()
                    .and_then(|mut r| r.next())
                    .and_then(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Err(JournalError::Unsafe {
                    path: op.path.to_string(),
                    reason: format!(
                        "is a directory still holding {}/{first}, which this change does not delete; move it out of the way, then run `genesis recover` to finish",
                        op.path
                    ),
                });
            }
            return Err(io(&target, true)(e));
        }
    }
    point(&format!("rename {}", op.path)).map_err(io(&target, true))?;
    let from = beneath::open_dir(root, &tmp.dir).map_err(opening(&tmp.dir, &tmp.path, true))?;
    beneath::rename(&from, &tmp.name, &pfd, leaf).map_err(io(&target, true))?;
    touched.insert(parent);
    Ok(())
}

/// Steps 3 and 4: sets the session's final status and deletes the journal.
///
/// # Errors
/// Session and store errors.
pub(crate) fn finish(store: &Store, journal: &Journal) -> Result<(), JournalError> {
    let (mut s, state) = session::load(store, &journal.session)?;
    if s.status == Status::Open {
        s.status = journal.final_status;
        session::save(store, &s, &state)?;
    }
    remove_journal(store, &journal.session, true)
}

mod recover;
pub(crate) use recover::recover;
pub use recover::{RecoverOutcome, pending};
