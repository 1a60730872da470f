//! Command-line front end: one file per subcommand; all logic lives in the library.

mod abort;
mod apply;
mod bpt;
mod check;
mod complete;
mod diff;
mod error;
mod events;
mod gc;
mod help;
mod ids;
mod init;
mod log;
mod mcp;
mod notes;
mod open;
mod pager;
mod patch;
mod pull;
mod push;
mod rebase;
mod recover;
mod remote;
mod replay;
mod restore;
mod snapshot;
mod status;
mod validate;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use error::CliError;
use genesis::Workspace;

/// Genesis: a transactional workspace engine. Snapshots, patches, obligations and atomic apply.
///
/// Exit status: 0 success; 1 a definite "no" (check mismatch, invalid document);
/// 2 bad input or usage; 3 state conflict; 4 I/O or internal error.
#[derive(Parser, Debug)]
#[command(name = "genesis", version, about, long_about = None, after_help = help::TOP)]
pub struct Cli {
    /// Run as if started in DIR (changed into before anything else; repeatable, each relative
    /// one taken from the previous, as git's -C).
    #[arg(
        short = 'C',
        global = true,
        value_name = "DIR",
        action = clap::ArgAction::Append,
        help_heading = GLOBAL
    )]
    chdir: Vec<std::ffi::OsString>,
    /// Workspace root; skips the search. Default: the nearest directory at or above the
    /// current one whose .genesis holds a store (`init`: the current directory).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    workspace: Option<PathBuf>,
    /// Store directory. Default: WORKSPACE/.genesis.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "GENESIS_STORE",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    store: Option<PathBuf>,
    /// Print one JSON document on standard output instead of human output.
    #[arg(long, global = true, help_heading = GLOBAL)]
    json: bool,
    /// Never start a pager (`diff` and `log` on a terminal use $GENESIS_PAGER, $PAGER or
    /// `less -FRX`).
    #[arg(long, global = true, help_heading = GLOBAL)]
    no_pager: bool,
    /// Only errors and the data a command exists to print (diff, log, status): no warnings,
    /// notes, progress or "recorded" lines, as git's -q.
    #[arg(
        short = 'q',
        long,
        global = true,
        conflicts_with = "verbose",
        help_heading = GLOBAL
    )]
    quiet: bool,
    /// Every warning, every time: a warning that repeats (skipped symbolic links) is otherwise
    /// given once per store.
    #[arg(short = 'v', long, global = true, help_heading = GLOBAL)]
    verbose: bool,
    /// Seconds to wait for another process's store lock before exit 3.
    #[arg(
        long,
        global = true,
        value_name = "SECONDS",
        default_value_t = 10,
        help_heading = GLOBAL
    )]
    wait: u64,
    /// The event options given before the command name (hidden; see [`events::EventsArgs`]).
    #[command(flatten)]
    events_before: HiddenEventsArgs,
    #[command(subcommand)]
    command: Command,
}

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// `--events`, `--events-format` and `--worker-id` before the command name, as they were taken
/// when they were global: still accepted, not shown (the commands that emit events show them).
#[derive(clap::Args, Debug, Clone, Default)]
struct HiddenEventsArgs {
    #[arg(long = "events", value_name = "PATH", hide = true)]
    events: Option<PathBuf>,
    #[arg(long = "events-format", value_name = "DIALECT", hide = true)]
    events_format: Option<String>,
    #[arg(long = "worker-id", value_name = "ID", hide = true)]
    worker_id: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Create the store and a default manifest (genesis.json) in the current directory.
    #[command(after_help = help::INIT)]
    Init(init::Args),
    /// Snapshot a directory and print the snapshot document.
    #[command(after_help = help::SNAPSHOT)]
    Snapshot(snapshot::Args),
    /// Show the differences between two trees as a git-style diff.
    #[command(after_help = help::DIFF)]
    Diff(diff::Args),
    /// Check that a tree hashes to an expected snapshot (exit 1 with the differing paths if not).
    #[command(after_help = help::CHECK)]
    Check(check::Args),
    /// Validate session, snapshot and manifest documents against the bundled schemas.
    #[command(after_help = help::VALIDATE)]
    Validate(validate::Args),
    /// Open a session on the workspace as it is now; prints the session id.
    #[command(after_help = help::OPEN)]
    Open(open::Args),
    /// Record a patch (a diff, or a directory's state) in a session.
    #[command(after_help = help::PATCH)]
    Patch(patch::Args),
    /// Move an open session onto the workspace as it is now (a three-way merge per file);
    /// exit 3 with the conflicting paths and hunks when edits overlap.
    #[command(after_help = help::REBASE)]
    Rebase(rebase::Args),
    /// Run the manifest's obligations on the session's current snapshot.
    #[command(after_help = help::VERIFY)]
    Verify(verify::Args),
    /// Write a verified session into the workspace, atomically.
    #[command(after_help = help::APPLY)]
    Apply(apply::Args),
    /// Throw a session away: an in-place workspace goes back to the base, a checkout is
    /// removed; files no patch recorded are saved first (`genesis restore` brings them back).
    #[command(after_help = help::ABORT)]
    Abort(abort::Args),
    /// Bring back the files `abort` saved.
    #[command(after_help = help::RESTORE)]
    Restore(restore::Args),
    /// Show a session, or list all sessions.
    #[command(after_help = help::STATUS)]
    Status(status::Args),
    /// Print the output, exit status and duration of each obligation of a session's last
    /// verification (or of one obligation).
    #[command(after_help = help::LOG)]
    Log(log::Args),
    /// Re-derive every patch's after_snapshot from the stored patch texts.
    #[command(after_help = help::REPLAY)]
    Replay(replay::Args),
    /// Finish an interrupted apply from its journal (every command also does this first).
    #[command(after_help = help::RECOVER)]
    Recover(recover::Args),
    /// Remove store objects, snapshot documents and temporary files nothing references
    /// (older than --prune, default 2 weeks); --dry-run lists them.
    #[command(after_help = help::GC)]
    Gc(gc::Args),
    /// Upload sessions or snapshots, with everything that reproduces them, to a shared store
    /// on object storage (S3 and compatible, GCS, Azure, files); feature `remote`.
    #[command(after_help = help::PUSH)]
    Push(push::Args),
    /// Bring sessions or snapshots from a shared store into the local store, each object
    /// hashed before it enters; feature `remote`.
    #[command(after_help = help::PULL)]
    Pull(pull::Args),
    /// Act on a Block Play Table A2A execution request (START, RETRY, CONTINUE,
    /// INTERACTION_RESPONSE); events go to --events in the bpt dialect.
    #[command(after_help = help::BPT)]
    Bpt(bpt::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(after_help = help::COMPLETIONS)]
    Completions(complete::CompletionsArgs),
    /// Print the manual page genesis(1), or write every page into --dir.
    #[command(after_help = help::MAN)]
    Man(complete::ManArgs),
    /// Serve the workspace to agents over MCP (Model Context Protocol) on standard input/output.
    #[command(after_help = help::MCP)]
    Mcp(mcp::Args),
}

