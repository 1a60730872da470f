//! Workspace snapshots: which files a tree holds, their blobs, and the snapshot identity.
//!
//! A [`Snapshot`] is the list of `{path, blob, bytes}` sorted by the UTF-8 bytes of `path`, and
//! its `identity` (see [`crate::hash`]) in one of two formats ([`SnapshotFormat`], DESIGN
//! section 2): a tree that fits v0.1 ([`fits_v0_1`]) is the `genesis/workspace-snapshot-v0.1`
//! document of the 004 schema (`schemas/agent-transaction-v0.1.json#/$defs/snapshot`), byte
//! for byte as before; any other tree is a v0.2 tree of per-directory nodes ([`crate::tree`]).
//!
//! Membership ([`scan`], DESIGN section 2):
//! - every regular file under the root, recursively;
//! - except any path with a component named `.git`, the top-level `.genesis` directory (the
//!   default store) and the configured store directory when it lies inside the tree;
//! - except paths ignored by `.gitignore` or `.genesisignore` files inside the tree, with git's
//!   rules, whether or not a `.git` directory exists. Files above the root, `.git/info/exclude`
//!   and the user's global gitignore are **not** read, so a tree hashes the same on every
//!   machine. Hidden files are kept;
//! - except paths matching one of [`SnapshotOptions::exclude`] (gitignore glob syntax; the
//!   manifest's `exclude`);
//! - but a file git tracks ([`SnapshotOptions::tracked`], read from the git index by
//!   [`crate::tracked::TrackedFiles::discover`]) is a member although `.gitignore` matches it
//!   or one of its directories, when it is a regular file on disk below real directories (no
//!   symbolic link on the way) — git applies ignore rules only to untracked files.
//!   `.genesisignore`, `exclude`, `.git` and the store still leave it out. Outside a git work
//!   tree the set is empty and nothing changes.
//!
//! Symbolic links are never followed; they, FIFOs, sockets and devices are left out and
//! reported as [`Skipped`]. A file name that is not valid UTF-8 fails the snapshot
//! ([`SnapshotError::NonUtf8Path`]) unless it is ignored. More than
//! [`SnapshotOptions::max_files`] files (no limit unless the manifest sets one), or a file over
//! [`SnapshotOptions::max_file_bytes`], fail with an error naming the count or the file.
//!
//! Files are hashed on the rayon pool, each read whole into the thread's 256 KiB buffer when it
//! fits and streaming through it otherwise (never a larger file whole in memory; see
//! `snapshot/read.rs`).
//! The executable bit (the owner's `x`, as git reads it) comes back beside the snapshot in
//! [`SnapshotOutcome::executable`]. It is not part of the v0.1 document (two v0.1 trees that
//! differ only in executable bits have the same identity); it is part of a v0.2 identity.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::hash::Digest;
use crate::path::{PathError, WorkspacePath};
use crate::tracked::{TrackedError, TrackedFiles};

/// The `schema` value of a snapshot document.
pub const SNAPSHOT_SCHEMA: &str = "genesis/workspace-snapshot-v0.1";
/// Most files a v0.1 snapshot may list (004 `files.maxItems`).
pub const MAX_FILES: usize = 4096;
/// Largest file a v0.1 snapshot may list, in bytes (004 `snapshotFile.bytes.maximum`).
pub const MAX_FILE_BYTES: u64 = 268_435_456;
/// The default store directory name, always left out of snapshots (defined in
/// [`crate::path`], with the rule that no session writes into it).
pub use crate::path::STORE_DIR_NAME;

/// The identity of a snapshot whose sorted file list is `files`: SHA-256 of the JCS form of
/// `{"files": files, "schema": "genesis/workspace-snapshot-v0.1"}` (DESIGN section 2). The
/// bytes hashed are those of the table in [`crate::hash`].
pub fn snapshot_identity(files: &[SnapshotFile]) -> Digest {
    // The same bytes written directly (`snapshot/canon.rs`); the generic serialiser only for
    // sizes past 2^53, which no v0.1 snapshot holds.
    canon::identity(files).unwrap_or_else(|| generic_identity(files))
}

