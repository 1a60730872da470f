//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod git_apply;

use std::path::{Path, PathBuf};

use genesis::events::Dialect;
use serde_json::Value;
use std::process::Output;

/// A `genesis` command in a fixed environment: no colour, no store from the environment.
pub fn genesis() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("genesis").expect("binary built");
    c.env("NO_COLOR", "1").env_remove("GENESIS_STORE");
    c
}

/// Runs `genesis args…` in `dir` and returns the output.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    genesis()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
}

/// Writes `files` (path → bytes) under `root`, creating directories.
pub fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (p, data) in files {
        let full = root.join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, data).unwrap();
    }
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Standard output as a string.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as a string.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok()
}

/// Independent canonicalisation: Python's json.dumps with sorted keys, compact separators and
/// raw UTF-8 equals JCS for snapshot documents; returns the SHA-256 of that form of `doc` with
/// `identity` removed.
pub fn python_identity(doc_json: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys,json,hashlib\nd=json.load(sys.stdin)\nd.pop('identity',None)\nprint(hashlib.sha256(json.dumps(d,sort_keys=True,separators=(',',':'),ensure_ascii=False).encode()).hexdigest())",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc_json.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

const ORBIPLEX_BASE: &str =
    "https://orbiplex.invalid/schemas/agent.external-runtime.event.v1.schema.json";
const ORBIPLEX_CLASSIFICATION: &str =
    "https://orbiplex.invalid/schemas/classification.v1.schema.json";

/// A JSON file of the repository.
pub fn load(rel: &str) -> Value {
    let path = repo_root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema validator of an event dialect (seeds for BPT, Orbiplex and APS), formats on.
pub fn validator(dialect: Dialect) -> jsonschema::Validator {
    let opts = || jsonschema::draft202012::options().should_validate_formats(true);
    match dialect {
        Dialect::Genesis => opts()
            .build(&load("schemas/genesis-event-v0.1.schema.json"))
            .expect("genesis schema"),
        Dialect::Bpt => opts()
            .build(&load("schemas/seeds/bpt-execution-event-v1.schema.json"))
            .expect("bpt schema"),
        Dialect::Orbiplex => {
            // The seed's `$id` is a URN, an opaque base: RFC 3986 cannot resolve its relative
            // `$ref` "classification.v1.schema.json" against it (jsonschema refuses with
            // InvalidReferenceAgainstOpaqueBase), so the seed as given compiles in no validator.
            // The test moves it to a hierarchical base, changing nothing else, and puts the
            // stub beside it. See README, "Orbiplex".
            let mut seed =
                load("schemas/seeds/orbiplex-agent-external-runtime-event-v1.schema.json");
            assert_eq!(
                seed["$id"],
                "urn:orbiplex:schema:agent.external-runtime.event:v1"
            );
            seed["$id"] = ORBIPLEX_BASE.into();
            let registry = jsonschema::Registry::new()
                .add(
                    ORBIPLEX_CLASSIFICATION,
                    load("tests/stubs/classification.v1.schema.json"),
                )
                .expect("stub")
                .prepare()
                .expect("registry");
            opts()
                .with_registry(&registry)
                .build(&seed)
                .expect("orbiplex schema")
        }
        Dialect::Aps => {
            let registry = jsonschema::Registry::new()
                .add(
                    "https://aps.local/contracts/envelope.schema.json",
                    load("schemas/aps-envelope.schema.json"),
                )
                .expect("envelope")
                .prepare()
                .expect("registry");
            opts()
                .with_registry(&registry)
                .build(&load("schemas/seeds/aps-events.schema.json"))
                .expect("aps schema")
        }
    }
}

/// Whether the exhaustive suites run (every crash point of every enumeration):
/// `GENESIS_EXHAUSTIVE=1`, which `.ci/run` sets. A plain `cargo test` samples instead.
pub fn exhaustive() -> bool {
    std::env::var("GENESIS_EXHAUSTIVE").is_ok_and(|v| v == "1")
}

/// The fault-injection steps `1..=n` to try: every one when [`exhaustive`], otherwise the
/// first and last three and every `stride`-th step between, offset so that successive
/// strides land on different kinds of step.
pub fn sample_steps(n: usize, stride: usize) -> Vec<usize> {
    if exhaustive() || n <= 8 {
        return (1..=n).collect();
    }
    (1..=n)
        .filter(|&i| i <= 3 || i + 3 > n || i % stride == 1 || i % (stride + 1) == 2)
        .collect()
}

/// Runs `git -C dir args…` with a fixed identity and no system or global configuration;
/// panics (naming the command and git's message) when git fails. Returns standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("git's output is UTF-8")
}

/// Runs `genesis args…` in `dir` with `input` on standard input.
pub fn run_in_with_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    genesis()
        .current_dir(dir)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("runs")
}
