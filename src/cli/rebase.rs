//! `genesis rebase SESSION [--markers]`: move a session onto the workspace as it is now.

use genesis::engine::RebaseOptions;

use super::{CliError, Context};

/// Arguments of `genesis rebase`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// Record overlapping edits with conflict markers (`<<<<<<< session`, `=======`,
    /// `>>>>>>> workspace`) instead of recording nothing. Whole-file conflicts (a deletion
    /// against a change, binary files, executable bits) still record nothing.
    #[arg(long)]
    markers: bool,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// Rebases; exit 3 when paths conflict and nothing was recorded.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let opts = RebaseOptions {
        markers: args.markers,
    };
    let out = super::events::with_events(ctx, &engine, &session, |events| {
        Ok(engine.rebase(&session, &opts, events)?)
    })?;
    let failed = !out.conflicts.is_empty() && !out.moved;
    if ctx.json {
        super::print_json(&genesis::report::rebase_json(&out, args.markers));
        return Ok(if failed { 3 } else { 0 });
    }
    if failed {
        eprintln!(
            "genesis: error: session {} cannot be rebased onto the workspace ({}): {} path(s) conflict; nothing recorded",
            session,
            out.onto,
            out.conflicts.len()
        );
    }
    for c in &out.conflicts {
        let line = format!("{}: {}", super::shown(&c.path), c.kind);
        if failed {
            eprintln!("  {line}");
        } else {
            crate::outln!("conflict markers written: {line}");
        }
        for h in &c.hunks {
            let text = match h.base {
                b if b.count > 0 => format!(
                    "    session {}, workspace {} (base {b})",
                    h.session, h.workspace
                ),
                b if b.start == 0 => format!(
                    "    session {}, workspace {} (both added at the start of the file)",
                    h.session, h.workspace
                ),
                b => format!(
                    "    session {}, workspace {} (both added after base line {})",
                    h.session, h.workspace, b.start
                ),
            };
            if failed {
                eprintln!("{text}");
            } else {
                crate::outln!("{text}");
            }
        }
    }
    if failed {
        if !args.markers && out.conflicts.iter().all(|c| c.kind.has_markers()) {
            eprintln!(
                "(`--markers` records them with conflict markers, to resolve with another patch)"
            );
        }
        if let Some(why) = genesis::report::markers_reason(args.markers, &out) {
            eprintln!("({why})");
        }
        return Ok(3);
    }
    if !out.moved {
        crate::noteln!(
            "session {} is already on the workspace ({}); nothing recorded",
            session,
            out.onto
        );
        return Ok(0);
    }
    if let Some(dir) = &out.checkout_kept {
        let how = match &out.checkout_made_from {
            Some(from) => format!(
                "record its own changes as a diff: `genesis diff {from} {} | genesis patch {session} -`",
                dir.display()
            ),
            None => format!("`genesis diff {session}` shows the session's change"),
        };
        eprintln!(
            "genesis: warning: the checkout {} was left as it was: it did not hold the session's current snapshot, so `patch --from` it is refused from now on (it would undo the rebase); {how}",
            dir.display(),
        );
    }
    for c in &out.changes {
        crate::noteln!("{}\t{}", c.status.letter(), super::shown(&c.path));
    }
    match &out.entry {
        Some(e) => crate::noteln!(
            "session {} rebased onto {}: patch {} recorded: {} → {}; verify again",
            session,
            out.onto,
            e.patch,
            e.before_snapshot,
            e.after_snapshot
        ),
        None if out.replaced_patches == 0 => crate::noteln!(
            "session {} rebased onto {}: it has no patches; no patch recorded",
            session,
            out.onto
        ),
        None => crate::noteln!(
            "session {} rebased onto {}: the workspace already holds its changes; no patch recorded",
            session,
            out.onto
        ),
    }
    Ok(0)
}
