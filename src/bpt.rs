//! Block Play Table (BPT) A2A execution requests (seed 001, `kind: bpt.execution.request`)
//! acted on as Genesis sessions: `genesis bpt REQUEST.json`.
//!
//! | request | what Genesis does |
//! |---|---|
//! | `START` / `CREATE` | opens a session whose checkout is a fresh worktree `WORK_ROOT/NAME`, runs `commands.pre` in it |
//! | `RETRY` / `RECREATE` | aborts the task's open session (its worktree goes), then as `START` |
//! | `CONTINUE` / `RESUME` | checks `resume.worktreePath`, records the worktree as a patch, verifies (manifest obligations + `commands.post`) |
//! | `INTERACTION_RESPONSE` `APPROVE`, `APPROVE_FOR_SESSION` | applies the verified session to the workspace; the worktree goes |
//! | `INTERACTION_RESPONSE` `DENY`, `CANCEL` | aborts the session; the worktree goes |
//!
//! - **Validation**: the request is checked against the seed schema (draft 2020-12, formats on)
//!   and refused with the JSON pointer of every failure ([`BptError::Invalid`]). Messages are
//!   redacted: they never quote a sensitive value.
//! - **Worker**: a request whose `scope.expectedWorkerId` is not this worker's id is refused
//!   ([`BptError::WrongWorker`]) before anything is created: no store, session or worktree.
//! - **Work root**: worktrees live in [`Options::work_root`], by default
//!   `<parent of the workspace>/.genesis-worktrees` (outside the workspace, so snapshots of the
//!   workspace never see them). A worktree's name is `project.worktreeNamePrefix` +
//!   `scope.localTaskId` + `-` + `scope.executionId` (+ `-aN` for attempt N > 1), every
//!   character outside `[A-Za-z0-9._-]` replaced by `_`; a name that had to be changed or cut
//!   to 120 characters gets 8 hex digits of the SHA-256 of the unsanitised name, so different
//!   ids never share a worktree.
//! - **`resume.worktreePath`** must, with symbolic links resolved, be the worktree of that
//!   execution, inside the work root; a dangling link, a missing path or one outside is
//!   refused ([`BptError::BadRequest`]).
//! - **Mapping**: `STORE/bpt/tasks/<sha256(localTaskId)[..32]>.json` (written atomically) lists
//!   each execution of the task: `executionId`, `attempt`, last `turn`, the session id and the
//!   worktree. Requests of one task are serialised by `STORE/bpt/tasks/<…>.lock`. Session ids
//!   are `bpt-` + 32 hex digits of the SHA-256 of (task, execution, attempt, index).
//! - **Environment**: `environment.variables` reach the pre commands and the obligations.
//!   Values marked `sensitive` are redacted (`[REDACTED]`) in every event, stored log, summary
//!   and error message; they are never written to the store. A command whose text holds a
//!   sensitive value literally is refused (commands are stored in acceptance records): refer
//!   to the variable (`$KEY`) instead.
//! - **Commands**: `commands.pre` run with `sh -c` in the worktree after it is made (output
//!   streamed as events, redacted); a failing one fails the execution (`execution.terminal`
//!   `FAILED`, the session is aborted). `commands.post` become extra obligations
//!   `bpt-post-N` (`sh -c`), run after the manifest's on every verification of the execution.
//!   Both use [`Options::command_timeout_s`]. Changes the pre commands make to files that
//!   snapshots include become part of the execution's change, as the agent's edits do.
//! - **Events** (the BPT dialect unless told otherwise) carry the request's scope
//!   (`localTaskId`, `executionId`, `attempt`, `turn`) and this worker's id; the counters are
//!   stored with the session, so `event.sequence` runs 1, 2, 3, … over every process of the
//!   execution. A `RETRY` that keeps the `executionId` continues its numbering. A verification
//!   that fails emits `result.updated` and an `execution.diagnostic` (retryable), not
//!   `execution.terminal`: the agent may fix the code and `CONTINUE`. A refused request (invalid,
//!   wrong worker, unknown execution) emits nothing.
//! - **Approval**: a passing verification asks for approval with `interactionId`
//!   [`interaction_id`] (`genesis-apply:<patches>:<snapshot>`); `APPROVE` must name the id of
//!   the current verification, so an approval given for an older turn never applies newer code.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest as _;

use crate::engine::{ApplyOptions, Engine, EngineError, Observer, OpenOptions, PatchInput};
use crate::engine::{VerifyOptions, VerifyOutcome};
use crate::events::{
    Dialect, Event, EventCounters, EventKind, EventSink, Redactor, Scope, Stream, codes,
};
use crate::manifest::Obligation;
use crate::obligation::{CommandResult, run_command};
use crate::schema::Violation;
use crate::session::{SessionId, Status};
use crate::store::{Store, write_atomic};
use crate::workspace::Workspace;

/// The seed 001 request schema, byte for byte.
pub const REQUEST_SCHEMA: &str =
    include_str!("../schemas/seeds/bpt-execution-request-v1.schema.json");

/// The `schema` of a task mapping file.
pub const TASK_SCHEMA: &str = "genesis/bpt-task-v1";

/// The default work root's directory name, beside the workspace.
pub const WORK_ROOT_NAME: &str = ".genesis-worktrees";

/// The longest worktree name before a hash suffix is added.
const NAME_MAX: usize = 120;

/// Errors of a request. Messages never hold a sensitive value.
#[derive(Debug, thiserror::Error)]
pub enum BptError {
    /// The request cannot be acted on (not JSON, unknown decision, bad worktree path).
    #[error("{0}")]
    BadRequest(String),
    /// The request has a member name twice in one object (see [`crate::json`]); the caller
    /// names the file.
    #[error("{0}")]
    DuplicateKey(crate::json::DuplicateKey),
    /// The request does not validate against seed 001.
    #[error("the request does not validate against the BPT execution request schema (seed 001):\n{}", .0.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Violation>),
    /// The request is addressed to another worker.
    #[error(
        "the request is for worker {expected:?}, but this worker is {actual:?} (--worker-id, GENESIS_WORKER_ID); nothing was done"
    )]
    WrongWorker {
        /// `scope.expectedWorkerId`.
        expected: String,
        /// This worker.
        actual: String,
    },
    /// The request does not fit the state: an unknown execution, one already started, a stale
    /// approval, a task lock held too long.
    #[error("{0}")]
    Conflict(String),
    /// A session operation failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A file-system operation failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> BptError + '_ {
    move |source| BptError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl From<crate::store::StoreError> for BptError {
    fn from(e: crate::store::StoreError) -> Self {
        BptError::Engine(e.into())
    }
}

