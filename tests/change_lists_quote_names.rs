//! The change lists of `patch`, `apply`, `abort` and `status` print names quoted as git does
//! with core.quotePath (as `diff --name-status` and `check` do), so a rename between two
//! spellings of one name (NFC `café.txt` to NFD `café.txt`) prints two different lines; `--json`
//! keeps the names unquoted.

mod common;

use common::*;

const NFC: &str = "caf\u{e9}.txt";
const NFD: &str = "cafe\u{301}.txt";

#[test]
fn patch_apply_abort_and_status_quote_names() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write_tree(r, &[(NFC, b"x\n"), ("plain name.txt", b"p\n")]);
    ok(&run_in(r, &["init"]));
    ok(&run_in(r, &["open", "--session", "s"]));
    let diff = format!(
        "diff --git a/{NFC} b/{NFD}\nsimilarity index 100%\nrename from {NFC}\nrename to {NFD}\n"
    );
    let o = patch_stdin(r, "s", diff.as_bytes());
    let out = ok(&o);
    assert!(
        out.starts_with("A\t\"cafe\\314\\201.txt\"\nD\t\"caf\\303\\251.txt\"\n"),
        "{out}"
    );
    ok(&run_in(r, &["verify", "s"]));
    let out = ok(&run_in(r, &["apply", "s"]));
    assert!(
        out.starts_with("A\t\"cafe\\314\\201.txt\"\nD\t\"caf\\303\\251.txt\"\n"),
        "{out}"
    );
    assert!(r.join(NFD).exists() && !r.join(NFC).exists());

    // An in-place session whose abort saves a file under a quoted name.
    ok(&run_in(r, &["open", "--in-place", "--session", "t"]));
    std::fs::write(r.join(NFD), b"edited\n").unwrap();
    std::fs::write(r.join("plain name.txt"), b"edited\n").unwrap();
    let out = ok(&run_in(r, &["abort", "--dry-run", "t"]));
    assert_eq!(
        out,
        "abort t would change 2 path(s):\n  restore \"cafe\\314\\201.txt\"  (unrecorded: saved first)\n  restore plain name.txt  (unrecorded: saved first)\n"
    );
    let out = ok(&run_in(r, &["abort", "t"]));
    assert!(
        out.contains("\n  \"cafe\\314\\201.txt\" (7 bytes, blob "),
        "{out}"
    );
    let out = ok(&run_in(r, &["status", "t"]));
    assert!(
        out.contains("\n  \"cafe\\314\\201.txt\" (7 bytes)\n"),
        "{out}"
    );
    let j = ok_json(&run_in(r, &["--json", "status", "t"]));
    let text = j.to_string();
    assert!(text.contains(&format!("\"{NFD}\"")), "{text}");
    let out = ok(&run_in(r, &["restore", "t", "--dry-run"]));
    assert!(
        out.contains("would write \"cafe\\314\\201.txt\"\n"),
        "{out}"
    );
}
