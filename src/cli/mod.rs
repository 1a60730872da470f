//! Command-line front end: one file per subcommand; all logic lives in the library.

mod abort;
mod apply;
mod bpt;
mod check;
mod diff;
mod error;
mod events;
mod init;
mod log;
mod open;
mod pager;
mod patch;
mod rebase;
mod recover;
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
#[command(name = "genesis", version, about, long_about = None)]
pub struct Cli {
    /// Workspace root. Default: the current directory.
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Store directory. Default: WORKSPACE/.genesis.
    #[arg(long, global = true, value_name = "DIR", env = "GENESIS_STORE")]
    store: Option<PathBuf>,
    /// Print one JSON document on standard output instead of human output.
    #[arg(long, global = true)]
    json: bool,
    /// Write the session's events to PATH as JSON lines (`-`: standard error).
    #[arg(long, global = true, value_name = "PATH")]
    events: Option<PathBuf>,
    /// The events' dialect: genesis, bpt (Block Play Table A2A), orbiplex or aps. Default:
    /// genesis (bpt for `genesis bpt`).
    #[arg(long, global = true, value_name = "DIALECT")]
    events_format: Option<String>,
    /// This worker's id in BPT events and requests. Default: genesis@HOSTNAME.
    #[arg(long, global = true, value_name = "ID", env = "GENESIS_WORKER_ID")]
    worker_id: Option<String>,
    /// Never start a pager (`diff` and `log` on a terminal use $GENESIS_PAGER, $PAGER or
    /// `less -FRX`).
    #[arg(long, global = true)]
    no_pager: bool,
    /// Seconds to wait for another process's store lock before exit 3.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 10)]
    wait: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Create the store and a default manifest (genesis.json) in the workspace.
    Init(init::Args),
    /// Snapshot a directory and print the snapshot document.
    Snapshot(snapshot::Args),
    /// Show the differences between two trees as a git-style diff.
    Diff(diff::Args),
    /// Check that a tree hashes to an expected snapshot (exit 1 with the differing paths if not).
    Check(check::Args),
    /// Validate session, snapshot and manifest documents against the bundled schemas.
    Validate(validate::Args),
    /// Open a session on the workspace as it is now; prints the session id.
    Open(open::Args),
    /// Record a patch (a diff, or a directory's state) in a session.
    Patch(patch::Args),
    /// Move an open session onto the workspace as it is now (a three-way merge per file);
    /// exit 3 with the conflicting paths and hunks when edits overlap.
    Rebase(rebase::Args),
    /// Run the manifest's obligations on the session's current snapshot.
    Verify(verify::Args),
    /// Write a verified session into the workspace, atomically.
    Apply(apply::Args),
    /// Throw a session away: an in-place workspace goes back to the base, a checkout is
    /// removed; files no patch recorded are saved first (`genesis restore` brings them back).
    Abort(abort::Args),
    /// Bring back the files `abort` saved.
    Restore(restore::Args),
    /// Show a session, or list all sessions.
    Status(status::Args),
    /// Print the output, exit status and duration of each obligation of a session's last
    /// verification (or of one obligation).
    Log(log::Args),
    /// Re-derive every patch's after_snapshot from the stored patch texts.
    Replay(replay::Args),
    /// Finish an interrupted apply from its journal (every command also does this first).
    Recover(recover::Args),
    /// Act on a Block Play Table A2A execution request (START, RETRY, CONTINUE,
    /// INTERACTION_RESPONSE); events go to --events in the bpt dialect.
    Bpt(bpt::Args),
}

/// What every command gets: the global options.
pub struct Context {
    /// `--workspace`, if given.
    pub workspace_arg: Option<PathBuf>,
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
}

impl Context {
    /// The workspace: `--workspace`, else `dir` when the command names one, else `.`.
    pub fn workspace_for(&self, dir: Option<&std::path::Path>) -> Workspace {
        let root = self
            .workspace_arg
            .clone()
            .or_else(|| dir.map(std::path::Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        Workspace::new(root, self.store_arg.clone())
    }

    /// How long to wait for the store lock.
    pub fn wait(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.wait)
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
                let message = e.kind().to_string();
                let detail = e.to_string();
                let first = detail.lines().next().unwrap_or(&message);
                print_json(&serde_json::json!({
                    "error": {"code": 2, "message": first.trim_start_matches("error: ")}
                }));
            }
            return ExitCode::from(code);
        }
    };
    let ctx = Context {
        workspace_arg: cli.workspace.clone(),
        store_arg: cli.store.clone(),
        json: cli.json,
        wait: cli.wait,
        events: cli.events.clone(),
        events_format: cli.events_format.clone(),
        worker_id: cli.worker_id.clone(),
        no_pager: cli.no_pager,
    };
    if let Some(Err(e)) = cli
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
    if let Some(p) = cli.events.as_ref().filter(|p| p.as_os_str() != "-")
        && let Err(e) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
    {
        let e = CliError::io(format!("--events {}: {e}", p.display()));
        e.report(ctx.json);
        return ExitCode::from(e.code);
    }
    let result = match &cli.command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Snapshot(a) => snapshot::run(&ctx, a),
        Command::Diff(a) => diff::run(&ctx, a),
        Command::Check(a) => check::run(&ctx, a),
        Command::Validate(a) => validate::run(&ctx, a),
        Command::Open(a) => open::run(&ctx, a),
        Command::Patch(a) => patch::run(&ctx, a),
        Command::Rebase(a) => rebase::run(&ctx, a),
        Command::Verify(a) => verify::run(&ctx, a),
        Command::Apply(a) => apply::run(&ctx, a),
        Command::Abort(a) => abort::run(&ctx, a),
        Command::Restore(a) => restore::run(&ctx, a),
        Command::Status(a) => status::run(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Replay(a) => replay::run(&ctx, a),
        Command::Recover(a) => recover::run(&ctx, a),
        Command::Bpt(a) => bpt::run(&ctx, a),
    };
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
    if let Ok(Some(store)) = ctx.workspace().existing_store() {
        let extra = genesis::session::checkout_tracked(&store, dir)?;
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

/// Writes `text` to standard output. A closed pipe (`genesis … | head`) ends the program
/// quietly with status 0, as ripgrep does; any other write failure (a full disk) is reported
/// and ends it with status 4. Never panics.
pub fn write_out(text: &str) {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(e) = lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("genesis: error: writing standard output: {e}");
        std::process::exit(4);
    }
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
