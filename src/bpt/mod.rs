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

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ErrorKind;
use crate::engine::EngineError;
use crate::events::{Dialect, Redactor};
use crate::manifest::Obligation;
use crate::schema::Violation;

mod driver;
mod task;

pub use crate::events::EventsTarget;
pub use driver::execute;
pub use task::{
    ExecutionEntry, TaskRecord, interaction_id, load_task, resolve_worktree_path, session_id,
    work_root, worktree_name,
};

/// The seed 001 request schema, byte for byte.
pub const REQUEST_SCHEMA: &str =
    include_str!("../../schemas/seeds/bpt-execution-request-v1.schema.json");

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

/// `From<E> for BptError` for each operation's error, through the [`EngineError`] variant of
/// the same name (its kind is the same: see [`crate::ErrorKind`]).
macro_rules! through_engine_error {
    ($($t:ty),*) => {$(
        impl From<$t> for BptError {
            fn from(e: $t) -> Self {
                BptError::Engine(e.into())
            }
        }
    )*};
}

through_engine_error!(
    crate::engine::ApplyError,
    crate::engine::VerifyError,
    crate::engine::PatchSessionError,
    crate::engine::OpenError,
    crate::engine::AbortError
);

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> BptError + '_ {
    move |source| BptError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl BptError {
    /// The class of the failure (DESIGN sections 7 and 8), by variant: an invalid request is
    /// [`ErrorKind::BadInput`] (exit 2); a wrong worker, or a request that does not fit the
    /// execution's state, is [`ErrorKind::State`] (exit 3, `session-not-open`); an engine
    /// error has its own kind; a file-system error is [`ErrorKind::Io`] (exit 4).
    pub fn kind(&self) -> ErrorKind {
        match self {
            BptError::BadRequest(_) | BptError::DuplicateKey(_) | BptError::Invalid(_) => {
                ErrorKind::BadInput
            }
            BptError::WrongWorker { .. } | BptError::Conflict(_) => ErrorKind::State,
            BptError::Engine(e) => e.kind(),
            BptError::Io { .. } => ErrorKind::Io,
        }
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
    /// `START` (with `worktree.mode` `CREATE`): open a session in a fresh worktree and run
    /// `commands.pre`.
    Start,
    /// `RETRY` (with `worktree.mode` `RECREATE`): abort the task's open session, then as
    /// `START`.
    Retry,
    /// `CONTINUE` (with `worktree.mode` `RESUME`, `resume` required): record the worktree as a
    /// patch and verify.
    Continue,
    /// `INTERACTION_RESPONSE` (with `worktree.mode` `RESUME`, `interaction` and `resume`
    /// required): apply or abort the verified session, by [`Interaction::decision`].
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
    /// `APPROVE`: apply the verified session to the workspace.
    Approve,
    /// `APPROVE_FOR_SESSION`: for Genesis the same as `APPROVE`.
    ApproveForSession,
    /// `DENY`: abort the session.
    Deny,
    /// `CANCEL`: abort the session.
    Cancel,
    /// `RESPOND`: answers a question; Genesis asks none, so it is refused
    /// ([`BptError::BadRequest`]).
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
    /// `command.id`, a seed 001 `identifier`: 1 to 256 characters; recorded as
    /// [`ExecutionEntry::command_id`] by the request that creates an execution.
    pub id: String,
    /// `command.operation`.
    pub operation: Operation,
    /// `command.issuedAt`: an RFC 3339 date-time (schema `format: date-time`); not used by
    /// Genesis.
    pub issued_at: String,
}

/// `scope`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestScope {
    /// `scope.localTaskId`, a seed 001 `identifier`: 1 to 256 characters; names the task
    /// mapping file and the task lock (by its SHA-256).
    pub local_task_id: String,
    /// `scope.executionId`, a seed 001 `identifier`: 1 to 256 characters.
    pub execution_id: String,
    /// `scope.attempt`, at least 1; part of the worktree name (`-aN`) when above 1.
    pub attempt: u32,
    /// `scope.turn`, at least 1; carried in the events' scope.
    pub turn: u32,
    /// `scope.expectedWorkerId`, a seed 001 `identifier`: 1 to 256 characters; must equal
    /// [`Options::worker_id`], else [`BptError::WrongWorker`].
    pub expected_worker_id: String,
}

