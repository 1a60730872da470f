//! The shared remote store (issue 14, feature `remote`) against `file://` (the CLI, two
//! workspaces playing two machines) and `memory://` (the library): push, pull, `check
//! --accepted`, `verify --reuse-acceptance`, 8 concurrent pushers, a flipped byte refused on
//! pull, an interrupted pull resumed, a push stopped midway leaving no ref. The same flow
//! against a real S3 server (moto) is tests/remote_s3.sh.
#![cfg_attr(not(feature = "remote"), allow(dead_code, unused_imports))]

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

const DIFF_A: &[u8] = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n";

/// A workspace whose one obligation appends a line to `marker` (so a test can count runs).
fn ws_with_marker(marker: &Path) -> tempfile::TempDir {
    let manifest = serde_json::json!({
        "schema": "genesis/manifest-v0.1",
        "obligations": [{"id": "count", "run": ["sh", "-c", format!("echo ran >> {}", marker.display())], "timeout_s": 60}],
    });
    let ws = workspace(
        serde_json::to_string_pretty(&manifest).unwrap().as_bytes(),
        &[
            ("a.txt", b"hello\n"),
            ("bin/run.sh", b"#!/bin/sh\necho hi\n"),
        ],
    );
    chmod(&ws.path().join("bin/run.sh"), 0o755);
    ok(&run_in(ws.path(), &["init"]));
    ws
}