/// The four operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Operation {
    Start,
    Retry,
    Continue,
    InteractionResponse,
}

impl Operation {
    /// The request's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Start => "START",
            Operation::Retry => "RETRY",
            Operation::Continue => "CONTINUE",
            Operation::InteractionResponse => "INTERACTION_RESPONSE",
        }
    }
}

/// An interaction decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Decision {
    Approve,
    ApproveForSession,
    Deny,
    Cancel,
    Respond,
}

impl Decision {
    /// The request's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approve => "APPROVE",
            Decision::ApproveForSession => "APPROVE_FOR_SESSION",
            Decision::Deny => "DENY",
            Decision::Cancel => "CANCEL",
            Decision::Respond => "RESPOND",
        }
    }
}

/// `command`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandPart {
    pub id: String,
    pub operation: Operation,
    pub issued_at: String,
}

/// `scope`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestScope {
    pub local_task_id: String,
    pub execution_id: String,
    pub attempt: u32,
    pub turn: u32,
    pub expected_worker_id: String,
}

/// `project`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub id: String,
    pub git_url: String,
    pub default_branch: String,
    pub worktree_name_prefix: String,
}

/// `commands`.
#[derive(Debug, Clone, Deserialize)]
pub struct Commands {
    pub pre: Vec<String>,
    pub post: Vec<String>,
}

/// One of `environment.variables`. `Debug` never shows a sensitive value.
#[derive(Clone, Deserialize)]
pub struct Variable {
    pub key: String,
    pub value: String,
    pub sensitive: bool,
}

impl std::fmt::Debug for Variable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = if self.sensitive {
            crate::events::REDACTED
        } else {
            &self.value
        };
        f.debug_struct("Variable")
            .field("key", &self.key)
            .field("value", &value)
            .field("sensitive", &self.sensitive)
            .finish()
    }
}

/// `environment`.
#[derive(Debug, Clone, Deserialize)]
pub struct Environment {
    pub variables: Vec<Variable>,
}

/// `resume`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    pub agent_session_id: String,
    pub worktree_path: String,
}

/// `interaction`.
#[derive(Debug, Clone, Deserialize)]
pub struct Interaction {
    pub id: String,
    pub decision: Decision,
    pub message: String,
    pub payload: String,
}

/// A schema-valid request (the parts Genesis acts on; `task` and `agent` are checked by the
/// schema and otherwise unused: Genesis does not run the agent).
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    pub command: CommandPart,
    pub scope: RequestScope,
    pub project: Project,
    pub commands: Commands,
    pub environment: Environment,
    pub resume: Option<Resume>,
    pub interaction: Option<Interaction>,
}

impl Request {
    /// The values of the variables marked `sensitive`.
    pub fn secrets(&self) -> Vec<String> {
        self.environment
            .variables
            .iter()
            .filter(|v| v.sensitive)
            .map(|v| v.value.clone())
            .collect()
    }

    /// A redactor of [`Request::secrets`].
    pub fn redactor(&self) -> Redactor {
        Redactor::new(self.secrets())
    }

    /// Every variable as `(key, value)`, in request order (a later duplicate key wins).
    pub fn env(&self) -> Vec<(String, String)> {
        self.environment
            .variables
            .iter()
            .map(|v| (v.key.clone(), v.value.clone()))
            .collect()
    }

    /// `commands.post` as obligations `bpt-post-N`.
    pub fn post_obligations(&self, timeout_s: u64) -> Vec<Obligation> {
        shell_obligations("bpt-post", &self.commands.post, timeout_s)
    }
}

fn shell_obligations(prefix: &str, commands: &[String], timeout_s: u64) -> Vec<Obligation> {
    commands
        .iter()
        .enumerate()
        .map(|(i, c)| Obligation {
            id: format!("{prefix}-{}", i + 1),
            run: vec!["sh".into(), "-c".into(), c.clone()],
            timeout_s,
        })
        .collect()
}

fn request_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value = serde_json::from_str(REQUEST_SCHEMA).expect("bundled schema is JSON");
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("bundled schema compiles")
    })
}