/// `project`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// `project.id`, a seed 001 `identifier`: 1 to 256 characters; not used by Genesis.
    pub id: String,
    /// `project.gitUrl`, 1 to 8192 characters; not used by Genesis.
    pub git_url: String,
    /// `project.defaultBranch`, 1 to 1024 characters; not used by Genesis.
    pub default_branch: String,
    /// `project.worktreeNamePrefix`, 1 to 1024 characters: the start of the worktree's name
    /// ([`worktree_name`]).
    pub worktree_name_prefix: String,
}

/// `commands`.
#[derive(Debug, Clone, Deserialize)]
pub struct Commands {
    /// `commands.pre`: shell commands (`sh -c`, each at most 1048576 characters) run in a new
    /// worktree; the first that fails fails the execution.
    pub pre: Vec<String>,
    /// `commands.post`: shell commands run as extra obligations `bpt-post-N` on every
    /// verification ([`Request::post_obligations`]).
    pub post: Vec<String>,
}

/// One of `environment.variables`. `Debug` never shows a sensitive value.
#[derive(Clone, Deserialize)]
pub struct Variable {
    /// The name: `^[A-Za-z_][A-Za-z0-9_]*$`, at most 1024 characters.
    pub key: String,
    /// The value, at most 16777216 characters.
    pub value: String,
    /// Redact the value everywhere and never store it; a sensitive value needs at least
    /// [`MIN_SECRET_CHARS`] characters.
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
    /// `environment.variables` (at most 4096), passed to the pre commands and the obligations.
    pub variables: Vec<Variable>,
}

/// `resume`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    /// `resume.agentSessionId`, a seed 001 `identifier`: 1 to 256 characters; not used
    /// (Genesis does not run the agent).
    pub agent_session_id: String,
    /// `resume.worktreePath`, 1 to 8192 characters: must resolve to the execution's worktree
    /// inside the work root ([`resolve_worktree_path`]).
    pub worktree_path: String,
}

/// `interaction`.
#[derive(Debug, Clone, Deserialize)]
pub struct Interaction {
    /// `interaction.id`, a seed 001 `identifier`: 1 to 256 characters. An `APPROVE` of a
    /// passing verification must name its pending approval ([`interaction_id`]), else
    /// [`BptError::Conflict`].
    pub id: String,
    /// `interaction.decision`.
    pub decision: Decision,
    /// `interaction.message`, at most 16777216 characters; not used by Genesis.
    pub message: String,
    /// `interaction.payload`, at most 16777216 characters; not used by Genesis.
    pub payload: String,
}

/// A schema-valid request (the parts Genesis acts on; `task` and `agent` are checked by the
/// schema and otherwise unused: Genesis does not run the agent).
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    /// `command`: the id, operation and issue time.
    pub command: CommandPart,
    /// `scope`: task, execution, attempt, turn and the worker it is addressed to.
    pub scope: RequestScope,
    /// `project`.
    pub project: Project,
    /// `commands`: pre and post shell commands.
    pub commands: Commands,
    /// `environment`.
    pub environment: Environment,
    /// `resume`: required by the schema for `CONTINUE` and `INTERACTION_RESPONSE`.
    pub resume: Option<Resume>,
    /// `interaction`: required by the schema for `INTERACTION_RESPONSE`.
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
    /// The request's `command.operation`.
    pub operation: Operation,
    /// Where the execution stands now.
    pub status: ExecutionStatus,
    /// The Genesis session id of the execution (`bpt-` + 32 hex digits, [`session_id`]).
    pub session: String,
    /// The execution's worktree (absolute); removed once applied or aborted.
    pub worktree: PathBuf,
    /// The request's `scope.localTaskId`.
    pub local_task_id: String,
    /// The request's `scope.executionId`.
    pub execution_id: String,
    /// The request's `scope.attempt`.
    pub attempt: u32,
    /// The request's `scope.turn`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionId;

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
