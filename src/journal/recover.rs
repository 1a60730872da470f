//! Recovery (DESIGN section 6): finding the journals interrupted changes left, finishing each
//! (steps 2–4 again, with a rescue of files written since), and sweeping store temp files.

use std::path::Path;

use super::*;

/// The journals left by interrupted changes, sorted by session.
///
/// # Errors
/// [`JournalError::Invalid`] for a journal that cannot be parsed,
/// [`JournalError::DuplicateKey`] for one with a member name twice.
pub fn pending(store: &Store) -> Result<Vec<Journal>, JournalError> {
    let dir = journal_dir(store);
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    paths.sort();
    for p in paths {
        let bytes = std::fs::read(&p).map_err(|e| JournalError::Invalid {
            path: p.clone(),
            message: e.to_string(),
        })?;
        let j: Journal = crate::json::from_slice(&bytes).map_err(|e| match e {
            crate::json::JsonError::Duplicate(source) => JournalError::DuplicateKey {
                path: p.clone(),
                source,
            },
            e => JournalError::Invalid {
                path: p.clone(),
                message: e.to_string(),
            },
        })?;
        if j.schema != JOURNAL_SCHEMA {
            return Err(JournalError::Invalid {
                path: p,
                message: format!("schema {:?}", j.schema),
            });
        }
        // A journal is input like any other: its session must be the one its name says, and
        // its paths must be ones a session may write.
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if crate::session::SessionId::new(&j.session).is_err() || j.session != stem {
            return Err(JournalError::Invalid {
                path: p.clone(),
                message: format!(
                    "session {:?} is not a session id matching the file name",
                    j.session
                ),
            });
        }
        if let Some(op) = j
            .ops
            .iter()
            .find(|op| crate::path::forbidden_path(&op.path).is_some())
        {
            return Err(JournalError::Invalid {
                path: p.clone(),
                message: format!(
                    "path {}: {}",
                    op.path,
                    crate::path::forbidden_path(&op.path).unwrap_or_default()
                ),
            });
        }
        out.push(j);
    }
    Ok(out)
}

/// What recovery ([`crate::engine::Engine::recover`]) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoverOutcome {
    /// Sessions whose interrupted change was finished.
    pub finished: Vec<String>,
    /// Stray temp files removed from the store.
    pub temps_removed: usize,
    /// Files found at neither their pre nor their post state, copied into the store before
    /// the roll-forward replaced them, with their session (`genesis restore` brings them back).
    pub rescued: Vec<(String, Rescued)>,
}

/// Adds `rescued` to the session's saved files (DESIGN section 9), so `restore` finds them.
fn record_rescued(store: &Store, id: &str, rescued: &[Rescued]) -> Result<(), JournalError> {
    let (s, mut state) = session::load(store, id)?;
    let saved = state.saved.get_or_insert_with(Default::default);
    for r in rescued {
        saved.files.retain(|f| f.path != r.path);
        saved.files.push(crate::session::SavedFile {
            path: r.path.clone(),
            blob: r.blob,
            bytes: r.bytes,
            executable: r.executable,
            mode: Some(r.mode),
        });
    }
    saved.files.sort_by(|a, b| a.path.cmp(&b.path));
    session::save(store, &s, &state)?;
    Ok(())
}

/// Finishes every interrupted change (the caller holds the store lock), and removes temp files
/// that interrupted store writes left behind.
///
/// # Errors
/// As `execute` and `finish`; the journal stays, so recovery can be run again.
pub(crate) fn recover(store: &Store, root: &Path) -> Result<RecoverOutcome, JournalError> {
    let mut out = RecoverOutcome::default();
    for j in pending(store)? {
        let rescued = execute_with(store, root, &j, true)?;
        if !rescued.is_empty() {
            record_rescued(store, &j.session, &rescued)?;
            out.rescued
                .extend(rescued.into_iter().map(|r| (j.session.clone(), r)));
        }
        finish(store, &j)?;
        out.finished.push(j.session.clone());
    }
    out.temps_removed = sweep_store_temps(store);
    Ok(out)
}

/// Removes `.tmp-*` files of interrupted store writes: in `journal/` and `sessions/` (written
/// only under the lock, which the caller holds) all of them; in `objects/` and `snapshots/`
/// (written by `genesis snapshot` without the lock) only those older than ten minutes, so a
/// write in flight in another process is never disturbed.
fn sweep_store_temps(store: &Store) -> usize {
    let mut n = 0;
    let old = std::time::Duration::from_secs(600);
    let mut dirs = vec![
        (store.path().to_path_buf(), false),
        (store.path().join("journal"), false),
        (store.path().join("sessions"), false),
        (store.path().join("snapshots"), true),
    ];
    if let Ok(rd) = std::fs::read_dir(store.path().join("objects")) {
        dirs.extend(rd.flatten().map(|e| (e.path(), true)));
    }
    for (d, only_old) in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            if !name.to_str().is_some_and(|s| s.starts_with(".tmp-")) {
                continue;
            }
            let Ok(md) = e.metadata() else { continue };
            if !md.is_file() {
                continue;
            }
            let age = md
                .modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .unwrap_or_default();
            if (!only_old || age > old) && std::fs::remove_file(e.path()).is_ok() {
                n += 1;
            }
        }
    }
    n
}
