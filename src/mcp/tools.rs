//! What each tool of `genesis mcp` does: blocking calls of the library, the same ones the CLI
//! makes, returning the CLI's `--json` document ([`crate::report`]) with a one-line summary,
//! or a [`ToolError`] carrying the error's [`ErrorKind`].
//!
//! Every path argument goes through [`Scope`]; nothing here runs a command other than the
//! manifest's obligations (`verify`, through [`Engine::verify`]).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::schemas::*;
use super::scope::{Scope, ScopeError};
use crate::ErrorKind;
use crate::check::{Expected, check};
use crate::diff::{Operand, Tree};
use crate::engine::{
    AbortOptions, ApplyOptions, Engine, NoObserver, Observer, OpenOptions, PatchInput,
    VerifyOptions,
};
use crate::path::WorkspacePath;
use crate::report;
use crate::session::SessionId;
use crate::snapshot::{SnapshotOptions, snapshot_dir};

/// A tool's result: the CLI's `--json` document for the command, and a short summary for
/// people (the text content).
#[derive(Debug, Clone)]
pub struct Done {
    /// The structured content: the same shape as `genesis COMMAND --json`.
    pub value: Value,
    /// One or a few lines of text.
    pub summary: String,
}

/// A failed tool call: the class of the failure (exit code, retryable, from the error's
/// variant, never its text) and the message naming the path, field or hunk.
#[derive(Debug, Clone)]
pub struct ToolError {
    /// The class of the failure.
    pub kind: ErrorKind,
    /// The message.
    pub message: String,
    /// The command's own document when the CLI prints one with the failure (`rebase --json`
    /// with conflicts, exit 3): its members join the error's in the structured content.
    pub document: Option<Value>,
}

impl ToolError {
    /// Bad input (exit code 2).
    pub fn bad_input(message: impl Into<String>) -> Self {
        ToolError {
            kind: ErrorKind::BadInput,
            message: message.into(),
            document: None,
        }
    }

    /// `{"kind", "exit_code", "retryable", "message"}`: `kind` is [`kind_name`], `exit_code`
    /// the CLI's exit status for the same error ([`ErrorKind::exit_code`]), `retryable`
    /// [`ErrorKind::retryable`]; plus the members of [`ToolError::document`] when there is
    /// one.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "kind": kind_name(self.kind),
            "exit_code": self.kind.exit_code(),
            "retryable": self.kind.retryable(),
            "message": self.message,
        });
        if let (Some(Value::Object(doc)), Value::Object(o)) = (&self.document, &mut v) {
            for (k, x) in doc {
                o.entry(k.clone()).or_insert_with(|| x.clone());
            }
        }
        v
    }
}

/// The name of an error kind in a tool error: `bad-input`, `state`, `moved`, `locked`,
/// `conflict`, `io`.
pub fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::BadInput => "bad-input",
        ErrorKind::State => "state",
        ErrorKind::Moved => "moved",
        ErrorKind::Locked => "locked",
        ErrorKind::Conflict => "conflict",
        ErrorKind::Io => "io",
    }
}

macro_rules! by_kind {
    ($($t:ty),*) => {$(
        impl From<$t> for ToolError {
            fn from(e: $t) -> Self {
                ToolError { kind: e.kind(), message: e.to_string(), document: None }
            }
        }
    )*};
}

by_kind!(
    crate::snapshot::SnapshotError,
    crate::store::SnapshotIntoError,
    crate::store::StoreError,
    crate::workspace::OptionsError,
    crate::manifest::ManifestError,
    crate::session::SessionError,
    crate::engine::EngineError,
    crate::journal::JournalError,
    crate::diff::DiffError,
    crate::engine::OpenError,
    crate::engine::PatchSessionError,
    crate::engine::VerifyError,
    crate::engine::ApplyError,
    crate::engine::AbortError
);

impl From<ScopeError> for ToolError {
    fn from(e: ScopeError) -> Self {
        ToolError::bad_input(e.to_string())
    }
}

