//! Replays saved fuzz inputs on stable Rust, without libFuzzer.
//!
//! Every file in `fuzz/regressions/<target>/` (inputs that once crashed, hung or ran out of
//! memory) and in `fuzz/seeds/<target>/` (the seed corpora) goes through the same function the
//! fuzz target calls (`fuzz/harness.rs`, included below), on its own thread with a time limit:
//! the input must return (whether `genesis` says Ok or Err) without a panic and without hanging.
//!
//! Inputs for bugs that are not fixed yet are listed in [`KNOWN_BUGS`]: the replay-all test skips
//! them, and each has its own `#[ignore = "bug: ..."]` test. Once the bug is fixed, remove the
//! `#[ignore]` and its line in [`KNOWN_BUGS`].

#[path = "../fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How long one input may run (unoptimised test build) before it counts as a hang.
const LIMIT: Duration = Duration::from_secs(30);

/// (target, file name) of saved inputs whose bug is still open; each has an ignored test below.
const KNOWN_BUGS: &[(&str, &str)] = &[];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn target_fn(target: &str) -> fn(&[u8]) {
    match target {
        "patch_apply" => harness::patch_apply,
        "patch_apply_structured" => harness::patch_apply_structured,
        "path_validate" => harness::path_validate,
        "snapshot_document" => harness::snapshot_document,
        other => panic!("unknown fuzz target directory {other:?}"),
    }
}

/// Runs one input on its own thread; panics naming the file if it panics or outlasts [`LIMIT`].
fn replay_file(target: &str, path: &Path) {
    let run = target_fn(target);
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        run(&data);
        let _ = tx.send(());
    });
    match rx.recv_timeout(LIMIT) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{}: still running after {LIMIT:?} (hang)", path.display())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{}: panicked (message above)", path.display())
        }
    }
}

/// Every file under `fuzz/<kind>/<target>/`, as (target, path), sorted.
fn inputs(kind: &str) -> Vec<(String, PathBuf)> {
    let root = fuzz_dir().join(kind);
    let mut out = Vec::new();
    let Ok(targets) = std::fs::read_dir(&root) else {
        return out;
    };
    for t in targets {
        let t = t.unwrap();
        if !t.file_type().unwrap().is_dir() {
            continue;
        }
        let target = t.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(t.path()).unwrap() {
            let f = f.unwrap();
            if f.file_type().unwrap().is_file() {
                out.push((target.clone(), f.path()));
            }
        }
    }
    out.sort();
    out
}

fn is_known_bug(target: &str, path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    KNOWN_BUGS.iter().any(|(t, n)| *t == target && *n == name)
}

fn replay_all(kind: &str) -> usize {
    let mut n = 0;
    for (target, path) in inputs(kind) {
        if is_known_bug(&target, &path) {
            continue;
        }
        replay_file(&target, &path);
        n += 1;
    }
    n
}

fn replay_known(target: &str, name: &str) {
    replay_file(
        target,
        &fuzz_dir().join("regressions").join(target).join(name),
    );
}

#[test]
fn regressions_replay_without_panic_or_hang() {
    replay_all("regressions");
}

#[test]
fn seeds_replay_without_panic_or_hang() {
    assert!(replay_all("seeds") > 0, "no seed corpus under fuzz/seeds");
}

#[test]
fn known_bug_inputs_exist() {
    for (target, name) in KNOWN_BUGS {
        let p = fuzz_dir().join("regressions").join(target).join(name);
        assert!(
            p.is_file(),
            "{} is listed in KNOWN_BUGS but missing",
            p.display()
        );
    }
}

/// A `GIT binary patch` whose zlib stream is cut short: diffy 0.5.2's inflate loop
/// (`BinaryPatch::decode_data`) never ended. Fixed: Genesis decodes blocks itself
/// (`decode_block` in `src/patch/apply.rs`) and requires a complete stream.
#[test]
fn hang_binary_truncated_zlib() {
    replay_known("patch_apply", "hang-binary-truncated-zlib");
}

/// Same loop, reached by a stream that inflates to exactly its declared size but lacks the
/// 4-byte Adler-32 trailer (fixed likewise).
#[test]
fn hang_binary_missing_adler() {
    replay_known("patch_apply", "hang-binary-missing-adler");
}

/// Found by `cargo fuzz run patch_apply` (minimised with `cargo fuzz tmin`): a `bin.dat` patch of
/// the harness's fixed tree whose `index` ids are right but whose literal block's zlib data is
/// damaged (and whose reverse block is garbage); the damaged stream neither errored nor ended
/// (fixed likewise).
#[test]
fn hang_binary_corrupt_zlib() {
    replay_known("patch_apply", "hang-binary-corrupt-zlib");
}
