//! In-place `abort` decides which files to remove with the base's membership, recorded at
//! open: a pre-existing ignored file (`secret.env`) that the user `git add -f`-ed during the
//! session was left out of the base, so abort never touches it — neither removes nor saves
//! it, and lists it as kept — while the agent's unrecorded edit is still put back and saved.

mod common;

use common::{git, run_in, stderr, stdout, write_tree};

const SECRET: &[u8] = b"TOKEN=1\n";
const SECRET_2: &[u8] = b"TOKEN=2\n";
const MAIN_RS: &[u8] = b"fn main() {}\n";
const MAIN_RS_2: &[u8] = b"fn main() { edited(); }\n";
/// SHA-256 of `MAIN_RS_2` (`printf 'fn main() { edited(); }\n' | sha256sum`).
const MAIN_RS_2_BLOB: &str = "3070a6152dfb3ae0cbfbe324385cbd254eb8e75abe61b542dbf148839fac3cba";

#[test]
fn in_place_abort_leaves_a_file_git_added_during_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    git(ws, &["init", "-q", "-b", "main"]);
    write_tree(
        ws,
        &[
            (".gitignore", b"secret.env\n"),
            ("src/main.rs", MAIN_RS),
            ("secret.env", SECRET),
        ],
    );
    git(ws, &["add", "."]);
    git(ws, &["commit", "-q", "-m", "init"]);
    assert_eq!(run_in(ws, &["init"]).status.code(), Some(0));
    let o = run_in(ws, &["open", "--in-place"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();

    // During the session: the user tracks the ignored file (and changes it); the agent
    // edits src/main.rs without recording a patch.
    std::fs::write(ws.join("secret.env"), SECRET_2).unwrap();
    git(ws, &["add", "-f", "secret.env"]);
    std::fs::write(ws.join("src/main.rs"), MAIN_RS_2).unwrap();

    let o = run_in(ws, &["abort", &id, "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dry = stdout(&o);
    assert_eq!(
        dry,
        format!(
            "abort {id} would change 1 path(s):\n  restore src/main.rs  (unrecorded: saved first)\nkept 1 path(s) as they are:\n  secret.env (ignored by .gitignore in the base)\n"
        )
    );
    let o = run_in(ws, &["--json", "abort", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let saved: Vec<(&str, &str)> = v["saved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["blob"].as_str().unwrap()))
        .collect();
    assert_eq!(saved, [("src/main.rs", MAIN_RS_2_BLOB)]);
    // Left on purpose, and listed as such.
    assert_eq!(
        v["kept"],
        serde_json::json!([{"path": "secret.env", "reason": "ignored by .gitignore in the base"}])
    );
    // Untouched, with the content the user gave it; the edit is back at the base.
    assert_eq!(std::fs::read(ws.join("secret.env")).unwrap(), SECRET_2);
    assert_eq!(std::fs::read(ws.join("src/main.rs")).unwrap(), MAIN_RS);
    assert_eq!(git(ws, &["ls-files", "secret.env"]), "secret.env\n");
}
