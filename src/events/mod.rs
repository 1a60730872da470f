//! Genesis session events, rendered as JSON lines in one of four dialects.
//!
//! The engine describes what happens to a session with dialect-neutral [`Event`]s (opened, patch
//! recorded, obligation started / output / finished, verified, approval needed, applied, aborted,
//! failed, diagnostic). [`render`] turns one event into zero or more JSON objects of a dialect:
//!
//! - [`Dialect::Genesis`]: Genesis's own lines, `schemas/genesis-event-v0.1.schema.json`;
//! - [`Dialect::Bpt`]: Block Play Table A2A execution events v1 (seed 000);
//! - [`Dialect::Orbiplex`]: Orbiplex agent external-runtime events v1 (seed 002);
//! - [`Dialect::Aps`]: APS agent PlatformEvents v1 (seed 003, with our `aps-envelope.schema.json`).
//!
//! Sequence numbers and the other per-session state live in [`EventCounters`], which the engine
//! stores beside the session so that numbering continues across processes. Every string that goes
//! into a line passes through a [`Redactor`]; obligation output is redacted per stream with a
//! carry-over, so a secret split across two output chunks is still caught.
//!
//! [`EventSink`] writes the lines of one dialect to a file (appending) or to standard error, one
//! JSON object per line, flushed per line. [`Emitter`] is the one front-end-facing emitter over
//! it (stamping, counters, a sink failure warned about once and never fatal), and
//! [`Observer`] the one trait through which the session operations report their events
//! (DESIGN section 8).

mod aps;
mod bpt;
mod counters;
mod emitter;
mod genesis;
mod observer;
mod orbiplex;
mod redact;

use counters::Carry;
pub use counters::{ApsCounters, BptCounters, EventCounters, GenesisCounters, OrbiplexCounters};
pub use emitter::{Emitter, EventsTarget};
pub use observer::{Both, NoObserver, Observer, run_obligation};
pub use redact::{MIN_ENV_SECRET_BYTES, Redactor, env_secrets, is_secret_name};

