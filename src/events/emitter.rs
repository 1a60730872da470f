//! The one event emitter (DESIGN section 8): takes the neutral events of one session, stamps
//! them (session, time, sequence numbers), renders them in a dialect, writes them to a sink,
//! and keeps the counters. The CLI's `--events` and the BPT driver are two front ends over it.

use std::io;
use std::path::PathBuf;

use super::{Dialect, Event, EventCounters, EventKind, EventSink, Observer, Redactor, Scope};

/// Where the events go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsTarget {
    /// Appended to this file (created if missing).
    File(PathBuf),
    /// Standard error.
    Stderr,
}

impl EventsTarget {
    /// `-` is standard error, anything else a file (the CLI's `--events PATH|-`).
    pub fn from_arg(arg: &std::path::Path) -> Self {
        if arg.as_os_str() == "-" {
            EventsTarget::Stderr
        } else {
            EventsTarget::File(arg.to_path_buf())
        }
    }
}

/// The events of one session, or none ([`Emitter::off`]).
///
/// Writing never fails an operation: when the sink stops accepting lines (a full disk, a closed
/// pipe) the emitter prints one warning on standard error
/// (`genesis: warning: writing events failed, no more are written: …`) and switches itself
/// off, so an operation that already committed (an apply) still succeeds. The counters of a
/// switched-off emitter are not handed back for storing ([`Emitter::counters`] is `None`).
pub struct Emitter {
    sink: Option<EventSink>,
    session: String,
    /// The first write error, once the emitter switched itself off.
    failure: Option<String>,
}

impl Emitter {
    /// An emitter that writes nothing.
    pub fn off() -> Self {
        Emitter {
            sink: None,
            session: String::new(),
            failure: None,
        }
    }

    /// The events of `scope.session` in `dialect`, written to `target`, numbered on from
    /// `counters` (the session's stored counters, [`EventCounters::default`] for a new
    /// session), every string redacted with `redactor`.
    ///
    /// # Errors
    /// The file cannot be opened for appending.
    pub fn new(
        target: &EventsTarget,
        dialect: Dialect,
        scope: Scope,
        counters: EventCounters,
        redactor: Redactor,
    ) -> io::Result<Self> {
        let session = scope.session.clone();
        let path = match target {
            EventsTarget::File(p) => Some(p.clone()),
            EventsTarget::Stderr => None,
        };
        let sink = EventSink::new(path, dialect, scope, counters)?.with_redactor(redactor);
        Ok(Emitter {
            sink: Some(sink),
            session,
            failure: None,
        })
    }

    /// Whether lines are still written (there is a sink and it has not failed).
    pub fn is_on(&self) -> bool {
        self.sink.is_some() && self.failure.is_none()
    }

    /// The session the events are of (empty when off).
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Stamps `kind` (session, [`crate::clock::now`]) and writes its lines. A failed write is
    /// reported once on standard error and switches the emitter off.
    pub fn emit(&mut self, kind: &EventKind) {
        if !self.is_on() {
            return;
        }
        let Some(sink) = &mut self.sink else { return };
        if let Err(e) = sink.emit(&Event::now(self.session.clone(), kind.clone())) {
            eprintln!("genesis: warning: writing events failed, no more are written: {e}");
            self.failure = Some(e.to_string());
        }
    }

    /// The write error that switched the emitter off, if one did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// The counters to store with the session (see `Engine::store_event_counters`), or `None`
    /// when the emitter is off or switched itself off.
    pub fn counters(&self) -> Option<&EventCounters> {
        match &self.sink {
            Some(sink) if self.failure.is_none() => Some(sink.counters()),
            _ => None,
        }
    }
}

impl Observer for Emitter {
    fn event(&mut self, event: &EventKind) {
        self.emit(event);
    }
    fn wants_events(&self) -> bool {
        self.is_on()
    }
}
