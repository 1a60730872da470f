//! `abort` and `restore`: throwing a session away without losing a byte (DESIGN section 9).
//!
//! Rules:
//! - **In-place session**: abort puts every member path back to the base snapshot, through
//!   the journal (as `apply` writes). Before anything changes, the workspace is snapshotted
//!   into the store, and every file abort will remove or overwrite whose content (blob and
//!   executable bit) is not the one the session's current snapshot records — an edit made
//!   after the last `patch`, a file never recorded — is listed in the session state
//!   ([`SavedWork`]). Paths that the **base** snapshot's rules leave out (a file hidden by
//!   `.gitignore` in the base, even if the agent emptied that `.gitignore`) are never touched.
//!   Paths another applied session changed are left as they are. The tree is judged with the
//!   base's rules (module `base_view`): files hidden by an ignore rule the agent added, and
//!   files over the snapshot size limit, are additions too (saved, streamed into the store,
//!   and removed); what abort leaves on purpose is reported in [`AbortOutcome::kept`].
//! - **`--checkout` session**: the checkout directory is snapshotted into the store the same
//!   way; its member files are removed, and the directories they leave empty; files the
//!   snapshot rules leave out (`target/`, ignored output) stay, and so does the directory then.
//! - A directory that must become a file again but holds anything the abort does not remove
//!   (an ignored file) is a conflict: exit 3, nothing changed.
//! - `restore SESSION` writes the saved files back: into the workspace of an in-place session
//!   (each path must still be as abort left it, else exit 3 and nothing written; a saved
//!   spelling that opens the base file under another case is as abort left it), into the
//!   checkout directory of a checkout session (it must hold no member file), or with `--to
//!   DIR` the whole saved snapshot into a new or empty directory.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::diff::{Change, Tree, changes};
use crate::engine::{ConflictKind, Engine, EngineError, LockedSession, PathConflict, journal_op};
use crate::hash::Digest;
use crate::journal::{FileState, Journal, JournalOp};
use crate::materialize::{MaterializeOptions, materialize};
use crate::path::WorkspacePath;
use crate::session::{self, SavedFile, SavedWork, Session, SessionState, Status};
use crate::snapshot::{SnapshotFile, SnapshotOutcome, snapshot_dir};

mod base_view;
mod checkout;
mod error;
mod restore;

pub use error::AbortError;

/// Options of [`Engine::abort_with`].
#[derive(Debug, Clone, Default)]
pub struct AbortOptions {
    /// Compute and report what would change; change nothing (not even the store).
    pub dry_run: bool,
    /// Why, for the [`crate::events::EventKind::Aborted`] event. Default (`None`):
    /// [`AbortOptions::DEFAULT_REASON`].
    pub reason: Option<String>,
}

impl AbortOptions {
    /// The reason of an abort asked for without one.
    pub const DEFAULT_REASON: &'static str = "aborted by request";
}

/// What abort does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbortAction {
    /// The file goes back to its base content or executable bit.
    Restore,
    /// The file is removed (the base did not have it).
    Delete,
    /// The file is written back (the base had it; it is missing or hidden now).
    Create,
}

/// One path abort changes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AbortStep {
    /// The path, relative to the workspace (in-place) or the checkout directory.
    pub path: WorkspacePath,
    /// What happens to it.
    pub action: AbortAction,
    /// Whether its current content is saved first because no patch recorded it.
    pub saved: bool,
}

/// What [`Engine::abort_with`] did (or, with `dry_run`, would do).
#[derive(Debug, Clone)]
pub struct AbortOutcome {
    /// The session (status `aborted` unless `dry_run`).
    pub session: Session,
    /// Every path changed, sorted.
    pub steps: Vec<AbortStep>,
    /// The files saved into the store first (no patch recorded their content).
    pub saved: Vec<SavedFile>,
    /// The checkout directory, when one was made.
    pub checkout: Option<PathBuf>,
    /// Whether the checkout directory was kept because files the snapshot rules leave out
    /// are still in it.
    pub checkout_kept: bool,
    /// Whether anything was written (false for `dry_run`).
    pub written: bool,
    /// Files of an in-place workspace that abort leaves on purpose although they differ from
    /// the base, sorted: additions the base's rules leave out (a `secret.env` the agent
    /// un-ignored) and paths another applied session wrote. Empty for a checkout session
    /// (see `checkout_kept`).
    pub kept: Vec<KeptPath>,
}

