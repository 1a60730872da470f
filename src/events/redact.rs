//! [`Redactor`]: secrets replaced by [`REDACTED`] in every line, log and message, also when a
//! secret is split across two pieces of a stream.

use super::REDACTED;

/// Replaces secret values with [`REDACTED`].
///
/// Matching is exact (byte for byte), leftmost first, longest secret first at one position.
/// Empty secrets are ignored. A very short secret (one that occurs inside hashes or ids) makes
/// lines invalid against their schema rather than leaking it: pass real secrets only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    /// Non-empty, deduplicated, longest first.
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor of `secrets`: empty ones dropped, duplicates removed, longest first.
    pub fn new(secrets: Vec<String>) -> Self {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| !s.is_empty()).collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor { secrets }
    }

    /// A redactor without secrets.
    pub fn none() -> Self {
        Redactor::default()
    }

    /// Whether there is no (non-empty) secret to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `s` with every occurrence of every secret replaced by [`REDACTED`].
    pub fn redact(&self, s: &str) -> String {
        if self.secrets.is_empty() {
            return s.to_string();
        }
        let bytes = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut copied = 0;
        let mut i = 0;
        while i < bytes.len() {
            if let Some(len) = self.match_at(bytes, i) {
                out.push_str(&s[copied..i]);
                out.push_str(REDACTED);
                i += len;
                copied = i;
            } else {
                i += 1;
            }
        }
        out.push_str(&s[copied..]);
        out
    }

    /// Redacts one piece of a stream. `carry` is the stream's unredacted tail held back from the
    /// previous piece (start with an empty string and keep it between calls). Returns the
    /// redacted text that is safe to emit now; the end of `carry + data` that could be the start
    /// of a secret stays in `carry`. With `last`, everything is emitted and `carry` is emptied.
    pub fn redact_chunk(&self, carry: &mut String, data: &str, last: bool) -> String {
        carry.push_str(data);
        let cut = if last {
            carry.len()
        } else {
            self.safe_cut(carry, carry.len())
        };
        let out = self.redact(&carry[..cut]);
        carry.drain(..cut);
        out
    }

    /// The length of the longest secret matching `bytes` at `i`, if any.
    fn match_at(&self, bytes: &[u8], i: usize) -> Option<usize> {
        self.secrets
            .iter()
            .find(|s| bytes[i..].starts_with(s.as_bytes()))
            .map(|s| s.len())
    }

    /// The largest cut `c <= limit` (a char boundary of `text`) such that `text[..c]` can be
    /// redacted on its own now, whatever text follows `text` later: no secret occurrence
    /// straddles `c`, and no suffix of `text` starting before `c` is a proper prefix of a secret.
    pub(super) fn safe_cut(&self, text: &str, limit: usize) -> usize {
        if self.secrets.is_empty() {
            return limit;
        }
        let bytes = text.as_bytes();
        let mut cut = limit;
        // Full occurrences, as `redact` finds them.
        let mut last_end = 0;
        let mut i = 0;
        while i < bytes.len() && i < cut {
            if let Some(len) = self.match_at(bytes, i) {
                if i + len > cut {
                    cut = i;
                    break;
                }
                i += len;
                last_end = i;
            } else {
                i += 1;
            }
        }
        // A tail that may continue into a secret in the next piece. Secrets start on a char
        // boundary, so any j where a secret's prefix matches is one.
        let longest = self.secrets[0].len();
        let from = last_end.max(bytes.len().saturating_sub(longest - 1));
        for j in from..cut {
            let tail = &bytes[j..];
            if self
                .secrets
                .iter()
                .any(|s| s.len() > tail.len() && s.as_bytes().starts_with(tail))
            {
                return j;
            }
        }
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_replaces_every_occurrence() {
        let r = Redactor::new(vec!["abc".into(), "".into(), "abcdef".into(), "abc".into()]);
        assert_eq!(r.redact("xabcdefyabcz"), "x[REDACTED]y[REDACTED]z");
        assert_eq!(r.redact("no secret"), "no secret");
        assert_eq!(Redactor::none().redact("abc"), "abc");
    }

    #[test]
    fn redact_chunk_catches_split_secrets() {
        let r = Redactor::new(vec!["hunter2".into(), "ŝekreto".into()]);
        let mut carry = String::new();
        let mut out = String::new();
        for piece in ["pass=hun", "ter2; x=ŝek", "ret", "o; hu", "nt!"] {
            out.push_str(&r.redact_chunk(&mut carry, piece, false));
        }
        out.push_str(&r.redact_chunk(&mut carry, "", true));
        assert_eq!(out, "pass=[REDACTED]; x=[REDACTED]; hunt!");
        assert!(carry.is_empty());
    }
}
