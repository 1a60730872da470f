//! `genesis snapshot [DIR]`: print the snapshot document of a tree.

use std::path::PathBuf;

use genesis::snapshot::snapshot_dir;

use super::{CliError, Context};

/// Arguments of `genesis snapshot`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory to snapshot. Default: the workspace root.
    dir: Option<PathBuf>,
    /// Print only the identity (64 hex characters; as JSON, `{"identity": …}`).
    #[arg(long)]
    identity: bool,
    /// Never write a store: a pure hash of the tree (a session's checkout is still judged with
    /// the tracked files its session recorded, read from the store when there is one).
    #[arg(long)]
    no_store: bool,
}

/// Warns on standard error about each group of names that differ only by case or Unicode
/// normalisation ([`genesis::Snapshot::fold_collisions`]), names quoted as git does
/// (core.quotePath), so that the spellings look different.
pub fn report_collisions(collisions: &[Vec<String>]) {
    for group in collisions {
        let names: Vec<String> = group
            .iter()
            .map(|n| genesis::diff::quote_path("", n))
            .collect();
        eprintln!(
            "genesis: warning: {} differ only by case or Unicode normalisation; this snapshot cannot be checked out on a case-insensitive or normalising file system (macOS, Windows)",
            names.join(" and ")
        );
    }
}

/// Snapshots DIR; stores blobs and the document when the workspace has a store.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let ws = ctx.workspace_for(args.dir.as_deref());
    let dir = args.dir.clone().unwrap_or_else(|| ws.root().to_path_buf());
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "{}: not a directory",
            dir.display()
        )));
    }
    let store = if args.no_store {
        None
    } else if ctx.store_arg.is_some() {
        // A store named explicitly must exist.
        Some(ws.store()?)
    } else {
        ws.existing_store()?
    };
    // DIR is a tree of its own here, but never the store or a .git directory of the
    // workspace it lies in.
    if let Some(found) = &ctx.discovered
        && let Some(what) =
            genesis::workspace::Workspace::new(found.clone(), ctx.store_arg.clone()).reserved(&dir)
    {
        return Err(CliError::usage(format!(
            "{}: inside {what}, which is no tree of the workspace",
            dir.display()
        )));
    }
    let mut opts = super::operand_options(ctx, &ws, &dir)?;
    if args.no_store {
        opts.store_dir = None;
    }
    // Writing into the store holds its lock, as every writer does, so `genesis gc` never
    // removes an object this snapshot reuses (or its stat cache trusts) meanwhile.
    let _lock = match &store {
        Some(s) => Some(s.lock(ctx.wait())?),
        None => None,
    };
    let pb = super::verify::spinner(format!("snapshotting {}", dir.display()));
    let result = match &store {
        Some(s) => s
            .snapshot_into(&dir, &opts)
            .map(|(o, n)| (o, Some(n)))
            .map_err(CliError::from),
        None => snapshot_dir(&dir, &opts)
            .map(|o| (o, None))
            .map_err(CliError::from),
    };
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let (outcome, blobs_added) = result?;
    ctx.report_skipped(
        store.as_ref().map(genesis::store::Store::path),
        &dir,
        &outcome.skipped,
    );
    let snap = &outcome.snapshot;
    // Looked for only when there is someone to warn (not under --quiet).
    if ctx.chatty() {
        report_collisions(&snap.fold_collisions());
    }
    if ctx.json && args.identity {
        // The identity alone, still a JSON document (`check --expect` takes it).
        super::print_json(&serde_json::json!({ "identity": snap.identity() }));
    } else if ctx.json {
        super::print_json(&genesis::report::snapshot_json(&outcome, blobs_added));
    } else if args.identity {
        crate::outln!("{}", snap.identity());
    } else {
        crate::out!("{}", snap.to_json_pretty_with(&outcome.executable));
    }
    // The process ends with this command and the system takes its memory back whole: the
    // snapshot (a few allocations per file, 2 ms of frees at 100,000 files) is not given back
    // piece by piece first, as git leaves its index (UNLEAK).
    std::mem::forget(outcome);
    Ok(0)
}
