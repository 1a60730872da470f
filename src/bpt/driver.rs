//! Acting on a validated request (see the module docs of [`super`]): `START`/`RETRY` open a
//! session (aborting the task's open one first), `CONTINUE` records and verifies,
//! `INTERACTION_RESPONSE` applies or aborts.
//!
//! The events come from the library: each session operation reports its own events to one
//! [`Emitter`] per session (with the request's scope); this driver adds only what is BPT's
//! own (a failed pre command) and reports a failure with [`crate::ErrorKind::event`].

use std::path::{Path, PathBuf};

use super::task::{
    TaskRecord, interaction_id, load_task, lock_task, resolve_worktree_path, save_task, session_id,
    work_root, worktree_name,
};
use super::{
    BptError, Decision, ExecutionStatus, Operation, Options, Outcome, Request, io_err,
    shell_obligations,
};
use crate::engine::{AbortOptions, ApplyOptions, Engine, EngineError, OpenOptions, PatchInput};
use crate::engine::{VerifyOptions, VerifyOutcome};
use crate::events::{
    Both, Emitter, EventCounters, EventKind, EventsTarget, Observer, Scope, run_obligation,
};
use crate::session::{SessionId, Status};
use crate::workspace::Workspace;

/// The emitter of one session's events with `scope`, continuing `counters` (off without
/// [`Options::events`]).
fn emitter(
    opts: &Options,
    scope: Scope,
    counters: EventCounters,
    request: &Request,
) -> Result<Emitter, BptError> {
    let Some(target) = &opts.events else {
        return Ok(Emitter::off());
    };
    let path = match target {
        EventsTarget::File(p) => p.clone(),
        EventsTarget::Stderr => PathBuf::from("-"),
    };
    Emitter::new(target, opts.dialect, scope, counters, request.redactor()).map_err(io_err(&path))
}

/// Reports a failure as an event ([`crate::ErrorKind::event`]) and stores the counters
/// either way; the result passes through.
fn finish<T>(
    engine: &Engine,
    em: &mut Emitter,
    result: Result<T, BptError>,
) -> Result<T, BptError> {
    if let Err(e) = &result {
        em.emit(&e.kind().event(e.to_string()));
    }
    // A failure to store the counters is a warning, never the operation's failure (DESIGN
    // section 8): an apply that committed stays a success.
    engine.save_event_counters(em);
    result
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
        previous = retire(&engine, request, opts, root, &record)?;
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
    let session = session_id(task, exec, request.scope.attempt, record.executions.len());
    let worktree = fresh_worktree(request, root)?;
    let mut em = emitter(opts, scope_for(request, opts, &session), counters, request)?;
    // A failed open emits nothing (there is no session) and stores no counters.
    let opened = engine.open(
        &OpenOptions {
            session: Some(SessionId::new(&session).expect("bpt- + hex is a valid id")),
            manifest: None,
            checkout: Some(worktree.clone()),
            in_place: false,
        },
        &mut em,
    )?;
    let result = (|| {
        record.executions.push(super::ExecutionEntry {
            execution_id: exec.clone(),
            attempt: request.scope.attempt,
            turn: request.scope.turn,
            session: session.clone(),
            worktree: worktree.clone(),
            command_id: request.command.id.clone(),
        });
        save_task(engine.store(), &record)?;
        let mut out = outcome(request, &session, &worktree, ExecutionStatus::Ready);
        out.previous_session = previous.clone();
        out.snapshot = Some(opened.session.base_snapshot.to_string());
        run_pre(&engine, request, opts, &mut em, human, &mut out)?;
        Ok(out)
    })();
    finish(&engine, &mut em, result)
}

/// RETRY: aborts every open session of the task (normally the latest), each reported with its
/// own scope; removes the worktrees of the others. Returns the last session aborted.
fn retire(
    engine: &Engine,
    request: &Request,
    opts: &Options,
    root: &Path,
    record: &TaskRecord,
) -> Result<Option<String>, BptError> {
    let mut previous = None;
    for e in &record.executions {
        if !is_open(engine, &e.session) {
            remove_worktree(&e.worktree, root)?;
            continue;
        }
        let mut scope = Scope::new(&e.session);
        scope.worker_id = opts.worker_id.clone();
        scope.local_task_id = request.scope.local_task_id.clone();
        scope.execution_id = e.execution_id.clone();
        scope.attempt = e.attempt;
        scope.turn = e.turn;
        let stored = engine.event_counters(&e.session).unwrap_or_default();
        let mut em = emitter(opts, scope, stored, request)?;
        let abort = AbortOptions {
            dry_run: false,
            reason: Some(format!(
                "superseded by RETRY {} (execution {}, attempt {})",
                request.command.id, request.scope.execution_id, request.scope.attempt
            )),
        };
        let result = engine.abort_with(&e.session, &abort, &mut em);
        finish(engine, &mut em, result.map_err(BptError::from))?;
        remove_worktree(&e.worktree, root)?;
        previous = Some(e.session.clone());
    }
    Ok(previous)
}

/// A worktree path under `root` that does not exist yet: the request's name, or with `-2`,
/// `-3`, … appended.
fn fresh_worktree(request: &Request, root: &Path) -> Result<PathBuf, BptError> {
    let scope = &request.scope;
    let base = worktree_name(
        &request.project.worktree_name_prefix,
        &scope.local_task_id,
        &scope.execution_id,
        scope.attempt,
    );
    std::fs::create_dir_all(root).map_err(io_err(root))?;
    let root = std::fs::canonicalize(root).map_err(io_err(root))?;
    let mut worktree = root.join(&base);
    let mut n = 2;
    while std::fs::symlink_metadata(&worktree).is_ok() {
        worktree = root.join(format!("{base}-{n}"));
        n += 1;
    }
    Ok(worktree)
}

