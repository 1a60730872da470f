//! The pager of `diff` and `log` (as git's): when standard output is a terminal and neither
//! `--no-pager` nor `--json` is given, output goes through `$GENESIS_PAGER`, else `$PAGER`,
//! else `less -FRX` (`-F`: quit when it fits on one screen, `-R`: show colours, `-X`: leave the
//! text on the screen): run directly when it has no shell metacharacter, else by `sh -c`, as
//! git runs its pager. An empty value or `cat` means no pager. `LESS` is set to `FRX` when
//! unset (git's `LESS` default). Not a terminal: no pager. A pager that cannot be run (not
//! found, not executable) is passed over with a warning, and the output goes to standard
//! output (git: "unable to start pager"; nothing is lost).

use std::io::{IsTerminal, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};

use super::Context;

/// A running pager; dropping it ends standard output and waits for the pager to quit.
pub struct Pager {
    child: Child,
}

/// The pager command and the variable it came from: `$GENESIS_PAGER`, else `$PAGER`, else
/// `less -FRX` (`default`); `None` when it is empty or `cat`.
fn command() -> Option<(String, &'static str)> {
    let (chosen, from) = ["GENESIS_PAGER", "PAGER"]
        .iter()
        .find_map(|k| std::env::var(k).ok().map(|v| (v, *k)))
        .unwrap_or_else(|| ("less -FRX".to_owned(), "default"));
    let trimmed = chosen.trim();
    (!trimmed.is_empty() && trimmed != "cat").then(|| (trimmed.to_owned(), from))
}

/// Characters that make a pager command need the shell (git's `prepare_shell_cmd` list, less
/// the blanks, which only separate words).
const SHELL_META: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '#', '~', '=',
    '%', '{', '}',
];

/// Whether `program` (a word without `/`: looked up in `$PATH`; else a path) names an
/// executable file.
fn runnable(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let is_exe = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return is_exe(std::path::Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| is_exe(&d.join(program))))
}

/// Starts `cmd`: split into words and run directly when it needs no shell (so a program that
/// cannot be run fails here), else by `sh -c` once its first word is found runnable.
fn spawn(cmd: &str) -> std::io::Result<Child> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut c = if cmd.contains(SHELL_META) {
        if !runnable(words[0]) && !words[0].contains(SHELL_META) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: not found", words[0]),
            ));
        }
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    } else {
        let mut c = Command::new(words[0]);
        c.args(&words[1..]);
        c
    };
    c.stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        c.env("LESS", "FRX");
    }
    c.spawn()
}

/// Starts the pager and points standard output at it, when it applies (see the module
/// documentation). A pager that cannot be started is passed over with a warning: output goes
/// to the terminal, as git does.
pub fn start(ctx: &Context) -> Option<Pager> {
    if ctx.no_pager || ctx.json || !std::io::stdout().is_terminal() {
        return None;
    }
    let (cmd, from) = command()?;
    let mut child = match spawn(&cmd) {
        Ok(child) => child,
        Err(e) => {
            // git: a pager that cannot be run is passed over, and output goes to the terminal.
            if ctx.chatty() {
                eprintln!(
                    "genesis: warning: cannot run the pager `{cmd}` ({}): {e}; writing to standard output (`--no-pager` or PAGER=cat says so for good)",
                    if from == "default" {
                        "the default".to_owned()
                    } else {
                        format!("${from}")
                    }
                );
            }
            return None;
        }
    };
    let stdin = child.stdin.take()?;
    let _ = std::io::stdout().flush();
    // SAFETY: dup2 on two open descriptors; fd 1 now writes into the pager's pipe.
    if unsafe { libc::dup2(stdin.as_raw_fd(), 1) } < 0 {
        drop(stdin);
        let _ = child.wait();
        return None;
    }
    drop(stdin);
    Some(Pager { child })
}

impl Drop for Pager {
    fn drop(&mut self) {
        let _ = std::io::stdout().flush();
        // SAFETY: closing fd 1 (the pager's pipe) gives the pager end of input.
        unsafe {
            libc::close(1);
        }
        let _ = self.child.wait();
    }
}
