#![warn(missing_docs)]
//! Genesis: a transactional workspace engine.
//!
//! An AI coding agent (or a person, or CI) works on a copy of a workspace; each change it
//! proposes is recorded as a patch between two content-addressed snapshots; the project's checks
//! run against the exact final snapshot; and only then is the change written to the workspace,
//! atomically, or thrown away.
//!
//! Modules, bottom up: [`hash`] (which bytes are hashed), [`path`] (validated workspace paths),
//! [`snapshot`] (tree → snapshot document), [`store`] (content-addressed store), [`diff`]
//! (git-style diffs between trees), [`check`] (does a tree match an expected snapshot),
//! [`json`] (strict JSON reading: duplicate member names refused everywhere), [`merge`]
//! (three-way file merge for `rebase`), [`schema`] (the
//! bundled JSON Schemas), [`workspace`] (a workspace with its store and
//! manifest), and on top [`engine`]: the session lifecycle, one module per operation
//! ([`Engine::open`], [`Engine::patch`], [`Engine::rebase`], [`Engine::verify`], [`Engine::apply`],
//! [`Engine::abort`], [`Engine::replay`], [`Engine::recover`]), each with its options and
//! outcome, and [`EngineError`]. The operations report their events through one observer
//! ([`events::Observer`]); one emitter ([`events::Emitter`]) renders them in a dialect for both
//! front ends, the CLI's `--events` and the BPT driver ([`bpt`]).
pub mod beneath;
pub mod bpt;
pub mod check;
pub mod clock;
pub mod diff;
pub(crate) mod dirwalk;
pub mod engine;
pub mod error_kind;
pub mod events;
pub(crate) mod fault;
pub mod fsmode;
pub mod gc;
pub mod hash;
pub mod journal;
pub mod json;
pub mod lifeline;
pub mod manifest;
pub mod materialize;
pub mod mcp;
pub mod membership;
pub mod merge;
pub mod obligation;
pub mod patch;
pub mod path;
pub mod regular;
#[cfg(feature = "remote")]
pub mod remote;
pub mod report;
pub mod schema;
pub mod session;
pub mod snapshot;
pub mod statcache;
pub mod store;
pub mod tracked;
pub mod tree;
pub mod workspace;

pub use diff::Tree;
pub use engine::{
    AbortOptions, AbortOutcome, ApplyOptions, ApplyOutcome, ConflictKind, Engine, EngineError,
    NoObserver, Observer, OpenOptions, OpenOutcome, PatchInput, PatchOutcome, PathConflict,
    RecoverOutcome, ReplayStep, ReplayStepError, RestoreOptions, RestoreOutcome, VerifyOptions,
    VerifyOutcome,
};
pub use error_kind::ErrorKind;
pub use hash::Digest;
pub use path::WorkspacePath;
pub use snapshot::{Snapshot, SnapshotFile, SnapshotOptions};
pub use store::Store;
pub use workspace::Workspace;
