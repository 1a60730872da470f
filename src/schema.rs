//! The bundled JSON Schemas and validation against them.
//!
//! - `schemas/agent-transaction-v0.1.schema.json`: the 004 seed, byte for byte. Documents are
//!   validated against `#/$defs/session` or `#/$defs/snapshot` directly (chosen by the
//!   document's `schema` field), not the top-level `oneOf`, so each failure carries the JSON
//!   pointer of the failing field.
//! - `schemas/manifest-v0.1.schema.json`: the package manifest.
//!
//! Validation uses draft 2020-12 with `format` checked. Schema validity is necessary, not
//! sufficient: [`validate_document`] also runs the engine's own checks (path components,
//! sorting, the snapshot identity).

use std::sync::OnceLock;

use serde_json::Value;

/// The 004 seed schema, byte for byte.
pub const AGENT_TRANSACTION_SCHEMA: &str =
    include_str!("../schemas/agent-transaction-v0.1.schema.json");
/// The package manifest schema.
pub const MANIFEST_SCHEMA: &str = include_str!("../schemas/manifest-v0.1.schema.json");
/// The v0.2 tree node schema (see [`crate::tree`]).
pub const TREE_NODE_SCHEMA: &str = include_str!("../schemas/tree-node-v0.2.schema.json");
/// The v0.2 tree listing schema: what `genesis snapshot` prints for a tree past 4096 files.
pub const TREE_LISTING_SCHEMA: &str = include_str!("../schemas/tree-listing-v0.2.schema.json");

/// The kinds of document Genesis validates, told apart by their `schema` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DocumentKind {
    /// `genesis/agent-transaction-v0.1`.
    Session,
    /// `genesis/workspace-snapshot-v0.1`.
    Snapshot,
    /// `genesis/manifest-v0.1`.
    Manifest,
    /// `genesis/tree-v0.2`: one node of a v0.2 tree.
    TreeNode,
    /// `genesis/tree-v0.2` with an `identity` member: the listing of a whole v0.2 tree that
    /// `genesis snapshot` prints past 4096 files ([`crate::snapshot::Snapshot::to_value_with`]).
    TreeListing,
}

impl DocumentKind {
    /// The `schema` value that names this kind.
    pub fn schema_name(&self) -> &'static str {
        match self {
            DocumentKind::Session => "genesis/agent-transaction-v0.1",
            DocumentKind::Snapshot => crate::snapshot::SNAPSHOT_SCHEMA,
            DocumentKind::Manifest => "genesis/manifest-v0.1",
            DocumentKind::TreeNode | DocumentKind::TreeListing => crate::tree::TREE_SCHEMA,
        }
    }

    /// The kind named by a `schema` value.
    pub fn from_schema_name(name: &str) -> Option<Self> {
        [
            DocumentKind::Session,
            DocumentKind::Snapshot,
            DocumentKind::Manifest,
            DocumentKind::TreeNode,
        ]
        .into_iter()
        .find(|k| k.schema_name() == name)
    }
}

/// One failure: where (an RFC 6901 JSON pointer into the document; empty for the root) and what.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// JSON pointer of the failing value, for example `/files/3/path`.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{p}: {}", self.message)
    }
}

fn build(schema_text: &str, def: Option<&str>) -> jsonschema::Validator {
    let mut schema: Value = serde_json::from_str(schema_text).expect("bundled schema is JSON");
    if let (Some(def), Some(obj)) = (def, schema.as_object_mut()) {
        obj.remove("oneOf");
        obj.insert("$ref".into(), Value::String(format!("#/$defs/{def}")));
    }
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("bundled schema compiles")
}

fn validator(kind: DocumentKind) -> &'static jsonschema::Validator {
    static SESSION: OnceLock<jsonschema::Validator> = OnceLock::new();
    static SNAPSHOT: OnceLock<jsonschema::Validator> = OnceLock::new();
    static MANIFEST: OnceLock<jsonschema::Validator> = OnceLock::new();
    static TREE_NODE: OnceLock<jsonschema::Validator> = OnceLock::new();
    static TREE_LISTING: OnceLock<jsonschema::Validator> = OnceLock::new();
    match kind {
        DocumentKind::Session => {
            SESSION.get_or_init(|| build(AGENT_TRANSACTION_SCHEMA, Some("session")))
        }
        DocumentKind::Snapshot => {
            SNAPSHOT.get_or_init(|| build(AGENT_TRANSACTION_SCHEMA, Some("snapshot")))
        }
        DocumentKind::Manifest => MANIFEST.get_or_init(|| build(MANIFEST_SCHEMA, None)),
        DocumentKind::TreeNode => TREE_NODE.get_or_init(|| build(TREE_NODE_SCHEMA, None)),
        DocumentKind::TreeListing => TREE_LISTING.get_or_init(|| build(TREE_LISTING_SCHEMA, None)),
    }
}