/// Every string that may be a sensitive value in a document that is perhaps not valid: each
/// `environment.variables[].value` string not explicitly marked `"sensitive": false`.
pub fn possible_secrets(doc: &Value) -> Vec<String> {
    doc.pointer("/environment/variables")
        .and_then(Value::as_array)
        .map(|vars| {
            vars.iter()
                .filter(|v| v.get("sensitive") != Some(&Value::Bool(false)))
                .filter_map(|v| v.get("value").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `text` redacted and cut to about `max` chars, never leaving the start of a secret at the cut.
fn redact_clip(redactor: &Redactor, text: &str, max: usize) -> String {
    let clipped = match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => return redactor.redact(text),
    };
    let mut carry = String::new();
    let mut out = redactor.redact_chunk(&mut carry, clipped, false);
    out.push('…');
    out
}

/// Parses and validates a request (seed 001, draft 2020-12, formats on).
///
/// # Errors
/// [`BptError::BadRequest`] (not JSON), [`BptError::DuplicateKey`], [`BptError::Invalid`] with
/// the JSON pointer of each failure; messages are redacted.
pub fn parse_request(bytes: &[u8]) -> Result<Request, BptError> {
    let doc: Value = crate::json::value_from_slice(bytes).map_err(|e| match e {
        crate::json::JsonError::Duplicate(d) => BptError::DuplicateKey(d),
        e => BptError::BadRequest(format!("the request is not valid JSON: {e}")),
    })?;
    let redactor = Redactor::new(possible_secrets(&doc));
    let violations: Vec<Violation> = request_validator()
        .iter_errors(&doc)
        .map(|e| Violation {
            pointer: e.instance_path().to_string(),
            message: redact_clip(&redactor, &e.to_string(), 400),
        })
        .collect();
    if !violations.is_empty() {
        return Err(BptError::Invalid(violations));
    }
    let request: Request = serde_json::from_value(doc).map_err(|e| {
        BptError::BadRequest(redact_clip(
            &redactor,
            &format!("the request cannot be read: {e}"),
            400,
        ))
    })?;
    // A secret so short that it occurs inside ids, dates and field names cannot be redacted
    // without corrupting every event (and would barely be hidden anyway).
    if let Some(v) = request
        .environment
        .variables
        .iter()
        .find(|v| v.sensitive && v.value.chars().count() < MIN_SECRET_CHARS)
    {
        return Err(BptError::BadRequest(format!(
            "environment variable {} is marked sensitive but its value has fewer than {MIN_SECRET_CHARS} characters; such a value cannot be redacted without corrupting the events",
            v.key
        )));
    }
    Ok(request)
}

/// Shortest value a variable marked `sensitive` may have.
pub const MIN_SECRET_CHARS: usize = 8;

/// Where the events go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsTarget {
    /// Appended to this file.
    File(PathBuf),
    /// Standard error.
    Stderr,
}

/// How to act on requests.
#[derive(Debug, Clone)]
pub struct Options {
    /// This worker's id (`scope.expectedWorkerId` must equal it).
    pub worker_id: String,
    /// Where worktrees live. Default: `<parent of the workspace>/.genesis-worktrees`.
    pub work_root: Option<PathBuf>,
    /// Where events go. Default: nowhere.
    pub events: Option<EventsTarget>,
    /// The events' dialect. Default: BPT.
    pub dialect: Dialect,
    /// Timeout of each pre and post command, seconds. Default: 600.
    pub command_timeout_s: u64,
    /// How long to wait for the store and task locks. Default: 10 seconds.
    pub lock_wait: Duration,
}

impl Options {
    /// The defaults for `worker_id`.
    pub fn new(worker_id: impl Into<String>) -> Self {
        Options {
            worker_id: worker_id.into(),
            work_root: None,
            events: None,
            dialect: Dialect::Bpt,
            command_timeout_s: 600,
            lock_wait: Duration::from_secs(10),
        }
    }
}

/// Where an execution stands after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionStatus {
    /// The worktree is ready for the agent.
    Ready,
    /// Verified; waiting for approval.
    Verified,
    /// Obligations or a pre command failed.
    Failed,
    /// Applied to the workspace.
    Applied,
    /// Aborted.
    Aborted,
}

/// What a request did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub operation: Operation,
    pub status: ExecutionStatus,
    pub session: String,
    pub worktree: PathBuf,
    pub local_task_id: String,
    pub execution_id: String,
    pub attempt: u32,
    pub turn: u32,
    /// The session a `RETRY` aborted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_session: Option<String>,
    /// The snapshot verified or applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The acceptance of a verification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<String>,
    /// The approval to ask for (`INTERACTION_RESPONSE` `interaction.id`) after a passing
    /// verification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interaction_id: Option<String>,
    /// Files changed, base to current (verification) or written (apply).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<usize>,
    /// Obligations or commands that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
}

impl Outcome {
    /// 1 when obligations or a pre command failed, else 0.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.status == ExecutionStatus::Failed)
    }
}

/// One execution of a task in the mapping file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionEntry {
    pub execution_id: String,
    pub attempt: u32,
    /// The last turn a request named.
    pub turn: u32,
    pub session: String,
    /// Absolute, links resolved.
    pub worktree: PathBuf,
    /// The `command.id` that created it.
    pub command_id: String,
}

/// The mapping file of one task: `STORE/bpt/tasks/<key>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    pub schema: String,
    pub local_task_id: String,
    /// Oldest first.
    pub executions: Vec<ExecutionEntry>,
}

impl TaskRecord {
    fn new(task: &str) -> Self {
        TaskRecord {
            schema: TASK_SCHEMA.into(),
            local_task_id: task.into(),
            executions: Vec::new(),
        }
    }

    /// The latest entry of `execution_id`.
    pub fn execution(&self, execution_id: &str) -> Option<&ExecutionEntry> {
        self.executions
            .iter()
            .rev()
            .find(|e| e.execution_id == execution_id)
    }
}

fn sha256_hex(parts: &[&str]) -> String {
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    hex::encode(h.finalize())
}

fn task_key(task: &str) -> String {
    sha256_hex(&[task])[..32].to_owned()
}

fn tasks_dir(store: &Store) -> PathBuf {
    store.path().join("bpt").join("tasks")
}

/// The mapping of `task`, if it has one.
///
/// # Errors
/// I/O errors; an unreadable file.
pub fn load_task(store: &Store, task: &str) -> Result<Option<TaskRecord>, BptError> {
    let path = tasks_dir(store).join(format!("{}.json", task_key(task)));
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path)(e)),
    };
    let record: TaskRecord = crate::json::from_slice(&bytes).map_err(|e| match e {
        crate::json::JsonError::Duplicate(source) => crate::store::StoreError::DuplicateKey {
            path: path.clone(),
            source,
        }
        .into(),
        e => io_err(&path)(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a BPT task mapping: {e}"),
        )),
    })?;
    if record.schema != TASK_SCHEMA || record.local_task_id != task {
        return Err(io_err(&path)(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not the {TASK_SCHEMA} mapping of task {task:?}"),
        )));
    }
    Ok(Some(record))
}

