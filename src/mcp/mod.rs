//! `genesis mcp`: Genesis as a Model Context Protocol server, over standard input and output,
//! built on rmcp (the official Rust SDK). One workspace per server; every path a tool takes
//! stays inside it ([`scope`]).
//!
//! Tools (README "MCP server"): `snapshot`, `diff`, `check`, `open`, `patch`, `verify`,
//! `apply`, `abort`, `status`, `rebase`, `log`. Each one's input schema is derived from its type in
//! [`schemas`]; its result is the CLI's `--json` document for the command ([`crate::report`])
//! plus a short text; its errors carry the CLI's kind, exit code and `retryable`
//! ([`tools::ToolError`]). The server never runs a command other than the manifest's
//! obligations (`verify`).
//!
//! Modules: [`server`] (the rmcp handler: dispatch, blocking pool, notifications,
//! cancellation), [`tools`] (each tool over the library), [`schemas`] (the inputs),
//! [`progress`] (verify's observer), [`scope`] (the workspace and its path rule),
//! [`cap`] (the size limit of a result), [`transport`] (the stdio framing, and the answers to frames that are not messages).

pub mod cap;
pub mod progress;
pub mod schemas;
pub mod scope;
pub mod server;
pub mod tools;
pub mod transport;

pub use scope::Scope;
pub use server::GenesisServer;

/// Serves `scope` over standard input and output until the client closes them, on a tokio
/// runtime of its own (engine calls go to its blocking pool).
///
/// # Errors
/// The runtime cannot start, or the transport fails (the handshake, a closed pipe).
pub fn serve_stdio(scope: Scope) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = rt.block_on(GenesisServer::new(scope).serve_stdio());
    // The thread reading standard input may be blocked for ever (a client that sent SIGTERM
    // but keeps the pipe open): the runtime is not waited for. Every engine call has returned
    // by now (`serve_stdio` waits for them).
    rt.shutdown_background();
    served
}
