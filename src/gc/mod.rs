//! `genesis gc`: remove what nothing in the store references (DESIGN section 3, "Garbage
//! collection").
//!
//! **Roots.** Every session (its document and its engine state: every snapshot identity, patch
//! text, acceptance record, obligation log, the manifest blob, the snapshot and files `abort`
//! saved, and the history every `rebase` replaced), every journal (post blobs; pre blobs when
//! present), and — as git's `gc.pruneExpire` — everything younger than the prune limit
//! ([`Expire`], default [`DEFAULT_EXPIRE_S`] = 2 weeks, by modification time): a young v0.1
//! snapshot document, a young object (and, when it is a v0.2 tree node, the nodes and blobs
//! below it). So a snapshot made by `genesis snapshot` outside any session is kept for two
//! weeks, then goes.
//!
//! **Walk.** A snapshot identity is followed to its v0.1 document (read strictly, with its
//! executable-bit sidecar and its canonical object) or to its v0.2 root node, and from there
//! through every node to every blob. Tree nodes and acceptance records are read and checked
//! against their names; blobs, patch texts and logs are checked for presence (re-hashing every
//! blob would read the whole store). A referenced object or snapshot that is missing or
//! corrupt is reported ([`GcError::Broken`], exit 4) and nothing is removed.
//!
//! **Removed** (unreferenced and older than the limit): objects, v0.1 snapshot documents and
//! their sidecars, and temporary files (`tmp/*`, `.tmp-*` in the store's directories) left by a
//! crash, and the verify scratch directories of this store's sessions whose process is gone
//! (`scratch`). Stat caches (`statcache/`) that name a removed object, or that the reader would ignore
//! anyway, are removed too, since a stat-cache hit is trusted to name a stored blob.
//!
//! **Order** (so a crash at any step leaves a consistent store; the next `gc` finishes): stat
//! caches first (no cache ever names a missing blob); then v0.1 snapshot documents, before
//! their sidecars (a document without its sidecar would read as "no executable bits") and
//! before their canonical objects and blobs; then objects; then temporary files; each
//! directory is fsynced after its removals. Everything removed is unreferenced, so no session
//! or journal ever sees a missing object. The whole run holds the store lock.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error_kind::ErrorKind;
use crate::hash::Digest;
use crate::journal::Journal;
use crate::session::{
    PatchEntry, Session, SessionError, SessionState, SnapshotState, Verification,
};
use crate::store::{Store, StoreError, fsync_dir};

mod mark;
mod remove;
mod scratch;

use mark::{Found, Marks, files_of, inventory, io_err, looks_like_node, read_json};
use remove::remove_all;

/// The default prune limit in seconds: 2 weeks, git's `gc.pruneExpire`.
pub const DEFAULT_EXPIRE_S: u64 = 14 * 24 * 60 * 60;

/// Which unreferenced files are old enough to go (`--prune=<seconds|now>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expire {
    /// Every unreferenced file, whatever its age (`--prune=now`).
    Now,
    /// Unreferenced files last modified more than this long ago.
    OlderThan(Duration),
}

impl Default for Expire {
    fn default() -> Self {
        Expire::OlderThan(Duration::from_secs(DEFAULT_EXPIRE_S))
    }
}

impl Expire {
    /// The time before which an unreferenced file is old enough to go.
    fn cutoff(self) -> SystemTime {
        match self {
            Expire::Now => SystemTime::now(),
            Expire::OlderThan(d) => SystemTime::now()
                .checked_sub(d)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        }
    }

    /// The limit in whole seconds (0 for [`Expire::Now`]).
    pub fn seconds(self) -> u64 {
        match self {
            Expire::Now => 0,
            Expire::OlderThan(d) => d.as_secs(),
        }
    }
}

/// A `--prune` value that is neither `now` nor a number of seconds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--prune {0:?}: expected a number of seconds or \"now\"")]
pub struct ExpireError(pub String);

impl std::str::FromStr for Expire {
    type Err = ExpireError;
    fn from_str(s: &str) -> Result<Self, ExpireError> {
        if s == "now" {
            return Ok(Expire::Now);
        }
        s.parse::<u64>()
            .map(|n| Expire::OlderThan(Duration::from_secs(n)))
            .map_err(|_| ExpireError(s.to_owned()))
    }
}

/// Options of [`gc`].
#[derive(Debug, Clone)]
pub struct GcOptions {
    /// Which unreferenced files are old enough to remove.
    pub expire: Expire,
    /// List what would be removed; remove nothing.
    pub dry_run: bool,
    /// How long to wait for another process's store lock.
    pub lock_wait: Duration,
}

