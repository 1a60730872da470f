//! `genesis replay SESSION`: re-derive every `after_snapshot` from the stored patch texts.

use super::{CliError, Context};
use genesis::engine::ReplayOptions;

/// Arguments of `genesis replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
}

/// Exit 0 when every patch reproduces its recorded snapshot, 1 when one does not.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let out = engine.replay(&session, &ReplayOptions::default())?;
    // A step that could not read the store (a corrupt or missing object) is not a finding
    // about the patch: the command fails with that error's kind (corruption: exit 4).
    let unreadable = out.steps.iter().find_map(|s| {
        let e = s.error.as_ref()?;
        (e.kind() != genesis::ErrorKind::BadInput).then_some((s, e))
    });
    if let Some((s, e)) = unreadable {
        return Err(CliError {
            source: Some(Box::new(e.clone())),
            ..CliError::of(e.kind(), format!("patch {}: {e}", s.index + 1))
        });
    }
    let all = out.matches();
    let steps = out.steps;
    if ctx.json {
        let rows: Vec<_> = steps
            .iter()
            .map(|s| {
                serde_json::json!({
                    "index": s.index,
                    "recorded": s.recorded,
                    "replayed": s.replayed,
                    "modes_match": s.modes_match,
                    "match": s.matches(),
                    "error": s.error.as_ref().map(|e| e.to_string()),
                })
            })
            .collect();
        super::print_json(&serde_json::json!({ "match": all, "patches": rows }));
    } else {
        for s in &steps {
            match (&s.error, s.matches()) {
                (Some(e), _) => crate::outln!("patch {}: does not apply: {e}", s.index + 1),
                (None, true) => crate::outln!("patch {}: ok {}", s.index + 1, s.recorded),
                (None, false) => crate::outln!(
                    "patch {}: MISMATCH recorded {} replayed {}{}",
                    s.index + 1,
                    s.recorded,
                    s.replayed.map(|d| d.to_string()).unwrap_or_default(),
                    if s.modes_match {
                        ""
                    } else {
                        " (executable bits differ)"
                    }
                ),
            }
        }
        crate::outln!(
            "{}: {} patch(es) replayed",
            if all { "ok" } else { "MISMATCH" },
            steps.len()
        );
    }
    Ok(if all { 0 } else { 1 })
}
