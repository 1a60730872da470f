//! Session documents (`genesis/agent-transaction-v0.1`, 004 `#/$defs/session`) and the
//! engine's private state kept beside each one.
//!
//! In the store:
//!
//! ```text
//! sessions/<id>.json        the session document, valid against 004 #/$defs/session
//! sessions/<id>.state       engine state (JSON): executable bits of every snapshot the session
//!                           passed through, the manifest, the checkout directory, logs
//! ```
//!
//! Both are rewritten atomically (temp file, fsync, rename) on every change, the state first;
//! the document's rename commits the pair (see `save`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::hash::Digest;
use crate::json::JsonError;
use crate::path::WorkspacePath;
use crate::schema::{DocumentKind, schema_violations};
use crate::store::{Store, StoreError, write_atomic};

/// The `schema` value of a session document.
pub const SESSION_SCHEMA: &str = "genesis/agent-transaction-v0.1";
/// Most patches one session may hold (004 `patches.maxItems`).
pub const MAX_PATCHES: usize = 4096;

/// A session id: `[A-Za-z0-9_-]{1,64}` (004 `#/$defs/sessionId`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(String);

/// A string that is not a valid session id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid session id {0:?}: expected 1 to 64 characters from A-Z a-z 0-9 _ -")]
pub struct SessionIdError(pub String);

impl SessionId {
    /// Validates `s`.
    ///
    /// # Errors
    /// [`SessionIdError`] unless `s` is 1–64 characters of `[A-Za-z0-9_-]`.
    pub fn new(s: &str) -> Result<Self, SessionIdError> {
        if s.is_empty()
            || s.len() > 64
            || !s
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(SessionIdError(s.to_owned()));
        }
        Ok(SessionId(s.to_owned()))
    }

    /// A fresh UUIDv7 (time-ordered), for example `01936f3e-…`, from [`crate::clock::uuid7`]
    /// (`GENESIS_TIMESTAMP` and `GENESIS_RANDOMNESS_SEED` pin it).
    pub fn generate() -> Self {
        SessionId(crate::clock::uuid7().to_string())
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for SessionId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for SessionId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        SessionId::new(&s).map_err(serde::de::Error::custom)
    }
}

/// A session's status: `open` until it becomes `applied` or `aborted`, then never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Patches may be recorded, verified and applied.
    Open,
    /// Written to the workspace.
    Applied,
    /// Thrown away.
    Aborted,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Open => "open",
            Status::Applied => "applied",
            Status::Aborted => "aborted",
        })
    }
}

/// One recorded patch (004 `#/$defs/patch`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchEntry {
    /// SHA-256 of the patch text as submitted (an object in the store).
    pub patch: Digest,
    /// Identity of the snapshot the patch applied to.
    pub before_snapshot: Digest,
    /// Identity of the snapshot it produced.
    pub after_snapshot: Digest,
    /// Whether the static obligations (protected paths, limits) hold for `after_snapshot`.
    pub obligations_ok: bool,
    /// The acceptance hash when the patch was verified (`patch --verify`), else `null`.
    pub acceptance: Option<Digest>,
}

/// The outcome of a verification (004 `#/$defs/verification`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// The snapshot verified.
    pub snapshot: Digest,
    /// SHA-256 of the JCS form of the acceptance record (an object in the store).
    pub acceptance: Digest,
    /// Whether every obligation passed.
    pub obligations_ok: bool,
}

/// A session document (004 `#/$defs/session`). Field order is the schema's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// Always [`SESSION_SCHEMA`].
    pub schema: String,
    /// The session id.
    pub session: SessionId,
    /// The manifest's path relative to the workspace root.
    pub package_manifest: WorkspacePath,
    /// The snapshot the session started from.
    pub base_snapshot: Digest,
    /// The snapshot after the last patch (the base when there is none).
    pub current_snapshot: Digest,
    /// open, applied or aborted.
    pub status: Status,
    /// The recorded patches, oldest first.
    pub patches: Vec<PatchEntry>,
    /// The last verification, or `null`.
    pub verification: Option<Verification>,
}