fn save_task(store: &Store, record: &TaskRecord) -> Result<(), BptError> {
    let dir = tasks_dir(store);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let mut bytes = serde_json::to_vec_pretty(record).expect("serialisable");
    bytes.push(b'\n');
    write_atomic(
        &dir,
        &format!("{}.json", task_key(&record.local_task_id)),
        &bytes,
    )?;
    Ok(())
}

/// Held while one request of a task runs; released on drop.
struct TaskLock(#[allow(dead_code)] File);

fn lock_task(store: &Store, task: &str, wait: Duration) -> Result<TaskLock, BptError> {
    let dir = tasks_dir(store);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let path = dir.join(format!("{}.lock", task_key(task)));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_err(&path))?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(TaskLock(file)),
            Err(std::fs::TryLockError::WouldBlock) => {
                if start.elapsed() >= wait {
                    return Err(BptError::Conflict(format!(
                        "another request of task {task:?} is running ({} is locked; waited {} s)",
                        path.display(),
                        wait.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
        }
    }
}

/// The session id of execution number `index` (0-based) of a task: `bpt-` + 32 hex digits.
pub fn session_id(task: &str, execution: &str, attempt: u32, index: usize) -> String {
    let h = sha256_hex(&[task, execution, &attempt.to_string(), &index.to_string()]);
    format!("bpt-{}", &h[..32])
}

/// The worktree directory name (see the module docs).
pub fn worktree_name(prefix: &str, task: &str, execution: &str, attempt: u32) -> String {
    let mut raw = format!("{prefix}{task}-{execution}");
    if attempt > 1 {
        raw.push_str(&format!("-a{attempt}"));
    }
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with('.') {
        name.replace_range(..1, "_");
    }
    if name != raw || name.len() > NAME_MAX {
        name.truncate(NAME_MAX);
        name.push('-');
        name.push_str(&sha256_hex(&[&raw])[..8]);
    }
    name
}

/// The approval id Genesis asks for after a passing verification of `snapshot` with `patches`
/// patches (the BPT `interaction.requested` `interactionId`).
pub fn interaction_id(patches: usize, snapshot: &str) -> String {
    format!("genesis-apply:{patches}:{snapshot}")
}

/// The work root: `given` (made absolute), else `<parent of the workspace>/.genesis-worktrees`.
///
/// # Errors
/// [`BptError::Io`] when the workspace does not exist; [`BptError::BadRequest`] when it has no
/// parent directory.
pub fn work_root(workspace: &Workspace, given: Option<&Path>) -> Result<PathBuf, BptError> {
    if let Some(g) = given {
        return Ok(crate::path::absolute_lexical(g));
    }
    let root = std::fs::canonicalize(workspace.root()).map_err(io_err(workspace.root()))?;
    let parent = root.parent().ok_or_else(|| {
        BptError::BadRequest(format!(
            "the workspace {} has no parent directory for the worktrees; pass --work-root DIR",
            root.display()
        ))
    })?;
    Ok(parent.join(WORK_ROOT_NAME))
}

/// `resume.worktreePath` with links resolved; it must exist and lie inside `work_root`.
///
/// # Errors
/// [`BptError::BadRequest`] for a missing path, a dangling link, or a path outside.
pub fn resolve_worktree_path(given: &str, work_root: &Path) -> Result<PathBuf, BptError> {
    let p = crate::path::absolute_lexical(Path::new(given));
    let md = std::fs::symlink_metadata(&p)
        .map_err(|e| BptError::BadRequest(format!("resume.worktreePath {given:?}: {e}")))?;
    let real = std::fs::canonicalize(&p).map_err(|e| {
        if md.file_type().is_symlink() {
            BptError::BadRequest(format!(
                "resume.worktreePath {given:?} is a dangling symbolic link (refused)"
            ))
        } else {
            BptError::BadRequest(format!("resume.worktreePath {given:?}: {e}"))
        }
    })?;
    let root = std::fs::canonicalize(work_root).map_err(|e| {
        BptError::BadRequest(format!(
            "resume.worktreePath {given:?}: the work root {} cannot be used: {e}",
            work_root.display()
        ))
    })?;
    if real == root || !real.starts_with(&root) {
        return Err(BptError::BadRequest(format!(
            "resume.worktreePath {given:?} resolves to {}, outside the work root {} (refused)",
            real.display(),
            root.display()
        )));
    }
    if !real.is_dir() {
        return Err(BptError::BadRequest(format!(
            "resume.worktreePath {given:?} is not a directory"
        )));
    }
    Ok(real)
}

/// Events of one session, with the request's scope, continuing the stored counters.
struct Emitter {
    sink: Option<EventSink>,
    session: String,
    target: Option<EventsTarget>,
}

impl Emitter {
    fn open(
        opts: &Options,
        scope: Scope,
        counters: EventCounters,
        redactor: Redactor,
    ) -> Result<Self, BptError> {
        let session = scope.session.clone();
        let sink = match &opts.events {
            None => None,
            Some(t) => {
                let path = match t {
                    EventsTarget::File(p) => Some(p.clone()),
                    EventsTarget::Stderr => None,
                };
                let sink = EventSink::new(path.clone(), opts.dialect, scope, counters)
                    .map_err(io_err(path.as_deref().unwrap_or(Path::new("-"))))?;
                Some(sink.with_redactor(redactor))
            }
        };
        Ok(Emitter {
            sink,
            session,
            target: opts.events.clone(),
        })
    }

    fn emit(&mut self, kind: EventKind) -> Result<(), BptError> {
        if let Some(sink) = &mut self.sink {
            sink.emit(&Event::now(self.session.clone(), kind))
                .map_err(|e| {
                    let path = match &self.target {
                        Some(EventsTarget::File(p)) => p.clone(),
                        _ => PathBuf::from("-"),
                    };
                    BptError::Io { path, source: e }
                })?;
        }
        Ok(())
    }

    /// Reports an error as an `execution.diagnostic` (an apply conflict as a failure).
    fn report(&mut self, e: &BptError) {
        let code = match e {
            BptError::BadRequest(_) | BptError::Invalid(_) | BptError::WrongWorker { .. } => {
                codes::BAD_INPUT
            }
            BptError::Conflict(_) => codes::SESSION_NOT_OPEN,
            BptError::Engine(EngineError::Conflict { .. }) => codes::APPLY_CONFLICT,
            BptError::Engine(EngineError::NotOpen { .. } | EngineError::NotVerified { .. }) => {
                codes::SESSION_NOT_OPEN
            }
            BptError::Engine(EngineError::Store(crate::store::StoreError::Locked { .. })) => {
                codes::STORE_LOCKED
            }
            BptError::Engine(
                EngineError::Patch(_)
                | EngineError::PathLimit(_)
                | EngineError::VerifyPathLimit { .. }
                | EngineError::CheckoutPathLimit { .. }
                | EngineError::CheckoutInPlace
                | EngineError::ManifestNotInSnapshot { .. }
                | EngineError::NotApart { .. }
                | EngineError::BadDirectory { .. }
                | EngineError::TooManyPatches { .. }
                | EngineError::PatchInputMismatch { .. }
                | EngineError::LeftOut { .. }
                | EngineError::DirNotReproduced { .. }
                | EngineError::FileUnderFile { .. }
                | EngineError::OverLimit { .. }
                | EngineError::SnapshotDocument(_)
                | EngineError::SavedFilesInvalid { .. }
                | EngineError::NoCheckoutToRestore { .. }
                | EngineError::Unsafe { .. },
            ) => codes::BAD_INPUT,
            _ => codes::IO_ERROR,
        };
        let kind = if code == codes::APPLY_CONFLICT {
            EventKind::Failed {
                code: code.into(),
                message: e.to_string(),
                retryable: false,
            }
        } else {
            EventKind::Diagnostic {
                code: code.into(),
                message: e.to_string(),
                retryable: code == codes::STORE_LOCKED,
            }
        };
        let _ = self.emit(kind);
    }

    fn save(self, engine: &Engine) -> Result<(), BptError> {
        if let Some(sink) = self.sink {
            engine.store_event_counters(&self.session, sink.counters())?;
        }
        Ok(())
    }
}

/// Passes obligation progress to the events and to a human observer.
struct Tee<'a> {
    em: &'a mut Emitter,
    human: &'a mut dyn Observer,
    error: Option<BptError>,
}

impl Tee<'_> {
    fn emit(&mut self, kind: EventKind) {
        if let Err(e) = self.em.emit(kind) {
            self.error.get_or_insert(e);
        }
    }
}

impl Observer for Tee<'_> {
    fn obligation_started(&mut self, id: &str, run: &[String], index: usize, total: usize) {
        self.emit(EventKind::ObligationStarted {
            id: id.to_owned(),
            run: run.to_vec(),
            index,
            total,
        });
        self.human.obligation_started(id, run, index, total);
    }
    fn obligation_output(&mut self, id: &str, stream: Stream, data: &[u8]) {
        self.emit(EventKind::ObligationOutput {
            id: id.to_owned(),
            stream,
            data: String::from_utf8_lossy(data).into_owned(),
        });
        self.human.obligation_output(id, stream, data);
    }
    fn obligation_finished(&mut self, r: &CommandResult, index: usize, total: usize) {
        self.emit(EventKind::obligation_finished(r, index, total));
        self.human.obligation_finished(r, index, total);
    }
}

