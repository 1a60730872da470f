//! The JSON documents the front ends print for each command: `genesis COMMAND --json` and the
//! structured content of the MCP server's tools (`genesis mcp`, [`crate::mcp`]) are built here,
//! once, so the two never differ. Each function gives the document of one command; the shapes
//! are the ones README's "Commands" section and `tests/cli_output.rs` show.

use serde_json::{Value, json};

use crate::check::CheckOutcome;
use crate::diff::{Change, DiffError, Tree, changes, stats};
use crate::engine::{
    AbortOutcome, ApplyOutcome, Engine, EngineError, OpenOutcome, PatchOutcome, RebaseOutcome,
    VerificationLog, VerifyOutcome,
};
use crate::session::{Session, SessionState};
use crate::snapshot::SnapshotOutcome;

/// The fewest characters a session or snapshot id prefix may have (git's `--abbrev` minimum,
/// jj's shortest change ids); a full id may be shorter.
pub const MIN_PREFIX: usize = 4;

/// `[{"status": "A"|"D"|"M", "path": …}, …]` for a list of changes.
pub fn changes_json(list: &[Change]) -> Vec<Value> {
    list.iter()
        .map(|c| json!({"status": c.status.letter().to_string(), "path": c.path}))
        .collect()
}

/// `genesis open --json`: `{"session", "checkout", "skipped", "collisions"}`.
pub fn open_json(out: &OpenOutcome) -> Value {
    json!({
        "session": out.session,
        "checkout": out.checkout,
        "skipped": out.skipped,
        "collisions": out.collisions,
    })
}

/// `genesis patch --json`: `{"session", "entry", "changes", "static", "acceptance"}`
/// (`acceptance`: the record when the patch was also verified, else `null`).
pub fn patch_json(out: &PatchOutcome) -> Value {
    json!({
        "session": out.session,
        "entry": out.entry,
        "changes": changes_json(&out.changes),
        "static": out.static_results,
        "acceptance": out.verification.as_ref().map(|v| &v.record),
    })
}

/// `genesis verify --json`: `{"session", "acceptance", "record", "obligations_run"}`.
pub fn verify_json(out: &VerifyOutcome) -> Value {
    json!({
        "session": out.session,
        "acceptance": out.acceptance,
        "record": out.record,
        "obligations_run": out.record.obligations.len(),
    })
}

/// `genesis apply --json`: `{"session", "written", "changes", "left_ignored"}`.
pub fn apply_json(out: &ApplyOutcome) -> Value {
    json!({
        "session": out.session,
        "written": out.written,
        "changes": changes_json(&out.changes),
        "left_ignored": out.left_ignored,
    })
}

/// `genesis abort --json`: `{"session", "dry_run", "steps", "saved", "checkout",
/// "checkout_kept", "kept", "restore_command"}`.
pub fn abort_json(o: &AbortOutcome) -> Value {
    let id = &o.session.session;
    json!({
        "session": o.session,
        "dry_run": !o.written,
        "steps": o.steps,
        "saved": o.saved,
        "checkout": o.checkout,
        "checkout_kept": o.checkout_kept,
        "kept": o.kept,
        "restore_command": (!o.saved.is_empty()).then(|| format!("genesis restore {id}")),
    })
}

/// `genesis status SESSION --json`: `{"session", "logs", "saved", "conflict_markers"}`.
pub fn status_json(s: &Session, state: &SessionState) -> Value {
    json!({
        "session": s,
        "logs": state.logs,
        "saved": state.saved.as_ref().map(|w| &w.files),
        "conflict_markers": state.conflict_markers,
    })
}

/// `genesis status --json` (every session): `{"sessions": [{"session", "short_id", "status",
/// "patches", "verified", "failed", "current_snapshot", "error"}, …]}`, sorted by id; every
/// row has every key: a session that cannot be read has `null`s and its `error`, a readable
/// one `"error": null`; `failed` lists the static rules and obligations that did not pass.
///
/// # Errors
/// The store's list of sessions cannot be read.
pub fn status_list_json(engine: &Engine) -> Result<Value, EngineError> {
    let ids = engine.sessions()?;
    let shorts = shortest_prefixes(&ids);
    let rows: Vec<Value> = ids
        .iter()
        .zip(&shorts)
        .map(|(id, short)| match engine.status(id) {
            Ok((s, _)) => json!({
                "session": id,
                "short_id": short,
                "status": s.status,
                "patches": s.patches.len(),
                "verified": s.verification.as_ref().is_some_and(|v| v.snapshot == s.current_snapshot && v.obligations_ok),
                "failed": engine.failed_obligations(id).ok().flatten().unwrap_or_default(),
                "current_snapshot": s.current_snapshot,
                "error": null,
            }),
            // The same keys for a session that cannot be read: `null` but for `error`.
            Err(e) => json!({
                "session": id,
                "short_id": short,
                "status": null,
                "patches": null,
                "verified": null,
                "failed": null,
                "current_snapshot": null,
                "error": e.to_string(),
            }),
        })
        .collect();
    Ok(json!({ "sessions": rows }))
}

