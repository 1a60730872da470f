//! `genesis check [DIR|SNAPSHOT] --expect IDENTITY|SNAPSHOT.json|-`: CI reproducibility.

use std::path::PathBuf;

use genesis::check::{CheckOutcome, Expected, check};
use genesis::diff::Operand;
use genesis::{Digest, Snapshot, Tree};

use super::{CliError, Context};

/// Arguments of `genesis check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tree to check: a directory, or a stored snapshot (its identity or a unique prefix
    /// of 4 or more hex digits; a name that is both is refused, write ./NAME for the
    /// directory). Default: the workspace root.
    #[arg(value_name = "DIR|SNAPSHOT")]
    dir: Option<String>,
    /// The expected snapshot: an identity (64 hex characters, or a unique prefix of 4 or more
    /// of a snapshot in the store), a file holding a snapshot document or the JSON output of
    /// `genesis snapshot` (with or without --identity), or `-` for such a document on
    /// standard input.
    #[arg(
        long,
        value_name = "IDENTITY|FILE|-",
        required_unless_present = "accepted",
        conflicts_with = "accepted"
    )]
    expect: Option<String>,
    /// Instead of a tree: is an intact acceptance record of this snapshot (64 hex characters,
    /// or a unique prefix of a snapshot in the store) on the --remote store? Exit 0 yes, 1 no.
    #[arg(long, value_name = "SNAPSHOT")]
    accepted: Option<String>,
    /// With --accepted: only a record whose obligations were read from this manifest blob
    /// (the record's "manifest", 64 hex characters).
    #[arg(long, value_name = "HASH", requires = "accepted")]
    obligations: Option<String>,
    /// The shared store --accepted asks (else GENESIS_REMOTE; feature `remote`).
    #[arg(
        long,
        value_name = "URL",
        env = "GENESIS_REMOTE",
        hide_env_values = true
    )]
    remote: Option<String>,
}

/// `check --accepted`: exit 0 when an intact record is on the remote, 1 when not.
#[cfg(feature = "remote")]
fn run_accepted(ctx: &Context, args: &Args, snapshot: &str) -> Result<u8, CliError> {
    let remote = super::remote::open(&super::remote::RemoteArgs {
        remote: args.remote.clone(),
        concurrency: 1,
    })?;
    let snapshot = match snapshot.parse::<Digest>() {
        Ok(d) => d,
        Err(_) => {
            if let Some(e) = super::ids::too_short_snapshot_prefix("--accepted", snapshot) {
                return Err(e);
            }
            super::ids::snapshot(&ctx.store()?, snapshot)?
        }
    };
    let obligations = match &args.obligations {
        Some(h) => Some(
            h.parse::<Digest>()
                .map_err(|e| CliError::usage(format!("--obligations {h:?}: {e}")))?,
        ),
        None => None,
    };
    let out = genesis::remote::check_accepted(&remote, &snapshot, obligations.as_ref())
        .map_err(super::remote::remote_err)?;
    if ctx.json {
        let mut v = serde_json::to_value(&out).expect("serialisable");
        v["accepted"] = serde_json::Value::Bool(out.accepted());
        super::print_json(&v);
    } else {
        for r in &out.records {
            let env = r
                .environment
                .as_ref()
                .map(|e| format!("{} {}, genesis {}", e.os, e.arch, e.genesis))
                .unwrap_or_else(|| "environment unknown".into());
            match &r.problem {
                None => crate::outln!(
                    "accepted: snapshot {} acceptance {} (manifest {}; {env})",
                    out.snapshot,
                    r.acceptance,
                    r.manifest
                ),
                Some(p) => crate::outln!("not intact: acceptance {}: {p}", r.acceptance),
            }
        }
        if !out.accepted() {
            crate::outln!(
                "not accepted: no intact acceptance record of snapshot {}{} on {}",
                out.snapshot,
                obligations
                    .map(|o| format!(" with obligations {o}"))
                    .unwrap_or_default(),
                out.remote
            );
        }
    }
    Ok(if out.accepted() { 0 } else { 1 })
}

/// Without the `remote` feature: exit 2, saying so.
#[cfg(not(feature = "remote"))]
fn run_accepted(_ctx: &Context, _args: &Args, _snapshot: &str) -> Result<u8, CliError> {
    Err(super::remote::unavailable("`genesis check --accepted`"))
}

/// What `--expect` named: the expected snapshot, its tree when it can be listed, and else why
/// the differing paths cannot be listed.
struct ExpectedArg {
    expected: Expected,
    tree: Option<Tree>,
    no_tree_reason: Option<String>,
}

/// The expected identity `d`, with its tree when the workspace's store holds it.
fn by_identity(ctx: &Context, d: Digest) -> ExpectedArg {
    let store = ctx.workspace().existing_store().ok().flatten();
    let tree = store
        .as_ref()
        .filter(|st| st.has_snapshot(&d))
        .and_then(|st| Tree::from_store(st, &d).ok());
    let no_tree_reason = tree.is_none().then(|| {
        format!(
            "snapshot {d} is not in {}; give its document to --expect (`genesis snapshot --json > FILE` where it was taken) to list the differing paths",
            if store.is_some() { "the store" } else { "a store (there is none here)" }
        )
    });
    ExpectedArg {
        expected: Expected::Identity(d),
        tree,
        no_tree_reason,
    }
}

