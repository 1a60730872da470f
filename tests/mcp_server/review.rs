//! The review's findings on `genesis mcp` (issue 13), one test or more each.

use std::time::Duration;

use serde_json::{Value, json};

use super::raw::Raw;
use super::*;

/// Issue 13, review 10: a frame that cannot be acted on is answered, with its id when the id
/// can be read (JSON-RPC 2.0 section 5.1), and the server goes on.
#[test]
fn malformed_frames_get_an_answer_with_their_id() {
    let (_outer, root) = setup(greet_obligation());
    let mut raw = Raw::start(&root, &[]);
    let cases: &[(&str, Value, i64)] = &[
        ("{\"jsonrpc\":\"2.0\",\"id\":1,", Value::Null, -32700),
        ("not json", Value::Null, -32700),
        ("[1,2]", Value::Null, -32600),
        ("7", Value::Null, -32600),
        (
            r#"{"jsonrpc":"1.0","id":11,"method":"tools/list"}"#,
            json!(11),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":3}}"#,
            json!(12),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s13","method":"tools/call","params":7}"#,
            json!("s13"),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[14],"method":"ping"}"#,
            Value::Null,
            -32600,
        ),
    ];
    for (line, id, code) in cases {
        raw.send(line);
        let a = raw.response();
        assert_eq!(a["jsonrpc"], "2.0", "{line}: {a}");
        assert_eq!(&a["id"], id, "{line}: {a}");
        assert_eq!(a["error"]["code"], *code, "{line}: {a}");
    }
    // A malformed notification is not answered; the server still answers a good request.
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#);
    let st = raw.call(20, "status", json!({}));
    assert_eq!(st["id"], 20, "{st}");
    assert_eq!(st["result"]["structuredContent"], json!({"sessions": []}));
}

/// Issue 13, review 6: a member name twice in a call's arguments (or anywhere in the frame) is
/// refused as the CLI refuses it in any JSON document, never read with the last value kept.
#[test]
fn duplicate_keys_in_arguments_are_invalid_params() {
    let (_outer, root) = setup(greet_obligation());
    let mut raw = Raw::start(&root, &[]);
    let a = raw.call(1, "open", json!({"session": "d1"}));
    assert_eq!(a["result"]["isError"], false, "{a}");
    // With the last value kept, this would apply with dry_run false.
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"abort","arguments":{"session":"d1","dry_run":true,"dry_run":false}}}"#);
    let a = raw.response();
    assert_eq!(a["id"], 2, "{a}");
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert_eq!(
        a["error"]["message"],
        r#"Invalid params: duplicate key "dry_run" at /params/arguments/dry_run"#
    );
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"abort","name":"status","arguments":{"session":"d1"}}}"#);
    let a = raw.response();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (json!(3), json!(-32602)),
        "{a}"
    );
    raw.send(r#"{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}"#);
    let a = raw.response();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (Value::Null, json!(-32600)),
        "{a}"
    );
    // Nothing was aborted.
    let st = raw.call(6, "status", json!({"session": "d1"}));
    assert_eq!(
        st["result"]["structuredContent"]["session"]["status"], "open",
        "{st}"
    );
    assert!(raw.silent_for(Duration::from_millis(100)));
}

/// A workspace whose obligation starts a background `sleep` and writes its shell's and the
/// sleep's pids to `pidfile`, then waits; opened as session `s` with the fix recorded.
fn slow_session(pidfile: &std::path::Path) -> (tempfile::TempDir, std::path::PathBuf, Raw) {
    let (outer, root) = setup(json!({
        "id": "slow",
        "run": ["sh", "-c", format!("sleep 60 & echo $$ $! > {}; wait", pidfile.display())],
        "timeout_s": 120,
    }));
    let mut raw = Raw::start(&root, &[]);
    assert_eq!(
        raw.call(1, "open", json!({"session": "s"}))["result"]["isError"],
        false
    );
    let p = raw.call(2, "patch", json!({"session": "s", "diff": FIX}));
    assert_eq!(p["result"]["isError"], false, "{p}");
    (outer, root, raw)
}

