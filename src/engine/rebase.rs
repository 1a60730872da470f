//! `rebase` (DESIGN section 4): move an open session onto the workspace as it is now.
//!
//! Per path, a three-way merge ([`crate::merge::merge_file`]): base = the session's base
//! snapshot, session = its current snapshot, workspace = a snapshot of the workspace now (the
//! engine's rules: the manifest's excludes, the index of the moment). A clean result is
//! recorded as one patch from the workspace's snapshot (which becomes the session's base) to
//! the merged tree, through the rules of a submitted diff; the patches that led from the old
//! base are kept in the state ([`crate::session::Rebased`]). Overlapping edits record nothing
//! and are returned as conflicts; with `markers`, line conflicts are recorded with conflict
//! markers in the files instead (whole-file conflicts still record nothing).

use super::*;
use crate::merge::{ConflictKind as MergeKind, Hunk, Merged, Side, merge_file};
use crate::session::Rebased;

/// Options of [`Engine::rebase`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RebaseOptions {
    /// Record line conflicts with git-style conflict markers (`<<<<<<< session`, `=======`,
    /// `>>>>>>> workspace`) instead of recording nothing.
    pub markers: bool,
}

/// One path that does not merge.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MergeConflict {
    /// The path.
    pub path: WorkspacePath,
    /// Why.
    pub kind: MergeKind,
    /// The overlapping regions (line conflicts; empty for whole-file conflicts).
    pub hunks: Vec<Hunk>,
}

/// What [`Engine::rebase`] did.
#[derive(Debug, Clone)]
pub struct RebaseOutcome {
    /// The session document after the rebase (unchanged when nothing was recorded).
    pub session: Session,
    /// The recorded patch (workspace snapshot → merged tree); `None` when nothing was recorded
    /// (conflicts, the session already on the workspace's snapshot, or a merge equal to the
    /// workspace).
    pub entry: Option<PatchEntry>,
    /// Whether the session was moved (its base is now `onto`).
    pub moved: bool,
    /// The base before the rebase.
    pub old_base: Digest,
    /// The workspace's snapshot the session was moved onto.
    pub onto: Digest,
    /// The paths that do not merge, sorted; empty on success. With `markers`, the line
    /// conflicts recorded with markers are listed too.
    pub conflicts: Vec<MergeConflict>,
    /// The paths the recorded patch changes (workspace → merged), sorted.
    pub changes: Vec<Change>,
    /// A `--checkout` session's directory, when the rebase left it as it was because it did
    /// not hold exactly the session's current snapshot (changes no patch recorded, or patches
    /// recorded as diffs). A checkout that held the current snapshot is rewritten to the
    /// merged tree.
    pub checkout_kept: Option<PathBuf>,
    /// With [`RebaseOutcome::checkout_kept`]: the snapshot that checkout was last made from
    /// or recorded from, so that its own changes can be recorded as a diff (`genesis diff
    /// FROM DIR | genesis patch SESSION -`); `patch --from` it is refused from now on
    /// ([`crate::engine::PatchSessionError::StaleCheckout`]).
    pub checkout_made_from: Option<Digest>,
    /// How many patches the session held before the rebase (0: it had none, so a moved
    /// session records no patch because there is nothing to carry over).
    pub replaced_patches: usize,
    /// Lines added by the recorded patch (text files); 0 when none was recorded.
    pub lines_added: u64,
    /// Lines removed by the recorded patch (text files); 0 when none was recorded.
    pub lines_removed: u64,
}

impl Engine {
    /// Moves the open session `id` onto the workspace as it is now (DESIGN section 4,
    /// `rebase`); see the module documentation. The verification is cleared. A `--checkout`
    /// session's directory is rewritten to the merged tree when it held exactly the current
    /// snapshot, else left as it was ([`RebaseOutcome::checkout_kept`]).
    ///
    /// # Errors
    /// [`EngineError::NotOpen`]; [`EngineError::RebaseRefused`] for an in-place session; the
    /// errors of a submitted diff
    /// ([`Engine::patch`]) when the merged tree breaks the patch rules; snapshot and store
    /// errors. Conflicts are not errors: they are in [`RebaseOutcome::conflicts`], with
    /// nothing recorded unless `markers` resolved them all.
    ///
    /// # Events
    /// [`EventKind::PatchRecorded`] when a patch was recorded (as `patch` emits it: the
    /// session changed and its verification is gone); none when nothing was recorded. A
    /// failure is returned, not emitted.
    pub fn rebase(
        &self,
        id: &str,
        opts: &RebaseOptions,
        observer: &mut dyn crate::events::Observer,
    ) -> Result<RebaseOutcome, EngineError> {
        let out = self.rebase_inner(id, opts)?;
        if let Some(e) = &out.entry {
            observer.event(&super::patch::patch_recorded(
                &out.session,
                e,
                out.changes.len(),
                (out.lines_added, out.lines_removed),
            ));
        }
        Ok(out)
    }

