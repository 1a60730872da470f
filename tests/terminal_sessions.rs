//! Driven through a real terminal (`tmux`: send-keys, capture-pane): the bash completion
//! script loads in an interactive bash and completes a subcommand on Tab; `status` on a
//! terminal marks each session's shortest unique prefix in bold (brackets only off a
//! terminal). Skipped where tmux or bash is missing.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of its own (socket `HOME/tmux.sock`), one bash session in `dir`; killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(dir: &Path, home: &Path) -> Tmux {
        // A server per test, its socket in the test's temporary directory (gone with it).
        let socket = home.join("tmux.sock").to_string_lossy().into_owned();
        let bin = Path::new(env!("CARGO_BIN_EXE_genesis")).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let shell = format!(
            "env -i PATH='{path}' HOME='{}' TERM=xterm-256color PS1='$ ' bash --norc --noprofile",
            home.display()
        );
        let st = Command::new("tmux")
            .args([
                "-S",
                &socket,
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                "160",
                "-y",
                "40",
                "-c",
            ])
            .arg(dir)
            .arg(shell)
            .status()
            .unwrap();
        assert!(st.success());
        Tmux { socket }
    }

    fn keys(&self, keys: &[&str]) {
        let st = Command::new("tmux")
            .args(["-S", &self.socket, "send-keys", "-t", "t"])
            .args(keys)
            .status()
            .unwrap();
        assert!(st.success());
    }

    /// The pane's text (`escapes`: with its colours and attributes as SGR sequences).
    fn capture(&self, escapes: bool) -> String {
        let mut c = Command::new("tmux");
        c.args(["-S", &self.socket, "capture-pane", "-p", "-t", "t"]);
        if escapes {
            c.arg("-e");
        }
        String::from_utf8_lossy(&c.output().unwrap().stdout).into_owned()
    }

    /// Waits (up to 10 s) until the pane shows something `done` accepts; returns it.
    fn wait_for(&self, escapes: bool, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.capture(escapes);
            if done(&text) {
                return text;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "pane:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .status();
    }
}

fn have_terminal_tools() -> bool {
    // tmux has no --version: -V.
    let tmux = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    tmux && common::have("bash")
}

#[test]
fn completions_load_in_bash_and_complete_on_tab() {
    if !have_terminal_tools() {
        eprintln!("skipped: no tmux or bash");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let t = Tmux::start(d.path(), d.path());
    t.keys(&["source <(genesis completions bash); echo loaded", "Enter"]);
    t.wait_for(false, |s| s.contains("\nloaded"));
    t.keys(&["genesis ver", "Tab"]);
    // (capture-pane drops the trailing space completion adds)
    let pane = t.wait_for(false, |s| s.lines().any(|l| l == "$ genesis verify"));
    assert!(pane.contains("loaded"), "{pane}");
    // Options complete too: `--work` → `--workdir` / `--workspace` are offered.
    t.keys(&["C-u", "genesis verify --works", "Tab"]);
    let pane = t.wait_for(false, |s| {
        s.lines().any(|l| l == "$ genesis verify --workspace")
    });
    assert!(pane.contains("--workspace"), "{pane}");
}

#[test]
fn status_on_a_terminal_bolds_the_short_prefix() {
    if !have_terminal_tools() {
        eprintln!("skipped: no tmux or bash");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    common::write_tree(
        &ws,
        &[
            (
                "genesis.json",
                br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
            ),
            ("a.txt", b"a\n"),
        ],
    );
    for s in ["abcd1111", "abcd2222"] {
        common::ok(&common::run_in(&ws, &["open", "--session", s]));
    }
    let t = Tmux::start(&ws, d.path());
    t.keys(&["genesis status", "Enter"]);
    let plain = t.wait_for(false, |s| s.contains("abcd2222"));
    // No brackets on a terminal: the whole id, as typed.
    assert!(plain.contains("\nabcd1111 "), "{plain}");
    assert!(!plain.contains("[abcd"), "{plain}");
    // The prefix bold, the rest dimmed (tmux re-encodes the attributes it shows).
    let pane = t.capture(true);
    for (short, rest) in [("abcd1", "111"), ("abcd2", "222")] {
        let at = pane
            .find(&format!("\x1b[1m{short}\x1b["))
            .unwrap_or_else(|| panic!("{short} not bold: {pane:?}"));
        let after = &pane[at + 4 + short.len()..];
        let dim = after.find(";2m").or_else(|| after.find("[2m")).unwrap();
        assert!(
            dim < after.find(rest).unwrap(),
            "{rest} not dimmed: {pane:?}"
        );
    }
}