/// A snapshot the session passed through, with its executable bits (which the v0.1 identity
/// does not cover).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotState {
    /// The snapshot identity.
    pub identity: Digest,
    /// Paths with the executable bit set.
    pub executable: BTreeSet<WorkspacePath>,
}

/// Output of one obligation run, kept for `status` and debugging (not part of acceptance).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ObligationLog {
    /// The obligation id.
    pub id: String,
    /// The snapshot it ran on.
    pub snapshot: Digest,
    /// Store object holding its standard output.
    pub stdout: Digest,
    /// Store object holding its standard error.
    pub stderr: Digest,
    /// Exit code, or `null` when killed by a signal or the timeout.
    pub exit_code: Option<i32>,
    /// Whether it was killed for running past its timeout.
    pub timed_out: bool,
    /// Wall-clock seconds it ran.
    pub seconds: f64,
}

/// Engine state beside a session document.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct SessionState {
    /// `snapshots[0]` is the base; `snapshots[i + 1]` is the result of `patches[i]`.
    pub snapshots: Vec<SnapshotState>,
    /// Blob of the manifest as it is in the base snapshot.
    pub manifest_blob: Option<Digest>,
    /// Directory made by `open --checkout`, removed by `abort`.
    pub checkout: Option<PathBuf>,
    /// Logs of the last verification's obligations.
    pub logs: Vec<ObligationLog>,
    /// The agent edits the workspace itself (`open --in-place`).
    #[serde(default)]
    pub in_place: bool,
    /// Event sequence counters of each dialect, so numbering continues across processes.
    #[serde(default)]
    pub events: crate::events::EventCounters,
    /// What `abort` saved before removing or overwriting files no patch recorded; `genesis
    /// restore` brings them back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<SavedWork>,
    /// The base's tracked members: the files of the base snapshot that were members at `open`
    /// only because git tracked them (`.gitignore` matches them, see [`crate::tracked`]),
    /// sorted. Recorded at open so that the base's membership can be judged later without
    /// the index of that time: `abort` decides with it which files the base's rules left out,
    /// and `snapshot`, `check` and `diff` judge the session's checkout directory (which has
    /// no `.git`) with it. `None` for sessions opened before it was recorded (the workspace's
    /// index of the moment is used then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_tracked: Option<Vec<WorkspacePath>>,
    /// What each `genesis rebase` replaced, oldest first: the base, patches, snapshots and
    /// verification the session had before it was moved onto the workspace (DESIGN section 4).
    /// Kept so that no recorded patch or snapshot is lost (and a store collector keeps them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebased: Vec<Rebased>,
    /// The session snapshot the `--checkout` directory was last made from or recorded from:
    /// the base at `open`, the result of each `patch --from` the checkout, the merged tree when
    /// `rebase` rewrote it. A rebase that leaves the checkout as it was does not change it, so
    /// `patch --from` the checkout refuses while this names no snapshot of the session's
    /// current chain (`snapshots`): its state would undo what the rebase merged in (DESIGN
    /// section 4). `None` without a checkout, and for sessions made before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_from: Option<Digest>,
    /// The paths whose current content holds unresolved conflict markers that `rebase
    /// --markers` wrote, sorted; a later patch that changes a path takes it off. `apply`
    /// refuses while any is left (as git refuses to commit unmerged paths) unless told to
    /// allow them (DESIGN section 4). Empty for sessions made before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflict_markers: Vec<WorkspacePath>,
    /// Set by `genesis pull` when it brought patches into a session with a `--checkout`
    /// directory that does not hold them: the session snapshot pulled. `patch --from` the
    /// checkout is refused while set (its state would revert the pulled patches; DESIGN
    /// section 13); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_pulled_past: Option<Digest>,
    /// When the last verification took an acceptance record made elsewhere instead of
    /// running the obligations (`verify --reuse-acceptance`): which, and from where. `None`
    /// when the obligations ran here (then [`SessionState::logs`] holds their output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_acceptance: Option<ReusedAcceptance>,
}

