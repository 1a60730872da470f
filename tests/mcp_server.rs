//! `genesis mcp` end to end, driven by rmcp's own client spawning the built binary over stdio:
//! the handshake, the tool list (every input schema compiles as JSON Schema), a whole
//! transaction, a failing obligation, an apply conflict, a cancelled verify, and 100 malformed
//! or hostile calls after which the server still answers and nothing outside the workspace
//! changed.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, JsonObject,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A client that keeps every logging message the server sends.
#[derive(Clone, Default)]
struct Client {
    logs: Arc<Mutex<Vec<Value>>>,
}

#[allow(deprecated)]
impl ClientHandler for Client {
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params.data);
    }
}

type Conn = RunningService<RoleClient, Client>;

/// `genesis mcp --workspace ROOT`, connected and initialised, logging at level `info`.
#[allow(deprecated)]
async fn connect(root: &Path) -> (Conn, Client) {
    let (conn, client) = connect_quiet(root).await;
    let level = rmcp::model::SetLevelRequestParams::new(rmcp::model::LoggingLevel::Info);
    conn.peer()
        .set_level(level)
        .await
        .expect("logging/setLevel");
    (conn, client)
}

/// `genesis mcp --workspace ROOT`, connected and initialised; no logging level set.
async fn connect_quiet(root: &Path) -> (Conn, Client) {
    connect_env(root, &[]).await
}

/// `genesis mcp --workspace ROOT` with `env` added, connected and initialised; no logging
/// level set.
async fn connect_env(root: &Path, env: &[(&str, &str)]) -> (Conn, Client) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_genesis"));
    cmd.arg("mcp").arg("--workspace").arg(root);
    cmd.env_remove("GENESIS_STORE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let transport = TokioChildProcess::new(cmd).expect("spawn genesis mcp");
    let client = Client::default();
    let conn = client.clone().serve(transport).await.expect("initialize");
    (conn, client)
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        other => panic!("not an object: {other}"),
    }
}

/// Calls `name` with `args`: the result, or the protocol error's text.
async fn call(conn: &Conn, name: &str, args: Value) -> Result<CallToolResult, String> {
    let call = conn
        .peer()
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(obj(args)));
    // An unanswered call fails the test rather than hanging it.
    tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .unwrap_or_else(|_| panic!("{name}: no answer in 60 s"))
        .map_err(|e| e.to_string())
}

/// Calls `name`, which must succeed: its structured content.
async fn ok(conn: &Conn, name: &str, args: Value) -> Value {
    let r = call(conn, name, args.clone()).await.unwrap_or_else(|e| {
        panic!("{name} {args}: protocol error {e}");
    });
    assert_eq!(r.is_error, Some(false), "{name} {args}: {r:?}");
    assert!(!r.content.is_empty(), "{name}: a text summary");
    r.structured_content.expect("structured content")
}

/// Calls `name`, which must fail as a tool error: its `{kind, exit_code, retryable, message}`.
async fn tool_err(conn: &Conn, name: &str, args: Value) -> Value {
    let r = call(conn, name, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{name} {args}: protocol error {e}, not a tool error"));
    assert_eq!(r.is_error, Some(true), "{name} {args}: {r:?}");
    r.structured_content.expect("structured error")
}

const BROKEN: &[u8] = b"broken\n";
const FIX: &str = "diff --git a/greet.txt b/greet.txt\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-broken\n+fixed\n";
const WRONG: &str = "diff --git a/greet.txt b/greet.txt\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-broken\n+still broken\n";

/// A workspace (inside `outer/ws`) whose obligation passes when greet.txt says "fixed" and
/// prints "checking greet.txt" first; and a sibling directory `outer/sibling`.
fn setup(obligation: Value) -> (tempfile::TempDir, PathBuf) {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("ws");
    let manifest = json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [obligation],
    });
    common::write_tree(
        &root,
        &[
            ("genesis.json", manifest.to_string().as_bytes()),
            ("greet.txt", BROKEN),
            ("sub/keep.txt", b"keep\n"),
        ],
    );
    common::write_tree(
        &outer.path().join("sibling"),
        &[("secret.txt", b"do not touch\n"), ("x/y.txt", b"y\n")],
    );
    common::ok(&common::run_in(&root, &["init"]));
    (outer, root)
}

fn greet_obligation() -> Value {
    json!({"id": "greet", "run": ["sh", "-c", "echo checking greet.txt; grep -qx fixed greet.txt"], "timeout_s": 30})
}

