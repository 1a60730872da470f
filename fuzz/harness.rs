//! What each fuzz target does with one input, shared by the libFuzzer targets in
//! `fuzz/fuzz_targets/` and the stable replay test `tests/fuzz_regressions.rs` (which includes this
//! file with `#[path]`), so a saved input is replayed through exactly the code that found it.
//!
//! Every function takes the raw fuzz input and returns nothing: a failure is a panic, either from
//! `genesis` itself or from one of the invariant checks here.

use std::collections::BTreeMap;

use genesis::WorkspacePath;
use genesis::patch::{FileChange, PatchResult, PatchRules, PreImage, ReadError, apply_patch};

/// Separates the pre-image content from the patch in a `patch_apply_structured` input.
pub const STRUCTURED_MARKER: &[u8] = b"\0PATCH\0";

/// Path whose read fails, to exercise [`PreImage::read`] errors.
pub const UNREADABLE: &str = "io/error.txt";

/// A small in-memory tree: path -> (bytes, executable).
#[derive(Debug, Clone, Default)]
pub struct MemTree(BTreeMap<String, (Vec<u8>, bool)>);

impl MemTree {
    /// The fixed tree the targets patch against: text, CRLF, no final newline, binary, empty,
    /// executable, nested, and one file whose read fails.
    pub fn fixed() -> Self {
        let mut t = MemTree::default();
        t.insert(
            "README.md",
            b"# Genesis\n\nA transactional workspace engine.\n",
            false,
        );
        t.insert(
            "src/main.rs",
            b"fn main() {\n    println!(\"hello\");\n}\n\nfn helper() -> u32 {\n    1\n}\n",
            false,
        );
        t.insert("src/lib.rs", b"pub mod a;\npub mod b;\n", false);
        t.insert("a.txt", b"a\nb\nc\nd\ne\nf\ng\nh\n", false);
        t.insert("dup.txt", b"x\ny\nx\ny\nx\ny\n", false);
        t.insert("crlf.txt", b"one\r\ntwo\r\nthree\r\n", false);
        t.insert("noeol.txt", b"first\nlast", false);
        t.insert("empty", b"", false);
        t.insert(
            "bin.dat",
            b"\x00\x01\x02\xff\xfe binary\x00data\n\x80",
            false,
        );
        t.insert("script.sh", b"#!/bin/sh\necho hi\n", true);
        t.insert("dir/sub/file.txt", b"nested\n", false);
        t.insert(UNREADABLE, b"never read\n", false);
        t
    }

    /// Adds or replaces a file.
    pub fn insert(&mut self, path: &str, data: &[u8], executable: bool) {
        self.0.insert(path.to_owned(), (data.to_vec(), executable));
    }
}

impl PreImage for MemTree {
    fn contains(&self, path: &WorkspacePath) -> bool {
        self.0.contains_key(path.as_str())
    }
    fn read(&self, path: &WorkspacePath) -> Result<Vec<u8>, ReadError> {
        if path.as_str() == UNREADABLE {
            return Err(ReadError::Other("simulated I/O error".to_owned()));
        }
        self.0
            .get(path.as_str())
            .map(|(d, _)| d.clone())
            .ok_or(ReadError::NotInTree)
    }
    fn is_executable(&self, path: &WorkspacePath) -> bool {
        self.0.get(path.as_str()).is_some_and(|(_, x)| *x)
    }
    fn paths(&self) -> Vec<WorkspacePath> {
        self.0
            .keys()
            .filter_map(|p| WorkspacePath::new(p.as_str()).ok())
            .collect()
    }
}

/// Whether any component is `.git` (ASCII case-insensitively) or the first is `.genesis`.
fn plainly_forbidden(p: &WorkspacePath) -> bool {
    p.components().any(|c| c.eq_ignore_ascii_case(".git"))
        || p.components()
            .next()
            .is_some_and(|c| c.eq_ignore_ascii_case(".genesis"))
}

/// Invariants of a successful apply that the module docs of `genesis::patch` promise.
fn check_outcome(tree: &MemTree, outcome: &PatchResult) {
    assert!(outcome.files_changed > 0, "Ok with no file entry");
    assert!(
        !outcome.changes.is_empty(),
        "Ok with {} file entries but no change",
        outcome.files_changed
    );
    for (path, change) in &outcome.changes {
        assert!(
            !plainly_forbidden(path),
            "forbidden path {path} in the outcome"
        );
        if matches!(change, FileChange::Delete) {
            assert!(
                tree.contains(path),
                "deletes {path}, which is not in the tree"
            );
        }
    }
}

/// Target `patch_apply`: the input is the patch text, applied to [`MemTree::fixed`].
pub fn patch_apply(data: &[u8]) {
    let tree = MemTree::fixed();
    if let Ok(outcome) = apply_patch(data, &tree, &PatchRules::default()) {
        check_outcome(&tree, &outcome);
    }
}

/// Splits a `patch_apply_structured` input into (path, executable, content, patch).
///
/// Layout: `PATH\n` then `CONTENT`, [`STRUCTURED_MARKER`], `PATCH`. A first line that is not a
/// valid path (or is missing) stands for `f.txt`; a first line ending in `*` marks the file
/// executable. Without the marker the whole input after the first line is the patch and the
/// content is empty.
pub fn split_structured(data: &[u8]) -> (String, bool, &[u8], &[u8]) {
    let (first, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..0], data),
    };
    let (first, executable) = match first.strip_suffix(b"*") {
        Some(f) => (f, true),
        None => (first, false),
    };
    let path = std::str::from_utf8(first)
        .ok()
        .filter(|s| WorkspacePath::new(*s).is_ok())
        .unwrap_or("f.txt")
        .to_owned();
    let (content, patch) = match rest
        .windows(STRUCTURED_MARKER.len())
        .position(|w| w == STRUCTURED_MARKER)
    {
        Some(i) => (&rest[..i], &rest[i + STRUCTURED_MARKER.len()..]),
        None => (&rest[..0], rest),
    };
    (path, executable, content, patch)
}

