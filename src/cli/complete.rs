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
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = &args.dir else {
        let buf =
            render(cmd).map_err(|e| CliError::io(format!("rendering the manual page: {e}")))?;
        super::write_out(&String::from_utf8_lossy(&buf));
        return Ok(0);
    };
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::usage(format!(
            "--dir {}: not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(format!("{}: {e}", dir.display())))?;
    let mut pages = vec![cmd.clone()];
    pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for page in pages {
        let path = dir.join(clap_mangen::Man::new(page.clone()).get_filename());
        render(page)
            .and_then(|buf| std::fs::write(&path, buf))
            .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
        crate::outln!("{}", path.display());
    }
    Ok(0)
}

/// The manual page of `page` (built): clap_mangen's, without its `EXTRA` section (the
/// after-help text, which it fills and justifies); instead that text's `Examples:` block is an
/// `EXAMPLES` section and its `Exit status:` block an `EXIT STATUS` section, each a no-fill
/// (`.nf`) block as written; any other block goes under `NOTES` the same way.
fn render(page: clap::Command) -> std::io::Result<Vec<u8>> {
    let after = page.get_after_help().map(|s| s.to_string());
    let page = with_synopsis(page).after_help(None::<&'static str>);
    let mut buf = Vec::new();
    clap_mangen::Man::new(page).render(&mut buf)?;
    let Some(after) = after else {
        return Ok(buf);
    };
    let (mut examples, mut exit, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    for block in after.split("\n\n") {
        if let Some(rest) = block.strip_prefix("Examples:\n") {
            examples.extend(
                rest.lines()
                    .map(|l| l.strip_prefix("  ").unwrap_or(l).to_owned()),
            );
        } else if let Some(rest) = block.strip_prefix("Exit status: ") {
            exit.extend(rest.lines().map(str::to_owned));
        } else {
            notes.extend(block.lines().map(str::to_owned));
            notes.push(String::new());
        }
    }
    while notes.last().is_some_and(String::is_empty) {
        notes.pop();
    }
    for (title, lines) in [
        ("EXIT STATUS", exit),
        ("EXAMPLES", examples),
        ("NOTES", notes),
    ] {
        if lines.is_empty() {
            continue;
        }
        buf.extend_from_slice(format!(".SH \"{title}\"\n.nf\n").as_bytes());
        for l in lines {
            buf.extend_from_slice(roff_line(&l).as_bytes());
            buf.push(b'\n');
        }
        buf.extend_from_slice(b".fi\n");
    }
    Ok(buf)
}

/// `line` as literal roff text: backslashes escaped, hyphens as `\-` (so that commands copy
/// as typed), and a leading `.` or `'` made text with `\&`.
fn roff_line(line: &str) -> String {
    let s = line.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// `page` (built) with its SYNOPSIS written out as `--help` shows the options: each with its
/// value name (`[--store <DIR>]`, `[-q|--quiet]`), then the positional arguments (`<SESSION>`,
/// `[DIFF]`) and `<COMMAND>` when it has subcommands. clap_mangen's own synopsis leaves the
/// value names out. Only the manual page changes: `--help` keeps clap's usage line.
fn with_synopsis(page: clap::Command) -> clap::Command {
    let name = page
        .get_bin_name()
        .unwrap_or_else(|| page.get_name())
        .to_owned();
    let value = |a: &clap::Arg| -> String {
        a.get_value_names()
            .map(|v| {
                v.iter()
                    .map(|n| format!("<{n}>"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| format!("<{}>", a.get_id().as_str().to_ascii_uppercase()))
    };
    let mut parts = vec![name];
    for a in page
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let flag = match (a.get_short(), a.get_long()) {
            (Some(s), Some(l)) => format!("-{s}|--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => continue,
        };
        let takes =
            a.get_num_args().is_some_and(|r| r.takes_values()) && a.get_action().takes_values();
        let text = if takes {
            format!("{flag} {}", value(a))
        } else {
            flag
        };
        parts.push(if a.is_required_set() {
            text
        } else {
            format!("[{text}]")
        });
    }
    for a in page.get_positionals().filter(|a| !a.is_hide_set()) {
        let many = a.get_num_args().is_some_and(|r| r.max_values() > 1);
        let v = value(a);
        let v = if many { format!("{v}...") } else { v };
        parts.push(if a.is_required_set() {
            v
        } else {
            format!("[{}]", v.trim_start_matches('<').replace(">", ""))
        });
    }
    if page.has_subcommands() {
        parts.push("<COMMAND>".to_owned());
    }
    let synopsis = parts.join(" ");
    page.override_usage(synopsis)
}
