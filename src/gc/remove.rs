//! The sweep phase of [`super::gc`]: removing the plan in a crash-safe order.

use super::*;

/// Removes `plan` in order, each directory fsynced once its removals are done (before the
/// next kind of file goes), every step a fault-injection point (`remove PATH`). An object
/// modified after `cutoff` since the walk (freshened by a writer that does not hold the lock,
/// see `Store::write_object`) is kept, as git's prune checks the time again before it
/// unlinks. Returns the paths kept so.
pub(super) fn remove_all(
    store: &Store,
    plan: &[Removed],
    cutoff: SystemTime,
) -> Result<BTreeSet<PathBuf>, GcError> {
    let mut kept = BTreeSet::new();
    let mut dirty: BTreeSet<PathBuf> = BTreeSet::new();
    let mut last_kind = None;
    let flush = |dirty: &mut BTreeSet<PathBuf>| -> Result<(), GcError> {
        for d in std::mem::take(dirty) {
            fsync_dir(&d).map_err(|e| match e {
                StoreError::Io { path, source } => GcError::Remove { path, source },
                e => GcError::Store(e),
            })?;
        }
        Ok(())
    };
    for r in plan {
        if last_kind.is_some_and(|k| k != r.kind) {
            flush(&mut dirty)?;
        }
        last_kind = Some(r.kind);
        let path = store.path().join(&r.path);
        let remove_err = |source| GcError::Remove {
            path: path.clone(),
            source,
        };
        crate::fault::point(&format!("remove {}", path.display())).map_err(remove_err)?;
        if r.kind == RemovedKind::Object
            && std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t > cutoff)
        {
            kept.insert(r.path.clone());
            continue;
        }
        if r.path.is_absolute() {
            // A verify scratch directory outside the store (scratch.rs).
            match std::fs::remove_dir_all(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(remove_err(e)),
            }
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(remove_err(e)),
        }
        if let Some(parent) = path.parent() {
            dirty.insert(parent.to_path_buf());
        }
    }
    flush(&mut dirty)?;
    Ok(kept)
}
