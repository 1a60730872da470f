//! Obligations: the static rules a manifest demands of every patch (protected paths, limits)
//! and the commands that must exit 0 on the final snapshot; and the acceptance record that
//! says which ran on which snapshot and how they ended (DESIGN section 5).
//!
//! The acceptance record (schema `genesis/acceptance-v0.1`) holds no output and no timing, so
//! the same snapshot, manifest and results give the same hash on any machine:
//!
//! ```json
//! {"schema":"genesis/acceptance-v0.1","snapshot":"<identity>","manifest":"<blob>",
//!  "static":[{"id":"protected","passed":true,"paths":[]}, …],
//!  "obligations":[{"id":"test","run":["cargo","test"],"exit_code":0,"timed_out":false,"passed":true}],
//!  "obligations_ok":true}
//! ```
//!
//! `acceptance` = hex SHA-256 of its RFC 8785 (JCS) form; the store keeps that form as the
//! object of the same name.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::diff::{Change, Tree, changes};
use crate::hash::{Digest, canonical_json};
use crate::manifest::{Manifest, Obligation};

/// The `schema` value of acceptance records.
pub const ACCEPTANCE_SCHEMA: &str = "genesis/acceptance-v0.1";
/// Most bytes of one stream (stdout or stderr) kept in a log object; the rest is cut, with a
/// note at the end.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// Which output stream of an obligation a piece of output came from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `"stdout"` or `"stderr"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }

    /// Both streams, standard output first.
    pub const ALL: [Stream; 2] = [Stream::Stdout, Stream::Stderr];
}

/// The result of one static rule.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StaticResult {
    /// `protected`, `max_changed_files`, `max_files` or `max_file_bytes`.
    pub id: String,
    /// Whether the rule holds.
    pub passed: bool,
    /// The paths that break it (sorted), empty when it holds.
    pub paths: Vec<String>,
}

/// Checks the manifest's static rules for the change from `base` to `after`.
pub fn static_checks(
    manifest: &Manifest,
    root: &Path,
    base: &Tree,
    after: &Tree,
) -> Vec<StaticResult> {
    let changed: Vec<Change> = changes(base, after);
    let mut out = Vec::new();
    let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
    for g in &manifest.protected {
        let _ = builder.add_line(None, g);
    }
    let protected: Vec<String> = match builder.build() {
        Ok(gi) => changed
            .iter()
            .filter(|c| {
                gi.matched_path_or_any_parents(c.path.as_str(), false)
                    .is_ignore()
            })
            .map(|c| c.path.to_string())
            .collect(),
        Err(_) => Vec::new(),
    };
    out.push(StaticResult {
        id: "protected".into(),
        passed: protected.is_empty(),
        paths: protected,
    });
    if let Some(max) = manifest.limits.max_changed_files {
        let n = changed.len();
        out.push(StaticResult {
            id: "max_changed_files".into(),
            passed: n <= max,
            paths: if n <= max {
                Vec::new()
            } else {
                changed.iter().map(|c| c.path.to_string()).collect()
            },
        });
    }
    if let Some(max) = manifest.limits.max_file_bytes {
        let big: Vec<String> = after
            .snapshot
            .files()
            .iter()
            .filter(|f| f.bytes > max)
            .map(|f| f.path.to_string())
            .collect();
        out.push(StaticResult {
            id: "max_file_bytes".into(),
            passed: big.is_empty(),
            paths: big,
        });
    }
    if let Some(max) = manifest.limits.max_files {
        let n = after.snapshot.files().len();
        out.push(StaticResult {
            id: "max_files".into(),
            passed: n <= max,
            paths: Vec::new(),
        });
    }
    out
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The number of the first interrupting signal (0: none yet).
static SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    let _ = SIGNAL.compare_exchange(
        0,
        sig,
        std::sync::atomic::Ordering::SeqCst,
        std::sync::atomic::Ordering::SeqCst,
    );
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// The first signal (SIGINT 2, SIGHUP 1, SIGTERM 15) that interrupted Genesis since
/// [`install_interrupt_handler`], if one did: a process it ended exits `128 + signal`, as a
/// shell reports a process the signal killed.
pub fn interrupt_signal() -> Option<i32> {
    match SIGNAL.load(std::sync::atomic::Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP stop the running obligation instead of the process: its
/// whole process group is killed, and [`run_command`] returns with `interrupted` set, so the
/// caller can clean up (scratch directory) and report. Call once, from the binary.
pub fn install_interrupt_handler() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGHUP, handler);
    }
}

