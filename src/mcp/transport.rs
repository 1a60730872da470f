//! The standard input and output transport of `genesis mcp`: newline-delimited JSON-RPC 2.0
//! messages (MCP's stdio transport), read and written here rather than by rmcp's own
//! `AsyncRwTransport`, so that every frame that is not a message the server can act on gets
//! the answer JSON-RPC 2.0 (section 5.1) prescribes:
//!
//! | frame | answer |
//! |---|---|
//! | not JSON | `-32700` Parse error, `id: null` |
//! | a batch (array), or not an object | `-32600` Invalid Request, `id: null` |
//! | a member name twice in one object ([`crate::json::check_no_duplicate_keys`]) | inside `params`: `-32602` Invalid params; elsewhere `-32600`; with the frame's `id` |
//! | a request whose `jsonrpc` is not `"2.0"`, whose `id` is not a string or integer, or whose `method` is missing or not a string | `-32600`, with the `id` when it is one |
//! | a request rmcp cannot read (its params do not fit the method) | `-32602`, with its `id` |
//! | longer than [`MAX_MESSAGE_BYTES`] | `-32600`, with the `id` when the line's first 4096 bytes hold the top-level `id` ([`id_in_prefix`]), else `id: null` (the rest of the line is not kept) |
//! | a request whose integer `id` lies past `i64` (rmcp's id type) | `-32600`, with that `id` |
//! | a request whose `method` is longer than 256 bytes (no MCP method is) | `-32601`, naming it cut |
//!
//! A notification (no `id`) or a response that cannot be read is dropped without an answer, as
//! JSON-RPC says a notification is never answered. Messages are written whole, one per line,
//! under one lock, so answers from concurrent calls never interleave.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The longest JSON-RPC message (one line) the server reads: 64 MiB, the engine's default
/// `max_patch_bytes`, plus room for the envelope, so that a diff up to that limit reaches the
/// engine and a larger one is refused by it with a tool error. A longer line is answered with
/// `-32600` and `id: null`.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024 + 64 * 1024;

/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;

/// The longest method name any MCP method has is far below this; a longer one is unknown, and
/// the answer names it cut to this many bytes.
const MAX_METHOD_BYTES: usize = 256;

/// The first bytes of an oversized line kept to find its `id` in.
const ID_PREFIX_BYTES: usize = 4096;

/// The MCP request methods (protocol 2025-11-25 and rmcp 3.11's draft additions): a request of
/// one of them that rmcp cannot read has params that do not fit.
const STANDARD_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// What to do with one line read.
#[derive(Debug)]
pub enum Frame {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing (an empty line, or a notification or response that cannot be read).
    Skip,
    /// An error response to write back: `{"jsonrpc": "2.0", "id", "error": {"code", "message"}}`.
    Answer(Value),
}

/// The error response with `id` (`Value::Null` when it cannot be read), `code` and `message`.
pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Classifies one line (without its newline) by the table in the module documentation.
pub fn classify(line: &[u8]) -> Frame {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Frame::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Frame::Answer(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {e}"),
            ));
        }
    };
    let Value::Object(o) = &value else {
        let what = if value.is_array() {
            "batches are not supported; send one message per line"
        } else {
            "a message is a JSON object"
        };
        return Frame::Answer(error_response(
            Value::Null,
            INVALID_REQUEST,
            &format!("Invalid Request: {what}"),
        ));
    };
    // A notification (no `id`) or a response (`result` or `error`) is never answered.
    let request = o.contains_key("id") && !o.contains_key("result") && !o.contains_key("error");
    let id = match o.get("id") {
        Some(i @ Value::String(_)) => i.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    };
    // rmcp carries an integer id as an i64: a larger one (up to u64's maximum) is refused
    // with the id itself, never read as something else.
    if request && o.get("id").is_some_and(|i| i.is_u64() && !i.is_i64()) {
        return Frame::Answer(error_response(
            id,
            INVALID_REQUEST,
            "Invalid Request: an integer `id` must lie within -9223372036854775808..=9223372036854775807 (a 64-bit signed integer); use a string id for anything else",
        ));
    }
    // An unknown method is named in the answer, cut to 256 bytes.
    if let Some(Value::String(m)) = o.get("method")
        && request
        && m.len() > MAX_METHOD_BYTES
    {
        return Frame::Answer(error_response(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {}", capped_to(m, MAX_METHOD_BYTES)),
        ));
    }
    if let Err(crate::json::JsonError::Duplicate(d)) = crate::json::check_no_duplicate_keys(line) {
        if !request {
            return Frame::Skip;
        }
        let pointer = d.to_string();
        let (id, code) = if d.pointer == "/id" {
            (Value::Null, INVALID_REQUEST)
        } else if d.pointer.starts_with("/params/") {
            (id, INVALID_PARAMS)
        } else {
            (id, INVALID_REQUEST)
        };
        let kind = if code == INVALID_PARAMS {
            "Invalid params"
        } else {
            "Invalid Request"
        };
        return Frame::Answer(error_response(id, code, &format!("{kind}: {pointer}")));
    }
    if request
        && (o.get("jsonrpc") != Some(&json!("2.0"))
            || id.is_null()
            || !o.get("method").is_some_and(Value::is_string))
    {
        return Frame::Answer(error_response(
            id,
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\", `id` a string or an integer, and `method` a string",
        ));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        // rmcp reads a request of a method it knows but whose params do not fit as a custom
        // request, which it would answer "method not found".
        Ok(JsonRpcMessage::Request(r)) if matches!(&r.request, ClientRequest::CustomRequest(c) if STANDARD_METHODS.contains(&c.method.as_str())) => {
            Frame::Answer(error_response(
                id,
                INVALID_PARAMS,
                &format!(
                    "Invalid params: the params do not fit method {:?}",
                    r.request.method()
                ),
            ))
        }
        Ok(m) => Frame::Message(Box::new(m)),
        Err(_) if !request => Frame::Skip,
        Err(e) => Frame::Answer(error_response(
            id,
            INVALID_PARAMS,
            &capped(&format!("Invalid params: {e}")),
        )),
    }
}

