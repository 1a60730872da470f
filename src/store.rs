//! The content-addressed store: blobs, snapshot documents and executable-bit sidecars.
//!
//! Layout (DESIGN section 3), under the store directory (`.genesis/` in the workspace by
//! default):
//!
//! ```text
//! format                        "genesis-store 3\n" (or 2, 1: read, upgraded on the first write)
//! objects/ab/cdef…              blobs and other objects (v0.2 tree nodes too), named by the hex SHA-256 of their raw
//!                               bytes, each file a zstd frame of them, tree objects packed
//!                               ([`packed`]; raw in stores of format 1; see [`codec`])
//! snapshots/<identity>.json     v0.1 snapshot documents (pretty JSON, 004 #/$defs/snapshot)
//! snapshots/<identity>.exec.json  {"executable": [paths…]} for that v0.1 snapshot
//! statcache/<key>.bin           stat cache of one directory tree (see crate::statcache)
//! statcache/<key>.tree          its tree cache (crate::tree::cache)
//! statcache/<key>.recent        its recent snapshots (crate::statcache::recent)
//! sessions/  journal/  tmp/     used by sessions and apply
//! ```
//!
//! Every write: temp file in the target directory → `fsync` → rename → `fsync` of the directory
//! ([`write_atomic`]). An object is checked against its name when read back; a mismatch is
//! [`StoreError::Corrupt`], and the content is never returned.
//!
//! Snapshots of both formats (DESIGN sections 2 and 3, [`crate::snapshot::SnapshotFormat`]):
//! - v0.1: `snapshots/<identity>.json` and its sidecar, as before; in addition, the canonical
//!   bytes the identity hashes (the document without `identity`) are stored as the object
//!   `<identity>`, so every stored snapshot also hashes to its name.
//! - v0.2: only objects: every node under its identity, the SHA-256 of its canonical bytes,
//!   stored packed and read back as those exact bytes ([`packed`]; the root's name is the
//!   tree's); no `snapshots/` file; executable bits inside the nodes.
//!
//! A reader tells them apart by what the store holds under the identity: a
//! `snapshots/<identity>.json` document is v0.1; otherwise an object that is a
//! `genesis/tree-v0.2` node is a v0.2 tree. (Any stored node names a tree, the sub-tree of its
//! directory, so a prefix can resolve to a sub-directory's node.)
//!
//! The executable-bit sidecar is keyed by identity, and the v0.1 identity does not cover
//! executable bits: when two trees differ only in executable bits, the sidecar holds the bits
//! of the last one stored. Sessions keep their own copy of the bits for each snapshot they use.

use crate::hash::Digest;
use crate::path::WorkspacePath;
use crate::snapshot::{Snapshot, SnapshotDocumentError};
use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

mod atomic;
pub mod codec;
mod ingest;
mod init;
pub mod packed;
mod trees;

use atomic::write_executable_bits;
pub use atomic::{fsync_dir, write_atomic, write_atomic_with};

/// The `format` file of a store this version creates: objects are zstd frames ([`codec`]),
/// tree objects packed ([`packed`]).
const FORMAT_LINE: &str = "genesis-store 3\n";
/// The `format` file of a store of Genesis before packed tree objects (every object a zstd
/// frame or raw). Read, and upgraded like [`FORMAT_LINE_RAW`], so a binary of format 2
/// refuses the store rather than report its packed nodes as corrupt.
const FORMAT_LINE_ZSTD: &str = "genesis-store 2\n";
/// The `format` file of a store of Genesis before compressed objects (all objects raw). This
/// version reads such a store and rewrites the line to [`FORMAT_LINE`] before it writes its
/// first object there, so an older binary refuses the store (not a store it knows) rather
/// than report its compressed objects as corrupt.
const FORMAT_LINE_RAW: &str = "genesis-store 1\n";