/// Reads an expected snapshot from `bytes` (named `name` in errors): a snapshot document
/// (`genesis/workspace-snapshot-v0.1`) or a v0.2 tree listing (`genesis/tree-v0.2` with an
/// `identity`: what `genesis snapshot` prints past 4096 files), the output of `genesis snapshot --json` (its
/// `snapshot` member is the document; its `identity` must be the document's), or that of
/// `genesis snapshot --json --identity` (`{"identity": …}`).
fn from_document(ctx: &Context, name: &str, bytes: &[u8]) -> Result<ExpectedArg, CliError> {
    let value = genesis::json::value_from_slice(bytes).map_err(|e| match e {
        genesis::json::JsonError::Duplicate(d) => CliError::usage(format!("{name}: {d}")),
        e => CliError::usage(format!(
            "{name}: not a snapshot document: invalid JSON: {e}"
        )),
    })?;
    let document = if value.get("schema").is_some() {
        Some(bytes.to_vec())
    } else {
        value
            .get("snapshot")
            .filter(|s| s.is_object())
            .map(|inner| serde_json::to_vec(inner).expect("serialisable"))
    };
    let Some(document) = document else {
        return match value.get("identity").and_then(serde_json::Value::as_str) {
            Some(id) if value.as_object().is_some_and(|o| o.len() == 1) => {
                let d = id
                    .parse::<Digest>()
                    .map_err(|e| CliError::usage(format!("{name}: /identity: {e}")))?;
                Ok(by_identity(ctx, d))
            }
            _ => Err(CliError::usage(format!(
                "{name}: not a snapshot document (no \"schema\" member), nor the output of `genesis snapshot --json` (no \"snapshot\" member) or of `genesis snapshot --json --identity` (only \"identity\")"
            ))),
        };
    };
    let (snap, executable) = Snapshot::from_listing_json(&document)
        .map_err(|e| CliError::usage(format!("{name}: {e}")))?;
    if let Some(outer) = value
        .get("identity")
        .filter(|_| value.get("schema").is_none())
        && outer.as_str() != Some(snap.identity().to_string().as_str())
    {
        return Err(CliError::usage(format!(
            "{name}: /identity {outer} is not the identity of the snapshot under /snapshot ({})",
            snap.identity()
        )));
    }
    Ok(ExpectedArg {
        expected: Expected::Snapshot(snap.clone()),
        tree: Some(Tree::from_snapshot_with(snap, executable)),
        no_tree_reason: None,
    })
}

fn parse_expected(ctx: &Context, s: &str) -> Result<ExpectedArg, CliError> {
    if s == "-" {
        use std::io::{IsTerminal, Read};
        if std::io::stdin().is_terminal() && ctx.chatty() {
            eprintln!(
                "genesis: waiting for a snapshot document on standard input (paste it, then press Ctrl-D at the start of a line; Ctrl-C cancels)"
            );
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::io(format!("--expect -: standard input: {e}")))?;
        return from_document(ctx, "standard input", &bytes);
    }
    let is_file = std::path::Path::new(s).exists();
    if is_file {
        let store = ctx.workspace().existing_store().ok().flatten();
        super::ids::refuse_path_and_snapshot("--expect", s, store.as_ref())?;
    }
    // Hex digits in either case (a full identity too).
    let lower = s.to_ascii_lowercase();
    let s = if !is_file && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        lower.as_str()
    } else {
        s
    };
    if !is_file && let Some(e) = super::ids::too_short_snapshot_prefix("--expect", s) {
        return Err(e);
    }
    if !is_file && s.len() < 64 && super::ids::is_snapshot_prefix(s) {
        // A prefix names a stored snapshot: the store lists the differing paths too.
        let store = ctx.store()?;
        let d = super::ids::snapshot(&store, s)?;
        let tree = Tree::from_store(&store, &d)?;
        return Ok(ExpectedArg {
            expected: Expected::Identity(d),
            tree: Some(tree),
            no_tree_reason: None,
        });
    }
    if let Ok(d) = s.parse::<Digest>()
        && !is_file
    {
        // If the store knows the snapshot, the differing paths can be listed.
        return Ok(by_identity(ctx, d));
    }
    if std::path::Path::new(s).is_dir() {
        return Err(CliError::usage(format!(
            "--expect {s:?}: a directory; give an identity, a snapshot document file or -"
        )));
    }
    let bytes = std::fs::read(s).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CliError::usage(format!(
                "--expect {s:?}: neither a snapshot identity (64 hex digits, or a unique prefix of 4 or more) nor an existing file"
            ))
        } else {
            CliError::io(format!("{s}: {e}"))
        }
    })?;
    from_document(ctx, s, &bytes)
}

