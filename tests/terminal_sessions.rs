//! Driven through a real terminal (`tmux`: send-keys, capture-pane): the bash completion
//! script loads in an interactive bash and completes a subcommand on Tab; `status` on a
//! terminal marks each session's shortest unique prefix in bold (brackets only off a
//! terminal); `patch SESSION` with a terminal on standard input says it is waiting for a diff,
//! and records the one pasted and ended with Ctrl-D. Skipped where tmux or bash is missing.

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

    /// The pane's text with wrapped lines joined (`capture-pane -J`).
    fn capture_joined(&self) -> String {
        let o = Command::new("tmux")
            .args(["-S", &self.socket, "capture-pane", "-p", "-J", "-t", "t"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Pastes `text` into the pane as a terminal paste does (`set-buffer`, `paste-buffer`).
    fn paste(&self, text: &str) {
        for args in [
            &["set-buffer", "--", text][..],
            &["paste-buffer", "-t", "t"][..],
        ] {
            let st = Command::new("tmux")
                .args(["-S", &self.socket])
                .args(args)
                .status()
                .unwrap();
            assert!(st.success());
        }
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

/// `genesis patch SESSION` reading a terminal says, before it waits, that it is waiting for a
/// diff on standard input and how to end it; a diff pasted and ended with Ctrl-D is recorded,
/// exactly as the same diff from a file is.
#[test]
fn patch_on_a_terminal_says_it_waits_and_records_the_pasted_diff() {
    if !have_terminal_tools() {
        eprintln!("skipped: no tmux or bash");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    let files: &[(&str, &[u8])] = &[
        (
            "genesis.json",
            br#"{"schema":"genesis/manifest-v0.1","obligations":[]}"#,
        ),
        ("a.txt", b"one\ntwo\n"),
    ];
    common::write_tree(&ws, files);
    common::ok(&common::run_in(&ws, &["open", "--session", "tty1"]));
    // The tree the diff should produce, hashed apart.
    let expected = d.path().join("expected");
    common::write_tree(&expected, files);
    std::fs::write(expected.join("a.txt"), b"one\nTWO\n").unwrap();
    let expected = common::identity(&expected);

    let t = Tmux::start(&ws, d.path());
    t.keys(&["genesis patch tty1; echo exit=$?", "Enter"]);
    let waiting = "genesis: waiting for a diff on standard input (paste or type it, then press Ctrl-D at the start of a line; Ctrl-C cancels). To record a file: genesis patch tty1 FILE";
    let pane = t.wait_for(false, |s| s.contains("genesis: waiting"));
    assert!(t.capture_joined().contains(waiting), "{pane}");
    assert!(
        !pane.lines().any(|l| l.starts_with("exit=")),
        "it must wait: {pane}"
    );
    t.paste("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n");
    t.keys(&["C-d"]);
    let pane = t.wait_for(false, |s| s.lines().any(|l| l.starts_with("exit=")));
    assert!(pane.contains("\nexit=0"), "{pane}");
    assert!(
        pane.contains("\nM\ta.txt") || pane.contains("\nM       a.txt"),
        "{pane}"
    );
    assert_eq!(
        common::session_doc(&ws, "tty1")["current_snapshot"],
        expected.as_str()
    );
    // Off a terminal (a pipe) nothing is said: the diff is simply read.
    let o = common::patch_stdin(&ws, "tty1", b"");
    assert!(
        !common::stderr(&o).contains("waiting"),
        "{}",
        common::stderr(&o)
    );
}