/// Errors of the store. Each names the store path or object involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No store at this path.
    #[error("{}: no Genesis store here; run `genesis init` (or pass --store DIR)", .0.display())]
    NotFound(PathBuf),
    /// The directory exists but is not a store this version understands.
    #[error("{}: not a Genesis store (missing or unknown format file)", .0.display())]
    NotAStore(PathBuf),
    /// An object or snapshot the caller asked for is not in the store.
    #[error("{kind} {digest} is not in the store {}", .store.display())]
    Missing {
        /// "object" or "snapshot".
        kind: &'static str,
        /// Its name.
        digest: Digest,
        /// The store directory.
        store: PathBuf,
    },
    /// No stored snapshot has this identity or prefix.
    #[error("no snapshot {prefix} in the store {}", .store.display())]
    NoSuchSnapshot {
        /// The identity or prefix asked for.
        prefix: String,
        /// The store directory.
        store: PathBuf,
    },
    /// Several stored snapshots start with this prefix.
    #[error("snapshot prefix {prefix} is ambiguous: {count} snapshots match ({}); give more characters", candidates.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// The prefix.
        prefix: String,
        /// How many match.
        count: usize,
        /// The identities that match, sorted.
        candidates: Vec<Digest>,
    },
    /// Another process holds the store lock.
    #[error("store {} is locked by {}; waited {waited_s} s (pass --wait SECONDS to wait longer)", .path.display(), .pid.map_or("another process".to_owned(), |p| format!("pid {p}")))]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// The holder's process id, when it wrote one.
        pid: Option<u32>,
        /// How long this process waited, in seconds.
        waited_s: u64,
    },
    /// Content whose hash is not its name.
    #[error("{}: corrupt store object: expected {expected}, content hashes to {actual}", .path.display())]
    Corrupt {
        /// The file in the store.
        path: PathBuf,
        /// Its name.
        expected: Digest,
        /// What its bytes hash to.
        actual: Digest,
    },
    /// A snapshot document in the store that is not valid.
    #[error("{}: invalid snapshot document: {source}", .path.display())]
    BadSnapshot {
        /// The file in the store.
        path: PathBuf,
        /// What is wrong.
        source: SnapshotDocumentError,
    },
    /// A stored v0.2 tree node that is not valid, or nodes that do not give the identity
    /// being written.
    #[error("{source}")]
    BadTree {
        /// The node's identity.
        identity: Digest,
        /// What is wrong (naming the node and the field).
        source: Box<crate::tree::NodeError>,
    },
    /// A JSON file in the store (snapshot document, executable-bit sidecar, acceptance record,
    /// BPT task record) with a member name twice in one object: Genesis never writes one, so
    /// it was edited; refused rather than read either way, with exit 2 like a key twice in
    /// any document Genesis reads (issue 9, item 3; see [`crate::json`]).
    #[error("{}: {source}", .path.display())]
    DuplicateKey {
        /// The file.
        path: PathBuf,
        /// The name and its JSON pointer.
        source: crate::json::DuplicateKey,
    },
    /// A source file changed between hashing and copying it into the store.
    #[error("{}: changed while it was copied into the store (expected {expected}, copied {actual}); snapshot again", .path.display())]
    SourceChanged {
        /// The file on disk.
        path: PathBuf,
        /// The hash taken during the snapshot.
        expected: Digest,
        /// The hash of what was copied.
        actual: Digest,
    },
    /// A file-system operation failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A document Genesis wrote into the store (the executable bits of a snapshot) is not
    /// JSON of the expected shape: it was edited or damaged (store corruption, exit 4).
    #[error("{}: {source}", .path.display())]
    BadDocument {
        /// The file.
        path: PathBuf,
        /// `serde_json`'s message, with line and column.
        source: crate::json::JsonError,
    },
    /// A source file to copy into the store could not be opened as a regular file (it is a
    /// link now, or unreadable).
    #[error(transparent)]
    Source(#[from] Box<crate::snapshot::SnapshotError>),
}

