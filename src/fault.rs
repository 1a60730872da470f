//! Failure injection: the one place every file-system step of apply and recovery passes
//! through, so a test can make step N crash the process or fail.
//!
//! Off unless the environment says otherwise (read once per process):
//!
//! - `GENESIS_FAULT=N:KIND`: at the N-th step (1-based, counted across the process), do KIND:
//!   `abort` (`std::process::abort`, so no destructor tidies up), `enospc` or `eio` (the step
//!   returns that I/O error), or `swap`: exchange the two paths named by
//!   `GENESIS_FAULT_SWAP=A|B` (three renames through a temporary name) and carry on — a
//!   deterministic stand-in for a concurrent process swapping a directory for a link in the
//!   middle of a write (see [`crate::beneath`]).
//! - `GENESIS_FAULT_TRACE=FILE`: append `N NAME` for every step to FILE (to count the steps).
//!
//! This is a test seam, documented so that nobody is surprised by it; it changes nothing when
//! the variables are unset.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Abort,
    Enospc,
    Eio,
    Swap,
}

struct Config {
    at: Option<(u64, Kind)>,
    trace: Option<std::path::PathBuf>,
}

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let at = std::env::var("GENESIS_FAULT").ok().and_then(|v| {
            let (n, k) = v.split_once(':')?;
            let kind = match k {
                "abort" => Kind::Abort,
                "enospc" => Kind::Enospc,
                "eio" => Kind::Eio,
                "swap" => Kind::Swap,
                _ => return None,
            };
            Some((n.parse().ok()?, kind))
        });
        Config {
            at,
            trace: std::env::var_os("GENESIS_FAULT_TRACE").map(Into::into),
        }
    })
}

static STEP: AtomicU64 = AtomicU64::new(0);

/// Marks one file-system step named `name` (for example `rename greeting.txt`).
///
/// # Errors
/// The injected `ENOSPC` or `EIO` when this is the configured step; never otherwise.
pub fn point(name: &str) -> std::io::Result<()> {
    let cfg = config();
    if cfg.at.is_none() && cfg.trace.is_none() {
        return Ok(());
    }
    let n = STEP.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(path) = &cfg.trace
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        // One write of the whole line: steps on two threads (a new snapshot's object and
        // document) must not interleave inside a line.
        let _ = f.write_all(format!("{n} {name}\n").as_bytes());
    }
    match cfg.at {
        Some((at, kind)) if at == n => match kind {
            Kind::Abort => std::process::abort(),
            Kind::Enospc => Err(std::io::Error::from_raw_os_error(libc::ENOSPC)),
            Kind::Eio => Err(std::io::Error::from_raw_os_error(libc::EIO)),
            Kind::Swap => {
                swap();
                Ok(())
            }
        },
        _ => Ok(()),
    }
}

/// Exchanges the two paths of `GENESIS_FAULT_SWAP=A|B` (a missing variable does nothing).
fn swap() {
    let Some(v) = std::env::var_os("GENESIS_FAULT_SWAP") else {
        return;
    };
    let v = v.to_string_lossy().into_owned();
    let Some((a, b)) = v.split_once('|') else {
        return;
    };
    let t = format!("{a}.genesis-fault-swap");
    let _ = std::fs::rename(a, &t);
    let _ = std::fs::rename(b, a);
    let _ = std::fs::rename(&t, b);
}