impl Default for GcOptions {
    fn default() -> Self {
        GcOptions {
            expire: Expire::default(),
            dry_run: false,
            lock_wait: Duration::from_secs(10),
        }
    }
}

/// What a removed file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RemovedKind {
    /// A stat cache (`statcache/…`) naming a removed object, or unreadable.
    StatCache,
    /// A v0.1 snapshot document (`snapshots/<identity>.json`), or the marker of a v0.2 root
    /// whose node goes (`snapshots/<identity>.tree`).
    Snapshot,
    /// The executable-bit sidecar of a v0.1 snapshot (`snapshots/<identity>.exec.json`).
    ExecutableBits,
    /// An object (`objects/ab/cdef…`): a blob, a tree node, a patch text, a log, …
    Object,
    /// A temporary file a crashed writer left (`tmp/…`, `…/.tmp-*`), or the scratch directory
    /// of a verify killed outright (`$TMPDIR/genesis-verify-<session>-p<pid>-XXXXXX`, an
    /// absolute path, `bytes` 0).
    Temporary,
}

/// One file [`gc`] removed (or, with `dry_run`, would remove).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Removed {
    /// The path relative to the store directory, e.g. `objects/ab/cdef…`.
    pub path: PathBuf,
    /// What it was.
    pub kind: RemovedKind,
    /// Its size on disk in bytes (objects are compressed: the bytes freed, not the content's).
    pub bytes: u64,
}

/// The outcome of [`gc`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcOutcome {
    /// Nothing was removed; `removed` is what would be.
    pub dry_run: bool,
    /// The prune limit in seconds (0: `now`).
    pub expire_s: u64,
    /// The files removed, in the order they were removed.
    pub removed: Vec<Removed>,
    /// Sum of their sizes in bytes.
    pub bytes: u64,
    /// Objects left in the store.
    pub kept_objects: usize,
    /// Of those, how many nothing references (kept only because they are younger than the
    /// limit).
    pub kept_recent: usize,
    /// Sessions and journals read as roots.
    pub roots: usize,
}

