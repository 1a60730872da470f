//! The snapshot walk's threads: each collects the member files it meets into its own lists
//! ([`Visit`]), merged when the walk ends (see [`super::scan`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{ScannedFile, SkipReason, Skipped, SnapshotError, SnapshotOptions, StatKey};
use crate::path::WorkspacePath;

/// Threads for the directory walk: rayon's (`RAYON_NUM_THREADS`, else one per core), at
/// least 1.
pub(super) fn walk_threads() -> usize {
    rayon::current_num_threads().max(1)
}

/// What the walk's threads found, merged.
#[derive(Default)]
pub(super) struct ScanParts {
    pub(super) files: Vec<ScannedFile>,
    pub(super) skipped: Vec<Skipped>,
    /// Errors with the path they were found at (the smallest one is reported, so the error
    /// does not depend on which thread got there first).
    pub(super) errors: Vec<(PathBuf, SnapshotError)>,
}

/// Hands each walk thread a [`Visit`].
pub(super) struct Collector<'a> {
    pub(super) root: &'a Path,
    pub(super) opts: &'a SnapshotOptions,
    pub(super) count: &'a AtomicUsize,
    pub(super) shared: &'a Mutex<ScanParts>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Collector<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visit {
            root: self.root,
            opts: self.opts,
            count: self.count,
            shared: self.shared,
            parts: ScanParts::default(),
        })
    }
}

/// One walk thread: collects into its own lists, merged into `shared` when the thread ends.
struct Visit<'a> {
    root: &'a Path,
    opts: &'a SnapshotOptions,
    count: &'a AtomicUsize,
    shared: &'a Mutex<ScanParts>,
    parts: ScanParts,
}

impl Drop for Visit<'_> {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.parts);
        let mut all = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        if all.files.is_empty() {
            all.files = mine.files;
        } else {
            all.files.extend(mine.files);
        }
        all.skipped.extend(mine.skipped);
        all.errors.extend(mine.errors);
    }
}

impl ignore::ParallelVisitor for Visit<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        match self.entry(entry) {
            Ok(()) => ignore::WalkState::Continue,
            Err((at, e)) => {
                self.parts.errors.push((at, e));
                ignore::WalkState::Quit
            }
        }
    }
}

impl Visit<'_> {
    /// Files one walk entry: a member file, a skipped special file, or nothing (the root, a
    /// directory). An error comes with the path it concerns.
    fn entry(
        &mut self,
        entry: Result<ignore::DirEntry, ignore::Error>,
    ) -> Result<(), (PathBuf, SnapshotError)> {
        let root = self.root;
        let entry = entry.map_err(|e| {
            let e = walk_error(root, e);
            (error_at(&e, root), e)
        })?;
        if entry.depth() == 0 {
            return Ok(());
        }
        let Some(ft) = entry.file_type() else {
            return Ok(());
        };
        if ft.is_dir() {
            return Ok(());
        }
        let at = || entry.path().to_path_buf();
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let reason = special_reason(&ft);
        if reason == Some(SkipReason::Symlink)
            && (entry.file_name() == ".gitignore" || entry.file_name() == ".genesisignore")
        {
            // The walker would read the rules through the link (git does not): refuse rather
            // than let a file outside the tree decide membership.
            return Err((at(), SnapshotError::IgnoreFileIsLink(entry.path().into())));
        }
        if let Some(reason) = reason {
            self.parts.skipped.push(Skipped {
                path: rel_string_lossy(rel),
                reason,
            });
            return Ok(());
        }
        let rel_str = rel_to_str(rel)
            .ok_or_else(|| (at(), SnapshotError::NonUtf8Path(entry.path().into())))?;
        let path = WorkspacePath::new(rel_str).map_err(|source| {
            (
                at(),
                SnapshotError::InvalidPath {
                    fs_path: entry.path().into(),
                    source,
                },
            )
        })?;
        let md = entry.metadata().map_err(|e| (at(), walk_error(root, e)))?;
        let bytes = md.len();
        if bytes > self.opts.max_file_bytes {
            return Err((
                at(),
                SnapshotError::FileTooLarge {
                    path,
                    bytes,
                    limit: self.opts.max_file_bytes,
                },
            ));
        }
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.opts.max_files {
            return Err((
                at(),
                SnapshotError::TooManyFiles {
                    count: n,
                    limit: self.opts.max_files,
                },
            ));
        }
        self.parts.files.push(ScannedFile {
            path,
            fs_path: entry.into_path(),
            bytes,
            executable: is_executable(&md),
            stat: StatKey::of(&md),
        });
        Ok(())
    }
}

/// The path a walk error names, for ordering errors (the root when it names none).
fn error_at(e: &SnapshotError, root: &Path) -> PathBuf {
    match e {
        SnapshotError::Walk { path, .. } => path.clone(),
        _ => root.to_path_buf(),
    }
}

pub(super) fn is_executable(md: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    md.permissions().mode() & 0o100 != 0
}

pub(super) fn special_reason(ft: &std::fs::FileType) -> Option<SkipReason> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() {
        None
    } else if ft.is_symlink() {
        Some(SkipReason::Symlink)
    } else if ft.is_fifo() {
        Some(SkipReason::Fifo)
    } else if ft.is_socket() {
        Some(SkipReason::Socket)
    } else {
        Some(SkipReason::Device)
    }
}

/// `rel` as a `/`-separated UTF-8 workspace path: its bytes as they are when it is plainly
/// `name/name/…` (the walk joins names read from directories), else rebuilt from its
/// components; `None` if it is not UTF-8.
pub(super) fn rel_to_str(rel: &Path) -> Option<String> {
    let s = rel.to_str()?;
    let plain = !s.is_empty()
        && !s.starts_with('/')
        && !s.ends_with('/')
        && !s.starts_with("./")
        && !s.contains("//")
        && !s.contains("/./");
    if plain {
        return Some(s.to_owned());
    }
    let mut parts = Vec::new();
    for c in rel.components() {
        parts.push(c.as_os_str().to_str()?);
    }
    Some(parts.join("/"))
}

pub(super) fn rel_string_lossy(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

pub(super) fn walk_error(root: &Path, e: ignore::Error) -> SnapshotError {
    let path = error_path(&e).unwrap_or_else(|| root.to_path_buf());
    let source = match e.into_io_error() {
        Some(io) => io,
        None => std::io::Error::other("walk error"),
    };
    SnapshotError::Walk { path, source }
}

fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}
