//! Store corruption is exit 4 wherever it is found (DESIGN section 7): while `patch --from DIR`
//! writes its diff from the stored blobs, and when a session's engine state lost the manifest
//! it records. Before issue 10 both exited 2 (an `EngineError::Invalid(String)`).

mod common;

use common::{patch_stdin, run_in, stderr, stdout, write_tree};

const MANIFEST: &[u8] =
    br#"{"schema": "genesis/manifest-v0.1", "obligations": [{"id": "t", "run": ["true"], "timeout_s": 10}]}
"#;

/// A workspace with a manifest and one text file, a store, and an open session; returns the
/// workspace and the session id.
fn open_session() -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    write_tree(
        d.path(),
        &[("genesis.json", MANIFEST), ("a.txt", b"one\ntwo\n")],
    );
    let o = run_in(d.path(), &["init"]);
    // `init` keeps an existing genesis.json.
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let o = run_in(d.path(), &["open"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    (d, id)
}

#[test]
fn corrupt_blob_read_while_writing_the_diff_of_patch_from_dir_exits_4() {
    let (ws, id) = open_session();
    let blob = genesis::Digest::of(b"one\ntwo\n");
    let object = ws
        .path()
        .join(".genesis/objects")
        .join(&blob.to_hex()[..2])
        .join(&blob.to_hex()[2..]);
    assert!(
        object.is_file(),
        "the base blob is stored at {}",
        object.display()
    );
    std::fs::write(&object, b"not the content\n").unwrap();
    let from = tempfile::tempdir().unwrap();
    write_tree(
        from.path(),
        &[("genesis.json", MANIFEST), ("a.txt", b"one\nTWO\n")],
    );
    let o = run_in(
        ws.path(),
        &["patch", &id, "--from", from.path().to_str().unwrap()],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "stderr: {err}");
    let hex = blob.to_hex();
    assert!(
        err.contains(&format!(
            ".genesis/objects/{}/{}: corrupt store object",
            &hex[..2],
            &hex[2..]
        )),
        "names the object: {err}"
    );
    // Nothing was recorded.
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path().join(format!(".genesis/sessions/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["patches"], serde_json::json!([]));
}

#[test]
fn session_state_without_its_manifest_exits_4() {
    let (ws, id) = open_session();
    let state_path = ws.path().join(format!(".genesis/sessions/{id}.state"));
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state_path).unwrap()).unwrap();
    assert!(state["manifest_blob"].is_string(), "state: {state}");
    state.as_object_mut().unwrap().remove("manifest_blob");
    std::fs::write(&state_path, serde_json::to_vec(&state).unwrap()).unwrap();
    let o = run_in(ws.path(), &["verify", &id]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "stderr: {err}");
    assert_eq!(
        err,
        format!(
            "genesis: error: session {id}: the engine state ./.genesis/sessions/{id}.state records no manifest (store corruption)\n"
        )
    );
}

const EDIT: &[u8] = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";

/// Overwrites the stored base blob of `a.txt` with bytes that are not a zstd frame; returns
/// the message that names the object.
fn corrupt_base_blob(ws: &std::path::Path) -> String {
    let hex = genesis::Digest::of(b"one\ntwo\n").to_hex();
    let object = ws.join(".genesis/objects").join(&hex[..2]).join(&hex[2..]);
    assert!(object.is_file(), "the base blob is at {}", object.display());
    std::fs::write(&object, b"garbage, not a zstd frame\n").unwrap();
    format!(".genesis/objects/{}/{}:", &hex[..2], &hex[2..])
}

#[test]
fn corrupt_pre_image_blob_read_by_patch_exits_4_naming_the_object() {
    let (ws, id) = open_session();
    let object = corrupt_base_blob(ws.path());
    let o = patch_stdin(ws.path(), &id, EDIT);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "stderr: {err}");
    assert!(err.contains(&object), "names the object {object}: {err}");
    assert!(
        err.contains("a.txt: cannot read the file"),
        "names the file: {err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path().join(format!(".genesis/sessions/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["patches"], serde_json::json!([]));
}

#[test]
fn corrupt_pre_image_blob_read_by_replay_exits_4_naming_the_object() {
    let (ws, id) = open_session();
    let o = patch_stdin(ws.path(), &id, EDIT);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let o = run_in(ws.path(), &["replay", &id]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let object = corrupt_base_blob(ws.path());
    let o = run_in(ws.path(), &["replay", &id]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "stderr: {err}");
    assert!(
        err.starts_with("genesis: error: patch 1: patch refused, nothing recorded: a.txt: cannot read the file: "),
        "names the step and file: {err}"
    );
    assert!(err.contains(&object), "names the object {object}: {err}");
}

/// A session patched with [`EDIT`] and verified; returns the workspace, the session and the
/// path of its acceptance record's object file.
fn verified_session() -> (tempfile::TempDir, String, std::path::PathBuf) {
    let (ws, id) = open_session();
    let o = patch_stdin(ws.path(), &id, EDIT);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let o = run_in(ws.path(), &["verify", &id]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path().join(format!(".genesis/sessions/{id}.json"))).unwrap(),
    )
    .unwrap();
    let hex = doc["verification"]["acceptance"]
        .as_str()
        .unwrap()
        .to_owned();
    let object = ws
        .path()
        .join(".genesis/objects")
        .join(&hex[..2])
        .join(&hex[2..]);
    assert!(object.is_file(), "the record is at {}", object.display());
    (ws, id, object)
}

#[test]
fn corrupt_acceptance_record_at_apply_exits_4_naming_the_object() {
    let (ws, id, object) = verified_session();
    std::fs::write(&object, b"garbage, not a zstd frame\n").unwrap();
    let o = run_in(ws.path(), &["apply", &id]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "stderr: {err}");
    let rel = object
        .strip_prefix(ws.path())
        .unwrap()
        .display()
        .to_string();
    assert!(
        err.contains(&format!("{rel}: corrupt store object")),
        "names the object {rel}: {err}"
    );
    assert_eq!(
        std::fs::read(ws.path().join("a.txt")).unwrap(),
        b"one\ntwo\n"
    );
}

#[test]
fn missing_acceptance_record_at_apply_exits_3_and_says_to_verify_again() {
    let (ws, id, object) = verified_session();
    std::fs::remove_file(&object).unwrap();
    let o = run_in(ws.path(), &["apply", &id]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "stderr: {err}");
    assert!(
        err.starts_with(&format!(
            "genesis: error: session {id} cannot be applied: its acceptance record "
        )),
        "{err}"
    );
    assert!(err.ends_with("; run `genesis verify` again\n"), "{err}");
    assert_eq!(
        std::fs::read(ws.path().join("a.txt")).unwrap(),
        b"one\ntwo\n"
    );
}