/// A path abort leaves as it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptPath {
    /// The path, relative to the workspace.
    pub path: WorkspacePath,
    /// Why, for example `ignored by .gitignore in the base` or `written by applied session X`.
    pub reason: String,
}

/// Options of [`Engine::restore`].
#[derive(Debug, Clone, Default)]
pub struct RestoreOptions {
    /// Report, write nothing.
    pub dry_run: bool,
    /// Write the whole saved snapshot into this new or empty directory instead.
    pub to: Option<PathBuf>,
}

/// What [`Engine::restore`] did.
#[derive(Debug, Clone)]
pub struct RestoreOutcome {
    /// Where the files went.
    pub target: PathBuf,
    /// Paths written (or, with `dry_run`, to be written).
    pub written: Vec<WorkspacePath>,
    /// Paths that already held their saved content.
    pub unchanged: Vec<WorkspacePath>,
}

fn state_of(side: &crate::diff::Side) -> FileState {
    FileState {
        blob: side.file.blob,
        executable: side.executable,
        mode: None,
    }
}

/// What stands at a path on disk.
enum OnDisk {
    /// Nothing.
    Absent,
    /// A regular file: blob (hex SHA-256), size in bytes, executable bit.
    File(Digest, u64, bool),
    /// A link, a directory or a special file.
    Other,
}

/// The entry at `path`, never followed through a link; a regular file is hashed (and copied
/// into the store when `store` is set).
fn on_disk(engine: &Engine, path: &Path, store: bool) -> Result<OnDisk, AbortError> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(_) => return Ok(OnDisk::Absent),
    };
    if !md.is_file() {
        return Ok(OnDisk::Other);
    }
    let exec = md.permissions().mode() & 0o100 != 0;
    let (blob, bytes) = if store {
        engine.store().ingest_file(path)?
    } else {
        crate::snapshot::hash_file(path)?
    };
    Ok(OnDisk::File(blob, bytes, exec))
}

/// The permission bits of the regular file at `path` (not followed through a link).
fn file_mode(path: &Path) -> Option<u32> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o777)
}

/// What an in-place abort will do, found before anything changes.
struct InPlacePlan {
    /// Paths that stop it, sorted.
    conflicts: Vec<PathConflict>,
    /// The journal's operations.
    ops: Vec<JournalOp>,
    /// The steps to report.
    steps: Vec<AbortStep>,
    /// Unrecorded work found on disk, saved first.
    saved: Vec<SavedFile>,
}

impl Engine {
    /// The paths whose disk state another applied session wrote after this session opened:
    /// the other session's post state for the path is on disk now and differs from this
    /// session's base (a session applied before this one opened is already in its base, so it
    /// never counts). Abort leaves those paths as they are. Path → that session's id.
    fn written_by_others_since(
        &self,
        id: &str,
        base: &Tree,
        now: &Tree,
    ) -> Result<BTreeMap<String, String>, AbortError> {
        let mut out = BTreeMap::new();
        for other in session::list(self.store())? {
            if other == id {
                continue;
            }
            let Ok((s, st)) = session::load(self.store(), &other) else {
                continue;
            };
            if s.status != Status::Applied {
                continue;
            }
            let obase = self.tree(&s.base_snapshot, st.base_executable())?;
            let ocur = self.tree(&s.current_snapshot, st.current_executable())?;
            let state = |t: &Tree, p: &WorkspacePath| {
                t.snapshot
                    .get(p.as_str())
                    .map(|f| (f.blob, t.is_executable(p)))
            };
            for c in changes(&obase, &ocur) {
                let theirs = state(&ocur, &c.path);
                if theirs != state(base, &c.path) && theirs == state(now, &c.path) {
                    out.insert(c.path.to_string(), other.to_string());
                }
            }
        }
        Ok(out)
    }

    /// Aborts session `id` with default options; see [`Engine::abort_with`].
    ///
    /// # Errors
    /// As [`Engine::abort_with`].
    pub fn abort(&self, id: &str) -> Result<Session, AbortError> {
        let opts = AbortOptions::default();
        Ok(self.abort_with(id, &opts, &mut super::NoObserver)?.session)
    }

