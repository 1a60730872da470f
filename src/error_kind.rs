//! The one typed mapping from a library error to what a front end reports (DESIGN sections 7
//! and 8): every error type has a `kind()`, and an [`ErrorKind`] has one exit status, one
//! event code and one `retryable` flag. The mapping follows variants, never message text.
//!
//! Nested errors (a store error inside a session error, …) take the kind of the innermost
//! error, so store corruption is [`ErrorKind::Io`] (exit 4) wherever it is found.

use crate::diff::DiffError;
use crate::engine::{
    AbortError, ApplyError, EngineError, OpenError, PatchSessionError, SessionAccessError,
    VerifyError,
};
use crate::events::EventKind;
use crate::journal::JournalError;
use crate::manifest::ManifestError;
use crate::patch::{PatchError, ReadError};
use crate::session::SessionError;
use crate::snapshot::SnapshotError;
use crate::store::{SnapshotIntoError, StoreError};
use crate::workspace::OptionsError;

/// The class of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad input or usage: an invalid document, diff, path or argument; no store; an unknown
    /// snapshot or session. Exit 2, event code `bad-input`.
    BadInput,
    /// The session is not in a state for the operation (not open, not verified, nothing to
    /// restore, an interrupted apply/abort pending recovery), or a journaled write found a
    /// directory on its way turned into a link or a file ([`JournalError::Unsafe`]: the
    /// workspace changed under the change). Exit 3, `session-not-open`. (A change refused as
    /// unsafe before anything is written, the operations' own `Unsafe` variants, is
    /// [`ErrorKind::BadInput`].)
    State,
    /// Another patch landed while the obligations ran ([`EngineError::SessionMoved`]): the
    /// verification was of an old snapshot and nothing was recorded. Exit 3, `session-moved`,
    /// retryable (verify again).
    Moved,
    /// Another process holds the store lock. Exit 3, `store-locked`, retryable.
    Locked,
    /// The workspace changed under the session ([`EngineError::Conflict`]). Exit 3,
    /// `apply-conflict`, reported as a failure of the session.
    Conflict,
    /// An I/O error, store corruption, or an interruption. Exit 4, `io-error`.
    Io,
}

impl ErrorKind {
    /// The exit status (DESIGN section 7): 2, 3 or 4.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::BadInput => 2,
            ErrorKind::State | ErrorKind::Moved | ErrorKind::Locked | ErrorKind::Conflict => 3,
            ErrorKind::Io => 4,
        }
    }

    /// The event code (see [`crate::events::codes`]).
    pub fn event_code(self) -> &'static str {
        use crate::events::codes;
        match self {
            ErrorKind::BadInput => codes::BAD_INPUT,
            ErrorKind::State => codes::SESSION_NOT_OPEN,
            ErrorKind::Moved => codes::SESSION_MOVED,
            ErrorKind::Locked => codes::STORE_LOCKED,
            ErrorKind::Conflict => codes::APPLY_CONFLICT,
            ErrorKind::Io => codes::IO_ERROR,
        }
    }

    /// Whether trying again may succeed without any change to the request: a held lock
    /// (later), a session that moved on (verify again).
    pub fn retryable(self) -> bool {
        matches!(self, ErrorKind::Locked | ErrorKind::Moved)
    }

    /// The event that reports a failure of this kind with `message` (DESIGN section 8): an
    /// apply conflict ends the session's attempt, so it is [`EventKind::Failed`]; every other
    /// kind is an [`EventKind::Diagnostic`]. Both carry [`ErrorKind::event_code`] and
    /// [`ErrorKind::retryable`].
    pub fn event(self, message: impl Into<String>) -> EventKind {
        let (code, message, retryable) =
            (self.event_code().into(), message.into(), self.retryable());
        if self == ErrorKind::Conflict {
            EventKind::Failed {
                code,
                message,
                retryable,
            }
        } else {
            EventKind::Diagnostic {
                code,
                message,
                retryable,
            }
        }
    }
}

