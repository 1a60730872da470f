//! Copying workspace files into the store as blobs: a snapshot into the store
//! ([`Store::snapshot_into`]) and a single file ([`Store::ingest_file`]). Each new object is
//! written as everywhere in the store (DESIGN section 3): a temp file in `tmp/`, `fsync`,
//! rename to `objects/ab/cdef…`, and an `fsync` of each object directory that gained one (once
//! per directory at the end of a snapshot, not once per object).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

use super::{SnapshotIntoError, Store, StoreError, codec, fsync_dir, io_err};
use crate::hash::Digest;
use crate::snapshot::{Content, SnapshotOutcome};

/// Threads that read files into the store in a snapshot, at least: each new object waits on
/// its own `fsync` before its rename (DESIGN section 3), and a file system commits concurrent
/// `fsync`s together (on ext4, 25,000 small files: 29.8 s with 2 threads, 8.9 s with 8; more
/// gained nothing).
const INGEST_THREADS: usize = 8;

/// The digest, the length in bytes, and the object directory when the object was added.
type Ingested = (Digest, u64, Option<PathBuf>);

impl Store {
    /// Snapshots the tree at `root` into the store: files unchanged since the last snapshot
    /// of that tree (stat cache) are not read; every other file is read **once**, hashed and
    /// copied into the store on the way (kept only if the object was missing); then the
    /// snapshot document and its executable bits are stored. Returns the outcome and how many
    /// blobs were added.
    ///
    /// # Errors
    /// Snapshot errors (as [`crate::snapshot::snapshot_dir`]) and store write errors.
    pub fn snapshot_into(
        &self,
        root: &Path,
        opts: &crate::snapshot::SnapshotOptions,
    ) -> Result<(SnapshotOutcome, usize), SnapshotIntoError> {
        let mut opts = opts.clone();
        let stat_cache = self.stat_cache_path(root);
        opts.stat_cache = Some(stat_cache.clone());
        // Blobs this snapshot stored, counted once each (over both tries): two files with the
        // same content may both be written by concurrent threads (the second rename replaces
        // the first with the same bytes), which must not count twice.
        let added = Mutex::new(std::collections::HashSet::new());
        let outcome = match self.snapshot_into_once(root, &opts, &added, true)? {
            Some(outcome) => outcome,
            None => {
                // A cache gave an identity the files do not have (damaged, though its checksum
                // matched): the caches are removed and the snapshot taken again, every file read.
                let _ = std::fs::remove_file(&stat_cache);
                let _ = std::fs::remove_file(stat_cache.with_extension("tree"));
                let _ = std::fs::remove_file(stat_cache.with_extension("recent"));
                self.snapshot_into_once(root, &opts, &added, false)?
                    .expect("a snapshot without caches is not retried")
            }
        };
        let added = added.into_inner().unwrap_or_else(|e| e.into_inner()).len();
        Ok((outcome, added))
    }

