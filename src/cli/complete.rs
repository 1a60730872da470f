//! `genesis completions SHELL` and `genesis man [--dir DIR]`: shell completion scripts
//! (clap_complete) and manual pages (clap_mangen), both made from the same clap definitions
//! as the parser, so they never disagree with it. Neither reads a workspace or a store.

use std::path::PathBuf;

use clap::CommandFactory;

use super::{Cli, CliError};

/// Arguments of `genesis completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Arguments of `genesis man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write genesis.1 and one page per command (genesis-open.1, …) into DIR (made if
    /// missing) instead of printing genesis.1 on standard output.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for the shell on standard output.
pub fn completions(args: &CompletionsArgs) -> Result<u8, CliError> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "genesis", &mut buf);
    super::write_out(&String::from_utf8_lossy(&buf));
    Ok(0)
}

/// Prints the manual page genesis(1), or writes every page into `--dir`, listing each file
/// written on standard output.
///
/// # Errors
/// Exit 4 naming the directory or file that cannot be written.
pub fn man(args: &ManArgs) -> Result<u8, CliError> {
    let cmd = Cli::command();
    let Some(dir) = &args.dir else {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut buf)
            .map_err(|e| CliError::io(format!("rendering the manual page: {e}")))?;
        super::write_out(&String::from_utf8_lossy(&buf));
        return Ok(0);
    };
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(format!("{}: {e}", dir.display())))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut pages = vec![cmd.clone()];
    pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for page in pages {
        let man = clap_mangen::Man::new(page);
        let path = dir.join(man.get_filename());
        man.generate_to(dir)
            .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
        crate::outln!("{}", path.display());
    }
    Ok(0)
}
