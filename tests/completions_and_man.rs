//! `genesis completions SHELL` and `genesis man [--dir DIR]` come from the parser's own clap
//! definitions: the bash script completes every subcommand and loads in bash; every shell
//! clap_complete knows gets a script; the manual pages are roff that `man -l` renders.

mod common;

use common::{code, ok, run_in, stderr, stdout};

/// The subcommands `genesis --help` lists (the "Commands:" section, `help` left out).
fn subcommands() -> Vec<String> {
    let d = tempfile::tempdir().unwrap();
    let help = ok(&run_in(d.path(), &["--help"]));
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section");
    let names: Vec<String> = section
        .lines()
        .take_while(|l| l.starts_with("  "))
        // Continuation lines of a wrapped description are indented further.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_owned)
        .collect();
    names
}

#[test]
fn the_bash_script_completes_every_subcommand() {
    let names = subcommands();
    assert_eq!(names.len(), 23, "{names:?}");
    let d = tempfile::tempdir().unwrap();
    let script = ok(&run_in(d.path(), &["completions", "bash"]));
    assert!(script.starts_with("_genesis() {\n"), "{}", &script[..80]);
    // The top level's word list names each subcommand.
    let top = script
        .lines()
        .find(|l| l.trim_start().starts_with("opts=\"") && l.contains(" init "))
        .expect("the top-level opts line");
    for n in &names {
        assert!(
            top.split(['"', ' ']).any(|w| w == n),
            "{n} missing from {top}"
        );
        assert!(script.contains(&format!("genesis,{n})")), "no case for {n}");
    }
    // It loads in bash, and completing `genesis ver` offers `verify`.
    if common::have("bash") {
        let path = d.path().join("genesis.bash");
        std::fs::write(&path, &script).unwrap();
        let out = std::process::Command::new("bash")
            .arg("--norc")
            .arg("-c")
            .arg(format!(
                "source {}; complete -p genesis; COMP_WORDS=(genesis ver); COMP_CWORD=1; _genesis genesis ver genesis; echo \"${{COMPREPLY[@]}}\"",
                path.display()
            ))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text,
            "complete -o bashdefault -o default -o nosort -F _genesis genesis\nverify\n",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_shell_gets_a_script_and_an_unknown_one_is_refused() {
    let d = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("zsh", "#compdef genesis"),
        ("fish", "complete -c genesis"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[genesis]"),
    ] {
        let s = ok(&run_in(d.path(), &["completions", shell]));
        assert!(s.contains(marker), "{shell}: {}", &s[..s.len().min(200)]);
        assert!(s.contains("verify"), "{shell}");
    }
    let o = run_in(d.path(), &["completions", "tcsh"]);
    assert_eq!(code(&o), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'tcsh'"),
        "{}",
        stderr(&o)
    );
    // Nothing was looked for or made: no store is needed.
    assert!(!d.path().join(".genesis").exists());
}

#[test]
fn the_manual_pages_render() {
    let d = tempfile::tempdir().unwrap();
    let page = ok(&run_in(d.path(), &["man"]));
    assert!(
        page.contains(".TH genesis 1  \"genesis 0.1.0\""),
        "{}",
        &page[..page.len().min(300)]
    );
    assert!(page.contains(".SH SYNOPSIS"));
    // The SYNOPSIS names each option's value, as --help does.
    assert!(
        page.contains("\\fBgenesis\\fR [\\-C <DIR>] [\\-\\-workspace <DIR>] [\\-\\-store <DIR>] [\\-\\-json] [\\-\\-no\\-pager] [\\-q|\\-\\-quiet] [\\-v|\\-\\-verbose] [\\-\\-wait <SECONDS>] [\\-h|\\-\\-help] [\\-V|\\-\\-version] <COMMAND>\n"),
        "{page}"
    );
    let dir = d.path().join("man1");
    let o = run_in(d.path(), &["man", "--dir", "man1"]);
    let listed: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    let mut want = vec!["man1/genesis.1".to_owned()];
    want.extend(subcommands().iter().map(|n| format!("man1/genesis-{n}.1")));
    assert_eq!(listed, want, "{}", stderr(&o));
    for f in &want {
        let text = std::fs::read_to_string(d.path().join(f)).unwrap();
        assert!(text.contains(".TH genesis"), "{f}");
        // Issue 12 reviewer: examples and exit codes in their own sections, no-fill.
        assert!(!text.contains(".SH EXTRA"), "{f}");
    }
    let rebase = std::fs::read_to_string(dir.join("genesis-rebase.1")).unwrap();
    assert!(
        rebase.ends_with(
            ".SH \"EXIT STATUS\"\n.nf\n0 rebased (verify again before apply); 2 no such session; 3 paths conflict\n(nothing recorded), the session is in\\-place or not open, or the store is locked; 4 I/O error.\n.fi\n.SH \"EXAMPLES\"\n.nf\ngenesis rebase 01a2e              move the session onto the workspace as it is now\ngenesis rebase 01a2e \\-\\-markers    record overlapping edits with conflict markers\ngenesis rebase 01a2e \\-\\-json | jq '.conflicts[].path'\n.fi\n"
        ),
        "{rebase}"
    );
    if common::have("man") {
        let out = std::process::Command::new("man")
            .arg("-l")
            .arg(dir.join("genesis-verify.1"))
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0));
        assert!(text.contains("NAME"), "{text}");
        assert!(text.contains("genesis-verify"), "{text}");
        assert!(text.contains("Run the manifest's obligations"), "{text}");
        assert!(text.contains("SYNOPSIS"), "{text}");
        assert!(text.contains("EXIT STATUS"), "{text}");
        assert!(!text.contains("EXTRA"), "{text}");
    }
    let patch = std::fs::read_to_string(dir.join("genesis-patch.1")).unwrap();
    assert!(
        patch.contains("\\fBgenesis patch\\fR [\\-\\-from <DIR>] [\\-\\-verify] [\\-\\-workdir <DIR>] [\\-\\-events <PATH>] [\\-\\-events\\-format <DIALECT>] [\\-\\-worker\\-id <ID>] [\\-C <DIR>]"),
        "{patch}"
    );
    assert!(
        patch.contains("[\\-h|\\-\\-help] <SESSION> [DIFF]\n"),
        "{patch}"
    );
}
