//! The MCP server: rmcp's [`ServerHandler`] over standard input and output, one workspace
//! ([`Scope`]) per server.
//!
//! - `tools/list`: the eleven tools with their descriptions and input schemas (derived from
//!   [`super::schemas`]).
//! - `tools/call`: arguments that do not fit the tool's schema, or an unknown tool, are a
//!   protocol error (JSON-RPC `-32602` invalid params); a call that fits runs on tokio's
//!   blocking pool ([`tokio::task::spawn_blocking`]) and answers with the CLI's `--json`
//!   document as structured content and a one-line summary as text, or, when it fails, a tool
//!   error (`isError`) whose structured content is `{"kind", "exit_code", "retryable",
//!   "message"}` ([`ToolError::to_json`]). A panic in a call is a tool error of kind `io`, and
//!   the server goes on.
//! - Calls run concurrently; the engine serialises them through the store lock (waiting up to
//!   the server's `--wait`). `status` takes no lock, and `verify` holds none while its
//!   obligations run, so a long `verify` never delays `status`.
//! - `verify` sends each obligation's start, output (decoded and redacted, as in the event
//!   streams, of the secrets of the server's environment too: [`Scope::secrets`]) and end as
//!   `notifications/progress` when the request carries a progress token (progress counts the
//!   notices; the message is the output text or what happened), and as
//!   `notifications/message` (logger `genesis.verify`; `info`, or `warning` for a failure) once
//!   the client has set a level with `logging/setLevel`, at or above it. A
//!   `notifications/cancelled` for it sets the call's cancellation flag: the running
//!   obligation's process group is killed and nothing is recorded (the session is as it was).
//! - A result's structured content is at most [`cap::MAX_RESULT_BYTES`] ([`cap::cap`]).
//! - The client goes away (standard input closed, or SIGTERM/SIGINT/SIGHUP with standard input
//!   open): every running `verify` is cancelled at once, and the server ends once every engine
//!   call has returned.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cap;
use super::progress::{Forwarder, Notice};
use super::schemas::*;
use super::scope::Scope;
use super::tools::{self, Done, ToolError};

pub use super::transport::MAX_MESSAGE_BYTES;

/// What every tool that runs something says about it.
const RUNS_ONLY_OBLIGATIONS: &str = "It runs no command but the obligations of the workspace's manifest (genesis.json, as recorded at open); no tool runs anything else.";

/// The Genesis MCP server of one workspace.
#[derive(Debug, Clone)]
pub struct GenesisServer {
    scope: Arc<Scope>,
    /// The calls running now, and what stops them when the client goes away.
    calls: Arc<Calls>,
    /// The level the client set with `logging/setLevel`; `None` (no logging notifications)
    /// until it does.
    #[allow(deprecated)]
    log_level: Arc<std::sync::Mutex<Option<LoggingLevel>>>,
    /// Set by the first `initialize`.
    initialized: Arc<AtomicBool>,
}

/// A logging level's severity, `debug` 0 to `emergency` 7 (RFC 5424's order, reversed).
#[allow(deprecated)]
fn rank(level: LoggingLevel) -> u8 {
    level as u8
}

/// The calls of a server running now: when the client goes away (standard input closed, or an
/// interrupt of the process), every running `verify` is cancelled at once (its obligation's
/// process group killed, nothing recorded), and the server ends once every engine call has
/// returned, so that no session is left half-written and no obligation outlives the server.
#[derive(Debug)]
struct Calls {
    /// The cancellation flags of the `verify` calls running now.
    flags: std::sync::Mutex<Vec<Arc<AtomicBool>>>,
    /// Set once the client has gone: a `verify` that starts after is cancelled at once.
    closed: AtomicBool,
    /// Engine calls (blocking jobs) not yet returned.
    active: AtomicUsize,
    /// Becomes `true` with `closed`: a notification waiting to be written gives up then.
    gone: tokio::sync::watch::Sender<bool>,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            flags: Default::default(),
            closed: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            gone: tokio::sync::watch::channel(false).0,
        }
    }
}

impl Calls {
    /// The client has gone: cancel every running and future `verify`.
    fn stop_all(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.gone.send_replace(true);
        if let Ok(v) = self.flags.lock() {
            for f in v.iter() {
                f.store(true, Ordering::SeqCst);
            }
        }
    }

    /// A new `verify`'s cancellation flag (already set when the client has gone).
    fn register(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        if let Ok(mut v) = self.flags.lock() {
            v.push(flag.clone());
        }
        if self.closed.load(Ordering::SeqCst) {
            flag.store(true, Ordering::SeqCst);
        }
        flag
    }

    fn unregister(&self, flag: &Arc<AtomicBool>) {
        if let Ok(mut v) = self.flags.lock() {
            v.retain(|f| !Arc::ptr_eq(f, flag));
        }
    }