impl StoreError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            StoreError::NotFound(_)
            | StoreError::NotAStore(_)
            | StoreError::NoSuchSnapshot { .. }
            | StoreError::Ambiguous { .. }
            | StoreError::DuplicateKey { .. } => ErrorKind::BadInput,
            StoreError::Locked { .. } => ErrorKind::Locked,
            _ => ErrorKind::Io,
        }
    }
}

impl SnapshotError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            SnapshotError::Walk { .. }
            | SnapshotError::Read { .. }
            | SnapshotError::Document(_)
            | SnapshotError::Changed(_)
            | SnapshotError::Tracked(_) => ErrorKind::Io,
            _ => ErrorKind::BadInput,
        }
    }
}

impl SnapshotIntoError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            SnapshotIntoError::Snapshot(e) => e.kind(),
            SnapshotIntoError::Store(e) => e.kind(),
            SnapshotIntoError::Ingest { .. } => ErrorKind::Io,
        }
    }
}

impl ManifestError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            ManifestError::Io { .. } => ErrorKind::Io,
            _ => ErrorKind::BadInput,
        }
    }
}

impl OptionsError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            OptionsError::Manifest(m) => m.kind(),
            // An index that cannot be read: membership cannot be decided.
            OptionsError::Tracked(_) => ErrorKind::Io,
            OptionsError::Reserved { .. } => ErrorKind::BadInput,
        }
    }
}

impl ReadError {
    /// See [`ErrorKind`]: a store error found reading the tree keeps its kind (corruption is
    /// [`ErrorKind::Io`]); another reader's failure is I/O; a path the tree lacks is bad input.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReadError::NotInTree => ErrorKind::BadInput,
            ReadError::Diff(d) => d.kind(),
            ReadError::Other(_) => ErrorKind::Io,
        }
    }
}

impl PatchError {
    /// See [`ErrorKind`]: a patch that does not fit its tree is [`ErrorKind::BadInput`];
    /// [`PatchError::Read`] has its source's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            PatchError::Read { source, .. } => source.kind(),
            _ => ErrorKind::BadInput,
        }
    }
}

impl DiffError {
    /// See [`ErrorKind`]. A closed output pipe is [`ErrorKind::Io`] here; a front end may
    /// treat it as a quiet end.
    pub fn kind(&self) -> ErrorKind {
        match self {
            DiffError::Snapshot(e) => e.kind(),
            DiffError::Store(e) => e.kind(),
            DiffError::NoContent(_) => ErrorKind::BadInput,
            DiffError::Changed(_) | DiffError::Output(_) => ErrorKind::Io,
        }
    }
}

impl SessionError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            SessionError::Store(s) => s.kind(),
            SessionError::NotFound(_)
            | SessionError::Exists(_)
            | SessionError::DuplicateKey { .. } => ErrorKind::BadInput,
            SessionError::Invalid { .. } => ErrorKind::Io,
        }
    }
}

impl JournalError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            JournalError::Store(s) => s.kind(),
            JournalError::Session(s) => s.kind(),
            JournalError::Unsafe { .. } => ErrorKind::State,
            JournalError::DuplicateKey { .. } => ErrorKind::BadInput,
            JournalError::Io { .. } | JournalError::Invalid { .. } => ErrorKind::Io,
        }
    }
}

