//! `genesis verify SESSION [--workdir DIR]`: run the obligations on the current snapshot.

use std::path::PathBuf;

use genesis::engine::{Observer, VerifyOptions, VerifyOutcome};
use genesis::events::Both;
use genesis::obligation::CommandResult;

use super::events::with_events;
use super::{CliError, Context};

/// Arguments of `genesis verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// Run obligations in DIR, synced incrementally so build caches survive. DIR must be new,
    /// empty, or a workdir Genesis used before, outside the workspace and the store. Default:
    /// a scratch directory, removed afterwards.
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// Take an acceptance record of the current snapshot from the --remote store instead of
    /// running the obligations, when one there was made with this manifest blob, the same
    /// static results and on this OS and architecture (else they run). Feature `remote`.
    #[arg(long)]
    reuse_acceptance: bool,
    /// The shared store for --reuse-acceptance (else GENESIS_REMOTE).
    #[arg(
        long,
        value_name = "URL",
        env = "GENESIS_REMOTE",
        hide_env_values = true
    )]
    remote: Option<String>,
    #[command(flatten)]
    pub events: super::events::EventsArgs,
}

/// The acceptance source of `--reuse-acceptance`, when given.
#[cfg(feature = "remote")]
fn reuse_source(
    args: &Args,
) -> Result<Option<std::sync::Arc<dyn genesis::engine::AcceptanceSource>>, CliError> {
    if !args.reuse_acceptance {
        return Ok(None);
    }
    let remote = super::remote::open(&super::remote::RemoteArgs {
        remote: args.remote.clone(),
        concurrency: 1,
    })?;
    Ok(Some(std::sync::Arc::new(remote)))
}

/// Without the `remote` feature, `--reuse-acceptance` is exit 2, saying so.
#[cfg(not(feature = "remote"))]
fn reuse_source(
    args: &Args,
) -> Result<Option<std::sync::Arc<dyn genesis::engine::AcceptanceSource>>, CliError> {
    if args.reuse_acceptance {
        return Err(super::remote::unavailable("`verify --reuse-acceptance`"));
    }
    Ok(None)
}

/// Prints obligation progress on standard error (with a spinner while one runs when standard
/// error is a terminal). The events go to the emitter beside it ([`Both`]).
pub struct Progress {
    on: bool,
    spinner: Option<indicatif::ProgressBar>,
}

impl Progress {
    /// A progress printer (silent when `on` is false).
    pub fn new(on: bool) -> Self {
        Progress { on, spinner: None }
    }
}

/// A spinner with elapsed time on standard error, or `None` when it is not a terminal.
pub fn spinner(message: String) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        pb.set_style(style);
    }
    pb.set_message(message);
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(pb)
}

impl Observer for Progress {
    fn wants_events(&self) -> bool {
        false
    }
    fn obligation_started(&mut self, id: &str, run: &[String], _index: usize, _total: usize) {
        if self.on && !super::quiet() {
            eprintln!("genesis: obligation {id}: running {}", run.join(" "));
            self.spinner = spinner(format!("obligation {id}"));
        }
    }
    fn obligation_finished(&mut self, r: &CommandResult, _index: usize, _total: usize) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
        // -q: a failure is still told (with its output), a pass is not.
        if self.on && !(super::quiet() && r.passed()) {
            print_result("obligation ", r);
        }
    }
}

/// Prints how a command ended on standard error (`genesis: LABELid: passed (exit 0, 0.12 s)`),
/// with the last 20 lines of each stream when it failed.
pub fn print_result(label: &str, r: &CommandResult) {
    let how = if r.timed_out {
        format!("killed after the {} s timeout", r.obligation.timeout_s)
    } else {
        match r.exit_code {
            Some(c) => format!("exit {c}"),
            None => "killed by a signal".into(),
        }
    };
    let verdict = if r.passed() { "passed" } else { "FAILED" };
    eprintln!(
        "genesis: {label}{}: {verdict} ({how}, {:.2} s)",
        r.obligation.id, r.seconds
    );
    if !r.passed() {
        for (name, data) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            let text = String::from_utf8_lossy(data);
            let lines: Vec<&str> = text.lines().collect();
            for l in &lines[lines.len().saturating_sub(20)..] {
                eprintln!("  {name}| {l}");
            }
        }
    }
}

/// Prints the verification summary on standard output; with no command obligations it says
/// that no command was run (and which static checks, if any, were all that was checked).
/// Nothing with `-q` when it passed.
pub fn print_summary(v: &VerifyOutcome) {
    if super::quiet() && v.record.obligations_ok {
        return;
    }
    if v.record.obligations.is_empty() {
        let statics: Vec<&str> = v
            .record
            .static_results
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        if statics.is_empty() {
            crate::outln!(
                "nothing was checked: the manifest has no obligations (add commands to its \"obligations\" list)"
            );
        } else {
            crate::outln!(
                "no command was run: the manifest has no obligations (add commands to its \"obligations\" list); only its static rules were checked: {}",
                statics.join(", ")
            );
        }
    }
    for s in &v.record.static_results {
        if !s.passed {
            crate::outln!("static obligation {} fails: {}", s.id, s.paths.join(", "));
        }
    }
    crate::outln!(
        "{} snapshot {} acceptance {}",
        if v.record.obligations_ok {
            "verified"
        } else {
            "FAILED"
        },
        v.record.snapshot,
        v.acceptance
    );
}

/// Verifies; exit 1 when an obligation fails.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    genesis::obligation::install_interrupt_handler();
    let opts = VerifyOptions {
        workdir: args.workdir.clone(),
        reuse: reuse_source(args)?,
        ..VerifyOptions::default()
    };
    let out = with_events(ctx, &engine, &session, |events| {
        let mut progress = Progress::new(!ctx.json);
        Ok(engine.verify(&session, &opts, &mut Both(events, &mut progress))?)
    })?;
    if let Some(note) = &out.reuse_note
        && ctx.chatty()
    {
        eprintln!("genesis: {note}");
    }
    if ctx.json {
        let mut v = genesis::report::verify_json(&out);
        if let Some(r) = &out.reused {
            v["reused_acceptance"] = serde_json::to_value(r).expect("serialisable");
        }
        super::print_json(&v);
    } else {
        if let Some(r) = &out.reused {
            crate::outln!(
                "reused acceptance {} from {}: no obligation ran here",
                r.acceptance,
                r.source
            );
        }
        print_summary(&out);
    }
    Ok(if out.record.obligations_ok { 0 } else { 1 })
}
