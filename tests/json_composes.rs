//! `--json` output composes: `snapshot --json` (with or without `--identity`) is taken by
//! `check --expect` (file or `-`) and by `validate`; `diff --json` carries the diff and the
//! `--stat` totals; `check --json` says why it cannot list differences; and every command's
//! `--json` keys are snake_case but for the names a seed protocol fixes.

mod common;

use common::*;
use serde_json::{Value, json};

const MANIFEST: &[u8] =
    br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"t","run":["true"],"timeout_s":10}]}
"#;

fn ws() -> tempfile::TempDir {
    let d = workspace(MANIFEST, &[("a.txt", b"one\ntwo\n"), ("b.txt", b"b\n")]);
    assert_eq!(code(&run_in(d.path(), &["init"])), Some(0));
    d
}

#[test]
fn snapshot_json_is_taken_by_check_expect_and_validate() {
    let d = ws();
    let r = d.path();
    let out = run_in(r, &["snapshot", "--json"]);
    let v = ok_json(&out);
    let id = v["identity"].as_str().unwrap().to_owned();
    let file = d.path().join("../snapshot-out.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let file = file.to_str().unwrap();

    let o = run_in(r, &["check", "--expect", file]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("ok: . matches {id}\n"));
    let o = run_stdin(r, &["check", "--expect", "-"], &out.stdout);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("ok: . matches {id}\n"));

    let o = run_in(r, &["validate", file]);
    assert_eq!(code(&o), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{file}: valid genesis/workspace-snapshot-v0.1 (at /snapshot of `genesis snapshot --json` output)\n"
        )
    );
    let o = run_in(r, &["--json", "validate", file]);
    assert_eq!(
        ok_json(&o)["files"][0],
        json!({"file": file, "kind": "snapshot", "valid": true, "violations": [],
               "document_at": "/snapshot", "error": null})
    );

    // --identity is honoured: a JSON document holding only the identity, which check takes.
    let o = run_in(r, &["snapshot", "--json", "--identity"]);
    assert_eq!(stdout(&o), format!("{{\n  \"identity\": \"{id}\"\n}}\n"));
    let o2 = run_stdin(r, &["check", "--expect", "-"], &o.stdout);
    assert_eq!(code(&o2), Some(0), "{}", stderr(&o2));

    // A mismatch against the document lists the paths (the document holds the tree).
    std::fs::write(r.join("b.txt"), b"changed\n").unwrap();
    let o = run_in(r, &["--json", "check", "--expect", file]);
    assert_eq!(code(&o), Some(1));
    let v = json_out(&o);
    assert_eq!(v["differences"], json!([{"path": "b.txt", "status": "M"}]));
    assert_eq!(v["differences_unknown"], Value::Null);

    // An edited outer identity is refused by both (the document under /snapshot wins nothing).
    let mut bad: Value = serde_json::from_slice(&out.stdout).unwrap();
    bad["identity"] = json!("ab".repeat(32));
    let badf = d.path().join("../snapshot-bad.json");
    std::fs::write(&badf, serde_json::to_vec(&bad).unwrap()).unwrap();
    let badf = badf.to_str().unwrap();
    let o = run_in(r, &["check", "--expect", badf]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: {badf}: /identity \"{}\" is not the identity of the snapshot under /snapshot ({id})\n",
            "ab".repeat(32)
        )
    );
    let o = run_in(r, &["validate", badf]);
    assert_eq!(code(&o), Some(1));
    // Something that is none of the three is refused, saying what was looked for.
    let o = run_stdin(r, &["check", "--expect", "-"], b"{\"files\": []}");
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: standard input: not a snapshot document (no \"schema\" member), nor the output of `genesis snapshot --json` (no \"snapshot\" member) or of `genesis snapshot --json --identity` (only \"identity\")\n"
    );
}

