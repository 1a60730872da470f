//! `genesis gc`: remove store objects, snapshot documents and temporary files that nothing
//! references (the rules: [`genesis::gc`]).

use super::{CliError, Context};
use genesis::gc::{Expire, GcOptions, GcOutcome, RemovedKind};

/// Arguments of `genesis gc`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// List what would be removed (paths and bytes on disk); remove nothing.
    #[arg(long)]
    dry_run: bool,
    /// Remove only unreferenced files older than this many seconds, or every one (`now`).
    #[arg(long, value_name = "SECONDS|now", default_value = "1209600")]
    prune: Expire,
}

impl From<genesis::gc::GcError> for CliError {
    fn from(e: genesis::gc::GcError) -> Self {
        CliError::from_source(e.kind(), e)
    }
}

fn kind_name(k: RemovedKind) -> &'static str {
    match k {
        RemovedKind::StatCache => "stat_cache",
        RemovedKind::Snapshot => "snapshot",
        RemovedKind::ExecutableBits => "executable_bits",
        RemovedKind::Object => "object",
        RemovedKind::Temporary => "temporary",
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Human output: with `--dry-run` one line per file (`would remove PATH (N bytes)`); then the
/// count and bytes, and what was kept.
fn print_human(out: &GcOutcome) {
    if out.dry_run {
        for r in &out.removed {
            crate::outln!(
                "would remove {} ({})",
                r.path.display(),
                plural(r.bytes as usize, "byte", "bytes")
            );
        }
    }
    let files = plural(out.removed.len(), "file", "files");
    let bytes = plural(out.bytes as usize, "byte", "bytes");
    if out.removed.is_empty() {
        crate::outln!("nothing to remove");
    } else if out.dry_run {
        crate::outln!("would remove {files}, {bytes} (dry run: nothing removed)");
    } else {
        crate::outln!("removed {files}, {bytes} freed");
    }
    let kept = plural(out.kept_objects, "object", "objects");
    if out.kept_recent == 0 {
        crate::outln!("kept {kept}");
    } else {
        crate::outln!(
            "kept {kept}, {} of them unreferenced but younger than --prune ({} s)",
            out.kept_recent,
            out.expire_s
        );
    }
}

/// Runs gc (after finishing interrupted applies, as every command does). `--json`:
/// `{"dry_run", "prune_s", "removed": [{"path", "kind", "bytes"}], "count", "bytes",
/// "kept_objects", "kept_recent"}`.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let opts = GcOptions {
        expire: args.prune,
        dry_run: args.dry_run,
        lock_wait: ctx.wait(),
    };
    let out = genesis::gc::gc(engine.store(), &opts)?;
    if ctx.json {
        super::print_json(&serde_json::json!({
            "dry_run": out.dry_run,
            "prune_s": out.expire_s,
            "removed": out.removed.iter().map(|r| serde_json::json!({
                "path": r.path, "kind": kind_name(r.kind), "bytes": r.bytes,
            })).collect::<Vec<_>>(),
            "count": out.removed.len(),
            "bytes": out.bytes,
            "kept_objects": out.kept_objects,
            "kept_recent": out.kept_recent,
        }));
    } else {
        print_human(&out);
    }
    Ok(0)
}