/// Runs `commands.pre` in the new worktree (events and `human` see them, redacted); the first
/// that fails fails the execution: `pre-command-failed`, and the session is aborted (that
/// abort is not reported again).
fn run_pre(
    engine: &Engine,
    request: &Request,
    opts: &Options,
    em: &mut Emitter,
    human: &mut dyn Observer,
    out: &mut Outcome,
) -> Result<(), BptError> {
    let mut env = request.env();
    env.push(("GENESIS_SESSION".into(), out.session.clone()));
    env.push((
        "GENESIS_WORKTREE".into(),
        out.worktree.to_string_lossy().into_owned(),
    ));
    let pre = shell_obligations("bpt-pre", &request.commands.pre, opts.command_timeout_s);
    let redactor = request.redactor();
    let mut failed = None;
    let mut both = Both(&mut *em, human);
    for (i, ob) in pre.iter().enumerate() {
        let r = run_obligation(ob, &out.worktree, &env, &redactor, &mut both, i, pre.len());
        if r.interrupted {
            return Err(EngineError::Interrupted(ob.id.clone()).into());
        }
        if !r.passed() {
            failed = Some(ob.id.clone());
            break;
        }
    }
    if let Some(id) = failed {
        em.emit(&EventKind::Failed {
            code: "pre-command-failed".into(),
            message: format!(
                "pre command {id} failed; the session was aborted and its worktree removed"
            ),
            retryable: true,
        });
        engine.abort(&out.session)?;
        out.status = ExecutionStatus::Failed;
        out.failed = vec![id];
    }
    Ok(())
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
    let mut em = emitter(opts, scope_for(request, opts, &session), counters, request)?;
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
        let turn = Turn {
            engine: &engine,
            request,
            session: &session,
            worktree: &given,
        };
        match request.command.operation {
            Operation::Continue => turn.continue_turn(opts, &mut em, human),
            _ => turn.respond(&mut em, root),
        }
    })();
    finish(&engine, &mut em, result)
}

/// One request on an existing execution.
struct Turn<'a> {
    engine: &'a Engine,
    request: &'a Request,
    session: &'a str,
    /// The execution's worktree, links resolved.
    worktree: &'a Path,
}

impl Turn<'_> {
    /// CONTINUE: record the worktree, verify (a failure is a retryable diagnostic: fix the
    /// worktree and CONTINUE again).
    fn continue_turn(
        &self,
        opts: &Options,
        em: &mut Emitter,
        human: &mut dyn Observer,
    ) -> Result<Outcome, BptError> {
        let (engine, request) = (self.engine, self.request);
        engine.patch(self.session, PatchInput::Dir(self.worktree), None, em)?;
        let vopts = VerifyOptions {
            workdir: None,
            env: request.env(),
            secrets: request.secrets(),
            extra_obligations: request.post_obligations(opts.command_timeout_s),
            retry_advice: Some("fix the worktree and send CONTINUE".into()),
            reuse: None,
        };
        let v = engine.verify_patch(self.session, &vopts, &mut Both(em, human))?;
        Ok(self.verified(&v))
    }

    fn verified(&self, v: &VerifyOutcome) -> Outcome {
        let snapshot = v.record.snapshot.to_string();
        let mut out = outcome(
            self.request,
            self.session,
            self.worktree,
            ExecutionStatus::Verified,
        );
        out.snapshot = Some(snapshot.clone());
        out.acceptance = Some(v.acceptance.to_string());
        out.files_changed = Some(v.impact.files_changed);
        if v.record.obligations_ok {
            out.interaction_id = Some(interaction_id(v.session.patches.len(), &snapshot));
        } else {
            out.status = ExecutionStatus::Failed;
            out.failed = v.record.failed_ids();
        }
        out
    }

    /// INTERACTION_RESPONSE.
    fn respond(&self, em: &mut Emitter, root: &Path) -> Result<Outcome, BptError> {
        let (engine, request, id) = (self.engine, self.request, self.session);
        let interaction = request.interaction.as_ref().ok_or_else(|| {
            BptError::BadRequest("INTERACTION_RESPONSE needs an interaction".into())
        })?;
        match interaction.decision {
            Decision::Approve | Decision::ApproveForSession => {
                let (session, _) = engine.status(id)?;
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
                let out = engine.apply(id, &ApplyOptions::default(), em)?;
                remove_worktree(self.worktree, root)?;
                let mut o = outcome(request, id, self.worktree, ExecutionStatus::Applied);
                o.snapshot = Some(out.session.current_snapshot.to_string());
                o.files_changed = Some(out.changes.len());
                Ok(o)
            }
            Decision::Deny | Decision::Cancel => {
                let abort = AbortOptions {
                    dry_run: false,
                    reason: Some(format!(
                        "{} by interaction {}",
                        interaction.decision.as_str(),
                        interaction.id
                    )),
                };
                engine.abort_with(id, &abort, em)?;
                remove_worktree(self.worktree, root)?;
                Ok(outcome(
                    request,
                    id,
                    self.worktree,
                    ExecutionStatus::Aborted,
                ))
            }
            Decision::Respond => Err(BptError::BadRequest(format!(
                "interaction {:?}: RESPOND answers a question, and Genesis asks none; answer its approval request with APPROVE, DENY or CANCEL",
                interaction.id
            ))),
        }
    }
}
