//! The pinned environment of the CLI output snapshots (`tests/cli_output.rs`): a fixed clock
//! and id seed, `TZ=UTC`, `LC_ALL=C`, `HOME` and `TMPDIR` inside the test's temporary
//! directory, and no other environment variable but `PATH`; the temporary directory's path is
//! replaced by `[TMP]` in what is shown.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::cli::genesis;
use super::workspace::write_tree;

/// The pinned clock: `GENESIS_TIMESTAMP` of every command.
pub const TIMESTAMP: &str = "2001-02-03T04:05:06Z";

/// A workspace `[TMP]/ws` whose commands run in the pinned environment.
pub struct Pinned {
    tmp: tempfile::TempDir,
    /// The workspace root, `[TMP]/ws`.
    pub root: PathBuf,
    /// The `GENESIS_RANDOMNESS_SEED` of the next command; each command takes the next one
    /// (1, 2, …), so that two processes never make the same id.
    seed: Cell<u64>,
}

impl Pinned {
    /// A workspace holding `files` (path → bytes, mode 0644; no manifest unless given).
    pub fn new(files: &[(&str, &[u8])]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        for d in ["ws", "home", "tmp"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        write_tree(&root, files);
        // Modes do not follow the umask, so that outputs listing them are the same everywhere.
        for (f, _) in files {
            super::workspace::chmod(&root.join(f), 0o644);
        }
        Pinned {
            tmp,
            root,
            seed: Cell::new(1),
        }
    }

    /// The temporary directory (shown as `[TMP]`).
    pub fn tmp(&self) -> &Path {
        self.tmp.path()
    }

    fn command(&self, args: &[&str]) -> assert_cmd::Command {
        self.command_env(args, &[])
    }

    fn command_env(&self, args: &[&str], env: &[(&str, &str)]) -> assert_cmd::Command {
        let seed = self.seed.get();
        self.seed.set(seed + 1);
        let mut c = genesis();
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("HOME", self.tmp.path().join("home"))
            .env("TMPDIR", self.tmp.path().join("tmp"))
            .env("GENESIS_TIMESTAMP", TIMESTAMP)
            .env("GENESIS_RANDOMNESS_SEED", seed.to_string())
            .current_dir(&self.root)
            .args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }

    /// Runs `genesis args…` in the workspace.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("runs")
    }

    /// Runs `genesis args…` in the workspace with the pinned environment changed by `env`
    /// (name, value).
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command_env(args, env).output().expect("runs")
    }

    /// Runs `genesis args…` in the workspace with `input` on standard input.
    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        self.command(args)
            .write_stdin(input.to_vec())
            .output()
            .expect("runs")
    }

    /// `text` with the temporary directory's path (as given and canonical) replaced by `[TMP]`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        let given = self.tmp.path().to_string_lossy().into_owned();
        if let Ok(canon) = self.tmp.path().canonicalize() {
            out = out.replace(&*canon.to_string_lossy(), "[TMP]");
        }
        out.replace(&given, "[TMP]")
    }

    /// What a command did, for a snapshot: its exit status, standard output and standard
    /// error, with the temporary directory redacted and durations (`0.01 s`) shown as `[s] s`.
    pub fn shown(&self, o: &Output) -> String {
        let code = o
            .status
            .code()
            .map_or_else(|| "signal".to_owned(), |c| c.to_string());
        redact_durations(&self.redact(&format!(
            "exit: {code}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )))
    }
}

/// `text` with every duration `DIGITS.DIGITS s` replaced by `[s] s`.
pub fn redact_durations(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if starts {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j < b.len() && b[j] == b'.' {
                let mut k = j + 1;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                if k > j + 1
                    && b[k..].starts_with(b" s")
                    && !b.get(k + 2).is_some_and(u8::is_ascii_alphanumeric)
                {
                    out.push_str(&text[copied..i]);
                    out.push_str("[s]");
                    copied = k;
                    i = k;
                    continue;
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}