impl Cli {
    /// The event options: the command's own (open, patch, rebase, verify, apply, abort, bpt), each
    /// else the same option given before the command name; no `--events` file for any other
    /// command (it emits none, so none is made).
    fn events(&self) -> events::EventsArgs {
        let own = match &self.command {
            Command::Open(a) => Some(&a.events),
            Command::Patch(a) => Some(&a.events),
            Command::Rebase(a) => Some(&a.events),
            Command::Verify(a) => Some(&a.events),
            Command::Apply(a) => Some(&a.events),
            Command::Abort(a) => Some(&a.events),
            Command::Bpt(a) => Some(&a.events),
            _ => None,
        };
        let emits = own.is_some();
        let own = own.cloned().unwrap_or_default();
        let before = &self.events_before;
        events::EventsArgs {
            // A command that emits no events writes no events file, not even an empty one.
            events: own
                .events
                .or_else(|| before.events.clone())
                .filter(|_| emits),
            events_format: own.events_format.or_else(|| before.events_format.clone()),
            worker_id: own
                .worker_id
                .or_else(|| before.worker_id.clone())
                .or_else(|| {
                    std::env::var("GENESIS_WORKER_ID")
                        .ok()
                        .filter(|v| !v.is_empty())
                }),
        }
    }
}

/// A usage error's message on one line, the missing or bad argument included: clap's text
/// without its `error: ` prefix, `Usage:` and `For more information` lines, the lines joined
/// (`the following required arguments were not provided: <SESSION>`).
fn usage_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let body = text.split("\n\nUsage:").next().unwrap_or(&text);
    let body = body
        .split("\n\nFor more information")
        .next()
        .unwrap_or(body);
    body.trim_start_matches("error: ")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What every command gets: the global options.