/// The result of a tool.
pub type ToolResult = Result<Done, ToolError>;

/// The advice a library error gives for the command line, in the server's terms (issue 13,
/// review 2 H): an agent has no `--wait`, `--manifest` or `--store` to pass, and each call
/// finishes an interrupted apply or abort first, so `genesis recover` is a call again.
const MCP_ADVICE: &[(&str, &str)] = &[
    (
        "(pass --wait SECONDS to wait longer)",
        "(the server waits as long as its own --wait; call again later)",
    ),
    (
        "; the change is journaled: run `genesis recover` to finish it",
        "; the change is journaled: call any tool again to finish it (each call finishes an interrupted change first)",
    ),
    (
        "then run `genesis recover` to finish",
        "then call any tool again to finish (each call finishes an interrupted change first)",
    ),
    (
        "): run `genesis recover`",
        "): call the tool again (each call finishes an interrupted apply or abort first)",
    ),
    ("run `genesis verify` first", "call `verify` first"),
    ("run `genesis verify` again", "call `verify` again"),
    (
        "run `genesis init` or pass --manifest PATH",
        "run `genesis init` in the workspace (the server reads only genesis.json)",
    ),
    (" (or pass --store DIR)", ""),
];

/// `message` with the command line's advice replaced by the server's (one table, `MCP_ADVICE`), and
/// ``run `genesis patch ID` without a diff`` said as a `patch` call.
pub fn mcp_advice(message: &str) -> String {
    let mut out = message.to_owned();
    for (cli, mcp) in MCP_ADVICE {
        out = out.replace(cli, mcp);
    }
    if let Some(i) = out.find("run `genesis patch ")
        && let Some(j) = out[i..].find("` without a diff")
    {
        out.replace_range(
            i..i + j + "` without a diff".len(),
            "call `patch` with only `session` (no `diff` or `from_dir`)",
        );
    }
    out
}

/// The engine of the scope's workspace (creating the store when `create`), having finished
/// any interrupted apply first, as every CLI command does.
fn engine(scope: &Scope, create: bool) -> Result<Engine, ToolError> {
    let engine = Engine::with_wait(scope.workspace(), create, scope.wait())?;
    engine.recover_pending()?;
    Ok(engine)
}

/// The session `given` names: the session whose id it is, else the one session whose id
/// starts with it (4+ characters; case and hyphens ignored), by the CLI's one rule
/// ([`report::resolve_id`]).
fn session(engine: &Engine, given: &str) -> Result<String, ToolError> {
    use report::IdMatch;
    match report::resolve_id(&engine.sessions()?, given) {
        IdMatch::Found(id) => Ok(id),
        IdMatch::TooShort => Err(ToolError::bad_input(format!(
            "no session {given:?} in the store, and a session id prefix needs at least {} characters (hyphens not counted)",
            report::MIN_PREFIX
        ))),
        IdMatch::NotFound => Err(crate::session::SessionError::NotFound(given.to_owned()).into()),
        IdMatch::Ambiguous(many) => Err(ToolError::bad_input(format!(
            "session id prefix {given:?} is ambiguous: {} sessions match it ({})",
            many.len(),
            many.join(", ")
        ))),
    }
}

/// Snapshot options for a directory operand: its own, plus the tracked members its session
/// recorded when it is a session's checkout (as the CLI's `operand_options`).
fn operand_options(scope: &Scope, dir: &Path) -> Result<SnapshotOptions, ToolError> {
    let ws = scope.workspace();
    let mut opts = ws.snapshot_options_for(dir)?;
    if let Ok(Some(store)) = ws.existing_store() {
        let extra = crate::session::checkout_tracked(&store, ws.root(), dir)?;
        if !extra.is_empty() {
            opts.tracked = std::sync::Arc::new(
                opts.tracked
                    .with_paths(extra.iter().map(WorkspacePath::as_str)),
            );
        }
    }
    Ok(opts)
}

