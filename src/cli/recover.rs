//! `genesis recover`: finish interrupted changes from their journals.

use super::{CliError, Context};

/// Arguments of `genesis recover`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Finishes every journaled change; exit 0 when none is left.
pub fn run(ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let mut out = engine.recover()?;
    let mut finished = engine.recovered().finished.clone();
    finished.append(&mut out.finished);
    if ctx.json {
        super::print_json(&serde_json::json!({
            "finished": finished,
            "temps_removed": out.temps_removed,
        }));
    } else if finished.is_empty() {
        crate::outln!("nothing to recover");
    } else {
        for s in &finished {
            crate::outln!("finished session {s}");
        }
    }
    Ok(0)
}