#[tokio::test]
async fn initialize_and_list_tools_with_valid_schemas() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect(&root).await;
    let info = conn.peer_info().expect("the server's initialize result");
    assert_eq!(info.server_info.as_ref().unwrap().name, "genesis");
    assert!(info.capabilities.tools.is_some());
    let tools = conn.peer().list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "abort", "apply", "check", "diff", "log", "open", "patch", "rebase", "snapshot",
            "status", "verify"
        ]
    );
    for t in &tools {
        let schema = Value::Object(t.input_schema.as_ref().clone());
        assert_eq!(schema["type"], "object", "{}", t.name);
        let v = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("{}: schema does not compile: {e}", t.name));
        // The schema refuses a member the tool does not take, as the server does.
        assert!(!v.is_valid(&json!({"no_such_member": 1})), "{}", t.name);
        let d = t.description.as_deref().unwrap_or("");
        if t.name == "verify" {
            assert!(
                d.contains("no command but the obligations"),
                "{}: {d}",
                t.name
            );
        } else {
            assert!(d.contains("Runs no command"), "{}: {d}", t.name);
        }
    }
    let patch = tools.iter().find(|t| t.name == "patch").unwrap();
    let v = jsonschema::validator_for(&Value::Object(patch.input_schema.as_ref().clone())).unwrap();
    assert!(v.is_valid(&json!({"session": "s1", "diff": FIX})));
    assert!(!v.is_valid(&json!({"session": 5})));
    assert!(!v.is_valid(&json!({})));
    conn.cancel().await.unwrap();
}

#[tokio::test]
async fn a_whole_transaction_changes_the_workspace_and_check_passes() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, client) = connect(&root).await;
    let opened = ok(&conn, "open", json!({"session": "t1"})).await;
    assert_eq!(opened["session"]["session"], "t1");
    assert_eq!(opened["session"]["status"], "open");
    let patched = ok(&conn, "patch", json!({"session": "t1", "diff": FIX})).await;
    assert_eq!(
        patched["changes"],
        json!([{"status": "M", "path": "greet.txt"}])
    );
    let verified = ok(&conn, "verify", json!({"session": "t1"})).await;
    assert_eq!(verified["record"]["obligations_ok"], true);
    assert_eq!(verified["obligations_run"], 1);
    // The obligation's output came as logging notifications while it ran.
    let logs = client.logs.lock().unwrap().clone();
    assert!(
        logs.iter()
            .any(|l| l["event"] == "output" && l["text"] == "checking greet.txt\n"),
        "{logs:?}"
    );
    assert!(
        logs.iter()
            .any(|l| l["event"] == "finished" && l["passed"] == true)
    );
    let applied = ok(&conn, "apply", json!({"session": "t1"})).await;
    assert_eq!(applied["written"], true);
    assert_eq!(std::fs::read(root.join("greet.txt")).unwrap(), b"fixed\n");
    let current = applied["session"]["current_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    let checked = ok(&conn, "check", json!({"expect": current})).await;
    assert_eq!(checked["match"], true);
    assert_eq!(checked["differences"], json!([]));
    // The same documents as the CLI's --json.
    let cli = common::ok_json(&common::run_in(&root, &["--json", "status", "t1"]));
    let status = ok(&conn, "status", json!({"session": "t1"})).await;
    assert_eq!(status, cli);
    assert_eq!(status["session"]["status"], "applied");
    let cli_check = common::ok_json(&common::run_in(
        &root,
        &["--json", "check", "--expect", &current],
    ));
    assert_eq!(checked, cli_check);
    // A stored snapshot checked instead of a directory (issue 11), as `check SNAPSHOT`.
    let base = applied["session"]["base_snapshot"].as_str().unwrap();
    let stored = ok(&conn, "check", json!({"dir": base, "expect": current})).await;
    assert_eq!(stored["match"], false);
    assert_eq!(stored["actual"], base);
    assert_eq!(
        stored["differences"],
        json!([{"status": "M", "path": "greet.txt"}])
    );
    let o = common::run_in(&root, &["--json", "check", base, "--expect", &current]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stored, common::json_out(&o));
    conn.cancel().await.unwrap();
}

