//! `genesis patch SESSION [DIFF|-]` / `--from DIR`: record a patch.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use genesis::engine::{PatchInput, VerifyOptions};
use genesis::events::Both;

use super::{CliError, Context};

/// Arguments of `genesis patch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// A git-style unified diff file, or `-` for standard input (the default). For an
    /// in-place session give none: the workspace's state is recorded.
    #[arg(conflicts_with = "from")]
    diff: Option<PathBuf>,
    /// Take this directory's snapshot as the new state (the engine writes the diff).
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Verify the new snapshot right away (runs the obligations).
    #[arg(long)]
    verify: bool,
    /// With --verify: run obligations in DIR, synced incrementally.
    #[arg(long, value_name = "DIR", requires = "verify")]
    workdir: Option<PathBuf>,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// Records the patch; exit 1 when `--verify` ran and an obligation failed.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let bytes;
    let input = match &args.from {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(CliError::usage(format!(
                    "--from {}: not a directory",
                    dir.display()
                )));
            }
            PatchInput::Dir(dir)
        }
        None if args.diff.is_none() && engine.status(&session)?.1.in_place => {
            genesis::engine::PatchInput::Workspace
        }
        None => {
            bytes = match &args.diff {
                Some(p) if p.as_os_str() != "-" => std::fs::read(p).map_err(|e| {
                    CliError::usage(format!("{}: cannot read the diff: {e}", p.display()))
                })?,
                _ => {
                    let stdin = std::io::stdin();
                    if stdin.is_terminal() && ctx.chatty() {
                        // Never a silent hang: say what is awaited and how to end it.
                        eprintln!(
                            "genesis: waiting for a diff on standard input (paste or type it, then press Ctrl-D at the start of a line; Ctrl-C cancels). To record a file: genesis patch {} FILE",
                            args.session
                        );
                    }
                    let mut b = Vec::new();
                    stdin
                        .lock()
                        .read_to_end(&mut b)
                        .map_err(|e| CliError::io(format!("standard input: {e}")))?;
                    b
                }
            };
            let from = match &args.diff {
                Some(p) if p.as_os_str() != "-" => p.display().to_string(),
                _ => "standard input".to_owned(),
            };
            if let Some(line) = coloured_line(&bytes) {
                return Err(CliError::usage(format!(
                    "{from}: a coloured diff: line {line} starts with an ANSI escape (ESC[), as `git diff --color=always` or `color.ui = always` writes; give it without colour: `git diff --no-color`"
                )));
            }
            PatchInput::Diff(&bytes)
        }
    };
    let vopts = VerifyOptions {
        workdir: args.workdir.clone(),
        ..VerifyOptions::default()
    };
    if args.verify {
        genesis::obligation::install_interrupt_handler();
    }
    let out = super::events::with_events(ctx, &engine, &session, |events| {
        let mut progress = super::verify::Progress::new(!ctx.json);
        let verify = args.verify.then_some(&vopts);
        let mut both = Both(events, &mut progress);
        Ok(engine.patch(&session, input, verify, &mut both)?)
    })?;
    // `--from DIR` or an in-place session's workspace: the tree that was snapshotted.
    let tree = args
        .from
        .clone()
        .unwrap_or_else(|| ctx.workspace().root().to_path_buf());
    ctx.report_skipped(Some(engine.store().path()), &tree, &out.skipped);
    let ok = out
        .verification
        .as_ref()
        .is_none_or(|v| v.record.obligations_ok);
    if ctx.json {
        super::print_json(&genesis::report::patch_json(&out));
    } else {
        match &out.entry {
            None => crate::noteln!("no changes; nothing recorded"),
            Some(e) => {
                for c in &out.changes {
                    crate::noteln!("{}\t{}", c.status.letter(), super::shown(&c.path));
                }
                crate::noteln!(
                    "patch {} recorded: {} → {}",
                    e.patch,
                    e.before_snapshot,
                    e.after_snapshot
                );
                for s in out.static_results.iter().filter(|s| !s.passed) {
                    crate::outln!("static obligation {} fails: {}", s.id, s.paths.join(", "));
                }
            }
        }
        if let Some(v) = &out.verification {
            super::verify::print_summary(v);
        }
    }
    Ok(if ok { 0 } else { 1 })
}

/// The first line (1-based) of `diff` that starts with an ANSI control sequence (`ESC [`), as
/// every line of `git diff --color=always` output does; `None` when no line does. No line of a
/// diff that git or Genesis writes starts so (headers start with a word, hunk lines with ` `,
/// `+`, `-` or `\`); refusing it keeps a coloured diff, whose lines a parser would otherwise
/// skip as text between files, from being recorded as "no changes".
pub fn coloured_line(diff: &[u8]) -> Option<usize> {
    diff.split(|&b| b == b'\n')
        .position(|l| l.starts_with(b"\x1b["))
        .map(|i| i + 1)
}