pub struct Context {
    /// `--workspace`, if given.
    pub workspace_arg: Option<PathBuf>,
    /// The workspace found by walking up from the current directory
    /// ([`Workspace::discover_root`]), relative to it; `None` when no directory up to `/`
    /// holds a store, or when `--workspace` or `--store` was given.
    pub discovered: Option<PathBuf>,
    /// `--store` or `GENESIS_STORE`, if given.
    pub store_arg: Option<PathBuf>,
    /// `--json` was given.
    pub json: bool,
    /// `--wait` seconds for the store lock.
    pub wait: u64,
    /// `--events PATH`.
    pub events: Option<PathBuf>,
    /// `--events-format`, if given.
    pub events_format: Option<String>,
    /// `--worker-id` or `GENESIS_WORKER_ID`.
    pub worker_id: Option<String>,
    /// `--no-pager`.
    pub no_pager: bool,
    /// `-q` / `-v`.
    pub verbosity: notes::Verbosity,
}

impl Context {
    /// The workspace: `--workspace`, else `dir` when the command names one, else the one
    /// found by walking up from the current directory, else the current directory (`.`).
    pub fn workspace_for(&self, dir: Option<&std::path::Path>) -> Workspace {
        let root = self
            .workspace_arg
            .clone()
            .or_else(|| dir.map(std::path::Path::to_path_buf))
            .or_else(|| self.discovered.clone())
            .unwrap_or_else(|| PathBuf::from("."));
        Workspace::new(root, self.store_arg.clone())
    }

    /// The error of a command that needs a store when none was found: it names the directory
    /// the search started from and says `genesis init`. `None` when a store was found, or
    /// `--workspace` or `--store` named where it should be (their own errors say so then).
    pub fn no_store(&self) -> Option<CliError> {
        if self.discovered.is_some() || self.workspace_arg.is_some() || self.store_arg.is_some() {
            return None;
        }
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Some(CliError::usage(format!(
            "no Genesis store (.genesis) in {} or any directory above it; run `genesis init` to make one here, or name one with -C DIR, --workspace DIR or --store DIR",
            cwd.display()
        )))
    }

    /// The workspace's store; it must exist ([`Context::no_store`] when none was found).
    pub fn store(&self) -> Result<genesis::store::Store, CliError> {
        if let Some(e) = self.no_store() {
            return Err(e);
        }
        Ok(self.workspace().store()?)
    }

    /// How long to wait for the store lock.
    pub fn wait(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.wait)
    }

    /// Whether notes and warnings go to standard error (not with `-q`).
    pub fn chatty(&self) -> bool {
        self.verbosity != notes::Verbosity::Quiet
    }

    /// Reports the entries a snapshot of `root` left out, once per store for a given set
    /// ([`notes::report_skipped`]); `store` is where the report is remembered.
    pub fn report_skipped(
        &self,
        store: Option<&std::path::Path>,
        root: &std::path::Path,
        skipped: &[genesis::snapshot::Skipped],
    ) {
        notes::report_skipped(self.verbosity, store, root, skipped);
    }

    /// The workspace named by `--workspace` (default `.`).
    pub fn workspace(&self) -> Workspace {
        self.workspace_for(None)
    }
}