    /// Counts one engine call until the guard is dropped (on its blocking thread).
    fn job(self: &Arc<Self>) -> Job {
        self.active.fetch_add(1, Ordering::SeqCst);
        Job(self.clone())
    }
}

/// One engine call running ([`Calls::job`]).
struct Job(Arc<Calls>);

impl Drop for Job {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long the server waits, once the client has gone, for its engine calls to return (a
/// cancelled `verify` returns within milliseconds; a `patch` or `apply` finishes its write).
const DRAIN: Duration = Duration::from_secs(30);

impl GenesisServer {
    /// The server of `scope`.
    pub fn new(scope: Scope) -> Self {
        GenesisServer {
            scope: Arc::new(scope),
            calls: Arc::default(),
            log_level: Arc::default(),
            initialized: Arc::default(),
        }
    }

    /// Every tool: name, description, input schema.
    pub fn tools() -> Vec<Tool> {
        let runs = |d: &str| format!("{d} {RUNS_ONLY_OBLIGATIONS}");
        let runs_nothing = |d: &str| format!("{d} Runs no command.");
        vec![
            tool::<SnapshotArgs>(
                "snapshot",
                runs_nothing(
                    "Snapshot a directory inside the workspace (default: the workspace root), as a tree of the workspace; the result is `genesis --workspace ROOT snapshot [DIR] --json`: the identity, the snapshot document and what was left out. Stored in the workspace's store as that command stores (`stored: true`); `no_store` is `--no-store`.",
                ),
            ),
            tool::<DiffArgs>(
                "diff",
                runs_nothing(
                    "Compare two trees (directories inside the workspace, or stored snapshot identities), or give a session's change base..current; the result is `genesis diff --json`: each changed file with its status and line counts.",
                ),
            ),
            tool::<CheckArgs>(
                "check",
                runs_nothing(
                    "Check that a directory inside the workspace, or a stored snapshot, hashes to an expected snapshot identity; the result is `genesis check --json` (`match`, and the differing paths).",
                ),
            ),
            tool::<OpenArgs>(
                "open",
                runs_nothing(
                    "Snapshot the workspace and open a session on it; the result is `genesis open --json` (the session document: its id is `session.session`). `manifest` takes only the workspace's own genesis.json: the server never runs a command other than the obligations of the workspace's manifest.",
                ),
            ),
            tool::<PatchArgs>(
                "patch",
                runs_nothing(
                    "Record a change in an open session: a git-style unified diff (text), or the state of a directory inside the workspace; the result is `genesis patch --json`. Paths in a diff must stay inside the workspace.",
                ),
            ),
            tool::<VerifyArgs>(
                "verify",
                runs(
                    "Run the manifest's obligations on the session's current snapshot, in a scratch copy; output is streamed as logging (and progress) notifications, redacted; cancelling the request kills the obligation's process group and leaves the session as it was. The result is `genesis verify --json` (`record.obligations_ok`).",
                ),
            ),
            tool::<ApplyArgs>(
                "apply",
                runs_nothing(
                    "Write a verified session into the workspace, all at once (or list the changes with dry_run); a workspace that changed under the session is a conflict (kind conflict, exit_code 3); a session that changes genesis.json, or whose checkout lies outside the workspace, is refused (the CLI applies it). The result is `genesis apply --json`.",
                ),
            ),
            tool::<AbortArgs>(
                "abort",
                runs_nothing(
                    "Throw a session away (an in-place workspace goes back to the base; files no patch recorded are saved first); the result is `genesis abort --json`.",
                ),
            ),
            tool::<StatusArgs>(
                "status",
                runs_nothing(
                    "Show one session (`genesis status SESSION --json`) or list every session (`genesis status --json`). Never waits for a running verify.",
                ),
            ),
            tool::<RebaseArgs>(
                "rebase",
                runs_nothing(
                    "Move a session onto the workspace as it is now (a three-way merge of its change); the result is `genesis rebase --json`. Overlapping edits record nothing and are a tool error of kind conflict (exit_code 3) holding the `conflicts`, unless `markers` records them with conflict markers. Verify again after a rebase.",
                ),
            ),
            tool::<LogArgs>(
                "log",
                runs_nothing(
                    "What the obligations of a session's last verification printed, with exit status and duration; the result is `genesis log --json`.",
                ),
            ),
        ]
    }

    /// Serves MCP over standard input and output until the client closes them or the process
    /// is interrupted; every obligation still running then is stopped.
    ///
    /// # Errors
    /// The transport fails to start (the initialisation handshake) or ends with an error.
    pub async fn serve_stdio(self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let calls = self.calls.clone();
        let on_end = {
            let calls = calls.clone();
            move || calls.stop_all()
        };
        // Standard input closed: every running obligation is stopped at once, before rmcp
        // waits for the calls in flight to answer.
        let transport =
            super::transport::LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
                .on_end(Box::new(on_end));
        let service = self.serve(transport).await?;
        // An interrupt of the process (SIGINT, SIGTERM, SIGHUP, once the binary installed
        // `obligation::install_interrupt_handler`, as `genesis mcp` does) stops the running
        // obligations and ends the service, whether or not standard input is still open.
        let token = service.cancellation_token();
        let watcher = {
            let calls = calls.clone();
            tokio::spawn(async move {
                while !crate::obligation::interrupted() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                calls.stop_all();
                token.cancel();
            })
        };
        let ended = service.waiting().await;
        watcher.abort();
        calls.stop_all();
        // Every engine call returns before the server ends: a cancelled verify records
        // nothing, a patch or apply finishes its write.
        let start = std::time::Instant::now();
        while calls.active.load(Ordering::SeqCst) > 0 && start.elapsed() < DRAIN {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        ended?;
        Ok(())
    }

    #[allow(deprecated)]
    fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level.lock().ok().and_then(|l| *l)
    }

    async fn run<A, F>(&self, args: Value, name: &str, f: F) -> Result<CallToolResult, McpError>
    where
        A: DeserializeOwned + Send + 'static,
        F: FnOnce(&Scope, A) -> tools::ToolResult + Send + 'static,
    {
        let a: A = parse(name, args)?;
        let scope = self.scope.clone();
        let job = self.calls.job();
        let joined = tokio::task::spawn_blocking(move || {
            let _job = job;
            f(&scope, a)
        })
        .await;
        Ok(result(name, flatten(joined)))
    }

    async fn verify(
        &self,
        args: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let a: VerifyArgs = parse("verify", args)?;
        let scope = self.scope.clone();
        let cancel = self.calls.register();
        let job = self.calls.job();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Notice>();
        let flag = cancel.clone();
        let mut job = tokio::task::spawn_blocking(move || {
            let _job = job;
            let mut fwd = Forwarder::new(tx, flag);
            tools::verify(&scope, a, &mut fwd)
        });
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        // Progress must increase with every notification: it counts the notices sent.
        let sent = std::sync::atomic::AtomicU64::new(0);
        let level = self.log_level();
        let send = |n: Notice| {
            let peer = peer.clone();
            let token = token.clone();
            let step = sent.fetch_add(1, Ordering::SeqCst) + 1;
            // Once the client has gone nothing reads the peer's queue, and a notification
            // would wait for ever: it gives up then, so verify answers and ends.
            let mut gone = self.calls.gone.subscribe();
            async move {
                let notify = async {
                    if let Some(token) = token {
                        let mut p = ProgressNotificationParam::new(token, step as f64);
                        p.message = Some(n.message.clone());
                        let _ = peer.notify_progress(p).await;
                    }
                    // Logging (deprecated from protocol 2026-07-28 on, SEP-2577, but what
                    // clients of the earlier versions show) only once the client asked for it
                    // with `logging/setLevel`, and only at or above its level.
                    #[allow(deprecated)]
                    if level.is_some_and(|min| rank(n.level) >= rank(min)) {
                        let _ = peer
                            .notify_logging_message(
                                LoggingMessageNotificationParam::new(n.level, n.data)
                                    .with_logger("genesis.verify"),
                            )
                            .await;
                    }
                };
                tokio::select! {
                    _ = notify => {}
                    _ = gone.wait_for(|g| *g) => {}
                }
            }
        };
        let mut cancelled = false;
        let joined = loop {
            tokio::select! {
                biased;
                Some(n) = rx.recv() => send(n).await,
                _ = context.ct.cancelled(), if !cancelled => {
                    cancel.store(true, Ordering::SeqCst);
                    cancelled = true;
                }
                j = &mut job => break j,
            }
        };
        while let Ok(n) = rx.try_recv() {
            send(n).await;
        }
        self.calls.unregister(&cancel);
        Ok(result("verify", flatten(joined)))
    }
}

/// A tool named `name` taking `A`, its input schema derived from `A` as rmcp derives one
/// (JSON Schema 2020-12, root `type: object`, the type's own title and description removed).
fn tool<A: JsonSchema>(name: &'static str, description: String) -> Tool {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<A>();
    let mut object = match serde_json::to_value(schema) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    object.remove("title");
    object.remove("description");
    Tool::new(name, description, Arc::new(object))
}

/// The arguments of a call read into the tool's type; a mismatch is a protocol error
/// (invalid params) naming the tool and the member.
fn parse<A: DeserializeOwned>(name: &str, args: Value) -> Result<A, McpError> {
    serde_json::from_value(args).map_err(|e| {
        McpError::invalid_params(capped(format!("{name}: invalid arguments: {e}")), None)
    })
}

fn flatten(joined: Result<tools::ToolResult, tokio::task::JoinError>) -> tools::ToolResult {
    joined.unwrap_or_else(|e| {
        Err(ToolError {
            kind: crate::ErrorKind::Io,
            message: format!("internal error: the call did not finish: {e}"),
            document: None,
        })
    })
}

/// What a tool's caller can do to get a smaller result than [`cap::MAX_RESULT_BYTES`].
fn hint(tool: &str) -> String {
    match tool {
        "diff" => "pass `paths` (only the changes at or under those paths) or `stat: true` (no diff text) for a smaller result; `genesis diff` on the command line gives it whole".into(),
        "snapshot" => "snapshot a smaller directory (`dir`); `genesis snapshot --json` on the command line gives the whole document".into(),
        "log" => "pass `obligation` for one obligation's output; `genesis log` on the command line gives it whole".into(),
        "status" => "pass `session` for one session".into(),
        other => format!("`genesis {other} --json` on the command line gives the whole document"),
    }
}

/// The MCP result of tool `tool`: the document and summary, or the tool error; a document
/// over [`cap::MAX_RESULT_BYTES`] is cut, saying so ([`cap::cap`]).
fn result(tool: &str, r: tools::ToolResult) -> CallToolResult {
    let limit = cap::MAX_RESULT_BYTES;
    match r {
        Ok(Done { mut value, summary }) => {
            let summary = if cap::cap(&mut value, limit, &hint(tool)) {
                format!("{summary} (result cut to {limit} bytes: {})", hint(tool))
            } else {
                summary
            };
            let mut out = CallToolResult::success(vec![ContentBlock::text(summary)]);
            out.structured_content = Some(value);
            out
        }
        Err(mut e) => {
            e.message = capped(tools::mcp_advice(&e.message));
            let mut out = CallToolResult::error(vec![ContentBlock::text(format!(
                "error ({}, exit code {}): {}",
                tools::kind_name(e.kind),
                e.kind.exit_code(),
                e.message
            ))]);
            let mut value = e.to_json();
            cap::cap(&mut value, limit, &hint(tool));
            out.structured_content = Some(value);
            out
        }
    }
}

/// The longest error message sent, in bytes: a message that quotes a huge argument (a 20 MB
/// session id) is cut there, so that an answer is never larger than the question deserves
/// (and never past a client's line limit, 16 MiB in rmcp).
pub const MAX_ERROR_MESSAGE_BYTES: usize = 4096;

/// `message` within [`MAX_ERROR_MESSAGE_BYTES`], the marker `… (N more bytes)` included.
fn capped(message: String) -> String {
    if message.len() <= MAX_ERROR_MESSAGE_BYTES {
        return message;
    }
    super::transport::capped_to(&message, MAX_ERROR_MESSAGE_BYTES)
}

impl ServerHandler for GenesisServer {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("genesis", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "Genesis transactional workspace engine for the workspace {}. A change is a transaction: open → patch → verify → apply (or abort). Every path must lie inside the workspace. {RUNS_ONLY_OBLIGATIONS}",
            self.scope.root().display()
        ))
    }

