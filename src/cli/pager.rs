//! The pager of `diff` and `log` (as git's): when standard output is a terminal and neither
//! `--no-pager` nor `--json` is given, output goes through `$GENESIS_PAGER`, else `$PAGER`,
//! else `less -FRX` (`-F`: quit when it fits on one screen, `-R`: show colours, `-X`: leave the
//! text on the screen), run by `sh -c` as git runs its pager. An empty value or `cat` means no
//! pager. `LESS` is set to `FRX` when unset (git's `LESS` default). Not a terminal: no pager.

use std::io::{IsTerminal, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};

use super::Context;

/// A running pager; dropping it ends standard output and waits for the pager to quit.
pub struct Pager {
    child: Child,
}

/// The pager command: `$GENESIS_PAGER`, else `$PAGER`, else `less -FRX`; `None` when it is
/// empty or `cat`.
fn command() -> Option<String> {
    let chosen = ["GENESIS_PAGER", "PAGER"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .unwrap_or_else(|| "less -FRX".to_owned());
    let trimmed = chosen.trim();
    (!trimmed.is_empty() && trimmed != "cat").then(|| trimmed.to_owned())
}

/// Starts the pager and points standard output at it, when it applies (see the module
/// documentation). A pager that cannot be started is passed over: output goes to the
/// terminal, as git does.
pub fn start(ctx: &Context) -> Option<Pager> {
    if ctx.no_pager || ctx.json || !std::io::stdout().is_terminal() {
        return None;
    }
    let cmd = command()?;
    let mut c = Command::new("sh");
    c.arg("-c").arg(&cmd).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        c.env("LESS", "FRX");
    }
    let mut child = c.spawn().ok()?;
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