fn url_of(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// Every file under `dir` (relative path → bytes), sorted.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p)
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

#[cfg(feature = "remote")]
#[test]
fn two_workspaces_push_pull_check_and_replay() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["open", "--session", "s2"]));
    ok(&patch_stdin(ws1.path(), "s2", &new_file_diff("n1.txt")));
    ok(&patch_stdin(ws1.path(), "s2", &new_file_diff("n2.txt")));
    assert_eq!(lines(&marker), 1);

    // No ids: every session. Objects are the raw bytes under their SHA-256.
    let first = ok_json(&run_in(ws1.path(), &["push", "--remote", &url, "--json"]));
    let pushed: Vec<&str> = first["pushed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(pushed, ["s1", "s2"]);
    assert_eq!(first["acceptances"], 1);
    let objects = files_under(&remote.join("objects"));
    assert_eq!(first["uploaded"].as_u64().unwrap() as usize, objects.len());
    assert_eq!(first["skipped"], 0);
    for (name, bytes) in &objects {
        let hex = name.to_str().unwrap();
        assert_eq!(genesis::Digest::of(bytes).to_hex(), hex);
    }
    assert!(remote.join("sessions/s1/0000000001").is_file());
    // Again: nothing to upload, no new version.
    let again = ok_json(&run_in(
        ws1.path(),
        &["push", "s1", "s2", "--remote", &url, "--json"],
    ));
    assert_eq!(again["uploaded"], 0);
    assert_eq!(again["skipped"].as_u64().unwrap() as usize, objects.len());
    assert_eq!(again["pushed"][0]["ref_written"], false);
    assert_eq!(again["pushed"][0]["version"], 1);

    // The second machine: an empty directory; the pull makes its store.
    let ws2 = tempfile::tempdir().unwrap();
    let pulled = ok_json(&run_in(
        ws2.path(),
        &["pull", "s1", "s2", "--remote", &url, "--json"],
    ));
    assert_eq!(pulled["skipped"], 0);
    for id in ["s1", "s2"] {
        let doc =
            |ws: &Path| std::fs::read(ws.join(format!(".genesis/sessions/{id}.json"))).unwrap();
        assert_eq!(doc(ws1.path()), doc(ws2.path()), "{id}");
        let replay = ok(&run_in(ws2.path(), &["replay", id]));
        assert!(replay.contains("patch(es) replayed"), "{replay}");
    }
    // The v0.1 snapshots came with their executable bits.
    let base = session_doc(ws2.path(), "s1")["base_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    let exec = std::fs::read_to_string(
        ws2.path()
            .join(format!(".genesis/snapshots/{base}.exec.json")),
    )
    .unwrap();
    assert!(exec.contains("bin/run.sh"), "{exec}");
    // A tree object travels as its canonical bytes (the remote checks them against the name)
    // and is packed again in each store (DESIGN section 3, "Object files").
    let on_remote = std::fs::read(remote.join("objects").join(&base)).unwrap();
    assert!(on_remote.starts_with(br#"{"files":[{"blob":""#));
    for ws in [ws1.path(), ws2.path()] {
        let file = ws
            .join(".genesis/objects")
            .join(&base[..2])
            .join(&base[2..]);
        let file = std::fs::read(file).unwrap();
        assert!(file.starts_with(b"\x89GNP\x01\x02"), "{}", ws.display());
        let decoded = genesis::store::codec::decode_bytes(file, &base.parse().unwrap());
        assert_eq!(decoded.unwrap(), on_remote);
    }

    // check --accepted there: yes for s1's verified snapshot (and its manifest), no otherwise.
    let s1 = session_doc(ws2.path(), "s1");
    let snap = s1["current_snapshot"].as_str().unwrap();
    let acceptance = s1["verification"]["acceptance"].as_str().unwrap();
    let yes = run_in(
        ws2.path(),
        &["check", "--remote", &url, "--accepted", snap, "--json"],
    );
    assert_eq!(code(&yes), Some(0), "{}", stderr(&yes));
    let yes = json_out(&yes);
    assert_eq!(yes["accepted"], true);
    assert_eq!(yes["records"][0]["acceptance"], acceptance);
    let manifest = yes["records"][0]["manifest"].as_str().unwrap().to_owned();
    let record = stored_object(ws2.path(), acceptance);
    assert_eq!(genesis::Digest::of(&record).to_hex(), acceptance);
    let with = run_in(
        ws2.path(),
        &[
            "check",
            "--remote",
            &url,
            "--accepted",
            snap,
            "--obligations",
            &manifest,
        ],
    );
    assert_eq!(code(&with), Some(0), "{}", stdout(&with));
    let other = "0".repeat(64);
    let wrong = run_in(
        ws2.path(),
        &[
            "check",
            "--remote",
            &url,
            "--accepted",
            snap,
            "--obligations",
            &other,
        ],
    );
    assert_eq!(code(&wrong), Some(1), "{}", stdout(&wrong));
    let base_check = run_in(
        ws2.path(),
        &["check", "--remote", &url, "--accepted", &base],
    );
    assert_eq!(code(&base_check), Some(1));
    assert!(
        stdout(&base_check).starts_with("not accepted: no intact acceptance record of snapshot")
    );

    // Pulling again changes nothing.
    let twice = ok_json(&run_in(
        ws2.path(),
        &["pull", "s1", "--remote", &url, "--json"],
    ));
    assert_eq!(twice["downloaded"], 0);
    assert_eq!(twice["pulled"][0]["written"], false);
}

#[cfg(feature = "remote")]
#[test]
fn verify_reuses_a_remote_acceptance_only_when_asked() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let url = url_of(&scratch.path().join("remote"));
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    let acceptance = session_doc(ws1.path(), "s1")["verification"]["acceptance"].clone();
    assert_eq!(lines(&marker), 1);

    // Another session reaching the same snapshot takes the record: no obligation runs.
    ok(&run_in(ws1.path(), &["open", "--session", "s3"]));
    ok(&patch_stdin(ws1.path(), "s3", DIFF_A));
    let out = ok(&run_in(
        ws1.path(),
        &["verify", "s3", "--reuse-acceptance", "--remote", &url],
    ));
    assert!(
        out.starts_with(&format!(
            "reused acceptance {} from {url}: no obligation ran here\n",
            acceptance.as_str().unwrap()
        )),
        "{out}"
    );
    assert_eq!(lines(&marker), 1);
    assert_eq!(
        session_doc(ws1.path(), "s3")["verification"]["acceptance"],
        acceptance
    );
    let state: Value = serde_json::from_slice(
        &std::fs::read(ws1.path().join(".genesis/sessions/s3.state")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["reused_acceptance"]["acceptance"], acceptance);
    assert_eq!(state["reused_acceptance"]["source"], url.as_str());
    let status = ok(&run_in(ws1.path(), &["status", "s3"]));
    assert!(
        status.contains(&format!(
            "\nacceptance {} was reused from {url}: no obligation ran here\n",
            acceptance.as_str().unwrap()
        )),
        "{status}"
    );
    ok(&run_in(ws1.path(), &["apply", "s3"]));

    // The default still runs them; a snapshot with no record runs them too, saying so.
    ok(&run_in(ws1.path(), &["open", "--session", "s4"]));
    ok(&patch_stdin(ws1.path(), "s4", &new_file_diff("z.txt")));
    ok(&run_in(ws1.path(), &["verify", "s4"]));
    assert_eq!(lines(&marker), 2);
    let o = run_in(
        ws1.path(),
        &["verify", "s4", "--reuse-acceptance", "--remote", &url],
    );
    assert_eq!(code(&o), Some(0));
    assert!(
        stderr(&o).contains("no reusable acceptance of snapshot"),
        "{}",
        stderr(&o)
    );
    assert_eq!(lines(&marker), 3);
    let state: Value = serde_json::from_slice(
        &std::fs::read(ws1.path().join(".genesis/sessions/s4.state")).unwrap(),
    )
    .unwrap();
    assert!(state.get("reused_acceptance").is_none(), "{state}");
}

#[cfg(feature = "remote")]
#[test]
fn reuse_requires_the_same_executable_bits_on_a_v0_1_snapshot() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let url = url_of(&scratch.path().join("remote"));
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    assert_eq!(lines(&marker), 1);
    // The same paths and bytes (the same v0.1 identity), but run.sh is no longer executable.
    chmod(&ws1.path().join("bin/run.sh"), 0o644);
    ok(&run_in(ws1.path(), &["open", "--session", "s2"]));
    ok(&patch_stdin(ws1.path(), "s2", DIFF_A));
    assert_eq!(
        session_doc(ws1.path(), "s2")["current_snapshot"],
        session_doc(ws1.path(), "s1")["current_snapshot"]
    );
    let o = run_in(
        ws1.path(),
        &["verify", "s2", "--reuse-acceptance", "--remote", &url],
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("was made with executable bits [bin/run.sh], here they are []"),
        "{}",
        stderr(&o)
    );
    assert_eq!(lines(&marker), 2);
    let state: Value = serde_json::from_slice(
        &std::fs::read(ws1.path().join(".genesis/sessions/s2.state")).unwrap(),
    )
    .unwrap();
    assert!(state.get("reused_acceptance").is_none(), "{state}");
}

#[cfg(feature = "remote")]
#[test]
fn a_pull_keeps_the_local_checkout_and_patch_from_it_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let url = url_of(&scratch.path().join("remote"));
    let co = scratch.path().join("co");
    let ws1 = ws_with_marker(&marker);
    let co_s = co.to_str().unwrap();
    ok(&run_in(
        ws1.path(),
        &["open", "--session", "s1", "--checkout", co_s],
    ));
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    // The other machine patches the session and pushes it back.
    let ws2 = tempfile::tempdir().unwrap();
    ok(&run_in(ws2.path(), &["pull", "s1", "--remote", &url]));
    ok(&patch_stdin(ws2.path(), "s1", DIFF_A));
    ok(&run_in(ws2.path(), &["push", "s1", "--remote", &url]));
    ok(&run_in(ws1.path(), &["pull", "s1", "--remote", &url]));
    let state: Value = serde_json::from_slice(
        &std::fs::read(ws1.path().join(".genesis/sessions/s1.state")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["checkout"], co_s);
    assert_eq!(
        state["checkout_pulled_past"],
        session_doc(ws1.path(), "s1")["current_snapshot"]
    );
    // The checkout still says hello: recording it would revert the pulled patch.
    assert_eq!(std::fs::read(co.join("a.txt")).unwrap(), b"hello\n");
    let o = run_in(ws1.path(), &["patch", "s1", "--from", co_s]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "`genesis pull` has since brought patches made elsewhere that it does not hold"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        session_doc(ws1.path(), "s1")["patches"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // abort still knows the checkout (it removes its files; it said 0 paths before).
    let dry = ok(&run_in(ws1.path(), &["abort", "--dry-run", "s1"]));
    assert!(
        dry.starts_with("abort s1 would change 3 path(s):\n"),
        "{dry}"
    );
}

#[cfg(feature = "remote")]
#[test]
fn a_push_replaces_a_truncated_or_flipped_remote_object() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    let objects = files_under(&remote.join("objects"));
    let (name, good) = objects[0].clone();
    let path = remote.join("objects").join(&name);
    // Truncated: the listed size differs; a plain push finds and replaces it.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    let o = run_in(ws1.path(), &["push", "s1", "--remote", &url, "--json"]);
    let out: Value = serde_json::from_str(&ok(&o)).unwrap();
    let key = format!(
        "{}/objects/{}",
        remote.display().to_string().trim_start_matches('/'),
        name.display()
    );
    assert_eq!(out["repaired"], serde_json::json!([key]));
    assert_eq!(std::fs::read(&path).unwrap(), good);
    // A flipped byte keeps the size: only --verify-remote finds it.
    let mut bad = good.clone();
    bad[0] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let plain = ok_json(&run_in(
        ws1.path(),
        &["push", "s1", "--remote", &url, "--json"],
    ));
    assert_eq!(plain["repaired"], serde_json::json!([]));
    let o = run_in(
        ws1.path(),
        &["push", "s1", "--remote", &url, "--verify-remote"],
    );
    assert_eq!(code(&o), Some(0));
    assert!(
        stderr(&o).contains(&format!("remote object {key} was damaged; replaced")),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&path).unwrap(), good);
}

#[cfg(feature = "remote")]
#[test]
fn forged_session_version_keys_are_refused_without_a_panic() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    ok(&run_in(ws1.path(), &["open", "--session", "s1"]));
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    ok(&patch_stdin(ws1.path(), "s1", DIFF_A));
    let v1 = remote.join("sessions/s1/0000000001");
    let top = remote.join("sessions/s1/18446744073709551615");
    std::fs::copy(&v1, &top).unwrap();
    let o = run_in(ws1.path(), &["push", "s1", "--remote", &url]);
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("sessions/s1/18446744073709551615: invalid document: the highest session version; no version can follow it"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(&top).unwrap();
    std::fs::copy(&v1, remote.join("sessions/s1/99999999999999999999")).unwrap();
    let o = run_in(ws1.path(), &["push", "s1", "--remote", &url]);
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("sessions/s1/99999999999999999999: invalid document: not a session version"),
        "{}",
        stderr(&o)
    );
}