/// The session's files, to compare before and after.
fn session_files(root: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let dir = root.join(".genesis/sessions");
    (
        std::fs::read(dir.join("s.state")).unwrap(),
        std::fs::read(dir.join("s.json")).unwrap(),
    )
}

/// Waits (20 s at most, else fails) until every process of `pids` is gone.
fn all_gone(pids: &[u32], what: &str) {
    for _ in 0..2000 {
        if pids.iter().all(|&p| gone(p)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{what}: obligation processes survive: {pids:?}");
}

fn pids_of(pidfile: &std::path::Path) -> Vec<u32> {
    for _ in 0..2000 {
        if let Ok(s) = std::fs::read_to_string(pidfile)
            && s.ends_with('\n')
        {
            return s.split_whitespace().map(|p| p.parse().unwrap()).collect();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the obligation never started");
}

/// Issue 13, review 4: SIGTERM (and SIGINT) end the server although standard input stays
/// open, killing the running obligation's process group and leaving the session as it was.
#[test]
fn sigterm_ends_the_server_with_stdin_open() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let pids = tempfile::tempdir().unwrap();
        let pidfile = pids.path().join("pids");
        let (_outer, root, mut raw) = slow_session(&pidfile);
        let before = session_files(&root);
        raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"verify","arguments":{"session":"s"}}}"#);
        let ids = pids_of(&pidfile);
        // SAFETY: a signal to the child this test spawned.
        unsafe { libc::kill(raw.child.id() as i32, sig) };
        let status = raw.wait_exit();
        assert!(raw.stdin.is_some(), "standard input is still open");
        // Issue 13, review 2 F: 128 + the signal, as a shell reports it.
        assert_eq!(status.code(), Some(128 + sig), "signal {sig}: {status:?}");
        all_gone(&ids, "after the signal");
        assert_eq!(
            session_files(&root),
            before,
            "signal {sig}: the session changed"
        );
    }
}

/// Issue 13, review 5: when the client closes standard input during a verify, the obligation
/// is stopped at once, so that verify still answers (a cancelled verify) before the server
/// ends, instead of rmcp giving up on it after its 5 s drain.
#[test]
fn closing_stdin_stops_the_obligation_at_once() {
    let pids = tempfile::tempdir().unwrap();
    let pidfile = pids.path().join("pids");
    let (_outer, root, mut raw) = slow_session(&pidfile);
    let before = session_files(&root);
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"verify","arguments":{"session":"s"}}}"#);
    let ids = pids_of(&pidfile);
    drop(raw.stdin.take());
    let answer = raw.response();
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    // Issue 13, review 2 F: said as a cancellation, with the CLI's kind for it (io, 4).
    let e = &answer["result"]["structuredContent"];
    assert_eq!(
        (e["kind"].clone(), e["exit_code"].clone()),
        (json!("io"), json!(4)),
        "{answer}"
    );
    assert_eq!(
        e["message"],
        "cancelled while obligation slow ran (the call was cancelled, the client went away or the server was stopped); its process group was killed and nothing was recorded"
    );
    let status = raw.wait_exit();
    assert_eq!(status.code(), Some(0));
    all_gone(&ids, "after standard input closed");
    assert_eq!(session_files(&root), before);
}

/// Issue 13, review 5: a server killed with SIGKILL (no handler runs) leaves no obligation
/// behind: the lifeline's watchdog kills the obligation's whole process group.
#[test]
fn a_killed_server_leaves_no_obligation_running() {
    let pids = tempfile::tempdir().unwrap();
    let pidfile = pids.path().join("pids");
    let (_outer, _root, mut raw) = slow_session(&pidfile);
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"verify","arguments":{"session":"s"}}}"#);
    let ids = pids_of(&pidfile);
    assert!(ids.iter().all(|&p| !gone(p)), "running");
    raw.child.kill().unwrap();
    raw.child.wait().unwrap();
    all_gone(&ids, "after SIGKILL of the server");
}

