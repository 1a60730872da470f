//! The one observer of the session operations (DESIGN section 8), and the one place that runs
//! a command with its output decoded and redacted ([`run_obligation`]).
//!
//! The library decides which events an operation emits and in what order and passes each to
//! [`Observer::event`]; a front end renders them ([`super::Emitter`]), a person's terminal
//! prints the obligation callbacks, a library user may do either or neither.

use std::path::Path;

use super::{EventKind, Redactor, Stream};
use crate::manifest::Obligation;
use crate::obligation::{CommandResult, run_command_until};

/// Receives what the session operations do. Every method has a no-op default.
///
/// [`Observer::event`] gets every event, obligation progress included; the three obligation
/// callbacks get the same progress in the form a person's terminal wants (the whole
/// [`CommandResult`] at the end, with its output).
pub trait Observer {
    /// One event of the operation, in order (see DESIGN section 8 for which and when).
    fn event(&mut self, _event: &EventKind) {}
    /// Whether [`Observer::event`] is wanted at all. An operation skips work done only for
    /// events (the base-to-current size of a `Verified` event) when this is false. Default:
    /// true.
    fn wants_events(&self) -> bool {
        true
    }
    /// Obligation `index` (0-based) of `total` is about to start.
    fn obligation_started(&mut self, _id: &str, _run: &[String], _index: usize, _total: usize) {}
    /// A piece of its output as it arrives: whole UTF-8 (a character split across two reads
    /// is held back; invalid bytes, and an incomplete sequence at the very end, are U+FFFD),
    /// every secret replaced by `[REDACTED]`.
    fn obligation_output(&mut self, _id: &str, _stream: Stream, _text: &str) {}
    /// Obligation `index` of `total` ended.
    fn obligation_finished(&mut self, _result: &CommandResult, _index: usize, _total: usize) {}
    /// A flag that, once set, stops the running obligation: its process group is killed and
    /// the operation ends as interrupted, recording nothing
    /// ([`crate::obligation::run_command_until`]). Read once per obligation, before it starts.
    /// Default: none (only an interrupt of the process stops it).
    fn cancel_flag(&self) -> Option<std::sync::Arc<std::sync::atomic::AtomicBool>> {
        None
    }
}

/// An [`Observer`] that ignores everything (and asks for no events).
pub struct NoObserver;

impl Observer for NoObserver {
    fn wants_events(&self) -> bool {
        false
    }
}

/// Two observers as one: each call goes to `.0`, then to `.1`.
pub struct Both<'a>(pub &'a mut dyn Observer, pub &'a mut dyn Observer);

impl Observer for Both<'_> {
    fn event(&mut self, event: &EventKind) {
        self.0.event(event);
        self.1.event(event);
    }
    fn wants_events(&self) -> bool {
        self.0.wants_events() || self.1.wants_events()
    }
    fn obligation_started(&mut self, id: &str, run: &[String], index: usize, total: usize) {
        self.0.obligation_started(id, run, index, total);
        self.1.obligation_started(id, run, index, total);
    }
    fn obligation_output(&mut self, id: &str, stream: Stream, text: &str) {
        self.0.obligation_output(id, stream, text);
        self.1.obligation_output(id, stream, text);
    }
    fn obligation_finished(&mut self, result: &CommandResult, index: usize, total: usize) {
        self.0.obligation_finished(result, index, total);
        self.1.obligation_finished(result, index, total);
    }
    fn cancel_flag(&self) -> Option<std::sync::Arc<std::sync::atomic::AtomicBool>> {
        self.0.cancel_flag().or_else(|| self.1.cancel_flag())
    }
}

/// Appends `data` to `partial` and takes out the longest prefix that is whole UTF-8 (invalid
/// bytes become U+FFFD), keeping a character split across two reads for the next call.
pub(crate) fn utf8_pieces(partial: &mut Vec<u8>, data: &[u8]) -> String {
    partial.extend_from_slice(data);
    let cut = match std::str::from_utf8(partial) {
        Ok(_) => partial.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => partial.len(),
    };
    let text = String::from_utf8_lossy(&partial[..cut]).into_owned();
    partial.drain(..cut);
    text
}

/// Decodes and redacts one command's two output streams as they arrive.
struct Decoder<'r> {
    redactor: &'r Redactor,
    /// Bytes of a character not yet complete, per stream (stdout, stderr).
    partial: [Vec<u8>; 2],
    /// Decoded text that may be the start of a secret, per stream.
    carry: [String; 2],
}

