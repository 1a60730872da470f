//! Maps library errors to the documented exit statuses (DESIGN section 7):
//! 1 a definite "no", 2 bad input or usage, 3 state conflict, 4 I/O or internal error.
//! The mapping itself is the library's ([`genesis::ErrorKind`], one `kind()` per error type,
//! by variant); this module only carries it with the message.

use genesis::ErrorKind;
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
    /// The class of the failure, for the event code and `retryable` (DESIGN section 8); from
    /// the error variant, never from the message.
    pub kind: ErrorKind,
}

impl CliError {
    /// An error of `kind`: its exit status and `message`.
    pub fn of(kind: ErrorKind, message: impl Into<String>) -> Self {
        CliError {
            code: kind.exit_code(),
            message: message.into(),
            kind,
        }
    }

    /// Bad input or usage (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError::of(ErrorKind::BadInput, message)
    }

    /// I/O or internal error (exit 4).
    pub fn io(message: impl Into<String>) -> Self {
        CliError::of(ErrorKind::Io, message)
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

/// `From<E> for CliError` through `E::kind()` for each library error type.
macro_rules! by_kind {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::of(e.kind(), e.to_string())
            }
        }
    )*};
}

by_kind!(
    SnapshotError,
    genesis::store::SnapshotIntoError,
    StoreError,
    genesis::workspace::OptionsError,
    ManifestError,
    SessionError,
    EngineError,
    genesis::engine::ApplyError,
    genesis::engine::VerifyError,
    genesis::engine::PatchSessionError,
    genesis::engine::OpenError,
    genesis::engine::AbortError,
    JournalError
);

impl From<DiffError> for CliError {
    fn from(e: DiffError) -> Self {
        match e {
            // `genesis diff … | head`: a closed pipe ends the program quietly.
            DiffError::Output(ref io) if io.kind() == std::io::ErrorKind::BrokenPipe => CliError {
                code: 0,
                message: String::new(),
                kind: ErrorKind::Io,
            },
            e => CliError::of(e.kind(), e.to_string()),
        }
    }
}