/// Appends `data` to `partial` and takes out the longest whole-UTF-8 prefix.
fn utf8_pieces(partial: &mut Vec<u8>, data: &[u8]) -> String {
    partial.extend_from_slice(data);
    let cut = match std::str::from_utf8(partial) {
        Ok(_) => partial.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => partial.len(),
    };
    let text = String::from_utf8_lossy(&partial[..cut]).into_owned();
    partial.drain(..cut);
    text
}

/// Runs one command like the engine runs an obligation, its output redacted before anyone
/// sees it.
fn run_redacted(
    ob: &Obligation,
    dir: &Path,
    env: &[(String, String)],
    redactor: &Redactor,
    observer: &mut dyn Observer,
    index: usize,
    total: usize,
) -> CommandResult {
    observer.obligation_started(&ob.id, &ob.run, index, total);
    let mut carry = [String::new(), String::new()];
    let mut partial: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    let mut r = run_command(ob, dir, env, &mut |stream, data| {
        let slot = usize::from(stream == Stream::Stderr);
        let text = utf8_pieces(&mut partial[slot], data);
        let clean = redactor.redact_chunk(&mut carry[slot], &text, false);
        if !clean.is_empty() {
            observer.obligation_output(&ob.id, stream, clean.as_bytes());
        }
    });
    for (slot, stream) in [Stream::Stdout, Stream::Stderr].into_iter().enumerate() {
        let mut rest = String::from_utf8_lossy(&partial[slot]).into_owned();
        rest = redactor.redact_chunk(&mut carry[slot], &rest, true);
        if !rest.is_empty() {
            observer.obligation_output(&ob.id, stream, rest.as_bytes());
        }
    }
    if !redactor.is_empty() {
        r.stdout = redactor
            .redact(&String::from_utf8_lossy(&r.stdout))
            .into_bytes();
        r.stderr = redactor
            .redact(&String::from_utf8_lossy(&r.stderr))
            .into_bytes();
    }
    observer.obligation_finished(&r, index, total);
    r
}

fn check_worker(request: &Request, opts: &Options) -> Result<(), BptError> {
    if request.scope.expected_worker_id != opts.worker_id {
        return Err(BptError::WrongWorker {
            expected: request.scope.expected_worker_id.clone(),
            actual: opts.worker_id.clone(),
        });
    }
    Ok(())
}

/// Commands are stored (acceptance records name each obligation's argv): a command must refer
/// to a sensitive variable, not hold its value.
fn check_commands(request: &Request) -> Result<(), BptError> {
    for (list, name) in [
        (&request.commands.pre, "pre"),
        (&request.commands.post, "post"),
    ] {
        for (i, c) in list.iter().enumerate() {
            for v in request.environment.variables.iter().filter(|v| v.sensitive) {
                if !v.value.is_empty() && c.contains(&v.value) {
                    return Err(BptError::BadRequest(format!(
                        "commands.{name}[{i}] holds the value of the sensitive variable {} literally; commands are stored, so refer to it as ${} instead",
                        v.key, v.key
                    )));
                }
            }
        }
    }
    Ok(())
}

