//! Warnings and notes on standard error, and how often they are given: `-q` (none), default
//! (a repeated warning once), `-v` (every warning, every time), as git's `-q`/`-v`.
//!
//! **Skipped entries.** A snapshot leaves out symbolic links, FIFOs, sockets and devices and
//! says so (`genesis: skipped link: symbolic link (not followed)`). The same links would
//! otherwise be reported by every `snapshot`, `open` and `patch`, so each set of skipped
//! entries is reported once per store and tree: the store remembers it in the file
//! `.genesis/warned`, one line per tree, `SHA-256 of the tree's path and its skipped entries`
//! in hex, the newest [`REMEMBERED`] kept. A set that changes (a link added or removed) is
//! reported again, whole. Without a store (`snapshot --no-store`, or none found) nothing is
//! remembered and every run reports. `-v` reports every time; `-q` never. `--json` output
//! lists the skipped entries every time either way.

use std::io::Write;
use std::path::Path;

use genesis::snapshot::Skipped;

/// How many sets of skipped entries `.genesis/warned` remembers (the newest are kept).
pub const REMEMBERED: usize = 256;

/// The name of the file in the store that remembers what was reported.
pub const WARNED_FILE: &str = "warned";

/// How chatty standard error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    /// `-q`: no warnings and no notes (errors still).
    Quiet,
    /// Warnings once, notes.
    #[default]
    Normal,
    /// `-v`: every warning, every time.
    Verbose,
}

/// Prints `skipped` on standard error (`genesis: skipped PATH: REASON`) unless `verbosity` is
/// quiet, or the store at `store` (if any) remembers having reported exactly this set for the
/// tree `root` (`-v` reports anyway). A store that cannot be read or written only means the
/// report is repeated next time.
pub fn report_skipped(
    verbosity: Verbosity,
    store: Option<&Path>,
    root: &Path,
    skipped: &[Skipped],
) {
    if skipped.is_empty() || verbosity == Verbosity::Quiet {
        return;
    }
    let key = store.map(|s| (s.join(WARNED_FILE), set_key(root, skipped)));
    let remembered = key
        .as_ref()
        .and_then(|(file, _)| genesis::regular::read(file).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default();
    let seen = key
        .as_ref()
        .is_some_and(|(_, k)| remembered.lines().any(|l| l == k));
    if seen && verbosity != Verbosity::Verbose {
        return;
    }
    let mut text = String::new();
    for s in skipped {
        text.push_str(&format!("genesis: skipped {}: {}\n", s.path, s.reason));
    }
    if let Some((file, k)) = &key
        && !seen
    {
        text.push_str("genesis: (said once for these entries; -v says it every time)\n");
        let mut lines: Vec<&str> = remembered.lines().filter(|l| !l.is_empty()).collect();
        lines.push(k);
        let keep = &lines[lines.len().saturating_sub(REMEMBERED)..];
        remember(file, keep);
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// The line that stands for the set `skipped` of the tree `root`: hex SHA-256 of the
/// canonical path of `root` and each entry's path and reason.
fn set_key(root: &Path, skipped: &[Skipped]) -> String {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut text = root.to_string_lossy().into_owned();
    let mut entries: Vec<String> = skipped
        .iter()
        .map(|s| format!("\0{}\0{:?}", s.path, s.reason))
        .collect();
    entries.sort();
    text.extend(entries);
    genesis::Digest::of(text.as_bytes()).to_hex()
}

/// Writes `lines` to `file` through a temporary file and a rename, so a reader never sees half
/// of it; failures are ignored (the warning is then given again).
fn remember(file: &Path, lines: &[&str]) {
    let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
    let mut body = lines.join("\n");
    body.push('\n');
    if std::fs::write(&tmp, body).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