/// Why [`gc`] failed. Nothing was removed unless the error is [`GcError::Remove`].
#[derive(Debug, thiserror::Error)]
pub enum GcError {
    /// The store lock, or reading a store directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A session document or state file that cannot be read: its references are unknown.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A journal that cannot be read: its references are unknown.
    #[error("{}: invalid journal: {message}; nothing removed", .path.display())]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// References to objects or snapshots that are missing or corrupt (each names who
    /// refers and what is wrong); nothing removed.
    #[error("{}: {} broken reference{}; nothing removed:\n  {}\nto repair: restore the missing objects from a backup of the store; a session's obligation logs and acceptance record are written anew by `genesis verify <session>`", .store.display(), .problems.len(), if .problems.len() == 1 { "" } else { "s" }, .problems.join("\n  "))]
    Broken {
        /// The store directory.
        store: PathBuf,
        /// One line per problem, sorted.
        problems: Vec<String>,
    },
    /// Removing a file (or syncing its directory) failed; what was removed before stays
    /// removed, and the store is consistent (see the module docs): run `gc` again.
    #[error("{}: {source}; run `genesis gc` again to finish", .path.display())]
    Remove {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl GcError {
    /// See [`ErrorKind`]: a lock is [`ErrorKind::Locked`] (exit 3); a session file with a key
    /// twice is bad input (exit 2) as everywhere; broken references, unreadable journals and
    /// file-system failures are [`ErrorKind::Io`] (exit 4).
    pub fn kind(&self) -> ErrorKind {
        match self {
            GcError::Store(e) => e.kind(),
            GcError::Session(e) => e.kind(),
            GcError::Journal { .. } | GcError::Broken { .. } | GcError::Remove { .. } => {
                ErrorKind::Io
            }
        }
    }
}

/// The files of `snapshots/` that go: v0.1 documents not marked, their old sidecars, and the
/// markers of v0.2 roots whose node goes.
fn snapshot_files_gone(
    inv: &mark::Inventory,
    marks: &Marks<'_>,
    young: impl Fn(&Found) -> bool,
) -> Vec<Removed> {
    let mut plan = Vec::new();
    for (id, f) in &inv.docs {
        if !marks.docs.contains(id) {
            plan.push(Removed {
                path: Path::new("snapshots").join(format!("{id}.json")),
                kind: RemovedKind::Snapshot,
                bytes: f.bytes,
            });
        }
    }
    for (id, f) in &inv.sidecars {
        if !marks.docs.contains(id) && !young(f) {
            plan.push(Removed {
                path: Path::new("snapshots").join(format!("{id}.exec.json")),
                kind: RemovedKind::ExecutableBits,
                bytes: f.bytes,
            });
        }
    }
    // The marker of a v0.2 root goes with the root node.
    for (id, f) in &inv.tree_marks {
        if !marks.objects.contains(id) {
            plan.push(Removed {
                path: Path::new("snapshots").join(format!("{id}.tree")),
                kind: RemovedKind::Snapshot,
                bytes: f.bytes,
            });
        }
    }
    plan
}

/// Removes what nothing references and is older than `opts.expire` (module docs), holding the
/// store lock throughout; with `opts.dry_run` only lists it.
///
/// # Errors
/// [`GcError::Store`] (the lock: [`StoreError::Locked`], exit 3; a store directory that cannot
/// be read); [`GcError::Session`] / [`GcError::Journal`] for a session or journal that cannot be
/// read; [`GcError::Broken`] when a referenced object or snapshot is missing or corrupt —
/// in all these nothing is removed; [`GcError::Remove`] when a removal fails midway.
pub fn gc(store: &Store, opts: &GcOptions) -> Result<GcOutcome, GcError> {
    let _lock = store.lock(opts.lock_wait)?;
    let cutoff = opts.expire.cutoff();
    let young = |f: &Found| f.mtime > cutoff;
    let inv = inventory(store)?;
    let mut marks = Marks::new(store);

    let roots = mark_roots(store, &mut marks)?;

    let referenced: HashSet<Digest> = marks.objects.clone();

    // Young files are roots (git's prune expiry): v0.1 snapshots any part of which is young,
    // and young objects; a young tree node keeps what is below it.
    for (id, f) in &inv.docs {
        let part_young = young(f)
            || inv.sidecars.get(id).is_some_and(young)
            || inv.objects.get(id).is_some_and(young);
        if part_young {
            marks.snapshot(
                *id,
                &format!("snapshots/{id}.json (younger than the limit)"),
            );
        }
    }
    for (id, f) in &inv.objects {
        if young(f) && !marks.objects.contains(id) && !inv.docs.contains_key(id) {
            // A young object that starts like a node but is not one is a blob that happens
            // to begin so (a stored file of JSON): kept, not followed.
            let node = looks_like_node(&store.object_path(id))
                && store
                    .read_object(id)
                    .is_ok_and(|b| crate::tree::Node::parse(*id, &b).is_ok());
            if node {
                marks.tree(*id, &format!("object {id} (younger than the limit)"));
            } else {
                marks.objects.insert(*id);
            }
        }
    }

    if !marks.problems.is_empty() {
        return Err(GcError::Broken {
            store: store.path().to_path_buf(),
            problems: marks.problems.into_iter().collect(),
        });
    }

    // What goes, in removal order.
    let gone_objects: Vec<(&Digest, &Found)> = inv
        .objects
        .iter()
        .filter(|(d, _)| !marks.objects.contains(d))
        .collect();
    let mut plan: Vec<Removed> = Vec::new();
    let rel_object = |d: &Digest| {
        let hex = d.to_hex();
        Path::new("objects").join(&hex[..2]).join(&hex[2..])
    };
    plan.extend(stale_stat_caches(store, &gone_objects)?);
    plan.extend(snapshot_files_gone(&inv, &marks, young));
    for (d, f) in &gone_objects {
        plan.push(Removed {
            path: rel_object(d),
            kind: RemovedKind::Object,
            bytes: f.bytes,
        });
    }
    for (p, f) in &inv.temps {
        if !young(f) {
            plan.push(Removed {
                path: p.clone(),
                kind: RemovedKind::Temporary,
                bytes: f.bytes,
            });
        }
    }
    // A verify killed outright leaves its scratch directory in the system's temporary
    // directory: its path is absolute (scratch.rs).
    let sessions = crate::session::list(store).unwrap_or_default();
    for dir in scratch::stale(&std::env::temp_dir(), &sessions) {
        plan.push(Removed {
            path: dir,
            kind: RemovedKind::Temporary,
            bytes: 0,
        });
    }
    let kept_objects = inv.objects.len() - gone_objects.len();
    let kept_recent = inv
        .objects
        .keys()
        .filter(|d| marks.objects.contains(d) && !referenced.contains(d))
        .count();

    if !opts.dry_run {
        let kept = remove_all(store, &plan, cutoff)?;
        plan.retain(|r| !kept.contains(&r.path));
    }
    let bytes = plan.iter().map(|r| r.bytes).sum();
    Ok(GcOutcome {
        dry_run: opts.dry_run,
        expire_s: opts.expire.seconds(),
        removed: plan,
        bytes,
        kept_objects,
        kept_recent,
        roots,
    })
}

/// Marks what every session and every journal references; returns how many roots there were.
fn mark_roots(store: &Store, marks: &mut Marks<'_>) -> Result<usize, GcError> {
    let mut roots = 0;
    // Sessions: every document and every state file (a state without its document, left by
    // a crash during `open`, is kept as a root too).
    let sessions = store.path().join("sessions");
    let mut names = BTreeSet::new();
    for name in files_of(&sessions)?.keys() {
        if let Some(id) = name
            .strip_suffix(".json")
            .or_else(|| name.strip_suffix(".state"))
            && crate::session::SessionId::new(id).is_ok()
        {
            names.insert(id.to_owned());
        }
    }
    for id in &names {
        let doc: Option<Session> = read_json(&sessions.join(format!("{id}.json")), id)?;
        let state: Option<SessionState> = read_json(&sessions.join(format!("{id}.state")), id)?;
        if doc.is_some() && state.is_none() {
            return Err(SessionError::Invalid {
                id: id.clone(),
                path: sessions.join(format!("{id}.state")),
                message: "missing engine state file; nothing removed".into(),
            }
            .into());
        }
        marks.session(id, doc.as_ref(), state.as_ref());
        roots += 1;
    }

    // Journals: the post blobs must be there (recovery writes them); pre blobs are kept when
    // present.
    let journals = store.path().join("journal");
    for name in files_of(&journals)?.keys() {
        if name.starts_with(".tmp-") || !name.ends_with(".json") {
            continue;
        }
        let path = journals.join(name);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let j: Journal = crate::json::from_slice(&bytes).map_err(|e| GcError::Journal {
            path: path.clone(),
            message: e.to_string(),
        })?;
        for (i, op) in j.ops.iter().enumerate() {
            let from = format!("journal/{name}/ops/{i}");
            if let Some(pre) = op.pre {
                marks.object(pre.blob, &format!("{from}/pre"), false);
            }
            if let Some(post) = op.post {
                marks.object(post.blob, &format!("{from}/post"), true);
            }
        }
        roots += 1;
    }
    Ok(roots)
}

/// The stat caches that name one of `gone_objects` or that the reader would ignore anyway (a
/// stat-cache hit is trusted to name a stored blob).
fn stale_stat_caches(
    store: &Store,
    gone_objects: &[(&Digest, &Found)],
) -> Result<Vec<Removed>, GcError> {
    let mut out = Vec::new();
    if !gone_objects.is_empty() {
        let gone: HashSet<[u8; 32]> = gone_objects.iter().map(|(d, _)| *d.as_bytes()).collect();
        for (name, f) in files_of(&store.path().join("statcache"))? {
            if name.starts_with(".tmp-") {
                continue;
            }
            let path = store.path().join("statcache").join(&name);
            let bytes = std::fs::read(&path).map_err(io_err(&path))?;
            let unreadable = crate::statcache::StatCache::decode(&bytes).is_none();
            let names_gone = bytes.windows(32).any(|w| {
                let mut a = [0u8; 32];
                a.copy_from_slice(w);
                gone.contains(&a)
            });
            if unreadable || names_gone {
                out.push(Removed {
                    path: Path::new("statcache").join(&name),
                    kind: RemovedKind::StatCache,
                    bytes: f.bytes,
                });
            }
        }
    }
    Ok(out)
}

impl<'a> Marks<'a> {
    /// Nothing marked yet.
    fn new(store: &'a Store) -> Self {
        Marks {
            store,
            objects: HashSet::new(),
            docs: HashSet::new(),
            snapshots_seen: HashSet::new(),
            problems: BTreeSet::new(),
        }
    }
}

/// What a session, or a snapshot, references in the store (the walk [`gc`] marks with), for
/// `genesis push` (crate::remote): every object (blobs, tree nodes, v0.1 canonical objects
/// when stored, patch texts, acceptance records and the manifests they name, logs, the
/// manifest blob, saved files), the v0.1 snapshot documents, and what is missing or corrupt.
#[cfg(feature = "remote")]
#[derive(Debug, Default)]
pub(crate) struct Reach {
    pub(crate) objects: HashSet<Digest>,
    pub(crate) docs: HashSet<Digest>,
    pub(crate) problems: BTreeSet<String>,
}

/// [`Reach`] of the session `name` (document and state) and of the snapshots `snapshots`.
#[cfg(feature = "remote")]
pub(crate) fn reach(
    store: &Store,
    session: Option<(&str, &Session, &SessionState)>,
    snapshots: &[Digest],
) -> Reach {
    let mut marks = Marks::new(store);
    if let Some((name, doc, state)) = session {
        marks.session(name, Some(doc), Some(state));
    }
    for s in snapshots {
        marks.snapshot(*s, &format!("snapshot {s}"));
    }
    Reach {
        objects: marks.objects,
        docs: marks.docs,
        problems: marks.problems,
    }
}