fn scope_for(request: &Request, opts: &Options, session: &str) -> Scope {
    let mut scope = Scope::new(session);
    scope.worker_id = opts.worker_id.clone();
    scope.local_task_id = request.scope.local_task_id.clone();
    scope.execution_id = request.scope.execution_id.clone();
    scope.attempt = request.scope.attempt;
    scope.turn = request.scope.turn;
    scope
}

fn is_open(engine: &Engine, session: &str) -> bool {
    engine
        .status(session)
        .is_ok_and(|(s, _)| s.status == Status::Open)
}

/// Removes a worktree Genesis made, if it is still there and inside the work root.
fn remove_worktree(dir: &Path, work_root: &Path) -> Result<(), BptError> {
    let (Ok(real), Ok(root)) = (std::fs::canonicalize(dir), std::fs::canonicalize(work_root))
    else {
        return Ok(());
    };
    if real != root && real.starts_with(&root) && real.is_dir() {
        std::fs::remove_dir_all(&real).map_err(io_err(&real))?;
    }
    Ok(())
}

/// Acts on a validated request (see the module docs). `human` sees obligation progress with
/// secrets already redacted.
///
/// # Errors
/// [`BptError::WrongWorker`] before anything is created; [`BptError::BadRequest`],
/// [`BptError::Conflict`], engine and I/O errors. Errors after the execution's session is known
/// are also emitted as events.
pub fn execute(
    workspace: &Workspace,
    request: &Request,
    opts: &Options,
    human: &mut dyn Observer,
) -> Result<Outcome, BptError> {
    check_worker(request, opts)?;
    check_commands(request)?;
    let root = work_root(workspace, opts.work_root.as_deref())?;
    match request.command.operation {
        Operation::Start => start(workspace, request, opts, &root, false, human),
        Operation::Retry => start(workspace, request, opts, &root, true, human),
        Operation::Continue | Operation::InteractionResponse => {
            resume(workspace, request, opts, &root, human)
        }
    }
}

fn outcome(request: &Request, session: &str, worktree: &Path, status: ExecutionStatus) -> Outcome {
    Outcome {
        operation: request.command.operation,
        status,
        session: session.to_owned(),
        worktree: worktree.to_path_buf(),
        local_task_id: request.scope.local_task_id.clone(),
        execution_id: request.scope.execution_id.clone(),
        attempt: request.scope.attempt,
        turn: request.scope.turn,
        previous_session: None,
        snapshot: None,
        acceptance: None,
        interaction_id: None,
        files_changed: None,
        failed: Vec::new(),
    }
}

/// START and RETRY.
fn start(
    workspace: &Workspace,
    request: &Request,
    opts: &Options,
    root: &Path,
    retry: bool,
    human: &mut dyn Observer,
) -> Result<Outcome, BptError> {
    let task = &request.scope.local_task_id;
    let exec = &request.scope.execution_id;
    // Interrupted changes are finished first, waiting for the store lock as long as
    // `Engine::new`'s default (as when construction recovered implicitly).
    let engine = Engine::new(workspace.clone(), true)?;
    engine.recover_pending()?;
    let engine = engine.with_lock_wait(opts.lock_wait);
    let _lock = lock_task(engine.store(), task, opts.lock_wait)?;
    let mut record = load_task(engine.store(), task)?.unwrap_or_else(|| TaskRecord::new(task));
    let mut previous = None;
    let mut counters = EventCounters::default();
    if retry {
        // Abort every open session of the task (normally the latest), each with its own scope.
        for e in record.executions.clone() {
            if !is_open(&engine, &e.session) {
                remove_worktree(&e.worktree, root)?;
                continue;
            }
            let mut scope = Scope::new(&e.session);
            scope.worker_id = opts.worker_id.clone();
            scope.local_task_id = task.clone();
            scope.execution_id = e.execution_id.clone();
            scope.attempt = e.attempt;
            scope.turn = e.turn;
            let stored = engine.event_counters(&e.session).unwrap_or_default();
            let mut em = Emitter::open(opts, scope, stored, request.redactor())?;
            match engine.abort(&e.session) {
                Ok(_) => {
                    em.emit(EventKind::Aborted {
                        reason: format!(
                            "superseded by RETRY {} (execution {}, attempt {})",
                            request.command.id, exec, request.scope.attempt
                        ),
                    })?;
                    em.save(&engine)?;
                }
                Err(err) => {
                    let err = BptError::from(err);
                    em.report(&err);
                    em.save(&engine)?;
                    return Err(err);
                }
            }
            remove_worktree(&e.worktree, root)?;
            previous = Some(e.session.clone());
        }
        if let Some(last) = record.execution(exec) {
            // The same execution goes on: its event numbering continues.
            counters = engine.event_counters(&last.session).unwrap_or_default();
            counters.bpt.pending_interaction = None;
            counters.aps.pending_approval = None;
            counters.aps.open_calls.clear();
        }
    } else {
        if let Some(e) = record.execution(exec) {
            return Err(BptError::Conflict(format!(
                "execution {exec:?} of task {task:?} was already started (session {}); send CONTINUE to go on or RETRY to start over",
                e.session
            )));
        }
        if let Some(e) = record
            .executions
            .iter()
            .find(|e| is_open(&engine, &e.session))
        {
            return Err(BptError::Conflict(format!(
                "task {task:?} has an open execution {:?} (session {}); send RETRY to replace it",
                e.execution_id, e.session
            )));
        }
    }
    let index = record.executions.len();
    let session = session_id(task, exec, request.scope.attempt, index);
    let base = worktree_name(
        &request.project.worktree_name_prefix,
        task,
        exec,
        request.scope.attempt,
    );
    std::fs::create_dir_all(root).map_err(io_err(root))?;
    let root = std::fs::canonicalize(root).map_err(io_err(root))?;
    let mut worktree = root.join(&base);
    let mut n = 2;
    while std::fs::symlink_metadata(&worktree).is_ok() {
        worktree = root.join(format!("{base}-{n}"));
        n += 1;
    }
    let opened = engine.open(&OpenOptions {
        session: Some(SessionId::new(&session).expect("bpt- + hex is a valid id")),
        manifest: None,
        checkout: Some(worktree.clone()),
        in_place: false,
    })?;
    record.executions.push(ExecutionEntry {
        execution_id: exec.clone(),
        attempt: request.scope.attempt,
        turn: request.scope.turn,
        session: session.clone(),
        worktree: worktree.clone(),
        command_id: request.command.id.clone(),
    });
    save_task(engine.store(), &record)?;
    let mut em = Emitter::open(
        opts,
        scope_for(request, opts, &session),
        counters,
        request.redactor(),
    )?;
    let result = (|| {
        em.emit(EventKind::SessionOpened {
            base_snapshot: opened.session.base_snapshot.to_string(),
        })?;
        em.emit(EventKind::WorkspaceReady {
            path: worktree.clone(),
        })?;
        let mut out = outcome(request, &session, &worktree, ExecutionStatus::Ready);
        out.previous_session = previous.clone();
        out.snapshot = Some(opened.session.base_snapshot.to_string());
        let mut env = request.env();
        env.push(("GENESIS_SESSION".into(), session.clone()));
        env.push((
            "GENESIS_WORKTREE".into(),
            worktree.to_string_lossy().into_owned(),
        ));
        let pre = shell_obligations("bpt-pre", &request.commands.pre, opts.command_timeout_s);
        let redactor = request.redactor();
        let mut tee = Tee {
            em: &mut em,
            human,
            error: None,
        };
        let mut failed = None;
        for (i, ob) in pre.iter().enumerate() {
            let r = run_redacted(ob, &worktree, &env, &redactor, &mut tee, i, pre.len());
            if r.interrupted {
                return Err(EngineError::Interrupted(ob.id.clone()).into());
            }
            if !r.passed() {
                failed = Some(ob.id.clone());
                break;
            }
        }
        if let Some(e) = tee.error.take() {
            return Err(e);
        }
        if let Some(id) = failed {
            em.emit(EventKind::Failed {
                code: "pre-command-failed".into(),
                message: format!(
                    "pre command {id} failed; the session was aborted and its worktree removed"
                ),
                retryable: true,
            })?;
            engine.abort(&session)?;
            out.status = ExecutionStatus::Failed;
            out.failed = vec![id];
        }
        Ok(out)
    })();
    if let Err(e) = &result {
        em.report(e);
    }
    em.save(&engine)?;
    result
}

