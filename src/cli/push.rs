//! `genesis push [SESSION|SNAPSHOT]... --remote URL`: upload what reproduces each.

use super::remote::RemoteArgs;
use super::{CliError, Context};

/// Arguments of `genesis push`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Session ids or snapshot identities (or unique prefixes of 4 or more). Default: every
    /// session of the store.
    #[arg(value_name = "SESSION|SNAPSHOT")]
    ids: Vec<String>,
    #[command(flatten)]
    remote: RemoteArgs,
    /// Download every object the remote already lists and check its hash (default: compare
    /// listed sizes only); a damaged one is replaced.
    #[arg(long)]
    verify_remote: bool,
}

/// Pushes; exit 0 when everything is on the remote.
#[cfg(feature = "remote")]
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let remote = super::remote::open(&args.remote)?;
    let store = ctx.store()?;
    let opts = genesis::remote::PushOptions {
        concurrency: usize::from(args.remote.concurrency),
        verify_remote: args.verify_remote,
    };
    let out = genesis::remote::push(&store, &remote, &args.ids, &opts)
        .map_err(super::remote::remote_err)?;
    if ctx.json {
        super::print_json(&serde_json::to_value(&out).expect("serialisable"));
        return Ok(0);
    }
    for key in &out.repaired {
        eprintln!(
            "genesis: warning: remote object {key} was damaged; replaced with the local copy"
        );
    }
    for p in &out.pushed {
        let version = p
            .version
            .map(|v| format!(" version {v}"))
            .unwrap_or_default();
        crate::outln!(
            "pushed {} {}{version} ({} objects{})",
            p.kind,
            p.id,
            p.objects,
            if p.ref_written {
                ""
            } else {
                "; the remote had it"
            }
        );
    }
    crate::outln!(
        "{}: uploaded {} objects ({} bytes), {} already there; {} acceptance records indexed",
        out.remote,
        out.uploaded,
        out.bytes,
        out.skipped,
        out.acceptances
    );
    Ok(0)
}

/// Without the `remote` feature: exit 2, saying so.
#[cfg(not(feature = "remote"))]
pub fn run(_ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    Err(super::remote::unavailable("`genesis push`"))
}