fn dir_or_root(scope: &Scope, field: &str, dir: Option<&str>) -> Result<PathBuf, ToolError> {
    Ok(match dir {
        Some(d) => scope.dir(field, d)?,
        None => scope.root().to_path_buf(),
    })
}

fn is_snapshot_prefix(s: &str) -> bool {
    (report::MIN_PREFIX..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `snapshot`: `genesis snapshot [DIR] --json`.
pub fn snapshot(scope: &Scope, a: SnapshotArgs) -> ToolResult {
    let dir = dir_or_root(scope, "dir", a.dir.as_deref())?;
    let ws = scope.workspace();
    let store = if a.no_store {
        None
    } else {
        ws.existing_store()?
    };
    let mut opts = operand_options(scope, &dir)?;
    if a.no_store {
        opts.store_dir = None;
    }
    let (outcome, added) = match &store {
        Some(s) => {
            let (o, n) = s.snapshot_into(&dir, &opts)?;
            (o, Some(n))
        }
        None => (snapshot_dir(&dir, &opts)?, None),
    };
    let value = report::snapshot_json(&outcome, added);
    let summary = format!(
        "snapshot {} of {} ({} files)",
        outcome.snapshot.identity(),
        dir.display(),
        outcome.snapshot.files().len()
    );
    Ok(Done { value, summary })
}

/// A diff operand: a directory inside the workspace, else a stored snapshot identity or
/// prefix.
fn operand(scope: &Scope, field: &str, given: &str) -> Result<Operand, ToolError> {
    if is_snapshot_prefix(given) && !scope.root().join(given).is_dir() {
        let store = engine(scope, false)?.store().clone();
        let id = store.resolve_snapshot(given)?;
        return Ok(Operand::Tree(Tree::from_store(&store, &id)?));
    }
    let dir = scope.dir(field, given)?;
    let opts = operand_options(scope, &dir)?;
    Ok(Operand::Dir(dir, opts))
}

/// `diff`: `genesis diff A [B] --json`.
pub fn diff(scope: &Scope, a: DiffArgs) -> ToolResult {
    let paths = match &a.paths {
        Some(ps) => Some(
            ps.iter()
                .map(|p| scope.relative("paths", p))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let (ta, tb) = match &a.b {
        Some(b) => Tree::compare(operand(scope, "a", &a.a)?, operand(scope, "b", b)?)?,
        None => {
            let engine = engine(scope, false)?;
            let id = session(&engine, &a.a)?;
            let (s, state) = engine.status(&id)?;
            let store = engine.store();
            let base = store.read_snapshot(&s.base_snapshot)?.0;
            let current = store.read_snapshot(&s.current_snapshot)?.0;
            (
                Tree::from_parts(store, base, state.base_executable()),
                Tree::from_parts(store, current, state.current_executable()),
            )
        }
    };
    let selection = report::DiffSelection {
        paths,
        no_text: a.stat,
    };
    let value = report::diff_json_of(&ta, &tb, &selection)?;
    let n = value["files"].as_array().map_or(0, Vec::len);
    let summary = format!(
        "{n} file(s) differ between {} and {}",
        ta.snapshot.identity(),
        tb.snapshot.identity()
    );
    Ok(Done { value, summary })
}

/// `check`: `genesis check [DIR|SNAPSHOT] --expect IDENTITY --json` (the expected snapshot
/// named by its identity or a unique prefix; a document file is not taken).
pub fn check_tool(scope: &Scope, a: CheckArgs) -> ToolResult {
    // A directory inside the workspace, else a stored snapshot (as `diff` takes operands).
    let given = match a.dir.as_deref() {
        Some(g) => operand(scope, "dir", g)?,
        None => {
            let dir = dir_or_root(scope, "dir", None)?;
            let opts = operand_options(scope, &dir)?;
            Operand::Dir(dir, opts)
        }
    };
    let ws = scope.workspace();
    let (expected, tree) = if a.expect.len() == 64 && is_snapshot_prefix(&a.expect) {
        let d: crate::Digest = a
            .expect
            .parse()
            .map_err(|_| ToolError::bad_input(format!("expect {:?}: not an identity", a.expect)))?;
        let tree = ws
            .existing_store()
            .ok()
            .flatten()
            .filter(|st| st.has_snapshot(&d))
            .and_then(|st| Tree::from_store(&st, &d).ok());
        (Expected::Identity(d), tree)
    } else if is_snapshot_prefix(&a.expect) {
        let store = engine(scope, false)?.store().clone();
        let d = store.resolve_snapshot(&a.expect)?;
        let tree = Tree::from_store(&store, &d)?;
        (Expected::Identity(d), Some(tree))
    } else {
        return Err(ToolError::bad_input(format!(
            "expect {:?}: not a snapshot identity (64 hex digits) or a prefix of 4+ hex digits",
            a.expect
        )));
    };
    let shown = match &given {
        Operand::Dir(dir, _) => dir.display().to_string(),
        Operand::Tree(t) => format!("snapshot {}", t.snapshot.identity()),
        Operand::Stored(_, id) => format!("snapshot {id}"),
    };
    let actual = match (given, &tree) {
        (given, Some(t)) => Tree::compare(given, Operand::Tree(t.clone()))?.0,
        (Operand::Dir(dir, opts), None) => Tree::from_dir(&dir, &opts)?,
        (Operand::Tree(t), None) => t,
        (Operand::Stored(st, id), None) => Tree::from_store(&st, &id)?,
    };
    let outcome = check(&actual, &expected, tree.as_ref());
    let summary = if outcome.matches() {
        format!("ok: {shown} matches {}", outcome.actual)
    } else {
        format!(
            "mismatch: {shown} hashes to {}, expected {} ({} path(s) differ)",
            outcome.actual,
            outcome.expected,
            outcome.differences.len()
        )
    };
    let no_tree = tree
        .is_none()
        .then_some("the expected snapshot is not in the store: the differing paths are unknown");
    Ok(Done {
        value: report::check_json(&outcome, no_tree),
        summary,
    })
}

/// `open`: `genesis open [--session ID] [--manifest PATH] [--in-place] --json`.
pub fn open(scope: &Scope, a: OpenArgs) -> ToolResult {
    let session = match &a.session {
        Some(s) => Some(SessionId::new(s).map_err(|e| ToolError::bad_input(e.to_string()))?),
        None => None,
    };
    // Issue 13 A: the only manifest a server takes is the workspace's own (genesis.json at the
    // root); any other file could be one a session wrote, naming any command (DESIGN 11a).
    if let Some(m) = &a.manifest {
        let mut rest = m.as_str();
        while let Some(r) = rest.strip_prefix("./") {
            rest = r.trim_start_matches('/');
        }
        if rest != crate::manifest::DEFAULT_MANIFEST {
            return Err(ToolError::bad_input(format!(
                "manifest {m:?}: the server takes only the workspace's own manifest ({}); \
                 it never runs a command other than that manifest's obligations \
                 (`genesis open --manifest` on the command line takes another)",
                crate::manifest::DEFAULT_MANIFEST
            )));
        }
    }
    let manifest = None;
    let rel = WorkspacePath::new(crate::manifest::DEFAULT_MANIFEST).expect("a valid path");
    crate::manifest::Manifest::load_in(scope.root(), &rel)?;
    let engine = engine(scope, true)?;
    let out = engine.open(
        &OpenOptions {
            session: Some(session.unwrap_or_else(SessionId::generate)),
            manifest,
            checkout: None,
            in_place: a.in_place,
        },
        &mut NoObserver,
    )?;
    let summary = format!(
        "opened session {} on snapshot {}",
        out.session.session, out.session.base_snapshot
    );
    Ok(Done {
        value: report::open_json(&out),
        summary,
    })
}

/// `patch`: `genesis patch SESSION (diff text | --from DIR | in place) --json`.
pub fn patch(scope: &Scope, a: PatchArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    let from;
    let input = match (&a.diff, &a.from_dir) {
        (Some(_), Some(_)) => {
            return Err(ToolError::bad_input(
                "give diff or from_dir, not both".to_owned(),
            ));
        }
        (Some(d), None) => PatchInput::Diff(d.as_bytes()),
        (None, Some(d)) => {
            from = scope.dir("from_dir", d)?;
            PatchInput::Dir(&from)
        }
        (None, None) => {
            if !engine.status(&id)?.1.in_place {
                return Err(ToolError::bad_input(
                    "give diff or from_dir (only an in-place session records the workspace itself)",
                ));
            }
            PatchInput::Workspace
        }
    };
    let out = engine.patch(&id, input, None, &mut NoObserver)?;
    let summary = match &out.entry {
        None => "no changes; nothing recorded".to_owned(),
        Some(e) => format!(
            "patch {} recorded: {} → {} ({} file(s))",
            e.patch,
            e.before_snapshot,
            e.after_snapshot,
            out.changes.len()
        ),
    };
    Ok(Done {
        value: report::patch_json(&out),
        summary,
    })
}

/// `verify`: `genesis verify SESSION --json`, its obligations' progress and output going to
/// `observer` (which also carries the cancellation flag).
pub fn verify(scope: &Scope, a: VerifyArgs, observer: &mut dyn Observer) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    let opts = VerifyOptions {
        secrets: scope.secrets().to_vec(),
        ..VerifyOptions::default()
    };
    let out = engine.verify(&id, &opts, observer).map_err(|e| match e {
        // Issue 13, review 2 F: in the server an interrupt is a cancellation (the client
        // cancelled the call or went away, or the server was signalled); the kind and exit
        // code stay the CLI's for an interrupted verify (io, 4).
        crate::engine::VerifyError::Interrupted(o) => ToolError {
            kind: ErrorKind::Io,
            message: format!(
                "cancelled while obligation {o} ran (the call was cancelled, the client went away or the server was stopped); its process group was killed and nothing was recorded"
            ),
            document: None,
        },
        other => other.into(),
    })?;
    let failed = out.record.failed_ids();
    let summary = if out.record.obligations.is_empty() && out.record.static_results.is_empty() {
        format!(
            "nothing was checked: the manifest has no obligations; snapshot {} acceptance {}",
            out.record.snapshot, out.acceptance
        )
    } else if out.record.obligations_ok {
        format!(
            "verified snapshot {} acceptance {} ({} obligation(s) run)",
            out.record.snapshot,
            out.acceptance,
            out.record.obligations.len()
        )
    } else {
        format!(
            "FAILED snapshot {}: {} failed",
            out.record.snapshot,
            failed.join(", ")
        )
    };
    Ok(Done {
        value: report::verify_json(&out),
        summary,
    })
}

/// Issue 13 B: the server never changes anything outside its workspace, so a session whose
/// `--checkout` directory (made by the CLI) lies outside it is refused (kind `state`, exit
/// code 3) by every tool that would rewrite or remove that directory (`apply`, `abort`,
/// `rebase`); the CLI does it.
fn refuse_outside_checkout(
    scope: &Scope,
    engine: &Engine,
    id: &str,
    tool: &str,
) -> Result<(), ToolError> {
    let (_, state) = engine.status(id)?;
    let Some(co) = state.checkout.as_deref() else {
        return Ok(());
    };
    let real = co.canonicalize().unwrap_or_else(|_| co.to_path_buf());
    if real.starts_with(scope.root()) {
        return Ok(());
    }
    Err(ToolError {
        kind: ErrorKind::State,
        message: format!(
            "session {id} has its checkout {} outside the workspace {}; the server never changes \
             anything outside its workspace, so `{tool}` is refused here: run `genesis {tool} {id}` \
             on the command line",
            co.display(),
            scope.root().display()
        ),
        document: None,
    })
}

/// Issue 13 A: a session whose change rewrites the workspace's own manifest is not applied by
/// the server (kind `bad-input`, exit code 2, as a protected path): the next session would run
/// the commands the agent wrote. The CLI applies it.
fn refuse_manifest_change(engine: &Engine, id: &str) -> Result<(), ToolError> {
    let (s, _) = engine.status(id)?;
    let store = engine.store();
    let base = store.read_snapshot(&s.base_snapshot)?.0;
    let current = store.read_snapshot(&s.current_snapshot)?.0;
    let m = crate::manifest::DEFAULT_MANIFEST;
    if base.get(m) != current.get(m) {
        return Err(ToolError::bad_input(format!(
            "session {id} changes the workspace's manifest {m}; the server never writes it (it \
             names the commands `verify` runs): run `genesis apply {id}` on the command line"
        )));
    }
    Ok(())
}

/// `apply`: `genesis apply SESSION [--dry-run] [--strict] --json`.
pub fn apply(scope: &Scope, a: ApplyArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    if !a.dry_run {
        refuse_outside_checkout(scope, &engine, &id, "apply")?;
        refuse_manifest_change(&engine, &id)?;
    }
    let out = engine.apply(
        &id,
        &ApplyOptions {
            dry_run: a.dry_run,
            strict: a.strict,
            ..ApplyOptions::default()
        },
        &mut NoObserver,
    )?;
    let summary = if out.written {
        format!(
            "applied session {}: {} file(s) changed",
            out.session.session,
            out.changes.len()
        )
    } else {
        format!("dry run: {} file(s) would change", out.changes.len())
    };
    Ok(Done {
        value: report::apply_json(&out),
        summary,
    })
}

/// `abort`: `genesis abort SESSION [--dry-run] --json`.
pub fn abort(scope: &Scope, a: AbortArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    if !a.dry_run {
        refuse_outside_checkout(scope, &engine, &id, "abort")?;
    }
    let o = engine.abort_with(
        &id,
        &AbortOptions {
            dry_run: a.dry_run,
            reason: None,
        },
        &mut NoObserver,
    )?;
    let summary = if o.written {
        format!(
            "aborted session {id}; {} unrecorded file(s) saved",
            o.saved.len()
        )
    } else {
        format!("abort {id} would change {} path(s)", o.steps.len())
    };
    Ok(Done {
        value: report::abort_json(&o),
        summary,
    })
}

/// `status`: `genesis status [SESSION] --json`. Reads without the store lock, so a running
/// `verify` (which holds no lock while its obligations run) or any other call never delays it.
pub fn status(scope: &Scope, a: StatusArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    match &a.session {
        None => {
            let value = report::status_list_json(&engine)?;
            let n = value["sessions"].as_array().map_or(0, Vec::len);
            Ok(Done {
                value,
                summary: format!("{n} session(s)"),
            })
        }
        Some(given) => {
            let id = session(&engine, given)?;
            let (s, state) = engine.status(&id)?;
            let verified = s
                .verification
                .as_ref()
                .is_some_and(|v| v.snapshot == s.current_snapshot && v.obligations_ok);
            let summary = format!(
                "session {}: {}, {} patch(es), {}",
                s.session,
                s.status,
                s.patches.len(),
                if verified { "verified" } else { "not verified" }
            );
            Ok(Done {
                value: report::status_json(&s, &state),
                summary,
            })
        }
    }
}

/// `rebase`: `genesis rebase SESSION [--markers] --json`. Paths in conflict with nothing
/// recorded are a tool error of kind `conflict` (exit code 3, as the CLI exits) whose
/// structured content also holds the rebase document (`conflicts`, `moved: false`, …).
pub fn rebase(scope: &Scope, a: RebaseArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    refuse_outside_checkout(scope, &engine, &id, "rebase")?;
    let out = engine.rebase(
        &id,
        &crate::engine::RebaseOptions { markers: a.markers },
        &mut NoObserver,
    )?;
    let value = report::rebase_json(&out, a.markers);
    if !out.conflicts.is_empty() && !out.moved {
        let paths: Vec<&str> = out.conflicts.iter().map(|c| c.path.as_str()).collect();
        return Err(ToolError {
            kind: ErrorKind::Conflict,
            message: format!(
                "session {id} cannot be rebased onto the workspace ({}): {} path(s) conflict ({}); nothing recorded{}",
                out.onto,
                paths.len(),
                paths.join(", "),
                if a.markers || !out.conflicts.iter().all(|c| c.kind.has_markers()) {
                    ""
                } else {
                    "; `markers: true` records them with conflict markers"
                }
            ),
            document: Some(value),
        });
    }
    let summary = match (&out.entry, out.moved) {
        (_, false) => format!(
            "session {id} is already on the workspace ({}); nothing recorded",
            out.onto
        ),
        (Some(e), true) => format!(
            "session {id} rebased onto {}: patch {} recorded ({} file(s)); verify again",
            out.onto,
            e.patch,
            out.changes.len()
        ),
        (None, true) => format!(
            "session {id} rebased onto {}: {}",
            out.onto,
            if out.replaced_patches == 0 {
                "it has no patches"
            } else {
                "the workspace already holds its changes"
            }
        ),
    };
    Ok(Done { value, summary })
}

/// `log`: `genesis log SESSION [OBLIGATION] --json`: the last verification's obligations with
/// their output.
pub fn log(scope: &Scope, a: LogArgs) -> ToolResult {
    let engine = engine(scope, false)?;
    let id = session(&engine, &a.session)?;
    let log = engine.obligation_log(&id, a.obligation.as_deref())?;
    let passed = log.obligations.iter().filter(|o| o.passed).count();
    let summary = format!(
        "verification of {}{}: {passed} of {} obligation(s) passed",
        log.snapshot,
        if log.current {
            ""
        } else {
            " (stale: not the current snapshot)"
        },
        log.obligations.len()
    );
    Ok(Done {
        value: report::log_json(&id, &log),
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::mcp_advice;

    #[test]
    fn command_line_advice_is_said_as_calls() {
        for (cli, mcp) in [
            (
                "store /w/.genesis is locked by pid 7; waited 5 s (pass --wait SECONDS to wait longer)",
                "store /w/.genesis is locked by pid 7; waited 5 s (the server waits as long as its own --wait; call again later)",
            ),
            (
                "/w/a.txt: gone; the change is journaled: run `genesis recover` to finish it",
                "/w/a.txt: gone; the change is journaled: call any tool again to finish it (each call finishes an interrupted change first)",
            ),
            (
                "session s1: an interrupted apply/abort of this session is pending (journal j (x)): run `genesis recover`",
                "session s1: an interrupted apply/abort of this session is pending (journal j (x)): call the tool again (each call finishes an interrupted apply or abort first)",
            ),
            (
                "it has not been verified; run `genesis verify` first",
                "it has not been verified; call `verify` first",
            ),
            (
                "session s2 is in-place: its patches are recorded from the workspace; run `genesis patch s2` without a diff",
                "session s2 is in-place: its patches are recorded from the workspace; call `patch` with only `session` (no `diff` or `from_dir`)",
            ),
            (
                "/w/genesis.json: no package manifest; run `genesis init` or pass --manifest PATH",
                "/w/genesis.json: no package manifest; run `genesis init` in the workspace (the server reads only genesis.json)",
            ),
            (
                "/w: no Genesis store here; run `genesis init` (or pass --store DIR)",
                "/w: no Genesis store here; run `genesis init`",
            ),
        ] {
            assert_eq!(mcp_advice(cli), mcp);
        }
    }
}
