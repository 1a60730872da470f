//! `genesis validate FILE…`: check documents against the bundled schemas.

use std::path::PathBuf;

use genesis::schema::validate_document;

use super::{CliError, Context};

/// Arguments of `genesis validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Session, snapshot or manifest documents (JSON), told apart by their `schema` field.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Exit 0 when every document is valid, 1 when one is not (each failure printed with its JSON
/// pointer), 2 when a file cannot be read, is not JSON, or has a member name twice in one object
/// (`FILE: duplicate key "obligations" at /obligations`, as every other command refuses it; the
/// others are still checked).
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let mut results = Vec::new();
    let mut worst = 0u8;
    for f in &args.files {
        // A file that cannot be read or parsed is reported, and the others are still checked.
        let parsed = std::fs::read(f)
            .map_err(|e| format!("{}: {e}", f.display()))
            .and_then(|b| {
                genesis::json::value_from_slice(&b).map_err(|e| match e {
                    genesis::json::JsonError::Duplicate(d) => format!("{}: {d}", f.display()),
                    e => format!("{}: invalid JSON: {e}", f.display()),
                })
            });
        let value = match parsed {
            Ok(v) => v,
            Err(message) => {
                eprintln!("genesis: error: {message}");
                worst = 2;
                results.push(serde_json::json!({"file": f, "valid": false, "error": message}));
                continue;
            }
        };
        let (kind, violations) = validate_document(&value);
        if !violations.is_empty() {
            worst = worst.max(1);
        }
        if !ctx.json {
            let kind_name = kind.map_or("unknown document", |k| k.schema_name());
            if violations.is_empty() {
                crate::outln!("{}: valid {kind_name}", f.display());
            } else {
                crate::outln!("{}: invalid {kind_name}", f.display());
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
        }));
    }
    if ctx.json {
        super::print_json(&serde_json::json!({ "files": results }));
    }
    Ok(worst)
}