#[tokio::test]
async fn a_failing_obligation_is_a_result_with_obligations_ok_false() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, client) = connect(&root).await;
    ok(&conn, "open", json!({"session": "f1"})).await;
    ok(&conn, "patch", json!({"session": "f1", "diff": WRONG})).await;
    let r = call(&conn, "verify", json!({"session": "f1"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let v = r.structured_content.unwrap();
    assert_eq!(v["record"]["obligations_ok"], false);
    assert_eq!(v["record"]["obligations"][0]["id"], "greet");
    assert_eq!(v["record"]["obligations"][0]["exit_code"], 1);
    let text = format!("{:?}", r.content);
    assert!(text.contains("FAILED") && text.contains("greet"), "{text}");
    let logs = client.logs.lock().unwrap().clone();
    assert!(
        logs.iter()
            .any(|l| l["event"] == "finished" && l["passed"] == false && l["exit_code"] == 1)
    );
    // Not verified: apply refuses (state, exit 3), the workspace is untouched.
    let e = tool_err(&conn, "apply", json!({"session": "f1"})).await;
    assert_eq!(e["exit_code"], 3, "{e}");
    assert_eq!(e["kind"], "state", "{e}");
    assert_eq!(std::fs::read(root.join("greet.txt")).unwrap(), BROKEN);
    conn.cancel().await.unwrap();
}

#[tokio::test]
async fn an_apply_conflict_is_kind_conflict_exit_code_3() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect(&root).await;
    ok(&conn, "open", json!({"session": "c1"})).await;
    ok(&conn, "patch", json!({"session": "c1", "diff": FIX})).await;
    ok(&conn, "verify", json!({"session": "c1"})).await;
    // Someone else changes the file under the session.
    std::fs::write(root.join("greet.txt"), b"changed meanwhile\n").unwrap();
    let e = tool_err(&conn, "apply", json!({"session": "c1"})).await;
    assert_eq!(e["kind"], "conflict", "{e}");
    assert_eq!(e["exit_code"], 3);
    assert_eq!(e["retryable"], false);
    assert!(e["message"].as_str().unwrap().contains("greet.txt"), "{e}");
    assert_eq!(
        std::fs::read(root.join("greet.txt")).unwrap(),
        b"changed meanwhile\n"
    );
    conn.cancel().await.unwrap();
}

/// Whether process `pid` is gone (no /proc entry, or a zombie waiting for its parent).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn a_cancelled_verify_kills_the_obligation_and_leaves_the_session_as_it_was() {
    let pids = tempfile::tempdir().unwrap();
    let pidfile = pids.path().join("pids");
    let (_outer, root) = setup(json!({
        "id": "slow",
        "run": ["sh", "-c", format!("sleep 30 & echo $$ $! > {}; wait", pidfile.display())],
        "timeout_s": 120,
    }));
    let (conn, _) = connect(&root).await;
    ok(&conn, "open", json!({"session": "k1"})).await;
    ok(&conn, "patch", json!({"session": "k1", "diff": FIX})).await;
    let state = root.join(".genesis/sessions/k1.state");
    let doc = root.join(".genesis/sessions/k1.json");
    let before = (std::fs::read(&state).unwrap(), std::fs::read(&doc).unwrap());
    let params = CallToolRequestParams::new("verify").with_arguments(obj(json!({"session": "k1"})));
    let handle = conn
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let ids = wait_for_pids(&pidfile).await;
    assert_eq!(ids.len(), 2);
    assert!(ids.iter().all(|&p| !gone(p)), "running");
    // A long verify does not block status.
    let t = Instant::now();
    let st = ok(&conn, "status", json!({"session": "k1"})).await;
    let status_took = t.elapsed();
    assert_eq!(st["session"]["status"], "open");
    assert!(
        status_took < Duration::from_secs(2),
        "status took {status_took:?}"
    );
    handle.cancel(Some("test cancels".into())).await.unwrap();
    let t = Instant::now();
    while !ids.iter().all(|&p| gone(p)) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "obligation processes survive: {ids:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let killed_in = t.elapsed();
    // The server goes on, and the session is byte for byte as before verify.
    let st = ok(&conn, "status", json!({"session": "k1"})).await;
    assert_eq!(st["session"]["verification"], Value::Null);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        std::fs::read(&state).unwrap(),
        before.0,
        "state file changed"
    );
    assert_eq!(
        std::fs::read(&doc).unwrap(),
        before.1,
        "session document changed"
    );
    eprintln!(
        "status during verify: {status_took:?}; processes gone {killed_in:?} after the cancel"
    );

    // A client that goes away during verify takes the obligation with it.
    std::fs::remove_file(&pidfile).unwrap();
    let params = CallToolRequestParams::new("verify").with_arguments(obj(json!({"session": "k1"})));
    let _pending = conn
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let ids = wait_for_pids(&pidfile).await;
    conn.cancel().await.unwrap();
    let t = Instant::now();
    while !ids.iter().all(|&p| gone(p)) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "obligation processes survive the client: {ids:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        std::fs::read(&state).unwrap(),
        before.0,
        "state file changed"
    );
}