    /// Aborts the session: status becomes `aborted`; an in-place session's workspace goes back
    /// to the base; a checkout directory's member files are removed. Every file removed or
    /// overwritten whose content no patch recorded is stored first and listed (module docs).
    ///
    /// # Errors
    /// [`AbortError::NotOpen`]; [`AbortError::Conflict`] when a directory that must become a
    /// file again holds files abort does not remove, or a path holds something other than a
    /// regular file (nothing changed then); [`AbortError::Unsafe`]; store, snapshot and
    /// journal errors.
    ///
    /// # Events
    /// [`crate::events::EventKind::Aborted`] with [`AbortOptions::reason`] once the session is
    /// aborted (not for a dry run). A failure is returned, not emitted.
    pub fn abort_with(
        &self,
        id: &str,
        opts: &AbortOptions,
        observer: &mut dyn super::Observer,
    ) -> Result<AbortOutcome, AbortError> {
        let out = self.abort_inner(id, opts)?;
        if out.written {
            let reason = opts
                .reason
                .as_deref()
                .unwrap_or(AbortOptions::DEFAULT_REASON);
            observer.event(&crate::events::EventKind::Aborted {
                reason: reason.to_owned(),
            });
        }
        Ok(out)
    }

    fn abort_inner(&self, id: &str, opts: &AbortOptions) -> Result<AbortOutcome, AbortError> {
        let guard = self.locked(id, false)?;
        let (session, state) = (guard.session(), guard.state());
        if session.status == Status::Aborted && !state.in_place && !opts.dry_run {
            // An abort interrupted while it removed the checkout's files: finish that (the
            // session is aborted already; nothing of it is written again).
            if let Some(outcome) = self.finish_checkout_abort(session, state)? {
                return Ok(outcome);
            }
        }
        if session.status != Status::Open {
            return Err(AbortError::NotOpen {
                id: id.to_owned(),
                status: session.status,
            });
        }
        if state.in_place {
            self.abort_in_place(id, guard, opts)
        } else {
            self.abort_checkout(guard, opts)
        }
    }

    fn snapshot_for_abort(
        &self,
        dir: &Path,
        manifest: &crate::manifest::Manifest,
        dry_run: bool,
        excludes: &[String],
    ) -> Result<SnapshotOutcome, AbortError> {
        let mut opts = self.snapshot_options(manifest)?;
        opts.exclude.extend(excludes.iter().cloned());
        if dry_run {
            return Ok(snapshot_dir(dir, &opts)?);
        }
        let (outcome, _) = self.store().snapshot_into(dir, &opts)?;
        Ok(outcome)
    }

