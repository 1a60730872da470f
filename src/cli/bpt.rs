//! `genesis bpt [REQUEST.json|-]`: act on a Block Play Table A2A execution request (seed 001).

use std::path::PathBuf;

use super::{CliError, Context};

/// Arguments of `genesis bpt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The request document (JSON), or `-` for standard input (the default).
    request: Option<PathBuf>,
}

/// Not built yet.
pub fn run(_ctx: &Context, _args: &Args) -> Result<u8, CliError> {
    Err(CliError::usage("genesis bpt is not implemented yet"))
}
