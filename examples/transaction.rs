//! A whole transaction driven from Rust: open → patch → verify → apply.
//!
//! ```sh
//! cargo run --example transaction                      # the sample in testdata/demo
//! cargo run --example transaction -- WORKSPACE DIFF    # your own workspace (with genesis.json) and diff
//! ```
//!
//! With no arguments the sample workspace is copied to a temporary directory first, so the
//! repository is never changed. A step that fails after `open` aborts the session, so no open
//! session is left behind in the store it used.

use std::path::{Path, PathBuf};

use genesis::Workspace;
use genesis::engine::{ApplyOptions, Engine, Observer, OpenOptions, PatchInput, VerifyOptions};
use genesis::events::EventKind;
use genesis::obligation::CommandResult;

struct Print;

impl Observer for Print {
    /// Every operation reports its events here (the CLI's `--events` renders the same ones).
    fn event(&mut self, e: &EventKind) {
        let debug = format!("{e:?}");
        let name = debug.split([' ', '{', '(']).next().unwrap_or_default();
        if !name.starts_with("Obligation") {
            println!("   event {name}");
        }
    }
    fn obligation_started(&mut self, id: &str, run: &[String], _index: usize, _total: usize) {
        println!("   obligation {id}: {}", run.join(" "));
    }
    fn obligation_finished(&mut self, r: &CommandResult, _index: usize, _total: usize) {
        let out = String::from_utf8_lossy(&r.stdout);
        println!(
            "   obligation {}: {} ({:.2} s) {}",
            r.obligation.id,
            if r.passed() { "passed" } else { "FAILED" },
            r.seconds,
            out.trim()
        );
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
        }
    }
    Ok(())
}

/// Runs the transaction; on failure prints the error as a sentence (its `Display`, not Rust's
/// debug form) and exits 1.
fn main() -> std::process::ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("transaction: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<std::process::ExitCode, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let _tmp;
    let (root, diff_path): (PathBuf, PathBuf) = match args.as_slice() {
        [ws, diff] => (PathBuf::from(ws), PathBuf::from(diff)),
        [] => {
            let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/demo");
            _tmp = tempfile::tempdir()?;
            let root = _tmp.path().join("workspace");
            copy_dir(&demo.join("workspace"), &root)
                .map_err(|e| format!("copying the sample workspace: {e}"))?;
            (root, demo.join("change.diff"))
        }
        _ => return Err("usage: transaction [WORKSPACE DIFF]".into()),
    };
    // Every check first, so a mistake creates nothing (no store, no session).
    if !root.is_dir() {
        return Err(format!("{}: not a directory", root.display()).into());
    }
    let manifest = root.join(genesis::manifest::DEFAULT_MANIFEST);
    if !manifest.is_file() {
        return Err(format!(
            "{}: no manifest; `genesis init` in the workspace writes one",
            manifest.display()
        )
        .into());
    }
    genesis::manifest::Manifest::load(&manifest)?;
    let diff = std::fs::read(&diff_path)
        .map_err(|e| format!("{}: cannot read the diff: {e}", diff_path.display()))?;
    // Parsed before the store or a session is made: garbage creates nothing.
    genesis::patch::check_patch(&diff, &genesis::patch::PatchRules::default())
        .map_err(|e| format!("{}: {e}", diff_path.display()))?;

    println!("workspace: {}", root.display());
    let engine = Engine::new(Workspace::new(&root, None), true)?;
    engine.recover_pending()?;

    let opened = engine.open(&OpenOptions::default(), &mut Print)?;
    let id = opened.session.session.to_string();
    println!(
        "1. open     session {id}, base snapshot {}",
        opened.session.base_snapshot
    );

    // From here on, any failure aborts the session, so the example never leaves an open
    // session behind in the store it used (the workspace is unchanged: nothing was applied).
    match steps(&engine, &id, &diff, &diff_path) {
        Ok(code) => Ok(code),
        Err(e) => {
            let open = engine
                .status(&id)
                .is_ok_and(|(s, _)| s.status == genesis::session::Status::Open);
            if open {
                engine.abort(&id)?;
                return Err(format!("{e}; session {id} aborted").into());
            }
            Err(e)
        }
    }
}

/// Patch, verify and apply the open session `id`.
fn steps(
    engine: &Engine,
    id: &str,
    diff: &[u8],
    diff_path: &Path,
) -> Result<std::process::ExitCode, Box<dyn std::error::Error>> {
    let patched = engine.patch(id, PatchInput::Diff(diff), None, &mut Print)?;
    let Some(entry) = patched.entry else {
        return Err(format!("{}: the diff changes nothing", diff_path.display()).into());
    };
    println!(
        "2. patch    {} → {} ({} file(s))",
        entry.before_snapshot,
        entry.after_snapshot,
        patched.changes.len()
    );

    let verified = engine.verify(id, &VerifyOptions::default(), &mut Print)?;
    println!(
        "3. verify   obligations {}; acceptance {}",
        if verified.record.obligations_ok {
            "passed"
        } else {
            "FAILED"
        },
        verified.acceptance
    );
    if !verified.record.obligations_ok {
        engine.abort(id)?;
        println!("4. abort    the workspace is unchanged");
        return Ok(std::process::ExitCode::FAILURE);
    }

    let applied = engine.apply(id, &ApplyOptions::default(), &mut Print)?;
    for c in &applied.changes {
        println!("   {}\t{}", c.status.letter(), c.path);
    }
    println!(
        "4. apply    session {} is {}; the workspace now hashes to {}",
        id, applied.session.status, applied.session.current_snapshot
    );
    Ok(std::process::ExitCode::SUCCESS)
}
