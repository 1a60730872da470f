//! Strict JSON reading: the one place where Genesis turns bytes into JSON.
//!
//! RFC 8259 section 4 only says member names "SHOULD be unique"; `serde_json` keeps the last of
//! two equal names when it builds a [`serde_json::Value`], and a derived struct refuses them
//! only at its own level. A document with `"obligations"` twice would then pass validation
//! with its failing obligation silently dropped. Genesis refuses every duplicated member name,
//! at any depth, in every document it reads (manifest, session document and state, snapshot
//! documents, executable-bit sidecars, journals, acceptance records, BPT requests and task
//! records, `genesis validate`): [`from_slice`] and [`value_from_slice`] run
//! [`check_no_duplicate_keys`] first, then `serde_json`.
//!
//! The check is one extra pass over the bytes with `serde_json`'s own parser (a [`Visitor`]
//! that builds nothing, so its depth limit of 128 applies), keeping the member names of each
//! open object; the JSON pointer (RFC 6901) of a duplicate is built only when one is found.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// A member name that occurs twice in one JSON object.
///
/// Displayed as `duplicate key "obligations" at /obligations`: the name as a quoted, escaped
/// string, and the pointer of its second occurrence (control characters escaped for display).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("duplicate key {key:?} at {}", display_pointer(.pointer))]
pub struct DuplicateKey {
    /// The member name, unescaped (as the JSON string decodes).
    pub key: String,
    /// RFC 6901 JSON pointer of the duplicated member (`/obligations`, `/obligations/0/run`),
    /// `~` written `~0` and `/` written `~1`.
    pub pointer: String,
}

/// Why bytes are not an acceptable JSON document of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// A member name occurs twice in one object.
    #[error(transparent)]
    Duplicate(#[from] DuplicateKey),
    /// Not JSON (or trailing bytes, or nested deeper than 128): `serde_json`'s message, with
    /// line and column.
    #[error("{0}")]
    Syntax(String),
    /// JSON, but not of the expected shape (a field missing, unknown or mistyped):
    /// `serde_json`'s message, with line and column.
    #[error("{0}")]
    Shape(String),
}

impl JsonError {
    fn from_serde(e: &serde_json::Error) -> Self {
        match e.classify() {
            serde_json::error::Category::Data => JsonError::Shape(e.to_string()),
            _ => JsonError::Syntax(e.to_string()),
        }
    }
}

/// Escapes one member name as an RFC 6901 reference token: `~` → `~0`, then `/` → `~1`.
pub fn escape_token(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
}

/// A pointer for a one-line message: control characters (a newline in a member name) escaped,
/// everything else as is.
fn display_pointer(pointer: &str) -> Cow<'_, str> {
    if pointer.chars().any(char::is_control) {
        Cow::Owned(
            pointer
                .chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_default().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect(),
        )
    } else {
        Cow::Borrowed(pointer)
    }
}

/// Checks that `bytes` are one JSON document with no member name twice in any object.
///
/// # Errors
/// [`JsonError::Duplicate`] for the first duplicate in document order (its pointer names the
/// second occurrence); [`JsonError::Syntax`] when the bytes are not JSON.
pub fn check_no_duplicate_keys(bytes: &[u8]) -> Result<(), JsonError> {
    let mut dup = None;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let walked = Walk { dup: &mut dup }
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match (walked, dup) {
        (_, Some(d)) => Err(JsonError::Duplicate(d)),
        (Err(e), None) => Err(JsonError::from_serde(&e)),
        (Ok(()), None) => Ok(()),
    }
}

/// Parses `bytes` as a `T`, refusing duplicate member names first.
///
/// # Errors
/// [`JsonError::Duplicate`], [`JsonError::Syntax`], or [`JsonError::Shape`] when the JSON does
/// not deserialize into `T`.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, JsonError> {
    check_no_duplicate_keys(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| JsonError::from_serde(&e))
}

/// Parses `bytes` as a [`serde_json::Value`], refusing duplicate member names.
///
/// # Errors
/// As [`from_slice`].
pub fn value_from_slice(bytes: &[u8]) -> Result<serde_json::Value, JsonError> {
    from_slice(bytes)
}

/// Walks one value; on a duplicate, fills `dup` and fails, each enclosing level then prepending
/// its own reference token to the pointer as the error propagates.
struct Walk<'s> {
    dup: &'s mut Option<DuplicateKey>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Walk<'_> {
    fn prepend(&mut self, token: &str) {
        if let Some(d) = self.dup.as_mut() {
            d.pointer.insert_str(0, token);
        }
    }
}

/// Objects with at most this many members are checked by a linear scan (no hashing).
const LINEAR_KEYS: usize = 16;

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            match seq.next_element_seed(Walk { dup: self.dup }) {
                Ok(Some(())) => i += 1,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.prepend(&format!("/{i}"));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut few: Vec<Cow<'de, str>> = Vec::new();
        let mut many: HashSet<Cow<'de, str>> = HashSet::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let seen = if many.is_empty() {
                few.contains(&key)
            } else {
                many.contains(&key)
            };
            if seen {
                *self.dup = Some(DuplicateKey {
                    pointer: format!("/{}", escape_token(&key)),
                    key: key.into_owned(),
                });
                return Err(de::Error::custom("duplicate key"));
            }
            if let Err(e) = map.next_value_seed(Walk { dup: self.dup }) {
                self.prepend(&format!("/{}", escape_token(&key)));
                return Err(e);
            }
            if many.is_empty() && few.len() < LINEAR_KEYS {
                few.push(key);
            } else {
                many.extend(few.drain(..));
                many.insert(key);
            }
        }
        Ok(())
    }
}