    /// `initialize`: answered once; a second one is refused with `-32600` (Invalid Request), as
    /// MCP's lifecycle allows a single initialisation per connection.
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, McpError> {
        if self.initialized.swap(true, Ordering::SeqCst) {
            return Err(McpError::invalid_request(
                "Invalid Request: the connection is already initialised; `initialize` is sent once",
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    /// `logging/setLevel`: from now on, `verify` sends its notices at or above `level` as
    /// `notifications/message` too.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if let Ok(mut l) = self.log_level.lock() {
            *l = Some(request.level);
        }
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(Self::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.as_ref();
        let r = match name {
            "snapshot" => self.run(args, name, tools::snapshot).await,
            "diff" => self.run(args, name, tools::diff).await,
            "check" => self.run(args, name, tools::check_tool).await,
            "open" => self.run(args, name, tools::open).await,
            "patch" => self.run(args, name, tools::patch).await,
            "verify" => self.verify(args, &context).await,
            "apply" => self.run(args, name, tools::apply).await,
            "abort" => self.run(args, name, tools::abort).await,
            "status" => self.run(args, name, tools::status).await,
            "rebase" => self.run(args, name, tools::rebase).await,
            "log" => self.run(args, name, tools::log).await,
            other => Err(McpError::invalid_params(
                capped(format!("unknown tool {other:?}; tools/list names them")),
                None,
            )),
        };
        r.map(CallToolResponse::from)
    }
}
