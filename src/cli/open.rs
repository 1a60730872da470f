//! `genesis open`: start a session on the workspace as it is now.

use std::path::PathBuf;

use genesis::WorkspacePath;
use genesis::engine::OpenOptions;
use genesis::session::SessionId;

use super::{CliError, Context};

/// Arguments of `genesis open`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Session id ([A-Za-z0-9_-], 1 to 64 characters). Default: a fresh UUIDv7.
    #[arg(long)]
    session: Option<String>,
    /// Manifest path relative to the workspace root. Default: genesis.json.
    #[arg(long, value_name = "PATH")]
    manifest: Option<String>,
    /// Also write the base snapshot into DIR (new or empty, outside the workspace) for the
    /// agent to edit; record its edits with `genesis patch SESSION --from DIR`.
    #[arg(long, value_name = "DIR", conflicts_with = "in_place")]
    checkout: Option<PathBuf>,
    /// The agent edits the workspace itself: `genesis patch SESSION` records the workspace,
    /// `abort` restores the base, `apply` finalises.
    #[arg(long)]
    in_place: bool,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// Opens the session and prints its id.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let session = match &args.session {
        Some(s) => Some(SessionId::new(s).map_err(|e| CliError::usage(e.to_string()))?),
        None => None,
    };
    let manifest = match &args.manifest {
        Some(m) => {
            let mut m = m.as_str();
            while let Some(rest) = m.strip_prefix("./") {
                m = rest.trim_start_matches('/');
            }
            Some(WorkspacePath::new(m).map_err(|e| CliError::usage(format!("--manifest: {e}")))?)
        }
        None => None,
    };
    // A bad manifest is refused before anything (the store) is created.
    let manifest_rel = manifest
        .clone()
        .unwrap_or_else(|| WorkspacePath::new(genesis::manifest::DEFAULT_MANIFEST).expect("valid"));
    genesis::manifest::Manifest::load_in(ctx.workspace().root(), &manifest_rel)?;
    let engine = super::engine(ctx, true)?;
    // The id is known before the session is made, so its events can be numbered.
    let session = session.unwrap_or_else(SessionId::generate);
    let mut events = super::events::emitter(ctx, &engine, session.as_str())?;
    let pb = super::verify::spinner("snapshotting the workspace".into());
    let out = engine.open(
        &OpenOptions {
            session: Some(session),
            manifest,
            checkout: args.checkout.clone(),
            in_place: args.in_place,
        },
        &mut events,
    );
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    // A failed open emits nothing: there is no session to number its events.
    let out = out?;
    super::events::save(&engine, &events);
    ctx.report_skipped(
        Some(engine.store().path()),
        ctx.workspace().root(),
        &out.skipped,
    );
    if ctx.chatty() {
        super::snapshot::report_collisions(&out.collisions);
    }
    if ctx.json {
        super::print_json(&genesis::report::open_json(&out));
    } else {
        crate::outln!("{}", out.session.session);
        if ctx.chatty() {
            eprintln!(
                "genesis: opened session {} on snapshot {}",
                out.session.session, out.session.base_snapshot
            );
        }
        if let Some(d) = out.checkout.as_ref().filter(|_| ctx.chatty()) {
            eprintln!("genesis: checkout in {}", d.display());
        }
    }
    Ok(0)
}
