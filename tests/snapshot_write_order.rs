//! The order of a new v0.1 snapshot's writes into the store (DESIGN §3): its executable-bit
//! sidecar is in place before its document, because a document without one reads as having no
//! executable bits; and a crash at any step of those writes leaves a store that the next
//! snapshot completes, with the bits.

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
                .position(|s| s.starts_with(verb) && s.ends_with(&format!("/snapshots/{name}")))
                .unwrap_or_else(|| panic!("no {verb} {name}: {steps:#?}"))
        };
        let exec_renamed = step("rename ", &format!("{id}.exec.json"));
        let doc_created = step("create ", &format!("{id}.json"));
        assert!(exec_renamed < doc_created, "{steps:#?}");
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