#[cfg(feature = "remote")]
#[test]
fn the_cli_refuses_memory_and_malformed_urls() {
    let scratch = tempfile::tempdir().unwrap();
    let ws1 = ws_with_marker(&scratch.path().join("marker"));
    ok(&run_in(ws1.path(), &["open", "--session", "s1"]));
    for url in ["memory://", "MEMORY:///x"] {
        let o = run_in(ws1.path(), &["push", "s1", "--remote", url]);
        assert_eq!(code(&o), Some(2), "{url}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("memory:// is for the library and tests"),
            "{}",
            stderr(&o)
        );
    }
    // Nothing that URL normalisation would rewrite into another place.
    for (url, says) in [
        ("file:relative", "expected file:///absolute/path"),
        ("file://host/x", "expected file:///absolute/path (no host"),
        ("s3://b/../../x", "`..` segment (\"..\")"),
        ("s3://b/a/./x", "`..` segment (\".\")"),
        ("gs://b/a//x", "`..` segment (\"\")"),
        ("s3://b/%2E%2e/x", "`..` segment (\"%2E%2e\")"),
        ("file:///tmp/../etc", "`..` segment (\"..\")"),
    ] {
        let o = run_in(ws1.path(), &["push", "s1", "--remote", url]);
        assert_eq!(code(&o), Some(2), "{url}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{url}: {}", stderr(&o));
    }
    // The library refuses them too, and keeps memory://.
    assert!(genesis::remote::Remote::open("s3://b/../../x").is_err());
    assert!(genesis::remote::Remote::open("file:relative").is_err());
    assert!(genesis::remote::Remote::open("memory://").is_ok());
    assert!(genesis::remote::Remote::open("s3://b/p/").is_ok());
}

