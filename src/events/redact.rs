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

/// The shortest environment value [`env_secrets`] takes as a secret: 8 bytes (a shorter value,
/// such as `1` or `true`, would be redacted inside every hash and word).
pub const MIN_ENV_SECRET_BYTES: usize = 8;

/// Whether an environment variable's name says its value is a secret: its upper-case form
/// contains `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `PRIVATE`,
/// `APIKEY`, `API_KEY`, `ACCESS_KEY` or `AUTH`, or ends in `_KEY`, `_PAT` or `_PWD` (the names
/// of GitHub, cloud and package-registry credentials: `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
/// `NPM_TOKEN`, `OPENAI_API_KEY`, …).
pub fn is_secret_name(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "PRIVATE",
        "APIKEY",
        "API_KEY",
        "ACCESS_KEY",
        "AUTH",
    ];
    let n = name.to_ascii_uppercase();
    WORDS.iter().any(|w| n.contains(w)) || ["_KEY", "_PAT", "_PWD"].iter().any(|e| n.ends_with(e))
}

/// The secrets of an environment (`std::env::vars_os()`): the values of the variables whose
/// name [`is_secret_name`] or is listed in `GENESIS_REDACT` (names separated by commas), at
/// least [`MIN_ENV_SECRET_BYTES`] long and valid UTF-8. An obligation inherits the environment
/// of the process that runs it, so these are what its output could leak.
pub fn env_secrets<I>(vars: I) -> Vec<String>
where
    I: IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
{
    let vars: Vec<(String, String)> = vars
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let listed: Vec<String> = vars
        .iter()
        .filter(|(k, _)| k == "GENESIS_REDACT")
        .flat_map(|(_, v)| v.split(',').map(|n| n.trim().to_owned()))
        .filter(|n| !n.is_empty())
        .collect();
    vars.into_iter()
        .filter(|(k, v)| {
            v.len() >= MIN_ENV_SECRET_BYTES && (is_secret_name(k) || listed.contains(k))
        })
        .map(|(_, v)| v)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_secrets_are_the_values_of_secret_names() {
        let env = [
            ("GITHUB_TOKEN", "ghp_0123456789abcdef"),
            ("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG"),
            ("MY_KEY", "k3y-value-long"),
            ("SHORT_TOKEN", "abc"),
            ("PATH", "/usr/bin:/bin"),
            ("HOME", "/home/someone"),
            ("PLAIN", "listed-value"),
            ("GENESIS_REDACT", "PLAIN, OTHER"),
        ]
        .map(|(k, v)| (k.into(), v.into()));
        assert_eq!(
            env_secrets(env),
            [
                "ghp_0123456789abcdef",
                "wJalrXUtnFEMI/K7MDENG",
                "k3y-value-long",
                "listed-value"
            ]
        );
    }

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