    fn abort_in_place(
        &self,
        id: &str,
        mut guard: LockedSession<'_>,
        opts: &AbortOptions,
    ) -> Result<AbortOutcome, AbortError> {
        let (session, state) = (guard.session(), guard.state());
        let root = self.workspace().root().to_path_buf();
        let manifest = self.manifest_of(state, session)?;
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        // The workspace judged with the base's rules: files hidden by a rule the agent added
        // and files over the size limit are the agent's too (module base_view).
        let limit = self.snapshot_options(&manifest)?.max_file_bytes;
        let view = base_view::base_view(self, &root, &base, state, &manifest, limit)?;
        let now = self.snapshot_for_abort(&root, &manifest, opts.dry_run, &view.excludes)?;
        let now_tree = Tree::from_parts(self.store(), now.snapshot.clone(), now.executable.clone());
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        // Paths that another session applied since are that session's, not this agent's.
        let theirs = self.written_by_others_since(id, &base, &now_tree)?;
        let mut kept: Vec<KeptPath> = Vec::new();
        let mut list: Vec<Change> = Vec::new();
        for c in changes(&now_tree, &base) {
            match theirs.get(c.path.as_str()) {
                Some(other) => kept.push(KeptPath {
                    path: c.path.clone(),
                    reason: format!("written by applied session {other}"),
                }),
                None => list.push(c),
            }
        }
        // Additions the snapshot of the moment does not hold (a base path missing from it is
        // in `list` already, read from disk by the plan): stored (streamed) unless a dry run.
        for p in base_view::missing_from(&view, &now.snapshot) {
            if base.snapshot.get(p.as_str()).is_some() || theirs.contains_key(p.as_str()) {
                continue;
            }
            if let OnDisk::File(blob, bytes, executable) =
                on_disk(self, &p.to_fs_path(&root), !opts.dry_run)?
            {
                list.push(Change {
                    path: p.clone(),
                    status: crate::diff::ChangeStatus::Deleted,
                    old: Some(crate::diff::Side {
                        file: SnapshotFile {
                            path: p,
                            blob,
                            bytes,
                        },
                        executable,
                    }),
                    new: None,
                });
            }
        }
        list.sort_by(|a, b| a.path.cmp(&b.path));
        kept.extend(self.keep_left_out_additions(&mut list, &base, state, &manifest)?);
        kept.sort_by(|a, b| a.path.cmp(&b.path));
        for c in &list {
            if let Some(reason) = crate::path::forbidden_path(&c.path) {
                return Err(AbortError::Unsafe {
                    path: c.path.to_string(),
                    reason: reason.into(),
                });
            }
        }
        let InPlacePlan {
            conflicts,
            ops,
            steps,
            saved,
        } = self.plan_in_place_abort(&list, &root, &current, opts.dry_run)?;
        if !conflicts.is_empty() {
            return Err(AbortError::Conflict {
                id: id.into(),
                conflicts,
            });
        }
        if opts.dry_run {
            return Ok(AbortOutcome {
                session: guard.release().0,
                steps,
                saved,
                checkout: None,
                checkout_kept: false,
                written: false,
                kept,
            });
        }
        // The saved list is durable before the journal starts: a crash from here on leaves
        // the list, and the blobs are in the store.
        guard.state_mut().saved = Some(SavedWork {
            snapshot: Some(now.snapshot.identity()),
            executable: now.executable.clone(),
            files: saved.clone(),
        });
        guard.checkpoint()?;
        let journal = Journal {
            schema: crate::journal::JOURNAL_SCHEMA.into(),
            session: id.to_owned(),
            final_status: Status::Aborted,
            ops,
        };
        self.run_journal(&journal)?;
        // The journal's last step wrote the status (journal::finish, under this guard's
        // lock); the guard goes without writing again.
        let (mut session, _) = guard.release();
        session.status = Status::Aborted;
        Ok(AbortOutcome {
            session,
            steps,
            saved,
            checkout: None,
            checkout_kept: false,
            written: true,
            kept,
        })
    }

    /// Takes out of `list` the additions (paths abort would delete) that the base's rules
    /// leave out — its `exclude`, ignore files as in the base, and the base's tracked set
    /// recorded at open — so abort never deletes them, whatever the ignore files say now (an
    /// agent that empties .gitignore does not make abort delete secret.env).
    /// Returns the paths taken out, each with the base's rule.
    fn keep_left_out_additions(
        &self,
        list: &mut Vec<Change>,
        base: &Tree,
        state: &SessionState,
        manifest: &crate::manifest::Manifest,
    ) -> Result<Vec<KeptPath>, AbortError> {
        // Files the base's rules leave out are never touched, whatever the ignore files say
        // now (an agent that empties .gitignore does not make abort delete secret.env).
        let added: Vec<&Change> = list.iter().filter(|c| c.new.is_none()).collect();
        if added.is_empty() {
            return Ok(Vec::new());
        }
        {
            let mut files: BTreeMap<&str, SnapshotFile> = base
                .snapshot
                .files()
                .iter()
                .map(|f| (f.path.as_str(), f.clone()))
                .collect();
            for c in &added {
                if let Some(o) = &c.old {
                    files.insert(c.path.as_str(), o.file.clone());
                }
            }
            let in_base: BTreeSet<&str> = base
                .snapshot
                .files()
                .iter()
                .map(|f| f.path.as_str())
                .collect();
            let files: Vec<SnapshotFile> = files.into_values().collect();
            // The base's tracked set (recorded at open), not the index now: a file the user
            // `git add -f`-ed during the session was left out of the base, so it stays.
            let tracked = self.base_tracked(state)?;
            let left =
                crate::membership::left_out_files(&files, &manifest.exclude, &tracked, |f| {
                    if in_base.contains(f.path.as_str()) {
                        self.store().read_object(&f.blob)
                    } else {
                        Ok(Vec::new())
                    }
                })?;
            let left: BTreeMap<String, String> =
                left.into_iter().map(|l| (l.path, l.reason)).collect();
            let mut kept = Vec::new();
            list.retain(|c| {
                let reason = left.get(c.path.as_str()).filter(|_| c.new.is_none());
                if let Some(r) = reason {
                    kept.push(KeptPath {
                        path: c.path.clone(),
                        reason: format!("{r} in the base"),
                    });
                }
                reason.is_none()
            });
            Ok(kept)
        }
    }

