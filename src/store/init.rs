//! Making a store (`genesis init`; `open` and `bpt` when there is none): built whole in a
//! directory beside it, then renamed into place (DESIGN section 3), so that no process ever
//! sees a half-made store, and of two processes making the same store at once one makes it and
//! the other finds it made (`created` false), as a second `genesis init` does.

use std::path::Path;

use super::{FORMAT_LINE, Store, StoreError, fsync_dir, io_err, write_atomic};

/// The sub-directories every store has.
const SUBDIRS: [&str; 5] = ["objects", "snapshots", "sessions", "journal", "tmp"];

impl Store {
    /// Creates the store at `dir` (and its parents) if it does not exist, and opens it.
    ///
    /// # Errors
    /// As [`Store::init_with`].
    pub fn init(dir: &Path) -> Result<Store, StoreError> {
        Store::init_with(dir, &[]).map(|(s, _)| s)
    }

    /// Creates the store at `dir` with the extra top-level `files` (name, bytes) if it does
    /// not exist, and opens it; `true` when this call made it. The store is built in
    /// `PARENT/.NAME.init-PID-N` and renamed to `dir`: when another process made `dir`
    /// meanwhile, what was built is removed and that store is opened (`false`).
    ///
    /// # Errors
    /// [`StoreError::NotAStore`] if `dir` exists, is not empty and is not a store;
    /// [`StoreError::Io`] naming the path on file-system failure.
    pub fn init_with(dir: &Path, files: &[(&str, &[u8])]) -> Result<(Store, bool), StoreError> {
        if dir.join("format").exists() {
            return Store::open(dir).map(|s| (s, false));
        }
        if dir.exists() {
            let mut entries = std::fs::read_dir(dir).map_err(io_err(dir))?;
            if entries.next().is_some() {
                return Err(StoreError::NotAStore(dir.into()));
            }
        }
        // A relative single name (`--store newstore`) has the parent "": the current directory.
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
            // `.`, `..`, `/`: nothing to rename; made in place.
            build(dir, files)?;
            return Store::open(dir).map(|s| (s, true));
        };
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        let tmp = (0u32..)
            .map(|n| parent.join(format!(".{name}.init-{}-{n}", std::process::id())))
            .find(|t| !t.exists())
            .expect("a free name");
        let built = build(&tmp, files);
        let renamed = built.and_then(|()| std::fs::rename(&tmp, dir).map_err(io_err(dir)));
        match renamed {
            Ok(()) => {
                fsync_dir(parent)?;
                Store::open(dir).map(|s| (s, true))
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                if dir.join("format").exists() {
                    // Another process made it first: that store is the one.
                    Store::open(dir).map(|s| (s, false))
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// Writes a whole store into `dir` (made if missing): the sub-directories, `files`, then
/// `format`, the file that makes it a store, and syncs it.
fn build(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), StoreError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    for sub in SUBDIRS {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(io_err(&d))?;
    }
    for (name, bytes) in files {
        write_atomic(dir, name, bytes)?;
    }
    write_atomic(dir, "format", FORMAT_LINE.as_bytes())?;
    fsync_dir(dir)
}