/// [`snapshot_identity`] through the generic RFC 8785 serialiser: the definition that
/// `snapshot/canon.rs` writes directly, and the path for sizes past 2^53.
pub(super) fn generic_identity(files: &[SnapshotFile]) -> Digest {
    #[derive(serde::Serialize)]
    struct Unnamed<'a> {
        schema: &'static str,
        files: &'a [SnapshotFile],
    }
    crate::hash::canonical_digest(&Unnamed {
        schema: SNAPSHOT_SCHEMA,
        files,
    })
    .expect("snapshot documents hold only strings and integers")
}

/// One entry of a snapshot's `files`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotFile {
    /// Path relative to the workspace root.
    pub path: WorkspacePath,
    /// SHA-256 of the file's bytes.
    pub blob: Digest,
    /// The file's size in bytes (0 ..= [`MAX_FILE_BYTES`]).
    pub bytes: u64,
}

impl crate::membership::MemberFile for SnapshotFile {
    fn member_path(&self) -> &WorkspacePath {
        &self.path
    }
}

impl crate::tree::TreeFile for SnapshotFile {
    fn tree_path(&self) -> &WorkspacePath {
        &self.path
    }
    fn tree_blob(&self) -> Digest {
        self.blob
    }
    fn tree_bytes(&self) -> u64 {
        self.bytes
    }
}

impl AsRef<[SnapshotFile]> for Snapshot {
    fn as_ref(&self) -> &[SnapshotFile] {
        self.files()
    }
}

impl crate::statcache::Hashed for SnapshotFile {
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn blob(&self) -> Digest {
        self.blob
    }
}

/// Which format a [`Snapshot`]'s identity is computed in (DESIGN section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SnapshotFormat {
    /// `genesis/workspace-snapshot-v0.1`: one document listing every file; identity =
    /// [`snapshot_identity`]. Every tree that fits v0.1 ([`fits_v0_1`]) gets this format.
    #[serde(rename = "genesis/workspace-snapshot-v0.1")]
    V0_1,
    /// `genesis/tree-v0.2`: per-directory nodes ([`crate::tree`]); identity = the root node's,
    /// which covers the executable bits. Every tree that does not fit v0.1 gets this format.
    #[serde(rename = "genesis/tree-v0.2")]
    V0_2,
}

/// Whether sorted `files` fit the v0.1 limits: at most [`MAX_FILES`] files, each at most
/// [`MAX_FILE_BYTES`] bytes (004 `files.maxItems`, `snapshotFile.bytes.maximum`).
pub fn fits_v0_1(files: &[SnapshotFile]) -> bool {
    files.len() <= MAX_FILES && files.iter().all(|f| f.bytes <= MAX_FILE_BYTES)
}

/// A tree's sorted file list and its identity, in the format the rule of DESIGN section 2
/// gives it: v0.1 when it fits v0.1, else v0.2.
///
/// Invariants (checked by every constructor): `files` sorted by path bytes, no path twice, every
/// path valid, and `identity` = [`snapshot_identity`] of `files` (v0.1, within the v0.1 limits)
/// or the root node identity of the v0.2 tree of `files` and their executable bits.
#[derive(Clone)]
pub struct Snapshot {
    identity: Digest,
    files: Vec<SnapshotFile>,
    format: SnapshotFormat,
    /// The v0.2 nodes built with the identity (reused when the store writes them).
    tree: Option<Arc<crate::tree::BuiltTree>>,
    /// [`Snapshot::fold_collisions`], once computed (or known from a stat cache's summary).
    fold: std::sync::OnceLock<Vec<Vec<String>>>,
    /// [`Snapshot::identity_given`].
    identity_given: bool,
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Self) -> bool {
        self.identity == other.identity && self.format == other.format && self.files == other.files
    }
}

impl Eq for Snapshot {}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("identity", &self.identity)
            .field("format", &self.format)
            .field("files", &self.files)
            .finish()
    }
}

