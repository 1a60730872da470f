//! `genesis abort SESSION`: throw the session away, saving every unrecorded file first.

use super::{CliError, Context};
use genesis::engine::{AbortAction, AbortOptions, AbortOutcome};

/// Arguments of `genesis abort`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// List what abort would change and save; change nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// Aborts: an in-place session's workspace goes back to the base, a checkout directory's
/// files are removed; files no patch recorded are stored first and listed.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let opts = AbortOptions {
        dry_run: args.dry_run,
        reason: None,
    };
    let outcome = if args.dry_run {
        engine.abort_with(&session, &opts, &mut genesis::engine::NoObserver)?
    } else {
        super::events::with_events(ctx, &engine, &session, |events| {
            Ok(engine.abort_with(&session, &opts, events)?)
        })?
    };
    print(ctx, &outcome);
    Ok(0)
}

fn print(ctx: &Context, o: &AbortOutcome) {
    let id = &o.session.session;
    if ctx.json {
        super::print_json(&genesis::report::abort_json(o));
        return;
    }
    if !o.written {
        crate::outln!("abort {id} would change {} path(s):", o.steps.len());
        for s in &o.steps {
            let what = match s.action {
                AbortAction::Restore => "restore",
                AbortAction::Delete => "delete ",
                AbortAction::Create => "create ",
            };
            let saved = if s.saved {
                "  (unrecorded: saved first)"
            } else {
                ""
            };
            crate::outln!("  {what} {}{saved}", super::shown(&s.path));
        }
        print_kept(o);
        return;
    }
    if !o.saved.is_empty() {
        crate::outln!(
            "saved {} file(s) that no patch recorded before removing or overwriting them:",
            o.saved.len()
        );
        for f in &o.saved {
            crate::outln!(
                "  {} ({} bytes, blob {})",
                super::shown(&f.path),
                f.bytes,
                f.blob
            );
        }
        crate::outln!("bring them back with: genesis restore {id}");
    }
    print_kept(o);
    if let Some(dir) = &o.checkout
        && o.checkout_kept
    {
        crate::outln!(
            "kept {}: it still holds files the snapshot rules leave out",
            dir.display()
        );
    }
    crate::noteln!("aborted session {id}");
}

/// The files of an in-place workspace abort leaves on purpose, each with the reason.
fn print_kept(o: &AbortOutcome) {
    if o.kept.is_empty() {
        return;
    }
    crate::outln!("kept {} path(s) as they are:", o.kept.len());
    for k in &o.kept {
        crate::outln!("  {} ({})", super::shown(&k.path), k.reason);
    }
}
