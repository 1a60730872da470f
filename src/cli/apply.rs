//! `genesis apply SESSION [--dry-run] [--strict] [--allow-markers]`: write the session into the workspace.

use genesis::engine::ApplyOptions;

use super::{CliError, Context};

/// Arguments of `genesis apply`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// Print what would change; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Require the whole workspace to equal the base snapshot, not only the changed paths.
    #[arg(long)]
    strict: bool,
    /// Apply even though files hold unresolved conflict markers `rebase --markers` wrote.
    #[arg(long)]
    allow_markers: bool,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// An apply conflict of a session `genesis rebase` can move (not in-place), each path of it
/// one rebase resolves ([`genesis::engine::ConflictKind::rebase_resolves`]), ends with the
/// command that moves it onto the workspace as it is now.
fn with_rebase_hint(
    engine: &genesis::engine::Engine,
    id: &str,
    e: genesis::engine::ApplyError,
) -> CliError {
    // Only when rebase resolves every conflicting path (not `d: a symbolic link`): the hint
    // must not send the user round in a loop.
    let conflict = matches!(&e, genesis::engine::ApplyError::Conflict { conflicts, .. }
        if conflicts.iter().all(|c| c.kind.rebase_resolves()));
    let mut err = CliError::from(e);
    if conflict && engine.status(id).is_ok_and(|(_, st)| !st.in_place) {
        err.message.push_str(&format!(
            "\n`genesis rebase {id}` moves the session onto the workspace as it is now (a three-way merge per file)"
        ));
    }
    err
}

/// Applies; exit 3 on a conflict or an unverified session.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let opts = ApplyOptions {
        dry_run: args.dry_run,
        strict: args.strict,
        allow_markers: args.allow_markers,
    };
    let out = super::events::with_events(ctx, &engine, &session, |events| {
        engine
            .apply(&session, &opts, events)
            .map_err(|e| with_rebase_hint(&engine, &session, e))
    })?;
    if ctx.json {
        super::print_json(&genesis::report::apply_json(&out));
    } else {
        warn_left_ignored(&out);
        // -q: a dry run's list is its data; a real apply's is a note.
        for c in &out.changes {
            if out.written {
                crate::noteln!("{}\t{}", c.status.letter(), super::shown(&c.path));
            } else {
                crate::outln!("{}\t{}", c.status.letter(), super::shown(&c.path));
            }
        }
        if out.written {
            crate::noteln!(
                "applied session {}: {} file(s) changed",
                out.session.session,
                out.changes.len()
            );
        } else {
            crate::noteln!("dry run: {} file(s) would change", out.changes.len());
        }
    }
    Ok(0)
}

/// The warning for the files a session's deleted directories keep (the snapshot rules left
/// them out, so apply leaves them, as git does): the workspace holds more than the snapshot.
fn warn_left_ignored(out: &genesis::engine::ApplyOutcome) {
    if out.left_ignored.is_empty() {
        return;
    }
    let list: Vec<String> = out
        .left_ignored
        .iter()
        .map(|p| format!("  {}", genesis::diff::quote_path("", p)))
        .collect();
    eprintln!(
        "genesis: warning: {} {} file(s) the snapshot rules leave out (ignored) under directories session {} deletes, as git does; the workspace then holds more than snapshot {}:\n{}",
        if out.written { "left" } else { "would leave" },
        out.left_ignored.len(),
        out.session.session,
        out.session.current_snapshot,
        list.join("\n")
    );
}