impl Decoder<'_> {
    fn slot(stream: Stream) -> usize {
        usize::from(stream == Stream::Stderr)
    }

    /// The text of `data` that is safe to show now.
    fn push(&mut self, stream: Stream, data: &[u8]) -> String {
        let slot = Self::slot(stream);
        let text = utf8_pieces(&mut self.partial[slot], data);
        self.redactor
            .redact_chunk(&mut self.carry[slot], &text, false)
    }

    /// Everything held back on `stream`: an incomplete sequence at the end becomes U+FFFD.
    fn finish(&mut self, stream: Stream) -> String {
        let slot = Self::slot(stream);
        let tail = String::from_utf8_lossy(&std::mem::take(&mut self.partial[slot])).into_owned();
        self.redactor
            .redact_chunk(&mut self.carry[slot], &tail, true)
    }
}

/// Runs command obligation `ob` (number `index` of `total`) in `dir` with `env` (see
/// [`run_command_until`]), reporting it to `observer`: [`EventKind::ObligationStarted`], its output
/// as [`EventKind::ObligationOutput`] pieces, [`EventKind::ObligationFinished`], each also
/// through the matching obligation callback.
///
/// The output is decoded and redacted here and nowhere else: whole UTF-8 pieces (invalid bytes
/// and an incomplete sequence at the end of a stream become U+FFFD), every secret of
/// `redactor` replaced by `[REDACTED]`, also when split across two reads. The returned
/// result's `stdout`/`stderr` (what the store keeps) are redacted the same way.
pub fn run_obligation(
    ob: &Obligation,
    dir: &Path,
    env: &[(String, String)],
    redactor: &Redactor,
    observer: &mut dyn Observer,
    index: usize,
    total: usize,
) -> CommandResult {
    observer.event(&EventKind::ObligationStarted {
        id: ob.id.clone(),
        run: ob.run.clone(),
        index,
        total,
    });
    observer.obligation_started(&ob.id, &ob.run, index, total);
    let mut decoder = Decoder {
        redactor,
        partial: [Vec::new(), Vec::new()],
        carry: [String::new(), String::new()],
    };
    let output = |observer: &mut dyn Observer, stream: Stream, text: String| {
        if !text.is_empty() {
            observer.event(&EventKind::ObligationOutput {
                id: ob.id.clone(),
                stream,
                data: text.clone(),
            });
            observer.obligation_output(&ob.id, stream, &text);
        }
    };
    let cancel = observer.cancel_flag();
    let mut r = run_command_until(ob, dir, env, cancel.as_deref(), &mut |stream, data| {
        let text = decoder.push(stream, data);
        output(observer, stream, text);
    });
    for stream in Stream::ALL {
        let text = decoder.finish(stream);
        output(observer, stream, text);
    }
    if !redactor.is_empty() {
        r.stdout = redactor
            .redact(&String::from_utf8_lossy(&r.stdout))
            .into_bytes();
        r.stderr = redactor
            .redact(&String::from_utf8_lossy(&r.stderr))
            .into_bytes();
    }
    observer.event(&EventKind::obligation_finished(&r, index, total));
    observer.obligation_finished(&r, index, total);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_pieces_hold_back_a_split_character() {
        let mut partial = Vec::new();
        assert_eq!(utf8_pieces(&mut partial, b"ok\xe2\x82"), "ok");
        assert_eq!(partial, b"\xe2\x82");
        assert_eq!(utf8_pieces(&mut partial, b"\xac!"), "\u{20ac}!");
        assert!(partial.is_empty());
        assert_eq!(utf8_pieces(&mut partial, b"a\xffb"), "a\u{FFFD}b");
    }

    #[test]
    fn an_incomplete_tail_is_flushed_as_replacement() {
        let r = Redactor::none();
        let mut d = Decoder {
            redactor: &r,
            partial: [Vec::new(), Vec::new()],
            carry: [String::new(), String::new()],
        };
        assert_eq!(d.push(Stream::Stdout, b"ok\xe2\x82"), "ok");
        assert_eq!(d.finish(Stream::Stdout), "\u{FFFD}");
        assert_eq!(d.finish(Stream::Stderr), "");
    }
}