#[allow(deprecated)]
async fn set_level(conn: &Conn, level: rmcp::model::LoggingLevel) {
    let p = rmcp::model::SetLevelRequestParams::new(level);
    conn.peer().set_level(p).await.expect("logging/setLevel");
}

/// Issue 13, review 7: `logging/setLevel` is answered; verify's notices come as logging
/// notifications only once a level is set, and only at or above it.
#[tokio::test]
#[allow(deprecated)]
async fn logging_follows_set_level() {
    use rmcp::model::LoggingLevel;
    let (_outer, root) = setup(greet_obligation());
    let (conn, client) = connect_quiet(&root).await;
    ok(&conn, "open", json!({"session": "l1"})).await;
    ok(&conn, "patch", json!({"session": "l1", "diff": WRONG})).await;
    let v = ok(&conn, "verify", json!({"session": "l1"})).await;
    assert_eq!(v["record"]["obligations_ok"], false);
    assert_eq!(client.logs.lock().unwrap().clone(), Vec::<Value>::new());
    set_level(&conn, LoggingLevel::Warning).await;
    ok(&conn, "verify", json!({"session": "l1"})).await;
    let logs = client.logs.lock().unwrap().clone();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(
        (
            logs[0]["event"].as_str(),
            logs[0]["passed"].as_bool(),
            logs[0]["exit_code"].as_i64()
        ),
        (Some("finished"), Some(false), Some(1))
    );
    client.logs.lock().unwrap().clear();
    set_level(&conn, LoggingLevel::Debug).await;
    ok(&conn, "verify", json!({"session": "l1"})).await;
    let events: Vec<String> = client
        .logs
        .lock()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l["event"].as_str().unwrap(),
                l["text"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        events,
        ["started ", "output checking greet.txt\n", "finished "]
    );
    conn.cancel().await.unwrap();
}