    fn rebase_inner(&self, id: &str, opts: &RebaseOptions) -> Result<RebaseOutcome, EngineError> {
        let mut guard = self.lock_open_session(id)?;
        let (mut session, mut state) = (guard.session().clone(), guard.state().clone());
        if state.in_place {
            return Err(EngineError::RebaseRefused {
                id: id.to_owned(),
                reason: "it is in-place: its changes are in the workspace itself".into(),
            });
        }
        let manifest = self.manifest_of(&state, &session)?;
        let base_tracked = self.base_tracked(&state)?;
        // A checkout holding exactly the current snapshot is rewritten to the merged tree; one
        // with changes no patch recorded (or patched by diffs only) is left as it is.
        let rewrite_checkout =
            self.checkout_holds_current(&session, &state, &manifest, &base_tracked)?;
        let root = self.workspace.root().to_path_buf();
        let (ws, _) = self
            .store
            .snapshot_into(&root, &self.snapshot_options(&manifest)?)?;
        self.store.write_snapshot(&ws.snapshot, &ws.executable)?;
        let onto = ws.snapshot.identity();
        let old_base = session.base_snapshot;
        let mut outcome = RebaseOutcome::unmoved(session.clone(), old_base, onto);
        if onto == old_base && ws.executable == state.base_executable() {
            return Ok(outcome);
        }
        let base = self.tree(&session.base_snapshot, state.base_executable())?;
        let current = self.tree(&session.current_snapshot, state.current_executable())?;
        let theirs = Tree::from_parts(&self.store, ws.snapshot.clone(), ws.executable.clone());

        let (merged, conflicts, blocking) = merge_trees(&base, &current, &theirs, opts.markers)?;
        outcome.conflicts = conflicts;
        if blocking {
            return Ok(outcome);
        }

        let new_tracked = crate::tracked::TrackedFiles::from_paths(
            ws.tracked_only.iter().map(WorkspacePath::as_str),
        );
        let (merged_snap, exec, list, entry) =
            match self.record_merged(id, &merged, &theirs, &manifest, &new_tracked) {
                Err(EngineError::LeftOut { paths }) => {
                    outcome.conflicts = left_out_conflicts(paths);
                    return Ok(outcome);
                }
                other => other?,
            };
        let mut entries = Vec::new();
        let mut snapshots = vec![SnapshotState {
            identity: onto,
            executable: ws.executable.clone(),
        }];
        if let Some(entry) = entry {
            snapshots.push(SnapshotState {
                identity: entry.after_snapshot,
                executable: exec.clone(),
            });
            outcome.entry = Some(entry.clone());
            entries.push(entry);
        }
        outcome.replaced_patches = session.patches.len();
        state.rebased.push(Rebased {
            onto,
            base: session.base_snapshot,
            patches: std::mem::take(&mut session.patches),
            snapshots: std::mem::take(&mut state.snapshots),
            verification: session.verification.take(),
        });
        session.base_snapshot = onto;
        session.current_snapshot = snapshots.last().map_or(onto, |s| s.identity);
        session.patches = entries;
        state.snapshots = snapshots;
        state.logs.clear();
        state.conflict_markers = outcome
            .conflicts
            .iter()
            .filter(|c| c.kind.has_markers())
            .map(|c| c.path.clone())
            .collect();
        state.base_tracked = Some(ws.tracked_only.clone());
        // Rewritten below, under the lock: it holds the new current snapshot.
        state.checkout_from = state
            .checkout_from
            .filter(|_| !rewrite_checkout)
            .or(rewrite_checkout.then_some(session.current_snapshot));
        if let Some(m) = ws.snapshot.get(session.package_manifest.as_str()) {
            state.manifest_blob = Some(m.blob);
        }
        let (s, st) = guard.parts_mut();
        (*s, *st) = (session.clone(), state.clone());
        // Written with the lock kept: the checkout is rewritten under it.
        guard.checkpoint()?;
        if let Some(dir) = state.checkout.as_ref().filter(|_| !rewrite_checkout) {
            outcome.checkout_kept = Some(dir.clone());
            outcome.checkout_made_from = state.checkout_from;
        }
        if let Some(dir) = state.checkout.as_ref().filter(|_| rewrite_checkout) {
            materialize(
                &self.store,
                &merged_snap,
                &exec,
                dir,
                &MaterializeOptions {
                    durable: false,
                    snapshot: self.snapshot_options(&manifest)?,
                    modes_from: None,
                    marker: None,
                },
            )?;
        }
        if outcome.entry.is_some() {
            let merged_tree = Tree::from_parts(&self.store, merged_snap.clone(), exec.clone());
            (outcome.lines_added, outcome.lines_removed) = line_stats(&theirs, &merged_tree, &list);
        }
        outcome.changes = list;
        outcome.moved = true;
        outcome.session = session;
        drop(guard);
        Ok(outcome)
    }
}