/// The `conflicts` of `rebase --json` (`[{"path", "kind", "message", "hunks": [{"base",
/// "session", "workspace"}]}]`, line ranges `{"start", "count"}`), the shape every command
/// that stops on conflicting paths uses ([`path_conflicts_json`]).
pub fn merge_conflicts_json(list: &[crate::engine::MergeConflict]) -> Value {
    list.iter()
        .map(|c| {
            json!({
                "path": c.path,
                "kind": c.kind,
                "message": c.kind.to_string(),
                "hunks": c.hunks,
            })
        })
        .collect()
}

/// The `conflicts` of a refused `apply`, `abort` or `restore` (`--json`, beside `error`):
/// `[{"path", "kind", "message", "hunks": []}]`, as [`merge_conflicts_json`]: `kind` a
/// kebab-case name ([`crate::engine::ConflictKind::code`]), `message` its text, no hunks
/// (these conflicts are whole paths).
pub fn path_conflicts_json(list: &[crate::engine::PathConflict]) -> Value {
    list.iter()
        .map(|c| {
            json!({
                "path": c.path,
                "kind": c.kind.code(),
                "message": c.kind.to_string(),
                "hunks": [],
            })
        })
        .collect()
}

/// `genesis snapshot --json`: `{"identity", "snapshot", "executable", "skipped", "collisions",
/// "stored", "blobs_added", "files_hashed", "files_from_cache"}`; `blobs_added` is `null`
/// when nothing was stored.
pub fn snapshot_json(outcome: &SnapshotOutcome, blobs_added: Option<usize>) -> Value {
    let snap = &outcome.snapshot;
    json!({
        "identity": snap.identity(),
        "snapshot": snap.to_value_with(&outcome.executable),
        "executable": outcome.executable,
        "skipped": outcome.skipped,
        "collisions": snap.fold_collisions(),
        "stored": blobs_added.is_some(),
        "blobs_added": blobs_added,
        "files_hashed": outcome.hashed,
        "files_from_cache": outcome.from_cache,
    })
}

/// `genesis diff A B --json`: `{"from", "to", "files": [{"path", "status", "old_blob",
/// "new_blob", "old_executable", "new_executable", "binary", "added", "removed"}, …], "stat":
/// {"files_changed", "insertions", "deletions"}, "diff"}`: `stat` holds the totals of
/// `--stat`'s last line, `diff` the text `genesis diff` prints (uncoloured), `null` when it is
/// not UTF-8 (a text file in another encoding), which a JSON string cannot carry.
///
/// # Errors
/// A blob of either tree cannot be read ([`DiffError`]).
pub fn diff_json(a: &Tree, b: &Tree) -> Result<Value, DiffError> {
    diff_json_of(a, b, &DiffSelection::default())
}

/// Which changes [`diff_json_of`] reports, and whether with the diff text.
#[derive(Debug, Clone, Default)]
pub struct DiffSelection {
    /// Only the changes at one of these paths or under one of them (a directory); `None`:
    /// every change.
    pub paths: Option<Vec<String>>,
    /// Leave the diff text out (`"diff": null`): the list and the totals only.
    pub no_text: bool,
}

impl DiffSelection {
    fn takes(&self, path: &str) -> bool {
        self.paths.as_ref().is_none_or(|ps| {
            ps.iter().any(|p| {
                let p = p.trim_end_matches('/');
                p.is_empty()
                    || path == p
                    || (path.starts_with(p) && path.as_bytes().get(p.len()) == Some(&b'/'))
            })
        })
    }
}