#[cfg(feature = "remote")]
#[test]
fn eight_concurrent_pushers_of_overlapping_sessions() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    let ids: Vec<String> = (0..8).map(|i| format!("c{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        ok(&run_in(ws1.path(), &["open", "--session", id]));
        ok(&patch_stdin(
            ws1.path(),
            id,
            &new_file_diff(&format!("f{}.txt", i % 3)),
        ));
    }
    let bin = assert_cmd::cargo::cargo_bin("genesis");
    let children: Vec<std::process::Child> = (0..8)
        .map(|i| {
            std::process::Command::new(&bin)
                .current_dir(ws1.path())
                .args([
                    "push",
                    &ids[i],
                    &ids[(i + 1) % 8],
                    &ids[(i + 3) % 8],
                    "--remote",
                    &url,
                    "--json",
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut uploaded = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        uploaded += json_out(&o)["uploaded"].as_u64().unwrap();
    }
    // Each object was created once, whoever won; each session has exactly one version.
    let objects = files_under(&remote.join("objects"));
    assert_eq!(uploaded as usize, objects.len());
    for id in &ids {
        let versions = files_under(&remote.join("sessions").join(id));
        assert_eq!(versions.len(), 1, "{id}: {versions:?}");
    }
    let ws2 = tempfile::tempdir().unwrap();
    let mut args = vec!["pull"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["--remote", &url]);
    ok(&run_in(ws2.path(), &args));
    for id in &ids {
        ok(&run_in(ws2.path(), &["replay", id]));
    }
}

#[cfg(feature = "remote")]
#[test]
fn a_flipped_byte_is_refused_on_pull_and_the_store_is_untouched() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    // The blob of "world\n": flip one byte of it on the remote.
    let blob = genesis::Digest::of(b"world\n").to_hex();
    let path = remote.join("objects").join(&blob);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let ws2 = tempfile::tempdir().unwrap();
    ok(&run_in(ws2.path(), &["init"]));
    let before = files_under(&ws2.path().join(".genesis"));
    let o = run_in(ws2.path(), &["pull", "s1", "--remote", &url]);
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    let actual = genesis::Digest::of(&bytes).to_hex();
    assert!(
        stderr(&o).contains(&format!("corrupt object {}: expected {blob}, content hashes to {actual}; nothing was written to the local store", path.display().to_string().trim_start_matches('/'))),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_under(&ws2.path().join(".genesis")), before);
    // Truncated: the same.
    std::fs::write(&path, b"wor").unwrap();
    let o = run_in(ws2.path(), &["pull", "s1", "--remote", &url]);
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    assert_eq!(files_under(&ws2.path().join(".genesis")), before);
}

/// The fault-injection step numbers (GENESIS_FAULT_TRACE) of `genesis args…` in `dir` whose
/// name starts with `prefix`.
fn steps(dir: &Path, args: &[&str], prefix: &str) -> Vec<usize> {
    let trace = tempfile::NamedTempFile::new().unwrap();
    let o = genesis()
        .current_dir(dir)
        .args(args)
        .env("GENESIS_FAULT_TRACE", trace.path())
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    std::fs::read_to_string(trace.path())
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (n, name) = l.split_once(' ')?;
            name.starts_with(prefix).then(|| n.parse().unwrap())
        })
        .collect()
}