/// CONTINUE and INTERACTION_RESPONSE.
fn resume(
    workspace: &Workspace,
    request: &Request,
    opts: &Options,
    root: &Path,
    human: &mut dyn Observer,
) -> Result<Outcome, BptError> {
    let task = &request.scope.local_task_id;
    let exec = &request.scope.execution_id;
    let unknown = || {
        BptError::Conflict(format!(
            "execution {exec:?} of task {task:?} is unknown to this workspace; START it first"
        ))
    };
    if workspace.existing_store()?.is_none() {
        return Err(unknown());
    }
    // Interrupted changes are finished first, waiting for the store lock as long as
    // `Engine::new`'s default (as when construction recovered implicitly).
    let engine = Engine::new(workspace.clone(), false)?;
    engine.recover_pending()?;
    let engine = engine.with_lock_wait(opts.lock_wait);
    let _lock = lock_task(engine.store(), task, opts.lock_wait)?;
    let mut record = load_task(engine.store(), task)?.ok_or_else(unknown)?;
    let entry = record.execution(exec).cloned().ok_or_else(unknown)?;
    let session = entry.session.clone();
    let counters = engine.event_counters(&session).unwrap_or_default();
    let mut em = Emitter::open(
        opts,
        scope_for(request, opts, &session),
        counters,
        request.redactor(),
    )?;
    let result = (|| {
        let resume = request.resume.as_ref().ok_or_else(|| {
            BptError::BadRequest(format!(
                "{} needs resume.worktreePath",
                request.command.operation.as_str()
            ))
        })?;
        let given = resolve_worktree_path(&resume.worktree_path, root)?;
        let expected = std::fs::canonicalize(&entry.worktree).unwrap_or(entry.worktree.clone());
        if given != expected {
            return Err(BptError::BadRequest(format!(
                "resume.worktreePath {:?} is not the worktree of execution {exec:?} ({})",
                resume.worktree_path,
                expected.display()
            )));
        }
        if let Some(e) = record
            .executions
            .iter_mut()
            .rev()
            .find(|e| e.execution_id == *exec)
        {
            e.turn = request.scope.turn;
            e.attempt = request.scope.attempt;
        }
        save_task(engine.store(), &record)?;
        match request.command.operation {
            Operation::Continue => continue_turn(&engine, request, opts, &mut em, &given, human),
            _ => respond(&engine, request, &mut em, &given, root),
        }
    })();
    if let Err(e) = &result {
        em.report(e);
    }
    em.save(&engine)?;
    result
}

