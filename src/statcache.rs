//! The stat cache: path → `lstat` fields and blob, so a snapshot does not read files that have
//! not changed (like git's index and jj's tree state).
//!
//! Kept in the store as `statcache/<sha256 of the root's path>.json`, one per directory tree,
//! rewritten (temp file, rename) after each snapshot of that tree.
//!
//! **Racy entries** (git's "racy git" problem): a file written in the same timestamp tick as it
//! was hashed could change again without its times changing. So an entry is only cached when
//! both its modification and status-change times lie more than [`RACY_WINDOW_NS`] (2 s, more
//! than any Linux filesystem's timestamp granularity, including the kernel's coarse clock)
//! before the snapshot started; younger files are read again next time. A cached entry is used
//! only when size, mtime, ctime (which no `touch` can set back), inode and device all match.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::hash::Digest;
use crate::path::WorkspacePath;

/// Entries younger than this (nanoseconds) before the snapshot started are not cached.
pub const RACY_WINDOW_NS: i64 = 2_000_000_000;

const SCHEMA: &str = "genesis/stat-cache-v0.1";

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Entry {
    path: String,
    stat: StatKey,
    blob: Digest,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct File {
    schema: String,
    entries: Vec<Entry>,
}

/// A regular file found by [`crate::snapshot::scan`], not yet hashed.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Its workspace path.
    pub path: WorkspacePath,
    /// Where it is on disk.
    pub fs_path: PathBuf,
    /// Size from `lstat`, in bytes.
    pub bytes: u64,
    /// Whether the owner's executable bit is set.
    pub executable: bool,
    /// The `lstat` fields the stat cache compares.
    pub stat: StatKey,
}

/// The `lstat` fields that say a file is unchanged since it was last hashed: size,
/// modification and status-change times in nanoseconds, inode and device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StatKey {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status-change time, nanoseconds since the Unix epoch (changes on every write and chmod,
    /// and cannot be set back by `touch`).
    pub ctime_ns: i64,
    /// Inode number.
    pub ino: u64,
    /// Device number.
    pub dev: u64,
}

impl StatKey {
    /// The fields of `md` (from `lstat`).
    pub fn of(md: &std::fs::Metadata) -> StatKey {
        use std::os::unix::fs::MetadataExt;
        StatKey {
            size: md.len(),
            mtime_ns: md
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(md.mtime_nsec()),
            ctime_ns: md
                .ctime()
                .saturating_mul(1_000_000_000)
                .saturating_add(md.ctime_nsec()),
            ino: md.ino(),
            dev: md.dev(),
        }
    }
}

/// A hashed file as the cache records it: its size in bytes and its blob. Implemented by
/// [`crate::snapshot::SnapshotFile`].
pub trait Hashed {
    /// Size in bytes.
    fn bytes(&self) -> u64;
    /// SHA-256 of the content.
    fn blob(&self) -> Digest;
}

/// A loaded stat cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatCache {
    entries: HashMap<String, (StatKey, Digest)>,
}

/// Nanoseconds since the Unix epoch, now.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl StatCache {
    /// Reads the cache at `path`; a missing, unreadable or invalid cache (one with a member name
    /// twice included, see [`crate::json`]) is an empty one.
    pub fn load(path: &Path) -> StatCache {
        let Ok(bytes) = std::fs::read(path) else {
            return StatCache::default();
        };
        // A cache with a duplicated member name was edited: discarded like any unreadable one
        // (the tree is then read and hashed again), never half-trusted.
        match crate::json::from_slice::<File>(&bytes) {
            Ok(f) if f.schema == SCHEMA => StatCache {
                entries: f
                    .entries
                    .into_iter()
                    .map(|e| (e.path, (e.stat, e.blob)))
                    .collect(),
            },
            _ => StatCache::default(),
        }
    }

    /// The cached blob of `path`, if its `lstat` fields are exactly `stat`.
    pub fn lookup(&self, path: &str, stat: &StatKey) -> Option<Digest> {
        match self.entries.get(path) {
            Some((s, blob)) if s == stat => Some(*blob),
            _ => None,
        }
    }

    /// The cache after a snapshot that started at `started_ns`: every file (`files` and
    /// `hashed` in the same order) except the racy ones.
    pub fn from_scan<H: Hashed>(files: &[ScannedFile], hashed: &[H], started_ns: i64) -> StatCache {
        let limit = started_ns.saturating_sub(RACY_WINDOW_NS);
        StatCache {
            entries: files
                .iter()
                .zip(hashed)
                .filter(|(f, h)| {
                    f.stat.mtime_ns < limit && f.stat.ctime_ns < limit && f.stat.size == h.bytes()
                })
                .map(|(f, h)| (f.path.to_string(), (f.stat, h.blob())))
                .collect(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the cache to `path` (temp file in the same directory, rename).
    ///
    /// # Errors
    /// File-system errors.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut entries: Vec<Entry> = self
            .entries
            .iter()
            .map(|(p, (stat, blob))| Entry {
                path: p.clone(),
                stat: *stat,
                blob: *blob,
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        let bytes = serde_json::to_vec(&File {
            schema: SCHEMA.into(),
            entries,
        })
        .map_err(std::io::Error::other)?;
        let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        std::fs::write(tmp.path(), &bytes)?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_with_a_key_twice_is_discarded() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.json");
        let blob = Digest::of(b"x");
        let stat = r#"{"size":1,"mtime_ns":1,"ctime_ns":1,"ino":7,"dev":1}"#;
        let entry = format!(r#"{{"path":"a","stat":{stat},"blob":"{blob}"}}"#);
        std::fs::write(
            &p,
            format!(r#"{{"schema":"{SCHEMA}","entries":[{entry}]}}"#),
        )
        .unwrap();
        assert_eq!(StatCache::load(&p).len(), 1);
        // `blob` twice in the entry: the cache is not trusted at all.
        let twice = entry.replacen("\"blob\"", &format!("\"blob\":\"{blob}\",\"blob\""), 1);
        std::fs::write(
            &p,
            format!(r#"{{"schema":"{SCHEMA}","entries":[{twice}]}}"#),
        )
        .unwrap();
        assert!(StatCache::load(&p).is_empty());
    }
}