/// Issue 13, review 1: `rebase` and `log` are tools, with the CLI's `--json` documents; a
/// rebase whose paths conflict is a tool error of kind `conflict` (exit code 3, as the CLI
/// exits) that also holds the rebase document.
#[tokio::test]
async fn rebase_and_log_tools_match_the_cli() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect(&root).await;
    ok(&conn, "open", json!({"session": "r1"})).await;
    ok(&conn, "patch", json!({"session": "r1", "diff": FIX})).await;
    ok(&conn, "verify", json!({"session": "r1"})).await;
    // log: the CLI's document, byte for byte.
    let log = ok(&conn, "log", json!({"session": "r1"})).await;
    let cli = common::ok_json(&common::run_in(&root, &["--json", "log", "r1"]));
    assert_eq!(log, cli);
    assert_eq!(log["obligations"][0]["id"], "greet");
    assert_eq!(log["obligations"][0]["stdout"], "checking greet.txt\n");
    let one = ok(
        &conn,
        "log",
        json!({"session": "r1", "obligation": "greet"}),
    )
    .await;
    assert_eq!(one, cli);
    let e = tool_err(&conn, "log", json!({"session": "r1", "obligation": "nope"})).await;
    assert_eq!(
        (e["kind"].as_str(), e["exit_code"].as_u64()),
        (Some("bad-input"), Some(2)),
        "{e}"
    );

    // The workspace changes the same line: a conflict, nothing recorded; the CLI says the same.
    std::fs::write(root.join("greet.txt"), b"mended elsewhere\n").unwrap();
    let cli = common::run_in(&root, &["--json", "rebase", "r1"]);
    assert_eq!(common::code(&cli), Some(3));
    let cli = common::json_out(&cli);
    let e = tool_err(&conn, "rebase", json!({"session": "r1"})).await;
    assert_eq!(
        (e["kind"].as_str(), e["exit_code"].as_u64()),
        (Some("conflict"), Some(3)),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("greet.txt"), "{e}");
    for member in [
        "session",
        "moved",
        "old_base",
        "onto",
        "entry",
        "changes",
        "conflicts",
    ] {
        assert_eq!(e[member], cli[member], "{member}");
    }
    assert_eq!(e["moved"], false);
    assert_eq!(e["conflicts"][0]["path"], "greet.txt");

    // A change elsewhere: the session moves onto it.
    std::fs::write(root.join("greet.txt"), BROKEN).unwrap();
    std::fs::write(root.join("sub/keep.txt"), b"kept, changed\n").unwrap();
    let r = ok(&conn, "rebase", json!({"session": "r1"})).await;
    assert_eq!(r["moved"], true, "{r}");
    assert_eq!(r["conflicts"], json!([]));
    assert_eq!(r["changes"], json!([{"status": "M", "path": "greet.txt"}]));
    let st = ok(&conn, "status", json!({"session": "r1"})).await;
    assert_eq!(st["session"]["base_snapshot"], r["onto"]);
    assert_eq!(
        st["session"]["current_snapshot"],
        r["entry"]["after_snapshot"]
    );
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2: a result larger than the client's line limit (rmcp's 16 MiB) used to be
/// lost, the call hanging; it is cut to 4 MiB of structured content, saying so and how to ask
/// for less, and the selection it points to (`paths`, `stat`) gives the rest.
#[tokio::test]
async fn a_huge_result_is_cut_saying_so() {
    let (_outer, root) = setup(greet_obligation());
    // One 9 MiB line each side: an 18 MiB diff text.
    common::write_tree(
        &root,
        &[
            ("a/big.txt", "a".repeat(9 << 20).as_bytes()),
            ("b/big.txt", "b".repeat(9 << 20).as_bytes()),
            ("a/small.txt", b"one\n"),
            ("b/small.txt", b"two\n"),
        ],
    );
    let (conn, _) = connect(&root).await;
    let r = call(&conn, "diff", json!({"a": "a", "b": "b"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let text = format!("{:?}", r.content);
    assert!(text.contains("result cut to 4194304 bytes"), "{text}");
    let v = r.structured_content.unwrap();
    assert!(serde_json::to_vec(&v).unwrap().len() <= 4 << 20);
    assert_eq!(v["truncated"], true);
    let t = &v["truncation"];
    assert_eq!(t["limit_bytes"], 4 << 20);
    assert!(t["bytes"].as_u64().unwrap() > 18 << 20, "{t}");
    assert_eq!(t["cut"][0]["pointer"], "/diff");
    assert!(t["hint"].as_str().unwrap().contains("`paths`"), "{t}");
    let diff = v["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("diff --git a/big.txt b/big.txt\n"),
        "{}",
        &diff[..80]
    );
    assert_eq!(t["cut"][0]["kept_bytes"], diff.len());
    // The list and the totals are whole.
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["big.txt", "small.txt"]);
    assert_eq!(
        v["stat"],
        json!({"files_changed": 2, "insertions": 2, "deletions": 2})
    );
    // Asking for less: no text, or one path.
    let s = ok(&conn, "diff", json!({"a": "a", "b": "b", "stat": true})).await;
    assert_eq!((s["diff"].clone(), s.get("truncated")), (Value::Null, None));
    assert_eq!(s["files"], v["files"]);
    let one = ok(
        &conn,
        "diff",
        json!({"a": "a", "b": "b", "paths": ["small.txt"]}),
    )
    .await;
    assert_eq!(one.get("truncated"), None);
    assert_eq!(
        one["diff"],
        "diff --git a/small.txt b/small.txt\n--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-one\n+two\n"
    );
    assert_eq!(
        one["stat"],
        json!({"files_changed": 1, "insertions": 1, "deletions": 1})
    );
    conn.cancel().await.unwrap();
}

/// Runs `genesis ARGS` in `dir`, killed after 30 s (a read that hangs fails the test).
fn run_bounded(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_genesis"))
        .args(args)
        .current_dir(dir)
        .env_remove("GENESIS_STORE")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..3000 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    panic!("genesis {args:?} hung");
}

/// Issue 13, review 3: a manifest path is checked before anything is read: it must stay inside
/// the workspace without a symbolic link on the way, name a regular file, and hold at most
/// 1 MiB; `/dev/zero` behind a link (memory), a FIFO (a hang), a link out of the workspace and
/// a huge file are refused as bad input, by the `open` tool and by `genesis open --manifest`.
#[tokio::test]
async fn a_manifest_is_read_only_from_a_regular_file_inside() {
    let (outer, root) = setup(greet_obligation());
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.json")).unwrap();
    std::os::unix::fs::symlink(outer.path().join("sibling"), root.join("out")).unwrap();
    std::os::unix::fs::symlink("genesis.json", root.join("alias.json")).unwrap();
    let fifo = std::ffi::CString::new(root.join("fifo.json").to_str().unwrap()).unwrap();
    // SAFETY: a path this test owns.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::fs::write(root.join("big.json"), vec![b' '; (1 << 20) + 1]).unwrap();
    std::fs::write(outer.path().join("sibling/m.json"), b"{}").unwrap();
    let (conn, _) = connect(&root).await;
    for (manifest, says) in [
        ("zero.json", "a symbolic link, not a regular file"),
        ("fifo.json", "a FIFO, not a regular file"),
        ("alias.json", "a symbolic link, not a regular file"),
        ("out/m.json", "out: a symbolic link, not a regular file"),
        ("big.json", "larger than 1048576 bytes"),
    ] {
        let e = tool_err(&conn, "open", json!({"manifest": manifest})).await;
        assert_eq!(
            (e["kind"].as_str(), e["exit_code"].as_u64()),
            (Some("bad-input"), Some(2)),
            "{manifest}: {e}"
        );
        // Issue 13 A: the server takes no manifest but genesis.json; the CLI checks the file.
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("the server takes only the workspace's own manifest (genesis.json)"),
            "{manifest}: {e}"
        );
        let o = run_bounded(&root, &["open", "--manifest", manifest]);
        assert_eq!(o.status.code(), Some(2), "{manifest}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{manifest}: {o:?}"
        );
    }
    // Nothing was opened; the ordinary manifest still works.
    assert_eq!(
        ok(&conn, "status", json!({})).await,
        json!({"sessions": []})
    );
    ok(
        &conn,
        "open",
        json!({"session": "m1", "manifest": "genesis.json"}),
    )
    .await;
    conn.cancel().await.unwrap();
}

/// Issue 13, review 8: an obligation inherits the server's environment; the values of its
/// secret-looking variables (and those `GENESIS_REDACT` names) are redacted from the output
/// streamed to the client and from the stored log, as the event streams redact secrets.
#[tokio::test]
async fn streamed_output_is_redacted() {
    const TOKEN: &str = "ghp_s3cr3tV4lu3xyz";
    const LISTED: &str = "plain-but-listed";
    let (_outer, root) = setup(json!({
        "id": "leak",
        "run": ["sh", "-c", "echo token=$MY_API_TOKEN; echo \"$PLAIN\" >&2; printf %s \"$MY_API_TOKEN\" | cut -c1-8"],
    }));
    let (conn, client) = connect_env(
        &root,
        &[
            ("MY_API_TOKEN", TOKEN),
            ("PLAIN", LISTED),
            ("GENESIS_REDACT", "PLAIN"),
        ],
    )
    .await;
    set_level(&conn, {
        #[allow(deprecated)]
        rmcp::model::LoggingLevel::Info
    })
    .await;
    ok(&conn, "open", json!({"session": "x1"})).await;
    ok(&conn, "verify", json!({"session": "x1"})).await;
    let out: Vec<(String, String)> = client
        .logs
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l["event"] == "output")
        .map(|l| {
            (
                l["stream"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let stdout: String = out
        .iter()
        .filter(|(s, _)| s == "stdout")
        .map(|(_, t)| t.as_str())
        .collect();
    let stderr: String = out
        .iter()
        .filter(|(s, _)| s == "stderr")
        .map(|(_, t)| t.as_str())
        .collect();
    // A piece of a secret is no secret: only whole values are redacted.
    assert_eq!(stdout, "token=[REDACTED]\nghp_s3cr\n");
    assert_eq!(stderr, "[REDACTED]\n");
    let log = ok(&conn, "log", json!({"session": "x1"})).await;
    assert_eq!(
        log["obligations"][0]["stdout"],
        "token=[REDACTED]\nghp_s3cr\n"
    );
    assert_eq!(log["obligations"][0]["stderr"], "[REDACTED]\n");
    conn.cancel().await.unwrap();
}

/// The member paths of a `snapshot` result.
fn member_paths(v: &Value) -> Vec<String> {
    v["snapshot"]["files"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

/// Issue 13, review 9: a directory below the root inherits the ignore rules of the directories
/// above it (its snapshot has the members the workspace's snapshot has under it), and the
/// store and `.git` directories are no trees: refused as bad input, by the tools and the CLI.
#[tokio::test]
async fn subdirectories_keep_parent_ignore_rules_and_reserved_dirs_are_refused() {
    let (_outer, root) = setup(greet_obligation());
    common::write_tree(
        &root,
        &[
            (".gitignore", b"*.log\nsub/build/\n"),
            ("sub/x.log", b"log\n"),
            ("sub/build/out.txt", b"out\n"),
            ("sub/deeper/.gitignore", b"!keep.log\n"),
            ("sub/deeper/y.txt", b"y\n"),
            ("sub/.git/config", b"[core]\n"),
        ],
    );
    let (conn, _) = connect(&root).await;
    let whole = ok(&conn, "snapshot", json!({})).await;
    let under_sub: Vec<String> = member_paths(&whole)
        .iter()
        .filter_map(|p| p.strip_prefix("sub/").map(str::to_owned))
        .collect();
    assert_eq!(under_sub, ["deeper/.gitignore", "deeper/y.txt", "keep.txt"]);
    let sub = ok(&conn, "snapshot", json!({"dir": "sub"})).await;
    assert_eq!(member_paths(&sub), under_sub);
    // The CLI's snapshot of the same directory of the workspace is the same snapshot.
    let ws = root.to_str().unwrap();
    let cli = common::ok_json(&common::run_in(
        &root,
        &["--workspace", ws, "--json", "snapshot", "sub"],
    ));
    assert_eq!(cli["identity"], sub["identity"]);
    // A directory a parent's rule leaves out has no members.
    let build = ok(&conn, "snapshot", json!({"dir": "sub/build"})).await;
    assert_eq!(member_paths(&build), Vec::<String>::new());

    for (tool, args) in [
        ("snapshot", json!({"dir": ".genesis"})),
        ("snapshot", json!({"dir": ".genesis/sessions"})),
        ("snapshot", json!({"dir": "sub/.git"})),
        ("diff", json!({"a": ".", "b": ".genesis"})),
        (
            "check",
            json!({"dir": "sub/.git", "expect": "0".repeat(64)}),
        ),
    ] {
        let e = tool_err(&conn, tool, args.clone()).await;
        assert_eq!(
            (e["kind"].as_str(), e["exit_code"].as_u64()),
            (Some("bad-input"), Some(2)),
            "{tool} {args}: {e}"
        );
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("which is no tree of the workspace"),
            "{e}"
        );
    }
    ok(&conn, "open", json!({"session": "g1"})).await;
    let e = tool_err(
        &conn,
        "patch",
        json!({"session": "g1", "from_dir": ".genesis"}),
    )
    .await;
    assert_eq!(e["kind"], "bad-input", "{e}");
    for dir in [".genesis", "sub/.git"] {
        let o = common::run_in(&root, &["patch", "g1", "--from", dir]);
        assert_eq!(common::code(&o), Some(2), "{dir}: {o:?}");
        assert!(
            common::stderr(&o).contains("which is no tree of the workspace"),
            "{dir}: {o:?}"
        );
        let o = common::run_in(&root, &["snapshot", dir]);
        assert_eq!(common::code(&o), Some(2), "{dir}: {o:?}");
        assert!(
            common::stderr(&o).contains("which is no tree of the workspace"),
            "{dir}: {o:?}"
        );
    }
    conn.cancel().await.unwrap();
}