/// CONTINUE: record the worktree, verify.
fn continue_turn(
    engine: &Engine,
    request: &Request,
    opts: &Options,
    em: &mut Emitter,
    worktree: &Path,
    human: &mut dyn Observer,
) -> Result<Outcome, BptError> {
    let (session_doc, _) = engine.status(&em.session)?;
    let id = session_doc.session.to_string();
    let patch = engine.patch(&id, PatchInput::Dir(worktree), None)?;
    if let Some(entry) = &patch.entry {
        em.emit(EventKind::PatchRecorded {
            index: patch.session.patches.len() - 1,
            patch: entry.patch.to_string(),
            before: entry.before_snapshot.to_string(),
            after: entry.after_snapshot.to_string(),
            files_changed: patch.changes.len(),
            lines_added: patch.lines_added,
            lines_removed: patch.lines_removed,
            obligations_ok: entry.obligations_ok,
        })?;
    }
    let vopts = VerifyOptions {
        workdir: None,
        env: request.env(),
        secrets: request.secrets(),
        extra_obligations: request.post_obligations(opts.command_timeout_s),
    };
    let v = {
        let mut tee = Tee {
            em: &mut *em,
            human,
            error: None,
        };
        let v = engine.verify_patch(&id, &vopts, &mut tee);
        if let Some(e) = tee.error.take() {
            return Err(e);
        }
        v?
    };
    verified(engine, request, em, worktree, &v)
}

fn verified(
    engine: &Engine,
    request: &Request,
    em: &mut Emitter,
    worktree: &Path,
    v: &VerifyOutcome,
) -> Result<Outcome, BptError> {
    let id = v.session.session.to_string();
    let (session, state) = engine.status(&id)?;
    let impact = engine.impact(&session, &state)?;
    let snapshot = v.record.snapshot.to_string();
    em.emit(EventKind::Verified {
        snapshot: snapshot.clone(),
        acceptance: v.acceptance.to_string(),
        obligations_ok: v.record.obligations_ok,
        files_changed: impact.files_changed,
        lines_added: impact.lines_added,
        lines_removed: impact.lines_removed,
        patches: session.patches.len(),
    })?;
    let mut out = outcome(request, &id, worktree, ExecutionStatus::Verified);
    out.snapshot = Some(snapshot.clone());
    out.acceptance = Some(v.acceptance.to_string());
    out.files_changed = Some(impact.files_changed);
    if v.record.obligations_ok {
        em.emit(EventKind::ApprovalNeeded {
            snapshot: snapshot.clone(),
            patches: session.patches.len(),
            files_changed: impact.files_changed,
            lines_added: impact.lines_added,
            lines_removed: impact.lines_removed,
        })?;
        out.interaction_id = Some(interaction_id(session.patches.len(), &snapshot));
    } else {
        out.status = ExecutionStatus::Failed;
        out.failed = v.record.failed_ids();
        em.emit(EventKind::Diagnostic {
            code: codes::OBLIGATIONS_FAILED.into(),
            message: format!(
                "obligations failed: {}; fix the worktree and send CONTINUE",
                out.failed.join(", ")
            ),
            retryable: true,
        })?;
    }
    Ok(out)
}

/// INTERACTION_RESPONSE.
fn respond(
    engine: &Engine,
    request: &Request,
    em: &mut Emitter,
    worktree: &Path,
    root: &Path,
) -> Result<Outcome, BptError> {
    let interaction = request
        .interaction
        .as_ref()
        .ok_or_else(|| BptError::BadRequest("INTERACTION_RESPONSE needs an interaction".into()))?;
    let id = em.session.clone();
    match interaction.decision {
        Decision::Approve | Decision::ApproveForSession => {
            let (session, _) = engine.status(&id)?;
            if let Some(v) = &session.verification
                && v.obligations_ok
                && v.snapshot == session.current_snapshot
            {
                let expected = interaction_id(session.patches.len(), &v.snapshot.to_string());
                if interaction.id != expected {
                    return Err(BptError::Conflict(format!(
                        "interaction {:?} is not the pending approval of session {id} ({expected:?}); nothing was applied",
                        interaction.id
                    )));
                }
            }
            let out = engine.apply(&id, &ApplyOptions::default())?;
            em.emit(EventKind::Applied {
                snapshot: out.session.current_snapshot.to_string(),
                files_changed: out.changes.len(),
            })?;
            remove_worktree(worktree, root)?;
            let mut o = outcome(request, &id, worktree, ExecutionStatus::Applied);
            o.snapshot = Some(out.session.current_snapshot.to_string());
            o.files_changed = Some(out.changes.len());
            Ok(o)
        }
        Decision::Deny | Decision::Cancel => {
            engine.abort(&id)?;
            remove_worktree(worktree, root)?;
            em.emit(EventKind::Aborted {
                reason: format!(
                    "{} by interaction {}",
                    interaction.decision.as_str(),
                    interaction.id
                ),
            })?;
            Ok(outcome(request, &id, worktree, ExecutionStatus::Aborted))
        }
        Decision::Respond => Err(BptError::BadRequest(format!(
            "interaction {:?}: RESPOND answers a question, and Genesis asks none; answer its approval request with APPROVE, DENY or CANCEL",
            interaction.id
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worktree_names_are_sanitised_and_distinct() {
        assert_eq!(worktree_name("wt-", "t1", "e1", 1), "wt-t1-e1");
        assert_eq!(worktree_name("wt-", "t1", "e1", 2), "wt-t1-e1-a2");
        let a = worktree_name("../", "t/1", "e 1", 1);
        let b = worktree_name("../", "t_1", "e_1", 1);
        assert!(a.starts_with("_._t_1-e_1-"), "{a}");
        assert!(!a.contains('/') && !a.starts_with('.'));
        assert_ne!(a, b);
        assert!(worktree_name("p", &"x".repeat(500), "e", 1).len() <= NAME_MAX + 9);
    }

    #[test]
    fn session_ids_are_valid() {
        let id = session_id("task", "exec", 1, 0);
        assert!(SessionId::new(&id).is_ok());
        assert_ne!(id, session_id("task", "exec", 1, 1));
    }

    #[test]
    fn clipped_messages_never_end_in_a_secret_prefix() {
        let r = Redactor::new(vec!["hunter2".into()]);
        let out = redact_clip(&r, "xxxxhunter2", 7);
        assert!(!out.contains("hun"), "{out}");
    }

    #[test]
    fn debug_hides_sensitive_values() {
        let v = Variable {
            key: "K".into(),
            value: "s3cr3t".into(),
            sensitive: true,
        };
        assert!(!format!("{v:?}").contains("s3cr3t"));
    }
}