/// An acceptance record `verify --reuse-acceptance` took (DESIGN section 13).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReusedAcceptance {
    /// The record's name (now also in the local store).
    pub acceptance: Digest,
    /// Where it came from (the remote URL).
    pub source: String,
}

/// One `genesis rebase` of a session: the history it replaced.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rebased {
    /// The workspace snapshot the session was moved onto (its new base).
    pub onto: Digest,
    /// The base before.
    pub base: Digest,
    /// The patches before, oldest first.
    pub patches: Vec<PatchEntry>,
    /// The snapshots before, with their executable bits (`snapshots[0]` is `base`).
    pub snapshots: Vec<SnapshotState>,
    /// The verification before, if any.
    pub verification: Option<Verification>,
}

/// The work `abort` saved into the store (DESIGN section 9).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SavedWork {
    /// Identity of the stored snapshot of the tree abort found (the workspace of an in-place
    /// session, the checkout directory of a `--checkout` session), just before it changed it;
    /// `None` when only recovery rescued files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<Digest>,
    /// Executable bits of that snapshot.
    pub executable: BTreeSet<WorkspacePath>,
    /// The files abort removed or overwrote whose content no patch of the session recorded,
    /// sorted by path. Their blobs are in the store.
    pub files: Vec<SavedFile>,
}

/// One file `abort` saved.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedFile {
    /// The path (relative to the workspace or the checkout directory).
    pub path: WorkspacePath,
    /// Hex SHA-256 of its bytes; the blob is in the store.
    pub blob: Digest,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its executable bit.
    pub executable: bool,
    /// Its permission bits (e.g. `0o600`), restored exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

impl SessionState {
    /// Executable bits of the current snapshot (the last entry).
    pub fn current_executable(&self) -> BTreeSet<WorkspacePath> {
        self.snapshots
            .last()
            .map(|s| s.executable.clone())
            .unwrap_or_default()
    }

    /// Executable bits of the base snapshot.
    pub fn base_executable(&self) -> BTreeSet<WorkspacePath> {
        self.snapshots
            .first()
            .map(|s| s.executable.clone())
            .unwrap_or_default()
    }
}

/// Errors reading or writing sessions. Each names the session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No such session in the store.
    #[error("no session {0:?} in the store; `genesis status` lists the sessions")]
    NotFound(String),
    /// A session with this id exists already.
    #[error("session {0} exists already; choose another --session id")]
    Exists(SessionId),
    /// The session document or its state is not valid (edited by hand, or corrupt).
    #[error("session {id}: invalid document {}: {message}", .path.display())]
    Invalid {
        /// The session id.
        id: String,
        /// The file.
        path: PathBuf,
        /// What is wrong, with JSON pointers.
        message: String,
    },
    /// The session document or its state file has a member name twice in one object (see
    /// [`crate::json`]); for the state file, which Genesis writes, that means it was edited.
    #[error("session {id}: {}: {source}", .path.display())]
    DuplicateKey {
        /// The session id.
        id: String,
        /// The file (`sessions/<id>.json` or `sessions/<id>.state`).
        path: PathBuf,
        /// The name and its JSON pointer.
        source: crate::json::DuplicateKey,
    },
    /// A store error.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn sessions_dir(store: &Store) -> PathBuf {
    store.path().join("sessions")
}

/// The engine state file of session `id`: `<store>/sessions/<id>.state`.
pub fn state_path(store: &Store, id: &str) -> PathBuf {
    sessions_dir(store).join(format!("{id}.state"))
}

/// Whether a session with this id exists.
pub fn exists(store: &Store, id: &SessionId) -> bool {
    sessions_dir(store).join(format!("{id}.json")).is_file()
}