/// The merged files (path → bytes, executable bit) of every path any of the three trees holds,
/// the conflicts (sorted by path), and whether one of them cannot be recorded (a whole-file
/// conflict, or any conflict without `markers`).
type MergedTrees = (
    BTreeMap<WorkspacePath, (Vec<u8>, bool)>,
    Vec<MergeConflict>,
    bool,
);

fn merge_trees(
    base: &Tree,
    current: &Tree,
    theirs: &Tree,
    markers: bool,
) -> Result<MergedTrees, EngineError> {
    let mut conflicts = Vec::new();
    let mut paths: BTreeSet<WorkspacePath> = BTreeSet::new();
    for t in [base, current, theirs] {
        paths.extend(t.snapshot.files().iter().map(|f| f.path.clone()));
    }
    let mut merged: BTreeMap<WorkspacePath, (Vec<u8>, bool)> = BTreeMap::new();
    let mut blocking = false;
    for path in paths {
        let read = |t: &Tree| -> Result<Option<(Vec<u8>, bool)>, EngineError> {
            match t.snapshot.get(path.as_str()) {
                Some(f) => Ok(Some((t.read(f)?, t.is_executable(&path)))),
                None => Ok(None),
            }
        };
        let (b, s, w) = (read(base)?, read(current)?, read(theirs)?);
        fn side(x: &Option<(Vec<u8>, bool)>) -> Option<Side<'_>> {
            x.as_ref().map(|(data, executable)| Side {
                data,
                executable: *executable,
            })
        }
        match merge_file(side(&b), side(&s), side(&w)) {
            Merged::Clean(Some(file)) => {
                merged.insert(path, file);
            }
            Merged::Clean(None) => {}
            Merged::Conflict {
                kind,
                hunks,
                marked,
            } => {
                match marked {
                    Some(file) if markers => {
                        merged.insert(path.clone(), file);
                    }
                    _ => blocking = true,
                }
                conflicts.push(MergeConflict { path, kind, hunks });
            }
        }
    }
    // A file one side leaves where the other leaves files below it: no tree holds both.
    let dirs: std::collections::HashSet<&str> = merged
        .keys()
        .flat_map(|p| {
            let p = p.as_str();
            p.match_indices('/').map(move |(i, _)| &p[..i])
        })
        .collect();
    let clashes: Vec<WorkspacePath> = merged
        .keys()
        .filter(|p| dirs.contains(p.as_str()))
        .cloned()
        .collect();
    for path in clashes {
        blocking = true;
        conflicts.push(MergeConflict {
            path,
            kind: MergeKind::FileDirectory,
            hunks: Vec::new(),
        });
    }
    conflicts.sort_by(|a, b| a.path.cmp(&b.path));
    let blocking = blocking || (!conflicts.is_empty() && !markers);
    Ok((merged, conflicts, blocking))
}

/// What [`Engine::record_merged`] gives: the merged snapshot, its executable bits, the
/// changes from the workspace's snapshot, and the patch entry (`None` when there is none).
type Recorded = (
    Snapshot,
    BTreeSet<WorkspacePath>,
    Vec<Change>,
    Option<PatchEntry>,
);

