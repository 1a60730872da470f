//! `genesis diff A B`: a git-style diff between two trees.

use std::io::{IsTerminal, Seek, Write};
use std::path::Path;

use genesis::Tree;
use genesis::diff::{DiffOptions, Operand, changes, stats, write_git_diff, write_stat};

use super::{CliError, Context};

/// Arguments of `genesis diff`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The old tree: a directory, or a snapshot identity (or unique prefix of 4+ characters) in
    /// the store; or, alone, a session id, meaning the session's base..current.
    a: String,
    /// The new tree, likewise.
    b: Option<String>,
    /// Print a diffstat instead of the diff.
    #[arg(long, conflicts_with = "name_status")]
    stat: bool,
    /// Print `A`/`D`/`M` and the path of each changed file instead of the diff.
    #[arg(long)]
    name_status: bool,
}

/// Resolves a diff operand: an existing directory (with its snapshot options, see
/// [`super::operand_options`]), else a stored snapshot identity or prefix.
pub fn resolve_operand(ctx: &Context, operand: &str) -> Result<Operand, CliError> {
    let ws = ctx.workspace();
    let p = Path::new(operand);
    if p.is_dir() {
        let store = ws.existing_store().ok().flatten();
        super::ids::refuse_path_and_snapshot("diff operand", operand, store.as_ref())?;
        let opts = super::operand_options(ctx, &ws, p)?;
        return Ok(Operand::Dir(p.to_path_buf(), opts));
    }
    if let Some(e) = super::ids::too_short_snapshot_prefix("diff operand", operand) {
        return Err(e);
    }
    if !super::ids::is_snapshot_prefix(operand) {
        return Err(CliError::usage(format!(
            "{operand:?}: not a directory and not a snapshot identity"
        )));
    }
    let store = ctx.store()?;
    let id = super::ids::snapshot(&store, operand)?;
    Ok(Operand::Stored(store, id))
}

/// Prints the diff, stat or name-status between A and B.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let (a, b) = match &args.b {
        // Membership never makes a difference: see `Tree::compare`. Only `--json` names the
        // snapshot identities; without it two directories are compared file by file.
        Some(b) => {
            let (a, b) = (resolve_operand(ctx, &args.a)?, resolve_operand(ctx, b)?);
            if ctx.json {
                Tree::compare(a, b)?
            } else {
                Tree::compare_contents(a, b)?
            }
        }
        None => {
            let engine = super::engine(ctx, false)?;
            let id = super::ids::session(&engine, &args.a)?;
            let (session, state) = engine.status(&id)?;
            let store = engine.store();
            let base = genesis::store::Store::read_snapshot(store, &session.base_snapshot)?.0;
            let current = genesis::store::Store::read_snapshot(store, &session.current_snapshot)?.0;
            (
                Tree::from_parts(store, base, state.base_executable()),
                Tree::from_parts(store, current, state.current_executable()),
            )
        }
    };
    let list = changes(&a, &b);
    // Colour is decided on the terminal itself, before the pager takes standard output.
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let _pager = super::pager::start(ctx);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if ctx.json {
        let doc = genesis::report::diff_json(&a, &b)?;
        drop(out);
        super::print_json(&doc);
        return Ok(0);
    }
    if args.name_status {
        for c in &list {
            writeln!(
                out,
                "{}\t{}",
                c.status.letter(),
                genesis::diff::quote_path("", c.path.as_str())
            )
            .map_err(genesis::diff::DiffError::from)?;
        }
    } else if args.stat {
        if !list.is_empty() {
            write_stat(&stats(&a, &b, &list)?, &mut out)?;
        }
    } else {
        let opts = DiffOptions {
            color,
            ..DiffOptions::default()
        };
        // The whole diff is made before any of it is printed, so a failure (a corrupt or
        // missing blob) never leaves a partial patch on standard output. It is held in
        // memory up to 16 MiB, then in an unnamed temp file (a large file's literal).
        let mut buf = tempfile::SpooledTempFile::new(16 << 20);
        write_git_diff(&a, &b, &list, &opts, &mut buf)?;
        buf.seek(std::io::SeekFrom::Start(0))
            .map_err(genesis::diff::DiffError::from)?;
        std::io::copy(&mut buf, &mut out).map_err(genesis::diff::DiffError::from)?;
    }
    out.flush().map_err(genesis::diff::DiffError::from)?;
    Ok(0)
}
