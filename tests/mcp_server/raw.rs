//! `genesis mcp` driven frame by frame over its standard input and output, for what a
//! well-behaved client never sends (malformed frames, duplicate keys) and for signals.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// A `genesis mcp` process and the lines it writes.
pub struct Raw {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Raw {
    /// `genesis mcp --workspace ROOT` with `env` added, initialised.
    pub fn start(root: &Path, env: &[(&str, &str)]) -> Raw {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_genesis"));
        cmd.arg("mcp")
            .arg("--workspace")
            .arg(root)
            .env_remove("GENESIS_STORE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn genesis mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut raw = Raw {
            child,
            stdin,
            lines,
        };
        raw.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
            .to_string(),
        );
        let init = raw.recv();
        assert_eq!(init["id"], 0, "{init}");
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    /// Writes `line` and a newline.
    pub fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    /// The next message the server writes (60 s at most).
    pub fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("an answer in 20 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next message that is a response (not a notification).
    pub fn response(&self) -> Value {
        loop {
            let m = self.recv();
            if m.get("id").is_some() {
                return m;
            }
        }
    }

    /// Whether the server wrote nothing more within `wait`.
    pub fn silent_for(&self, wait: Duration) -> bool {
        matches!(
            self.lines.recv_timeout(wait),
            Err(RecvTimeoutError::Timeout)
        )
    }

    /// Calls tool `name` with `arguments` as request `id`: the response.
    pub fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}})
            .to_string(),
        );
        self.response()
    }

    /// Waits for the process to end (60 s at most): its exit status.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        for _ in 0..6000 {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!("genesis mcp did not exit in 60 s");
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
