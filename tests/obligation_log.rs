//! `genesis log SESSION [OBLIGATION]`: each obligation's output, exit status and duration from
//! the last verification; `status` names the obligations that failed and says when there are
//! no sessions. Exact bytes and exit codes (durations shown as `[s]`).

mod common;

use common::*;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[
  {"id":"say","run":["sh","-c","echo out; printf 'err'  >&2"],"timeout_s":10},
  {"id":"fail","run":["sh","-c","echo nope; exit 3"],"timeout_s":10}
]}
"#;

fn verified() -> tempfile::TempDir {
    let ws = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = ws.path();
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    assert_eq!(code(&run_in(r, &["verify", "s"])), Some(1));
    ws
}

fn no_durations(s: &str) -> String {
    common::pinned::redact_durations(s)
}

#[test]
fn log_prints_every_obligation_with_output_status_and_duration() {
    let ws = verified();
    let r = ws.path();
    let doc = session_doc(r, "s");
    let v = &doc["verification"];
    let o = run_in(r, &["log", "s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        no_durations(&stdout(&o)),
        format!(
            "verification of {} (acceptance {})\n\nobligation say: passed (exit 0, [s] s)\n$ sh -c 'echo out; printf '\\''err'\\''  >&2'\n--- stdout\nout\n--- stderr\nerr\n[no newline at end]\n\nobligation fail: FAILED (exit 3, [s] s)\n$ sh -c 'echo nope; exit 3'\n--- stdout\nnope\n--- stderr: empty\n",
            v["snapshot"].as_str().unwrap(),
            v["acceptance"].as_str().unwrap()
        )
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn log_of_one_obligation_and_its_json() {
    let ws = verified();
    let r = ws.path();
    let v = session_doc(r, "s")["verification"].clone();
    let o = run_in(r, &["log", "s", "fail"]);
    assert_eq!(code(&o), Some(0));
    assert_eq!(
        no_durations(&stdout(&o)),
        format!(
            "verification of {} (acceptance {})\n\nobligation fail: FAILED (exit 3, [s] s)\n$ sh -c 'echo nope; exit 3'\n--- stdout\nnope\n--- stderr: empty\n",
            v["snapshot"].as_str().unwrap(),
            v["acceptance"].as_str().unwrap()
        )
    );
    let o = run_in(r, &["--json", "log", "s", "fail"]);
    assert_eq!(code(&o), Some(0));
    let mut v = json_out(&o);
    assert!(v["obligations"][0]["seconds"].as_f64().unwrap() >= 0.0);
    v["obligations"][0]["seconds"] = serde_json::json!(0);
    assert_eq!(
        v["obligations"],
        serde_json::json!([{
            "id": "fail",
            "run": ["sh", "-c", "echo nope; exit 3"],
            "exit_code": 3,
            "timed_out": false,
            "passed": false,
            "seconds": 0,
            "stdout": "nope\n",
            "stderr": ""
        }])
    );
    assert_eq!(v["current"], true);
}

#[test]
fn log_refusals_exit_2_and_3() {
    let ws = verified();
    let r = ws.path();
    let o = run_in(r, &["log", "s", "nothere"]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: session s: no obligation \"nothere\" in its last verification; it ran: say, fail\n"
    );
    ok(&run_in(r, &["open", "--session", "t"]));
    let o = run_in(r, &["log", "t"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session t has no verification to show; `genesis verify t` runs the obligations\n"
    );
    let o = run_in(r, &["log", "nosuch"]);
    assert_eq!(code(&o), Some(2));
}

#[test]
fn status_names_the_failed_obligation_and_the_empty_store() {
    let ws = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    let r = ws.path();
    ok(&run_in(r, &["init"]));
    assert_eq!(
        ok(&run_in(r, &["status"])),
        "no sessions; `genesis open` starts one\n"
    );
    ok(&run_in(r, &["open", "--session", "s"]));
    assert_eq!(
        ok(&run_in(r, &["status"])),
        "s\topen\t0 patch(es)\tnot verified\n"
    );
    assert_eq!(code(&run_in(r, &["verify", "s"])), Some(1));
    assert_eq!(
        ok(&run_in(r, &["status"])),
        "s\topen\t0 patch(es)\tverification failed: fail\n"
    );
    let doc = session_doc(r, "s");
    let one = ok(&run_in(r, &["status", "s"]));
    assert!(
        one.contains(&format!(
            "\nverification failed: fail (snapshot {}, acceptance {}); `genesis log s` shows the output\n",
            doc["verification"]["snapshot"].as_str().unwrap(),
            doc["verification"]["acceptance"].as_str().unwrap()
        )),
        "{one}"
    );
    let v = ok_json(&run_in(r, &["--json", "status"]));
    assert_eq!(v["sessions"][0]["failed"], serde_json::json!(["fail"]));
    assert_eq!(v["sessions"][0]["verified"], false);
}