/// A snapshot document that breaks one of [`Snapshot`]'s invariants.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotDocumentError {
    /// The JSON does not parse, or a field is missing, unknown or mistyped.
    #[error("not a snapshot document: {0}")]
    Json(String),
    /// A member name twice in one object (see [`crate::json`]).
    #[error(transparent)]
    DuplicateKey(#[from] crate::json::DuplicateKey),
    /// `schema` is not `genesis/workspace-snapshot-v0.1`.
    #[error("field /schema: expected {SNAPSHOT_SCHEMA:?}, found {0:?}")]
    Schema(String),
    /// Two entries out of order, or the same path twice.
    #[error(
        "field /files/{index}: path {path:?} is not after the previous path (files must be sorted by UTF-8 bytes, each path once)"
    )]
    Order {
        /// Index of the offending entry.
        index: usize,
        /// Its path.
        path: String,
    },
    /// Too many files.
    #[error("field /files: {count} files, more than the limit of {MAX_FILES}")]
    TooManyFiles {
        /// How many files the document lists.
        count: usize,
    },
    /// A file over the size limit.
    #[error("field /files/{index}/bytes: {bytes} bytes, more than the limit of {MAX_FILE_BYTES}")]
    FileTooLarge {
        /// Index of the entry.
        index: usize,
        /// Its size.
        bytes: u64,
    },
    /// The stated identity is not the hash of the files.
    #[error("field /identity: stated {stated}, but the files hash to {computed}")]
    Identity {
        /// `identity` as written in the document.
        stated: Digest,
        /// The identity computed from `files`.
        computed: Digest,
    },
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotJson {
    schema: String,
    identity: Digest,
    files: Vec<SnapshotFile>,
}

/// [`SnapshotJson`] borrowed, for writing (same members, same order).
#[derive(serde::Serialize)]
struct SnapshotJsonRef<'a> {
    schema: &'static str,
    identity: Digest,
    files: &'a [SnapshotFile],
}

impl Snapshot {
    /// Builds a snapshot from `files`, sorting them and computing the identity.
    ///
    /// # Errors
    /// [`SnapshotDocumentError::Order`] if a path occurs twice, `TooManyFiles` or `FileTooLarge`
    /// past the v0.1 limits.
    pub fn from_files(mut files: Vec<SnapshotFile>) -> Result<Self, SnapshotDocumentError> {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        check_limits(&files)?;
        check_order(&files)?;
        Ok(Snapshot {
            identity: snapshot_identity(&files),
            files,
            format: SnapshotFormat::V0_1,
            tree: None,
            fold: std::sync::OnceLock::new(),
            identity_given: false,
        })
    }

    /// Builds a snapshot of any size from `files` and the executable bits `executable`,
    /// sorting the files: v0.1 (identity of [`snapshot_identity`], the bits not covered) when
    /// they fit v0.1 ([`fits_v0_1`]), else v0.2 (identity of the root node built by
    /// [`crate::tree::build`], reusing the unchanged directories of `previous`, a v0.2 snapshot
    /// of an earlier state, when given).
    ///
    /// # Errors
    /// [`SnapshotDocumentError::Order`] if a path occurs twice.
    pub fn with_executable(
        files: Vec<SnapshotFile>,
        executable: &BTreeSet<WorkspacePath>,
        previous: Option<&Snapshot>,
    ) -> Result<Self, SnapshotDocumentError> {
        Snapshot::with_tree_cache(files, executable, previous, None)
    }

    /// [`Snapshot::with_executable`], a v0.2 tree also taking the identities of directories
    /// whose entries did not change from `known`, the tree cache of an earlier run
    /// ([`crate::tree::build_with`]).
    ///
    /// # Errors
    /// As [`Snapshot::with_executable`].
    pub fn with_tree_cache(
        mut files: Vec<SnapshotFile>,
        executable: &BTreeSet<WorkspacePath>,
        previous: Option<&Snapshot>,
        known: Option<&crate::tree::TreeCache>,
    ) -> Result<Self, SnapshotDocumentError> {
        // A scan's files come sorted, each path once: then neither sorted nor checked again.
        if !files.is_sorted_by(|a, b| a.path < b.path) {
            files.sort_by(|a, b| a.path.cmp(&b.path));
            check_order(&files)?;
        }
        if fits_v0_1(&files) {
            return Ok(Snapshot {
                identity: snapshot_identity(&files),
                files,
                format: SnapshotFormat::V0_1,
                tree: None,
                fold: std::sync::OnceLock::new(),
                identity_given: false,
            });
        }
        let built = crate::tree::build_with(
            &files,
            executable,
            previous.and_then(|p| p.tree.as_deref()),
            known,
        );
        Ok(Snapshot {
            identity: built.root,
            files,
            format: SnapshotFormat::V0_2,
            tree: Some(Arc::new(built)),
            fold: std::sync::OnceLock::new(),
            identity_given: false,
        })
    }

