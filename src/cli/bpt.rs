//! `genesis bpt [REQUEST.json|-]`: act on a Block Play Table A2A execution request (seed 001).
//! The logic is [`genesis::bpt`]; this file reads the request, picks the options and prints.

use std::io::Read;
use std::path::PathBuf;

use genesis::bpt::{BptError, EventsTarget, ExecutionStatus, Options, Outcome};
use genesis::engine::Observer;
use genesis::events::{Dialect, Redactor};
use genesis::obligation::CommandResult;

use super::{CliError, Context};

/// Arguments of `genesis bpt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The request document (JSON), or `-` for standard input (the default).
    request: Option<PathBuf>,
    /// Where worktrees live. Default: WORKSPACE/../.genesis-worktrees.
    #[arg(long, value_name = "DIR", env = "GENESIS_WORK_ROOT")]
    work_root: Option<PathBuf>,
    /// Timeout of each pre and post command, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    command_timeout: u64,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// Obligation progress on standard error (output already redacted by the library).
struct Human {
    on: bool,
}

impl Observer for Human {
    fn wants_events(&self) -> bool {
        false
    }
    fn obligation_started(&mut self, id: &str, run: &[String], _index: usize, _total: usize) {
        if self.on {
            eprintln!("genesis: {id}: running {}", run.join(" "));
        }
    }
    fn obligation_finished(&mut self, r: &CommandResult, _index: usize, _total: usize) {
        if self.on {
            super::verify::print_result("", r);
        }
    }
}

/// The exit status of `e` from its kind ([`BptError::kind`]), the message redacted (so the
/// unredacted error is not kept as the source).
fn exit_of(e: BptError, redactor: &Redactor) -> CliError {
    let message = match e {
        BptError::DuplicateKey(_) => format!("the request: {e}"),
        _ => e.to_string(),
    };
    CliError::of(e.kind(), redactor.redact(&message))
}

/// Acts on the request; exit 1 when obligations or a pre command failed.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let bytes = match &args.request {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p).map_err(|e| {
            let msg = format!("{}: {e}", p.display());
            if e.kind() == std::io::ErrorKind::NotFound {
                CliError::usage(msg)
            } else {
                CliError::io(msg)
            }
        })?,
        _ => {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map_err(|e| {
                CliError::io(format!("reading the request from standard input: {e}"))
            })?;
            b
        }
    };
    let none = Redactor::none();
    let request = genesis::bpt::parse_request(&bytes).map_err(|e| match e {
        // Named like every other document: `REQUEST.json: duplicate key "operation" at /operation`.
        BptError::DuplicateKey(d) => CliError::usage(format!(
            "{}: {d}",
            args.request
                .as_ref()
                .filter(|p| p.as_os_str() != "-")
                .map_or("standard input".to_owned(), |p| p.display().to_string())
        )),
        e => exit_of(e, &none),
    })?;
    let redactor = request.redactor();
    // This command's events default to the BPT dialect.
    let dialect: Dialect = match &ctx.events_format {
        Some(f) => f
            .parse()
            .map_err(|e: genesis::events::UnknownDialect| CliError::usage(e.to_string()))?,
        None => Dialect::Bpt,
    };
    let events = ctx.events.as_deref().map(EventsTarget::from_arg);
    let mut opts = Options::new(
        ctx.worker_id
            .clone()
            .unwrap_or_else(genesis::events::default_worker_id),
    );
    opts.work_root = args.work_root.clone();
    opts.events = events;
    opts.dialect = dialect;
    opts.command_timeout_s = args.command_timeout;
    opts.lock_wait = ctx.wait();
    genesis::obligation::install_interrupt_handler();
    let mut human = Human {
        on: !ctx.json && opts.events != Some(EventsTarget::Stderr),
    };
    let out = genesis::bpt::execute(&ctx.workspace(), &request, &opts, &mut human)
        .map_err(|e| exit_of(e, &redactor))?;
    print(ctx, &out, &redactor);
    Ok(out.exit_code())
}

fn print(ctx: &Context, out: &Outcome, redactor: &Redactor) {
    if ctx.json {
        // snake_case keys, as every other command's (the library's `Outcome` serialises with
        // the BPT request's camelCase, which the event streams keep).
        let value = serde_json::json!({
            "operation": out.operation,
            "status": out.status,
            "session": out.session,
            "worktree": out.worktree,
            "local_task_id": out.local_task_id,
            "execution_id": out.execution_id,
            "attempt": out.attempt,
            "turn": out.turn,
            "previous_session": out.previous_session,
            "snapshot": out.snapshot,
            "acceptance": out.acceptance,
            "interaction_id": out.interaction_id,
            "files_changed": out.files_changed,
            "failed": out.failed,
        });
        let text = serde_json::to_string_pretty(&value).expect("serialisable");
        let mut text = redactor.redact(&text);
        text.push('\n');
        super::write_out(&text);
        return;
    }
    let what = match out.status {
        ExecutionStatus::Ready => "ready for the agent",
        ExecutionStatus::Verified => "verified; waiting for approval",
        ExecutionStatus::Failed => "FAILED",
        ExecutionStatus::Applied => "applied to the workspace",
        ExecutionStatus::Aborted => "aborted",
    };
    let mut text = format!(
        "{} execution {} (task {}, attempt {}, turn {}): {what}\nsession {}\nworktree {}\n",
        out.operation.as_str(),
        out.execution_id,
        out.local_task_id,
        out.attempt,
        out.turn,
        out.session,
        out.worktree.display()
    );
    if let Some(p) = &out.previous_session {
        text.push_str(&format!("aborted previous session {p}\n"));
    }
    if let Some(a) = &out.acceptance {
        text.push_str(&format!("acceptance {a}\n"));
    }
    if let Some(i) = &out.interaction_id {
        text.push_str(&format!("approve with interaction id {i}\n"));
    }
    if !out.failed.is_empty() {
        text.push_str(&format!("failed: {}\n", out.failed.join(", ")));
    }
    super::write_out(&redactor.redact(&text));
}
