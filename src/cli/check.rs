//! `genesis check [DIR] --expect IDENTITY|SNAPSHOT.json`: CI reproducibility.

use std::path::PathBuf;

use genesis::check::{Expected, check};
use genesis::diff::Operand;
use genesis::{Digest, Snapshot, Tree};

use super::{CliError, Context};

/// Arguments of `genesis check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tree to check. Default: the workspace root.
    dir: Option<PathBuf>,
    /// The expected identity (64 hex characters, or a unique prefix of 4 or more of a snapshot
    /// in the store) or a snapshot document file.
    #[arg(long, value_name = "IDENTITY|FILE")]
    expect: String,
}

fn parse_expected(ctx: &Context, s: &str) -> Result<(Expected, Option<Tree>), CliError> {
    let is_file = std::path::Path::new(s).exists();
    if !is_file && let Some(e) = super::ids::too_short_snapshot_prefix("--expect", s) {
        return Err(e);
    }
    if !is_file && s.len() < 64 && super::ids::is_snapshot_prefix(s) {
        // A prefix names a stored snapshot: the store lists the differing paths too.
        let store = ctx.store()?;
        let d = super::ids::snapshot(&store, s)?;
        let tree = Tree::from_store(&store, &d)?;
        return Ok((Expected::Identity(d), Some(tree)));
    }
    if let Ok(d) = s.parse::<Digest>()
        && !std::path::Path::new(s).exists()
    {
        // If the store knows the snapshot, the differing paths can be listed.
        let tree = ctx
            .workspace()
            .existing_store()
            .ok()
            .flatten()
            .filter(|st| st.has_snapshot(&d))
            .and_then(|st| Tree::from_store(&st, &d).ok());
        return Ok((Expected::Identity(d), tree));
    }
    if std::path::Path::new(s).is_dir() {
        return Err(CliError::usage(format!(
            "--expect {s:?}: a directory; give an identity or a snapshot document file"
        )));
    }
    let bytes = std::fs::read(s).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CliError::usage(format!(
                "--expect {s:?}: neither a 64-character lowercase hex identity nor an existing file"
            ))
        } else {
            CliError::io(format!("{s}: {e}"))
        }
    })?;
    let snap = Snapshot::from_json(&bytes).map_err(|e| CliError::usage(format!("{s}: {e}")))?;
    Ok((
        Expected::Snapshot(snap.clone()),
        Some(Tree::from_snapshot(snap)),
    ))
}

/// Exit 0 when DIR hashes to the expected identity, 1 (with the differing paths) when not.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let (expected, expected_tree) = parse_expected(ctx, &args.expect)?;
    let ws = ctx.workspace_for(args.dir.as_deref());
    let dir = args.dir.clone().unwrap_or_else(|| ws.root().to_path_buf());
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "{}: not a directory",
            dir.display()
        )));
    }
    let opts = super::operand_options(ctx, &ws, &dir)?;
    // A path the expected snapshot holds is compared by content, not dropped because only
    // the expected side's index exempted it from .gitignore (see `Tree::compare`).
    let tree = match &expected_tree {
        Some(t) => Tree::compare(Operand::Dir(dir.clone(), opts), Operand::Tree(t.clone()))?.0,
        None => Tree::from_dir(&dir, &opts)?,
    };
    let outcome = check(&tree, &expected, expected_tree.as_ref());
    if ctx.json {
        super::print_json(&genesis::report::check_json(&outcome));
    } else if outcome.matches() {
        crate::outln!("ok: {} matches {}", dir.display(), outcome.actual);
    } else {
        crate::outln!(
            "mismatch: {} hashes to {}, expected {}",
            dir.display(),
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
        if expected_tree.is_none() {
            crate::outln!(
                "(the expected snapshot is not in the store; pass its document to --expect to list the differing paths)"
            );
        }
    }
    Ok(if outcome.matches() { 0 } else { 1 })
}