/// Validates `value` against the schema of `kind` only (no engine checks).
pub fn schema_violations(kind: DocumentKind, value: &Value) -> Vec<Violation> {
    validator(kind)
        .iter_errors(value)
        .map(|e| Violation {
            pointer: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect()
}

/// Validates a document: picks the schema by its `schema` field, validates, then runs the
/// engine's own checks (every path's components; for snapshots the order and the identity; for
/// tree nodes the names and the order of both lists).
///
/// Returns the kind (when it could be told) and the violations (empty when valid).
pub fn validate_document(value: &Value) -> (Option<DocumentKind>, Vec<Violation>) {
    let Some(name) = value.get("schema").and_then(Value::as_str) else {
        return (
            None,
            vec![Violation {
                pointer: "/schema".into(),
                message: "missing or not a string; expected one of \"genesis/agent-transaction-v0.1\", \"genesis/workspace-snapshot-v0.1\", \"genesis/manifest-v0.1\", \"genesis/tree-v0.2\"".into(),
            }],
        );
    };
    let kind = DocumentKind::from_schema_name(name).map(|k| match k {
        // A node has no identity (it is its hash); the listing of a whole tree states one.
        DocumentKind::TreeNode if value.get("identity").is_some() => DocumentKind::TreeListing,
        k => k,
    });
    let Some(kind) = kind else {
        return (
            None,
            vec![Violation {
                pointer: "/schema".into(),
                message: format!("unknown document schema {name:?}"),
            }],
        );
    };
    let mut v = schema_violations(kind, value);
    if !v.is_empty() {
        return (Some(kind), v);
    }
    match kind {
        DocumentKind::Snapshot | DocumentKind::TreeListing => {
            if let Some(files) = value.get("files").and_then(Value::as_array) {
                path_violations(files.iter().map(|f| &f["path"]), "/files", "/path", &mut v);
            }
            if v.is_empty() {
                let bytes = serde_json::to_vec(value).expect("serialisable");
                if let Err(e) = crate::snapshot::Snapshot::from_listing_json(&bytes) {
                    v.push(Violation {
                        pointer: engine_pointer(&e),
                        message: e.to_string(),
                    });
                }
            }
        }
        DocumentKind::Session => {
            if let Some(p) = value.get("package_manifest") {
                path_violations(std::iter::once(p), "/package_manifest", "", &mut v);
            }
        }
        DocumentKind::Manifest => {}
        DocumentKind::TreeNode => {
            if let Err(e) = crate::tree::Node::from_value(value) {
                v.push(Violation {
                    pointer: e.pointer(),
                    message: e.to_string(),
                });
            }
        }
    }
    (Some(kind), v)
}

fn engine_pointer(e: &crate::snapshot::SnapshotDocumentError) -> String {
    use crate::snapshot::SnapshotDocumentError as E;
    match e {
        E::Order { index, .. } => format!("/files/{index}/path"),
        E::FileTooLarge { index, .. } => format!("/files/{index}/bytes"),
        E::TooManyFiles { .. } => "/files".into(),
        E::Identity { .. } => "/identity".into(),
        E::Schema(_) => "/schema".into(),
        E::Json(_) => String::new(),
        E::DuplicateKey(d) => d.pointer.clone(),
    }
}

fn path_violations<'a>(
    values: impl Iterator<Item = &'a Value>,
    base: &str,
    suffix: &str,
    out: &mut Vec<Violation>,
) {
    let single = suffix.is_empty();
    for (i, p) in values.enumerate() {
        if let Some(s) = p.as_str()
            && let Err(e) = crate::path::validate(s)
        {
            out.push(Violation {
                pointer: if single {
                    base.to_owned()
                } else {
                    format!("{base}/{i}{suffix}")
                },
                message: e.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_is_bundled_byte_for_byte() {
        // The 004 seed's size and a line only it has.
        assert_eq!(AGENT_TRANSACTION_SCHEMA.len(), 3242);
        assert!(AGENT_TRANSACTION_SCHEMA.contains("GenesisCode transactional agent session v0.1"));
    }

    #[test]
    fn bundled_schemas_have_no_duplicate_keys() {
        // Read with serde_json directly (they are compiled in); held to the same rule.
        for text in [
            AGENT_TRANSACTION_SCHEMA,
            MANIFEST_SCHEMA,
            TREE_NODE_SCHEMA,
            TREE_LISTING_SCHEMA,
            crate::bpt::REQUEST_SCHEMA,
        ] {
            assert_eq!(
                crate::json::check_no_duplicate_keys(text.as_bytes()),
                Ok(())
            );
        }
    }

    #[test]
    fn every_bundled_schema_compiles() {
        for k in [
            DocumentKind::Session,
            DocumentKind::Snapshot,
            DocumentKind::Manifest,
            DocumentKind::TreeNode,
            DocumentKind::TreeListing,
        ] {
            validator(k);
        }
    }

    #[test]
    fn pointer_names_the_failing_field() {
        let doc = serde_json::json!({
            "schema": "genesis/workspace-snapshot-v0.1",
            "identity": "0".repeat(64),
            "files": [{"path": "a", "blob": "XYZ", "bytes": 1}]
        });
        let (kind, v) = validate_document(&doc);
        assert_eq!(kind, Some(DocumentKind::Snapshot));
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].pointer, "/files/0/blob");
    }

    #[test]
    fn line_separator_path_caught_by_engine() {
        let doc = serde_json::json!({
            "schema": "genesis/workspace-snapshot-v0.1",
            "identity": "0".repeat(64),
            "files": [{"path": "a\u{2028}/../b", "blob": "0".repeat(64), "bytes": 1}]
        });
        let (_, v) = validate_document(&doc);
        assert!(v.iter().any(|x| x.pointer == "/files/0/path"), "{v:?}");
    }
}