impl Engine {
    /// Whether the session's `--checkout` directory holds exactly its current snapshot (with
    /// its executable bits), judged with the base's tracked files; `false` without one.
    fn checkout_holds_current(
        &self,
        session: &Session,
        state: &SessionState,
        manifest: &Manifest,
        base_tracked: &crate::tracked::TrackedFiles,
    ) -> Result<bool, EngineError> {
        let Some(dir) = &state.checkout else {
            return Ok(false);
        };
        let mut o = self.snapshot_options(manifest)?;
        o.tracked = std::sync::Arc::new(o.tracked.with_paths(base_tracked.iter()));
        Ok(match self.store.snapshot_into(dir, &o) {
            Ok((co, _)) => {
                co.snapshot.identity() == session.current_snapshot
                    && co.executable == state.current_executable()
            }
            Err(_) => false,
        })
    }

    /// Stores the merged tree and records it as a patch from the workspace's snapshot
    /// `theirs`, through the rules of a submitted diff (as `patch --from` does), so that what
    /// is recorded replays. Nothing in the session changes here.
    fn record_merged(
        &self,
        id: &str,
        merged: &BTreeMap<WorkspacePath, (Vec<u8>, bool)>,
        theirs: &Tree,
        manifest: &Manifest,
        new_tracked: &crate::tracked::TrackedFiles,
    ) -> Result<Recorded, EngineError> {
        let mut files = Vec::with_capacity(merged.len());
        let mut exec = BTreeSet::new();
        for (path, (data, x)) in merged {
            let blob = self.store.write_object(data)?;
            files.push(SnapshotFile {
                path: path.clone(),
                blob,
                bytes: data.len() as u64,
            });
            if *x {
                exec.insert(path.clone());
            }
        }
        // v0.1 or v0.2 by the tree's size, as every snapshot (DESIGN section 2).
        let merged_snap = Snapshot::with_executable(files, &exec, Some(&theirs.snapshot))
            .map_err(EngineError::SnapshotDocument)?;
        let merged_tree = Tree::from_parts(&self.store, merged_snap.clone(), exec.clone());
        let list = changes(theirs, &merged_tree);
        if list.is_empty() {
            return Ok((merged_snap, exec, list, None));
        }
        let text = super::patch_text::bounded_diff(theirs, &merged_tree, &list, manifest)?;
        let (snap, snap_exec, text) =
            self.patched_by_diff(id, &text, theirs, manifest, new_tracked)?;
        if snap.identity() != merged_snap.identity() || snap_exec != exec {
            return Err(EngineError::RebaseRefused {
                id: id.to_owned(),
                reason: format!(
                    "the merged tree {} does not come back from its own diff (got {})",
                    merged_snap.identity(),
                    snap.identity()
                ),
            });
        }
        let static_results = static_checks(manifest, self.workspace.root(), theirs, &merged_tree);
        let patch_digest = self.store.write_object(&text)?;
        self.store.write_snapshot(&snap, &snap_exec)?;
        let entry = PatchEntry {
            patch: patch_digest,
            before_snapshot: theirs.snapshot.identity(),
            after_snapshot: snap.identity(),
            obligations_ok: static_results.iter().all(|s| s.passed),
            acceptance: None,
        };
        Ok((merged_snap, exec, list, Some(entry)))
    }
}

impl RebaseOutcome {
    /// Nothing recorded yet: `session` as it is, from `old_base` onto `onto`.
    fn unmoved(session: Session, old_base: Digest, onto: Digest) -> Self {
        RebaseOutcome {
            session,
            entry: None,
            moved: false,
            old_base,
            onto,
            conflicts: Vec::new(),
            changes: Vec::new(),
            checkout_kept: None,
            checkout_made_from: None,
            replaced_patches: 0,
            lines_added: 0,
            lines_removed: 0,
        }
    }
}

/// Lines (added, removed) in the text files of `list` from `a` to `b`; (0, 0) when they
/// cannot be read (the events only report them).
fn line_stats(a: &Tree, b: &Tree, list: &[Change]) -> (u64, u64) {
    crate::diff::stats(a, b, list)
        .map(|st| {
            st.iter()
                .fold((0, 0), |(x, y), s| (x + s.added, y + s.removed))
        })
        .unwrap_or((0, 0))
}

/// The paths of a merged tree the workspace's rules leave out, as conflicts (nothing is
/// recorded: the result could never be reproduced from disk), sorted by path.
fn left_out_conflicts(paths: Vec<crate::membership::LeftOut>) -> Vec<MergeConflict> {
    let mut out: Vec<MergeConflict> = paths
        .into_iter()
        .filter_map(|l| WorkspacePath::new(&l.path).ok())
        .map(|path| MergeConflict {
            path,
            kind: MergeKind::LeftOut,
            hunks: Vec::new(),
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