/// Parses the command line, runs the command, prints errors, and returns the exit status.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            if code == 2 && std::env::args().any(|a| a == "--json") {
                print_json(&serde_json::json!({
                    "error": {"code": 2, "message": usage_message(&e)}
                }));
            }
            return ExitCode::from(code);
        }
    };
    // `-C DIR`s first, in order, so that every relative path below is taken from there.
    for dir in cli.chdir.iter().map(std::path::Path::new) {
        if dir.as_os_str().is_empty() {
            continue; // git: `-C ""` leaves the directory as it is
        }
        if let Err(e) = std::env::set_current_dir(dir) {
            let e = CliError::usage(format!("-C {}: cannot change to it: {e}", dir.display()));
            e.report(cli.json);
            return ExitCode::from(e.code);
        }
    }
    let discovered = if cli.workspace.is_some() || cli.store.is_some() {
        None
    } else {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| Workspace::discover_root(&cwd))
    };
    let events = cli.events();
    if let (Some(p), None) = (&cli.events_before.events, &events.events)
        && !cli.quiet
    {
        eprintln!(
            "genesis: warning: --events {}: this command emits no events (only open, patch, rebase, verify, apply, abort and bpt do); nothing is written there",
            p.display()
        );
    }
    let ctx = Context {
        discovered,
        workspace_arg: cli.workspace.clone(),
        store_arg: cli.store.clone(),
        json: cli.json,
        wait: cli.wait,
        events: events.events.clone(),
        events_format: events.events_format.clone(),
        worker_id: events.worker_id.clone(),
        no_pager: cli.no_pager,
        verbosity: if cli.quiet {
            QUIET.store(true, std::sync::atomic::Ordering::Relaxed);
            notes::Verbosity::Quiet
        } else if cli.verbose {
            notes::Verbosity::Verbose
        } else {
            notes::Verbosity::Normal
        },
    };
    if let Some(Err(e)) = events
        .events_format
        .as_deref()
        .map(str::parse::<genesis::events::Dialect>)
    {
        let e = CliError::usage(format!("--events-format: {e}"));
        e.report(ctx.json);
        return ExitCode::from(e.code);
    }
    // A pinned clock or seed that cannot be read is refused before anything happens.
    if let Err(e) = genesis::clock::check_env() {
        let e = CliError::usage(e.to_string());
        e.report(ctx.json);
        return ExitCode::from(e.code);
    }
    // An events file that cannot be written is refused before anything changes.
    if let Some(p) = events.events.as_ref().filter(|p| p.as_os_str() != "-")
        && let Err(e) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
    {
        let e = CliError::io(format!("--events {}: {e}", p.display()));
        e.report(ctx.json);
        return ExitCode::from(e.code);
    }
    let result = dispatch(&ctx, &cli.command);
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if !e.message.is_empty() {
                e.report(ctx.json);
            }
            ExitCode::from(e.code)
        }
    }
}

/// Runs one subcommand with its context: its exit status, or the error to print.
fn dispatch(ctx: &Context, command: &Command) -> Result<u8, CliError> {
    match command {
        Command::Init(a) => init::run(ctx, a),
        Command::Snapshot(a) => snapshot::run(ctx, a),
        Command::Diff(a) => diff::run(ctx, a),
        Command::Check(a) => check::run(ctx, a),
        Command::Validate(a) => validate::run(ctx, a),
        Command::Open(a) => open::run(ctx, a),
        Command::Patch(a) => patch::run(ctx, a),
        Command::Rebase(a) => rebase::run(ctx, a),
        Command::Verify(a) => verify::run(ctx, a),
        Command::Apply(a) => apply::run(ctx, a),
        Command::Abort(a) => abort::run(ctx, a),
        Command::Restore(a) => restore::run(ctx, a),
        Command::Status(a) => status::run(ctx, a),
        Command::Log(a) => log::run(ctx, a),
        Command::Replay(a) => replay::run(ctx, a),
        Command::Recover(a) => recover::run(ctx, a),
        Command::Gc(a) => gc::run(ctx, a),
        Command::Push(a) => push::run(ctx, a),
        Command::Pull(a) => pull::run(ctx, a),
        Command::Bpt(a) => bpt::run(ctx, a),
        Command::Completions(a) => complete::completions(a),
        Command::Man(a) => complete::man(a),
        Command::Mcp(a) => mcp::run(ctx, a),
    }
}

