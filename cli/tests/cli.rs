//! The `samaritan` command, run as a process.

use std::path::PathBuf;
use std::process::{Command, Output};

use samaritan_sim::{Op, Schedule, TokenError, Trace, TraceLine};

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
        for command in [
            "samaritan token <TOKEN>",
            "samaritan failures [DIR]",
            "samaritan diff <A> <B>",
            "samaritan replay <TOKEN|FILE>",
            "samaritan merge <REPORT>...",
            "samaritan html <TRACE>",
            "samaritan --version",
        ] {
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
         memory:      sc\n\
         choices:     4\n\
         \x20            0 1 2 2\n\
         fingerprint: none (a replay checks the choices only)\n"
    );
    let schedule = Schedule {
        strategy: "random".into(),
        seed: Some(42),
        choices: vec![1; 70],
        fingerprint: 0xbeef,
        fair: false,
        memory_model: samaritan_sim::MemoryModel::Weak,
    };
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
            "memory:      weak (C11)",
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
    let cases = [
        &["frobnicate"][..],
        &["token"],
        &["token", "a", "b"],
        &["failures", "a", "b"],
        &["html"],
        &["diff", "a"],
        &["replay"],
        &["token", "-o", "x", "s2_A"],
        &["--frobnicate"],
    ];
    for args in cases {
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
    std::fs::write(&trace, lost_update().to_file()).unwrap();
    let out = dir.join("out.html");
    let (code, stdout, err) = run(&["html", trace.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str(), err), (0, "", format!("wrote {}\n", out.display())));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("samaritan trace: "), "{page}");
    // Without -o the same page goes to standard output.
    let (code, stdout, _) = run(&["html", trace.to_str().unwrap()]);
    assert_eq!((code, stdout), (0, page));

    std::fs::write(&trace, "   0  main  frobnicate  -  src/a.rs:1:1\n").unwrap();
    let (code, stdout, err) = run(&["html", trace.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(err.starts_with(&format!("error: {}: trace line 1: ", trace.display())), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Builds a trace line: step `index` by `actor`.
fn line(index: usize, actor: &str, op: Op, object: Option<&str>, preempt: bool) -> TraceLine {
    let location = format!("src/model.rs:{}:9", 10 + index);
    TraceLine {
        index,
        actor: actor.to_string(),
        op,
        object: object.map(str::to_string),
        location,
        value: None,
        preempt,
        read: None,
        note: None,
    }
}

/// The lost-update trace samaritan reports for `examples/lost_update.rs`.
fn lost_update() -> Trace {
    let a = Some("Atomic#1");
    Trace {
        lines: vec![
            line(0, "main", Op::Spawn, None, false),
            line(1, "main", Op::Spawn, None, false),
            line(2, "t1", Op::Load, a, false),
            line(3, "t2", Op::Load, a, true),
            line(4, "t2", Op::Store, a, false),
            line(5, "t1", Op::Store, a, false),
            line(6, "main", Op::Join, Some("Thread#0"), false),
            line(7, "main", Op::Join, Some("Thread#2"), false),
            line(8, "main", Op::Load, a, false),
        ],
    }
}

#[test]
fn the_version_is_printed() {
    for flag in ["--version", "-V"] {
        assert_eq!(run(&[flag]), (0, format!("samaritan {}\n", env!("CARGO_PKG_VERSION")), String::new()));
    }
}

#[test]
fn diff_names_the_first_step_where_two_traces_differ() {
    let dir = scratch("diff");
    let a = dir.join("a.trace");
    std::fs::write(&a, lost_update().to_file()).unwrap();
    // The same steps at other lines: no difference.
    let mut moved = lost_update();
    moved.lines.iter_mut().for_each(|l| l.location = l.location.replace(":9", ":13"));
    let b = dir.join("b.trace");
    std::fs::write(&b, moved.to_file()).unwrap();
    assert_eq!(
        run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]),
        (0, "the traces do the same 9 steps\n".into(), String::new())
    );
    // t1 stores before t2 loads: they differ at step 3. A persisted
    // failure's token file stands for the trace beside it.
    let mut other = lost_update();
    other.lines[3] = line(3, "t1", Op::Store, Some("Atomic#1"), false);
    other.lines.truncate(4);
    std::fs::write(dir.join("c.trace"), other.to_file()).unwrap();
    std::fs::write(dir.join("c.token"), "s2_unused\n").unwrap();
    let c = dir.join("c.token");
    let (code, out, err) = run(&["diff", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (1, ""));
    assert_eq!(
        out,
        format!(
            "first step that differs: 3\n\
             \x20 both:    1  main  spawn             -         src/model.rs:11:9\n\
             \x20 both:    2  t1    load              Atomic#1  src/model.rs:12:9\n\
             \x20 a:       3  t2    load              Atomic#1  src/model.rs:13:9  <- preempt\n\
             \x20 b:       3  t1    store             Atomic#1  src/model.rs:13:9\n\
             a: {}\nb: {}\n",
            a.display(),
            c.display()
        )
    );
    // One trace ends where the other goes on.
    let mut short = lost_update();
    short.lines.truncate(5);
    std::fs::write(dir.join("d.trace"), short.to_file()).unwrap();
    let (code, out, _) = run(&["diff", dir.join("d.trace").to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("\n  a:       5  (the execution had ended)\n  b:       5  t1    store"), "{out}");
    let (code, _, err) = run(&["diff", a.to_str().unwrap(), dir.join("missing.trace").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: cannot read "), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn replay_prints_the_command_for_a_token_or_a_persisted_failure() {
    let token = Schedule {
        strategy: "icb".into(),
        seed: None,
        choices: vec![0, 1],
        fingerprint: 7,
        fair: true,
        memory_model: samaritan_sim::MemoryModel::Sc,
    }
    .to_token();
    let (code, out, err) = run(&["replay", &token]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            "SAMARITAN_REPLAY={token} cargo test <TEST> -- --exact\n(name the test the token came from; in code: samaritan::replay(\"{token}\", <the same closure>))\n"
        )
    );
    // A persisted failure's trace names its test and command.
    let dir = scratch("replay");
    std::fs::write(dir.join("f.token"), format!("{token}\n")).unwrap();
    let command = format!("SAMARITAN_REPLAY={token} cargo test counter::is_exact -- --exact");
    let trace = format!("# samaritan trace v1\n# test: counter::is_exact\n# replay with: {command}\n   0  main  spawn  -  src/a.rs:1:1\n");
    std::fs::write(dir.join("f.trace"), trace).unwrap();
    for file in ["f.token", "f.trace"] {
        assert_eq!(run(&["replay", dir.join(file).to_str().unwrap()]), (0, format!("{command}\n"), String::new()));
    }
    let (code, _, err) = run(&["replay", "s2_AAAA"]);
    assert_eq!((code, err.as_str()), (2, "error: replay token checksum does not match: it was altered or cut short\n"));
    let (code, _, err) = run(&["replay", "no/such.token"]);
    assert_eq!((code, err.as_str()), (2, "error: cannot read no/such.token: no such file\n"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn failures_are_found_where_check_writes_them() {
    // $CARGO_TARGET_DIR first, as `check` does.
    let target = scratch("target-dir");
    std::fs::create_dir_all(target.join("samaritan/failures/bin/a_test")).unwrap();
    std::fs::write(target.join("samaritan/failures/bin/a_test/01.token"), "s2_X\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_samaritan"))
        .arg("failures")
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "bin/a_test\n  01\n    token: s2_X\n");
    // Else the nearest target directory above the current one.
    let project = scratch("project");
    std::fs::create_dir_all(project.join("target/samaritan/failures/bin/b_test")).unwrap();
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    std::fs::write(project.join("target/CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n").unwrap();
    std::fs::write(project.join("target/samaritan/failures/bin/b_test/02.token"), "s2_Y\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_samaritan"))
        .arg("failures")
        .current_dir(project.join("src/deep"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "bin/b_test\n  02\n    token: s2_Y\n");
    let _ = std::fs::remove_dir_all(target);
    let _ = std::fs::remove_dir_all(project);
}

/// A report record of shard `i` of `n` of test `t`.
fn record(t: &str, i: u32, n: u32, verdict: &str, executions: u64) -> String {
    let token = if verdict == "fail" {
        r#","token":"s2_x","replay":"SAMARITAN_REPLAY=s2_x cargo test t -- --exact""#
    } else {
        ""
    };
    format!(
        r#"{{"version":1,"test":"{t}","strategy":"icb","shard":"{i}/{n}","verdict":"{verdict}","outcome":"{verdict}","executions":{executions},"exhausted":true,"bounded":true,"completed_bound":2{token}}}"#
    )
}

#[test]
fn shard_reports_merge_into_one_verdict_per_test() {
    let dir = scratch("merge");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, format!("{}\n{}\n", record("t", 1, 2, "pass", 40), record("u", 1, 2, "pass", 5))).unwrap();
    std::fs::write(&b, format!("{}\n{}\n", record("t", 2, 2, "pass", 60), record("u", 2, 2, "fail", 3))).unwrap();
    let (code, out, err) = run(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (1, ""));
    assert_eq!(
        out,
        "t: pass: every execution with <= 2 preemptions explored: 100 executions, no bug (2 shards, strategy icb)\n\
         u: fail in shard 2/2: fail\n  replay with: SAMARITAN_REPLAY=s2_x cargo test t -- --exact\n\
         1 of 2 tests passed (4 reports read)\n"
    );
    // One shard's file alone: incomplete, never a pass.
    let (code, out, _) = run(&["merge", a.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.starts_with("t: incomplete: 1 of 2 shards reported; missing 2/2\n"), "{out}");
    // Both halves of t only: a pass.
    std::fs::write(&b, record("t", 2, 2, "pass", 60)).unwrap();
    std::fs::write(&a, record("t", 1, 2, "pass", 40)).unwrap();
    let (code, _, _) = run(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0);
}

#[test]
fn a_bad_report_file_exits_2_naming_the_line() {
    let dir = scratch("merge-bad");
    let file = dir.join("r.json");
    std::fs::write(&file, format!("{}\nnot json\n", record("t", 1, 1, "pass", 1))).unwrap();
    let (code, _, err) = run(&["merge", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with(&format!("error: {}: line 2: not a report record: ", file.display())), "{err}");
    std::fs::write(&file, record("t", 3, 2, "pass", 1)).unwrap();
    let (code, _, err) = run(&["merge", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("line 1: shard \"3/2\": the index counts from 1 to the number of shards"), "{err}");
    let (code, _, err) = run(&["merge"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: `samaritan merge` takes one or more report files"), "{err}");
}
