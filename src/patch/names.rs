//! File names in patch headers (git's C-style quoting, `a/`/`b/` prefixes, `diff -u`
//! timestamps) and the operation the names of a `diff --git` entry give.

use super::PatchError;
use super::parse::{Op, malformed};

/// Decodes a git C-style quoted name starting at `s[0] == '"'`. Returns the name and the rest
/// after the closing quote.
pub(super) fn unquote(s: &str, lineno: usize) -> Result<(String, &str), PatchError> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        let Some(&b) = bytes.get(i) else {
            return Err(malformed(lineno, "unterminated quoted file name"));
        };
        match b {
            b'"' => break,
            b'\\' => {
                let Some(&e) = bytes.get(i + 1) else {
                    return Err(malformed(lineno, "unterminated quoted file name"));
                };
                i += 2;
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'0'..=b'3' => {
                        let d1 = bytes.get(i).copied().unwrap_or(0);
                        let d2 = bytes.get(i + 1).copied().unwrap_or(0);
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return Err(malformed(lineno, "bad octal escape in quoted file name"));
                        }
                        i += 2;
                        (e - b'0') * 64 + (d1 - b'0') * 8 + (d2 - b'0')
                    }
                    _ => return Err(malformed(lineno, "unknown escape in quoted file name")),
                });
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    if out.contains(&0) {
        return Err(PatchError::HeaderNul { line: lineno });
    }
    let name = String::from_utf8(out).map_err(|_| PatchError::HeaderNotUtf8 { line: lineno })?;
    Ok((name, &s[i + 1..]))
}

/// A name in a `---`/`+++` line: quoted, or up to the first tab. Returns the name and what follows
/// (the timestamp, if any).
pub(super) fn header_name(s: &str, lineno: usize) -> Result<(String, Option<String>), PatchError> {
    if s.starts_with('"') {
        let (name, rest) = unquote(s, lineno)?;
        let ts = rest.strip_prefix('\t').map(str::to_owned);
        Ok((name, ts))
    } else {
        match s.split_once('\t') {
            Some((name, ts)) => Ok((name.to_owned(), Some(ts.to_owned()))),
            None => Ok((s.to_owned(), None)),
        }
    }
}

/// Whether a `diff -u` timestamp denotes the Unix epoch (what `diff -N` writes for an absent file).
pub(super) fn is_epoch(ts: &str) -> bool {
    // "YYYY-MM-DD HH:MM:SS[.frac] +HHMM"
    let mut parts = ts.split_whitespace();
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    let tz = parts.next().unwrap_or("+0000");
    let d: Vec<i64> = date.split('-').filter_map(|x| x.parse().ok()).collect();
    let time = time.split('.').next().unwrap_or("");
    let t: Vec<i64> = time.split(':').filter_map(|x| x.parse().ok()).collect();
    // Bounded values keep the arithmetic below far from overflow.
    if d.len() != 3
        || t.len() != 3
        || tz.len() != 5
        || d.iter().chain(&t).any(|v| !(0..=99_999).contains(v))
    {
        return false;
    }
    let sign = match tz.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return false,
    };
    let Ok(tzv) = tz[1..].parse::<i64>() else {
        return false;
    };
    // Days from civil (Howard Hinnant's algorithm).
    let (y, m, day) = (d[0] - i64::from(d[1] <= 2), d[1], d[2]);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + t[0] * 3600 + t[1] * 60 + t[2]
        - sign * ((tzv / 100) * 3600 + (tzv % 100) * 60);
    secs == 0
}

/// Strips one leading component (`a/x` -> `x`).
pub(super) fn strip_one(name: &str, lineno: usize) -> Result<String, PatchError> {
    match name.split_once('/') {
        Some((_, rest)) if !rest.is_empty() => Ok(rest.to_owned()),
        _ => Err(malformed(
            lineno,
            format!(
                "file name {name:?} has no leading component to strip (git diffs name files as a/PATH and b/PATH)"
            ),
        )),
    }
}