use std::collections::BTreeMap;
use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most characters (Unicode scalar values, as JSON Schema's `maxLength` counts them) in one
/// chunk of obligation output. BPT's `logPayload.content` allows at most 32768.
pub const CHUNK_MAX_CHARS: usize = 32768;

/// What replaces a secret in every rendered line.
pub const REDACTED: &str = "[REDACTED]";

/// Failure and diagnostic codes the engine uses in [`EventKind::Failed`] and
/// [`EventKind::Diagnostic`]. Dialects map some of them onto their own vocabularies (see
/// `orbiplex::outcome_for`); any other code passes through unchanged.
pub mod codes {
    /// Verification ran and at least one obligation failed (or timed out).
    pub const OBLIGATIONS_FAILED: &str = "obligations-failed";
    /// `apply` found paths that no longer hold their base content.
    pub const APPLY_CONFLICT: &str = "apply-conflict";
    /// The session is not open (already applied or aborted), not verified, or has nothing to
    /// restore.
    pub const SESSION_NOT_OPEN: &str = "session-not-open";
    /// Another patch landed while the obligations ran: nothing was recorded; verify again
    /// (retryable).
    pub const SESSION_MOVED: &str = "session-moved";
    /// The store lock is held by another process.
    pub const STORE_LOCKED: &str = "store-locked";
    /// Bad input: an invalid diff, path, JSON document or argument.
    pub const BAD_INPUT: &str = "bad-input";
    /// An I/O or internal error.
    pub const IO_ERROR: &str = "io-error";
}

/// Which output stream of an obligation a piece of output came from (defined with the
/// obligation runner, [`crate::obligation::Stream`]).
pub use crate::obligation::Stream;

/// A Genesis event, dialect-neutral.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// `open` created the session.
    SessionOpened {
        /// Identity of the snapshot the session starts from: 64 lowercase hex digits (SHA-256).
        base_snapshot: String,
    },
    /// A checkout / worktree for the agent is ready at `path`.
    WorkspaceReady {
        /// The checkout, or the workspace root when the session has none; absolute with
        /// symbolic links resolved when it can be (`canonicalize`), else as given.
        path: PathBuf,
    },
    /// `patch` recorded patch number `index` (0-based); `patch`, `before`, `after` are hex SHA-256.
    PatchRecorded {
        /// Position of the patch in the session's `patches` (0-based).
        index: usize,
        /// SHA-256 of the patch text as submitted (an object in the store), 64 hex digits.
        patch: String,
        /// Identity of the snapshot the patch applied to, 64 hex digits.
        before: String,
        /// Identity of the snapshot it produced, 64 hex digits.
        after: String,
        /// Files added, deleted or modified by this patch.
        files_changed: usize,
        /// Lines added by this patch (text files).
        lines_added: u64,
        /// Lines removed by this patch (text files).
        lines_removed: u64,
        /// Whether the static obligations (protected paths, limits) hold for `after` (the 004
        /// patch entry's `obligations_ok`).
        obligations_ok: bool,
    },
    /// Command obligation `index` (0-based) of `total` starts.
    ObligationStarted {
        /// The obligation's `id` in the manifest (or `bpt-pre-N` / `bpt-post-N`).
        id: String,
        /// The command as an argument vector, program first (executed directly, not through a
        /// shell).
        run: Vec<String>,
        /// Position of this obligation among the command obligations (0-based).
        index: usize,
        /// How many command obligations this run has (a verification's, or the pre commands).
        total: usize,
    },
    /// A piece of an obligation's output, as read from the pipe (any length, any split).
    ObligationOutput {
        /// The obligation that wrote it.
        id: String,
        /// Standard output or standard error.
        stream: Stream,
        /// The text read, unredacted (dialects redact and cut it into chunks of at most
        /// [`CHUNK_MAX_CHARS`] characters).
        data: String,
    },
    /// Command obligation `index` of `total` ended.
    ObligationFinished {
        /// The obligation's `id`.
        id: String,
        /// The command's exit code; `None` when it was killed (by a signal, the timeout or an
        /// interruption of Genesis).
        exit_code: Option<i32>,
        /// Killed for running past its `timeout_s`.
        timed_out: bool,
        /// Exit code 0, not timed out and not interrupted.
        passed: bool,
        /// Wall-clock seconds the command ran.
        seconds: f64,
        /// Position of this obligation among the command obligations (0-based).
        index: usize,
        /// How many command obligations this run has (a verification's, or the pre commands).
        total: usize,
    },
    /// `verify` wrote a verification of `snapshot`.
    Verified {
        /// Identity of the snapshot verified, 64 hex digits.
        snapshot: String,
        /// SHA-256 of the JCS form of the acceptance record (an object in the store), 64 hex
        /// digits.
        acceptance: String,
        /// Whether every obligation passed.
        obligations_ok: bool,
        /// Files added, deleted or modified from the session's base to `snapshot`.
        files_changed: usize,
        /// Lines added from base to `snapshot` (text files).
        lines_added: u64,
        /// Lines removed from base to `snapshot` (text files).
        lines_removed: u64,
        /// How many patches the session has recorded.
        patches: usize,
    },
    /// A verified session waits for someone to approve `apply`.
    ApprovalNeeded {
        /// Identity of the verified snapshot `apply` would write, 64 hex digits.
        snapshot: String,
        /// How many patches the session has recorded.
        patches: usize,
        /// Files added, deleted or modified from the session's base to `snapshot`.
        files_changed: usize,
        /// Lines added from base to `snapshot` (text files).
        lines_added: u64,
        /// Lines removed from base to `snapshot` (text files).
        lines_removed: u64,
    },
    /// `apply` wrote `snapshot` to the workspace.
    Applied {
        /// Identity of the snapshot written, 64 hex digits.
        snapshot: String,
        /// Files written, created or deleted in the workspace.
        files_changed: usize,
    },
    /// `abort` ended the session.
    Aborted {
        /// Why: the abort options' `reason`, else `aborted by request`
        /// ([`crate::engine::AbortOptions::DEFAULT_REASON`]).
        reason: String,
    },
    /// A command of the session failed: obligations failed, apply conflict, error. See [`codes`].
    Failed {
        /// One of [`codes`], or another code that passes through unchanged.
        code: String,
        /// Human-readable; redacted when rendered.
        message: String,
        /// Whether the same command may succeed if tried again (e.g. [`codes::SESSION_MOVED`]).
        retryable: bool,
    },
    /// Something worth reporting that does not end anything.
    Diagnostic {
        /// One of [`codes`], or another code that passes through unchanged.
        code: String,
        /// Human-readable; redacted when rendered.
        message: String,
        /// Whether the condition may clear if the command is tried again.
        retryable: bool,
    },
}