/// The pids the slow obligation wrote (its shell and its `sleep`), once it has.
async fn wait_for_pids(pidfile: &Path) -> Vec<u32> {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(pidfile)
            && s.ends_with('\n')
        {
            return s.split_whitespace().map(|p| p.parse().unwrap()).collect();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the obligation never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every file under `dir` with its bytes (symbolic links as their target).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        let p = e.path().strip_prefix(dir).unwrap().to_path_buf();
        if e.path_is_symlink() {
            out.insert(
                p,
                std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes(),
            );
        } else if e.file_type().is_file() {
            out.insert(p, std::fs::read(e.path()).unwrap());
        } else {
            out.insert(p, b"<dir>".to_vec());
        }
    }
    out
}

fn new_file_diff(path: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n"
    )
}

fn edit_diff(old: &str, new: &str) -> String {
    format!("--- a/{old}\n+++ b/{new}\n@@ -1 +1 @@\n-do not touch\n+pwned\n")
}

#[tokio::test]
async fn a_hundred_hostile_calls_leave_the_server_answering_and_the_outside_untouched() {
    let (outer, root) = setup(greet_obligation());
    let sibling = outer.path().join("sibling");
    std::os::unix::fs::symlink(&sibling, root.join("link_out")).unwrap();
    let (conn, _) = connect(&root).await;
    ok(&conn, "open", json!({"session": "h1"})).await;
    let outside_before = tree(&sibling);
    let outer_before: Vec<_> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let sib = sibling.display().to_string();

    let huge = "x".repeat(20 * 1024 * 1024);
    // Well formed, but its context is not the file's: refused, not recorded.
    let huge_diff = format!(
        "--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-not the content\n+{}\n",
        "y".repeat(20 * 1024 * 1024)
    );
    let mut calls: Vec<(&str, Value, Option<&str>)> = Vec::new();
    // Unknown tools (protocol errors).
    for name in [
        "rm",
        "exec",
        "shell",
        "",
        "../status",
        "status ",
        "STATUS",
        "run",
        "init",
        "recover",
    ] {
        calls.push((name, json!({}), None));
    }
    // Wrong types and unknown members (protocol errors).
    for args in [
        json!({"session": 5}),
        json!({"session": null}),
        json!({"session": ["h1"]}),
        json!({"session": {"id": "h1"}}),
        json!({"session": true}),
        json!({}),
        json!({"session": "h1", "extra": 1}),
        json!({"session": "h1", "cmd": "rm -rf /"}),
    ] {
        calls.push(("verify", args, None));
    }
    for args in [
        json!({"session": "h1", "dry_run": "yes"}),
        json!({"session": "h1", "strict": 1}),
        json!({"session": 1.5}),
    ] {
        calls.push(("apply", args, None));
    }
    calls.push(("patch", json!({"session": "h1", "diff": 42}), None));
    calls.push(("patch", json!({"session": "h1", "from_dir": false}), None));
    calls.push(("snapshot", json!({"dir": 7}), None));
    calls.push(("check", json!({}), None));
    calls.push(("open", json!({"in_place": "true"}), None));
    // Bad ids (tool errors, bad input).
    for id in [
        "",
        "x",
        "../../etc/passwd",
        "../h1",
        "a/b",
        "h1/../h1",
        "..",
        ".",
        "%2e%2e",
        "h1\u{0}",
        "nonexistent-session",
        "0000",
        "h1 ",
        " h1",
        "/etc/passwd",
        "h1;rm -rf /",
        "$(id)",
        "`id`",
    ] {
        calls.push(("status", json!({"session": id}), Some("bad-input")));
    }
    calls.push(("verify", json!({"session": "../../x"}), Some("bad-input")));
    calls.push(("apply", json!({"session": "no-such"}), Some("bad-input")));
    calls.push(("abort", json!({"session": "../h1"}), Some("bad-input")));
    calls.push(("diff", json!({"a": "no-such-session"}), Some("bad-input")));
    calls.push(("open", json!({"session": "../escape"}), Some("bad-input")));
    calls.push((
        "open",
        json!({"session": "a".repeat(65)}),
        Some("bad-input"),
    ));
    calls.push(("check", json!({"expect": "zz"}), Some("bad-input")));
    calls.push((
        "check",
        json!({"expect": "0".repeat(63)}),
        Some("bad-input"),
    ));
    // Paths outside the workspace (tool errors, bad input).
    for dir in [
        "..",
        "../",
        "../sibling",
        "/",
        "/etc",
        &sib,
        "../../..",
        "sub/../../sibling",
        "link_out",
        "link_out/x",
        "./../ws/../sibling",
    ] {
        calls.push(("snapshot", json!({"dir": dir}), Some("bad-input")));
    }
    calls.push((
        "check",
        json!({"dir": "..", "expect": "0".repeat(64)}),
        Some("bad-input"),
    ));
    calls.push((
        "check",
        json!({"dir": "link_out", "expect": "0".repeat(64)}),
        Some("bad-input"),
    ));
    calls.push((
        "diff",
        json!({"a": "../sibling", "b": "."}),
        Some("bad-input"),
    ));
    calls.push(("diff", json!({"a": ".", "b": &sib}), Some("bad-input")));
    calls.push((
        "patch",
        json!({"session": "h1", "from_dir": "../sibling"}),
        Some("bad-input"),
    ));
    calls.push((
        "patch",
        json!({"session": "h1", "from_dir": "link_out"}),
        Some("bad-input"),
    ));
    calls.push((
        "patch",
        json!({"session": "h1", "from_dir": "/tmp"}),
        Some("bad-input"),
    ));
    calls.push((
        "open",
        json!({"manifest": "../sibling/secret.txt"}),
        Some("bad-input"),
    ));
    calls.push((
        "open",
        json!({"manifest": "/etc/passwd"}),
        Some("bad-input"),
    ));
    for dir in ["sub/../..", "//etc", "\u{0}", "./..", "sub/./../../"] {
        calls.push(("snapshot", json!({"dir": dir}), Some("bad-input")));
    }
    calls.push(("diff", json!({"a": "..", "b": "."}), Some("bad-input")));
    calls.push((
        "check",
        json!({"dir": "/", "expect": "0".repeat(64)}),
        Some("bad-input"),
    ));
    calls.push((
        "patch",
        json!({"session": "h1", "from_dir": ".."}),
        Some("bad-input"),
    ));
    calls.push(("abort", json!({"session": "%00"}), Some("bad-input")));
    // Traversal in diffs (tool errors, bad input).
    for d in [
        new_file_diff("../sibling/pwned.txt"),
        new_file_diff("../../pwned.txt"),
        new_file_diff("/tmp/pwned.txt"),
        new_file_diff("sub/../../sibling/pwned.txt"),
        new_file_diff(".genesis/format"),
        new_file_diff(".git/config"),
        new_file_diff("sub/../greet2.txt"),
        edit_diff("../sibling/secret.txt", "../sibling/secret.txt"),
        edit_diff(&format!("{sib}/secret.txt"), &format!("{sib}/secret.txt")),
        edit_diff("link_out/secret.txt", "link_out/secret.txt"),
        "diff --git a/greet.txt b/../sibling/greet.txt\nsimilarity index 100%\nrename from greet.txt\nrename to ../sibling/greet.txt\n"
            .to_owned(),
        format!(
            "diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+{sib}\n\\ No newline at end of file\n"
        ),
        "not a diff at all".to_owned(),
        "--- a/greet.txt\n+++ b/greet.txt\n@@ -1,5 +1,5 @@\n-nothing\n".to_owned(),
        "\u{0}\u{1}\u{2}".to_owned(),
    ] {
        calls.push((
            "patch",
            json!({"session": "h1", "diff": d}),
            Some("bad-input"),
        ));
    }
    // Huge inputs.
    calls.push((
        "patch",
        json!({"session": "h1", "diff": huge}),
        Some("bad-input"),
    ));
    calls.push(("status", json!({"session": huge}), Some("bad-input")));
    calls.push((
        "snapshot",
        json!({"dir": format!("../{huge}")}),
        Some("bad-input"),
    ));
    calls.push((
        "patch",
        json!({"session": "h1", "diff": huge_diff}),
        Some("bad-input"),
    ));
    assert_eq!(calls.len(), 100, "the test makes 100 calls");

    let (mut protocol, mut tool) = (0, 0);
    for (name, args, kind) in &calls {
        let shown: String = format!("{name} {args}").chars().take(200).collect();
        match call(&conn, name, args.clone()).await {
            Err(e) => {
                assert!(
                    kind.is_none(),
                    "{shown}: protocol error {e}, expected a tool error"
                );
                protocol += 1;
            }
            Ok(r) => {
                assert_eq!(r.is_error, Some(true), "{shown}: {r:?}");
                let e = r.structured_content.expect("structured error");
                assert_eq!(Some(e["kind"].as_str().unwrap()), *kind, "{shown}: {e}");
                assert_eq!(e["exit_code"], 2, "{shown}: {e}");
                assert_eq!(e["retryable"], false);
                // A message never quotes a huge argument whole.
                assert!(e["message"].as_str().unwrap().len() < 4200, "{shown}");
                tool += 1;
            }
        }
    }
    assert_eq!((protocol, tool), (26, 74));
    // Still answering; the session untouched by all of it; nothing outside changed.
    let st = ok(&conn, "status", json!({"session": "h1"})).await;
    assert_eq!(st["session"]["patches"], json!([]));
    assert_eq!(st["session"]["status"], "open");
    assert_eq!(tree(&sibling), outside_before);
    let outer_after: Vec<_> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outer_after, outer_before);
    assert_eq!(std::fs::read(root.join("greet.txt")).unwrap(), BROKEN);

    // A diff path through a symbolic link of the workspace is a path of the tree, not of the
    // disk: patch records it, and apply refuses to write through the link (a conflict).
    let (conn2, _) = connect(&root).await;
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(root.join("genesis.json")).unwrap()).unwrap();
    manifest["obligations"] = json!([]);
    std::fs::write(root.join("genesis.json"), manifest.to_string()).unwrap();
    ok(&conn2, "open", json!({"session": "h2"})).await;
    ok(
        &conn2,
        "patch",
        json!({"session": "h2", "diff": new_file_diff("link_out/pwned.txt")}),
    )
    .await;
    ok(&conn2, "verify", json!({"session": "h2"})).await;
    let e = tool_err(&conn2, "apply", json!({"session": "h2"})).await;
    assert_eq!(
        (e["kind"].as_str(), e["exit_code"].as_u64()),
        (Some("conflict"), Some(3)),
        "{e}"
    );
    assert!(
        e["message"].as_str().unwrap().contains("symbolic link"),
        "{e}"
    );
    assert_eq!(tree(&sibling), outside_before);
    conn2.cancel().await.unwrap();
    conn.cancel().await.unwrap();
}