/// [`diff_json`] of the changes `selection` takes (the MCP `diff` tool's `paths` and `stat`).
///
/// # Errors
/// As [`diff_json`].
pub fn diff_json_of(a: &Tree, b: &Tree, selection: &DiffSelection) -> Result<Value, DiffError> {
    let mut list = changes(a, b);
    list.retain(|c| selection.takes(c.path.as_str()));
    let st = stats(a, b, &list)?;
    let files: Vec<Value> = list
        .iter()
        .zip(&st)
        .map(|(c, s)| {
            json!({
                "path": c.path,
                "status": c.status.letter().to_string(),
                "old_blob": c.old.as_ref().map(|x| x.file.blob),
                "new_blob": c.new.as_ref().map(|x| x.file.blob),
                "old_executable": c.old.as_ref().map(|x| x.executable),
                "new_executable": c.new.as_ref().map(|x| x.executable),
                "binary": s.binary,
                "added": s.added,
                "removed": s.removed,
            })
        })
        .collect();
    let mut text = Vec::new();
    if !selection.no_text {
        crate::diff::write_git_diff(a, b, &list, &crate::diff::DiffOptions::default(), &mut text)?;
    }
    let insertions: u64 = st.iter().map(|s| s.added).sum();
    let deletions: u64 = st.iter().map(|s| s.removed).sum();
    Ok(json!({
        "from": a.snapshot.identity(),
        "to": b.snapshot.identity(),
        "files": files,
        "stat": {
            "files_changed": list.len(),
            "insertions": insertions,
            "deletions": deletions,
        },
        "diff": if selection.no_text { None } else { String::from_utf8(text).ok() },
    }))
}

/// `genesis rebase --json` (and the MCP `rebase` tool): `{"session", "moved", "old_base",
/// "onto", "entry", "changes", "conflicts": [{"path", "kind", "message", "hunks": [{"base",
/// "session", "workspace"}]}], "checkout_kept", "checkout_made_from", "not_recorded_reason"}`
/// (why `markers` recorded nothing, else `null`), line ranges as `{"start", "count"}` (1-based).
pub fn rebase_json(out: &RebaseOutcome, markers: bool) -> Value {
    json!({
        "session": out.session,
        "moved": out.moved,
        "old_base": out.old_base,
        "onto": out.onto,
        "entry": out.entry,
        "changes": changes_json(&out.changes),
        "conflicts": merge_conflicts_json(&out.conflicts),
        "checkout_kept": out.checkout_kept,
        "checkout_made_from": out.checkout_made_from,
        "not_recorded_reason": markers_reason(markers, out),
    })
}

/// With `--markers` and nothing recorded: why (the whole-file conflicts no marker can
/// express, named), and what to do.
pub fn markers_reason(markers: bool, out: &RebaseOutcome) -> Option<String> {
    if !markers || out.moved || out.conflicts.is_empty() {
        return None;
    }
    let whole: Vec<String> = out
        .conflicts
        .iter()
        .filter(|c| !c.kind.has_markers())
        .map(|c| crate::diff::quote_path("", c.path.as_str()))
        .collect();
    let (verb, pronoun) = if whole.len() == 1 {
        ("is a whole-file conflict", "it")
    } else {
        ("are whole-file conflicts", "them")
    };
    Some(format!(
        "--markers recorded nothing: conflict markers express only line conflicts, and {} {verb} (a deletion against a change, a binary file, executable bits, or a file against a directory); resolve {pronoun} with a patch to the session, then rebase again",
        whole.join(", "),
    ))
}

/// `genesis log SESSION [OBLIGATION] --json`: `{"session", "snapshot", "acceptance",
/// "current", "obligations": [{"id", "run", "exit_code", "timed_out", "passed", "seconds",
/// "stdout", "stderr"}]}`; output as text (invalid UTF-8 replaced), `null` when not kept.
pub fn log_json(session: &str, log: &VerificationLog) -> Value {
    let text = |b: &Option<Vec<u8>>| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
    json!({
        "session": session,
        "snapshot": log.snapshot,
        "acceptance": log.acceptance,
        "current": log.current,
        "obligations": log.obligations.iter().map(|o| json!({
            "id": o.id,
            "run": o.run,
            "exit_code": o.exit_code,
            "timed_out": o.timed_out,
            "passed": o.passed,
            "seconds": o.seconds,
            "stdout": text(&o.stdout),
            "stderr": text(&o.stderr),
        })).collect::<Vec<_>>(),
    })
}

