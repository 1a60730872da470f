//! `genesis pull ID... --remote URL`: bring sessions or snapshots into the local store.

use super::remote::RemoteArgs;
use super::{CliError, Context};

/// Arguments of `genesis pull`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Session ids or snapshot identities (64 hex characters) on the remote.
    #[arg(value_name = "ID", required = true)]
    ids: Vec<String>,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Pulls; exit 0 when everything is in the local store.
#[cfg(feature = "remote")]
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let remote = super::remote::open(&args.remote)?;
    // On a machine with no store yet, the pull makes it (in the workspace: --workspace, -C,
    // the one found above, else the current directory).
    let store = ctx
        .workspace()
        .init_store()
        .map_err(|e| CliError::from_source(e.kind(), e))?;
    let opts = genesis::remote::PullOptions {
        concurrency: usize::from(args.remote.concurrency),
        lock_wait: ctx.wait(),
    };
    let out = genesis::remote::pull(&store, &remote, &args.ids, &opts)
        .map_err(super::remote::remote_err)?;
    if ctx.json {
        super::print_json(&serde_json::to_value(&out).expect("serialisable"));
        return Ok(0);
    }
    for p in &out.pulled {
        let version = p
            .version
            .map(|v| format!(" version {v}"))
            .unwrap_or_default();
        crate::outln!(
            "pulled {} {}{version} ({} objects{})",
            p.kind,
            p.id,
            p.objects,
            if p.kind == "session" && !p.written {
                "; the local session was the same"
            } else {
                ""
            }
        );
    }
    crate::outln!(
        "{}: downloaded {} objects ({} bytes), {} already here",
        out.remote,
        out.downloaded,
        out.bytes,
        out.skipped
    );
    Ok(0)
}

/// Without the `remote` feature: exit 2, saying so.
#[cfg(not(feature = "remote"))]
pub fn run(_ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    Err(super::remote::unavailable("`genesis pull`"))
}