#[test]
fn check_json_says_why_differences_are_unknown() {
    let d = ws();
    let r = d.path();
    let absent = "0".repeat(64);
    let o = run_in(r, &["--json", "check", "--expect", &absent]);
    assert_eq!(code(&o), Some(1));
    let v = json_out(&o);
    assert_eq!(v["differences"], Value::Null);
    assert_eq!(
        v["differences_unknown"],
        format!(
            "snapshot {absent} is not in the store; give its document to --expect (`genesis snapshot --json > FILE` where it was taken) to list the differing paths"
        )
    );
    // A matching identity not in the store: nothing differs, so the list is known (empty).
    let id = identity(r);
    let plain = tempfile::tempdir().unwrap();
    copy_tree(r, plain.path());
    std::fs::remove_dir_all(plain.path().join(".genesis")).unwrap();
    let o = run_in(plain.path(), &["--json", "check", ".", "--expect", &id]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let v = json_out(&o);
    assert_eq!(v["differences"], json!([]));
    assert_eq!(v["differences_unknown"], Value::Null);
}

#[test]
fn diff_json_carries_the_diff_and_the_stat_totals() {
    let d = ws();
    let r = d.path();
    let old = d.path().join("../old-tree");
    copy_tree(r, &old);
    std::fs::remove_dir_all(old.join(".genesis")).unwrap();
    std::fs::write(r.join("a.txt"), b"one\nTWO\nthree\n").unwrap();
    std::fs::remove_file(r.join("b.txt")).unwrap();
    let (o, n) = (old.to_str().unwrap(), r.to_str().unwrap());
    let text = stdout(&run_in(r, &["diff", o, n]));
    let stat = stdout(&run_in(r, &["diff", "--stat", o, n]));
    assert!(
        stat.ends_with(" 2 files changed, 2 insertions(+), 2 deletions(-)\n"),
        "{stat}"
    );
    let v = ok_json(&run_in(r, &["--json", "diff", o, n]));
    assert_eq!(v["diff"], text.as_str());
    assert_eq!(
        v["stat"],
        json!({"files_changed": 2, "insertions": 2, "deletions": 2})
    );
    // --stat and --name-status do not change the --json document.
    for flag in ["--stat", "--name-status"] {
        assert_eq!(ok_json(&run_in(r, &["--json", "diff", flag, o, n])), v);
    }
    // Latin-1 text cannot be a JSON string: `diff` is null, the rest stays.
    std::fs::write(r.join("a.txt"), b"caf\xe9\n").unwrap();
    let v = ok_json(&run_in(r, &["--json", "diff", o, n]));
    assert_eq!(v["diff"], Value::Null);
    assert_eq!(v["stat"]["files_changed"], 2);
}

/// Object keys of `v`, recursively, with their JSON pointers, skipping the subtrees at
/// `fixed` (documents whose names a seed or another schema fixes).
fn keys(v: &Value, at: &str, fixed: &[&str], out: &mut Vec<String>) {
    if fixed.contains(&at) {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(format!("{at}/{k}"));
                keys(x, &format!("{at}/{k}"), fixed, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                keys(x, &format!("{at}/*"), fixed, out);
            }
        }
        _ => {}
    }
}

