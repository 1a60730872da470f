//! `genesis abort SESSION`: throw the session away.

use super::{CliError, Context};

/// Arguments of `genesis abort`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id.
    session: String,
}

/// Aborts; the workspace is not touched.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::events::with_events(ctx, &engine, &args.session, |events| {
        let session = engine.abort(&args.session)?;
        events.emit(genesis::events::EventKind::Aborted {
            reason: "aborted by request".into(),
        })?;
        Ok(session)
    })?;
    if ctx.json {
        super::print_json(&serde_json::json!({ "session": session }));
    } else {
        crate::outln!("aborted session {}", session.session);
    }
    Ok(0)
}
