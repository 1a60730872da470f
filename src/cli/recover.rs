//! `genesis recover`: finish interrupted changes from their journals.

use super::{CliError, Context};

/// Arguments of `genesis recover`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Finishes every journaled change; exit 0 when none is left.
pub fn run(ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    let (engine, recovered) = super::engine_recovered(ctx, false)?;
    let mut out = engine.recover_with(&genesis::engine::RecoverOptions::default())?;
    let mut finished = recovered.finished;
    finished.append(&mut out.finished);
    let mut rescued = recovered.rescued;
    rescued.append(&mut out.rescued);
    if ctx.json {
        super::print_json(&serde_json::json!({
            "finished": finished,
            "temps_removed": out.temps_removed,
            "rescued": rescued.iter().map(|(s, r)| serde_json::json!({
                "session": s, "path": r.path, "blob": r.blob, "bytes": r.bytes,
            })).collect::<Vec<_>>(),
        }));
    } else if finished.is_empty() {
        crate::outln!("nothing to recover");
    } else {
        for (s, r) in &rescued {
            crate::outln!(
                "saved {} (blob {}): it held neither its old nor its new content; `genesis restore {s}` brings it back",
                r.path,
                r.blob
            );
        }
        for s in &finished {
            crate::outln!("finished session {s}");
        }
    }
    Ok(0)
}