#[cfg(feature = "remote")]
#[test]
fn an_interrupted_pull_resumes() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let url = url_of(&scratch.path().join("remote"));
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    ok(&run_in(ws1.path(), &["push", "s1", "--remote", &url]));
    let probe = tempfile::tempdir().unwrap();
    let pull = [
        "pull",
        "s1",
        "--remote",
        url.as_str(),
        "--concurrency",
        "1",
        "--json",
    ];
    let gets = steps(probe.path(), &pull, "remote-get objects/");
    assert!(gets.len() > 6, "{gets:?}");
    // Killed (abort: no destructor tidies up) at the 5th object fetched.
    let ws2 = tempfile::tempdir().unwrap();
    let o = genesis()
        .current_dir(ws2.path())
        .args(pull)
        .env("GENESIS_FAULT", format!("{}:abort", gets[4]))
        .output()
        .unwrap();
    assert_eq!(code(&o), None, "{}", stderr(&o));
    assert!(!ws2.path().join(".genesis/sessions/s1.json").exists());
    let resumed = ok_json(&run_in(ws2.path(), &pull));
    // The closure object and 3 objects were staged before the kill: not fetched again.
    let total = resumed["downloaded"].as_u64().unwrap() + resumed["skipped"].as_u64().unwrap();
    assert_eq!(resumed["skipped"], 3, "{resumed}");
    assert_eq!(total as usize, gets.len() - 1);
    ok(&run_in(ws2.path(), &["replay", "s1"]));
    assert!(
        std::fs::read_dir(ws2.path().join(".genesis/tmp"))
            .unwrap()
            .next()
            .is_none()
    );
}