/// The two names of a `diff --git` line, each with one component stripped, when they can be
/// found (always for quoted names; for unquoted ones only when both name the same file).
pub(super) fn git_line_names(
    rest: &str,
    lineno: usize,
) -> Result<Option<(String, String)>, PatchError> {
    if rest.starts_with('"') {
        let (a, after) = unquote(rest, lineno)?;
        let after = after
            .strip_prefix(' ')
            .ok_or_else(|| malformed(lineno, "expected two names after `diff --git`"))?;
        let b = if after.starts_with('"') {
            unquote(after, lineno)?.0
        } else {
            after.to_owned()
        };
        return Ok(Some((strip_one(&a, lineno)?, strip_one(&b, lineno)?)));
    }
    if let Some(pos) = rest.find(" \"") {
        let a = &rest[..pos];
        let (b, _) = unquote(&rest[pos + 1..], lineno)?;
        return Ok(Some((strip_one(a, lineno)?, strip_one(&b, lineno)?)));
    }
    for (pos, _) in rest.match_indices(' ') {
        let (a, b) = (&rest[..pos], &rest[pos + 1..]);
        if let (Some((_, sa)), Some((_, sb))) = (a.split_once('/'), b.split_once('/'))
            && !sa.is_empty()
            && sa == sb
        {
            return Ok(Some((sa.to_owned(), sb.to_owned())));
        }
    }
    Ok(None)
}

/// A name on a `rename from`/`copy to`... line (no prefix to strip; may be quoted).
pub(super) fn plain_name(s: &str, lineno: usize) -> Result<String, PatchError> {
    if s.starts_with('"') {
        Ok(unquote(s, lineno)?.0)
    } else {
        Ok(s.to_owned())
    }
}

pub(super) fn is_hex_id(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The operation of a `diff --git` entry without rename or copy headers: from the `---`/`+++`
/// names (checked against the `diff --git` names) or, without them, the `diff --git` names,
/// with `new file mode`/`deleted file mode`.
pub(super) fn plain_op(
    line: usize,
    git_names: Option<&(String, String)>,
    minus_plus: Option<&(Option<String>, Option<String>, usize)>,
    new_file: bool,
    deleted: bool,
) -> Result<Op, PatchError> {
    let (ga, gb) = match git_names {
        Some((a, b)) => (Some(a.clone()), Some(b.clone())),
        None => (None, None),
    };
    let (old, new) = match minus_plus {
        Some((o, n, l)) => {
            for (side, name) in [(&ga, o), (&gb, n)] {
                if let (Some(g), Some(n)) = (side, name)
                    && g != n
                {
                    return Err(malformed(
                        *l,
                        format!("file name {n:?} disagrees with the `diff --git` line ({g:?})"),
                    ));
                }
            }
            (o.clone(), n.clone())
        }
        None => (
            if new_file { None } else { ga.clone() },
            if deleted { None } else { gb.clone() },
        ),
    };
    let is_create = new_file || (minus_plus.is_some() && old.is_none());
    let is_delete = deleted || (minus_plus.is_some() && new.is_none());
    let missing = || malformed(line, "cannot find the file name in the `diff --git` line");
    match (is_create, is_delete) {
        (true, true) => Err(malformed(
            line,
            "file entry both creates and deletes the file",
        )),
        (true, false) => Ok(Op::Create(new.or(gb).ok_or_else(missing)?)),
        (false, true) => Ok(Op::Delete(old.or(ga).ok_or_else(missing)?)),
        (false, false) => {
            let o = old.ok_or_else(missing)?;
            let n = new.ok_or_else(missing)?;
            if o != n {
                return Err(malformed(
                    line,
                    format!(
                        "old name {o:?} and new name {n:?} differ without `rename from`/`rename to`"
                    ),
                ));
            }
            Ok(Op::Modify(o))
        }
    }
}
