//! `--events PATH|- --events-format DIALECT --worker-id ID`: the CLI's front end over the
//! library's one emitter ([`genesis::events::Emitter`]). The operations decide which events
//! they emit; this file only picks the target, dialect and scope, reports a failed command
//! with [`genesis::ErrorKind::event`], and stores the counters with the session.

use genesis::engine::Engine;
use genesis::events::{Dialect, Emitter, EventsTarget, Redactor, Scope};

use super::{CliError, Context};

/// The event options, on the commands that emit events (open, patch, rebase, verify, apply, abort,
/// bpt) and nowhere else. Given before the command name (`genesis --events PATH open`) they
/// are still taken, as before they moved here, but not shown in the help.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EventsArgs {
    /// Write the session's events to PATH as JSON lines (`-`: standard error).
    #[arg(long, value_name = "PATH", help_heading = "Events")]
    pub events: Option<std::path::PathBuf>,
    /// The events' dialect: genesis, bpt (Block Play Table A2A), orbiplex or aps. Default:
    /// genesis (bpt for `genesis bpt`).
    #[arg(long, value_name = "DIALECT", help_heading = "Events")]
    pub events_format: Option<String>,
    /// This worker's id in BPT events and requests. Default: $GENESIS_WORKER_ID, else
    /// genesis@HOSTNAME.
    #[arg(long, value_name = "ID", help_heading = "Events")]
    pub worker_id: Option<String>,
}

/// The emitter of `session`'s events (off without `--events`), continuing its stored
/// sequence numbers (none yet for a session not made yet).
///
/// # Errors
/// An unknown `--events-format` (exit 2); a `--events` file that cannot be opened (exit 4).
pub fn emitter(ctx: &Context, engine: &Engine, session: &str) -> Result<Emitter, CliError> {
    let Some(path) = &ctx.events else {
        return Ok(Emitter::off());
    };
    let dialect: Dialect = ctx
        .events_format
        .as_deref()
        .unwrap_or("genesis")
        .parse()
        .map_err(|e: genesis::events::UnknownDialect| CliError::usage(e.to_string()))?;
    let mut scope = Scope::new(session);
    if let Some(w) = &ctx.worker_id {
        scope.worker_id = w.clone();
    }
    let counters = engine.event_counters(session).unwrap_or_default();
    let target = EventsTarget::from_arg(path);
    Emitter::new(&target, dialect, scope, counters, Redactor::none())
        .map_err(|e| CliError::io(format!("--events {}: {e}", path.display())))
}

/// Stores the emitter's counters with its session, so the next command numbers on (nothing
/// when events are off or the sink failed). A failure is a warning, never the command's
/// failure ([`Engine::save_event_counters`], DESIGN section 8).
pub fn save(engine: &Engine, em: &Emitter) {
    engine.save_event_counters(em);
}

/// Runs `op` with the events of existing session `session`: a failure is reported as an event
/// too, and the counters are stored afterwards either way (a failure to store them is a
/// warning: the command's result is `op`'s).
pub fn with_events<T>(
    ctx: &Context,
    engine: &Engine,
    session: &str,
    op: impl FnOnce(&mut Emitter) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let mut em = emitter(ctx, engine, session)?;
    let result = op(&mut em);
    if let Err(e) = &result
        && e.code != 0
    {
        em.emit(&e.kind.event(e.message.clone()));
    }
    save(engine, &em);
    result
}