#[cfg(feature = "remote")]
#[test]
fn a_push_stopped_midway_leaves_no_ref_then_completes() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let remote = scratch.path().join("remote");
    let url = url_of(&remote);
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "s1", DIFF_A);
    let probe_remote = scratch.path().join("probe");
    let probe_url = url_of(&probe_remote);
    let puts = steps(
        ws1.path(),
        &["push", "s1", "--remote", &probe_url, "--concurrency", "1"],
        "remote-put objects/",
    );
    let o = genesis()
        .current_dir(ws1.path())
        .args(["push", "s1", "--remote", &url, "--concurrency", "1"])
        .env("GENESIS_FAULT", format!("{}:eio", puts[puts.len() / 2]))
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    assert_eq!(files_under(&remote.join("objects")).len(), puts.len() / 2);
    assert!(!remote.join("sessions").exists());
    assert!(!remote.join("acceptances").exists());
    let done = ok_json(&run_in(
        ws1.path(),
        &["push", "s1", "--remote", &url, "--json"],
    ));
    assert_eq!(done["skipped"].as_u64().unwrap() as usize, puts.len() / 2);
    assert_eq!(done["pushed"][0]["version"], 1);
    let ws2 = tempfile::tempdir().unwrap();
    ok(&run_in(ws2.path(), &["pull", "s1", "--remote", &url]));
    ok(&run_in(ws2.path(), &["replay", "s1"]));
}

