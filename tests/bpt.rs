//! `genesis bpt`: BPT execution requests (seed 001) driving sessions end to end. Every request
//! sent validates against the seed; every event line validates against seed 000 with formats on;
//! `event.sequence` runs 1..N per execution across processes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use genesis::events::Dialect;
use serde_json::Value;

const WORKER: &str = "worker-test";
const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[
  {"id":"has-greeting","run":["sh","-c","test -f greeting.txt"],"timeout_s":30}
]}"#;

struct Setup {
    _dir: tempfile::TempDir,
    top: PathBuf,
    ws: PathBuf,
    events: PathBuf,
}

impl Setup {
    fn new(manifest: &[u8]) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let ws = top.join("ws");
        write_tree(
            &ws,
            &[("genesis.json", manifest), ("greeting.txt", b"hi\n")],
        );
        Setup {
            events: top.join("events.jsonl"),
            top,
            ws,
            _dir: dir,
        }
    }

    fn work_root(&self) -> PathBuf {
        self.top.join(".genesis-worktrees")
    }

    /// `genesis [--json] --events FILE --worker-id WORKER bpt -` with the request on stdin.
    fn bpt_as(&self, worker: &str, request: &Value, json: bool) -> Output {
        let errors: Vec<String> = request_validator()
            .iter_errors(request)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "test request invalid: {errors:#?}");
        let mut c = genesis();
        c.current_dir(&self.ws)
            .env_remove("GENESIS_WORKER_ID")
            .env_remove("GENESIS_WORK_ROOT")
            .args([
                "--events",
                self.events.to_str().unwrap(),
                "--worker-id",
                worker,
            ]);
        if json {
            c.arg("--json");
        }
        c.args(["bpt", "-"])
            .write_stdin(serde_json::to_vec(request).unwrap())
            .output()
            .unwrap()
    }

    fn bpt(&self, request: &Value) -> Output {
        self.bpt_as(WORKER, request, true)
    }

    fn events(&self) -> Vec<Value> {
        match std::fs::read_to_string(&self.events) {
            Ok(t) => t
                .lines()
                .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    fn session_status(&self, id: &str) -> String {
        let doc: Value = serde_json::from_slice(
            &std::fs::read(self.ws.join(format!(".genesis/sessions/{id}.json"))).unwrap(),
        )
        .unwrap();
        doc["status"].as_str().unwrap().to_owned()
    }
}

fn request_validator() -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&load("schemas/seeds/bpt-execution-request-v1.schema.json"))
        .unwrap()
}

fn fixture(name: &str) -> Value {
    load(&format!("testdata/bpt/{name}.json"))
}

fn resume(mut req: Value, worktree: &Path) -> Value {
    req["resume"]["worktreePath"] = worktree.to_str().unwrap().into();
    req
}

/// Every line validates against seed 000; per execution, `sequence` is exactly 1..N.
fn check_events(lines: &[Value]) {
    let v = validator(Dialect::Bpt);
    for line in lines {
        let errors: Vec<String> = v
            .iter_errors(line)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{line}\n{errors:#?}");
        assert_eq!(line["scope"]["workerId"], WORKER);
    }
    let mut execs: Vec<&str> = lines
        .iter()
        .map(|l| l["scope"]["executionId"].as_str().unwrap())
        .collect();
    execs.dedup();
    execs.sort();
    execs.dedup();
    for exec in execs {
        let seq: Vec<u64> = lines
            .iter()
            .filter(|l| l["scope"]["executionId"] == exec)
            .map(|l| l["event"]["sequence"].as_u64().unwrap())
            .collect();
        let expect: Vec<u64> = (1..=seq.len() as u64).collect();
        assert_eq!(seq, expect, "execution {exec}");
    }
}

fn types(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l["event"]["type"].as_str().unwrap())
        .collect()
}