impl EventKind {
    /// `ObligationFinished` for a command result: obligation `index` (0-based) of `total`.
    pub fn obligation_finished(
        r: &crate::obligation::CommandResult,
        index: usize,
        total: usize,
    ) -> Self {
        EventKind::ObligationFinished {
            id: r.obligation.id.clone(),
            exit_code: r.exit_code,
            timed_out: r.timed_out,
            passed: r.passed(),
            seconds: r.seconds,
            index,
            total,
        }
    }
}

/// One event of one session at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The session id.
    pub session: String,
    /// When it happened ([`crate::clock::now`]); rendered as RFC 3339 in UTC with the time's
    /// own sub-second precision, or as epoch milliseconds where a dialect wants them.
    pub time: SystemTime,
    /// What happened.
    pub kind: EventKind,
}

impl Event {
    /// An event of `session` happening now ([`crate::clock::now`]: `GENESIS_TIMESTAMP` when set).
    pub fn now(session: impl Into<String>, kind: EventKind) -> Self {
        Event {
            session: session.into(),
            time: crate::clock::now(),
            kind,
        }
    }
}

/// The JSON dialect of an event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Genesis's own lines, `schemas/genesis-event-v0.1.schema.json` (`genesis`).
    Genesis,
    /// Block Play Table A2A execution events v1, seed 000 (`bpt`).
    Bpt,
    /// Orbiplex agent external-runtime events v1, seed 002 (`orbiplex`).
    Orbiplex,
    /// APS agent PlatformEvents v1, seed 003, in our `aps-envelope.schema.json` (`aps`).
    Aps,
}

impl Dialect {
    /// The name `FromStr` accepts: `genesis`, `bpt`, `orbiplex`, `aps`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Genesis => "genesis",
            Dialect::Bpt => "bpt",
            Dialect::Orbiplex => "orbiplex",
            Dialect::Aps => "aps",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name that is not one of `genesis`, `bpt`, `orbiplex`, `aps`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event dialect {0:?}: expected one of genesis, bpt, orbiplex, aps")]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// Case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "genesis" => Ok(Dialect::Genesis),
            "bpt" => Ok(Dialect::Bpt),
            "orbiplex" => Ok(Dialect::Orbiplex),
            "aps" => Ok(Dialect::Aps),
            _ => Err(UnknownDialect(s.to_string())),
        }
    }
}

/// Who is emitting, for the dialects that name it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    /// The Genesis session id.
    pub session: String,
    /// BPT `scope.workerId`. Default: `genesis@<hostname>`.
    pub worker_id: String,
    /// BPT `scope.localTaskId`. Default: the session id.
    pub local_task_id: String,
    /// BPT `scope.executionId`, APS envelope `runId`. Default: the session id.
    pub execution_id: String,
    /// BPT `scope.attempt`. Default 1. A runtime driven by BPT requests sets it from the request.
    pub attempt: u32,
    /// BPT `scope.turn`, and the first Orbiplex turn number. Default 1.
    pub turn: u32,
    /// Orbiplex `action/schema` of an `action-candidate`: the definition a patch entry validates
    /// against. Default [`Scope::DEFAULT_ACTION_SCHEMA`].
    pub action_schema: String,
    /// APS `approval.requested.expiresAt` = event time + this. Default 24 hours.
    pub approval_ttl: Duration,
}

