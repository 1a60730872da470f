//! The input of each tool of `genesis mcp`, as Rust types: the tool's JSON Schema is derived
//! from the type (schemars, JSON Schema 2020-12, as rmcp derives it), and a call's arguments
//! are read into it strictly (unknown members refused, `deny_unknown_fields`), so a schema and
//! what the server accepts cannot drift apart.
//!
//! Paths are relative to the workspace root (or absolute inside it); session ids are full ids
//! or unique prefixes of 4 or more characters, as on the command line.

use schemars::JsonSchema;
use serde::Deserialize;

/// `snapshot`: the snapshot document of a directory.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// The directory to snapshot, inside the workspace. Default: the workspace root.
    pub dir: Option<String>,
    /// Never write the store: a pure hash of the tree (the CLI's `--no-store`). Default:
    /// false, as `genesis --workspace ROOT snapshot DIR` stores into the workspace's store.
    #[serde(default)]
    pub no_store: bool,
}

/// `diff`: the differences between two trees, or a session's change.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The old tree: a directory inside the workspace, or a snapshot identity (or unique prefix
    /// of 4+ hex digits) in the store; or, without `b`, a session id (its base..current).
    pub a: String,
    /// The new tree, likewise.
    pub b: Option<String>,
    /// Only the changes at these paths or under them (directories), workspace-relative and
    /// literal (no patterns), normalised as git pathspecs (`./src`, `src/` are `src`; `.` is
    /// the whole workspace); a path leaving the workspace, an empty path or a pattern is bad
    /// input. Default: every change.
    pub paths: Option<Vec<String>>,
    /// Leave the diff text out (`diff: null`): the changed files and the totals only.
    /// Default: false.
    #[serde(default)]
    pub stat: bool,
}

/// `check`: does a directory hash to an expected snapshot.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckArgs {
    /// The tree to check: a directory inside the workspace, or a stored snapshot identity (or
    /// unique prefix of 4+ hex digits). Default: the workspace root.
    pub dir: Option<String>,
    /// The expected snapshot identity (64 hex digits, or a unique prefix of 4+ of a stored
    /// snapshot).
    pub expect: String,
}

/// `open`: start a session on the workspace as it is now.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// The session id ([A-Za-z0-9_-], 1 to 64 characters). Default: a fresh UUIDv7.
    pub session: Option<String>,
    /// The manifest: only `genesis.json`, the workspace's own (anything else is refused as
    /// bad input; the CLI's `genesis open --manifest` takes another). Default: genesis.json.
    pub manifest: Option<String>,
    /// The agent edits the workspace itself (`patch` without `diff`/`from_dir` records it,
    /// `abort` restores the base). Default: false.
    #[serde(default)]
    pub in_place: bool,
}

/// `patch`: record a change in a session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
    /// A git-style unified diff (the text itself).
    pub diff: Option<String>,
    /// A directory inside the workspace whose state becomes the session's new state (Genesis
    /// writes the diff). Give `diff` or `from_dir`, not both; with neither, an in-place
    /// session records the workspace.
    pub from_dir: Option<String>,
}

/// A tool that takes only a session: `verify`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
}

/// `apply`: write a verified session into the workspace.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
    /// List what would change; write nothing. Default: false.
    #[serde(default)]
    pub dry_run: bool,
    /// Require the whole workspace to equal the base snapshot, not only the changed paths.
    /// Default: false.
    #[serde(default)]
    pub strict: bool,
}

/// `abort`: throw a session away.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbortArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
    /// List what abort would change and save; change nothing. Default: false.
    #[serde(default)]
    pub dry_run: bool,
}

/// `status`: one session, or every session.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// The session id, or a unique prefix of it (4+ characters). Default: list every session.
    pub session: Option<String>,
}

/// `rebase`: move a session onto the workspace as it is now.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RebaseArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
    /// Record overlapping edits with conflict markers (`<<<<<<< session`, `=======`,
    /// `>>>>>>> workspace`) instead of recording nothing. Default: false.
    #[serde(default)]
    pub markers: bool,
}

/// `log`: the output of the obligations of a session's last verification.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// The session id, or a unique prefix of it (4+ characters).
    pub session: String,
    /// Only this obligation (its id in the manifest). Default: every obligation.
    pub obligation: Option<String>,
}