#[test]
fn start_continue_approve_applies_with_gapless_sequence() {
    let s = Setup::new(MANIFEST);
    // START: a worktree outside the workspace, pre command run in it.
    let out = ok_json(&s.bpt(&fixture("start")));
    assert_eq!(out["status"], "ready");
    let worktree = PathBuf::from(out["worktree"].as_str().unwrap());
    assert_eq!(worktree, s.work_root().join("demo-task-42-exec-1"));
    assert_eq!(
        std::fs::read(worktree.join("greeting.txt")).unwrap(),
        b"hi\n"
    );
    let session = out["session"].as_str().unwrap().to_owned();
    assert!(session.starts_with("bpt-"));
    let ev = s.events();
    assert_eq!(types(&ev)[..2], ["execution.accepted", "workspace.ready"]);
    assert_eq!(ev[1]["runtime"]["worktreePath"], worktree.to_str().unwrap());
    assert!(
        ev.iter().any(|l| l["payload"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("preparing in demo-task-42-exec-1"))),
        "pre command output in the events"
    );
    // A second START of the same execution is a state conflict.
    let again = s.bpt(&fixture("start"));
    assert_eq!(again.status.code(), Some(3), "{}", stderr(&again));

    // The agent edits the worktree.
    std::fs::write(worktree.join("greeting.txt"), b"hello\n").unwrap();
    write_tree(&worktree, &[("notes/new.txt", b"new file\n")]);

    // CONTINUE: records and verifies (the manifest's obligation and commands.post).
    let out = ok_json(&s.bpt(&resume(fixture("continue"), &worktree)));
    assert_eq!(out["status"], "verified", "{out}");
    assert_eq!(out["session"], session.as_str());
    assert_eq!(out["files_changed"], 2);
    let interaction = out["interaction_id"].as_str().unwrap().to_owned();
    let ev = s.events();
    let requested = ev
        .iter()
        .rfind(|l| l["event"]["type"] == "interaction.requested")
        .expect("approval requested");
    assert_eq!(requested["payload"]["interactionId"], interaction.as_str());
    assert!(
        ev.iter().any(|l| l["payload"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("bpt-post-1"))),
        "post command ran as an obligation"
    );
    let doc: Value = serde_json::from_slice(
        &std::fs::read(s.ws.join(format!(".genesis/sessions/{session}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["patches"].as_array().unwrap().len(), 1);
    assert!(doc["patches"][0]["acceptance"].is_string(), "{doc}");

    // An approval for something else is refused; nothing is written.
    let mut stale = resume(fixture("approve"), &worktree);
    stale["interaction"]["id"] = "genesis-apply:1:0000".into();
    let o = s.bpt(&stale);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(std::fs::read(s.ws.join("greeting.txt")).unwrap(), b"hi\n");

    // APPROVE applies.
    let mut approve = resume(fixture("approve"), &worktree);
    approve["interaction"]["id"] = interaction.as_str().into();
    let out = ok_json(&s.bpt(&approve));
    assert_eq!(out["status"], "applied");
    assert_eq!(
        std::fs::read(s.ws.join("greeting.txt")).unwrap(),
        b"hello\n"
    );
    assert_eq!(
        std::fs::read(s.ws.join("notes/new.txt")).unwrap(),
        b"new file\n"
    );
    assert_eq!(s.session_status(&session), "applied");
    assert!(!worktree.exists(), "the worktree is removed after apply");

    let ev = s.events();
    check_events(&ev);
    let seq: Vec<u64> = ev
        .iter()
        .map(|l| l["event"]["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seq, (1..=ev.len() as u64).collect::<Vec<_>>());
    let t = types(&ev);
    assert_eq!(
        t[t.len() - 2..],
        ["interaction.resolved", "execution.terminal"]
    );
    assert_eq!(ev.last().unwrap()["payload"]["status"], "COMPLETED");
    for turn in [1, 2, 3] {
        assert!(ev.iter().any(|l| l["scope"]["turn"] == turn), "turn {turn}");
    }
    // A request after the end is refused.
    let o = s.bpt(&approve);
    assert_eq!(o.status.code(), Some(2), "worktree gone: {}", stderr(&o));
}

#[test]
fn retry_aborts_the_previous_session_and_opens_a_fresh_worktree() {
    let s = Setup::new(MANIFEST);
    let first = ok_json(&s.bpt(&fixture("start")));
    let first_session = first["session"].as_str().unwrap().to_owned();
    let first_tree = PathBuf::from(first["worktree"].as_str().unwrap());
    std::fs::write(first_tree.join("scratch.txt"), b"agent was here\n").unwrap();

    let out = ok_json(&s.bpt(&fixture("retry")));
    assert_eq!(out["status"], "ready");
    assert_eq!(out["previous_session"], first_session.as_str());
    let session = out["session"].as_str().unwrap();
    assert_ne!(session, first_session);
    let tree = PathBuf::from(out["worktree"].as_str().unwrap());
    assert_ne!(tree, first_tree);
    assert_eq!(tree, s.work_root().join("demo-task-42-exec-2-a2"));
    assert!(!tree.join("scratch.txt").exists());
    assert_eq!(std::fs::read(tree.join("greeting.txt")).unwrap(), b"hi\n");
    assert!(!first_tree.exists(), "the old worktree is removed");
    assert_eq!(s.session_status(&first_session), "aborted");
    assert_eq!(s.session_status(session), "open");

    // The old execution's stream ends CANCELED; the new one starts at 1.
    let ev = s.events();
    check_events(&ev);
    let old: Vec<&Value> = ev
        .iter()
        .filter(|l| l["scope"]["executionId"] == "exec-1")
        .collect();
    assert_eq!(old.last().unwrap()["event"]["type"], "execution.terminal");
    assert_eq!(old.last().unwrap()["payload"]["status"], "CANCELED");
    let new: Vec<&Value> = ev
        .iter()
        .filter(|l| l["scope"]["executionId"] == "exec-2")
        .collect();
    assert_eq!(new[0]["event"]["type"], "execution.accepted");
    assert_eq!(new[0]["scope"]["attempt"], 2);

    // The old execution cannot be continued; the new one can.
    let o = s.bpt(&resume(fixture("continue"), &first_tree));
    assert_ne!(o.status.code(), Some(0));
    std::fs::write(tree.join("greeting.txt"), b"hello\n").unwrap();
    let mut cont = resume(fixture("continue"), &tree);
    cont["scope"]["executionId"] = "exec-2".into();
    cont["scope"]["attempt"] = 2.into();
    let out = ok_json(&s.bpt(&cont));
    assert_eq!(out["status"], "verified");
    check_events(&s.events());
}

#[test]
fn wrong_worker_is_refused_before_anything_is_created() {
    let s = Setup::new(MANIFEST);
    let o = s.bpt_as("someone-else", &fixture("start"), true);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = json_out(&o);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("worker-test"),
        "{err}"
    );
    assert!(!s.ws.join(".genesis").exists(), "no store");
    assert!(!s.work_root().exists(), "no worktree");
    assert!(s.events().is_empty(), "no events");
    // Also without --json, and for the default worker id.
    let mut c = genesis();
    let o = c
        .current_dir(&s.ws)
        .env_remove("GENESIS_WORKER_ID")
        .args(["bpt", "-"])
        .write_stdin(serde_json::to_vec(&fixture("start")).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("genesis"), "{}", stderr(&o));
    assert!(!s.ws.join(".genesis").exists());
    assert!(!s.work_root().exists());
}

#[test]
fn invalid_requests_name_json_pointers() {
    let s = Setup::new(MANIFEST);
    let mut req = fixture("start");
    req["worktree"]["mode"] = "RESUME".into();
    req["command"]["issuedAt"] = "yesterday".into();
    let mut c = genesis();
    let o = c
        .current_dir(&s.ws)
        .args(["--json", "--worker-id", WORKER, "bpt", "-"])
        .write_stdin(serde_json::to_vec(&req).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let msg = json_out(&o)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(msg.contains("/command/issuedAt"), "{msg}");
    assert!(msg.contains("/worktree/mode"), "{msg}");
    assert!(!s.ws.join(".genesis").exists());
    // Not JSON; a missing file.
    let o = genesis()
        .current_dir(&s.ws)
        .args(["bpt", "-"])
        .write_stdin("{nope")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = genesis()
        .current_dir(&s.ws)
        .args(["bpt", "no-such-request.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// Every file under `dir`, recursively, as bytes.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir(dir) {
        if let Ok(data) = std::fs::read(&entry) {
            out.push((entry, data));
        }
    }
    out
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                files.push(e.path());
            }
        }
    }
    files
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn sensitive_values_never_appear_anywhere() {
    const SECRET: &str = "s3cr3t-Value-4242-zz";
    let s = Setup::new(br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#);
    let with_secret = |mut req: Value| {
        req["environment"]["variables"][1]["value"] = SECRET.into();
        req["commands"]["pre"] = serde_json::json!([
            "echo \"pre sees $API_TOKEN\"; echo \"and on stderr $API_TOKEN\" >&2"
        ]);
        req["commands"]["post"] = serde_json::json!([
            "printf 'token=%s\\n' \"$API_TOKEN\"",
            // 32760 filler characters, then the secret across the 32768-character chunk boundary.
            "head -c 32760 /dev/zero | tr '\\0' x; printf '%s' \"$API_TOKEN\"; printf 'tail\\n'",
            "test \"$PLAIN_SETTING\" = visible && test \"${#API_TOKEN}\" -eq 20",
            // The secret in two writes 200 ms apart: two reads, two pieces of output.
            "printf 'half:%s' \"${API_TOKEN%??????????}\"; sleep 0.2; printf '%s:end\\n' \"${API_TOKEN#??????????}\"",
            // Fails, with the secret on both streams (so the human report prints it, redacted).
            "echo \"failing with $API_TOKEN\"; echo \"$API_TOKEN\" >&2; exit 1"
        ]);
        req
    };
    let mut outputs: Vec<Output> = Vec::new();
    let start = s.bpt_as(WORKER, &with_secret(fixture("start")), false);
    assert_eq!(start.status.code(), Some(0), "{}", stderr(&start));
    let worktree = s.work_root().join("demo-task-42-exec-1");
    outputs.push(start);
    std::fs::write(worktree.join("greeting.txt"), b"hello\n").unwrap();
    let cont = with_secret(resume(fixture("continue"), &worktree));
    let o = s.bpt_as(WORKER, &cont, false);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("[REDACTED]"), "{}", stderr(&o));
    outputs.push(o);
    let o = s.bpt_as(WORKER, &cont, true);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(json_out(&o)["failed"], serde_json::json!(["bpt-post-5"]));
    outputs.push(o);
    // An invalid request holding the secret: the error names the pointer, not the value.
    let mut bad = with_secret(fixture("continue"));
    bad["environment"]["variables"][1]["extra"] = SECRET.into();
    let mut c = genesis();
    let o = c
        .current_dir(&s.ws)
        .args(["--json", "--worker-id", WORKER, "bpt", "-"])
        .write_stdin(serde_json::to_vec(&bad).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("/environment/variables/1"),
        "{}",
        stdout(&o)
    );
    outputs.push(o);
    // A command holding the value literally is refused without repeating it.
    let mut literal = with_secret(fixture("continue"));
    literal["commands"]["post"] = serde_json::json!([format!("echo {SECRET}")]);
    let o = s.bpt_as(WORKER, &resume(literal, &worktree), true);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("API_TOKEN"));
    outputs.push(o);

    for o in &outputs {
        assert!(!contains(&o.stdout, SECRET), "stdout: {}", stdout(o));
        assert!(!contains(&o.stderr, SECRET), "stderr: {}", stderr(o));
    }
    let events = std::fs::read(&s.events).unwrap();
    assert!(!contains(&events, SECRET), "events file");
    // The secret split across chunks is caught too: no piece of it survives at a boundary.
    assert!(!contains(&events, &SECRET[..10]), "events file (prefix)");
    assert!(!contains(&events, &SECRET[10..]), "events file (suffix)");
    let ev = s.events();
    check_events(&ev);
    let text = std::fs::read_to_string(&s.events).unwrap();
    assert!(text.contains("pre sees [REDACTED]"), "pre output redacted");
    assert!(text.contains("token=[REDACTED]"));
    // The filler and the secret went out as log chunks (how they are cut depends on how the
    // output was read; the redactor holds back any tail that may start the secret).
    let out: String = ev
        .iter()
        .filter(|l| l["payload"]["stream"] == "stdout")
        .filter_map(|l| l["payload"]["content"].as_str())
        .collect();
    assert!(
        out.contains(&format!("{}[REDACTED]tail", "x".repeat(32760))),
        "the secret after the filler is redacted"
    );
    assert!(
        out.contains("half:[REDACTED]:end"),
        "a secret split across reads"
    );
    for (path, data) in all_files(&s.ws.join(".genesis")) {
        assert!(
            !contains(&data, SECRET),
            "{} holds the secret",
            path.display()
        );
    }
    for (path, data) in all_files(&s.work_root()) {
        assert!(
            !contains(&data, SECRET),
            "{} holds the secret",
            path.display()
        );
    }
}

#[test]
fn deny_aborts_and_bad_worktree_paths_are_refused() {
    let s = Setup::new(MANIFEST);
    let out = ok_json(&s.bpt(&fixture("start")));
    let session = out["session"].as_str().unwrap().to_owned();
    let worktree = PathBuf::from(out["worktree"].as_str().unwrap());
    std::fs::write(worktree.join("greeting.txt"), b"hello\n").unwrap();

    // A link outside the work root to the worktree is fine only if it resolves inside: here
    // it is outside pointing outside.
    let outside = s.top.join("elsewhere");
    write_tree(&outside, &[("greeting.txt", b"evil\n")]);
    let link_out = s.top.join("link-out");
    std::os::unix::fs::symlink(&outside, &link_out).unwrap();
    let inner_out = s.work_root().join("link-to-elsewhere");
    std::os::unix::fs::symlink(&outside, &inner_out).unwrap();
    let dangling = s.work_root().join("dangling");
    std::os::unix::fs::symlink(s.top.join("nothing-here"), &dangling).unwrap();
    for (path, what) in [
        (&link_out, "link outside"),
        (&inner_out, "link inside pointing outside"),
        (&dangling, "dangling link"),
        (&outside, "directory outside"),
        (&s.ws, "the workspace"),
    ] {
        let o = s.bpt(&resume(fixture("continue"), path));
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let msg = json_out(&o)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.contains("resume.worktreePath"), "{what}: {msg}");
    }
    let doc: Value = serde_json::from_slice(
        &std::fs::read(s.ws.join(format!(".genesis/sessions/{session}.json"))).unwrap(),
    )
    .unwrap();
    assert!(
        doc["patches"].as_array().unwrap().is_empty(),
        "nothing recorded"
    );

    // A link inside the work root that resolves to the worktree is accepted.
    let good_link = s.work_root().join("current");
    std::os::unix::fs::symlink(&worktree, &good_link).unwrap();
    let out = ok_json(&s.bpt(&resume(fixture("continue"), &good_link)));
    assert_eq!(out["status"], "verified");

    // DENY aborts: the workspace is untouched, the worktree removed.
    let deny = resume(fixture("deny"), &worktree);
    let out = ok_json(&s.bpt(&deny));
    assert_eq!(out["status"], "aborted");
    assert_eq!(s.session_status(&session), "aborted");
    assert_eq!(std::fs::read(s.ws.join("greeting.txt")).unwrap(), b"hi\n");
    assert!(!worktree.exists());
    let ev = s.events();
    check_events(&ev);
    let last = ev.last().unwrap();
    assert_eq!(last["event"]["type"], "execution.terminal");
    assert_eq!(last["payload"]["status"], "CANCELED");
    assert!(
        ev.iter()
            .any(|l| l["event"]["type"] == "execution.diagnostic"),
        "refusals after the execution is known are reported as events"
    );
}

#[test]
fn continue_of_an_unknown_execution_is_a_conflict() {
    let s = Setup::new(MANIFEST);
    let wr = s.work_root();
    std::fs::create_dir_all(wr.join("x")).unwrap();
    let o = s.bpt(&resume(fixture("continue"), &wr.join("x")));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!s.ws.join(".genesis").exists());
}

#[test]
fn a_failing_pre_command_fails_the_execution() {
    let s = Setup::new(MANIFEST);
    let mut req = fixture("start");
    req["commands"]["pre"] = serde_json::json!(["echo setting up", "echo broken >&2; exit 3"]);
    let o = s.bpt(&req);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = json_out(&o);
    assert_eq!(out["status"], "failed");
    assert_eq!(out["failed"], serde_json::json!(["bpt-pre-2"]));
    assert_eq!(
        s.session_status(out["session"].as_str().unwrap()),
        "aborted"
    );
    assert!(!s.work_root().join("demo-task-42-exec-1").exists());
    let ev = s.events();
    check_events(&ev);
    let last = ev.last().unwrap();
    assert_eq!(last["event"]["type"], "execution.terminal");
    assert_eq!(last["payload"]["status"], "FAILED");
    assert_eq!(last["payload"]["errorCode"], "pre-command-failed");
    // RETRY starts over.
    let out = ok_json(&s.bpt(&fixture("retry")));
    assert_eq!(out["status"], "ready");
}

/// A manifest excluding `target/` with one obligation that always passes.
const MANIFEST_EXCLUDING_TARGET: &[u8] = br#"{"schema":"genesis/manifest-v0.1","exclude":["target/"],"obligations":[{"id":"ok","run":["true"]}]}"#;

/// Files beside [`MANIFEST_EXCLUDING_TARGET`].
const A_AND_KEEP_FILES: &[(&str, &[u8])] = &[("a.txt", b"a\n"), ("keep/me.txt", b"mine\n")];

#[test]
fn a_sensitive_value_too_short_to_redact_is_refused() {
    let d = workspace(MANIFEST_EXCLUDING_TARGET, A_AND_KEEP_FILES);
    let mut req: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::repo_root().join("testdata/bpt/start.json")).unwrap(),
    )
    .unwrap();
    let vars = req["environment"]["variables"].as_array_mut().unwrap();
    vars.push(serde_json::json!({"key": "SHORT", "value": "bpt", "sensitive": true}));
    let f = d.path().join("req.json");
    std::fs::write(&f, req.to_string()).unwrap();
    let o = run_in(
        d.path(),
        &["--worker-id", "worker-test", "bpt", f.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SHORT is marked sensitive but its value has fewer than 8 characters"),
        "{}",
        stderr(&o)
    );
    assert!(!d.path().join(".genesis").exists());
}
