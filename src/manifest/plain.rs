//! A direct check that a manifest value plainly satisfies `schemas/manifest-v0.1.schema.json`,
//! so that the common manifest costs no JSON Schema compilation: building the validator (and
//! the draft 2020-12 meta-schema validator the `jsonschema` crate checks every schema with
//! first) took 0.7–1.7 ms of CPU on every command that reads the manifest (DESIGN section 5).
//!
//! [`plainly_valid`] is conservative: `true` only for a value every rule of the schema
//! accepts, read in the strictest way (a string length in bytes where the schema counts
//! characters, only integers written without a fraction or exponent, no duplicate members, as
//! [`crate::json`] already refuses). Anything else — an invalid manifest, or a valid one in an
//! unusual spelling — goes to the full schema validation, whose violations are reported as
//! before (DESIGN section 5). The tests hold it to the schema validator on every rule's
//! boundaries, and pin the schema's bytes so that a change to the schema fails them until
//! this check is revisited.

use serde_json::{Map, Value};

/// Whether `value` satisfies the manifest schema by the rules written out here (see the
/// module documentation); `false` means "not known", never "invalid".
pub(super) fn plainly_valid(value: &Value) -> bool {
    let Some(top) = value.as_object() else {
        return false;
    };
    top.iter().all(|(k, v)| match k.as_str() {
        "schema" => v.as_str() == Some("genesis/manifest-v0.1"),
        "exclude" | "protected" => globs(v),
        "limits" => v.as_object().is_some_and(limits),
        "obligations" => v
            .as_array()
            .is_some_and(|a| a.len() <= 256 && a.iter().all(obligation)),
        _ => false,
    }) && top.contains_key("schema")
}

/// `{"type": "array", "maxItems": 1024, "items": {"type": "string", "minLength": 1,
/// "maxLength": 4096}}`.
fn globs(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        a.len() <= 1024
            && a.iter()
                .all(|g| g.as_str().is_some_and(|s| !s.is_empty() && s.len() <= 4096))
    })
}

/// The `limits` object: known members only, each an integer in its range.
fn limits(m: &Map<String, Value>) -> bool {
    m.iter().all(|(k, v)| {
        let Some(n) = v.as_u64() else {
            return false;
        };
        match k.as_str() {
            "max_files" | "max_changed_files" => n >= 1,
            "max_file_bytes" => true,
            "max_patch_bytes" => (1..=1_073_741_824).contains(&n),
            _ => false,
        }
    })
}

