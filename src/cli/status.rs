//! `genesis status [SESSION]`: show one session, or list them all.

use super::{CliError, Context};

/// Arguments of `genesis status`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id. Default: list every session.
    session: Option<String>,
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

/// Prints the session document (`--json`) or a summary.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let Some(id) = &args.session else {
        let mut rows = Vec::new();
        for id in engine.sessions()? {
            match engine.status(&id) {
                Ok((s, _)) => rows.push(serde_json::json!({
                    "session": id,
                    "status": s.status,
                    "patches": s.patches.len(),
                    "verified": s.verification.as_ref().is_some_and(|v| v.snapshot == s.current_snapshot && v.obligations_ok),
                    "failed": engine.failed_obligations(&id).ok().flatten().unwrap_or_default(),
                    "current_snapshot": s.current_snapshot,
                })),
                Err(e) => rows.push(serde_json::json!({"session": id, "error": e.to_string()})),
            }
        }
        if ctx.json {
            super::print_json(&serde_json::json!({ "sessions": rows }));
        } else if rows.is_empty() {
            crate::outln!("no sessions; `genesis open` starts one");
        } else {
            for r in &rows {
                match r.get("error") {
                    Some(e) => crate::outln!(
                        "{}\tINVALID: {}",
                        r["session"].as_str().unwrap_or(""),
                        e.as_str().unwrap_or("")
                    ),
                    None => crate::outln!(
                        "{}\t{}\t{} patch(es)\t{}",
                        r["session"].as_str().unwrap_or(""),
                        r["status"].as_str().unwrap_or(""),
                        r["patches"],
                        verdict(r)
                    ),
                }
            }
        }
        return Ok(0);
    };
    let (s, state) = engine.status(id)?;
    if ctx.json {
        super::print_json(&serde_json::json!({
            "session": s,
            "logs": state.logs,
            "saved": state.saved.as_ref().map(|w| &w.files),
        }));
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
        let failed = engine.failed_obligations(id)?.unwrap_or_default();
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
