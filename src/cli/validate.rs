//! `genesis validate FILE…`: check documents against the bundled schemas.

use std::path::PathBuf;

use genesis::schema::validate_document;

use super::{CliError, Context};

/// Arguments of `genesis validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Session, snapshot or manifest documents (JSON), told apart by their `schema` field;
    /// v0.2 tree nodes and listings; whatever `genesis snapshot` prints (`--json`: its
    /// `snapshot` member is checked; `--json --identity`: the identity).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Exit 0 when every document is valid, 1 when one is not (each failure printed with its JSON
/// pointer), 2 when a file cannot be read, is not JSON, or has a member name twice in one object
/// (`FILE: duplicate key "obligations" at /obligations`, as every other command refuses it; the
/// others are still checked), 4 when a store's object file does not hash to its name (store
/// corruption, as every command reading it reports it). The highest applies.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let mut results = Vec::new();
    let mut worst = 0u8;
    for f in &args.files {
        // A file that cannot be read or parsed is reported, and the others are still checked.
        // Each error with its exit status: 4 for store corruption, 2 for any other.
        let parsed = std::fs::read(f)
            .map_err(|e| (2, format!("{}: {e}", f.display())))
            .and_then(|b| stored_object_content(f, b).map_err(|m| (4, m)))
            .and_then(|b| {
                genesis::json::value_from_slice(&b).map_err(|e| match e {
                    genesis::json::JsonError::Duplicate(d) => (2, format!("{}: {d}", f.display())),
                    e => (2, format!("{}: invalid JSON: {e}", f.display())),
                })
            });
        let value = match parsed {
            Ok(v) => v,
            Err((code, message)) => {
                eprintln!("genesis: error: {}", super::error::for_terminal(&message));
                worst = worst.max(code);
                results.push(serde_json::json!({
                    "file": f,
                    "kind": null,
                    "valid": false,
                    "violations": [],
                    "document_at": null,
                    "error": message,
                }));
                continue;
            }
        };
        if let Some(v) = identity_output(&value) {
            // `genesis snapshot --json --identity` output: the identity alone.
            if !ctx.json {
                crate::outln!(
                    "{}: {} snapshot identity (`genesis snapshot --json --identity` output)",
                    f.display(),
                    if v.is_empty() { "valid" } else { "invalid" }
                );
                for v in &v {
                    crate::outln!("  {v}");
                }
            }
            worst = worst.max(u8::from(!v.is_empty()));
            results.push(serde_json::json!({
                "file": f,
                "kind": "snapshot-identity",
                "valid": v.is_empty(),
                "violations": v,
                "document_at": null,
                "error": null,
            }));
            continue;
        }
        let (kind, violations, inside) = match snapshot_output(&value) {
            Some(inner) => {
                // `genesis snapshot --json` output: the document under /snapshot is what is
                // validated (pointers say so), and /identity must be its identity.
                let (kind, mut violations) = validate_document(inner);
                for v in &mut violations {
                    v.pointer = format!("/snapshot{}", v.pointer);
                }
                if violations.is_empty() && value["identity"] != inner["identity"] {
                    violations.push(genesis::schema::Violation {
                        pointer: "/identity".into(),
                        message: format!(
                            "{} is not the identity of the snapshot under /snapshot ({})",
                            value["identity"], inner["identity"]
                        ),
                    });
                }
                (kind, violations, Some("/snapshot"))
            }
            None => {
                let (kind, violations) = validate_document(&value);
                (kind, violations, None)
            }
        };
        if !violations.is_empty() {
            worst = worst.max(1);
        }
        if !ctx.json {
            let kind_name = kind.map_or("unknown document", |k| k.schema_name());
            let at = inside.map_or(String::new(), |p| {
                format!(" (at {p} of `genesis snapshot --json` output)")
            });
            if violations.is_empty() {
                crate::outln!("{}: valid {kind_name}{at}", f.display());
            } else {
                crate::outln!("{}: invalid {kind_name}{at}", f.display());
                for v in &violations {
                    crate::outln!("  {v}");
                }
            }
        }
        results.push(serde_json::json!({
            "file": f,
            "kind": kind,
            "valid": violations.is_empty(),
            "violations": violations,
            "document_at": inside,
            "error": null,
        }));
    }
    if ctx.json {
        super::print_json(&serde_json::json!({ "files": results }));
    }
    Ok(worst)
}

/// The content of `bytes` read from `path`: a file of a store's `objects/ab/cdef…` (named by
/// the SHA-256 of its raw bytes) is decoded as the store reads it (a zstd frame, or raw bytes
/// of an older store) and checked against its name; any other file is taken as it is.
fn stored_object_content(path: &std::path::Path, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let Ok(expected) = format!("{dir}{name}").parse::<genesis::hash::Digest>() else {
        return Ok(bytes);
    };
    if dir.len() != 2 {
        return Ok(bytes);
    }
    genesis::store::codec::decode_bytes(bytes, &expected).map_err(|actual| {
        format!(
            "{}: store corruption: the stored object does not hash to its name (expected {expected}, found {actual})",
            path.display()
        )
    })
}

/// The violations of `genesis snapshot --json --identity` output (`{"identity": HEX}`, one
/// member), or `None` when `value` is not an object with `identity` as its only member.
fn identity_output(value: &serde_json::Value) -> Option<Vec<genesis::schema::Violation>> {
    let obj = value.as_object().filter(|o| o.len() == 1)?;
    let id = obj.get("identity")?;
    let ok = id
        .as_str()
        .is_some_and(|s| s.parse::<genesis::hash::Digest>().is_ok());
    Some(if ok {
        Vec::new()
    } else {
        vec![genesis::schema::Violation {
            pointer: "/identity".into(),
            message: format!("{id} is not a snapshot identity (64 lowercase hex digits)"),
        }]
    })
}

/// The snapshot document inside `genesis snapshot --json` output: an object with no `schema`
/// whose `snapshot` member is an object naming the snapshot schema (or a v0.2 listing),
/// beside an `identity`.
fn snapshot_output(value: &serde_json::Value) -> Option<&serde_json::Value> {
    if value.get("schema").is_some() || value.get("identity").is_none() {
        return None;
    }
    value.get("snapshot").filter(|s| {
        let schema = s.get("schema").and_then(serde_json::Value::as_str);
        // A v0.1 snapshot document, or a v0.2 tree's listing (past 4096 files).
        schema == Some(genesis::snapshot::SNAPSHOT_SCHEMA)
            || (schema == Some(genesis::tree::TREE_SCHEMA) && s.get("identity").is_some())
    })
}
