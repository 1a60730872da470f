//! `genesis status [SESSION]`: show one session, or list them all.

use super::{CliError, Context};

/// Arguments of `genesis status`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters). Default: list every
    /// session.
    session: Option<String>,
}

/// `id` with its shortest unique prefix `short` marked: bold (the rest dimmed) when `bold`
/// (colour on a terminal), else in brackets (`[00e4]7279-…`); unmarked when the prefix is the
/// whole id.
fn marked(id: &str, short: &str, bold: bool) -> String {
    let rest = id.strip_prefix(short).unwrap_or("");
    if rest.is_empty() {
        id.to_owned()
    } else if bold {
        format!("\x1b[1m{short}\x1b[0m\x1b[2m{rest}\x1b[0m")
    } else {
        format!("[{short}]{rest}")
    }
}

/// A list row's verification: `verified`, `verification failed: ID, …` (the static rules
/// and obligations that did not pass on the current snapshot), or `not verified`.
fn verdict(row: &serde_json::Value) -> String {
    let failed: Vec<&str> = row["failed"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    if row["verified"] == true {
        "verified".to_owned()
    } else if !failed.is_empty() {
        format!("verification failed: {}", failed.join(", "))
    } else {
        "not verified".to_owned()
    }
}

/// Lists every session (`--json`: `{"sessions": [...]}`).
fn list(ctx: &Context, engine: &genesis::engine::Engine) -> Result<u8, CliError> {
    let list = genesis::report::status_list_json(engine)?;
    let rows = list["sessions"].as_array().cloned().unwrap_or_default();
    if ctx.json {
        super::print_json(&list);
    } else if rows.is_empty() {
        crate::outln!("no sessions; `genesis open` starts one");
    } else {
        let bold = super::colour_stdout();
        for r in &rows {
            let shown = marked(
                r["session"].as_str().unwrap_or(""),
                r["short_id"].as_str().unwrap_or(""),
                bold,
            );
            match r.get("error").filter(|e| !e.is_null()) {
                Some(e) => crate::outln!("{}\tINVALID: {}", shown, e.as_str().unwrap_or("")),
                None => crate::outln!(
                    "{}\t{}\t{} patch(es)\t{}",
                    shown,
                    r["status"].as_str().unwrap_or(""),
                    r["patches"],
                    verdict(r)
                ),
            }
        }
    }
    Ok(0)
}

/// Prints the session document (`--json`) or a summary.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let Some(id) = &args.session else {
        return list(ctx, &engine);
    };
    let id = super::ids::session(&engine, id)?;
    let (s, state) = engine.status(&id)?;
    if ctx.json {
        super::print_json(&genesis::report::status_json(&s, &state));
    } else {
        crate::outln!("session {}: {}", s.session, s.status);
        crate::outln!("manifest: {}", s.package_manifest);
        crate::outln!("base:     {}", s.base_snapshot);
        crate::outln!("current:  {}", s.current_snapshot);
        for (i, p) in s.patches.iter().enumerate() {
            crate::outln!(
                "patch {}: {} → {} {}",
                i + 1,
                &p.before_snapshot.to_string()[..12],
                &p.after_snapshot.to_string()[..12],
                if p.obligations_ok {
                    ""
                } else {
                    "(static obligations fail)"
                }
            );
        }
        let failed = engine.failed_obligations(&id)?.unwrap_or_default();
        match &s.verification {
            None => crate::outln!("verification: none"),
            Some(v) if !failed.is_empty() => crate::outln!(
                "verification failed: {} (snapshot {}, acceptance {}); `genesis log {}` shows the output",
                failed.join(", "),
                v.snapshot,
                v.acceptance,
                s.session
            ),
            Some(v) => crate::outln!(
                "verification: {} of {}{} (acceptance {})",
                if v.obligations_ok { "passed" } else { "FAILED" },
                v.snapshot,
                if v.snapshot == s.current_snapshot {
                    ""
                } else {
                    ", stale: not the current snapshot"
                },
                v.acceptance
            ),
        }
        if let Some(r) = &state.reused_acceptance {
            crate::outln!(
                "acceptance {} was reused from {}: no obligation ran here",
                r.acceptance,
                r.source
            );
        }
        if !state.conflict_markers.is_empty() {
            let paths: Vec<String> = state.conflict_markers.iter().map(super::shown).collect();
            crate::outln!(
                "conflict markers in: {} (apply refuses until a patch changes them)",
                paths.join(", ")
            );
        }
        if let Some(w) = state.saved.as_ref().filter(|w| !w.files.is_empty()) {
            crate::outln!(
                "saved by abort: {} file(s) no patch recorded; `genesis restore {}` brings them back",
                w.files.len(),
                s.session
            );
            for f in &w.files {
                crate::outln!("  {} ({} bytes)", super::shown(&f.path), f.bytes);
            }
        }
        for l in &state.logs {
            crate::outln!(
                "  obligation {}: {} ({:.2} s) stdout {} stderr {}",
                l.id,
                match (l.timed_out, l.exit_code) {
                    (true, _) => "timed out".to_owned(),
                    (false, Some(c)) => format!("exit {c}"),
                    (false, None) => "killed".to_owned(),
                },
                l.seconds,
                l.stdout,
                l.stderr
            );
        }
    }
    Ok(0)
}
