//! Control characters from the input (a path, a value) are escaped in the messages printed to
//! standard error, so that they cannot drive the terminal; `--json` keeps the exact message.

mod common;

use common::*;

#[test]
fn an_error_naming_a_path_with_control_characters_escapes_them() {
    let d = tempfile::tempdir().unwrap();
    let name = "no\x1b]0;pwned\x07dir\u{9b}";
    let o = run_in(d.path(), &["snapshot", name, "--no-store"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "genesis: error: no\\x1b]0;pwned\\x07dir\\u{9b}: not a directory\n"
    );
    let o = run_in(d.path(), &["snapshot", name, "--no-store", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["error"]["message"],
        format!("{name}: not a directory").as_str()
    );
}