impl EngineError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::Store(s) => s.kind(),
            EngineError::Session(s) => s.kind(),
            EngineError::Manifest(m) => m.kind(),
            EngineError::Snapshot(s) => s.kind(),
            EngineError::Journal(j) => j.kind(),
            EngineError::Diff(d) => d.kind(),
            EngineError::Patch(p) => p.kind(),
            EngineError::PathLimit(_)
            | EngineError::VerifyPathLimit { .. }
            | EngineError::CheckoutPathLimit { .. }
            | EngineError::Unsafe { .. }
            | EngineError::CheckoutInPlace
            | EngineError::ManifestNotInSnapshot { .. }
            | EngineError::NotApart { .. }
            | EngineError::BadDirectory { .. }
            | EngineError::TooManyPatches { .. }
            | EngineError::PatchInputMismatch { .. }
            | EngineError::UnknownObligation { .. }
            | EngineError::LeftOut { .. }
            | EngineError::DirNotReproduced { .. }
            | EngineError::FileUnderFile { .. }
            | EngineError::OverLimit { .. }
            | EngineError::SnapshotDocument(_)
            | EngineError::SavedFilesInvalid { .. }
            | EngineError::NoCheckoutToRestore { .. } => ErrorKind::BadInput,
            EngineError::NotOpen { .. }
            | EngineError::RecoveryPending { .. }
            | EngineError::NotVerified { .. }
            | EngineError::NothingToRestore { .. }
            | EngineError::RebaseRefused { .. }
            | EngineError::StaleCheckout { .. }
            | EngineError::PulledPastCheckout { .. }
            | EngineError::NoVerification { .. } => ErrorKind::State,
            EngineError::SessionMoved { .. } => ErrorKind::Moved,
            EngineError::Conflict { .. } => ErrorKind::Conflict,
            EngineError::Materialize(_)
            | EngineError::Ingest { .. }
            | EngineError::Io { .. }
            | EngineError::Interrupted(_)
            | EngineError::StateWithoutManifest { .. } => ErrorKind::Io,
        }
    }
}

impl SessionAccessError {
    /// See [`ErrorKind`].
    pub fn kind(&self) -> ErrorKind {
        match self {
            SessionAccessError::Store(s) => s.kind(),
            SessionAccessError::Session(s) => s.kind(),
            SessionAccessError::Manifest(m) => m.kind(),
            SessionAccessError::NotOpen { .. } | SessionAccessError::RecoveryPending { .. } => {
                ErrorKind::State
            }
            SessionAccessError::StateWithoutManifest { .. } => ErrorKind::Io,
        }
    }
}

impl ApplyError {
    /// See [`ErrorKind`]; the same kind as the [`EngineError`] it converts into.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ApplyError::Store(s) => s.kind(),
            ApplyError::Session(s) => s.kind(),
            ApplyError::Manifest(m) => m.kind(),
            ApplyError::Snapshot(s) => s.kind(),
            ApplyError::Journal(j) => j.kind(),
            ApplyError::Unsafe { .. } => ErrorKind::BadInput,
            ApplyError::NotOpen { .. }
            | ApplyError::RecoveryPending { .. }
            | ApplyError::NotVerified { .. } => ErrorKind::State,
            ApplyError::Conflict { .. } => ErrorKind::Conflict,
            ApplyError::StateWithoutManifest { .. } => ErrorKind::Io,
        }
    }
}

impl VerifyError {
    /// See [`ErrorKind`]; the same kind as the [`EngineError`] it converts into.
    pub fn kind(&self) -> ErrorKind {
        match self {
            VerifyError::Store(s) => s.kind(),
            VerifyError::Session(s) => s.kind(),
            VerifyError::Manifest(m) => m.kind(),
            VerifyError::Snapshot(s) => s.kind(),
            VerifyError::Diff(d) => d.kind(),
            VerifyError::NotOpen { .. } | VerifyError::RecoveryPending { .. } => ErrorKind::State,
            VerifyError::SessionMoved { .. } => ErrorKind::Moved,
            VerifyError::VerifyPathLimit { .. }
            | VerifyError::NotApart { .. }
            | VerifyError::BadDirectory { .. } => ErrorKind::BadInput,
            VerifyError::StateWithoutManifest { .. }
            | VerifyError::Interrupted(_)
            | VerifyError::Materialize(_)
            | VerifyError::Io { .. } => ErrorKind::Io,
        }
    }
}

impl PatchSessionError {
    /// See [`ErrorKind`]; the same kind as the [`EngineError`] it converts into.
    pub fn kind(&self) -> ErrorKind {
        use PatchSessionError as P;
        match self {
            P::Store(s) => s.kind(),
            P::Session(s) => s.kind(),
            P::Manifest(m) => m.kind(),
            P::Snapshot(s) => s.kind(),
            P::Diff(d) => d.kind(),
            P::Verify(v) => v.kind(),
            P::Patch(p) => p.kind(),
            P::NotOpen { .. }
            | P::RecoveryPending { .. }
            | P::StaleCheckout { .. }
            | P::PulledPastCheckout { .. } => ErrorKind::State,
            P::TooManyPatches { .. }
            | P::PatchInputMismatch { .. }
            | P::Unsafe { .. }
            | P::LeftOut { .. }
            | P::PathLimit(_)
            | P::DirNotReproduced { .. }
            | P::FileUnderFile { .. }
            | P::OverLimit { .. }
            | P::SnapshotDocument(_) => ErrorKind::BadInput,
            P::StateWithoutManifest { .. } | P::Ingest { .. } => ErrorKind::Io,
        }
    }
}