    /// The snapshot of `files` (sorted by path bytes, each path once, as a scan gives them)
    /// whose identity is already known: `identity` and `fold_free` are the summary of a stat
    /// cache whose entries are exactly these files ([`crate::statcache::Summary`]). No node is
    /// built; a store lacking the snapshot builds them when writing it
    /// ([`Snapshot::tree_nodes`]), and checks the root against `identity`.
    pub(crate) fn from_summary(
        files: Vec<SnapshotFile>,
        summary: crate::statcache::Summary,
    ) -> Snapshot {
        debug_assert!(files.is_sorted_by(|a, b| a.path < b.path));
        let fold = std::sync::OnceLock::new();
        if summary.fold_free {
            let _ = fold.set(Vec::new());
        }
        Snapshot {
            identity: summary.identity,
            format: if fits_v0_1(&files) {
                SnapshotFormat::V0_1
            } else {
                SnapshotFormat::V0_2
            },
            files,
            tree: None,
            fold,
            identity_given: true,
        }
    }

    /// A v0.2 snapshot read back from its stored nodes: `files` (sorted, as
    /// [`crate::tree::read_tree`] gives them) under the root `nodes.root`, whose nodes the
    /// caller read and checked against their names (kept, so a snapshot built from this one
    /// reuses its unchanged directories).
    ///
    /// # Errors
    /// [`SnapshotDocumentError::Order`] if a path occurs twice.
    pub fn from_stored_tree(
        files: Vec<SnapshotFile>,
        nodes: crate::tree::BuiltTree,
    ) -> Result<Self, SnapshotDocumentError> {
        check_order(&files)?;
        Ok(Snapshot {
            identity: nodes.root,
            files,
            format: SnapshotFormat::V0_2,
            tree: Some(Arc::new(nodes)),
            fold: std::sync::OnceLock::new(),
            identity_given: false,
        })
    }

    /// A v0.2 snapshot of the stored tree `identity` that lists only `files`, some of the
    /// tree's files (the changed paths of a diff between two stored trees,
    /// [`crate::diff::Tree::compare`]). Its identity is not that of `files`: it is only ever
    /// compared and printed, never stored (storing it fails: the nodes built from `files` do not
    /// give `identity`).
    pub(crate) fn partial_v0_2(identity: Digest, files: Vec<SnapshotFile>) -> Snapshot {
        Snapshot {
            identity,
            files,
            format: SnapshotFormat::V0_2,
            tree: None,
            fold: std::sync::OnceLock::new(),
            identity_given: false,
        }
    }

    /// The v0.2 nodes built with the identity (`None` for v0.1). A directory whose identity
    /// came from the tree cache has no node ([`crate::tree::BuiltNode::built`]) until
    /// [`Snapshot::materialise_nodes`].
    pub fn built_tree(&self) -> Option<&crate::tree::BuiltTree> {
        self.tree.as_deref()
    }

    /// Builds the nodes a cache-assisted build left out ([`crate::tree::BuiltNode::built`]
    /// `false`) when a store where `present` tells which nodes are stored lacks one of them
    /// ([`crate::tree::BuiltTree::lacks_needed_node`]): each keeps the identity it was given
    /// (nothing is hashed again; the store checks each node it writes against it). Nothing
    /// happens for v0.1 or when no such node is missing.
    pub fn materialise_nodes(
        &mut self,
        executable: &BTreeSet<WorkspacePath>,
        present: &dyn Fn(&Digest) -> bool,
    ) {
        let Some(tree) = &self.tree else {
            return;
        };
        if !tree.lacks_needed_node(present) {
            return;
        }
        let known = crate::tree::TreeCache::of(tree);
        let built = crate::tree::build_all(&self.files, executable, &known);
        self.tree = Some(Arc::new(built));
    }

    /// The format the identity is computed in.
    pub fn format(&self) -> SnapshotFormat {
        self.format
    }