/// Exit 0 when DIR hashes to the expected identity, 1 (with the differing paths) when not.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let expect = match (&args.accepted, &args.expect) {
        (Some(snapshot), _) => return run_accepted(ctx, args, snapshot),
        (None, Some(e)) => e,
        (None, None) => return Err(CliError::usage("give --expect or --accepted")),
    };
    let actual = actual_operand(ctx, args.dir.as_deref())?;
    if let Actual::Stored(store, id) = &actual
        && let Some(e) = stored_expected(store, expect)
    {
        // Both stored: only the nodes whose identities differ are read.
        let outcome = genesis::check::check_stored(store, id, &e)?;
        let shown = format!("snapshot {}", args.dir.as_deref().unwrap_or_default());
        return Ok(report(ctx, &outcome, &shown, None));
    }
    let ExpectedArg {
        expected,
        tree: expected_tree,
        no_tree_reason,
    } = parse_expected(ctx, expect)?;
    let (tree, shown) = match actual {
        Actual::Dir(dir, opts) => {
            // A path the expected snapshot holds is compared by content, not dropped because
            // only the expected side's index exempted it from .gitignore (see `Tree::compare`).
            let tree = match &expected_tree {
                Some(t) => {
                    Tree::compare(Operand::Dir(dir.clone(), opts), Operand::Tree(t.clone()))?.0
                }
                None => Tree::from_dir(&dir, &opts)?,
            };
            (tree, dir.display().to_string())
        }
        Actual::Stored(store, id) => {
            let shown = format!("snapshot {}", args.dir.as_deref().unwrap_or_default());
            let tree = match &expected_tree {
                Some(t) => Tree::compare(Operand::Stored(store, id), Operand::Tree(t.clone()))?.0,
                None => Tree::from_store(&store, &id)?,
            };
            (tree, shown)
        }
    };
    let outcome = check(&tree, &expected, expected_tree.as_ref());
    Ok(report(ctx, &outcome, &shown, no_tree_reason.as_deref()))
}

/// The stored snapshot `expect` names when it is an identity or unique prefix of one in
/// `store` and not an existing path (else [`parse_expected`] reads it, with its errors).
fn stored_expected(store: &genesis::store::Store, expect: &str) -> Option<Digest> {
    let hex = expect.to_ascii_lowercase();
    (!std::path::Path::new(expect).exists() && super::ids::is_snapshot_prefix(&hex))
        .then(|| store.resolve_snapshot(&hex).ok())
        .flatten()
}

/// What `check` compares with the expected snapshot.
enum Actual {
    Dir(PathBuf, genesis::SnapshotOptions),
    Stored(genesis::store::Store, Digest),
}

/// The tree `check`'s operand names: an existing directory (default the workspace root), else
/// a stored snapshot identity or unique prefix (as `diff` resolves its operands).
fn actual_operand(ctx: &Context, given: Option<&str>) -> Result<Actual, CliError> {
    let ws = ctx.workspace_for(given.map(std::path::Path::new));
    let dir = match given {
        None => ws.root().to_path_buf(),
        Some(s) if std::path::Path::new(s).is_dir() => {
            // The store found from here (as `diff` asks), not one under the directory.
            let store = ctx.workspace().existing_store().ok().flatten();
            super::ids::refuse_path_and_snapshot("check operand", s, store.as_ref())?;
            PathBuf::from(s)
        }
        Some(s) => {
            if let Some(e) = super::ids::too_short_snapshot_prefix("check operand", s) {
                return Err(e);
            }
            if !super::ids::is_snapshot_prefix(s) {
                return Err(CliError::usage(format!(
                    "{s}: not a directory and not a snapshot identity"
                )));
            }
            let store = ctx.store()?;
            let id = super::ids::snapshot(&store, &s.to_ascii_lowercase())?;
            return Ok(Actual::Stored(store, id));
        }
    };
    let opts = super::operand_options(ctx, &ws, &dir)?;
    Ok(Actual::Dir(dir, opts))
}

/// Prints `outcome` (`shown` names the checked tree) and gives the exit status: 0 when it
/// matches, 1 when not.
fn report(ctx: &Context, outcome: &CheckOutcome, shown: &str, no_tree_reason: Option<&str>) -> u8 {
    if ctx.json {
        super::print_json(&genesis::report::check_json(outcome, no_tree_reason));
    } else if outcome.matches() {
        crate::outln!("ok: {shown} matches {}", outcome.actual);
    } else {
        crate::outln!(
            "mismatch: {shown} hashes to {}, expected {}",
            outcome.actual,
            outcome.expected
        );
        for c in &outcome.differences {
            crate::outln!(
                "{}\t{}",
                c.status.letter(),
                genesis::diff::quote_path("", c.path.as_str())
            );
        }
        if let Some(why) = no_tree_reason {
            crate::outln!("(cannot list the differing paths: {why})");
        }
    }
    if outcome.matches() { 0 } else { 1 }
}