impl OpenError {
    /// See [`ErrorKind`]; the same kind as the [`EngineError`] it converts into.
    pub fn kind(&self) -> ErrorKind {
        match self {
            OpenError::Store(s) => s.kind(),
            OpenError::Session(s) => s.kind(),
            OpenError::Manifest(m) => m.kind(),
            OpenError::Snapshot(s) => s.kind(),
            OpenError::CheckoutInPlace
            | OpenError::ManifestNotInSnapshot { .. }
            | OpenError::NotApart { .. }
            | OpenError::BadDirectory { .. }
            | OpenError::CheckoutPathLimit { .. } => ErrorKind::BadInput,
            OpenError::Ingest { .. } | OpenError::Materialize(_) | OpenError::Io { .. } => {
                ErrorKind::Io
            }
        }
    }
}

impl AbortError {
    /// See [`ErrorKind`]; the same kind as the [`EngineError`] it converts into.
    pub fn kind(&self) -> ErrorKind {
        match self {
            AbortError::Store(s) => s.kind(),
            AbortError::Session(s) => s.kind(),
            AbortError::Manifest(m) => m.kind(),
            AbortError::Snapshot(s) => s.kind(),
            AbortError::Journal(j) => j.kind(),
            AbortError::NotOpen { .. } | AbortError::RecoveryPending { .. } => ErrorKind::State,
            AbortError::Conflict { .. } => ErrorKind::Conflict,
            AbortError::Unsafe { .. } => ErrorKind::BadInput,
            AbortError::StateWithoutManifest { .. }
            | AbortError::Ingest { .. }
            | AbortError::Io { .. } => ErrorKind::Io,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_one_exit_code_event_code_and_retryable() {
        let all = [
            (ErrorKind::BadInput, 2, "bad-input", false),
            (ErrorKind::State, 3, "session-not-open", false),
            (ErrorKind::Moved, 3, "session-moved", true),
            (ErrorKind::Locked, 3, "store-locked", true),
            (ErrorKind::Conflict, 3, "apply-conflict", false),
            (ErrorKind::Io, 4, "io-error", false),
        ];
        for (k, code, event, retry) in all {
            assert_eq!(
                (k.exit_code(), k.event_code(), k.retryable()),
                (code, event, retry)
            );
        }
    }

    /// `op` (the operation error's kind) and the kind of the `EngineError` it becomes are
    /// both `kind`.
    fn same<E: Into<EngineError>>(e: E, kind: ErrorKind, op: ErrorKind) {
        assert_eq!(op, kind);
        assert_eq!(e.into().kind(), kind);
    }

    macro_rules! check {
        ($kind:expr, $($e:expr),+ $(,)?) => {$({
            let e = $e;
            let k = e.kind();
            same(e, $kind, k);
        })+};
    }

    #[test]
    fn each_operation_error_has_the_kind_of_the_engine_error_it_becomes() {
        use crate::engine::{PathConflict, SessionAccessError as A};
        use crate::hash::Digest;
        use crate::session::Status;
        let id = || "s".to_owned();
        let path = || std::path::PathBuf::from("p");
        let io = || std::io::Error::other("x");
        let not_open = || A::NotOpen {
            id: id(),
            status: Status::Applied,
        };
        let no_manifest = || A::StateWithoutManifest {
            id: id(),
            path: path(),
        };
        let moved = || VerifyError::SessionMoved {
            id: id(),
            verified: Digest::EMPTY,
            now: Digest::EMPTY,
        };
        let conflict = || vec![PathConflict::new("a", crate::engine::ConflictKind::Missing)];
        check!(
            ErrorKind::State,
            ApplyError::from(not_open()),
            VerifyError::from(not_open()),
            PatchSessionError::from(not_open()),
            AbortError::from(not_open()),
            ApplyError::NotVerified {
                id: id(),
                reason: crate::engine::NotVerifiedReason::NeverVerified
            },
        );
        check!(
            ErrorKind::Io,
            ApplyError::from(no_manifest()),
            VerifyError::from(no_manifest()),
            PatchSessionError::from(no_manifest()),
            AbortError::from(no_manifest()),
            VerifyError::Interrupted("o".into()),
            VerifyError::Io {
                path: path(),
                source: io()
            },
            OpenError::Io {
                path: path(),
                source: io()
            },
            AbortError::Io {
                path: path(),
                source: io()
            },
        );
        check!(
            ErrorKind::Moved,
            moved(),
            PatchSessionError::Verify(moved()),
        );
        check!(
            ErrorKind::Conflict,
            ApplyError::Conflict {
                id: id(),
                conflicts: conflict()
            },
            AbortError::Conflict {
                id: id(),
                conflicts: conflict()
            },
        );
    }

    #[test]
    fn each_operation_refusal_of_input_is_bad_input_before_and_after_conversion() {
        use crate::hash::Digest;
        let path = || std::path::PathBuf::from("p");
        let id = || "s".to_owned();
        check!(
            ErrorKind::BadInput,
            ApplyError::Unsafe {
                path: "p".into(),
                reason: "r".into()
            },
            AbortError::Unsafe {
                path: "p".into(),
                reason: "r".into()
            },
            PatchSessionError::Unsafe {
                path: "p".into(),
                reason: "r".into()
            },
            PatchSessionError::TooManyPatches { id: id(), limit: 1 },
            PatchSessionError::PatchInputMismatch {
                id: id(),
                in_place: true
            },
            PatchSessionError::LeftOut { paths: Vec::new() },
            PatchSessionError::FileUnderFile {
                parent: "a".into(),
                path: "a/b".into()
            },
            PatchSessionError::OverLimit {
                what: "files",
                limit: 1,
                actual: 2
            },
            PatchSessionError::DirNotReproduced {
                dir: path(),
                written: Digest::EMPTY,
                expected: Digest::EMPTY,
            },
            OpenError::CheckoutInPlace,
            OpenError::from(crate::engine::DirectoryError::BadDirectory {
                dir: path(),
                reason: "r"
            }),
            VerifyError::from(crate::engine::DirectoryError::NotApart {
                dir: path(),
                option: "--workdir",
                workspace: path(),
                store: path(),
            }),
        );
    }

    #[test]
    fn store_corruption_is_io_wherever_it_is_nested() {
        let corrupt = || StoreError::Corrupt {
            path: "objects/ab/cd".into(),
            expected: crate::hash::Digest::EMPTY,
            actual: crate::hash::Digest::of(b"x"),
        };
        assert_eq!(corrupt().kind(), ErrorKind::Io);
        assert_eq!(EngineError::Store(corrupt()).kind(), ErrorKind::Io);
        assert_eq!(
            EngineError::Diff(DiffError::Store(corrupt())).kind(),
            ErrorKind::Io
        );
        assert_eq!(SessionError::Store(corrupt()).kind(), ErrorKind::Io);
        // Found reading a patch's pre-image (`patch`, `replay`, `rebase`).
        let read = || PatchError::Read {
            path: "f".into(),
            source: ReadError::from(DiffError::Store(corrupt())),
        };
        assert_eq!(read().kind(), ErrorKind::Io);
        assert_eq!(EngineError::Patch(read()).kind(), ErrorKind::Io);
        assert_eq!(PatchSessionError::Patch(read()).kind(), ErrorKind::Io);
        assert_eq!(
            crate::engine::ReplayStepError::from(PatchSessionError::Patch(read())).kind(),
            ErrorKind::Io
        );
        assert_eq!(
            EngineError::StateWithoutManifest {
                id: "s".into(),
                path: "sessions/s.state".into()
            }
            .kind(),
            ErrorKind::Io
        );
    }
}