impl Scope {
    /// The 004 definition of one patch entry.
    pub const DEFAULT_ACTION_SCHEMA: &'static str = "genesis/agent-transaction-v0.1#/$defs/patch";
    /// The 004 definition of a verification record (Orbiplex `product-candidate`).
    pub const VERIFICATION_SCHEMA: &'static str =
        "genesis/agent-transaction-v0.1#/$defs/verification";
    /// Default APS approval lifetime.
    pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(24 * 60 * 60);

    /// The defaults for `session`: task and execution ids = the session id, attempt = turn = 1,
    /// worker id `genesis@<hostname>`.
    pub fn new(session: impl Into<String>) -> Self {
        let session = session.into();
        Scope {
            worker_id: default_worker_id(),
            local_task_id: session.clone(),
            execution_id: session.clone(),
            session,
            attempt: 1,
            turn: 1,
            action_schema: Self::DEFAULT_ACTION_SCHEMA.to_string(),
            approval_ttl: Self::DEFAULT_APPROVAL_TTL,
        }
    }
}

/// `genesis@<hostname>` (at most 256 characters; `genesis` alone when the host has no name).
pub fn default_worker_id() -> String {
    let host = gethostname::gethostname()
        .to_string_lossy()
        .trim()
        .to_string();
    if host.is_empty() {
        "genesis".to_string()
    } else {
        clip(&format!("genesis@{host}"), 256)
    }
}

/// One chunk of obligation output, redacted and at most [`CHUNK_MAX_CHARS`] long.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chunk {
    /// The obligation whose output this is.
    pub owner: String,
    pub stream: Stream,
    pub content: String,
    pub index: u64,
    pub last: bool,
}

/// Feeds `data` of `stream` through the per-stream carry of `dialect` and returns the chunks to
/// emit now. The last character is always held back, so that when the obligation finishes there
/// is a chunk to mark final.
/// Output that another obligation left held back is flushed first (marked last).
pub(crate) fn stream_push(
    streams: &mut BTreeMap<String, Carry>,
    chunk_index: &mut BTreeMap<String, u64>,
    dialect: Dialect,
    owner: &str,
    stream: Stream,
    data: &str,
    redact: &Redactor,
) -> Vec<Chunk> {
    if data.is_empty() {
        return Vec::new();
    }
    let key = format!("{dialect}:{}", stream.as_str());
    let mut chunks = Vec::new();
    if streams.get(&key).is_some_and(|c| c.owner != owner) {
        chunks = stream_finish(streams, chunk_index, dialect, stream, redact);
    }
    let carry = streams.entry(key).or_insert_with(|| Carry {
        owner: owner.to_string(),
        text: String::new(),
    });
    carry.text.push_str(data);
    let last_char = carry.text.chars().next_back().map_or(0, char::len_utf8);
    let cut = redact.safe_cut(&carry.text, carry.text.len() - last_char);
    let text = redact.redact(&carry.text[..cut]);
    carry.text.drain(..cut);
    chunks.extend(split_chunks(chunk_index, owner, stream, &text, false));
    chunks
}

/// Flushes what `stream` holds back: the chunks end with one marked last (none if the stream
/// produced nothing since the last flush).
pub(crate) fn stream_finish(
    streams: &mut BTreeMap<String, Carry>,
    chunk_index: &mut BTreeMap<String, u64>,
    dialect: Dialect,
    stream: Stream,
    redact: &Redactor,
) -> Vec<Chunk> {
    let Some(carry) = streams.remove(&format!("{dialect}:{}", stream.as_str())) else {
        return Vec::new();
    };
    let text = redact.redact(&carry.text);
    split_chunks(chunk_index, &carry.owner, stream, &text, true)
}

