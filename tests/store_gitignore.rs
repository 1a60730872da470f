//! The store keeps itself out of git: whatever creates it (`init`, `open`) writes
//! `.genesis/.gitignore` holding `*` (as jj does for `.jj`), so `git add -A` in the workspace
//! adds nothing under `.genesis`; an existing `.gitignore` there is left as it is.

mod common;

use common::{git, have, ok, run_in};

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}
"#;

#[test]
fn init_writes_a_gitignore_of_everything() {
    let d = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    ok(&run_in(d.path(), &["init"]));
    assert_eq!(
        std::fs::read(d.path().join(".genesis/.gitignore")).unwrap(),
        b"*\n"
    );
}

#[test]
fn open_creating_the_store_writes_it_too_and_a_kept_one_stays() {
    let d = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    ok(&run_in(d.path(), &["open", "--session", "s"]));
    assert_eq!(
        std::fs::read(d.path().join(".genesis/.gitignore")).unwrap(),
        b"*\n"
    );
    // A .gitignore the user changed is theirs: a later init keeps it.
    std::fs::write(d.path().join(".genesis/.gitignore"), b"objects/\n").unwrap();
    ok(&run_in(d.path(), &["init"]));
    assert_eq!(
        std::fs::read(d.path().join(".genesis/.gitignore")).unwrap(),
        b"objects/\n"
    );
}

#[test]
fn git_add_all_after_init_adds_nothing_under_the_store() {
    if !have("git") {
        eprintln!("skipped: no git");
        return;
    }
    let d = common::workspace(MANIFEST, &[("a.txt", b"a\n")]);
    git(d.path(), &["init", "-q"]);
    ok(&run_in(d.path(), &["init"]));
    // Objects, snapshots and a session in the store as well.
    ok(&run_in(d.path(), &["open", "--session", "s"]));
    assert!(d.path().join(".genesis/sessions/s.json").is_file());
    git(d.path(), &["add", "-A"]);
    let staged = git(d.path(), &["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "a.txt\ngenesis.json\n");
    // Nothing is left untracked either: git sees no store at all.
    assert_eq!(
        git(d.path(), &["status", "--porcelain"]),
        "A  a.txt\nA  genesis.json\n"
    );
}