    /// The v0.2 nodes of this snapshot for the executable bits `executable`: those built with
    /// the identity when the bits are the same (checked, nothing re-hashed), else built again.
    /// `None` for a v0.1 snapshot.
    pub fn tree_nodes(
        &self,
        executable: &BTreeSet<WorkspacePath>,
    ) -> Option<Arc<crate::tree::BuiltTree>> {
        if self.format != SnapshotFormat::V0_2 {
            return None;
        }
        if let Some(t) = &self.tree
            && t.executable_matches(executable)
        {
            // The nodes were built from these files (or read with them) and these bits.
            return Some(t.clone());
        }
        let built = crate::tree::build(&self.files, executable, self.tree.as_deref());
        match &self.tree {
            Some(t) if built.fresh_count() == 0 => Some(t.clone()),
            _ => Some(Arc::new(built)),
        }
    }

    /// The empty snapshot (identity of `{"files":[],"schema":…}`).
    pub fn empty() -> Self {
        Snapshot::from_files(Vec::new()).expect("empty snapshot is valid")
    }

    /// The document as pretty-printed JSON (`schema`, `identity`, `files`), with a final newline.
    pub fn to_json_pretty(&self) -> String {
        // Written directly (`snapshot/canon.rs`), byte for byte what serde_json writes.
        String::from_utf8(canon::json_pretty(&self.identity, &self.files))
            .expect("built from UTF-8 strings and ASCII")
    }

    /// Writes [`Snapshot::to_json_pretty`] to `out` in pieces of about 64 KiB (the store's
    /// copy of a new document, never held whole).
    ///
    /// # Errors
    /// The first write error of `out`.
    pub fn write_json_pretty(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut failed = None;
        canon::json_pretty_chunks(&self.identity, &self.files, |chunk| {
            match out.write_all(chunk) {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        });
        failed.map_or(Ok(()), Err)
    }

    /// Whether `stored` is exactly [`Snapshot::to_json_pretty`] (the store's check, on every
    /// snapshot, that the document it already holds is this one).
    pub fn is_json_pretty(&self, stored: &[u8]) -> bool {
        self.reads_as_json_pretty(&mut &stored[..]).unwrap_or(false)
    }

    /// [`Snapshot::is_json_pretty`] of everything `reader` yields, read and compared a piece
    /// at a time (neither document held whole).
    ///
    /// # Errors
    /// A read error of `reader`.
    pub fn reads_as_json_pretty(&self, reader: &mut impl std::io::Read) -> std::io::Result<bool> {
        canon::same_json_pretty(&self.identity, &self.files, reader)
    }

    /// The v0.1 document's members, borrowed, in the order they are printed.
    fn document(&self) -> SnapshotJsonRef<'_> {
        SnapshotJsonRef {
            schema: SNAPSHOT_SCHEMA,
            identity: self.identity,
            files: &self.files,
        }
    }

