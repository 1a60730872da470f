//! Verify scratch directories a killed `verify` left behind (issue 13, review 2 G).
//!
//! `verify` materialises the snapshot in `$TMPDIR/genesis-verify-<session>-p<pid>-XXXXXX` (the pid zero-padded to 7 digits) and
//! removes it when it ends; a process killed outright (SIGKILL) cannot. `gc` removes such a
//! directory when `<session>` is a session of this store and process `<pid>` no longer exists
//! (`kill(pid, 0)` fails with `ESRCH`), whatever its age: a running verify's process exists, so
//! its directory is never touched. A recycled pid only delays the removal to a later `gc`.

use std::path::{Path, PathBuf};

/// The session and pid a scratch directory's name holds, if it is one.
pub(super) fn parse(name: &str) -> Option<(&str, u32)> {
    let rest = name.strip_prefix("genesis-verify-")?;
    // `-XXXXXX`: tempfile's six random characters.
    let body = rest.get(..rest.len().checked_sub(7)?)?;
    if rest.as_bytes().get(body.len()) != Some(&b'-') {
        return None;
    }
    let (session, pid) = body.rsplit_once("-p")?;
    if session.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((session, pid.parse().ok()?))
}

fn gone(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if p <= 0 || pid == std::process::id() {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(p, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// The stale scratch directories in `tmp` of the sessions `sessions`, sorted.
pub(super) fn stale(tmp: &Path, sessions: &[String]) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let (session, pid) = parse(&name)?;
            (sessions.iter().any(|s| s == session) && gone(pid)).then(|| e.path())
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_from_the_right() {
        assert_eq!(parse("genesis-verify-s1-p42-AbC123"), Some(("s1", 42)));
        assert_eq!(parse("genesis-verify-a-p7-p9-zzzzzz"), Some(("a-p7", 9)));
        assert_eq!(parse("genesis-verify-s1-AbC123"), None);
        assert_eq!(parse("genesis-verify-s1-px-AbC123"), None);
        assert_eq!(parse("genesis-verify--p4-AbC123"), None);
        assert_eq!(parse("other-s1-p42-AbC123"), None);
    }
}
