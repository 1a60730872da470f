//! Maps library errors to the documented exit statuses (DESIGN section 7):
//! 1 a definite "no", 2 bad input or usage, 3 state conflict, 4 I/O or internal error.

use genesis::diff::DiffError;
use genesis::engine::EngineError;
use genesis::journal::JournalError;
use genesis::manifest::ManifestError;
use genesis::session::SessionError;
use genesis::snapshot::SnapshotError;
use genesis::store::StoreError;

/// An error with its exit status.
#[derive(Debug)]
pub struct CliError {
    /// The exit status (1–4).
    pub code: u8,
    /// The message, naming the path, field or hunk.
    pub message: String,
    /// Which failure it is, where the event code tells it apart from others of the same exit
    /// status (DESIGN section 8); set from the error variant, never from the message.
    pub cause: Cause,
}

/// The failures an event code names beyond the exit status (see `events::codes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cause {
    /// Nothing more than the exit status says.
    #[default]
    Other,
    /// Another process holds the store lock ([`StoreError::Locked`]): `store-locked`,
    /// retryable.
    StoreLocked,
    /// The workspace changed under the session ([`EngineError::Conflict`]):
    /// `apply-conflict`, reported as a failure.
    ApplyConflict,
}

impl CliError {
    /// Bad input or usage (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
            cause: Cause::Other,
        }
    }

    /// I/O or internal error (exit 4).
    pub fn io(message: impl Into<String>) -> Self {
        CliError {
            code: 4,
            message: message.into(),
            cause: Cause::Other,
        }
    }

    /// Prints the error: `genesis: error: …` on standard error, and with `--json` also
    /// `{"error": {"code": N, "message": …}}` on standard output.
    pub fn report(&self, json: bool) {
        eprintln!("genesis: error: {}", self.message);
        if json {
            super::print_json(&serde_json::json!({
                "error": {"code": self.code, "message": self.message}
            }));
        }
    }
}

impl From<SnapshotError> for CliError {
    fn from(e: SnapshotError) -> Self {
        let code = match e {
            SnapshotError::Store(s) => return (*s).into(),
            SnapshotError::Walk { .. }
            | SnapshotError::Read { .. }
            | SnapshotError::Ingest { .. }
            | SnapshotError::Document(_)
            | SnapshotError::Changed(_)
            | SnapshotError::Tracked(_) => 4,
            _ => 2,
        };
        CliError {
            code,
            message: e.to_string(),
            cause: Cause::Other,
        }
    }
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        let code = match e {
            StoreError::NotFound(_)
            | StoreError::NotAStore(_)
            | StoreError::NoSuchSnapshot { .. }
            | StoreError::Ambiguous { .. }
            | StoreError::DuplicateKey { .. } => 2,
            StoreError::Locked { .. } => 3,
            _ => 4,
        };
        CliError {
            code,
            message: e.to_string(),
            cause: if matches!(e, StoreError::Locked { .. }) {
                Cause::StoreLocked
            } else {
                Cause::Other
            },
        }
    }
}

impl From<genesis::workspace::OptionsError> for CliError {
    fn from(e: genesis::workspace::OptionsError) -> Self {
        match e {
            genesis::workspace::OptionsError::Manifest(m) => m.into(),
            genesis::workspace::OptionsError::Tracked(t) => SnapshotError::from(t).into(),
        }
    }
}

impl From<ManifestError> for CliError {
    fn from(e: ManifestError) -> Self {
        let code = match e {
            ManifestError::Io { .. } => 4,
            _ => 2,
        };
        CliError {
            code,
            message: e.to_string(),
            cause: Cause::Other,
        }
    }
}

impl From<DiffError> for CliError {
    fn from(e: DiffError) -> Self {
        match e {
            DiffError::Snapshot(e) => e.into(),
            DiffError::Store(e) => e.into(),
            DiffError::NoContent(_) => CliError::usage(e.to_string()),
            DiffError::Output(ref io) if io.kind() == std::io::ErrorKind::BrokenPipe => CliError {
                code: 0,
                message: String::new(),
                cause: Cause::Other,
            },
            other => CliError::io(other.to_string()),
        }
    }
}

impl From<SessionError> for CliError {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Store(s) => s.into(),
            SessionError::NotFound(_)
            | SessionError::Exists(_)
            | SessionError::DuplicateKey { .. } => CliError::usage(e.to_string()),
            SessionError::Invalid { .. } => CliError::io(e.to_string()),
        }
    }
}

impl From<EngineError> for CliError {
    fn from(e: EngineError) -> Self {
        let code = match e {
            EngineError::Store(s) => return s.into(),
            EngineError::Session(s) => return s.into(),
            EngineError::Manifest(m) => return m.into(),
            EngineError::Snapshot(s) => return s.into(),
            EngineError::Journal(j) => return j.into(),
            EngineError::Diff(d) => return d.into(),
            EngineError::Patch(_)
            | EngineError::PathLimit(_)
            | EngineError::VerifyPathLimit { .. }
            | EngineError::Unsafe { .. }
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
            | EngineError::NoCheckoutToRestore { .. } => 2,
            EngineError::NotOpen { .. }
            | EngineError::NotVerified { .. }
            | EngineError::SessionMoved { .. }
            | EngineError::Conflict { .. }
            | EngineError::NothingToRestore { .. } => 3,
            EngineError::Materialize(_)
            | EngineError::Io { .. }
            | EngineError::Interrupted(_)
            | EngineError::StateWithoutManifest { .. } => 4,
        };
        CliError {
            code,
            message: e.to_string(),
            cause: if matches!(e, EngineError::Conflict { .. }) {
                Cause::ApplyConflict
            } else {
                Cause::Other
            },
        }
    }
}

impl From<JournalError> for CliError {
    fn from(e: JournalError) -> Self {
        let code = match e {
            JournalError::Store(s) => return s.into(),
            JournalError::Session(s) => return s.into(),
            JournalError::Unsafe { .. } => 3,
            JournalError::DuplicateKey { .. } => 2,
            JournalError::Io { .. } | JournalError::Invalid { .. } => 4,
        };
        CliError {
            code,
            message: e.to_string(),
            cause: Cause::Other,
        }
    }
}
