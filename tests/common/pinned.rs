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
    /// A workspace holding `genesis.json` = `manifest` and `files` (path → bytes).
    pub fn new(manifest: &[u8], files: &[(&str, &[u8])]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        for d in ["ws", "home", "tmp"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        write_tree(&root, &[("genesis.json", manifest)]);
        write_tree(&root, files);
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
        c
    }

    /// Runs `genesis args…` in the workspace.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("runs")
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
    /// error, redacted.
    pub fn shown(&self, o: &Output) -> String {
        let code = o
            .status
            .code()
            .map_or_else(|| "signal".to_owned(), |c| c.to_string());
        self.redact(&format!(
            "exit: {code}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}