/// `genesis check --json`: `{"match", "expected", "actual", "differences",
/// "differences_unknown"}`. Without the expected tree (`no_tree_reason`: why it is not at
/// hand) the differing paths of a mismatch are unknown, not none: `differences` is `null` and
/// `differences_unknown` says why; otherwise `differences_unknown` is `null`.
pub fn check_json(outcome: &CheckOutcome, no_tree_reason: Option<&str>) -> Value {
    let unknown = (!outcome.matches()).then_some(no_tree_reason).flatten();
    json!({
        "match": outcome.matches(),
        "expected": outcome.expected,
        "actual": outcome.actual,
        "differences": if unknown.is_some() { Value::Null } else { changes_json(&outcome.differences).into() },
        "differences_unknown": unknown,
    })
}

/// `id` as a short session id is compared (jj takes change ids so): ASCII letters lowercased,
/// hyphens dropped. `"0193AAAA-7f"` → `"0193aaaa7f"`.
pub fn normalise_id(id: &str) -> String {
    id.chars()
        .filter(|&c| c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// What [`resolve_id`] found for a given id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdMatch {
    /// The one id it names.
    Found(String),
    /// No id is it, and it has fewer than [`MIN_PREFIX`] normalised characters.
    TooShort,
    /// Several ids match it at the first rule that matched any (sorted).
    Ambiguous(Vec<String>),
    /// No id matches it.
    NotFound,
}

/// The id of `ids` that `given` names, by one rule (the same [`shortest_prefixes`] displays
/// by), in order: the id equal to `given` as typed; else the ids equal to it normalised
/// ([`normalise_id`]); else, when it has at least [`MIN_PREFIX`] normalised characters, the
/// ids whose normalised form starts with its normalised form. The first of these that
/// matches anything decides: one id is [`IdMatch::Found`], several [`IdMatch::Ambiguous`].
pub fn resolve_id(ids: &[String], given: &str) -> IdMatch {
    if let Some(id) = ids.iter().find(|i| *i == given) {
        return IdMatch::Found(id.clone());
    }
    let want = normalise_id(given);
    let pick = |found: Vec<&String>| match found.as_slice() {
        [one] => IdMatch::Found((*one).clone()),
        [] => IdMatch::NotFound,
        many => {
            let mut v: Vec<String> = many.iter().map(|s| (*s).clone()).collect();
            v.sort();
            IdMatch::Ambiguous(v)
        }
    };
    let exact: Vec<&String> = ids.iter().filter(|i| normalise_id(i) == want).collect();
    if !exact.is_empty() {
        return pick(exact);
    }
    if want.chars().count() < MIN_PREFIX {
        return IdMatch::TooShort;
    }
    pick(
        ids.iter()
            .filter(|i| normalise_id(i).starts_with(&want))
            .collect(),
    )
}

/// For each of `ids`, its shortest prefix that [`resolve_id`] resolves to it: at least
/// [`MIN_PREFIX`] normalised characters ([`normalise_id`]), one more than the longest
/// normalised prefix it shares with any other id, cut from the id as written (`ab-cd` for
/// `ab-cd-e1`); the whole id when that is as long as the id, or when another id equals it
/// normalised (then only the exact id names it). Same order as `ids`.
pub fn shortest_prefixes(ids: &[String]) -> Vec<String> {
    fn common(a: &str, b: &str) -> usize {
        a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
    }
    let norm: Vec<String> = ids.iter().map(|i| normalise_id(i)).collect();
    // The longest prefix an id shares with any other is shared with a neighbour in sorted
    // order.
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| norm[a].cmp(&norm[b]));
    let mut shared = vec![0usize; ids.len()];
    for w in order.windows(2) {
        let c = common(&norm[w[0]], &norm[w[1]]);
        shared[w[0]] = shared[w[0]].max(c);
        shared[w[1]] = shared[w[1]].max(c);
    }
    ids.iter()
        .zip(norm.iter().zip(shared))
        .map(|(id, (n, shared))| {
            let k = (shared + 1).max(MIN_PREFIX);
            if k >= n.chars().count() {
                return id.clone();
            }
            // The id as written up to its k-th character that is not a hyphen.
            let mut seen = 0;
            id.chars()
                .take_while(|&c| {
                    if seen == k {
                        return false;
                    }
                    seen += usize::from(c != '-');
                    true
                })
                .collect()
        })
        .collect()
}
