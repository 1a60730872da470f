//! `genesis validate`: session, snapshot and manifest documents checked against the schemas,
//! each error named by its JSON pointer, with the documented exit statuses.

mod common;

use common::*;

#[test]
fn validate_reports_pointers_and_exit_codes() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let good = common::repo_root().join("testdata/identity/nested.json");
    let o = run_in(r, &["validate", good.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let session = serde_json::json!({
        "schema": "genesis/agent-transaction-v0.1",
        "session": "s1",
        "package_manifest": "genesis.json",
        "base_snapshot": "a".repeat(64),
        "current_snapshot": "a".repeat(64),
        "status": "open",
        "patches": [{"patch": "b".repeat(64), "before_snapshot": "a".repeat(64),
                     "after_snapshot": "NOT-A-HASH", "obligations_ok": true, "acceptance": null}],
        "verification": null
    });
    std::fs::write(r.join("s.json"), session.to_string()).unwrap();
    let o = run_in(r, &["validate", "--json", "s.json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["kind"], "session");
    assert_eq!(
        v["files"][0]["violations"][0]["pointer"],
        "/patches/0/after_snapshot"
    );
    std::fs::write(r.join("bad.json"), b"{not json").unwrap();
    let o = run_in(r, &["validate", "bad.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.json: invalid JSON"),
        "{}",
        stderr(&o)
    );
}