/// Flushes both streams, stdout first.
pub(crate) fn streams_finish(
    streams: &mut BTreeMap<String, Carry>,
    chunk_index: &mut BTreeMap<String, u64>,
    dialect: Dialect,
    redact: &Redactor,
) -> Vec<Chunk> {
    Stream::ALL
        .iter()
        .flat_map(|&s| stream_finish(streams, chunk_index, dialect, s, redact))
        .collect()
}

fn split_chunks(
    chunk_index: &mut BTreeMap<String, u64>,
    owner: &str,
    stream: Stream,
    text: &str,
    last: bool,
) -> Vec<Chunk> {
    let pieces = split_chars(text, CHUNK_MAX_CHARS);
    let n = pieces.len();
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, content)| Chunk {
            owner: owner.to_string(),
            stream,
            content,
            index: next_index(chunk_index, stream.as_str()),
            last: last && i + 1 == n,
        })
        .collect()
}

/// Takes the next value of a per-stream index (starting at 0).
pub(crate) fn next_index(chunk_index: &mut BTreeMap<String, u64>, stream: &str) -> u64 {
    let slot = chunk_index.entry(stream.to_string()).or_insert(0);
    let index = *slot;
    *slot += 1;
    index
}

/// `text` in pieces of at most `max` chars (none for an empty text).
pub(crate) fn split_chars(text: &str, max: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut count = 0;
    for c in text.chars() {
        if count == max {
            pieces.push(std::mem::take(&mut current));
            count = 0;
        }
        current.push(c);
        count += 1;
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// `s` cut to at most `max` chars.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// RFC 3339 in UTC with the time's own sub-second precision, e.g. `2026-11-30T06:15:10.123Z`.
pub(crate) fn rfc3339(t: SystemTime) -> String {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::from(t)
        .format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

/// Milliseconds since the Unix epoch (negative before it).
pub(crate) fn epoch_millis(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// A fresh UUIDv7, hyphenated lowercase ([`crate::clock::uuid7`]: seedable).
pub(crate) fn uuid7() -> String {
    crate::clock::uuid7().to_string()
}

/// `sha256:` + unpadded base64url of the 32 bytes a lowercase/uppercase 64-hex SHA-256 names
/// (the Orbiplex `digest` form). `None` if `hex_sha256` is not 64 hex digits.
pub fn orbiplex_digest(hex_sha256: &str) -> Option<String> {
    use base64::Engine as _;
    if hex_sha256.len() != 64 {
        return None;
    }
    let bytes = hex::decode(hex_sha256).ok()?;
    Some(format!(
        "sha256:{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// `sha256:` + lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex_digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

/// A finite, non-negative duration in seconds (anything else becomes 0).
pub(crate) fn seconds(s: f64) -> f64 {
    if s.is_finite() && s >= 0.0 { s } else { 0.0 }
}

/// An argv as a shell would show it (arguments with blanks or quotes single-quoted).
pub(crate) fn shell_words(run: &[String]) -> String {
    run.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Redacts every string in `v` except those under an object key listed in `skip` (text that was
/// already redacted with the stream carry-over and must not be redacted twice).
pub(crate) fn redact_value(v: &mut Value, redact: &Redactor, skip: &[&str]) {
    if redact.is_empty() {
        return;
    }
    match v {
        Value::String(s) => *s = redact.redact(s),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| redact_value(item, redact, skip)),
        Value::Object(map) => {
            for (k, item) in map.iter_mut() {
                if !(skip.contains(&k.as_str()) && item.is_string()) {
                    redact_value(item, redact, skip);
                }
            }
        }
        _ => {}
    }
}

/// Turns one Genesis event into zero or more JSON lines of `dialect`, updating `counters`.
/// Every string in the lines has passed through `redact`. Apart from `counters` and fresh UUIDv7
/// ids, the result depends only on the arguments.
pub fn render(
    dialect: Dialect,
    scope: &Scope,
    counters: &mut EventCounters,
    event: &Event,
    redact: &Redactor,
) -> Vec<Value> {
    match dialect {
        Dialect::Genesis => genesis::render(scope, counters, event, redact),
        Dialect::Bpt => bpt::render(scope, counters, event, redact),
        Dialect::Orbiplex => orbiplex::render(scope, counters, event, redact),
        Dialect::Aps => aps::render(scope, counters, event, redact),
    }
}

/// Writes the lines of one dialect, one JSON object a line, each line written with one `write`
/// call and flushed.
pub struct EventSink {
    out: Box<dyn Write + Send>,
    dialect: Dialect,
    scope: Scope,
    counters: EventCounters,
    redactor: Redactor,
}

impl EventSink {
    /// A sink appending to `path` (created if missing), or writing to standard error for `None`.
    /// `counters` are the session's stored counters ([`EventCounters::default`] for a new one).
    pub fn new(
        path: Option<PathBuf>,
        dialect: Dialect,
        scope: Scope,
        counters: EventCounters,
    ) -> io::Result<Self> {
        let out: Box<dyn Write + Send> = match path {
            Some(p) => Box::new(OpenOptions::new().create(true).append(true).open(p)?),
            None => Box::new(io::stderr()),
        };
        Ok(Self::from_writer(out, dialect, scope, counters))
    }

    /// A sink writing to any writer.
    pub fn from_writer(
        out: Box<dyn Write + Send>,
        dialect: Dialect,
        scope: Scope,
        counters: EventCounters,
    ) -> Self {
        EventSink {
            out,
            dialect,
            scope,
            counters,
            redactor: Redactor::none(),
        }
    }

    /// Redacts these secrets from every line.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The dialect this sink writes.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Renders `event` and writes its lines. The counters advance as lines are rendered, so a
    /// failed write leaves a gap in the numbering, never a number used twice.
    pub fn emit(&mut self, event: &Event) -> io::Result<()> {
        let lines = render(
            self.dialect,
            &self.scope,
            &mut self.counters,
            event,
            &self.redactor,
        );
        for line in lines {
            let mut buf = serde_json::to_vec(&line).map_err(io::Error::other)?;
            buf.push(b'\n');
            self.out.write_all(&buf)?;
            self.out.flush()?;
        }
        Ok(())
    }

    /// The counters as they stand; store them beside the session.
    pub fn counters(&self) -> &EventCounters {
        &self.counters
    }

    /// The counters as they stand, consuming the sink; store them beside the session.
    pub fn into_counters(self) -> EventCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip() {
        for d in [
            Dialect::Genesis,
            Dialect::Bpt,
            Dialect::Orbiplex,
            Dialect::Aps,
        ] {
            assert_eq!(d.name().parse::<Dialect>(), Ok(d));
            assert_eq!(d.to_string().to_uppercase().parse::<Dialect>(), Ok(d));
        }
        assert!("a2a".parse::<Dialect>().is_err());
    }

    #[test]
    fn split_chars_counts_chars_not_bytes() {
        let s = "é".repeat(5);
        let parts = split_chars(&s, 2);
        assert_eq!(parts, vec!["éé", "éé", "é"]);
        assert!(split_chars("", 3).is_empty());
        assert_eq!(clip("ééé", 2), "éé");
    }

    #[test]
    fn shell_words_quotes() {
        let run = vec!["sh".to_string(), "-c".into(), "echo 'hi' there".into()];
        assert_eq!(shell_words(&run), r"sh -c 'echo '\''hi'\'' there'");
    }

    #[test]
    fn timestamps() {
        let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20.123Z");
        assert_eq!(epoch_millis(t), 1_700_000_000_123);
    }
}
