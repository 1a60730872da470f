//! `--events PATH --events-format DIALECT`: the event stream of the session commands.

use genesis::engine::Engine;
use genesis::events::{Dialect, Event, EventKind, EventSink, Scope, codes};

use super::{CliError, Context};

/// An event sink for one session (or none, without `--events`).
pub struct Events {
    sink: Option<EventSink>,
    session: String,
    broken: bool,
}

impl Events {
    /// No events.
    pub fn off() -> Self {
        Events {
            sink: None,
            session: String::new(),
            broken: false,
        }
    }

    /// The sink for `session`, continuing its stored sequence numbers.
    pub fn for_session(ctx: &Context, engine: &Engine, session: &str) -> Result<Self, CliError> {
        let Some(path) = &ctx.events else {
            return Ok(Events::off());
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
        let target = (path.as_os_str() != "-").then(|| path.clone());
        let sink = EventSink::new(target, dialect, scope, counters)
            .map_err(|e| CliError::io(format!("--events {}: {e}", path.display())))?;
        Ok(Events {
            sink: Some(sink),
            session: session.to_owned(),
            broken: false,
        })
    }

    /// Whether events are on.
    pub fn on(&self) -> bool {
        self.sink.is_some() && !self.broken
    }

    /// Emits one event (flushed at once). A sink that stops accepting writes (a full disk) is
    /// reported once on standard error and switched off: the command's own outcome, which may
    /// already be committed, is not turned into a failure by its event stream.
    pub fn emit(&mut self, kind: EventKind) -> Result<(), CliError> {
        if self.broken {
            return Ok(());
        }
        if let Some(sink) = &mut self.sink
            && let Err(e) = sink.emit(&Event::now(self.session.clone(), kind))
        {
            eprintln!("genesis: warning: writing events failed, no more are written: {e}");
            self.broken = true;
        }
        Ok(())
    }

    /// Reports a failed command: `Failed` for an apply conflict, `Diagnostic` otherwise.
    pub fn report_error(&mut self, e: &CliError) {
        if e.code == 0 {
            return;
        }
        let code = e.kind.event_code();
        let kind = if code == codes::APPLY_CONFLICT {
            EventKind::Failed {
                code: code.into(),
                message: e.message.clone(),
                retryable: false,
            }
        } else {
            EventKind::Diagnostic {
                code: code.into(),
                message: e.message.clone(),
                retryable: e.kind.retryable(),
            }
        };
        let _ = self.emit(kind);
    }

    /// Stores the sequence counters with the session.
    pub fn save(self, engine: &Engine) -> Result<(), CliError> {
        if let Some(sink) = self.sink {
            engine.store_event_counters(&self.session, &sink.into_counters())?;
        }
        Ok(())
    }
}

/// Runs `op` with events for `session`: errors are reported as events too, and the counters
/// are stored afterwards either way.
pub fn with_events<T>(
    ctx: &Context,
    engine: &Engine,
    session: &str,
    op: impl FnOnce(&mut Events) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let mut events = match Events::for_session(ctx, engine, session) {
        Ok(e) => e,
        Err(e) if ctx.events.is_some() => return Err(e),
        Err(_) => Events::off(),
    };
    let result = op(&mut events);
    if let Err(e) = &result {
        events.report_error(e);
    }
    let saved = if events.on() {
        events.save(engine)
    } else {
        Ok(())
    };
    let value = result?;
    saved?;
    Ok(value)
}
