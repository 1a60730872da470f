//! The size limit of a tool result: [`MAX_RESULT_BYTES`] of structured content.
//!
//! A client reads one JSON-RPC message per line and drops a longer line (rmcp's client at
//! 16 MiB), so an oversized result would never arrive and the call would hang. A document over
//! the limit is cut ([`cap`]) instead, never dropped: the largest members first — a long string
//! (the diff text, an obligation's output) keeps its beginning, a long array its first items —
//! until it fits, and the document says so with two members added at its top: `"truncated":
//! true` and `"truncation": {"limit_bytes", "bytes", "cut": [{"pointer", …}], "hint"}`, where
//! each cut names the member by its JSON pointer (RFC 6901) with what was kept
//! (`kept_bytes`/`bytes` of a string, `kept_items`/`items` of an array, `dropped: true` for a
//! member replaced by `null`), and `hint` says how to ask for less. A document within the limit
//! is returned as it is, without those members.

use serde_json::{Value, json};

/// The most bytes of structured content (serialised JSON) a tool result carries: 4 MiB, a
/// quarter of rmcp's client line limit, so that the result, its text summary and the envelope
/// always fit.
pub const MAX_RESULT_BYTES: usize = 4 * 1024 * 1024;

/// Room kept for the `truncated` and `truncation` members.
const RESERVE: usize = 16 * 1024;
/// The most cuts listed.
const MAX_CUTS: usize = 64;

/// Counts the bytes of a value's serialisation without keeping them.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `v` serialised as compact JSON, in bytes.
pub fn size(v: &Value) -> usize {
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// `v` within `limit` bytes (see the module documentation); `hint` says how to ask for a
/// smaller result. Returns whether it was cut.
pub fn cap(v: &mut Value, limit: usize, hint: &str) -> bool {
    let bytes = size(v);
    if bytes <= limit {
        return false;
    }
    let mut cuts = Vec::new();
    shrink(v, limit.saturating_sub(RESERVE), "", &mut cuts);
    cuts.truncate(MAX_CUTS);
    let note = json!({
        "limit_bytes": limit,
        "bytes": bytes,
        "cut": cuts,
        "hint": hint,
    });
    match v {
        Value::Object(o) => {
            o.insert("truncated".into(), Value::Bool(true));
            o.insert("truncation".into(), note);
        }
        other => *other = json!({"truncated": true, "truncation": note}),
    }
    true
}

fn pointer(parent: &str, token: &str) -> String {
    format!("{parent}/{}", crate::json::escape_token(token))
}

/// Cuts `v` until its serialisation is at most `budget` bytes, noting each cut.
fn shrink(v: &mut Value, budget: usize, at: &str, cuts: &mut Vec<Value>) {
    let n = size(v);
    if n <= budget {
        return;
    }
    match v {
        Value::String(s) => {
            let total = s.len();
            // Escapes make the serialisation longer than the text: scale, then check.
            let mut keep = (total as u128 * budget.saturating_sub(2) as u128 / n as u128) as usize;
            loop {
                while !s.is_char_boundary(keep) {
                    keep -= 1;
                }
                if size(&Value::String(s[..keep].to_owned())) <= budget || keep == 0 {
                    break;
                }
                keep = keep * 9 / 10;
            }
            s.truncate(keep);
            cuts.push(json!({"pointer": at, "kept_bytes": keep, "bytes": total}));
        }
        Value::Array(a) => {
            let total = a.len();
            let mut used = 2;
            let mut kept = 0;
            for (i, x) in a.iter_mut().enumerate() {
                let sep = usize::from(i > 0);
                let xs = size(x);
                if used + sep + xs <= budget {
                    used += sep + xs;
                    kept += 1;
                    continue;
                }
                // The first item that does not fit is cut to what is left, if that is worth it.
                let left = budget.saturating_sub(used + sep);
                if left >= 1024
                    && matches!(x, Value::String(_) | Value::Array(_) | Value::Object(_))
                {
                    shrink(x, left, &pointer(at, &i.to_string()), cuts);
                    if size(x) <= left {
                        kept += 1;
                    }
                }
                break;
            }
            if kept < total {
                a.truncate(kept);
                cuts.push(json!({"pointer": at, "kept_items": kept, "items": total}));
            }
        }
        Value::Object(o) => loop {
            let n = {
                let mut c = Counter(0);
                let _ = serde_json::to_writer(&mut c, &*o);
                c.0
            };
            if n <= budget {
                break;
            }
            let Some((key, ks)) = o
                .iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), size(x)))
                .max_by_key(|(_, s)| *s)
            else {
                break;
            };
            let excess = n - budget;
            let member = o.get_mut(&key).expect("a member just listed");
            let p = pointer(at, &key);
            if ks <= excess + 64 || matches!(member, Value::Number(_) | Value::Bool(_)) {
                *member = Value::Null;
                cuts.push(json!({"pointer": p, "dropped": true}));
                continue;
            }
            shrink(member, ks - excess, &p, cuts);
            if size(member) >= ks {
                *member = Value::Null;
                cuts.push(json!({"pointer": p, "dropped": true}));
            }
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_document_is_left_as_it_is() {
        let mut v = json!({"a": "x".repeat(100)});
        let before = v.clone();
        assert!(!cap(&mut v, 1000, "h"));
        assert_eq!(v, before);
    }

    #[test]
    fn the_largest_members_are_cut_and_the_cuts_named() {
        let files: Vec<Value> = (0..3).map(|i| json!({"path": format!("f{i}")})).collect();
        let mut v = json!({
            "from": "a",
            "files": files,
            "diff": format!("{}\"{}", "d".repeat(300_000), "é".repeat(100_000)),
        });
        let bytes = size(&v);
        assert!(cap(&mut v, 100_000, "ask for less"));
        assert!(size(&v) <= 100_000, "{}", size(&v));
        assert_eq!(v["truncated"], true);
        assert_eq!(v["from"], "a");
        assert_eq!(v["files"].as_array().unwrap().len(), 3);
        let diff = v["diff"].as_str().unwrap();
        assert!(
            diff.len() > 50_000 && diff.starts_with("ddd"),
            "{}",
            diff.len()
        );
        let t = &v["truncation"];
        assert_eq!(t["bytes"], bytes);
        assert_eq!(t["limit_bytes"], 100_000);
        assert_eq!(t["hint"], "ask for less");
        assert_eq!(
            t["cut"],
            json!([{"pointer": "/diff", "kept_bytes": diff.len(), "bytes": 500_001}])
        );
    }

    #[test]
    fn long_arrays_keep_their_first_items() {
        let items: Vec<Value> = (0..10_000)
            .map(|i| json!({"path": format!("file{i:05}")}))
            .collect();
        let mut v = json!({"files": items});
        assert!(cap(&mut v, 50_000, "h"));
        assert!(size(&v) <= 50_000);
        let kept = v["files"].as_array().unwrap();
        assert_eq!(kept[0]["path"], "file00000");
        let cut = &v["truncation"]["cut"][0];
        assert_eq!(cut["pointer"], "/files");
        assert_eq!(cut["items"], 10_000);
        assert_eq!(cut["kept_items"], kept.len());
    }
}
