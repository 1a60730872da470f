//! Short ids, as jj and git take them: any unique prefix of a session id or of a snapshot
//! identity stands for it, everywhere one is taken. A full id always wins; a prefix needs at
//! least [`MIN_PREFIX`] characters (git's `--abbrev` minimum, jj's shortest change ids); an
//! ambiguous prefix is refused (exit 2) with the candidates listed. Case does not matter, nor
//! do a session id's hyphens (one rule, [`genesis::report::resolve_id`], for resolving and for
//! the prefixes `status` shows: the exact id, then the id equal ignoring case and hyphens,
//! then a prefix of 4+ such characters); only a snapshot's root (never a sub-directory's v0.2 node) is
//! found by prefix; an operand that is both an existing path and a stored snapshot's prefix is
//! ambiguous (exit 2; git: "ambiguous argument"), and `./NAME` or more digits settle it.

use genesis::Digest;
use genesis::engine::Engine;
use genesis::store::Store;

use super::CliError;

/// The fewest characters a prefix may have (a full id may be shorter: session ids are 1 to 64
/// characters).
pub const MIN_PREFIX: usize = genesis::report::MIN_PREFIX;

/// The session `given` names: the session whose id it is, else the one session whose id starts
/// with it.
///
/// # Errors
/// Exit 2: no session has that id and `given` is shorter than [`MIN_PREFIX`] (the message says
/// the minimum); several sessions start with it (they are listed); none does (the store's
/// "no session" error).
pub fn session(engine: &Engine, given: &str) -> Result<String, CliError> {
    use genesis::report::IdMatch;
    match genesis::report::resolve_id(&engine.sessions()?, given) {
        IdMatch::Found(id) => Ok(id),
        IdMatch::TooShort => Err(CliError::usage(format!(
            "no session {given:?} in the store, and a session id prefix needs at least {MIN_PREFIX} characters (hyphens not counted); `genesis status` lists the sessions"
        ))),
        IdMatch::NotFound => Err(genesis::session::SessionError::NotFound(given.to_owned()).into()),
        IdMatch::Ambiguous(many) => Err(CliError::usage(format!(
            "session id prefix {given:?} is ambiguous: {} sessions match it (case and hyphens ignored); give more characters or the full id:\n{}",
            many.len(),
            many.iter()
                .map(|i| format!("  {i}"))
                .collect::<Vec<_>>()
                .join("\n")
        ))),
    }
}

/// Whether `s` is shaped as a snapshot identity or a prefix of one long enough to look up:
/// [`MIN_PREFIX`] to 64 hex digits.
pub fn is_snapshot_prefix(s: &str) -> bool {
    (MIN_PREFIX..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The message for 1 to [`MIN_PREFIX`]` - 1` hex digits where a snapshot identity was wanted,
/// saying the minimum; `None` for anything else.
pub fn too_short_snapshot_prefix(what: &str, s: &str) -> Option<CliError> {
    (!s.is_empty() && s.len() < MIN_PREFIX && s.bytes().all(|b| b.is_ascii_hexdigit())).then(|| {
        CliError::usage(format!(
            "{what} {s:?}: a snapshot identity prefix needs at least {MIN_PREFIX} hex digits"
        ))
    })
}

/// Refuses `operand` (named `what` in the message) when it is both an existing path and the
/// prefix of a stored snapshot, as git refuses an argument that is both a revision and a file.
///
/// # Errors
/// Exit 2, naming both and how to write each.
pub fn refuse_path_and_snapshot(
    what: &str,
    operand: &str,
    store: Option<&Store>,
) -> Result<(), CliError> {
    let Some(store) = store.filter(|_| is_snapshot_prefix(operand)) else {
        return Ok(());
    };
    match store.resolve_snapshot(operand) {
        Ok(d) => Err(CliError::usage(format!(
            "{what} {operand:?} is ambiguous: both a path here and a prefix of stored snapshot {d}; write ./{operand} for the path, or the full identity for the snapshot"
        ))),
        Err(_) => Ok(()),
    }
}

/// The stored snapshot `prefix` names ([`Store::resolve_snapshot`]: the full identity, or the
/// one stored identity starting with it).
///
/// # Errors
/// Exit 2: no stored snapshot matches; several do (listed).
pub fn snapshot(store: &Store, prefix: &str) -> Result<Digest, CliError> {
    Ok(store.resolve_snapshot(prefix)?)
}

#[cfg(test)]
mod tests {
    use genesis::report::shortest_prefixes;

    fn v(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn shortest_prefixes_are_unique_and_at_least_four() {
        assert_eq!(
            shortest_prefixes(&v(&["0193aaaa-1", "0193aaab-2", "7f00", "s1"])),
            v(&["0193aaaa", "0193aaab", "7f00", "s1"])
        );
        assert_eq!(shortest_prefixes(&v(&["abcdef"])), v(&["abcd"]));
        // An id that is a prefix of another is itself (a full id always wins).
        assert_eq!(
            shortest_prefixes(&v(&["abcd", "abcde"])),
            v(&["abcd", "abcde"])
        );
        // Compared normalised (case, hyphens); cut from the id as written.
        assert_eq!(
            shortest_prefixes(&v(&["abcd", "ABCDX", "ab-cd-e1", "abcdef"])),
            v(&["abcd", "ABCDX", "ab-cd-e1", "abcdef"])
        );
        assert_eq!(
            shortest_prefixes(&v(&["ab-cd-e1", "s1"])),
            v(&["ab-cd", "s1"])
        );
        assert_eq!(
            shortest_prefixes(&v(&["abcd", "ABCD"])),
            v(&["abcd", "ABCD"])
        );
        assert_eq!(
            shortest_prefixes(&v(&["Ab-Cd-e-f", "abcdx"])),
            v(&["Ab-Cd-e", "abcdx"])
        );
    }
}