#[cfg(feature = "remote")]
#[test]
fn a_diverged_session_is_refused_both_ways() {
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let url = url_of(&scratch.path().join("remote"));
    let ws1 = ws_with_marker(&marker);
    ok(&run_in(ws1.path(), &["open", "--session", "d"]));
    ok(&run_in(ws1.path(), &["push", "d", "--remote", &url]));
    let ws2 = tempfile::tempdir().unwrap();
    ok(&run_in(ws2.path(), &["pull", "d", "--remote", &url]));
    // Each side records a different patch.
    ok(&patch_stdin(ws1.path(), "d", &new_file_diff("one.txt")));
    ok(&run_in(ws1.path(), &["push", "d", "--remote", &url]));
    // ws2's copy has no workspace files to patch, so it is made to diverge by a copy of ws1's
    // store state with another patch instead.
    let ws3 = ws_with_marker(&marker);
    ok(&run_in(ws3.path(), &["open", "--session", "d"]));
    ok(&patch_stdin(ws3.path(), "d", &new_file_diff("two.txt")));
    let o = run_in(ws3.path(), &["push", "d", "--remote", &url]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("session d: the remote has 1 patch"),
        "{}",
        stderr(&o)
    );
    // Refused before anything is downloaded: the store is as it was, no staging left.
    let before = files_under(&ws3.path().join(".genesis"));
    let o = run_in(ws3.path(), &["pull", "d", "--remote", &url]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("session d: the local store has 1 patch on base "),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("(open); the remote's 1 patch on base "),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("(open) do not extend them; nothing written"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_under(&ws3.path().join(".genesis")), before);
    // The fast-forward pull is fine.
    ok(&run_in(ws2.path(), &["pull", "d", "--remote", &url]));
    assert_eq!(
        session_doc(ws2.path(), "d")["patches"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[cfg(feature = "remote")]
#[test]
fn memory_remote_through_the_library() {
    use genesis::remote::{
        PullOptions, PushOptions, Remote, RemoteError, check_accepted, pull, push,
    };
    use object_store::ObjectStoreExt;
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    let ws1 = ws_with_marker(&marker);
    verified_session(ws1.path(), "m", DIFF_A);
    let mem = std::sync::Arc::new(object_store::memory::InMemory::new());
    let remote = Remote::from_object_store(mem.clone(), "team/genesis".into(), "memory://");
    let store1 = genesis::Store::open(&ws1.path().join(".genesis")).unwrap();
    let out = push(&store1, &remote, &["m".to_owned()], &PushOptions::default()).unwrap();
    assert_eq!(out.pushed[0].version, Some(1));
    let ws2 = tempfile::tempdir().unwrap();
    let store2 = genesis::Store::init(&ws2.path().join(".genesis")).unwrap();
    // A truncated blob first: refused, nothing stored.
    let blob = genesis::Digest::of(b"world\n");
    let key = remote.key(&format!("objects/{blob}"));
    assert_eq!(key.as_ref(), format!("team/genesis/objects/{blob}"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(mem.put(&key, b"wor".to_vec().into())).unwrap();
    let before = files_under(store2.path());
    let e = pull(&store2, &remote, &["m".to_owned()], &PullOptions::default()).unwrap_err();
    assert!(
        matches!(e, RemoteError::Corrupt { expected, .. } if expected == blob),
        "{e}"
    );
    assert_eq!(e.kind().exit_code(), 4);
    assert_eq!(files_under(store2.path()), before);
    rt.block_on(mem.put(&key, b"world\n".to_vec().into()))
        .unwrap();
    let got = pull(&store2, &remote, &["m".to_owned()], &PullOptions::default()).unwrap();
    assert!(got.pulled[0].written);
    let doc1 = std::fs::read(ws1.path().join(".genesis/sessions/m.json")).unwrap();
    let doc2 = std::fs::read(ws2.path().join(".genesis/sessions/m.json")).unwrap();
    assert_eq!(doc1, doc2);
    let snap: genesis::Digest = session_doc(ws1.path(), "m")["current_snapshot"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(check_accepted(&remote, &snap, None).unwrap().accepted());
    let e = pull(
        &store2,
        &remote,
        &["nope".to_owned()],
        &PullOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.kind().exit_code(), 2);
}

#[cfg(not(feature = "remote"))]
#[test]
fn without_the_feature_the_commands_say_so() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        &["push", "--remote", "memory://"][..],
        &["pull", "x", "--remote", "memory://"],
        &["check", "--accepted", "abcd", "--remote", "memory://"],
    ] {
        let o = run_in(d.path(), args);
        assert_eq!(code(&o), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("this genesis was built without the `remote` feature (cargo build --features remote)"),
            "{}",
            stderr(&o)
        );
    }
}
