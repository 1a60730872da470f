//! `genesis mcp`: serve the workspace over the Model Context Protocol on standard input and
//! output (the server is the library's, [`genesis::mcp`]).

use super::{CliError, Context};

/// Arguments of `genesis mcp` (the workspace is the global `--workspace`, else the one found
/// above the current directory, else the current directory).
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Serves until the client closes standard input (exit 0), or a signal ends it: exit
/// 128 + the signal's number (SIGTERM 143, SIGINT 130, SIGHUP 129), as a shell reports it.
pub fn run(ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    let ws = ctx.workspace();
    let scope = genesis::mcp::Scope::new(ws.root(), ctx.store_arg.clone(), ctx.wait())
        .map_err(|e| CliError::usage(format!("{}: {e}", ws.root().display())))?;
    // SIGINT, SIGTERM and SIGHUP (an MCP client's shutdown sends SIGTERM) stop the running
    // obligations' process groups and end the server, rather than leave them running.
    genesis::obligation::install_interrupt_handler();
    genesis::mcp::serve_stdio(scope).map_err(|e| CliError::io(format!("mcp: {e}")))?;
    Ok(genesis::obligation::interrupt_signal().map_or(0, |s| (128 + s) as u8))
}