/// Why [`Store::snapshot_into`] failed.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotIntoError {
    /// Snapshotting the tree failed (as [`crate::snapshot::snapshot_dir`]).
    #[error(transparent)]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    /// Copying a file into the store failed (a store write, or a directory sync); `path` is
    /// the file copied or the store directory. Exit 4.
    #[error("{}: {source}", .path.display())]
    Ingest {
        /// The file being copied, or the store directory.
        path: PathBuf,
        /// The store's error.
        source: StoreError,
    },
    /// The store could not keep the snapshot: a stored document of the same identity is
    /// corrupt (for example a key twice, [`StoreError::DuplicateKey`]), or a write failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A Genesis store on disk.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    /// Whether the `format` file says [`FORMAT_LINE`] (else [`FORMAT_LINE_RAW`], until the
    /// first object write upgrades it).
    current_format: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Store {
    /// Opens the existing store at `dir`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if `dir` does not exist; [`StoreError::NotAStore`] if it has no
    /// `format` file saying `genesis-store 3`, `2` or `1`.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        if !dir.is_dir() {
            return Err(StoreError::NotFound(dir.into()));
        }
        // Read without blocking: a FIFO in its place is no store, not a wait (reviewer).
        let format = crate::regular::read(&dir.join("format")).map(String::from_utf8);
        let current = match format {
            Ok(Ok(s)) if s == FORMAT_LINE => true,
            Ok(Ok(s)) if s == FORMAT_LINE_RAW || s == FORMAT_LINE_ZSTD => false,
            _ => return Err(StoreError::NotAStore(dir.into())),
        };
        Ok(Store {
            root: dir.into(),
            current_format: std::sync::Arc::new(current.into()),
        })
    }

    /// Before the first compressed or packed object goes into a store of format 1 or 2, its
    /// `format` file is rewritten to format 3 (atomically; two processes doing it at once write the same line).
    fn upgrade_format(&self) -> Result<(), StoreError> {
        use std::sync::atomic::Ordering;
        if !self.current_format.load(Ordering::Acquire) {
            write_atomic(&self.root, "format", FORMAT_LINE.as_bytes())?;
            self.current_format.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// The store directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Where the object named `digest` lives: `objects/ab/cdef…`.
    pub fn object_path(&self, digest: &Digest) -> PathBuf {
        let hex = digest.to_hex();
        self.root.join("objects").join(&hex[..2]).join(&hex[2..])
    }

    /// Whether the object named `digest` is present (its content is not checked here).
    pub fn has_object(&self, digest: &Digest) -> bool {
        self.object_path(digest).is_file()
    }

    /// Stores `data` as an object (one zstd frame, [`codec`]; packed when `data` is the
    /// canonical bytes of a tree node or v0.1 snapshot, [`packed`]) and returns its name, the
    /// SHA-256 of `data`. Present objects are not rewritten.
    ///
    /// # Errors
    /// [`StoreError::Io`] on file-system failure.
    pub fn write_object(&self, data: &[u8]) -> Result<Digest, StoreError> {
        let digest = Digest::of(data);
        self.put_object(&digest, || match packed::pack(data) {
            Some(p) => Ok(p),
            None => codec::compress(data),
        })?;
        Ok(digest)
    }

    /// Writes the object `digest` as the file `encode` gives, unless it is present (then it
    /// is freshened: mtime now, git's freshen_loose_object, for gc, DESIGN 3).
    fn put_object(
        &self,
        digest: &Digest,
        encode: impl FnOnce() -> std::io::Result<Vec<u8>>,
    ) -> Result<(), StoreError> {
        let present = self.has_object(digest) && self.freshen(digest);
        if !present {
            let path = self.object_path(digest);
            let dir = path.parent().expect("object path has a parent");
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
            let file = encode().map_err(io_err(&path))?;
            self.upgrade_format()?;
            write_atomic(dir, &digest.to_hex()[2..], &file)?;
        }
        Ok(())
    }

    /// Sets the modification time of the object `digest` to now; false if that failed.
    fn freshen(&self, d: &Digest) -> bool {
        let now = std::time::SystemTime::now();
        File::open(self.object_path(d)).is_ok_and(|f| f.set_modified(now).is_ok())
    }

    /// Reads the object `digest` whole into memory (decompressed, [`codec`]), checking its
    /// bytes against its name. For objects of any size (blobs of workspace files) stream them
    /// with [`Store::copy_object_to`] instead.
    ///
    /// # Errors
    /// [`StoreError::Missing`] if absent; [`StoreError::Corrupt`] if its bytes hash to
    /// something else; [`StoreError::Io`] on read failure.
    pub fn read_object(&self, digest: &Digest) -> Result<Vec<u8>, StoreError> {
        let path = self.object_path(digest);
        let data = match crate::regular::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::Missing {
                    kind: "object",
                    digest: *digest,
                    store: self.root.clone(),
                });
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        codec::decode_bytes(data, digest).map_err(|actual| StoreError::Corrupt {
            path,
            expected: *digest,
            actual,
        })
    }

    /// Streams the object `digest` into `out` from its current position (decompressing it,
    /// [`codec`]), checking its hash, with memory bounded at any size; on a mismatch the bytes
    /// already written must be discarded by the caller. Returns the length in bytes.
    ///
    /// # Errors
    /// As [`Store::read_object`].
    pub fn copy_object_to(&self, digest: &Digest, out: &mut File) -> Result<u64, StoreError> {
        self.copy_object_named(digest, out, None)
    }

    /// [`Store::copy_object_to`], with write errors naming `dest` (the file being written)
    /// rather than the object read.
    ///
    /// # Errors
    /// As [`Store::read_object`]; write errors as [`StoreError::Io`] naming `dest`.
    pub fn copy_object_named(
        &self,
        digest: &Digest,
        out: &mut File,
        dest: Option<&Path>,
    ) -> Result<u64, StoreError> {
        self.copy_object_with(digest, out, dest, codec::Limits::DEFAULT)
    }

    fn copy_object_with(
        &self,
        digest: &Digest,
        out: &mut File,
        dest: Option<&Path>,
        limits: codec::Limits,
    ) -> Result<u64, StoreError> {
        let path = self.object_path(digest);
        let mut file = File::open(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                StoreError::Missing {
                    kind: "object",
                    digest: *digest,
                    store: self.root.clone(),
                }
            } else {
                io_err(&path)(e)
            }
        })?;
        match codec::decode_into(&mut file, digest, out, limits) {
            Ok(codec::Decoded::Ok(len)) => Ok(len),
            Ok(codec::Decoded::Corrupt(actual)) => Err(StoreError::Corrupt {
                path,
                expected: *digest,
                actual,
            }),
            Err(codec::Fault::Read(e)) => Err(io_err(&path)(e)),
            Err(codec::Fault::Write(e)) => Err(io_err(dest.unwrap_or(&path))(e)),
        }
    }

    fn snapshot_path(&self, identity: &Digest) -> PathBuf {
        self.root.join("snapshots").join(format!("{identity}.json"))
    }

    fn exec_path(&self, identity: &Digest) -> PathBuf {
        self.root
            .join("snapshots")
            .join(format!("{identity}.exec.json"))
    }

    /// Resolves a full identity or a unique prefix (4 to 64 hex characters, either case) of a
    /// stored snapshot: a v0.1 document, or a v0.2 tree's root (marked when stored), never the
    /// node of one of its sub-directories.
    ///
    /// # Errors
    /// [`StoreError::Missing`] if no stored snapshot matches; [`StoreError::Ambiguous`] if
    /// several do.
    pub fn resolve_snapshot(&self, prefix: &str) -> Result<Digest, StoreError> {
        let prefix = prefix.to_ascii_lowercase();
        if let Ok(d) = prefix.parse::<Digest>() {
            if self.has_snapshot(&d) {
                return Ok(d);
            }
            // An object of that name that does not hash to it (a damaged root node): store
            // corruption (exit 4), not "no snapshot" (exit 2).
            let small = std::fs::metadata(self.object_path(&d))
                .is_ok_and(|m| m.is_file() && m.len() <= crate::snapshot::MAX_FILE_BYTES);
            if small && let Err(e @ StoreError::Corrupt { .. }) = self.read_object(&d) {
                return Err(e);
            }
        }
        let dir = self.root.join("snapshots");
        let mut found = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                if let Some(id) = name.strip_suffix(".json")
                    && id.len() == 64
                    && id.starts_with(&prefix)
                    && let Ok(d) = id.parse::<Digest>()
                {
                    found.push(d);
                }
            }
        }
        // v0.2 trees: the roots `write_snapshot` marked (`<id>.tree`), never a sub-directory's
        // node, whose identity is no snapshot anyone took.
        for d in self.tree_roots(&prefix) {
            if !found.contains(&d) {
                found.push(d);
            }
        }
        match found.len() {
            1 => Ok(found[0]),
            0 => Err(StoreError::NoSuchSnapshot {
                prefix,
                store: self.root.clone(),
            }),
            _ => {
                found.sort();
                Err(StoreError::Ambiguous {
                    prefix,
                    count: found.len(),
                    candidates: found,
                })
            }
        }
    }

    /// Whether the snapshot `identity` is in the store: a v0.1 document, or a stored
    /// `genesis/tree-v0.2` node of that name (its nodes below are not checked here).
    pub fn has_snapshot(&self, identity: &Digest) -> bool {
        self.snapshot_path(identity).is_file() || self.is_tree_node(identity)
    }

    /// Stores a snapshot: for v0.2, its nodes (as objects; see the module docs); for v0.1, the
    /// canonical bytes its identity hashes (as an object), and the document and its
    /// executable-bit sidecar as below. The blobs must already be
    /// stored (see [`Store::snapshot_into`]). A document already stored under that identity is
    /// compared byte for byte with the one this snapshot prints and, when it differs, checked
    /// as [`Store::read_snapshot`] checks it, so `open` and `snapshot` notice a stored
    /// document that was edited (a key twice, for one) rather than trust its name.
    ///
    /// # Errors
    /// [`StoreError::Io`] on file-system failure; [`StoreError::DuplicateKey`],
    /// [`StoreError::BadSnapshot`] or [`StoreError::Corrupt`] for a stored document that is
    /// not valid.
    pub fn write_snapshot(
        &self,
        snapshot: &Snapshot,
        executable: &BTreeSet<WorkspacePath>,
    ) -> Result<(), StoreError> {
        self.write_snapshot_known(snapshot, executable, None)
            .map(drop)
    }

    /// [`Store::write_snapshot`], where `known` are the `lstat` fields the v0.1 document of
    /// this snapshot had when it was last found to be exactly this snapshot's (a stat cache's
    /// summary keeps them, [`crate::statcache::Summary::document`]): a document that still has
    /// them is not read. Returns the document's `lstat` fields once it is known to be this
    /// snapshot's (v0.1; `None` for v0.2).
    ///
    /// # Errors
    /// As [`Store::write_snapshot`].
    pub(crate) fn write_snapshot_known(
        &self,
        snapshot: &Snapshot,
        executable: &BTreeSet<WorkspacePath>,
        known: Option<&crate::statcache::StatKey>,
    ) -> Result<Option<crate::statcache::StatKey>, StoreError> {
        use crate::statcache::StatKey;
        if snapshot.format() == crate::snapshot::SnapshotFormat::V0_2 {
            return self.write_tree(snapshot, executable).map(|()| None);
        }
        let dir = self.root.join("snapshots");
        let id = snapshot.identity();
        let doc_path = self.snapshot_path(&id);
        let doc_stat = std::fs::symlink_metadata(&doc_path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|md| StatKey::of(&md));
        let unchanged = doc_stat.is_some() && doc_stat.as_ref() == known && self.has_object(&id);
        if !unchanged {
            std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        }
        let write_exec = || write_executable_bits(&dir, &id, executable);
        let mut doc_written = false;
        let mut exec_written = false;
        if !unchanged && (!self.has_object(&id) || doc_stat.is_none()) {
            // A new snapshot: its identity is checked against its files before anything is
            // written under that name (one given by a cache was never hashed here).
            if snapshot.identity_given() {
                let computed = crate::snapshot::snapshot_identity(snapshot.files());
                if computed != id {
                    return Err(StoreError::BadSnapshot {
                        path: doc_path,
                        source: SnapshotDocumentError::Identity {
                            stated: id,
                            computed,
                        },
                    });
                }
            }
            // The canonical object (packed straight from the files) on one thread; on the
            // other the executable bits, then the document under a temp name: each is
            // serialised, compressed or written, and synced. The document is renamed into
            // place last, once both are stored (a document without its bits would read as
            // having none, and it is what makes the snapshot present).
            let object = !self.has_object(&id);
            let (o, d) = rayon::join(
                || match object {
                    true => self.put_object(&id, || packed::pack_v0_1(snapshot.files())),
                    false => Ok(()),
                },
                || {
                    write_exec()?;
                    doc_stat
                        .is_none()
                        .then(|| {
                            atomic::Prepared::new(&dir, &format!("{id}.json"), |f| {
                                snapshot.write_json_pretty(f)
                            })
                        })
                        .transpose()
                },
            );
            o?;
            if let Some(doc) = d? {
                doc.commit()?;
            }
            doc_written = doc_stat.is_none();
            exec_written = true;
        }
        if !exec_written {
            write_exec()?;
        }
        if unchanged {
            // The document is the one found to be this snapshot's before, untouched since.
            return Ok(doc_stat);
        }
        if doc_written {
            // Just written: inside the racy window, so its fields are not kept.
            return Ok(None);
        }
        // The fields are those of the file compared, taken before it is read: a document
        // changed or replaced meanwhile has other fields, so it is read again next time.
        let same = crate::regular::open(&doc_path).and_then(|mut f| {
            let fields = StatKey::of(&f.metadata()?);
            Ok((snapshot.reads_as_json_pretty(&mut f)?, fields))
        });
        match same {
            // The document already stored is the one this snapshot prints: nothing to do.
            Ok((true, fields)) => Ok(Some(fields)),
            // Anything else is read as every stored document is, strictly (a key twice, an
            // invalid document, an identity that is not its name are store corruption); a
            // valid document of this identity laid out otherwise is kept.
            Ok((false, fields)) => {
                let (stored, _) = self.read_snapshot(&id)?;
                if stored.files() != snapshot.files() {
                    return Err(StoreError::BadSnapshot {
                        path: doc_path,
                        source: SnapshotDocumentError::Identity {
                            stated: id,
                            computed: crate::snapshot::snapshot_identity(snapshot.files()),
                        },
                    });
                }
                Ok(Some(fields))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let doc = snapshot.to_json_pretty();
                write_atomic(&dir, &format!("{id}.json"), doc.as_bytes())?;
                // Just written: inside the racy window, so not kept.
                Ok(None)
            }
            Err(e) => Err(io_err(&doc_path)(e)),
        }
    }

    /// Reads the snapshot `identity` and its executable bits, checking the document (v0.1) or
    /// every node, each against its name (v0.2, [`crate::tree::read_flat`]).
    ///
    /// # Errors
    /// [`StoreError::Missing`] if absent; [`StoreError::BadSnapshot`] if the document is invalid
    /// or its identity is not its name; [`StoreError::DuplicateKey`] if it or its sidecar has a
    /// member name twice in one object.
    pub fn read_snapshot(
        &self,
        identity: &Digest,
    ) -> Result<(Snapshot, BTreeSet<WorkspacePath>), StoreError> {
        let path = self.snapshot_path(identity);
        let data = match crate::regular::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.is_tree_node(identity) => {
                return self.read_tree(identity);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::Missing {
                    kind: "snapshot",
                    digest: *identity,
                    store: self.root.clone(),
                });
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        let snapshot = Snapshot::from_json(&data).map_err(|source| match source {
            SnapshotDocumentError::DuplicateKey(source) => StoreError::DuplicateKey {
                path: path.clone(),
                source,
            },
            source => StoreError::BadSnapshot {
                path: path.clone(),
                source,
            },
        })?;
        if snapshot.identity() != *identity {
            return Err(StoreError::Corrupt {
                path,
                expected: *identity,
                actual: snapshot.identity(),
            });
        }
        let exec_path = self.exec_path(identity);
        let executable = match crate::regular::read(&exec_path) {
            Ok(bytes) => {
                #[derive(serde::Deserialize)]
                struct Exec {
                    executable: BTreeSet<WorkspacePath>,
                }
                let e: Exec = crate::json::from_slice(&bytes).map_err(|e| match e {
                    crate::json::JsonError::Duplicate(source) => StoreError::DuplicateKey {
                        path: exec_path.clone(),
                        source,
                    },
                    source => StoreError::BadDocument {
                        path: exec_path.clone(),
                        source,
                    },
                })?;
                e.executable
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
            Err(e) => return Err(io_err(&exec_path)(e)),
        };
        Ok((snapshot, executable))
    }

    /// Where the stat cache of the tree at `root` lives: `statcache/<sha256 of its canonical
    /// path>.bin` (binary, see [`crate::statcache`]).
    pub fn stat_cache_path(&self, root: &Path) -> PathBuf {
        let canon = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let key = Digest::of(canon.as_os_str().as_encoded_bytes());
        self.root.join("statcache").join(format!("{key}.bin"))
    }
}

/// An exclusive lock on the store (`lock` file, `flock`), released when dropped.
#[derive(Debug)]
pub struct StoreLock {
    file: File,
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

impl Store {
    /// Takes the store's exclusive lock, waiting up to `wait` for another holder to let go.
    /// The holder's pid is written into the lock file for the error message of the next one.
    ///
    /// # Errors
    /// [`StoreError::Locked`] (with the holder's pid) after `wait`; [`StoreError::Io`].
    pub fn lock(&self, wait: std::time::Duration) -> Result<StoreLock, StoreError> {
        let path = self.root.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if start.elapsed() >= wait {
                        let pid = std::fs::read_to_string(&path)
                            .ok()
                            .and_then(|s| s.trim().parse().ok());
                        return Err(StoreError::Locked {
                            path,
                            pid,
                            waited_s: wait.as_secs(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
            }
        }
        let mut f = &file;
        let _ = file.set_len(0);
        let _ = f.write_all(format!("{}\n", std::process::id()).as_bytes());
        Ok(StoreLock { file })
    }
}