/// Reads and checks a session and its state: the document must be valid against 004
/// `#/$defs/session`, and its snapshots must be in the store.
///
/// # Errors
/// [`SessionError::NotFound`], [`SessionError::DuplicateKey`] (either file),
/// [`SessionError::Invalid`] (with the JSON pointer of each failure, or the missing snapshot).
pub fn load(store: &Store, id: &str) -> Result<(Session, SessionState), SessionError> {
    let sid = SessionId::new(id).map_err(|_| SessionError::NotFound(id.to_owned()))?;
    let dir = sessions_dir(store);
    let path = dir.join(format!("{sid}.json"));
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SessionError::NotFound(id.to_owned()));
        }
        Err(source) => return Err(StoreError::Io { path, source }.into()),
    };
    let invalid = |path: &Path, message: String| SessionError::Invalid {
        id: id.to_owned(),
        path: path.to_path_buf(),
        message,
    };
    let json_err = |path: &Path, e: JsonError| match e {
        JsonError::Duplicate(source) => SessionError::DuplicateKey {
            id: id.to_owned(),
            path: path.to_path_buf(),
            source,
        },
        e => invalid(path, e.to_string()),
    };
    let value: serde_json::Value =
        crate::json::value_from_slice(&bytes).map_err(|e| json_err(&path, e))?;
    let violations = schema_violations(DocumentKind::Session, &value);
    if !violations.is_empty() {
        let msg = violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        return Err(invalid(&path, msg));
    }
    let session: Session =
        serde_json::from_value(value).map_err(|e| invalid(&path, e.to_string()))?;
    if session.session != sid {
        return Err(invalid(
            &path,
            format!(
                "/session: {:?} does not match the file name",
                session.session.as_str()
            ),
        ));
    }
    let state_path = dir.join(format!("{sid}.state"));
    let state: SessionState = match std::fs::read(&state_path) {
        Ok(b) => crate::json::from_slice(&b).map_err(|e| json_err(&state_path, e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(invalid(&state_path, "missing engine state file".into()));
        }
        Err(source) => {
            return Err(StoreError::Io {
                path: state_path,
                source,
            }
            .into());
        }
    };
    // Every snapshot the document names must be stored, and agree with the state.
    let mut named = vec![("/base_snapshot".to_owned(), session.base_snapshot)];
    named.push(("/current_snapshot".into(), session.current_snapshot));
    for (i, p) in session.patches.iter().enumerate() {
        named.push((format!("/patches/{i}/before_snapshot"), p.before_snapshot));
        named.push((format!("/patches/{i}/after_snapshot"), p.after_snapshot));
        if !store.has_object(&p.patch) {
            return Err(invalid(
                &path,
                format!(
                    "/patches/{i}/patch: patch object {} is not in the store",
                    p.patch
                ),
            ));
        }
    }
    for (pointer, id) in &named {
        if !store.has_snapshot(id) {
            return Err(invalid(
                &path,
                format!("{pointer}: snapshot {id} is not in the store"),
            ));
        }
    }
    // A state ahead of its document: `save` wrote the state and stopped (a crash, or a
    // reader between the two renames) before the document's rename, which is the commit
    // point. The snapshots past the document's chain belong to a patch that was never
    // recorded; they are dropped here, and with them the change is gone (DESIGN section 4,
    // "Locked sessions").
    let mut state = state;
    if state.snapshots.len() > session.patches.len() + 1 {
        state.snapshots.truncate(session.patches.len() + 1);
    }
    let chain_ok = state.snapshots.len() == session.patches.len() + 1
        && state.snapshots[0].identity == session.base_snapshot
        && state.snapshots.last().map(|s| s.identity) == Some(session.current_snapshot)
        && session.patches.iter().enumerate().all(|(i, p)| {
            state.snapshots[i].identity == p.before_snapshot
                && state.snapshots[i + 1].identity == p.after_snapshot
        });
    if !chain_ok {
        return Err(invalid(
            &path,
            "the patches do not form a chain from /base_snapshot to /current_snapshot".into(),
        ));
    }
    Ok((session, state))
}

