//! `genesis restore SESSION`: bring back the files `abort` saved.

use std::path::PathBuf;

use super::{CliError, Context};
use genesis::engine::RestoreOptions;

/// Arguments of `genesis restore`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The aborted session: its id, or a unique prefix of it (4 or more characters).
    session: String,
    /// Write the whole tree abort found (workspace or checkout) into this new or empty
    /// directory instead.
    #[arg(long, value_name = "DIR")]
    to: Option<PathBuf>,
    /// List what would be written; write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Restores; exit 3 naming each path that changed since the abort (nothing written then).
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let o = engine.restore(
        &session,
        &RestoreOptions {
            dry_run: args.dry_run,
            to: args.to.clone(),
        },
    )?;
    if ctx.json {
        super::print_json(&serde_json::json!({
            "session": session,
            "dry_run": args.dry_run,
            "target": o.target,
            "written": o.written,
            "unchanged": o.unchanged,
        }));
        return Ok(0);
    }
    let verb = if args.dry_run { "would write" } else { "wrote" };
    for p in &o.written {
        crate::outln!("{verb} {}", super::shown(p));
    }
    crate::outln!(
        "{verb} {} file(s) into {} ({} already there)",
        o.written.len(),
        o.target.display(),
        o.unchanged.len()
    );
    Ok(0)
}
