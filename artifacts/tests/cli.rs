//! The `samaritan` command, run as a process.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use samaritan_sim::{Schedule, TokenError};

/// Runs `samaritan` with `args`.
fn samaritan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_samaritan")).args(args).output().expect("the binary runs")
}

/// Runs `samaritan` and returns its exit code, standard output and
/// standard error.
#[track_caller]
fn run(args: &[&str]) -> (i32, String, String) {
    let out = samaritan(args);
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("utf-8 output");
    (out.status.code().expect("an exit code"), text(&out.stdout), text(&out.stderr))
}

/// Returns a fresh scratch directory for `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("samaritan-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

#[test]
fn help_lists_the_commands() {
    for args in [&["--help"][..], &["-h"], &["help"], &[]] {
        let (code, out, err) = run(args);
        assert_eq!((code, err.as_str()), (0, ""));
        assert!(out.starts_with("samaritan: tools for samaritan's schedules\n"), "{out}");
        for command in ["samaritan token <TOKEN>", "samaritan failures [DIR]", "samaritan html <TRACE>"] {
            assert!(out.contains(command), "{command} missing from {out}");
        }
    }
}

#[test]
fn a_token_is_decoded() {
    // The lost-update example's token, as samaritan printed it before
    // fingerprints left source locations out: its fingerprint is not
    // checked.
    let (code, out, err) = run(&["token", "s2_A2ljYgABvEWJtAMAAQIBBAKK9A"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "token:       s2_A2ljYgABvEWJtAMAAQIBBAKK9A\n\
         format:      version 2 (this samaritan writes version 2)\n\
         strategy:    icb\n\
         seed:        none\n\
         fairness:    on\n\
         choices:     4\n\
         \x20            0 1 2 2\n\
         fingerprint: none (a replay checks the choices only)\n"
    );
    let schedule =
        Schedule { strategy: "random".into(), seed: Some(42), choices: vec![1; 70], fingerprint: 0xbeef, fair: false };
    let (code, out, _) = run(&["token", &schedule.to_token()]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().skip(2).collect();
    let shown = format!("             {} ...", vec!["1"; 64].join(" "));
    assert_eq!(
        lines,
        [
            "strategy:    random",
            "seed:        42",
            "fairness:    off",
            "choices:     70",
            &shown,
            "fingerprint: 0000beef"
        ]
    );
}

#[test]
fn a_bad_token_exits_2_with_the_token_error() {
    let cases: [(&str, TokenError); 5] = [
        ("hello", TokenError::MissingPrefix),
        ("s9_AAAA", TokenError::UnsupportedVersion("9".into())),
        ("s2_A2ljYgABwEWJtAMAAQIBBAKK9A", TokenError::Checksum),
        ("s2_A2ljYgABvEWJtAMAAQIBBAKK9", TokenError::InvalidCharacter(27)),
        ("s2_A2l*", TokenError::InvalidCharacter(6)),
    ];
    for (token, error) in cases {
        assert_eq!(Schedule::from_token(token), Err(error.clone()));
        let (code, out, err) = run(&["token", token]);
        assert_eq!((code, out.as_str(), err), (2, "", format!("error: {error}\n")), "token {token}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [&["frobnicate"][..], &["token"], &["token", "a", "b"], &["failures", "a", "b"], &["html"]] {
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.starts_with("error: ") && err.ends_with("run `samaritan --help` for usage\n"), "{err}");
    }
}

#[test]
fn failures_are_listed_per_test() {
    let dir = scratch("failures");
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("counter_is_exact/00aa.token", "s2_AAA\n");
    write("counter_is_exact/00aa.trace", "# samaritan trace v1\n   0  main  spawn  -  src/a.rs:1:1\n");
    write("counter_is_exact/00aa.html", "<html/>");
    write("locks/bb02.token", "s2_BBB");
    write("locks/bb01.token", "s2_CCC");
    write("locks/bb01.trace", "\n   0  t1  lock  Mutex#0  src/b.rs:2:2\n   1  t1  unlock  Mutex#0  src/b.rs:2:2\n");
    write("empty/notes", "nothing here");
    write("persist/a_test/00cc.token", "s2_DDD");
    let (code, out, err) = run(&["failures", dir.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (0, ""));
    let d = dir.display();
    assert_eq!(
        out,
        format!(
            "counter_is_exact\n  00aa\n    token: s2_AAA\n    trace: {d}/counter_is_exact/00aa.trace (1 steps)\n    page:  {d}/counter_is_exact/00aa.html\n\
             empty\n  (no .token files)\n\
             locks\n  bb01\n    token: s2_CCC\n    trace: {d}/locks/bb01.trace (2 steps)\n  bb02\n    token: s2_BBB\n\
             persist/a_test\n  00cc\n    token: s2_DDD\n"
        )
    );
    let empty = scratch("no-failures");
    let (code, out, _) = run(&["failures", empty.to_str().unwrap()]);
    assert_eq!((code, out), (0, format!("no failures persisted under {}\n", empty.display())));
    let missing = dir.join("missing");
    let (code, _, err) = run(&["failures", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with(&format!("error: cannot read {}: no such file", missing.display())), "{err}");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(empty);
}

#[test]
fn a_trace_file_renders_as_a_timeline() {
    let dir = scratch("html");
    let trace = dir.join("trace.txt");
    std::fs::write(&trace, common::lost_update().to_file()).unwrap();
    let out = dir.join("out.html");
    let (code, stdout, err) = run(&["html", trace.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str(), err), (0, "", format!("wrote {}\n", out.display())));
    let page = common::parse(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(common::lanes(&page), ["main", "t1", "t2"]);
    assert_eq!(common::edges(&page), [(2, 3), (4, 5), (5, 8)]);
    assert_eq!(common::marked(&page, "preempt"), [3]);
    // Without -o the page goes to standard output.
    let (code, stdout, _) = run(&["html", trace.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(common::steps(&common::parse(&stdout)).len(), 9);

    std::fs::write(&trace, "   0  main  frobnicate  -  src/a.rs:1:1\n").unwrap();
    let (code, stdout, err) = run(&["html", trace.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(err.starts_with(&format!("error: {}: trace line 1: ", trace.display())), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
