//! `genesis gc` (issue 12 item 6, DESIGN section 3 "Garbage collection"): what nothing
//! references and is older than `--prune` goes, exactly; everything a session or journal names
//! stays (v0.1 documents, v0.2 nodes, patch texts, acceptance records, logs, saved files,
//! rebased history); a broken reference removes nothing (exit 4); the store lock is held
//! throughout; a crash at any step leaves a store every session still works with, and a second
//! gc finishes.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::*;
use serde_json::Value;

const MANIFEST: &[u8] = br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#;

const DAY: u64 = 24 * 60 * 60;

/// The SHA-256 of `data` in hex: the name of the object holding it.
fn sha(data: &[u8]) -> String {
    genesis::Digest::of(data).to_string()
}

/// `objects/ab/cdef…` for the object named `hex`.
fn obj(hex: &str) -> String {
    format!("objects/{}/{}", &hex[..2], &hex[2..])
}

/// Every file under `root/.genesis/{objects,snapshots,tmp,statcache}`, relative to the store.
fn store_files(root: &Path) -> BTreeSet<String> {
    files_in(&root.join(".genesis"))
}

/// As [`store_files`], for the store directory `store`.
fn files_in(store: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<PathBuf> = ["objects", "snapshots", "tmp", "statcache"]
        .iter()
        .map(|d| store.join(d))
        .collect();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(store).unwrap().to_owned();
                out.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    out
}

/// Sets the modification time of every file [`store_files`] lists to `secs` ago.
fn age_store(root: &Path, secs: u64) {
    let when = SystemTime::now() - Duration::from_secs(secs);
    for f in store_files(root) {
        let file = std::fs::File::open(root.join(".genesis").join(f)).unwrap();
        file.set_modified(when).unwrap();
    }
}

/// Removes the store's stat caches, so that a test's exact counts do not depend on whether a
/// file was old enough to be cached (a cache naming a removed blob goes too: see
/// `a_stat_cache_naming_a_removed_blob_goes_too`).
fn drop_stat_caches(root: &Path) {
    let _ = std::fs::remove_dir_all(root.join(".genesis/statcache"));
}