#[tokio::test]
async fn concurrent_calls_are_serialised_by_the_store_lock() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect(&root).await;
    ok(&conn, "open", json!({"session": "p1"})).await;
    // Eight patches at once, each adding its own file, and status calls among them.
    let mut calls = Vec::new();
    for i in 0..8 {
        let peer = conn.peer().clone();
        let diff = new_file_diff(&format!("new{i}.txt"));
        calls.push(tokio::spawn(async move {
            let args = obj(json!({"session": "p1", "diff": diff}));
            peer.call_tool(CallToolRequestParams::new("patch").with_arguments(args))
                .await
                .unwrap()
        }));
        let peer = conn.peer().clone();
        calls.push(tokio::spawn(async move {
            let args = obj(json!({"session": "p1"}));
            peer.call_tool(CallToolRequestParams::new("status").with_arguments(args))
                .await
                .unwrap()
        }));
    }
    for c in calls {
        let r = c.await.unwrap();
        assert_eq!(r.is_error, Some(false), "{r:?}");
    }
    // Each patch landed on the one before: eight entries chained, eight files added.
    let st = ok(&conn, "status", json!({"session": "p1"})).await;
    let patches = st["session"]["patches"].as_array().unwrap();
    assert_eq!(patches.len(), 8);
    for w in patches.windows(2) {
        assert_eq!(w[0]["after_snapshot"], w[1]["before_snapshot"]);
    }
    let d = ok(&conn, "diff", json!({"a": "p1"})).await;
    let mut paths: Vec<&str> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.sort();
    let want: Vec<String> = (0..8).map(|i| format!("new{i}.txt")).collect();
    assert_eq!(paths, want);
    conn.cancel().await.unwrap();
}

#[path = "mcp_server/raw.rs"]
mod raw;
#[path = "mcp_server/review.rs"]
mod review;
#[path = "mcp_server/review2.rs"]
mod review2;