/// Whether an interrupt arrived since [`install_interrupt_handler`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// How one command obligation ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandResult {
    /// The obligation.
    pub obligation: Obligation,
    /// Exit code, `None` when killed by a signal or the timeout.
    pub exit_code: Option<i32>,
    /// Killed for running past `timeout_s`.
    pub timed_out: bool,
    /// Killed because Genesis itself was interrupted (SIGINT, SIGTERM, SIGHUP).
    pub interrupted: bool,
    /// Standard output (at most [`MAX_LOG_BYTES`]).
    pub stdout: Vec<u8>,
    /// Standard error (at most [`MAX_LOG_BYTES`]).
    pub stderr: Vec<u8>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CommandResult {
    /// Exit code 0 and not timed out.
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.interrupted
    }
}

/// Runs one obligation in `dir` without a shell, its standard input empty, its output captured
/// to temporary files (so a background process holding the streams cannot hang Genesis), in a
/// process group of its own that is killed whole (`SIGKILL`) at the timeout and after the
/// command ends, and by a watchdog if this process dies first ([`crate::lifeline`]).
///
/// A command that cannot be started (not found, not executable) is a failed obligation with
/// exit code 127 and the reason on its standard error, as a shell would report it.
///
/// `on_output` receives the output as it is written (polled every few milliseconds).
pub fn run_command(
    obligation: &Obligation,
    dir: &Path,
    env: &[(String, String)],
    on_output: &mut dyn FnMut(Stream, &[u8]),
) -> CommandResult {
    run_command_until(obligation, dir, env, None, on_output)
}

/// [`run_command`], also stopped when `cancel` is set (checked before the command starts and
/// every few milliseconds while it runs): its whole process group is killed (`SIGKILL`) and
/// the result has `interrupted` set, as for an interrupt of Genesis. For callers that stop
/// one operation without stopping the process (an MCP client's cancellation, `genesis mcp`).
pub fn run_command_until(
    obligation: &Obligation,
    dir: &Path,
    env: &[(String, String)],
    cancel: Option<&std::sync::atomic::AtomicBool>,
    on_output: &mut dyn FnMut(Stream, &[u8]),
) -> CommandResult {
    use std::os::unix::process::CommandExt;
    let start = Instant::now();
    let cancelled = || cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst));
    let failed = |msg: String, start: Instant| CommandResult {
        obligation: obligation.clone(),
        exit_code: Some(127),
        timed_out: false,
        interrupted: false,
        stdout: Vec::new(),
        stderr: msg.into_bytes(),
        seconds: start.elapsed().as_secs_f64(),
    };
    if cancelled() {
        return CommandResult {
            exit_code: None,
            interrupted: true,
            ..failed("genesis: cancelled before it started\n".into(), start)
        };
    }
    let (Ok(mut out_file), Ok(mut err_file)) = (tempfile::tempfile(), tempfile::tempfile()) else {
        return failed(
            "genesis: cannot create temporary files for output\n".into(),
            start,
        );
    };
    let (Ok(o), Ok(e)) = (out_file.try_clone(), err_file.try_clone()) else {
        return failed("genesis: cannot duplicate output files\n".into(), start);
    };
    let mut cmd = Command::new(&obligation.run[0]);
    cmd.args(&obligation.run[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(o)
        .stderr(e)
        .process_group(0);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(err) => {
            return failed(
                format!("genesis: cannot run {:?}: {err}\n", obligation.run[0]),
                start,
            );
        }
    };
    let pgid = child.id() as i32;
    // A watchdog kills the group if Genesis dies first, even by SIGKILL (`crate::lifeline`).
    let watchdog = crate::lifeline::arm(pgid);
    let timeout = Duration::from_secs(obligation.timeout_s);
    let mut timed_out = false;
    let mut was_interrupted = false;
    let mut offsets = [0u64; 2];
    let mut forward = |offsets: &mut [u64; 2]| {
        for (slot, (file, stream)) in [(&out_file, Stream::Stdout), (&err_file, Stream::Stderr)]
            .into_iter()
            .enumerate()
        {
            let new = read_from(file, &mut offsets[slot]);
            if !new.is_empty() {
                on_output(stream, &new);
            }
        }
    };
    let status = loop {
        forward(&mut offsets);
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        if interrupted() || cancelled() {
            was_interrupted = true;
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            break child.wait().ok();
        }
        if start.elapsed() >= timeout {
            timed_out = true;
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Anything the command left running in its group goes too.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    if let Some(w) = watchdog {
        crate::lifeline::disarm(w);
    }
    forward(&mut offsets);
    let seconds = start.elapsed().as_secs_f64();
    let exit_code = if timed_out || was_interrupted {
        None
    } else {
        status.and_then(|s| s.code())
    };
    CommandResult {
        obligation: obligation.clone(),
        exit_code,
        timed_out,
        interrupted: was_interrupted,
        stdout: read_capped(&mut out_file),
        stderr: read_capped(&mut err_file),
        seconds,
    }
}

/// Reads what `file` gained since `offset` (at most 1 MiB per call), advancing `offset`.
fn read_from(file: &std::fs::File, offset: &mut u64) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len <= *offset || *offset >= MAX_LOG_BYTES {
        return Vec::new();
    }
    let want = (len - *offset)
        .min(1024 * 1024)
        .min(MAX_LOG_BYTES - *offset);
    let mut buf = vec![0u8; want as usize];
    match file.read_at(&mut buf, *offset) {
        Ok(n) => {
            buf.truncate(n);
            *offset += n as u64;
            buf
        }
        Err(_) => Vec::new(),
    }
}

fn read_capped(f: &mut std::fs::File) -> Vec<u8> {
    use std::io::{Read, Seek};
    let mut buf = Vec::new();
    if f.seek(std::io::SeekFrom::Start(0)).is_err() {
        return buf;
    }
    let _ = f.take(MAX_LOG_BYTES).read_to_end(&mut buf);
    let total = f.metadata().map(|m| m.len()).unwrap_or(0);
    if total > MAX_LOG_BYTES {
        buf.extend_from_slice(
            format!("\n[genesis: output cut at {MAX_LOG_BYTES} of {total} bytes]\n").as_bytes(),
        );
    }
    buf
}

/// One obligation's line in the acceptance record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AcceptanceEntry {
    /// The obligation id.
    pub id: String,
    /// Its argv.
    pub run: Vec<String>,
    /// Exit code, `null` when killed.
    pub exit_code: Option<i32>,
    /// Killed at the timeout.
    pub timed_out: bool,
    /// Passed.
    pub passed: bool,
}

