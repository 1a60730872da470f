//! `genesis check`: exit 0 when a tree hashes to the expected identity or document, exit 1
//! with the differing paths otherwise.

mod common;

use common::*;

#[test]
fn check_matches_and_lists_differences() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[("a", b"a"), ("b", b"b")]);
    let doc = stdout(&run_in(r, &["snapshot", "--no-store"]));
    let expect_file = d.path().join("..").join(format!(
        "expected-{}.json",
        r.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&expect_file, &doc).unwrap();
    let id = serde_json::from_str::<serde_json::Value>(&doc).unwrap()["identity"]
        .as_str()
        .unwrap()
        .to_owned();
    let o = run_in(r, &["check", "--expect", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(r.join("a"), b"changed").unwrap();
    std::fs::remove_file(r.join("b")).unwrap();
    std::fs::write(r.join("c"), b"new").unwrap();
    let o = run_in(
        r,
        &["check", "--json", "--expect", expect_file.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["match"], false);
    assert_eq!(
        v["differences"],
        serde_json::json!([
            {"status": "M", "path": "a"},
            {"status": "D", "path": "b"},
            {"status": "A", "path": "c"}
        ])
    );
    std::fs::remove_file(&expect_file).unwrap();
    let o = run_in(r, &["check", "--expect", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}
