//! The `samaritan` command: reads replay tokens, lists, compares and
//! replays persisted failures, and renders trace files as HTML.
//!
//! ```text
//! samaritan token <TOKEN>        decode a replay token
//! samaritan failures [DIR]       list persisted failures
//! samaritan diff <A> <B>         the first step where two traces differ
//! samaritan replay <TOKEN|FILE>  the command that replays a failure
//! samaritan html <TRACE> [-o OUT.html]
//!                                render a trace file as an HTML timeline
//! samaritan merge <REPORT>...    one verdict from shards' report files
//! samaritan --help | --version
//! ```
//!
//! Exit status: 0 on success, 1 when `diff` finds a difference or `merge`
//! a failing or incomplete test, 2 on a
//! usage error or input that cannot be read (a bad token, a missing
//! directory). It never panics on its input.

mod commands;
mod failures;
mod merge;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The text of `samaritan --help`.
const USAGE: &str = "\
samaritan: tools for samaritan's schedules

usage:
  samaritan token <TOKEN>     decode a replay token: strategy, seed, fairness,
                              number of choices, fingerprint, format version
  samaritan failures [DIR]    list the failures persisted under DIR (default:
                              samaritan/failures in $CARGO_TARGET_DIR, else in
                              the nearest target directory above the current
                              one): per test, each failure's token, trace file,
                              page and replay command
  samaritan diff <A> <B>      compare two traces (trace files, or persisted
                              failures' .token files): the first step where
                              they differ, side by side; exit status 1 when
                              they differ
  samaritan replay <TOKEN|FILE>
                              print the command that replays a token or a
                              persisted failure (its .token or .trace file)
  samaritan html <TRACE> [-o OUT.html]
                              render a trace file (the text format of a
                              failure's trace, e.g. <id>.trace) as a
                              self-contained HTML timeline; without -o the
                              page goes to standard output
  samaritan merge <REPORT>... combine the report files of a search's shards
                              (SAMARITAN_SHARD=i/n, SAMARITAN_REPORT=FILE)
                              into one verdict per test: the failure of the
                              lowest failing shard, else a pass with the
                              shards' counts added up; exit status 1 when a
                              test failed or some of its shards are missing
  samaritan --help            print this help
  samaritan --version         print the version

exit status: 0 on success, 1 when diff finds a difference or merge a
failing or incomplete test, 2 on a usage error or unreadable input
";

/// A command line, read.
#[derive(Debug)]
enum Command {
    Help,
    Version,
    Token(String),
    Failures(Option<PathBuf>),
    Diff(PathBuf, PathBuf),
    Replay(String),
    Html { trace: PathBuf, out: Option<PathBuf> },
    Merge(Vec<PathBuf>),
}

/// Why a command failed: what to tell the user.
#[derive(Debug)]
pub(crate) enum Failed {
    /// The command line is wrong.
    Usage(String),
    /// The input cannot be read.
    Input(String),
}

fn main() -> ExitCode {
    let result = parse(std::env::args_os().skip(1)).and_then(run);
    match result {
        Ok(code) => code,
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

/// Runs a command; returns the exit status it asks for.
fn run(command: Command) -> Result<ExitCode, Failed> {
    match command {
        Command::Help => print!("{USAGE}"),
        Command::Version => println!("samaritan {}", env!("CARGO_PKG_VERSION")),
        Command::Token(token) => commands::token(&token)?,
        Command::Failures(dir) => failures::list(&dir.unwrap_or_else(failures::default_dir))?,
        Command::Diff(a, b) => return commands::diff(&a, &b),
        Command::Replay(what) => commands::replay(&what)?,
        Command::Html { trace, out } => commands::html(&trace, out.as_deref())?,
        Command::Merge(files) => return merge::merge(&files),
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads the command line (without the program name).
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, Failed> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut words: Vec<String> = Vec::new();
    let mut out = None;
    while let Some(arg) = parser.next().map_err(usage)? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Short('o') | Long("out") => out = Some(PathBuf::from(parser.value().map_err(usage)?)),
            Value(word) => words.push(word.string().map_err(usage)?),
            other => return Err(usage(other.unexpected())),
        }
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    if out.is_some() && words.first() != Some(&"html") {
        return Err(Failed::Usage("`-o` goes with `samaritan html` only".to_string()));
    }
    Ok(match words.as_slice() {
        [] | ["help"] => Command::Help,
        ["token", token] => Command::Token(token.to_string()),
        ["token", ..] => return Err(Failed::Usage("`samaritan token` takes one token".to_string())),
        ["failures"] => Command::Failures(None),
        ["failures", dir] => Command::Failures(Some(PathBuf::from(dir))),
        ["failures", ..] => return Err(Failed::Usage("`samaritan failures` takes at most one directory".to_string())),
        ["diff", a, b] => Command::Diff(PathBuf::from(a), PathBuf::from(b)),
        ["diff", ..] => return Err(Failed::Usage("`samaritan diff` takes two traces".to_string())),
        ["replay", what] => Command::Replay(what.to_string()),
        ["replay", ..] => return Err(Failed::Usage("`samaritan replay` takes one token or file".to_string())),
        ["html", trace] => Command::Html { trace: PathBuf::from(trace), out },
        ["html", ..] => {
            return Err(Failed::Usage("`samaritan html` takes a trace file and optionally `-o OUT.html`".to_string()))
        }
        ["merge"] => return Err(Failed::Usage("`samaritan merge` takes one or more report files".to_string())),
        ["merge", files @ ..] => Command::Merge(files.iter().map(PathBuf::from).collect()),
        [command, ..] => return Err(Failed::Usage(format!("unknown command `{command}`"))),
    })
}

/// A command-line error, as a usage failure with a lowercase message.
fn usage(err: lexopt::Error) -> Failed {
    Failed::Usage(lowercase(&err.to_string()))
}

/// Returns `message` starting in lowercase, as samaritan's messages do.
pub(crate) fn lowercase(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
