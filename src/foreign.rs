//! Runtimes samaritan does not schedule, recognized by the threads they
//! start.
//!
//! A tokio runtime built inside an exploration runs its tasks on OS threads
//! of its own, which samaritan neither sees nor schedules. Waiting for them
//! (`block_on`, a join handle) parks the exploring OS thread that every
//! simulated thread runs on, so nothing can answer, and the watchdog
//! reports uncontrolled blocking. When threads with tokio's default name
//! started in this process while the exploration ran, that report is
//! turned into a misuse that says so.
//!
//! Limits: threads are read from `/proc/self/task`, so only on Linux; only
//! threads with tokio's default name count; a tokio runtime that never
//! blocks the exploration (its tasks finish on their own) goes unnoticed,
//! and so does a current-thread runtime, which starts no thread; tokio
//! threads that another test started at the same time are taken for this
//! one's. Nothing is read unless the watchdog fired.

use std::time::Instant;

use samaritan_sim::{Outcome, Report};

/// Turns an uncontrolled-blocking report into a misuse naming a tokio
/// runtime when tokio threads started since `started` (see the module
/// documentation); returns any other report as it is.
pub(crate) fn diagnose(mut report: Report, started: Instant) -> Report {
    let Outcome::UncontrolledBlocking { actor, last, silent_ms } = &report.outcome else { return report };
    let threads = tokio_threads_since(started);
    if threads > 0 {
        let plural = if threads == 1 { "thread" } else { "threads" };
        let detail = format!(
            "it made no visible operation for {silent_ms} ms after {last}, and {threads} tokio runtime {plural} started in this process meanwhile: a tokio runtime inside an exploration runs its tasks on OS threads samaritan does not schedule, and waiting for them blocks every simulated thread; use samaritan::executor inside check"
        );
        report.outcome = Outcome::Misuse { actor: actor.clone(), detail };
    }
    report
}

/// The names tokio gives its runtime threads by default, as Linux keeps
/// them (15 bytes): `tokio-rt-worker` in recent releases (1.54 has it),
/// `tokio-runtime-worker` in older ones.
#[cfg(target_os = "linux")]
const TOKIO_THREADS: [&str; 2] = ["tokio-rt-worker", "tokio-runtime-w"];

/// Units of the times in `/proc/<pid>/stat` per second (`USER_HZ`), 100 on
/// every architecture Rust targets on Linux but alpha and ia64.
#[cfg(target_os = "linux")]
const USER_HZ: f64 = 100.0;

/// Returns how many threads with tokio's default name started in this
/// process since `since`, give or take the 10 ms resolution of `/proc`.
#[cfg(target_os = "linux")]
fn tokio_threads_since(since: Instant) -> usize {
    use std::fs;
    // Seconds since boot, now and when the exploration began.
    let Some(now) =
        fs::read_to_string("/proc/uptime").ok().and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok())
    else {
        return 0;
    };
    let began = now - since.elapsed().as_secs_f64() - 0.02;
    let Ok(tasks) = fs::read_dir("/proc/self/task") else { return 0 };
    tasks
        .filter_map(Result::ok)
        .map(|task| task.path())
        .filter(|dir| fs::read_to_string(dir.join("comm")).is_ok_and(|name| TOKIO_THREADS.contains(&name.trim_end())))
        .filter(|dir| {
            // `pid (comm) state ...`: the start time is the 22nd field, the
            // 20th after the name (which may hold spaces and parentheses).
            let stat = fs::read_to_string(dir.join("stat")).unwrap_or_default();
            let fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            let start = fields.split_whitespace().nth(19).and_then(|t| t.parse::<u64>().ok());
            start.is_some_and(|ticks| ticks as f64 / USER_HZ >= began)
        })
        .count()
}

/// Returns how many tokio threads started since `since`: never known here.
#[cfg(not(target_os = "linux"))]
fn tokio_threads_since(_since: Instant) -> usize {
    0
}