    /// [`Store::snapshot_into`] once, with `opts.stat_cache` set, adding each blob it stores
    /// to `added`: `None` when `retry` and the store found the identity a cache gave wrong
    /// ([`Store::cache_gave_wrong_identity`]), before anything was stored under it.
    fn snapshot_into_once(
        &self,
        root: &Path,
        opts: &crate::snapshot::SnapshotOptions,
        added: &Mutex<std::collections::HashSet<Digest>>,
        retry: bool,
    ) -> Result<Option<SnapshotOutcome>, SnapshotIntoError> {
        use crate::snapshot::{Hashing, snapshot_dir_pending};
        let started = crate::statcache::now_ns();
        let touched = Mutex::new(BTreeSet::new());
        let ingest =
            |path: &Path, content: Content<'_>| -> Result<(Digest, u64), SnapshotIntoError> {
                let (digest, len, new_dir) =
                    self.ingest_content(path, content)
                        .map_err(|source| match source {
                            // The source file's own error (a link now, unreadable), as a snapshot
                            // reports it.
                            StoreError::Source(e) => SnapshotIntoError::Snapshot(*e),
                            source => SnapshotIntoError::Ingest {
                                path: path.into(),
                                source,
                            },
                        })?;
                if let Some(d) = new_dir {
                    if let Ok(mut a) = added.lock() {
                        a.insert(digest);
                    }
                    if let Ok(mut t) = touched.lock() {
                        t.insert(d);
                    }
                }
                Ok((digest, len))
            };
        // A cache hit names a blob that was stored when the entry was made, and the store
        // deletes an object only in `genesis gc`, which first removes every stat cache naming
        // it ([`crate::gc`]): no need to look for it (one `stat` per file saved).
        let present = |_: &Digest| true;
        let (outcome, pending) = snapshot_dir_pending(
            root,
            opts,
            &Hashing {
                hash: &ingest,
                trust_cached: &present,
                stores: true,
                threads: Some(INGEST_THREADS.max(rayon::current_num_threads())),
            },
        )?;
        let io = |source: StoreError| SnapshotIntoError::Ingest {
            path: self.root.clone(),
            source,
        };
        let dirs = std::mem::take(&mut *touched.lock().unwrap_or_else(|e| e.into_inner()));
        for d in dirs {
            fsync_dir(&d).map_err(io)?;
        }
        let mut outcome = outcome;
        // Directories the tree cache knew have no node: built if the store lacks one of them.
        outcome
            .snapshot
            .materialise_nodes(&outcome.executable, &|id| self.has_object(id));
        let snapshot = &outcome.snapshot;
        let known = pending
            .as_ref()
            .and_then(|p| p.known_document(&snapshot.identity()));
        // The fold check, when the summary written below records it, on one thread while the
        // snapshot is written on the other (otherwise only a caller that reports collisions
        // makes it: `genesis -q snapshot` does not).
        let fold = pending.as_ref().is_some_and(|p| p.needs_fold_check());
        let (_, written) = rayon::join(
            || {
                if fold {
                    drop(snapshot.fold_collisions());
                }
            },
            || self.write_snapshot_known(snapshot, &outcome.executable, known.as_ref()),
        );
        let document = match written {
            Err(e) if retry && Store::cache_gave_wrong_identity(&e, snapshot.format()) => {
                return Ok(None);
            }
            Err(e) => {
                // The files were read and their blobs stored: the cache still holds, so the
                // next snapshot does not read them all again (reviewer, session 9).
                if let Some(p) = pending {
                    p.finish_failed(snapshot);
                }
                return Err(e.into());
            }
            Ok(document) => document,
        };
        if let Some(p) = pending {
            // The document's fields are kept only once it is older than the racy window:
            // a document rewritten within the same timestamp tick could keep them.
            p.finish(
                &outcome.snapshot,
                document.filter(|k| crate::statcache::settled(k, started)),
            );
        }
        Ok(Some(outcome))
    }

    /// Copies the regular file `source` into the store (read once, hashed on the way; kept
    /// only if the object was missing). Returns its blob (hex SHA-256 of the bytes) and size
    /// in bytes.
    ///
    /// # Errors
    /// [`StoreError::Io`] naming `source` or the object written.
    pub fn ingest_file(&self, source: &Path) -> Result<(Digest, u64), StoreError> {
        let (d, n, _) = self.ingest_with(source, codec::Limits::DEFAULT)?;
        Ok((d, n))
    }

    /// [`Store::ingest_file`] with the codec's buffer sizes given (small ones in tests drive
    /// the streaming path); also returns the object directory when the object was added.
    pub(super) fn ingest_with(
        &self,
        source: &Path,
        limits: codec::Limits,
    ) -> Result<Ingested, StoreError> {
        let mut input =
            crate::snapshot::open_regular(source).map_err(|e| StoreError::Source(Box::new(e)))?;
        self.ingest_stream(&mut input, source, limits)
    }

    /// Stores one file the snapshot's hashing pass read ([`Content`]).
    fn ingest_content(&self, source: &Path, content: Content<'_>) -> Result<Ingested, StoreError> {
        match content {
            Content::Bytes(data) => self.ingest_bytes(data),
            Content::Stream(file) => self.ingest_stream(file, source, codec::Limits::DEFAULT),
        }
    }

    /// Stores a whole file's bytes, already in memory: hashed first, so that a blob the store
    /// has costs no compression and no temp file.
    fn ingest_bytes(&self, data: &[u8]) -> Result<Ingested, StoreError> {
        let digest = Digest::of(data);
        let len = data.len() as u64;
        // Present: freshened as in write_object, so that an old unreferenced blob reused now
        // counts as young for gc's age rule (DESIGN 3).
        if self.has_object(&digest) && self.freshen(&digest) {
            return Ok((digest, len, None));
        }
        let path = self.object_path(&digest);
        let frame = codec::compress(data).map_err(io_err(&path))?;
        let mut tmp = self.object_temp()?;
        tmp.write_all(&frame).map_err(io_err(&path))?;
        let dir = self.persist_object(tmp, &path)?;
        Ok((digest, len, Some(dir)))
    }

    /// Reads `input` to its end once: hashes it while writing it compressed to a temp file in
    /// `tmp/`, then moves it to `objects/ab/cdef…` unless that object exists.
    fn ingest_stream(
        &self,
        input: &mut File,
        source: &Path,
        limits: codec::Limits,
    ) -> Result<Ingested, StoreError> {
        let mut tmp = self.object_temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let (digest, len) =
            codec::encode(input, tmp.as_file_mut(), limits).map_err(|e| match e {
                codec::Fault::Read(e) => io_err(source)(e),
                codec::Fault::Write(e) => io_err(&tmp_path)(e),
            })?;
        if self.has_object(&digest) && self.freshen(&digest) {
            return Ok((digest, len, None));
        }
        let path = self.object_path(&digest);
        let dir = self.persist_object(tmp, &path)?;
        Ok((digest, len, Some(dir)))
    }

    /// A new temp file in `tmp/` (made if missing).
    fn object_temp(&self) -> Result<NamedTempFile, StoreError> {
        let tmp_dir = self.root.join("tmp");
        let make = || {
            tempfile::Builder::new()
                .prefix(".tmp-")
                .tempfile_in(&tmp_dir)
        };
        match make() {
            Ok(t) => Ok(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&tmp_dir).map_err(io_err(&tmp_dir))?;
                make().map_err(io_err(&tmp_dir))
            }
            Err(e) => Err(io_err(&tmp_dir)(e)),
        }
    }

    /// Makes the temp file `tmp` durable (`fsync`) and renames it to the object file `path`
    /// (its directory made if missing). Returns that directory, which the caller syncs.
    fn persist_object(&self, tmp: NamedTempFile, path: &Path) -> Result<PathBuf, StoreError> {
        let dir = path
            .parent()
            .expect("object path has a parent")
            .to_path_buf();
        tmp.as_file().sync_all().map_err(io_err(path))?;
        self.upgrade_format()?;
        match tmp.persist(path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::NotFound => {
                // The fan-out directory `objects/ab` does not exist yet.
                std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
                e.file.persist(path).map_err(|e| io_err(path)(e.error))?;
            }
            Err(e) => return Err(io_err(path)(e.error)),
        }
        Ok(dir)
    }
}