/// The acceptance record (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AcceptanceRecord {
    /// Always [`ACCEPTANCE_SCHEMA`].
    pub schema: String,
    /// The snapshot the obligations ran on.
    pub snapshot: Digest,
    /// Blob of the manifest the obligations were read from.
    pub manifest: Digest,
    /// The static rules.
    #[serde(rename = "static")]
    pub static_results: Vec<StaticResult>,
    /// The command obligations, in manifest order.
    pub obligations: Vec<AcceptanceEntry>,
    /// Every static rule and every obligation passed.
    pub obligations_ok: bool,
}

impl AcceptanceRecord {
    /// The ids of what did not pass: the static rules, then the command obligations.
    pub fn failed(&self) -> Vec<String> {
        self.static_results
            .iter()
            .filter(|s| !s.passed)
            .map(|s| s.id.clone())
            .chain(
                self.obligations
                    .iter()
                    .filter(|o| !o.passed)
                    .map(|o| o.id.clone()),
            )
            .collect()
    }

    /// Builds the record from the results.
    pub fn new(
        snapshot: Digest,
        manifest: Digest,
        static_results: Vec<StaticResult>,
        commands: &[CommandResult],
    ) -> Self {
        let obligations: Vec<AcceptanceEntry> = commands
            .iter()
            .map(|c| AcceptanceEntry {
                id: c.obligation.id.clone(),
                run: c.obligation.run.clone(),
                exit_code: c.exit_code,
                timed_out: c.timed_out,
                passed: c.passed(),
            })
            .collect();
        let obligations_ok =
            static_results.iter().all(|s| s.passed) && obligations.iter().all(|o| o.passed);
        AcceptanceRecord {
            schema: ACCEPTANCE_SCHEMA.into(),
            snapshot,
            manifest,
            static_results,
            obligations,
            obligations_ok,
        }
    }

    /// The ids of the static rules and obligations that failed, in record order.
    pub fn failed_ids(&self) -> Vec<String> {
        self.static_results
            .iter()
            .filter(|s| !s.passed)
            .map(|s| s.id.clone())
            .chain(
                self.obligations
                    .iter()
                    .filter(|o| !o.passed)
                    .map(|o| o.id.clone()),
            )
            .collect()
    }

    /// The JCS bytes (what is stored and hashed).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        canonical_json(self).expect("serialisable")
    }

    /// The acceptance hash: SHA-256 of [`AcceptanceRecord::canonical_bytes`].
    pub fn digest(&self) -> Digest {
        Digest::of(&self.canonical_bytes())
    }
}
