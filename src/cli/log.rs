//! `genesis log SESSION [OBLIGATION]`: what the obligations of the last verification printed.

use super::{CliError, Context};

/// Arguments of `genesis log`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The session id, or a unique prefix of it (4 or more characters).
    session: String,
    /// Only this obligation (its id in the manifest).
    obligation: Option<String>,
}

/// `0.01 s` style, two decimals, as `verify` prints durations.
fn seconds(s: Option<f64>) -> String {
    s.map_or_else(|| "duration not kept".to_owned(), |s| format!("{s:.2} s"))
}

/// `argv` as a shell would read it back: words with anything but `A-Za-z0-9_-./=:,+@%`
/// in single quotes (a `'` inside as `'\''`).
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%".contains(&b));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Prints each obligation's verdict, exit status, duration, standard output and standard
/// error (human), or `{"session", "snapshot", "acceptance", "current", "obligations": [{"id",
/// "run", "exit_code", "timed_out", "passed", "seconds", "stdout", "stderr"}]}` (`--json`;
/// output as text, invalid UTF-8 replaced, `null` when not kept). Exit 0 whatever the
/// verdicts; 3 without a verification; 2 for an obligation it did not run.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let engine = super::engine(ctx, false)?;
    let session = super::ids::session(&engine, &args.session)?;
    let log = engine.obligation_log(&session, args.obligation.as_deref())?;
    if ctx.json {
        super::print_json(&genesis::report::log_json(&session, &log));
        return Ok(0);
    }
    let _pager = super::pager::start(ctx);
    crate::outln!(
        "verification of {}{} (acceptance {})",
        log.snapshot,
        if log.current {
            ""
        } else {
            ", stale: not the current snapshot"
        },
        log.acceptance
    );
    if log.obligations.is_empty() {
        crate::outln!("no obligations ran: the manifest has none");
    }
    for o in &log.obligations {
        let status = match (o.timed_out, o.exit_code) {
            (true, _) => "timed out".to_owned(),
            (false, Some(c)) => format!("exit {c}"),
            (false, None) => "killed by a signal".to_owned(),
        };
        crate::outln!(
            "\nobligation {}: {} ({status}, {})",
            o.id,
            if o.passed { "passed" } else { "FAILED" },
            seconds(o.seconds)
        );
        crate::outln!("$ {}", shell_words(&o.run));
        for (name, data) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            match data {
                None => crate::outln!("--- {name}: not kept"),
                Some(d) if d.is_empty() => crate::outln!("--- {name}: empty"),
                Some(d) => {
                    crate::outln!("--- {name}");
                    let mut t = String::from_utf8_lossy(d).into_owned();
                    if !t.ends_with('\n') {
                        t.push_str("\n[no newline at end]\n");
                    }
                    crate::out!("{t}");
                }
            }
        }
    }
    Ok(0)
}