fn snake(key: &str) -> bool {
    key.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[test]
fn every_json_output_has_snake_case_keys() {
    let d = ws();
    let r = d.path();
    let mut outputs: Vec<(String, Value)> = Vec::new();
    let mut take = |args: &[&str], o: std::process::Output| {
        outputs.push((args.join(" "), json_out(&o)));
    };
    let s = ok_json(&run_in(r, &["--json", "open"]))["session"]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    let diff = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n";
    take(
        &["patch"],
        run_stdin(r, &["--json", "patch", &s, "-"], diff),
    );
    for args in [
        vec!["snapshot"],
        vec!["snapshot", "--identity"],
        vec!["status"],
        vec!["status", &s],
        vec!["diff", &s],
        vec!["verify", &s],
        vec!["log", &s],
        vec!["replay", &s],
        vec!["check", "--expect", &"0".repeat(64)],
        vec!["validate", "genesis.json"],
        vec!["apply", &s, "--dry-run"],
        vec!["rebase", &s],
        vec!["abort", &s, "--dry-run"],
        vec!["apply", &s],
        vec!["recover"],
        vec!["status", "nope"],
    ] {
        let mut full = vec!["--json"];
        full.extend(&args);
        take(&args, run_in(r, &full));
    }
    let s2 = ok_json(&run_in(r, &["--json", "open"]))["session"]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(r.join("b.txt"), b"unrecorded\n").unwrap();
    take(&["abort"], run_in(r, &["--json", "abort", &s2]));
    // A checkout inside the workspace is refused: an error document.
    let o = run_in(r, &["--json", "open", "--checkout", "inside"]);
    assert_eq!(code(&o), Some(2), "{}", stdout(&o));
    assert!(!r.join("inside").exists());
    take(&["open (refused)"], o);
    // The seed documents (session, snapshot) and the acceptance record keep their schema's
    // names (snake_case too, as it happens); everything else is Genesis's own.
    let fixed: [&str; 0] = [];
    let mut bad = Vec::new();
    for (cmd, v) in &outputs {
        let mut ks = Vec::new();
        keys(v, "", &fixed, &mut ks);
        for k in ks {
            if !snake(k.rsplit('/').next().unwrap()) {
                bad.push(format!("{cmd}: {k}"));
            }
        }
    }
    assert_eq!(bad, Vec::<String>::new());
    assert_eq!(outputs.len(), 19, "{}", outputs.len());
}

/// `status --json` rows have one shape: a session that cannot be read has every key, `null`
/// but for `error` (and a readable one has `"error": null`).
#[test]
fn status_rows_have_one_shape() {
    let d = ws();
    let r = d.path();
    ok(&run_in(r, &["open", "--session", "good"]));
    ok(&run_in(r, &["open", "--session", "bad"]));
    let doc = r.join(".genesis/sessions/bad.json");
    let text = std::fs::read_to_string(&doc).unwrap();
    std::fs::write(&doc, text.replacen("{", "{\"status\": \"open\",", 1)).unwrap();
    let v = ok_json(&run_in(r, &["--json", "status"]));
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let keys = |row: &Value| row.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&rows[0]), keys(&rows[1]));
    let bad = &rows[0];
    assert_eq!(bad["session"], "bad");
    assert_eq!(bad["status"], Value::Null);
    assert_eq!(
        bad["error"],
        "session bad: ./.genesis/sessions/bad.json: duplicate key \"status\" at /status"
    );
    assert_eq!(rows[1]["error"], Value::Null);
    assert_eq!(rows[1]["status"], "open");
}

/// Every command that stops on conflicting paths lists them in `conflicts` with one shape:
/// `apply --json` (beside its `error`) as `rebase --json`, each entry `{"path", "kind",
/// "message", "hunks"}`.
#[test]
fn apply_and_rebase_list_conflicts_in_one_shape() {
    let d = ws();
    let r = d.path();
    let co_parent = tempfile::tempdir().unwrap();
    let co = co_parent.path().join("co");
    ok(&run_in(
        r,
        &["open", "--session", "s", "--checkout", co.to_str().unwrap()],
    ));
    std::fs::write(co.join("a.txt"), b"ONE\ntwo\n").unwrap();
    ok(&run_in(r, &["patch", "s", "--from", co.to_str().unwrap()]));
    ok(&run_in(r, &["verify", "s"]));
    std::fs::write(r.join("a.txt"), b"uno\ntwo\n").unwrap();
    let o = run_in(r, &["--json", "apply", "s"]);
    assert_eq!(code(&o), Some(3));
    let v = json_out(&o);
    assert_eq!(v["error"]["code"], 3);
    let list = v["conflicts"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
    assert_eq!(list[0]["path"], "a.txt");
    assert_eq!(list[0]["kind"], "changed");
    assert_eq!(list[0]["hunks"], json!([]));
    assert!(
        list[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("changed on disk since the session opened (base "),
        "{v}"
    );
    let o = run_in(r, &["--json", "rebase", "s"]);
    assert_eq!(code(&o), Some(3));
    let w = json_out(&o);
    assert_eq!(
        w["conflicts"],
        json!([{"path": "a.txt", "kind": "content", "message": "both changed the same lines",
                "hunks": [{"base": {"start": 1, "count": 1}, "session": {"start": 1, "count": 1},
                           "workspace": {"start": 1, "count": 1}}]}])
    );
    let keys = |x: &Value| x.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&list[0]), keys(&w["conflicts"][0]));
}
