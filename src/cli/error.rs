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

/// An error with its exit status, its kind and (for a library error) the typed error itself,
/// as jj's `CommandError` keeps its source: a caller can match the variant instead of the
/// message text.
#[derive(Debug)]
pub struct CliError {
    /// The exit status (1–4).
    pub code: u8,
    /// The message, naming the path, field or hunk.
    pub message: String,
    /// The class of the failure, for the event code and `retryable` (DESIGN section 8); from
    /// the error variant, never from the message.
    pub kind: ErrorKind,
    /// The library error this was made from (`None` for the CLI's own usage errors).
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl CliError {
    /// An error of `kind`: its exit status and `message`.
    pub fn of(kind: ErrorKind, message: impl Into<String>) -> Self {
        CliError {
            code: kind.exit_code(),
            message: message.into(),
            kind,
            source: None,
        }
    }

    /// The error `source` of `kind` (its `kind()`), its message its text, kept typed.
    pub fn from_source(
        kind: ErrorKind,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        CliError {
            source: Some(Box::new(source)),
            ..CliError::of(kind, String::new())
        }
        .with_message_of_source()
    }

    fn with_message_of_source(mut self) -> Self {
        if let Some(s) = &self.source {
            self.message = s.to_string();
        }
        self
    }

    /// The library error this was made from, if any, to match by variant
    /// (`e.source_as::<EngineError>()`).
    #[allow(dead_code)]
    pub fn source_as<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.source.as_deref()?.downcast_ref::<E>()
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
    /// `{"error": {"code": N, "message": …}}` on standard output, with `"conflicts"` beside
    /// `error` when paths conflict (`apply`, `abort`, `restore`: the shape of `rebase`'s,
    /// [`genesis::report::path_conflicts_json`]).
    pub fn report(&self, json: bool) {
        eprintln!("genesis: error: {}", for_terminal(&self.message));
        if json {
            let mut doc = serde_json::json!({
                "error": {"code": self.code, "message": self.message}
            });
            if let Some(list) = self.conflicts() {
                doc["conflicts"] = genesis::report::path_conflicts_json(list);
            }
            super::print_json(&doc);
        }
    }

    /// The conflicting paths of a refused `apply`, `abort` or `restore`, from the library
    /// error this was made from.
    fn conflicts(&self) -> Option<&[genesis::engine::PathConflict]> {
        use genesis::engine::{AbortError, ApplyError};
        if let Some(EngineError::Conflict { conflicts, .. }) = self.source_as::<EngineError>() {
            return Some(conflicts);
        }
        if let Some(ApplyError::Conflict { conflicts, .. }) = self.source_as::<ApplyError>() {
            return Some(conflicts);
        }
        match self.source_as::<AbortError>() {
            Some(AbortError::Conflict { conflicts, .. }) => Some(conflicts),
            _ => None,
        }
    }
}

/// `From<E> for CliError` through `E::kind()` for each library error type.
macro_rules! by_kind {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::from_source(e.kind(), e)
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
                source: Some(Box::new(e)),
            },
            e => CliError::from_source(e.kind(), e),
        }
    }
}

/// `message` with every control character other than newline and tab written as an escape
/// (`\x1b`, `\u{9b}`), so that a path or a value from the input cannot move the cursor, change
/// colours or retitle the terminal when the message is printed (the message in `--json` output
/// stays exact: JSON escapes control characters itself). C0 controls and DEL are written as
/// `\xNN`, C1 controls (U+0080 to U+009F) as `\u{NN}`.
pub fn for_terminal(message: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !message.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len() + 8);
    for c in message.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_error_is_kept_typed_with_its_kind_and_message() {
        let e = CliError::from(EngineError::NotOpen {
            id: "s1".into(),
            status: genesis::session::Status::Applied,
        });
        assert_eq!((e.code, e.kind), (3, ErrorKind::State));
        assert_eq!(
            e.message,
            "session s1 is applied; only an open session can be changed"
        );
        assert!(
            matches!(
                e.source_as::<EngineError>(),
                Some(EngineError::NotOpen { id, .. }) if id == "s1"
            ),
            "{e:?}"
        );
        assert!(CliError::usage("bad").source.is_none());
    }

    #[test]
    fn control_characters_are_escaped_for_the_terminal_only() {
        assert!(matches!(
            super::for_terminal("a/b.txt: line 1\n\tmore"),
            std::borrow::Cow::Borrowed("a/b.txt: line 1\n\tmore")
        ));
        assert_eq!(
            super::for_terminal("evil\x1b]0;title\x07name\u{9b}2J\r\x7f"),
            "evil\\x1b]0;title\\x07name\\u{9b}2J\\x0d\\x7f"
        );
    }
}