/// A member name, borrowed from the input when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dup(bytes: &str) -> DuplicateKey {
        match check_no_duplicate_keys(bytes.as_bytes()) {
            Err(JsonError::Duplicate(d)) => d,
            other => panic!("expected a duplicate in {bytes}, got {other:?}"),
        }
    }

    #[test]
    fn top_level_duplicate_names_key_and_pointer() {
        let d = dup(r#"{"obligations": [{"id": "t", "run": ["false"]}], "obligations": []}"#);
        assert_eq!(d.key, "obligations");
        assert_eq!(d.pointer, "/obligations");
        assert_eq!(
            d.to_string(),
            r#"duplicate key "obligations" at /obligations"#
        );
    }

    #[test]
    fn nested_duplicate_pointer_goes_through_arrays_and_objects() {
        let d = dup(r#"{"a": 1, "obligations": [{"id": "t", "run": ["x"], "run": []}]}"#);
        assert_eq!(d.pointer, "/obligations/0/run");
        let d = dup(r#"[0, [1, {"x": {"y": 1, "y": 2}}]]"#);
        assert_eq!(d.pointer, "/1/1/x/y");
    }

    #[test]
    fn escaped_names_are_compared_decoded() {
        // "a" and "\u0061" are the same member name.
        let d = dup(r#"{"a": 1, "\u0061": 2}"#);
        assert_eq!(d.key, "a");
        assert_eq!(d.pointer, "/a");
    }

    #[test]
    fn pointer_escapes_tilde_before_slash() {
        let d = dup(r#"{"a/b~c": {"~1": 0, "~1": 1}}"#);
        assert_eq!(d.pointer, "/a~1b~0c/~01");
        assert_eq!(escape_token("~/"), "~0~1");
        assert_eq!(escape_token("plain"), "plain");
    }

    #[test]
    fn empty_key_and_control_characters() {
        let d = dup(r#"{"": 1, "": 2}"#);
        assert_eq!(d.pointer, "/");
        let d = dup("{\"x\\ny\": {\"k\": 1, \"k\": 2}}");
        assert_eq!(d.pointer, "/x\ny/k");
        assert_eq!(d.to_string(), r#"duplicate key "k" at /x\ny/k"#);
    }

    #[test]
    fn many_members_use_the_hash_set() {
        let mut doc = String::from("{");
        for i in 0..100 {
            doc.push_str(&format!("\"k{i}\": {i}, "));
        }
        doc.push_str("\"k7\": 0}");
        assert_eq!(dup(&doc).pointer, "/k7");
        let ok: String = format!(
            "{{{}}}",
            (0..100)
                .map(|i| format!("\"k{i}\": {i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(check_no_duplicate_keys(ok.as_bytes()), Ok(()));
    }

    #[test]
    fn same_name_in_sibling_objects_is_fine() {
        assert_eq!(
            check_no_duplicate_keys(br#"[{"a": 1}, {"a": 2}, {"b": {"a": 3}, "a": 4}]"#),
            Ok(())
        );
    }

    #[test]
    fn syntax_and_shape_errors_keep_serde_messages() {
        assert!(matches!(
            check_no_duplicate_keys(b"{\"a\": }"),
            Err(JsonError::Syntax(m)) if m.contains("line 1 column 7")
        ));
        assert!(matches!(
            check_no_duplicate_keys(b"{} x"),
            Err(JsonError::Syntax(m)) if m.contains("trailing characters")
        ));
        assert!(matches!(
            from_slice::<Vec<u8>>(b"{}"),
            Err(JsonError::Shape(_))
        ));
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(matches!(
            check_no_duplicate_keys(deep.as_bytes()),
            Err(JsonError::Syntax(m)) if m.contains("recursion limit")
        ));
    }

    /// Resolves an RFC 6901 pointer the way `serde_json` does (independent of our escaping).
    fn resolves(v: &serde_json::Value, pointer: &str) -> bool {
        v.pointer(pointer).is_some()
    }

    proptest! {
        /// For any member names, the pointer of a duplicate resolves (with serde_json's own
        /// RFC 6901 reader, on the document without the duplicate) to the member's value.
        #[test]
        fn pointer_resolves_for_any_names(outer in "\\PC{0,6}", inner in "[~/a]{0,4}\\PC{0,3}") {
            let clean = serde_json::json!({ outer.clone(): [0, { inner.clone(): 1 }] });
            let text = serde_json::to_string(&clean).unwrap();
            // Insert the duplicate member right after the inner one.
            let member = format!("{}:1", serde_json::to_string(&inner).unwrap());
            let pos = text.find(&member).unwrap() + member.len();
            let doctored = format!("{},{}{}", &text[..pos], member, &text[pos..]);
            let d = dup(&doctored);
            prop_assert_eq!(&d.key, &inner);
            prop_assert_eq!(
                d.pointer.clone(),
                format!("/{}/1/{}", escape_token(&outer), escape_token(&inner))
            );
            prop_assert!(resolves(&clean, &d.pointer));
            prop_assert_eq!(check_no_duplicate_keys(text.as_bytes()), Ok(()));
        }
    }
}
