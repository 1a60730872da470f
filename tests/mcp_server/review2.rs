//! The second review's findings on `genesis mcp` (issue 13, fix13b), one test or more each.

use serde_json::{Value, json};

use super::*;

fn kind_code(e: &Value) -> (Option<&str>, Option<u64>) {
    (e["kind"].as_str(), e["exit_code"].as_u64())
}

fn msg(e: &Value) -> &str {
    e["message"].as_str().unwrap_or("")
}

/// Issue 13, review 2 A: a file a session wrote cannot become the manifest of the next session
/// (its obligations would be any command), and a session that rewrites genesis.json is not
/// applied by the server: it runs only the obligations of the workspace's own manifest.
#[tokio::test]
async fn open_takes_only_the_workspaces_own_manifest() {
    let (outer, root) = setup(json!({"id": "t", "run": ["true"], "timeout_s": 30}));
    let marker = outer.path().join("ran");
    let notes = json!({"schema": "genesis/manifest-v0.1", "obligations": [
        {"id": "x", "run": ["sh", "-c", format!("touch {}", marker.display())], "timeout_s": 30}]});
    let body = notes.to_string();
    let diff = format!(
        "diff --git a/docs/notes.json b/docs/notes.json\nnew file mode 100644\n--- /dev/null\n+++ b/docs/notes.json\n@@ -0,0 +1 @@\n+{body}\n"
    );
    let (conn, _) = connect_quiet(&root).await;
    ok(&conn, "open", json!({"session": "a1"})).await;
    ok(&conn, "patch", json!({"session": "a1", "diff": diff})).await;
    ok(&conn, "verify", json!({"session": "a1"})).await;
    ok(&conn, "apply", json!({"session": "a1"})).await;
    assert!(root.join("docs/notes.json").is_file());
    for m in [
        "docs/notes.json",
        "./docs/notes.json",
        "genesis.json/..",
        "sub/../genesis.json",
    ] {
        let e = tool_err(&conn, "open", json!({"session": "a2", "manifest": m})).await;
        assert_eq!(kind_code(&e), (Some("bad-input"), Some(2)), "{m}: {e}");
        assert_eq!(
            msg(&e),
            format!(
                "manifest {m:?}: the server takes only the workspace's own manifest (genesis.json); it never runs a command other than that manifest's obligations (`genesis open --manifest` on the command line takes another)"
            )
        );
    }
    assert_eq!(
        ok(&conn, "status", json!({})).await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // genesis.json itself, by name (also as ./genesis.json), is the manifest.
    ok(
        &conn,
        "open",
        json!({"session": "a3", "manifest": "./genesis.json"}),
    )
    .await;
    let v = ok(&conn, "verify", json!({"session": "a3"})).await;
    assert_eq!(v["record"]["obligations"][0]["id"], "t");
    // A session that rewrites genesis.json (this manifest does not protect it) is not applied.
    let old = std::fs::read(root.join("genesis.json")).unwrap();
    // setup writes genesis.json without a final newline.
    let rewrite = format!(
        "diff --git a/genesis.json b/genesis.json\n--- a/genesis.json\n+++ b/genesis.json\n@@ -1 +1 @@\n-{}\n\\ No newline at end of file\n+{body}\n",
        String::from_utf8_lossy(&old)
    );
    ok(&conn, "patch", json!({"session": "a3", "diff": rewrite})).await;
    ok(&conn, "verify", json!({"session": "a3"})).await;
    let e = tool_err(&conn, "apply", json!({"session": "a3"})).await;
    assert_eq!(kind_code(&e), (Some("bad-input"), Some(2)), "{e}");
    assert!(
        msg(&e).contains("changes the workspace's manifest genesis.json"),
        "{e}"
    );
    ok(&conn, "apply", json!({"session": "a3", "dry_run": true})).await;
    assert_eq!(std::fs::read(root.join("genesis.json")).unwrap(), old);
    assert!(!marker.exists(), "a command of docs/notes.json ran");
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2 B: a session the CLI opened with `--checkout` outside the workspace is
/// never applied, aborted or rebased by the server (that would remove or rewrite a directory
/// outside it): kind `state`, exit code 3, naming the CLI command; dry runs still answer.
#[tokio::test]
async fn a_checkout_outside_the_workspace_is_left_to_the_cli() {
    let (outer, root) = setup(json!({"id": "t", "run": ["true"], "timeout_s": 30}));
    let co = outer.path().join("co");
    common::ok(&common::run_in(
        &root,
        &[
            "open",
            "--session",
            "c1",
            "--checkout",
            co.to_str().unwrap(),
        ],
    ));
    let before = tree(&co);
    assert!(before.contains_key(Path::new("greet.txt")));
    let (conn, _) = connect_quiet(&root).await;
    ok(&conn, "patch", json!({"session": "c1", "diff": FIX})).await;
    ok(&conn, "verify", json!({"session": "c1"})).await;
    for tool in ["abort", "apply", "rebase"] {
        let e = tool_err(&conn, tool, json!({"session": "c1"})).await;
        assert_eq!(kind_code(&e), (Some("state"), Some(3)), "{tool}: {e}");
        let real = co.canonicalize().unwrap();
        assert_eq!(
            msg(&e),
            format!(
                "session c1 has its checkout {} outside the workspace {}; the server never changes anything outside its workspace, so `{tool}` is refused here: run `genesis {tool} c1` on the command line",
                real.display(),
                root.canonicalize().unwrap().display()
            ),
            "{tool}"
        );
    }
    ok(&conn, "abort", json!({"session": "c1", "dry_run": true})).await;
    ok(&conn, "apply", json!({"session": "c1", "dry_run": true})).await;
    assert_eq!(tree(&co), before, "the checkout changed");
    assert_eq!(std::fs::read(root.join("greet.txt")).unwrap(), BROKEN);
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2 C: `diff`'s `paths` are checked like every path argument (leaving the
/// workspace, empty, NUL or a pattern is bad input) and normalised as git pathspecs.
#[tokio::test]
async fn diff_paths_are_checked_and_normalised() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect_quiet(&root).await;
    ok(&conn, "open", json!({"session": "p1"})).await;
    let both = format!(
        "{FIX}diff --git a/sub/keep.txt b/sub/keep.txt\n--- a/sub/keep.txt\n+++ b/sub/keep.txt\n@@ -1 +1 @@\n-keep\n+kept\n"
    );
    ok(&conn, "patch", json!({"session": "p1", "diff": both})).await;
    let files = |v: &Value| -> Vec<String> {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect()
    };
    let abs = root.canonicalize().unwrap().join("sub");
    for (paths, want) in [
        (json!(["./sub"]), vec!["sub/keep.txt"]),
        (json!(["sub/"]), vec!["sub/keep.txt"]),
        (json!([abs.to_str().unwrap()]), vec!["sub/keep.txt"]),
        (json!(["."]), vec!["greet.txt", "sub/keep.txt"]),
        (json!(["./greet.txt", "gone"]), vec!["greet.txt"]),
    ] {
        let v = ok(
            &conn,
            "diff",
            json!({"a": "p1", "stat": true, "paths": paths}),
        )
        .await;
        assert_eq!(files(&v), want, "{paths}");
    }
    for (p, says) in [
        ("../x", "outside the workspace"),
        ("/etc/passwd", "outside the workspace"),
        ("a\u{0}b", "NUL"),
        ("*", "not as a pattern"),
        ("", "an empty path"),
    ] {
        let e = tool_err(&conn, "diff", json!({"a": "p1", "paths": [p]})).await;
        assert_eq!(kind_code(&e), (Some("bad-input"), Some(2)), "{p:?}: {e}");
        assert!(msg(&e).starts_with(&format!("paths {p:?}: ")), "{e}");
        assert!(msg(&e).contains(says), "{p:?}: {e}");
    }
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2 D: `snapshot {"dir": D}` is `genesis --workspace ROOT snapshot D --json`
/// (D a tree of the workspace: its ignore rules from above, the workspace's store), member for
/// member, stored by default as the CLI stores; `no_store` is `--no-store`.
#[tokio::test]
async fn snapshot_is_the_clis_document_with_the_clis_default() {
    let (_outer, root) = setup(greet_obligation());
    std::fs::write(root.join(".gitignore"), b"*.log\n").unwrap();
    std::fs::write(root.join("sub/x.log"), b"l\n").unwrap();
    let cli = |extra: &[&str]| {
        let mut args = vec![
            "--workspace",
            root.to_str().unwrap(),
            "snapshot",
            "sub",
            "--json",
        ];
        args.extend_from_slice(extra);
        common::ok_json(&common::run_in(&root, &args))
    };
    let (conn, _) = connect_quiet(&root).await;
    let pure = ok(&conn, "snapshot", json!({"dir": "sub", "no_store": true})).await;
    assert_eq!(pure, cli(&["--no-store"]));
    assert_eq!(pure["stored"], false);
    let mut stored = ok(&conn, "snapshot", json!({"dir": "sub"})).await;
    let mut by_cli = cli(&[]);
    assert_eq!(stored["stored"], true);
    assert_eq!(stored["blobs_added"], 1);
    assert_eq!(by_cli["blobs_added"], 0);
    stored.as_object_mut().unwrap().remove("blobs_added");
    by_cli.as_object_mut().unwrap().remove("blobs_added");
    assert_eq!(stored, by_cli);
    assert_eq!(stored["identity"], pure["identity"]);
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2 E: the protocol's edges — an integer id past i64 (u64's maximum) is
/// `-32600` with that id; a line over the frame limit is answered with its id when its first
/// bytes hold it; an unknown huge method name is named cut; a tool error's message is at most
/// 4096 bytes, the marker counted; a second `initialize` is `-32600`.
#[test]
fn protocol_edges_are_answered_with_their_id_and_capped() {
    let (_outer, root) = setup(greet_obligation());
    let mut raw = super::raw::Raw::start(&root, &[]);
    raw.send(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#);
    let a = raw.response();
    assert_eq!(a["id"], json!(18446744073709551615u64), "{a}");
    assert_eq!(a["error"]["code"], -32600, "{a}");
    raw.send(r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}"#);
    let a = raw.response();
    assert_eq!(a["id"], json!(9223372036854775807i64), "{a}");
    assert_eq!(a["result"], json!({}), "{a}");
    let method = "x".repeat(1 << 20);
    raw.send(&json!({"jsonrpc": "2.0", "id": 3, "method": method}).to_string());
    let a = raw.response();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (json!(3), json!(-32601)),
        "{}",
        &a.to_string()[..200]
    );
    assert!(a.to_string().len() < 400, "{}", a.to_string().len());
    let big = "s".repeat(20_000);
    let a = raw.call(4, "status", json!({"session": big}));
    let m = a["result"]["structuredContent"]["message"]
        .as_str()
        .unwrap();
    assert!(m.len() <= 4096 && m.len() > 4060, "{}", m.len());
    assert!(m.ends_with(" more bytes)"), "{m}");
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "again", "version": "0"}}})
        .to_string(),
    );
    let a = raw.response();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (json!(5), json!(-32600)),
        "{a}"
    );
    // A line over 64 MiB + 64 KiB: answered with the id its first bytes hold.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":"big-6","method":"tools/call","params":{{"name":"patch","arguments":{{"session":"x","diff":"{}"}}}}}}"#,
        "a".repeat(65 * 1024 * 1024)
    );
    raw.send(&huge);
    let a = raw.response();
    assert_eq!(
        (a["id"].clone(), a["error"]["code"].clone()),
        (json!("big-6"), json!(-32600)),
        "{a}"
    );
    let st = raw.call(7, "status", json!({}));
    assert_eq!(st["result"]["structuredContent"], json!({"sessions": []}));
}