    /// The document as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self.document()).expect("serialisable")
    }

    /// What `genesis snapshot` prints, as a JSON value: for v0.1 the document
    /// ([`Snapshot::to_value`]); for v0.2 a listing `{"schema":"genesis/tree-v0.2","identity",
    /// "files":[{"path","blob","bytes","executable"}…]}` (the nodes themselves are in the store).
    pub fn to_value_with(&self, executable: &BTreeSet<WorkspacePath>) -> serde_json::Value {
        if self.format == SnapshotFormat::V0_1 {
            return self.to_value();
        }
        #[derive(serde::Serialize)]
        struct Listed<'a> {
            path: &'a WorkspacePath,
            blob: Digest,
            bytes: u64,
            executable: bool,
        }
        let files: Vec<Listed<'_>> = self
            .files
            .iter()
            .map(|f| Listed {
                path: &f.path,
                blob: f.blob,
                bytes: f.bytes,
                executable: executable.contains(&f.path),
            })
            .collect();
        serde_json::json!({
            "schema": crate::tree::TREE_SCHEMA,
            "identity": self.identity,
            "files": files,
        })
    }

    /// [`Snapshot::to_value_with`] pretty-printed with a final newline (for v0.1, exactly
    /// [`Snapshot::to_json_pretty`]).
    pub fn to_json_pretty_with(&self, executable: &BTreeSet<WorkspacePath>) -> String {
        if self.format == SnapshotFormat::V0_1 {
            return self.to_json_pretty();
        }
        let mut s =
            serde_json::to_string_pretty(&self.to_value_with(executable)).expect("serialisable");
        s.push('\n');
        s
    }

    /// The v0.1 document's canonical bytes without `identity` (what its identity hashes);
    /// `None` for v0.2.
    pub fn canonical_v0_1(&self) -> Option<Vec<u8>> {
        #[derive(serde::Serialize)]
        struct Unnamed<'a> {
            schema: &'static str,
            files: &'a [SnapshotFile],
        }
        (self.format == SnapshotFormat::V0_1).then(|| {
            // Written directly (`snapshot/canon.rs`); the generic serialiser only for sizes
            // past 2^53, which no v0.1 snapshot holds.
            canon::canonical(&self.files).unwrap_or_else(|| {
                crate::hash::canonical_json(&Unnamed {
                    schema: SNAPSHOT_SCHEMA,
                    files: &self.files,
                })
                .expect("snapshot documents hold only strings and integers")
            })
        })
    }

    /// Whether the identity was given rather than computed from the files here (a stat
    /// cache's summary or a recent snapshot, [`Snapshot::from_summary`]): the store then
    /// checks it before it writes anything under that name.
    pub(crate) fn identity_given(&self) -> bool {
        self.identity_given
    }

    /// The identity: for v0.1 the hex SHA-256 of the JCS form without `identity`; for v0.2 the
    /// root node's identity.
    pub fn identity(&self) -> Digest {
        self.identity
    }

    /// The files, sorted by path bytes.
    pub fn files(&self) -> &[SnapshotFile] {
        &self.files
    }

    /// The groups of names (files, or directories on the way to them) that differ only by
    /// case or Unicode normalisation, i.e. share one [`crate::path::fold_key`]: `README.md` and
    /// `readme.md`, or `caf\u{e9}.txt` (NFC) and `cafe\u{301}.txt` (NFD). Such a snapshot is
    /// valid, but cannot be checked out on a case-insensitive or normalising file system (macOS,
    /// Windows): one name would overwrite the other. Each group holds two or more names,
    /// sorted by bytes; the groups are sorted by their first name. Empty for most trees.
    ///
    /// Cost: one pass over the sorted list hashing each name (file or directory, seen once)
    /// folded, without allocating for ASCII names, and one sort of each directory's hashes:
    /// two names can only fold together where two entries of one directory do. Only when two
    /// hashes meet there are the whole paths hashed and, where those meet, folded in full and
    /// compared (`snapshot/fold.rs`).
    pub fn fold_collisions(&self) -> Vec<Vec<String>> {
        self.fold
            .get_or_init(|| fold::collisions(&self.files))
            .clone()
    }

    /// Records that no two of this snapshot's paths fold together, known from a snapshot of
    /// exactly the same paths ([`crate::statcache::Summary::fold_free`]; the check looks at
    /// paths only), so that [`Snapshot::fold_collisions`] does not look again.
    pub(crate) fn know_fold_free(&self) {
        let _ = self.fold.set(Vec::new());
    }

    /// The entry for `path`, if the snapshot holds it (binary search).
    pub fn get(&self, path: &str) -> Option<&SnapshotFile> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }

    /// Total bytes of all files.
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

fn check_limits(files: &[SnapshotFile]) -> Result<(), SnapshotDocumentError> {
    if files.len() > MAX_FILES {
        return Err(SnapshotDocumentError::TooManyFiles { count: files.len() });
    }
    for (index, f) in files.iter().enumerate() {
        if f.bytes > MAX_FILE_BYTES {
            return Err(SnapshotDocumentError::FileTooLarge {
                index,
                bytes: f.bytes,
            });
        }
    }
    Ok(())
}

fn check_order(files: &[SnapshotFile]) -> Result<(), SnapshotDocumentError> {
    for (index, f) in files.iter().enumerate() {
        if index > 0 && files[index - 1].path >= f.path {
            return Err(SnapshotDocumentError::Order {
                index,
                path: f.path.to_string(),
            });
        }
    }
    Ok(())
}

mod cached;
mod canon;
mod collect;
mod fold;
mod parents;
mod parse;
mod read;
mod walk;

pub use read::{Content, hash_content};

pub(crate) use cached::snapshot_dir_pending;
pub use cached::snapshot_dir_using;
pub use walk::{
    HashFn, Hashing, ScanOutcome, ScannedFile, SkipReason, Skipped, SnapshotError, SnapshotOptions,
    SnapshotOutcome, StatKey, hash_file, open_regular, scan, snapshot_dir,
};