/// Snapshot options for a directory operand of `snapshot`, `check` or `diff`: `ws`'s options
/// for it ([`Workspace::snapshot_options_for`]: its manifest, its own git index), plus, when
/// it is a session's `--checkout` directory in the store of the workspace (`--workspace`,
/// `--store`, default the current directory), the tracked members that session recorded at
/// open ([`genesis::session::checkout_tracked`]), so that the checkout is judged as its base
/// was.
pub fn operand_options(
    ctx: &Context,
    ws: &Workspace,
    dir: &std::path::Path,
) -> Result<genesis::snapshot::SnapshotOptions, CliError> {
    let mut opts = ws.snapshot_options_for(dir)?;
    let home = ctx.workspace();
    if let Ok(Some(store)) = home.existing_store() {
        let extra = genesis::session::checkout_tracked(&store, home.root(), dir)?;
        if !extra.is_empty() {
            opts.tracked = std::sync::Arc::new(
                opts.tracked
                    .with_paths(extra.iter().map(genesis::path::WorkspacePath::as_str)),
            );
        }
    }
    Ok(opts)
}

/// The session engine for the workspace (creating the store when `create`), having finished
/// any interrupted apply first (reported on standard error).
pub fn engine(ctx: &Context, create: bool) -> Result<genesis::engine::Engine, CliError> {
    Ok(engine_recovered(ctx, create)?.0)
}

/// [`engine`], and what its recovery finished (reported on standard error).
pub fn engine_recovered(
    ctx: &Context,
    create: bool,
) -> Result<(genesis::engine::Engine, genesis::engine::RecoverOutcome), CliError> {
    if !create && let Some(e) = ctx.no_store() {
        return Err(e);
    }
    let engine = genesis::engine::Engine::with_wait(ctx.workspace(), create, ctx.wait())?;
    let recovered = engine.recover_pending()?;
    for (s, r) in &recovered.rescued {
        eprintln!(
            "genesis: {} held neither its old nor its new content; saved it (blob {}) before finishing session {s}: `genesis restore {s}` brings it back",
            r.path, r.blob
        );
    }
    for s in &recovered.finished {
        eprintln!("genesis: finished the interrupted change of session {s} from its journal");
    }
    Ok((engine, recovered))
}

/// Whether human output on standard output is coloured: it is a terminal and `NO_COLOR` is
/// unset or empty (<https://no-color.org>).
pub fn colour_stdout() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Set once standard output is found closed (`genesis … | head`): later output is dropped.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes `text` to standard output. A closed pipe (`genesis … | head`) is not an error: the
/// rest of the output is dropped and the command finishes with its own exit status (so
/// `genesis check … --expect X | head -1` still exits 1 on a mismatch, and a command that
/// changes the workspace is never cut short by its reader going away). Any other write
/// failure (a full disk) is reported and ends the program with status 4. Never panics.
pub fn write_out(text: &str) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(e) = lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("genesis: error: writing standard output: {e}");
        std::process::exit(4);
    }
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `-q` was given: then only errors and the data a command exists to print (a diff, a
/// log, a status) are printed, as git's `-q` (no progress, no "recorded" or "store:" notes).
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// [`outln!`] unless `-q` ([`quiet`]): a note on what a command did, not its data.
#[macro_export]
macro_rules! noteln {
    ($($arg:tt)*) => {{
        if !$crate::cli::quiet() {
            $crate::outln!($($arg)*)
        }
    }};
}

/// `println!` to standard output through [`write_out`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::write_out("\n") };
    ($($arg:tt)*) => {{
        let mut s = format!($($arg)*);
        s.push('\n');
        $crate::cli::write_out(&s)
    }};
}

/// `print!` to standard output through [`write_out`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::write_out(&format!($($arg)*)) };
}

/// Prints `value` as pretty JSON with a final newline.
pub fn print_json(value: &serde_json::Value) {
    let mut s = serde_json::to_string_pretty(value).expect("serialisable");
    s.push('\n');
    write_out(&s);
}

/// A workspace path as the human output prints it: quoted as git does with core.quotePath
/// (`"caf\303\251.txt"`), so two spellings that look alike print differently
/// ([`genesis::diff::quote_path`]). `--json` output keeps paths unquoted.
pub fn shown(path: impl AsRef<str>) -> String {
    genesis::diff::quote_path("", path.as_ref())
}