/// Issue 13, review 2 H: advice in a tool error is the server's (a call), never a command-line
/// flag or command the agent cannot use.
#[tokio::test]
async fn tool_errors_give_the_servers_advice() {
    let (_outer, root) = setup(greet_obligation());
    let (conn, _) = connect_quiet(&root).await;
    ok(&conn, "open", json!({"session": "h1", "in_place": true})).await;
    let e = tool_err(&conn, "patch", json!({"session": "h1", "diff": FIX})).await;
    assert_eq!(
        msg(&e),
        "session h1 is in-place: its patches are recorded from the workspace; call `patch` with only `session` (no `diff` or `from_dir`)"
    );
    ok(&conn, "open", json!({"session": "h2"})).await;
    let e = tool_err(&conn, "apply", json!({"session": "h2"})).await;
    assert!(msg(&e).ends_with("call `verify` first"), "{e}");
    for e in [&e] {
        for cli in [
            "genesis recover",
            "--wait",
            "--manifest",
            "genesis verify",
            "--expect",
        ] {
            assert!(!msg(e).contains(cli), "{e}");
        }
    }
    conn.cancel().await.unwrap();
}

/// Issue 13, review 2 G: the scratch directory of a verify killed outright (its pid is in the
/// name) is removed by `genesis gc` once that process is gone; a live process's, another
/// store's session's and a directory of another name are kept.
#[test]
fn gc_removes_the_scratch_of_a_killed_verify() {
    let (outer, root) = setup(json!({"id": "pwd", "run": ["pwd"], "timeout_s": 30}));
    common::ok(&common::run_in(&root, &["open", "--session", "g1"]));
    let tmp = outer.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let env = [("TMPDIR", tmp.to_str().unwrap().to_owned())];
    // verify's scratch directory is named with its pid, 7 digits.
    let o = common::run_env(&root, &["verify", "g1"], &env);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let log = common::ok_json(&common::run_in(&root, &["log", "g1", "--json"]));
    let pwd = log["obligations"][0]["stdout"]
        .as_str()
        .unwrap()
        .trim()
        .to_owned();
    let name = Path::new(&pwd)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(name.starts_with("genesis-verify-g1-p"), "{name}");
    assert_eq!(
        name.len(),
        "genesis-verify-g1-pNNNNNNN-XXXXXX".len(),
        "{name}"
    );
    assert!(!Path::new(&pwd).exists(), "verify removes its own");
    // A finished process's pid (gone), this test's own pid (alive).
    let mut c = std::process::Command::new("true").spawn().unwrap();
    let dead = c.id();
    c.wait().unwrap();
    let live = std::process::id();
    let dirs = [
        (format!("genesis-verify-g1-p{dead:07}-aaaaaa"), false),
        (format!("genesis-verify-g1-p{live:07}-bbbbbb"), true),
        (format!("genesis-verify-other-p{dead:07}-cccccc"), true),
        ("genesis-verify-g1-dddddd".to_owned(), true),
    ];
    for (d, _) in &dirs {
        std::fs::create_dir_all(tmp.join(d).join("src")).unwrap();
        std::fs::write(tmp.join(d).join("src/a.txt"), b"a\n").unwrap();
    }
    let o = common::run_env(&root, &["gc", "--json"], &env);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = common::json_out(&o);
    let removed: Vec<&str> = out["removed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["path"].as_str())
        .filter(|p| p.contains("genesis-verify"))
        .collect();
    assert_eq!(removed, [tmp.join(&dirs[0].0).to_str().unwrap()]);
    for (d, kept) in &dirs {
        assert_eq!(tmp.join(d).exists(), *kept, "{d}");
    }
}