/// Target `patch_apply_structured`: the fixed tree plus one file whose path and content come from
/// the input, so hunks of the patch can actually match.
pub fn patch_apply_structured(data: &[u8]) {
    let (path, executable, content, patch) = split_structured(data);
    let mut tree = MemTree::fixed();
    if path != UNREADABLE {
        tree.insert(&path, content, executable);
    }
    if let Ok(outcome) = apply_patch(patch, &tree, &PatchRules::default()) {
        check_outcome(&tree, &outcome);
        // Applying is pure: the same input gives the same outcome.
        let again = apply_patch(patch, &tree, &PatchRules::default())
            .expect("second apply of the same patch to the same tree failed");
        assert_eq!(outcome.changes, again.changes, "apply is not deterministic");
    }
}

/// The rules of `genesis::path`, written out independently of `genesis::path::validate`.
fn obeys_path_rules(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('/')
        && !s.contains('\\')
        && !s.chars().any(|c| (c as u32) < 0x20 || c == '\u{7f}')
        && s.split('/').all(|c| !matches!(c, "" | "." | ".."))
}

/// Target `path_validate`: `validate` and `WorkspacePath::new` agree with the rules, and a valid
/// path round-trips through `Display`, `FromStr`, `components`, `parent`/`file_name` and JSON.
pub fn path_validate(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let checked = genesis::path::validate(s);
    let made = WorkspacePath::new(s);
    assert_eq!(
        checked.is_ok(),
        made.is_ok(),
        "validate and WorkspacePath::new disagree on {s:?}"
    );
    assert_eq!(
        checked.is_ok(),
        obeys_path_rules(s),
        "validate({s:?}) = {checked:?} contradicts the documented rules"
    );
    let json = serde_json::to_string(s).expect("a str serialises");
    let from_json = serde_json::from_str::<WorkspacePath>(&json);
    match made {
        Ok(p) => {
            assert!(!s.is_empty() && !s.starts_with('/'));
            assert!(!s.contains('\\'));
            assert!(!s.chars().any(|c| (c as u32) < 0x20 || c == '\u{7f}'));
            for c in p.components() {
                assert!(
                    !matches!(c, "" | "." | ".."),
                    "bad component {c:?} in {s:?}"
                );
            }
            let shown = p.to_string();
            assert_eq!(shown, s, "Display does not round-trip");
            assert_eq!(p.as_str(), s);
            let reparsed: WorkspacePath = shown.parse().expect("Display output does not parse");
            assert_eq!(reparsed, p);
            assert_eq!(p.components().collect::<Vec<_>>().join("/"), s);
            match p.parent() {
                Some(parent) => {
                    genesis::path::validate(parent.as_str()).expect("parent is invalid");
                    assert_eq!(format!("{parent}/{}", p.file_name()), s);
                }
                None => {
                    assert!(!s.contains('/'));
                    assert_eq!(p.file_name(), s);
                }
            }
            assert_eq!(from_json.expect("valid path fails to deserialise"), p);
            assert_eq!(serde_json::to_string(&p).expect("serialises"), json);
        }
        Err(e) => {
            assert!(from_json.is_err(), "invalid path {s:?} ({e}) deserialises");
        }
    }
}

/// Target `snapshot_document`: `Snapshot::from_json` never panics, and an accepted document
/// re-serialised (pretty and as a value) parses back to an equal snapshot.
///
/// Random bytes almost never carry the right `identity`, so when the only fault is the identity,
/// the stated digest is replaced by the computed one (wherever its hex occurs) and the document is
/// tried again: that lets the fuzzer reach the accepting path.
pub fn snapshot_document(data: &[u8]) {
    use genesis::snapshot::SnapshotDocumentError;
    match genesis::Snapshot::from_json(data) {
        Ok(snap) => check_snapshot_round_trip(&snap),
        Err(SnapshotDocumentError::Identity { stated, computed }) => {
            let fixed = replace_all(
                data,
                stated.to_hex().as_bytes(),
                computed.to_hex().as_bytes(),
            );
            if let Ok(snap) = genesis::Snapshot::from_json(&fixed) {
                check_snapshot_round_trip(&snap);
            }
        }
        Err(_) => {}
    }
}

fn check_snapshot_round_trip(snap: &genesis::Snapshot) {
    let pretty = snap.to_json_pretty();
    let again = genesis::Snapshot::from_json(pretty.as_bytes())
        .unwrap_or_else(|e| panic!("to_json_pretty output is refused: {e}\n{pretty}"));
    assert_eq!(&again, snap, "pretty JSON does not round-trip");
    assert_eq!(again.to_json_pretty(), pretty, "pretty JSON is not stable");
    let value = serde_json::to_vec(&snap.to_value()).expect("a value serialises");
    let from_value = genesis::Snapshot::from_json(&value)
        .unwrap_or_else(|e| panic!("to_value output is refused: {e}"));
    assert_eq!(&from_value, snap, "to_value does not round-trip");
    let rebuilt = genesis::Snapshot::from_files(snap.files().to_vec())
        .unwrap_or_else(|e| panic!("from_files refuses an accepted document's files: {e}"));
    assert_eq!(&rebuilt, snap, "from_files computes another identity");
}

fn replace_all(data: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}
