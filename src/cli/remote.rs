//! The `--remote URL` option of `push`, `pull`, `check --accepted` and
//! `verify --reuse-acceptance`, and what they say in a binary built without the `remote`
//! feature (exit 2).

use super::CliError;

/// `--remote URL` (else `GENESIS_REMOTE`) and `--concurrency N`.
#[derive(clap::Args, Debug, Clone)]
pub struct RemoteArgs {
    /// The shared store: s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, az://CONTAINER/PREFIX,
    /// file:///PATH or memory:// (credentials from each service's environment variables).
    #[arg(
        long,
        value_name = "URL",
        env = "GENESIS_REMOTE",
        hide_env_values = true
    )]
    pub remote: Option<String>,
    /// Transfers in flight at once.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,
}

/// The error of a command that needs the `remote` feature in a binary built without it.
#[cfg(not(feature = "remote"))]
pub fn unavailable(what: &str) -> CliError {
    CliError::usage(format!(
        "{what} needs the remote store, and this genesis was built without the `remote` feature (cargo build --features remote)"
    ))
}

/// The remote `args` names.
///
/// # Errors
/// Exit 2 without `--remote` or `GENESIS_REMOTE`, or for a URL that cannot be used.
#[cfg(feature = "remote")]
pub fn open(args: &RemoteArgs) -> Result<genesis::remote::Remote, CliError> {
    let Some(url) = &args.remote else {
        return Err(CliError::usage(
            "no remote: pass --remote URL or set GENESIS_REMOTE",
        ));
    };
    if url
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("memory:"))
    {
        return Err(CliError::usage(format!(
            "remote {url:?}: memory:// is for the library and tests (the store lives only in this process, so everything a command wrote would be lost); use s3://, gs://, az:// or file:///absolute/path"
        )));
    }
    genesis::remote::Remote::open(url).map_err(remote_err)
}

/// A remote error with its exit status.
#[cfg(feature = "remote")]
pub fn remote_err(e: genesis::remote::RemoteError) -> CliError {
    CliError::from_source(e.kind(), e)
}
