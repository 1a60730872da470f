//! The order of a new v0.1 snapshot's writes into the store (DESIGN §3): its document, which
//! makes the snapshot present, is renamed into place last, after its executable-bit sidecar (a
//! document without one reads as having no executable bits) and its canonical object; a
//! failure to write either leaves no document; and a crash at any step leaves a store that the
//! next snapshot completes, with the bits.

mod common;

use common::*;
use std::os::unix::fs::PermissionsExt;

/// A workspace with an executable file, a store initialised in it, and the steps (names from
/// `GENESIS_FAULT_TRACE`) of its first snapshot.
fn traced() -> (tempfile::TempDir, Vec<String>, String) {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path();
    std::fs::write(ws.join("run.sh"), b"#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.join("a.txt"), b"a\n").unwrap();
    ok(&run_in(ws, &["init"]));
    let traces = tempfile::tempdir().unwrap();
    let trace = traces.path().join("trace");
    let o = run_env(
        ws,
        &["snapshot", "--identity"],
        &[("GENESIS_FAULT_TRACE", trace.display().to_string())],
    );
    let id = ok(&o).trim().to_owned();
    // Lines in the order of their step numbers (two threads may append out of turn).
    let mut steps: Vec<(u64, String)> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| {
            let (n, name) = l.split_once(' ').unwrap();
            (n.parse().unwrap(), name.to_owned())
        })
        .collect();
    steps.sort();
    (d, steps.into_iter().map(|(_, s)| s).collect(), id)
}

#[test]
fn the_executable_bits_are_in_place_before_the_document() {
    // The object and the document are written on two threads: several runs, several orders.
    for _ in 0..5 {
        let (_d, steps, id) = traced();
        let step = |verb: &str, name: &str| {
            steps
                .iter()
                .position(|s| s.starts_with(verb) && s.ends_with(name))
                .unwrap_or_else(|| panic!("no {verb} {name}: {steps:#?}"))
        };
        let exec_renamed = step("rename ", &format!("/snapshots/{id}.exec.json"));
        let object_renamed = step("rename ", &format!("/objects/{}/{}", &id[..2], &id[2..]));
        let doc_created = step("create ", &format!("/snapshots/{id}.json"));
        let doc_renamed = step("rename ", &format!("/snapshots/{id}.json"));
        assert!(exec_renamed < doc_created, "{steps:#?}");
        assert!(object_renamed < doc_renamed, "{steps:#?}");
        assert_eq!(
            steps.last().unwrap(),
            "fsync-dir ./.genesis/snapshots",
            "{steps:#?}"
        );
    }
}

#[test]
fn a_crash_at_any_step_of_a_new_snapshot_is_completed_by_the_next() {
    let (d, steps, id) = traced();
    let ws = d.path();
    for n in 1..=steps.len() {
        let run = tempfile::tempdir().unwrap();
        let fresh = run.path().join("ws");
        copy_tree(ws, &fresh);
        let _ = std::fs::remove_dir_all(fresh.join(".genesis"));
        ok(&run_in(&fresh, &["init"]));
        let o = run_env(
            &fresh,
            &["snapshot", "--identity"],
            &[("GENESIS_FAULT", format!("{n}:abort"))],
        );
        assert_eq!(o.status.code(), None, "step {n}: {}", steps[n - 1]);
        let again = ok(&run_in(&fresh, &["snapshot", "--identity"]));
        assert_eq!(again.trim(), id, "step {n}");
        let exec =
            std::fs::read_to_string(fresh.join(format!(".genesis/snapshots/{id}.exec.json")))
                .unwrap();
        assert!(exec.contains("run.sh"), "step {n}: {exec}");
    }
}

#[test]
fn a_failed_object_or_sidecar_write_leaves_no_document() {
    let (d, _steps, id) = traced();
    for what in ["object", "sidecar"] {
        let run = tempfile::tempdir().unwrap();
        let fresh = run.path().join("ws");
        copy_tree(d.path(), &fresh);
        let _ = std::fs::remove_dir_all(fresh.join(".genesis"));
        ok(&run_in(&fresh, &["init"]));
        let store = fresh.join(".genesis");
        // A FIFO where the object's directory goes; a directory where the sidecar goes.
        let blocker = if what == "object" {
            let p = store.join("objects").join(&id[..2]);
            let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            p
        } else {
            let p = store.join(format!("snapshots/{id}.exec.json"));
            std::fs::create_dir_all(&p).unwrap();
            p
        };
        let o = run_in(&fresh, &["snapshot", "--identity"]);
        assert_eq!(o.status.code(), Some(4), "{what}: {}", stderr(&o));
        let name = blocker.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(stderr(&o).contains(&name), "{what}: {}", stderr(&o));
        assert!(
            !store.join(format!("snapshots/{id}.json")).exists(),
            "{what}: the document was committed"
        );
        // Once the way is clear, the next snapshot stores all of it.
        if what == "object" {
            std::fs::remove_file(&blocker).unwrap();
        } else {
            std::fs::remove_dir(&blocker).unwrap();
        }
        assert_eq!(ok(&run_in(&fresh, &["snapshot", "--identity"])).trim(), id);
        assert!(store.join(format!("snapshots/{id}.json")).exists());
        let exec = std::fs::read_to_string(blocker.with_file_name(format!("{id}.exec.json")));
        if what == "sidecar" {
            assert!(exec.unwrap().contains("run.sh"));
        }
    }
}