/// Writes a session's state, then its document, each atomically (temp file, fsync, rename).
///
/// The pair is committed by the document's rename: the state is written first, so a crash
/// (or a reader) between the two renames sees the new state with the previous document, and
/// [`load`] reads that as the previous session (snapshots past the document's chain are
/// dropped; the other state fields are advisory). The reverse order would leave a document
/// whose snapshots' executable bits are nowhere. DESIGN section 4, "Locked sessions".
///
/// Crate-private: a session is written only through [`crate::engine::LockedSession`] (under
/// the store lock) or by recovery, never as a library user's edit that [`load`] would refuse.
///
/// # Errors
/// [`SessionError::Store`] on file-system failure.
pub(crate) fn save(
    store: &Store,
    session: &Session,
    state: &SessionState,
) -> Result<(), SessionError> {
    let dir = sessions_dir(store);
    std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
        path: dir.clone(),
        source,
    })?;
    let mut st = serde_json::to_vec_pretty(state).expect("serialisable");
    st.push(b'\n');
    write_atomic(&dir, &format!("{}.state", session.session), &st)?;
    let mut doc = serde_json::to_vec_pretty(session).expect("serialisable");
    doc.push(b'\n');
    write_atomic(&dir, &format!("{}.json", session.session), &doc)?;
    Ok(())
}

/// The ids of all sessions in the store, sorted.
///
/// # Errors
/// [`StoreError::Io`] if the sessions directory cannot be read.
pub fn list(store: &Store) -> Result<Vec<String>, SessionError> {
    let dir = sessions_dir(store);
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(source) => return Err(StoreError::Io { path: dir, source }.into()),
    };
    for e in rd.flatten() {
        let name = e.file_name();
        if let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json"))
            && !id.ends_with(".state")
            && SessionId::new(id).is_ok()
        {
            out.push(id.to_owned());
        }
    }
    out.sort();
    Ok(out)
}

/// The session whose `--checkout` directory is `dir` (both compared with links resolved): the
/// latest open one, else the latest of any status; `None` when no session made `dir`.
/// Sessions that cannot be read are passed over (`genesis status` reports them).
///
/// # Errors
/// [`StoreError::Io`] if the sessions directory cannot be read.
pub fn checkout_owner(
    store: &Store,
    dir: &Path,
) -> Result<Option<(Session, SessionState)>, SessionError> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let want = canon(dir);
    /// Only the field the filter needs, so sessions of other directories cost one parse.
    #[derive(serde::Deserialize)]
    struct CheckoutOnly {
        #[serde(default)]
        checkout: Option<PathBuf>,
    }
    let dir_of_sessions = sessions_dir(store);
    let mut found: Option<(Session, SessionState)> = None;
    for id in list(store)?.iter().rev() {
        let Ok(bytes) = std::fs::read(dir_of_sessions.join(format!("{id}.state"))) else {
            continue;
        };
        let Ok(c) = serde_json::from_slice::<CheckoutOnly>(&bytes) else {
            continue;
        };
        if c.checkout.as_deref().is_none_or(|c| canon(c) != want) {
            continue;
        }
        // A candidate: read and check it as every command does.
        let Ok((s, st)) = load(store, id) else {
            continue;
        };
        if st.checkout.as_deref().is_none_or(|c| canon(c) != want) {
            continue;
        }
        if s.status == Status::Open {
            return Ok(Some((s, st)));
        }
        if found.is_none() {
            found = Some((s, st));
        }
    }
    Ok(found)
}

/// The tracked members to judge `dir` with when it is a session's `--checkout` directory
/// ([`checkout_owner`]): that session's [`SessionState::base_tracked`], so that a snapshot of
/// the checkout (which has no `.git`, hence no index) keeps the files the base kept although
/// `.gitignore` matches them. Empty when `dir` is no session's checkout, or the session
/// predates the record.
///
/// A checkout lies outside its workspace (`open` refuses one inside), so for `dir` at or below
/// `workspace_root` (the usual `genesis snapshot` of the workspace) no session state is read:
/// the cost does not grow with the number of sessions.
///
/// # Errors
/// [`StoreError::Io`] if the sessions directory cannot be read.
pub fn checkout_tracked(
    store: &Store,
    workspace_root: &Path,
    dir: &Path,
) -> Result<Vec<WorkspacePath>, SessionError> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if canon(dir).starts_with(canon(workspace_root)) {
        return Ok(Vec::new());
    }
    Ok(checkout_owner(store, dir)?
        .and_then(|(_, st)| st.base_tracked)
        .unwrap_or_default())
}