    /// What an in-place abort of `list` (now → base) does: the conflicts (sorted), the
    /// journal ops, the steps to report and the files it saves first (unrecorded work found
    /// on disk under `root`; stored unless `dry_run`).
    fn plan_in_place_abort(
        &self,
        list: &[Change],
        root: &Path,
        current: &Tree,
        dry_run: bool,
    ) -> Result<InPlacePlan, AbortError> {
        // What is on disk at each path: the snapshot's entry, or, for a path the snapshot
        // rules hide now, the file itself.
        let deleted: BTreeSet<&str> = list
            .iter()
            .filter(|c| c.new.is_none())
            .map(|c| c.path.as_str())
            .collect();
        let mut conflicts = Vec::new();
        let mut ops: Vec<JournalOp> = Vec::new();
        let mut steps = Vec::new();
        let mut saved = Vec::new();
        for c in list {
            let target = c.path.to_fs_path(root);
            if let Some(reason) =
                crate::engine::apply::preconditions::blocked_parent(root, &c.path, &deleted)
            {
                conflicts.push(PathConflict::new(c.path.as_str(), reason));
                continue;
            }
            let on_disk: Option<(Digest, u64, bool)> = match &c.old {
                Some(o) => Some((o.file.blob, o.file.bytes, o.executable)),
                None => match std::fs::symlink_metadata(&target) {
                    // A case-insensitive file system: this name opens the file the list
                    // deletes under another spelling (the agent renamed `readme.md` or `Dir/`
                    // by case only). That file is not at this path: the journal stages the
                    // base content here before it deletes the other spelling.
                    Ok(md)
                        if md.is_file()
                            && crate::engine::apply::preconditions::same_file_as_a_deletion(
                                root,
                                c.path.as_str(),
                                &md,
                                &deleted,
                            ) =>
                    {
                        None
                    }
                    Ok(md) if md.is_dir() && !md.file_type().is_symlink() => {
                        if let Some(r) = crate::engine::apply::preconditions::foreign_entry(
                            &target,
                            c.path.as_str(),
                            &deleted,
                        ) {
                            conflicts.push(PathConflict::new(c.path.as_str(), r));
                        }
                        None
                    }
                    _ => match on_disk(self, &target, !dry_run)? {
                        OnDisk::Absent => None,
                        OnDisk::File(b, n, x) => Some((b, n, x)),
                        OnDisk::Other => {
                            conflicts.push(PathConflict::new(
                                c.path.as_str(),
                                ConflictKind::NotRegularForAbort,
                            ));
                            None
                        }
                    },
                },
            };
            let post = c.new.as_ref().map(state_of);
            if let (Some((blob, _, exec)), Some(p)) = (on_disk, post)
                && p.blob == blob
                && p.executable == exec
            {
                continue; // already at the base
            }
            let recorded = match (on_disk, current.snapshot.get(c.path.as_str())) {
                (None, _) => true,
                (Some((blob, _, exec)), Some(f)) => {
                    f.blob == blob && current.is_executable(&c.path) == exec
                }
                (Some(_), None) => false,
            };
            if let (Some((blob, bytes, executable)), false) = (on_disk, recorded) {
                saved.push(SavedFile {
                    path: c.path.clone(),
                    blob,
                    bytes,
                    executable,
                    mode: file_mode(&target),
                });
            }
            steps.push(AbortStep {
                path: c.path.clone(),
                action: match (on_disk, post) {
                    (_, None) => AbortAction::Delete,
                    (None, Some(_)) => AbortAction::Create,
                    (Some(_), Some(_)) => AbortAction::Restore,
                },
                saved: !recorded,
            });
            let mut op = journal_op(c);
            op.pre = on_disk.map(|(blob, _, executable)| FileState {
                blob,
                executable,
                mode: None,
            });
            ops.push(op);
        }
        PathConflict::sort(&mut conflicts);
        Ok(InPlacePlan {
            conflicts,
            ops,
            steps,
            saved,
        })
    }
}
