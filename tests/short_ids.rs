//! Short ids: any unique prefix (4 characters or more) of a session id or a snapshot identity
//! is taken wherever the id is (status, patch, verify, diff, replay, apply, abort, restore,
//! check --expect, diff A B); a full id always wins, even a shorter one; an ambiguous prefix
//! exits 2 listing the candidates; a too-short one exits 2 saying the minimum.

mod common;

use common::{code, ok, ok_json, run_in, run_stdin, stderr, stdout};

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}
"#;

const HELLO: &[u8] = b"--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hi\n+hello\n";

/// A workspace with sessions `abcd1111`, `abcd2222` and `s1`.
fn three_sessions() -> tempfile::TempDir {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    ok(&run_in(d.path(), &["init"]));
    for s in ["abcd1111", "abcd2222", "s1"] {
        ok(&run_in(d.path(), &["open", "--session", s]));
    }
    d
}

#[test]
fn a_unique_prefix_names_the_session_in_every_command() {
    let d = three_sessions();
    let w = d.path();
    let o = run_in(w, &["status", "abcd1"]);
    assert!(
        stdout(&o).starts_with("session abcd1111: open\n"),
        "{}",
        stderr(&o)
    );
    let o = run_stdin(w, &["patch", "abcd1", "-"], HELLO);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        common::session_doc(w, "abcd1111")["patches"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let o = run_in(w, &["diff", "abcd1", "--name-status"]);
    assert_eq!(stdout(&o), "M\tgreeting.txt\n", "{}", stderr(&o));
    let o = run_in(w, &["replay", "abcd1"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let o = run_in(w, &["verify", "abcd1"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let o = run_in(w, &["apply", "abcd11"]);
    assert_eq!(
        stdout(&o).lines().last(),
        Some("applied session abcd1111: 1 file(s) changed"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(w.join("greeting.txt")).unwrap(), b"hello\n");
    let o = run_in(w, &["abort", "abcd2"]);
    assert_eq!(stdout(&o), "aborted session abcd2222\n", "{}", stderr(&o));
    // Nothing was saved, so restore refuses, about the session the prefix named.
    let o = run_in(w, &["restore", "abcd2", "--dry-run"]);
    assert_eq!(code(&o), Some(3));
    assert_eq!(
        stderr(&o),
        "genesis: error: session abcd2222: nothing to restore: no file was saved for it\n"
    );
    // A full id shorter than the minimum is still itself.
    let o = run_in(w, &["status", "s1"]);
    assert!(stdout(&o).starts_with("session s1: open\n"));
}

#[test]
fn an_ambiguous_prefix_exits_2_listing_the_candidates() {
    let d = three_sessions();
    let o = run_in(d.path(), &["verify", "abcd"]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: session id prefix \"abcd\" is ambiguous: 2 sessions match it (case and hyphens ignored); give more characters or the full id:\n  abcd1111\n  abcd2222\n"
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn a_too_short_prefix_says_the_minimum() {
    let d = three_sessions();
    let o = run_in(d.path(), &["status", "abc"]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        "genesis: error: no session \"abc\" in the store, and a session id prefix needs at least 4 characters (hyphens not counted); `genesis status` lists the sessions\n"
    );
    // Four characters that match nothing: the usual unknown-session error.
    let o = run_in(d.path(), &["status", "zzzz"]);
    assert_eq!(code(&o), Some(2));
    assert!(stderr(&o).contains("no session \"zzzz\" in the store"));
}

#[test]
fn status_shows_the_shortest_unique_prefix() {
    let d = three_sessions();
    let o = run_in(d.path(), &["status"]);
    assert_eq!(
        stdout(&o),
        "[abcd1]111\topen\t0 patch(es)\tnot verified\n[abcd2]222\topen\t0 patch(es)\tnot verified\ns1\topen\t0 patch(es)\tnot verified\n"
    );
    let v = ok_json(&run_in(d.path(), &["--json", "status"]));
    let pairs: Vec<(String, String)> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session"].as_str().unwrap().to_owned(),
                r["short_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [("abcd1111", "abcd1"), ("abcd2222", "abcd2"), ("s1", "s1")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // Each short id shown names its session.
    for (full, short) in &pairs {
        let o = run_in(d.path(), &["--json", "status", short]);
        assert_eq!(ok_json(&o)["session"]["session"], full.as_str());
    }
}

#[test]
fn snapshot_prefixes_in_check_and_diff() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    ok(&run_in(w, &["init"]));
    let id = ok(&run_in(w, &["snapshot", "--identity"]));
    let id = id.trim();
    let o = run_in(w, &["check", "--expect", &id[..6]]);
    assert_eq!(
        stdout(&o),
        format!("ok: . matches {id}\n"),
        "{}",
        stderr(&o)
    );
    // A mismatch against a stored prefix lists the differing paths.
    std::fs::write(w.join("greeting.txt"), b"bye\n").unwrap();
    let o = run_in(w, &["check", "--expect", &id[..6]]);
    assert_eq!(code(&o), Some(1));
    assert!(stdout(&o).ends_with("M\tgreeting.txt\n"), "{}", stdout(&o));
    let id2 = ok(&run_in(w, &["snapshot", "--identity"]));
    let o = run_in(w, &["diff", &id[..5], &id2[..5], "--name-status"]);
    assert_eq!(stdout(&o), "M\tgreeting.txt\n", "{}", stderr(&o));
    // Too short: the minimum is said.
    let o = run_in(w, &["check", "--expect", &id[..3]]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: --expect \"{}\": a snapshot identity prefix needs at least 4 hex digits\n",
            &id[..3]
        )
    );
    let o = run_in(w, &["diff", &id[..2], &id2[..5]]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).contains("needs at least 4 hex digits"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_ambiguous_snapshot_prefix_lists_the_candidates() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    ok(&run_in(w, &["init"]));
    let id = ok(&run_in(w, &["snapshot", "--identity"]));
    let id = id.trim().to_owned();
    // A second stored document whose name shares the first 8 digits (resolution reads names).
    let other = if id.as_bytes()[8] == b'0' { "1" } else { "0" };
    let twin = format!("{}{}", &id[..8], other.repeat(56));
    let snaps = w.join(".genesis/snapshots");
    std::fs::copy(
        snaps.join(format!("{id}.json")),
        snaps.join(format!("{twin}.json")),
    )
    .unwrap();
    let (first, second) = if twin < id {
        (&twin, &id)
    } else {
        (&id, &twin)
    };
    let o = run_in(w, &["check", "--expect", &id[..8]]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: snapshot prefix {} is ambiguous: 2 snapshots match ({first}, {second}); give more characters\n",
            &id[..8]
        )
    );
    let o = run_in(w, &["check", "--expect", &id[..9]]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}

/// As jj takes ids: a session id prefix in upper case, or typed without a UUID's hyphens, names
/// the session; a snapshot prefix or full identity in upper case names the snapshot.
#[test]
fn case_and_hyphens_do_not_matter() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    ok(&run_in(w, &["init"]));
    let uuid = "0193aaaa-7f00-7000-8000-000000000001";
    ok(&run_in(w, &["open", "--session", uuid]));
    for given in ["0193AAAA", "0193aaaa7f", "0193AAAA7F00700", "0193-aaaa"] {
        let o = run_in(w, &["status", given]);
        assert_eq!(code(&o), Some(0), "{given}: {}", stderr(&o));
        assert!(
            stdout(&o).starts_with(&format!("session {uuid}: open\n")),
            "{}",
            stdout(&o)
        );
    }
    // Fewer than 4 characters once the hyphens are gone: the minimum is said.
    let o = run_in(w, &["status", "019-"]);
    assert_eq!(code(&o), Some(2));
    let id = ok(&run_in(w, &["snapshot", "--identity"]));
    let id = id.trim();
    let up = id.to_ascii_uppercase();
    for given in [&up[..6], up.as_str()] {
        let o = run_in(w, &["check", "--expect", given]);
        assert_eq!(
            stdout(&o),
            format!("ok: . matches {id}\n"),
            "{}",
            stderr(&o)
        );
        let o = run_in(w, &["diff", given, id, "--name-status"]);
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    }
}

/// An operand that is both a directory (or file) here and the prefix of a stored snapshot is
/// ambiguous, as git's "ambiguous argument": exit 2 naming both; `./NAME` is the path, more
/// digits (or the full identity) the snapshot.
#[test]
fn a_path_that_is_also_a_snapshot_prefix_is_ambiguous() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    ok(&run_in(w, &["init"]));
    let id = ok(&run_in(w, &["snapshot", "--identity"]));
    let id = id.trim();
    let name = &id[..6];
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("greeting.txt"), b"hi\n").unwrap();
    // From a directory holding it, with the workspace named.
    let ws = w.to_str().unwrap();
    let o = run_in(outside.path(), &["--workspace", ws, "diff", name, id]);
    assert_eq!(code(&o), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "genesis: error: diff operand \"{name}\" is ambiguous: both a path here and a prefix of stored snapshot {id}; write ./{name} for the path, or the full identity for the snapshot\n"
        )
    );
    let dot = format!("./{name}");
    let o = run_in(outside.path(), &["--workspace", ws, "diff", &dot, id]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let o = run_in(outside.path(), &["--workspace", ws, "diff", id, id]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    // check --expect: a file of that name.
    std::fs::write(w.join(name), b"{}").unwrap();
    let o = run_in(w, &["check", "--expect", name]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).contains("is ambiguous: both a path here"),
        "{}",
        stderr(&o)
    );
}

/// Only a snapshot's root is found by prefix: the v0.2 node of one of its sub-directories
/// (in the store as an object) is not a snapshot anyone took.
#[test]
fn a_sub_directory_node_is_not_a_snapshot_prefix() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    for i in 0..4100 {
        let p = w.join(format!("sub/d{}/f{i}.txt", i % 10));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("{i}\n")).unwrap();
    }
    ok(&run_in(w, &["init"]));
    let root = ok(&run_in(w, &["snapshot", "--identity"]));
    let root = root.trim();
    // The node of `sub/d0`: the identity of a snapshot of that directory alone would differ
    // in paths, so read it from the root's listing in the store.
    let node_of = |parent: &str, name: &str| -> String {
        let hex = parent;
        let bytes = common::stored_object(w, hex);
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        v["directories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["node"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let sub = node_of(root, "sub");
    let o = run_in(w, &["diff", &sub[..12], root]);
    assert_eq!(code(&o), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!("no snapshot {}", &sub[..12])),
        "{}",
        stderr(&o)
    );
    let o = run_in(w, &["diff", &root[..12], root, "--name-status"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

/// Issue 12 reviewer: one normalised rule (case and hyphens ignored) resolves ids and picks the
/// prefixes status shows: the exact id first, then the id equal normalised, then a prefix of
/// 4+ normalised characters; every shown prefix resolves to its own session.
#[test]
fn one_normalised_rule_resolves_and_displays() {
    let d = common::workspace(MANIFEST, &[("greeting.txt", b"hi\n")]);
    let w = d.path();
    ok(&run_in(w, &["init", "-q"]));
    for s in ["abcd", "ABCDX", "ab-cd-e1", "abcdef"] {
        ok(&run_in(w, &["open", "-q", "--session", s]));
    }
    let status_of = |given: &str| {
        let o = run_in(w, &["status", "--json", given]);
        (code(&o), stdout(&o), stderr(&o))
    };
    // An exact full id (ignoring case) wins over being a prefix of another.
    let (c, out, err) = status_of("ABCD");
    assert_eq!(c, Some(0), "{err}");
    assert!(out.contains("\"session\": \"abcd\""), "{out}");
    // A prefix is ambiguous whatever its case.
    for given in ["abcde", "ABCDE", "AB-CDE"] {
        let (c, _, err) = status_of(given);
        assert_eq!(c, Some(2), "{given}");
        assert_eq!(
            err,
            format!(
                "genesis: error: session id prefix {given:?} is ambiguous: 2 sessions match it (case and hyphens ignored); give more characters or the full id:\n  ab-cd-e1\n  abcdef\n"
            )
        );
    }
    // The minimum counts normalised characters: `ab-c` is three.
    let (c, _, err) = status_of("ab-c");
    assert_eq!(c, Some(2));
    assert!(
        err.contains("needs at least 4 characters (hyphens not counted)"),
        "{err}"
    );
    // What status shows, and each shown prefix names its session.
    let v = ok_json(&run_in(w, &["status", "--json"]));
    let rows = v["sessions"].as_array().unwrap();
    let shown: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["session"].as_str().unwrap().to_owned(),
                r["short_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("ABCDX", "ABCDX"),
        ("ab-cd-e1", "ab-cd-e1"),
        ("abcd", "abcd"),
        ("abcdef", "abcdef"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(shown, want);
    for (id, short) in &shown {
        let (c, out, err) = status_of(short);
        assert_eq!(c, Some(0), "{short}: {err}");
        assert!(out.contains(&format!("\"session\": \"{id}\"")), "{out}");
    }
}