fn capped(s: &str) -> String {
    capped_to(s, crate::mcp::server::MAX_ERROR_MESSAGE_BYTES)
}

/// `s` within `max` bytes, the marker `… (N more bytes)` counted in (issue 13, review 2 E).
pub fn capped_to(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    // The marker's length depends on N, which depends on the cut: at most 30 bytes.
    let mut cut = max.saturating_sub(30);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} more bytes)", &s[..cut], s.len() - cut)
}

/// The `id` of an oversized line, found in its first bytes (`prefix`): the value of the member
/// `id` of the top-level object when it is a string or an integer and lies whole in the prefix;
/// `null` otherwise. A scan of at most 4096 bytes (`ID_PREFIX_BYTES`), no parse of the line.
pub fn id_in_prefix(prefix: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut i = 0;
    while i < prefix.len() {
        match prefix[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < prefix.len() && prefix[j] != b'"' {
                    j += if prefix[j] == b'\\' { 2 } else { 1 };
                }
                if j >= prefix.len() {
                    return Value::Null;
                }
                let key = &prefix[start..j];
                i = j + 1;
                let rest = &prefix[i..];
                let after = rest.iter().position(|b| !b.is_ascii_whitespace());
                if depth == 1 && key == b"id" && after.is_some_and(|k| rest[k] == b':') {
                    let value = &rest[after.unwrap_or(0) + 1..];
                    let mut it = serde_json::Deserializer::from_slice(value).into_iter::<Value>();
                    return match it.next() {
                        Some(Ok(v @ Value::String(_))) => v,
                        Some(Ok(Value::Number(n))) if n.is_i64() => Value::Number(n),
                        _ => Value::Null,
                    };
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

/// How a line read ended.
enum Read {
    Line,
    Oversized,
    End,
}

/// The server's transport over `read` (standard input) and `write` (standard output).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    oversized: bool,
    /// The first bytes of the oversized line being skipped, to find its `id` in.
    prefix: Vec<u8>,
    max: usize,
    write: Arc<tokio::sync::Mutex<W>>,
    on_end: Option<Box<dyn Fn() + Send + Sync>>,
}

impl<R: AsyncRead + Unpin + Send, W: AsyncWrite + Unpin + Send + 'static> LineTransport<R, W> {
    /// Reads `read`, writes `write`; lines up to [`MAX_MESSAGE_BYTES`].
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            oversized: false,
            prefix: Vec::new(),
            max: MAX_MESSAGE_BYTES,
            write: Arc::new(tokio::sync::Mutex::new(write)),
            on_end: None,
        }
    }

    /// Calls `f` as soon as `read` ends (the client closed standard input), before rmcp
    /// learns of it.
    pub fn on_end(mut self, f: Box<dyn Fn() + Send + Sync>) -> Self {
        self.on_end = Some(f);
        self
    }

    /// The next line into `self.line` (without its newline); a line over the limit is read to
    /// its end and dropped. Cancel-safe (rmcp drops a pending `receive` when it has something
    /// else to do): a partly read line stays in `self.line` for the next call.
    async fn read_line(&mut self) -> Read {
        loop {
            let (take, done) = {
                let buf = match self.read.fill_buf().await {
                    Ok(b) => b,
                    Err(_) => return Read::End,
                };
                if buf.is_empty() {
                    let partial = !self.line.is_empty();
                    return if std::mem::take(&mut self.oversized) {
                        Read::Oversized
                    } else if partial {
                        Read::Line
                    } else {
                        Read::End
                    };
                }
                let nl = buf.iter().position(|&b| b == b'\n');
                let take = nl.map_or(buf.len(), |i| i + 1);
                let piece = &buf[..nl.unwrap_or(buf.len())];
                if !self.oversized && self.line.len() + piece.len() > self.max {
                    self.oversized = true;
                    let mut head = std::mem::take(&mut self.line);
                    head.extend_from_slice(&piece[..piece.len().min(ID_PREFIX_BYTES)]);
                    head.truncate(ID_PREFIX_BYTES);
                    self.prefix = head;
                }
                if !self.oversized {
                    self.line.extend_from_slice(piece);
                }
                (take, nl.is_some())
            };
            self.read.consume(take);
            if done {
                return if std::mem::take(&mut self.oversized) {
                    Read::Oversized
                } else {
                    Read::Line
                };
            }
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin, T: serde::Serialize>(
    w: &tokio::sync::Mutex<W>,
    item: &T,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(item).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut w = w.lock().await;
    w.write_all(&bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let w = self.write.clone();
        async move { write_line(&w, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let frame = match self.read_line().await {
                Read::End => {
                    if let Some(f) = &self.on_end {
                        f();
                    }
                    return None;
                }
                Read::Oversized => Frame::Answer(error_response(
                    id_in_prefix(&std::mem::take(&mut self.prefix)),
                    INVALID_REQUEST,
                    &format!(
                        "Invalid Request: a message longer than {} bytes is not read",
                        self.max
                    ),
                )),
                Read::Line => {
                    let f = classify(&self.line);
                    self.line.clear();
                    f
                }
            };
            match frame {
                Frame::Message(m) => return Some(*m),
                Frame::Skip => {}
                Frame::Answer(v) => {
                    // Written by a task of its own: a dropped `receive` must not lose it or
                    // leave half a line.
                    let w = self.write.clone();
                    tokio::spawn(async move { write_line(&w, &v).await });
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Frame::Answer(v) => v,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn malformed_frames_are_answered_with_their_id() {
        let a = answer("{not json");
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
        let a = answer(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Value::Null, json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":5}}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!("x"), json!(-32602))
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":9}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(9), json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":10,"method":4}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(10), json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Value::Null, json!(-32600))
        );
    }

    #[test]
    fn duplicate_keys_are_refused() {
        let a = answer(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{"session":"a","session":"b"}}}"#,
        );
        assert_eq!(a["id"], 3);
        assert_eq!(a["error"]["code"], -32602);
        assert_eq!(
            a["error"]["message"],
            r#"Invalid params: duplicate key "session" at /params/arguments/session"#
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":4,"method":"ping","method":"tools/list"}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(4), json!(-32600))
        );
        // A notification is never answered.
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized","x":1,"x":2}"#),
            Frame::Skip
        ));
    }

    #[test]
    fn protocol_edges() {
        let a = answer(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#);
        assert_eq!(a["id"], json!(18446744073709551615u64));
        assert_eq!(a["error"]["code"], -32600);
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#),
            Frame::Message(_)
        ));
        let long = "m".repeat(1 << 20);
        let a = answer(&format!(r#"{{"jsonrpc":"2.0","id":5,"method":"{long}"}}"#));
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(5), json!(-32601))
        );
        let m = a["error"]["message"].as_str().unwrap();
        assert_eq!(
            m,
            format!(
                "Method not found: {}… ({} more bytes)",
                &long[..226],
                (1 << 20) - 226
            )
        );
        for (prefix, id) in [
            (
                r#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"#,
                json!(77),
            ),
            (
                r#"{"params":{"id":1,"x":"a"id":3"},"id" : "s9","#,
                json!("s9"),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"tools/call","params":{"id":4,"#,
                Value::Null,
            ),
            (r#"{"jsonrpc":"2.0","id":{"a":1},"#, Value::Null),
        ] {
            assert_eq!(id_in_prefix(prefix.as_bytes()), id, "{prefix}");
        }
        let s = "é".repeat(5000);
        let c = capped_to(&s, 4096);
        assert!(c.len() <= 4096 && c.len() > 4060, "{}", c.len());
        let kept = c.rfind('…').unwrap();
        assert_eq!(&c[kept..], format!("… ({} more bytes)", 10_000 - kept));
    }

    #[test]
    fn good_frames_pass() {
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Frame::Message(_)
        ));
        assert!(matches!(classify(b"  \r"), Frame::Skip));
    }
}