/// One obligation: `id` (`^[A-Za-z0-9_.-]{1,64}$`) and `run` (non-empty array of strings)
/// required, `timeout_s` an integer 1 ..= 86400, nothing else.
fn obligation(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    o.contains_key("id")
        && o.contains_key("run")
        && o.iter().all(|(k, v)| match k.as_str() {
            "id" => v.as_str().is_some_and(|s| {
                (1..=64).contains(&s.len())
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            }),
            "run" => v
                .as_array()
                .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string)),
            "timeout_s" => v.as_u64().is_some_and(|n| (1..=86_400).contains(&n)),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{DocumentKind, MANIFEST_SCHEMA, schema_violations};
    use serde_json::json;

    fn schema_valid(v: &Value) -> bool {
        schema_violations(DocumentKind::Manifest, v).is_empty()
    }

    /// A manifest using every member, each well inside its rules.
    fn full() -> Value {
        json!({
            "schema": "genesis/manifest-v0.1",
            "exclude": ["target/", "node_modules/"],
            "protected": ["genesis.json", ".github/"],
            "limits": {"max_files": 10, "max_file_bytes": 0, "max_patch_bytes": 1024,
                       "max_changed_files": 3},
            "obligations": [
                {"id": "test", "run": ["cargo", "test"], "timeout_s": 600},
                {"id": "A.b_c-9", "run": ["sh", "-c", "true"]}
            ]
        })
    }

    /// Values that stand in for a member: each rule's boundaries and wrong types.
    fn candidates() -> Vec<Value> {
        let mut v = vec![
            json!(null),
            json!(true),
            json!(0),
            json!(1),
            json!(-1),
            json!(1.0),
            json!(1.5),
            json!(1e3),
            json!(86_400),
            json!(86_401),
            json!(1_073_741_824),
            json!(1_073_741_825),
            json!(u64::MAX),
            json!(""),
            json!("x"),
            json!("genesis/manifest-v0.1"),
            json!("genesis/manifest-v0.2"),
            json!("a".repeat(64)),
            json!("a".repeat(65)),
            json!("a".repeat(4096)),
            json!("a".repeat(4097)),
            json!("é".repeat(4096)),
            json!("id with space"),
            json!("ok\n"),
            json!([]),
            json!([""]),
            json!(["x"]),
            json!([1]),
            json!(["x", null]),
            json!(vec!["g"; 1024]),
            json!(vec!["g"; 1025]),
            json!({}),
            json!({"max_files": 1}),
            json!({"max_files": 0}),
            json!({"other": 1}),
        ];
        v.push(full()["obligations"].clone());
        v.push(json!(vec![full()["obligations"][0].clone(); 257]));
        v
    }

    #[test]
    fn plainly_valid_implies_schema_valid_on_every_rule_s_boundaries() {
        let mut accepted = 0;
        let mut check = |m: &Value| {
            if plainly_valid(m) {
                accepted += 1;
                assert!(schema_valid(m), "accepted but schema-invalid: {m}");
            }
        };
        check(&full());
        check(&serde_json::from_str(crate::manifest::DEFAULT_MANIFEST_TEXT).unwrap());
        let members = [
            "schema",
            "exclude",
            "protected",
            "limits",
            "obligations",
            "extra",
        ];
        for c in candidates() {
            for member in members {
                let mut m = full();
                m[member] = c.clone();
                check(&m);
            }
            for limit in [
                "max_files",
                "max_file_bytes",
                "max_patch_bytes",
                "max_changed_files",
                "extra",
            ] {
                let mut m = full();
                m["limits"][limit] = c.clone();
                check(&m);
            }
            for field in ["id", "run", "timeout_s", "extra"] {
                let mut m = full();
                m["obligations"][0][field] = c.clone();
                check(&m);
                if let Some(run) = m["obligations"][0]["run"].as_array_mut() {
                    run.push(c.clone());
                    check(&m);
                }
            }
        }
        for member in ["schema", "exclude", "limits", "obligations"] {
            let mut m = full();
            m.as_object_mut().unwrap().remove(member);
            check(&m);
        }
        for field in ["id", "run", "timeout_s"] {
            let mut m = full();
            m["obligations"][0].as_object_mut().unwrap().remove(field);
            check(&m);
        }
        check(&json!([]));
        check(&json!("genesis/manifest-v0.1"));
        // The common manifests really take the direct path.
        assert!(accepted >= 40, "only {accepted} accepted");
    }

    #[test]
    fn common_manifests_are_plainly_valid_and_invalid_ones_are_not() {
        assert!(plainly_valid(&full()));
        assert!(plainly_valid(
            &serde_json::from_str(crate::manifest::DEFAULT_MANIFEST_TEXT).unwrap()
        ));
        assert!(plainly_valid(&json!({"schema": "genesis/manifest-v0.1"})));
        for bad in [
            json!({}),
            json!({"schema": "genesis/manifest-v0.1", "obligations": [{"id": "x"}]}),
            json!({"schema": "genesis/manifest-v0.1", "limits": {"max_files": 0}}),
            json!({"schema": "genesis/manifest-v0.1", "exclude": [""]}),
            json!({"schema": "genesis/manifest-v0.1", "unknown": 1}),
        ] {
            assert!(!plainly_valid(&bad), "{bad}");
            assert!(!schema_valid(&bad), "{bad}");
        }
    }

    #[test]
    fn the_schema_is_the_one_this_check_was_written_for() {
        // If this fails, the manifest schema changed: make `plainly_valid` accept only what
        // the new schema accepts (and extend the tests above), then update the digest.
        assert_eq!(
            crate::hash::Digest::of(MANIFEST_SCHEMA.as_bytes()).to_hex(),
            "b5e622bb7d62d94340ae794938a3cc24103d45777082ab27e90629c9df3e28f7"
        );
    }
}
