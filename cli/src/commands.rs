//! The commands that read one token or trace: `token`, `diff`, `replay`
//! and `html`.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use samaritan_sim::{MemoryModel, Schedule, Trace, TOKEN_VERSION};

use crate::failures::{self, Failure};
use crate::{lowercase, Failed};

/// Prints what a replay token holds.
pub(crate) fn token(token: &str) -> Result<(), Failed> {
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
    let memory = match schedule.memory_model {
        MemoryModel::Weak => "weak (C11)",
        MemoryModel::Sc => "sc",
        MemoryModel::WeakCasNewest => "weak-cas-newest (C11, a failing compare-exchange reads the newest store)",
    };
    println!("memory:      {memory}");
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

/// Compares two traces step by step (thread, operation, object, value;
/// not source positions) and prints the first step where they differ, with
/// the step before it for context: exit status 0 when they do the same
/// steps, 1 when they differ.
pub(crate) fn diff(a: &Path, b: &Path) -> Result<ExitCode, Failed> {
    let (first, second) = (read_trace(a)?, read_trace(b)?);
    let Some(step) = first.first_difference(&second) else {
        println!("the traces do the same {} steps", first.lines.len());
        return Ok(ExitCode::SUCCESS);
    };
    // The steps shown, from both traces, formatted as one trace so that
    // their columns line up.
    let context = step.saturating_sub(2);
    let shown: Vec<_> =
        first.lines[context..step].iter().chain(first.lines.get(step)).chain(second.lines.get(step)).cloned().collect();
    let text = Trace { lines: shown }.to_string();
    let mut lines = text.lines();
    println!("first step that differs: {step}");
    for _ in context..step {
        println!("  both: {}", lines.next().unwrap_or_default());
    }
    for (label, trace) in [("a:    ", &first), ("b:    ", &second)] {
        match trace.lines.get(step) {
            Some(_) => println!("  {label}{}", lines.next().unwrap_or_default()),
            None => println!("  {label}{step:>4}  (the execution had ended)"),
        }
    }
    println!("a: {}\nb: {}", a.display(), b.display());
    Ok(ExitCode::from(1))
}

/// Prints the command that replays `what`: a token, or a persisted
/// failure's `.token` or `.trace` file (whose trace names its test).
pub(crate) fn replay(what: &str) -> Result<(), Failed> {
    let path = Path::new(what);
    if path.is_file() {
        let failure = Failure::read(path)?;
        match failure.replay() {
            Some(command) => println!("{command}"),
            None => println!("SAMARITAN_REPLAY={} cargo test <TEST> -- --exact", failure.token),
        }
        return Ok(());
    }
    if what.contains(['/', '\\']) || what.ends_with(".token") || what.ends_with(".trace") {
        return Err(Failed::Input(format!("cannot read {what}: no such file")));
    }
    Schedule::from_token(what).map_err(|err| Failed::Input(err.to_string()))?;
    println!("SAMARITAN_REPLAY={} cargo test <TEST> -- --exact", what.trim());
    println!(
        "(name the test the token came from; in code: samaritan::replay(\"{}\", <the same closure>))",
        what.trim()
    );
    Ok(())
}

/// Renders the trace file `trace` as an HTML page, to `out` or standard
/// output.
pub(crate) fn html(trace: &Path, out: Option<&Path>) -> Result<(), Failed> {
    let parsed = read_trace(trace)?;
    let page = samaritan_artifacts::html::trace(&parsed, &format!("samaritan trace: {}", trace.display()));
    match out {
        Some(out) => {
            fs::write(out, page).map_err(|err| {
                Failed::Input(format!("cannot write {}: {}", out.display(), lowercase(&err.to_string())))
            })?;
            eprintln!("wrote {}", out.display());
        }
        None => print!("{page}"),
    }
    Ok(())
}

/// Reads a trace file, or the trace beside a persisted failure's token.
fn read_trace(path: &Path) -> Result<Trace, Failed> {
    let path = failures::trace_path(path);
    let text = fs::read_to_string(&path)
        .map_err(|err| Failed::Input(format!("cannot read {}: {}", path.display(), lowercase(&err.to_string()))))?;
    Trace::parse(&text).map_err(|err| Failed::Input(format!("{}: {err}", path.display())))
}