/// The `path` of each entry of `gc --json`'s `removed`.
fn removed_paths(out: &Value) -> BTreeSet<String> {
    out["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A workspace with a store, `genesis.json` and `a.txt`, and session `s1` open on it.
fn base_workspace() -> tempfile::TempDir {
    let ws = workspace(MANIFEST, &[("a.txt", b"one\n")]);
    ok(&run_in(ws.path(), &["init", "-q"]));
    ok(&run_in(ws.path(), &["open", "-q", "--session", "s1"]));
    ws
}

/// `snapshot --identity` of the workspace (stored), asserting exit 0.
fn stored_snapshot(root: &Path) -> String {
    ok(&run_in(root, &["snapshot", "--identity"]))
        .trim()
        .to_owned()
}

#[test]
fn unreferenced_snapshot_goes_only_after_the_prune_limit() {
    let ws = base_workspace();
    let root = ws.path();
    let base = session_doc(root, "s1")["base_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(root.join("b.txt"), b"only in a snapshot\n").unwrap();
    let id2 = stored_snapshot(root);
    drop_stat_caches(root);
    let before = store_files(root);
    let garbage = set(&[
        &format!("snapshots/{id2}.json"),
        &format!("snapshots/{id2}.exec.json"),
        &obj(&id2),
        &obj(&sha(b"only in a snapshot\n")),
    ]);
    let kept = set(&[
        &format!("snapshots/{base}.json"),
        &format!("snapshots/{base}.exec.json"),
        &obj(&base),
        &obj(&sha(MANIFEST)),
        &obj(&sha(b"one\n")),
    ]);
    assert_eq!(
        before
            .iter()
            .filter(|f| !f.starts_with("statcache/"))
            .cloned()
            .collect::<BTreeSet<_>>(),
        &garbage | &kept
    );

    // Two weeks by default: a snapshot made a moment ago is kept.
    let o = ok_json(&run_in(root, &["--json", "gc"]));
    assert_eq!(o["count"], 0);
    assert_eq!(o["kept_objects"], 5);
    assert_eq!(o["kept_recent"], 2, "{o}");
    assert_eq!(o["prune_s"], 1_209_600);
    assert_eq!(store_files(root), before);

    age_store(root, 30 * DAY);
    // Older than the limit given: kept.
    let o = ok_json(&run_in(
        root,
        &["--json", "gc", "--prune", &(31 * DAY).to_string()],
    ));
    assert_eq!(o["count"], 0);
    assert_eq!(store_files(root), before);

    // --dry-run lists exactly the four files, and removes nothing.
    let o = ok_json(&run_in(root, &["--json", "gc", "--dry-run"]));
    assert_eq!(o["dry_run"], true);
    assert_eq!(o["count"], 4);
    assert_eq!(removed_paths(&o), garbage);
    let bytes: u64 = garbage
        .iter()
        .map(|f| {
            std::fs::metadata(root.join(".genesis").join(f))
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(o["bytes"], bytes);
    assert_eq!(store_files(root), before);
    // Human dry run: one line per file, then the sum.
    let human = ok(&run_in(root, &["gc", "--dry-run"]));
    assert_eq!(human.lines().count(), 6, "{human}");
    assert!(
        human.contains(&format!(
            "would remove 4 files, {bytes} bytes (dry run: nothing removed)"
        )),
        "{human}"
    );

    // The v0.1 document goes before its sidecar, its canonical object and its blob.
    let kinds: Vec<&str> = o["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["snapshot", "executable_bits", "object", "object"]);

    let o = run_in(root, &["gc"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("removed 4 files, {bytes} bytes freed\nkept 3 objects\n")
    );
    assert_eq!(
        store_files(root)
            .into_iter()
            .filter(|f| !f.starts_with("statcache/"))
            .collect::<BTreeSet<_>>(),
        kept
    );
    ok(&run_in(root, &["status", "s1"]));
    ok(&run_in(root, &["replay", "s1"]));
    let o = ok_json(&run_in(root, &["--json", "gc", "--prune=now"]));
    assert_eq!(o["count"], 0);
}

#[test]
fn a_young_snapshot_keeps_its_old_blobs() {
    let ws = base_workspace();
    let root = ws.path();
    std::fs::write(root.join("b.txt"), b"bee\n").unwrap();
    let old = stored_snapshot(root);
    age_store(root, 30 * DAY);
    // A new snapshot reusing b.txt's old blob (present objects are not rewritten).
    std::fs::write(root.join("c.txt"), b"sea\n").unwrap();
    let young = stored_snapshot(root);
    drop_stat_caches(root);
    let o = ok_json(&run_in(root, &["--json", "gc"]));
    assert_eq!(
        removed_paths(&o),
        set(&[
            &format!("snapshots/{old}.json"),
            &format!("snapshots/{old}.exec.json"),
            &obj(&old),
        ])
    );
    let left = store_files(root);
    assert!(left.contains(&obj(&sha(b"bee\n"))));
    assert!(left.contains(&format!("snapshots/{young}.json")));
    ok(&run_in(root, &["diff", &young[..12], "."]));
}

#[test]
fn stale_temporary_files_go_young_ones_stay() {
    let ws = base_workspace();
    let root = ws.path();
    let g = root.join(".genesis");
    std::fs::write(g.join("tmp/.tmp-crashed"), b"half an object").unwrap();
    let fan = std::fs::read_dir(g.join("objects"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let fan_name = fan.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::write(fan.join(".tmp-abc"), b"xx").unwrap();
    std::fs::write(g.join("snapshots/.tmp-def"), b"yyy").unwrap();
    age_store(root, 15 * DAY);
    std::fs::write(g.join("tmp/.tmp-writing-now"), b"in flight").unwrap();
    let before = store_files(root);
    let o = ok_json(&run_in(root, &["--json", "gc"]));
    let gone = set(&[
        "tmp/.tmp-crashed",
        &format!("objects/{fan_name}/.tmp-abc"),
        "snapshots/.tmp-def",
    ]);
    assert_eq!(removed_paths(&o), gone);
    assert_eq!(o["bytes"], 14 + 2 + 3);
    assert!(
        o["removed"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "temporary")
    );
    assert_eq!(store_files(root), &before - &gone);
}

/// A workspace whose sessions use every kind of reference: s1 patched, verified (logs,
/// acceptance) and applied; s2 a checkout aborted with unrecorded work saved; s3 rebased.
fn rich_workspace() -> tempfile::TempDir {
    let manifest = br#"{"schema":"genesis/manifest-v0.1","obligations":[{"id":"talk","run":["sh","-c","echo out; echo err >&2"],"timeout_s":30}]}"#;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    write_tree(
        &root,
        &[
            ("genesis.json", manifest),
            ("a.txt", b"one\n"),
            ("c.txt", b"sea\n"),
        ],
    );
    ok(&run_in(&root, &["init", "-q"]));
    verified_session(&root, "s1", &new_file_diff("n1.txt"));
    ok(&run_in(&root, &["apply", "s1"]));
    let co = tmp.path().join("co");
    ok(&run_in(
        &root,
        &[
            "open",
            "-q",
            "--session",
            "s2",
            "--checkout",
            co.to_str().unwrap(),
        ],
    ));
    std::fs::write(co.join("a.txt"), b"unrecorded work\n").unwrap();
    ok(&run_in(&root, &["abort", "s2"]));
    ok(&run_in(&root, &["open", "-q", "--session", "s3"]));
    ok(&patch_stdin(
        &root,
        "s3",
        b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n",
    ));
    std::fs::write(root.join("c.txt"), b"sea moved\n").unwrap();
    ok(&run_in(&root, &["rebase", "s3"]));
    tmp
}

#[test]
fn everything_a_session_names_is_kept() {
    let tmp = rich_workspace();
    let root = tmp.path().join("ws");
    let state: Value =
        serde_json::from_slice(&std::fs::read(root.join(".genesis/sessions/s3.state")).unwrap())
            .unwrap();
    let old_base = state["rebased"][0]["base"].as_str().unwrap().to_owned();
    let old_after = state["rebased"][0]["patches"][0]["after_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    // Garbage: a snapshot of another directory stored in this store.
    let other = tmp.path().join("other");
    write_tree(&other, &[("g.txt", b"garbage\n")]);
    let g = ok(&run_in(
        &root,
        &[
            "--workspace",
            ".",
            "snapshot",
            "--identity",
            other.to_str().unwrap(),
        ],
    ))
    .trim()
    .to_owned();
    drop_stat_caches(&root);
    let before = store_files(&root);
    age_store(&root, 30 * DAY);
    let o = ok_json(&run_in(&root, &["--json", "gc"]));
    let garbage = set(&[
        &format!("snapshots/{g}.json"),
        &format!("snapshots/{g}.exec.json"),
        &obj(&g),
        &obj(&sha(b"garbage\n")),
    ]);
    assert_eq!(removed_paths(&o), garbage, "{o}");
    assert_eq!(store_files(&root), &before - &garbage);
    // Every session still works, down to the rebased history and the saved work.
    for s in ["s1", "s2", "s3"] {
        ok(&run_in(&root, &["status", s]));
    }
    ok(&run_in(&root, &["replay", "s1"]));
    ok(&run_in(&root, &["replay", "s3"]));
    let log = ok(&run_in(&root, &["log", "s1"]));
    assert!(log.contains("out") && log.contains("err"), "{log}");
    ok(&run_in(&root, &["restore", "s2", "--dry-run"]));
    let d = ok(&run_in(&root, &["diff", &old_base, &old_after]));
    assert!(d.contains("+uno"), "{d}");
    let o = ok_json(&run_in(&root, &["--json", "gc", "--prune=now"]));
    assert_eq!(o["count"], 0, "{o}");
}

#[test]
fn a_broken_reference_exits_4_and_removes_nothing() {
    let ws = base_workspace();
    let root = ws.path();
    let diff = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
    ok(&patch_stdin(root, "s1", diff));
    std::fs::write(root.join("b.txt"), b"garbage\n").unwrap();
    stored_snapshot(root);
    age_store(root, 30 * DAY);
    let patch_obj = root.join(".genesis").join(obj(&sha(diff)));
    std::fs::remove_file(&patch_obj).unwrap();
    let before = store_files(root);
    let o = run_in(root, &["--json", "gc"]);
    assert_eq!(code(&o), Some(4), "{}", stderr(&o));
    let msg = json_out(&o)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        msg.contains(&format!(
            "sessions/s1.json/patches/0/patch: object {} is not in the store",
            sha(diff)
        )),
        "{msg}"
    );
    assert!(msg.contains("1 broken reference; nothing removed"), "{msg}");
    assert_eq!(store_files(root), before);

    // A blob of a snapshot, and a corrupt document: both reported, still nothing removed.
    std::fs::write(&patch_obj, b"not the patch").unwrap();
    std::fs::remove_file(root.join(".genesis").join(obj(&sha(b"one\n")))).unwrap();
    let before = store_files(root);
    let o = run_in(root, &["gc", "--prune=now"]);
    assert_eq!(code(&o), Some(4));
    let err = stderr(&o);
    assert!(err.contains("file a.txt: object"), "{err}");
    assert_eq!(store_files(root), before);
}

#[test]
fn every_node_of_a_v0_2_tree_is_walked() {
    let tmp = scratch();
    let root = tmp.path().join("ws");
    write_tree(&root, &[("genesis.json", MANIFEST)]);
    for i in 0..4100 {
        let p = root.join(format!("d{}/e{}/f{i}.txt", i % 4, i % 3));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{i}\n")).unwrap();
    }
    ok(&run_in(&root, &["init", "-q"]));
    ok(&run_in(&root, &["open", "-q", "--session", "big"]));
    let base = session_doc(&root, "big")["base_snapshot"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        !root
            .join(format!(".genesis/snapshots/{base}.json"))
            .exists(),
        "a v0.2 tree"
    );
    // One changed file: a new blob, and new nodes for d0/e0, d0 and the root.
    std::fs::write(root.join("d0/e0/f0.txt"), b"changed\n").unwrap();
    let changed = stored_snapshot(&root);
    drop_stat_caches(&root);
    let before = store_files(&root);
    age_store(&root, 30 * DAY);
    let o = ok_json(&run_in(&root, &["--json", "gc"]));
    let gone = removed_paths(&o);
    // Three nodes and a blob, and the root's marker (`snapshots/<root>.tree`) with its node.
    assert_eq!(o["count"], 5, "{o}");
    assert!(
        gone.contains(&obj(&changed)) && gone.contains(&obj(&sha(b"changed\n"))),
        "{gone:?}"
    );
    let marker = format!("snapshots/{changed}.tree");
    assert!(gone.contains(&marker), "{gone:?}");
    assert!(
        !gone
            .iter()
            .any(|p| (p.starts_with("snapshots/") && *p != marker) || p.starts_with("statcache/"))
    );
    assert_eq!(store_files(&root), &before - &gone);
    ok(&run_in(&root, &["status", "big"]));
    ok(&run_in(&root, &["replay", "big"]));

    // A young tree keeps the old nodes it shares with an unreferenced old tree: T1 (d0
    // changed) ages; T2 (T1 and d1 changed) is new; only T1's root goes.
    let t1 = stored_snapshot(&root);
    age_store(&root, 30 * DAY);
    std::fs::write(root.join("d1/e1/f1.txt"), b"changed too\n").unwrap();
    let t2 = stored_snapshot(&root);
    drop_stat_caches(&root);
    let before = store_files(&root);
    let o = ok_json(&run_in(&root, &["--json", "gc"]));
    let t1_marker = format!("snapshots/{t1}.tree");
    assert_eq!(removed_paths(&o), set(&[&obj(&t1), &t1_marker]), "{o}");
    assert_eq!(store_files(&root), &before - &set(&[&obj(&t1), &t1_marker]));
    let d = ok(&run_in(&root, &["diff", &base, &t2, "--name-status"]));
    assert_eq!(d, "M\td0/e0/f0.txt\nM\td1/e1/f1.txt\n");

    // A node below the base's root missing: reported with the directory that names it.
    let store = genesis::Store::open(&root.join(".genesis")).unwrap();
    let node: Value =
        serde_json::from_slice(&store.read_object(&base.parse().unwrap()).unwrap()).unwrap();
    let d1 = node["directories"][1]["node"].as_str().unwrap().to_owned();
    std::fs::remove_file(root.join(".genesis").join(obj(&d1))).unwrap();
    let before = store_files(&root);
    let o = run_in(&root, &["gc", "--prune=now"]);
    assert_eq!(code(&o), Some(4));
    assert!(
        stderr(&o).contains(&format!(
            "tree node {base} directory \"d1\": tree node {d1}"
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(store_files(&root), before);
}

/// The stat cache trusts that a cached blob is stored: a cache naming a removed blob goes
/// first, so the next snapshot reads the file again and stores it.
#[test]
fn a_stat_cache_naming_a_removed_blob_goes_too() {
    let ws = base_workspace();
    let root = ws.path();
    std::fs::write(root.join("c.txt"), b"cached then collected\n").unwrap();
    // Past the racy window, so the snapshot caches c.txt.
    std::thread::sleep(Duration::from_millis(2100));
    let id = stored_snapshot(root);
    let caches: BTreeSet<String> = store_files(root)
        .into_iter()
        .filter(|f| f.starts_with("statcache/"))
        .collect();
    assert_eq!(caches.len(), 1, "{caches:?}");
    let o = ok_json(&run_in(root, &["--json", "gc", "--prune=now"]));
    let kinds: Vec<(&str, &str)> = o["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["kind"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect();
    let blob = obj(&sha(b"cached then collected\n"));
    let cache = caches.iter().next().unwrap().as_str();
    assert_eq!(
        kinds,
        [
            ("stat_cache", cache),
            ("snapshot", format!("snapshots/{id}.json").as_str()),
            (
                "executable_bits",
                format!("snapshots/{id}.exec.json").as_str()
            ),
            ("object", obj(&id).as_str().min(blob.as_str())),
            ("object", obj(&id).as_str().max(blob.as_str())),
        ]
    );
    // The next session stores c.txt again, and is complete.
    ok(&run_in(root, &["open", "-q", "--session", "s2"]));
    assert!(store_files(root).contains(&blob));
    let o = ok_json(&run_in(root, &["--json", "gc", "--prune=now"]));
    assert_eq!(o["count"], 0, "{o}");
}

/// gc holds the store lock for its whole run: it is stopped at its first file-system step (the
/// fault trace is a FIFO nobody reads yet); meanwhile `open --wait 0` exits 3 naming its pid,
/// and `open` with a wait finishes after gc does.
#[test]
fn a_concurrent_open_waits_for_gc() {
    let ws = base_workspace();
    let root = ws.path().to_path_buf();
    std::fs::write(root.join("b.txt"), b"garbage\n").unwrap();
    let id = stored_snapshot(&root);
    let fifo = ws.path().join("trace.fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let mut gc = std::process::Command::new(env!("CARGO_BIN_EXE_genesis"))
        .args(["gc", "--prune=now"])
        .current_dir(&root)
        .env("GENESIS_FAULT_TRACE", &fifo)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for gc to take the lock (its pid in the lock file, the lock held).
    let lock = root.join(".genesis/lock");
    let pid = gc.id().to_string();
    let start = std::time::Instant::now();
    loop {
        let held = std::fs::File::open(&lock).is_ok_and(|f| f.try_lock().is_err());
        if held && std::fs::read_to_string(&lock).is_ok_and(|s| s.trim() == pid) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "gc never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Still held a moment later (gc is blocked on the FIFO, under the lock).
    std::thread::sleep(Duration::from_millis(300));
    assert!(gc.try_wait().unwrap().is_none());
    let o = run_in(&root, &["--wait", "0", "open", "--session", "s2"]);
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("locked by pid {pid}")),
        "{}",
        stderr(&o)
    );
    let waiting = std::process::Command::new(env!("CARGO_BIN_EXE_genesis"))
        .args(["--wait", "60", "open", "-q", "--session", "s2"])
        .current_dir(&root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // Let gc go: move the FIFO away (gc is blocked opening it) and read it once; its later
    // steps open the path anew and find a plain file.
    let moved = ws.path().join("trace.moved");
    std::fs::rename(&fifo, &moved).unwrap();
    let reader = std::thread::spawn(move || std::fs::read(moved).unwrap());
    let out = gc.wait_with_output().unwrap();
    reader.join().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!store_files(&root).contains(&format!("snapshots/{id}.json")));
    let o = waiting.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    ok(&run_in(&root, &["status", "s2"]));
    let o = ok_json(&run_in(&root, &["--json", "gc", "--prune=now"]));
    assert_eq!(o["count"], 0, "{o}");
}

/// The store files without the stat caches.
fn without_caches(files: BTreeSet<String>) -> BTreeSet<String> {
    files
        .into_iter()
        .filter(|f| !f.starts_with("statcache/"))
        .collect()
}

/// A crash (`abort`) at every file-system step of `gc --prune=now`, from the same store each
/// time: afterwards a v0.1 document never lacks its sidecar, no stat cache names a removed
/// blob, the verified session still passes status, replay, verify and `apply --dry-run`, a
/// second gc finishes with exactly the files an uninterrupted gc leaves, and a new session
/// (whose snapshot trusts the stat cache) is complete.
#[test]
fn a_crash_at_every_step_leaves_a_working_store() {
    let tmp = scratch();
    let root = tmp.path().join("ws");
    write_tree(&root, &[("genesis.json", MANIFEST), ("a.txt", b"one\n")]);
    ok(&run_in(&root, &["init", "-q"]));
    verified_session(
        &root,
        "s1",
        b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n",
    );
    // Garbage: a stored snapshot whose blob the stat cache names, and a crashed writer's file.
    std::fs::write(root.join("b.txt"), b"garbage\n").unwrap();
    std::thread::sleep(Duration::from_millis(2100));
    let g = stored_snapshot(&root);
    std::fs::write(root.join(".genesis/tmp/.tmp-crashed"), b"half").unwrap();
    let garbage_blob = obj(&sha(b"garbage\n"));
    let caches: Vec<String> = store_files(&root)
        .into_iter()
        .filter(|f| f.starts_with("statcache/"))
        .collect();
    assert_eq!(caches.len(), 1);
    let pristine = tmp.path().join("pristine");
    copy_tree(&root.join(".genesis"), &pristine);
    let restore = || copy_tree(&pristine, &root.join(".genesis"));

    // The uninterrupted run, counting its steps.
    let trace = tmp.path().join("trace");
    let o = run_env(
        &root,
        &["gc", "--prune=now"],
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let steps = std::fs::read_to_string(&trace).unwrap();
    let n = steps.lines().count();
    assert!(
        steps.lines().next().unwrap().contains("remove") && steps.contains("statcache"),
        "{steps}"
    );
    let fin = without_caches(store_files(&root));
    let gone = set(&[
        &format!("snapshots/{g}.json"),
        &format!("snapshots/{g}.exec.json"),
        &obj(&g),
        &garbage_blob,
        "tmp/.tmp-crashed",
    ]);
    assert_eq!(without_caches(files_in(&pristine)), &fin | &gone);
    // The stat cache first; the document durably gone before its sidecar; then objects and
    // temporary files, each directory synced after its removals.
    let cache = &caches[0];
    let (blob_fan, blob_rest) = garbage_blob["objects/".len()..].split_at(2);
    let (g_fan, g_rest) = (&g[..2], &g[2..]);
    let mut expected = vec![
        format!("remove ./.genesis/{cache}"),
        "fsync-dir ./.genesis/statcache".to_owned(),
        format!("remove ./.genesis/snapshots/{g}.json"),
        "fsync-dir ./.genesis/snapshots".to_owned(),
        format!("remove ./.genesis/snapshots/{g}.exec.json"),
        "fsync-dir ./.genesis/snapshots".to_owned(),
    ];
    let mut objs = [
        (blob_fan.to_owned(), blob_rest[1..].to_owned()),
        (g_fan.to_owned(), g_rest.to_owned()),
    ];
    objs.sort();
    for (fan, rest) in &objs {
        expected.push(format!("remove ./.genesis/objects/{fan}/{rest}"));
    }
    for (fan, _) in &objs {
        expected.push(format!("fsync-dir ./.genesis/objects/{fan}"));
    }
    expected.push("remove ./.genesis/tmp/.tmp-crashed".to_owned());
    expected.push("fsync-dir ./.genesis/tmp".to_owned());
    let got: Vec<String> = steps
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_owned())
        .collect();
    assert_eq!(got, expected);
    // An I/O error at any step: exit 4, the message says to run gc again, and that finishes.
    for step in 1..=n {
        restore();
        let o = run_env(
            &root,
            &["gc", "--prune=now"],
            &[("GENESIS_FAULT", format!("{step}:eio"))],
        );
        assert_eq!(code(&o), Some(4), "step {step}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("run `genesis gc` again to finish"),
            "{}",
            stderr(&o)
        );
        ok(&run_in(&root, &["gc", "--prune=now"]));
        assert_eq!(without_caches(store_files(&root)), fin, "step {step}");
    }

    for step in 1..=n {
        restore();
        let o = run_env(
            &root,
            &["gc", "--prune=now"],
            &[("GENESIS_FAULT", format!("{step}:abort"))],
        );
        assert_eq!(code(&o), None, "step {step}: {}", stderr(&o));
        let now = store_files(&root);
        for f in &now {
            if let Some(id) = f
                .strip_prefix("snapshots/")
                .and_then(|f| f.strip_suffix(".json"))
                && !id.ends_with(".exec")
            {
                assert!(
                    now.contains(&format!("snapshots/{id}.exec.json")),
                    "step {step}: {f} without its sidecar"
                );
            }
        }
        if !now.contains(&garbage_blob) {
            assert!(
                !now.contains(&caches[0]),
                "step {step}: a stat cache names a removed blob"
            );
        }
        ok(&run_in(&root, &["status", "s1"]));
        ok(&run_in(&root, &["replay", "s1"]));
        ok(&run_in(&root, &["verify", "s1"]));
        ok(&run_in(&root, &["apply", "s1", "--dry-run"]));
        let o = ok_json(&run_in(&root, &["--json", "gc", "--prune=now"]));
        assert!(o["count"].as_u64().unwrap() <= 6, "step {step}: {o}");
        assert_eq!(without_caches(store_files(&root)), fin, "step {step}");
        ok(&run_in(&root, &["open", "-q", "--session", "s2"]));
        let o = ok_json(&run_in(&root, &["--json", "gc", "--prune=now"]));
        assert_eq!(
            o["count"], 0,
            "step {step}: the new session is complete: {o}"
        );
    }
}

/// The library call: `gc` takes the store lock (a held lock is `StoreError::Locked`, exit 3,
/// after the wait) and reports broken references as a typed error.
#[test]
fn the_library_call_takes_the_lock_and_types_its_errors() {
    use genesis::gc::{Expire, GcError, GcOptions, gc};
    let ws = base_workspace();
    let store = genesis::Store::open(&ws.path().join(".genesis")).unwrap();
    let opts = GcOptions {
        expire: Expire::Now,
        dry_run: true,
        lock_wait: Duration::ZERO,
    };
    let held = store.lock(Duration::ZERO).unwrap();
    let e = gc(&store, &opts).unwrap_err();
    assert!(
        matches!(e, GcError::Store(genesis::store::StoreError::Locked { .. })),
        "{e}"
    );
    assert_eq!(e.kind().exit_code(), 3);
    drop(held);
    let out = gc(&store, &opts).unwrap();
    assert_eq!(
        (out.removed.len(), out.kept_objects, out.kept_recent),
        (0, 3, 0)
    );
    std::fs::remove_file(ws.path().join(".genesis").join(obj(&sha(b"one\n")))).unwrap();
    match gc(&store, &opts).unwrap_err() {
        GcError::Broken { problems, .. } => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(
                problems[0].starts_with("sessions/s1.json/base_snapshot: snapshot "),
                "{problems:?}"
            );
            assert!(
                problems[0].ends_with(&format!(
                    "file a.txt: object {} is not in the store",
                    sha(b"one\n")
                )),
                "{problems:?}"
            );
        }
        e => panic!("{e}"),
    }
}

/// Writing an object that is already stored freshens it (as git's `freshen_loose_object`), so
/// a writer outside the store lock (verify's logs) never loses an old unreferenced object it
/// just wrote again to gc: an old object written again is kept by the default prune limit.
#[test]
fn writing_an_existing_object_again_freshens_it_so_gc_keeps_it() {
    use genesis::gc::{Expire, GcOptions, gc};
    let d = tempfile::tempdir().unwrap();
    let store = genesis::store::Store::init(&d.path().join("store")).unwrap();
    let digest = store.write_object(b"log\n").unwrap();
    let path = store.object_path(&digest);
    let three_weeks = SystemTime::now() - Duration::from_secs(21 * 24 * 3600);
    std::fs::File::open(&path)
        .unwrap()
        .set_modified(three_weeks)
        .unwrap();
    let opts = GcOptions {
        expire: Expire::OlderThan(Duration::from_secs(14 * 24 * 3600)),
        dry_run: true,
        lock_wait: Duration::ZERO,
    };
    // Old and unreferenced: gc would remove it.
    let out = gc(&store, &opts).unwrap();
    assert_eq!(out.removed.len(), 1, "{out:?}");
    // Written again: freshened, and kept.
    assert_eq!(store.write_object(b"log\n").unwrap(), digest);
    let age = SystemTime::now()
        .duration_since(std::fs::metadata(&path).unwrap().modified().unwrap())
        .unwrap();
    assert!(age < Duration::from_secs(60), "{age:?}");
    let out = gc(&store, &opts).unwrap();
    assert!(out.removed.is_empty(), "{out:?}");
    assert!(path.is_file());
}
