//! The `samaritan` command: reads replay tokens, lists persisted failures
//! and renders trace files as HTML.
//!
//! ```text
//! samaritan token <TOKEN>     decode a replay token
//! samaritan failures [DIR]    list persisted failures (default target/samaritan/failures)
//! samaritan html <TRACE> [-o OUT.html]
//!                             render a trace file as an HTML timeline
//! samaritan --help            this help
//! ```
//!
//! Exit status: 0 on success, 2 on a usage error or input that cannot be
//! read (a bad token, a missing directory). It never panics on its input.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use samaritan_sim::{Schedule, Trace, TOKEN_VERSION};

/// The text of `samaritan --help`.
const USAGE: &str = "\
samaritan: tools for samaritan's schedules

usage:
  samaritan token <TOKEN>     decode a replay token: strategy, seed, fairness,
                              number of choices, fingerprint, format version
  samaritan failures [DIR]    list the failures persisted under DIR
                              (default: target/samaritan/failures): per test,
                              each failure's token, trace file and page
  samaritan html <TRACE> [-o OUT.html]
                              render a trace file (the text format of a
                              failure's trace, e.g. <id>.trace) as a
                              self-contained HTML timeline; without -o the
                              page goes to standard output
  samaritan --help            print this help

exit status: 0 on success, 2 on a usage error or unreadable input
";

/// Where failing schedules are persisted, relative to the workspace root.
const FAILURES_DIR: &str = "target/samaritan/failures";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] | ["--help" | "-h" | "help", ..] => {
            print!("{USAGE}");
            Ok(())
        }
        ["token", token] => token_command(token),
        ["token", ..] => Err(Failed::Usage("`samaritan token` takes one token".to_string())),
        ["failures"] => failures_command(Path::new(FAILURES_DIR)),
        ["failures", dir] => failures_command(Path::new(dir)),
        ["failures", ..] => Err(Failed::Usage("`samaritan failures` takes at most one directory".to_string())),
        ["html", trace] => html_command(Path::new(trace), None),
        ["html", trace, "-o", out] | ["html", "-o", out, trace] => html_command(Path::new(trace), Some(Path::new(out))),
        ["html", ..] => {
            Err(Failed::Usage("`samaritan html` takes a trace file and optionally `-o OUT.html`".to_string()))
        }
        [command, ..] => Err(Failed::Usage(format!("unknown command `{command}`"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failed::Usage(message)) => {
            eprintln!("error: {message}\nrun `samaritan --help` for usage");
            ExitCode::from(2)
        }
        Err(Failed::Input(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Why a command failed: what to tell the user.
#[derive(Debug)]
enum Failed {
    /// The command line is wrong.
    Usage(String),
    /// The input cannot be read.
    Input(String),
}

/// Prints what a replay token holds.
fn token_command(token: &str) -> Result<(), Failed> {
    let schedule = Schedule::from_token(token).map_err(|err| Failed::Input(err.to_string()))?;
    let version = token.trim().strip_prefix('s').and_then(|rest| rest.split_once('_')).map_or("?", |(v, _)| v);
    println!("token:       {}", token.trim());
    println!("format:      version {version} (this samaritan writes version {TOKEN_VERSION})");
    println!("strategy:    {}", schedule.strategy);
    match schedule.seed {
        Some(seed) => println!("seed:        {seed}"),
        None => println!("seed:        none"),
    }
    println!("fairness:    {}", if schedule.fair { "on" } else { "off" });
    println!("choices:     {}", schedule.choices.len());
    if !schedule.choices.is_empty() {
        let shown: Vec<String> = schedule.choices.iter().take(64).map(u32::to_string).collect();
        let more = if schedule.choices.len() > 64 { " ..." } else { "" };
        println!("             {}{more}", shown.join(" "));
    }
    match schedule.fingerprint {
        // Older tokens fingerprinted source locations: not checked.
        0 => println!("fingerprint: none (a replay checks the choices only)"),
        fingerprint => println!("fingerprint: {fingerprint:08x}"),
    }
    Ok(())
}

/// Renders the trace file `trace` as an HTML page, to `out` or standard
/// output.
fn html_command(trace: &Path, out: Option<&Path>) -> Result<(), Failed> {
    let text = fs::read_to_string(trace)
        .map_err(|err| Failed::Input(format!("cannot read {}: {}", trace.display(), lowercase(&err))))?;
    let parsed = Trace::parse(&text).map_err(|err| Failed::Input(format!("{}: {err}", trace.display())))?;
    let page = samaritan_artifacts::html::trace(&parsed, &format!("samaritan trace: {}", trace.display()));
    match out {
        Some(out) => {
            fs::write(out, page)
                .map_err(|err| Failed::Input(format!("cannot write {}: {}", out.display(), lowercase(&err))))?;
            eprintln!("wrote {}", out.display());
        }
        None => print!("{page}"),
    }
    Ok(())
}

/// Lists the failures persisted under `dir`: one directory per test, one
/// `<id>.token` per failure, with its `<id>.trace` and `<id>.html` beside
/// it (the layout `samaritan::check` writes).
fn failures_command(dir: &Path) -> Result<(), Failed> {
    let entries = fs::read_dir(dir)
        .map_err(|err| Failed::Input(format!("cannot read {}: {}", dir.display(), lowercase(&err))))?;
    drop(entries);
    let mut tests = Vec::new();
    test_dirs(dir, 0, &mut tests);
    tests.sort();
    if tests.is_empty() {
        println!("no failures persisted under {}", dir.display());
        return Ok(());
    }
    for test in &tests {
        let name = test.strip_prefix(dir).unwrap_or(test);
        println!("{}", name.display());
        let tokens = files_with(test, "token");
        if tokens.is_empty() {
            println!("  (no .token files)");
        }
        for token in tokens {
            let id = token.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            println!("  {id}");
            match fs::read_to_string(&token) {
                Ok(text) => println!("    token: {}", text.trim()),
                Err(_) => println!("    token: (unreadable)"),
            }
            if let Ok(trace) = fs::read_to_string(token.with_extension("trace")) {
                let steps = trace.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
                println!("    trace: {} ({steps} steps)", token.with_extension("trace").display());
            }
            if token.with_extension("html").is_file() {
                println!("    page:  {}", token.with_extension("html").display());
            }
        }
    }
    Ok(())
}

/// Collects the test directories under `dir` (`<binary>/<test>`, as
/// `samaritan::check` writes them): those holding `.token` files, and those
/// with no subdirectory. Looks at most three levels down.
fn test_dirs(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let subdirs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    if depth > 0 && (subdirs.is_empty() || !files_with(dir, "token").is_empty()) {
        out.push(dir.to_path_buf());
    }
    if depth < 3 {
        for sub in subdirs {
            test_dirs(&sub, depth + 1, out);
        }
    }
}

/// The files in `dir` with extension `ext`, sorted by name.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == ext)).collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Returns an I/O error's message starting in lowercase, as samaritan's
/// messages do.
fn lowercase(err: &std::io::Error) -> String {
    let message = err.to_string();
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => message,
    }
}
