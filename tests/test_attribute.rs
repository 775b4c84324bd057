//! `#[samaritan::test]`: a sync body runs under `check`, an async one as
//! the executor's main task inside it, the arguments set the builder, and
//! a failure's replay command names the test. Without `sim` each test is
//! a plain `#[test]` that runs once.
//!
//! The tests that count executions or read a failure's report run this
//! binary again in a child process (as `tests/abort.rs` does) on one of
//! the attributed tests, and read what it wrote: an attributed test cannot
//! look at its own exploration from inside.

use samaritan::executor;
use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// `n` threads each add one to a counter; main checks the sum.
fn fetch_adds(n: usize) {
    let c = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(c.load(Ordering::SeqCst), n);
}

#[samaritan::test]
fn a_sync_test_runs_its_body() {
    fetch_adds(2);
}

#[samaritan::test]
async fn an_async_test_runs_its_body_as_the_main_task() {
    let lock = Arc::new(Mutex::new(0));
    let tasks: Vec<_> = (1..=3)
        .map(|i| {
            let lock = lock.clone();
            executor::spawn(async move {
                *lock.lock().unwrap() += i;
                i * 10
            })
        })
        .collect();
    let mut sum = 0;
    for t in tasks {
        sum += t.await.unwrap();
    }
    assert_eq!((sum, *lock.lock().unwrap()), (60, 6));
}

/// Every argument at once (the values are in range, so the builder takes
/// them).
#[samaritan::test(
    strategy = "icb",
    preemptions = 3,
    fairness = true,
    pct_depth = 2,
    max_steps = 10000,
    max_executions = 500,
    max_time = 30.5,
    seed = 7,
    stack_size = 65536,
    watchdog_ms = 5000,
    spurious_failures = false,
    minimize = false,
    persist = false,
    progress = false
)]
fn every_argument_is_accepted() {
    fetch_adds(2);
}

#[samaritan::test(strategy = "dpor", max_time = "none")]
async fn an_async_test_takes_arguments() {
    let v = executor::spawn(async { 6 * 7 }).await.unwrap();
    assert_eq!(v, 42);
}

#[samaritan::test]
fn a_test_may_return_a_result() -> Result<(), std::num::ParseIntError> {
    let n: usize = "2".parse()?;
    fetch_adds(n);
    Ok(())
}

#[samaritan::test]
async fn an_async_test_may_return_a_result() -> Result<(), String> {
    let v = executor::spawn(async { 1 }).await.map_err(|e| e.to_string())?;
    assert_eq!(v, 1);
    Ok(())
}

/// Other attributes pass through: the expected panic holds in both modes
/// (under `sim` it is in the report `check` panics with).
#[samaritan::test(strategy = "dfs")]
#[should_panic(expected = "boom in the spawned thread")]
#[allow(clippy::unit_cmp)]
fn should_panic_passes_through() {
    let t = thread::spawn(|| panic!("boom in the spawned thread"));
    let _ = t.join();
    panic!("boom in the spawned thread");
}

#[samaritan::test]
#[should_panic(expected = "boom in a task")]
async fn should_panic_passes_through_on_an_async_test() {
    panic!("boom in a task");
}

#[cfg(feature = "sim")]
mod sim {
    //! The exploration behind the attribute, read from child processes.

    use std::process::Command;

    use samaritan::{Builder, Outcome, SearchStrategy};

    /// The environment variable that makes a run of this binary a child:
    /// the tests below that fail on purpose fail only then.
    const CHILD: &str = "SAMARITAN_TEST_ATTRIBUTE_CHILD";

    /// What a body writes on standard error once per execution.
    const MARK: &str = "samaritan-test-attribute: execution";

    /// A child's exit status, standard output and standard error.
    struct Child {
        ok: bool,
        stdout: String,
        stderr: String,
    }

    /// Runs this binary as `cargo test <args>` would after the filter, as
    /// a child, with `env` set; persisted failures and the replay variable
    /// of the parent are left out.
    fn child(args: &[&str], env: &[(&str, &str)]) -> Child {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(args).args(["--nocapture", "--test-threads=1"]).env(CHILD, "1");
        cmd.env_remove("SAMARITAN_REPLAY").env("SAMARITAN_PROGRESS", "0");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        Child {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The number of executions a child ran: the marks its body wrote.
    fn executions(c: &Child) -> usize {
        c.stderr.lines().filter(|l| *l == MARK).count()
    }

    /// The replay command in a child's report, and its token.
    fn replay_command(c: &Child) -> (String, String) {
        let line = c.stderr.lines().find(|l| l.contains("SAMARITAN_REPLAY=")).unwrap_or_else(|| {
            panic!("no replay command in:\n{}", c.stderr);
        });
        let command = line[line.find("SAMARITAN_REPLAY=").unwrap()..].trim().to_string();
        let token = command["SAMARITAN_REPLAY=".len()..].split(' ').next().unwrap().to_string();
        (command, token)
    }

    /// A load-then-store increment in two threads: returns whether an update
    /// was lost (in some schedules under `sim`).
    pub(super) fn lost_update() -> bool {
        let n = super::Arc::new(super::AtomicUsize::new(0));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let n = n.clone();
                super::thread::spawn(move || {
                    let seen = n.load(super::Ordering::SeqCst);
                    n.store(seen + 1, super::Ordering::SeqCst);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        n.load(super::Ordering::SeqCst) != 2
    }

    /// Two threads add to a counter; the body marks each execution.
    #[samaritan::test(strategy = "dfs")]
    fn counted_dfs() {
        eprintln!("{MARK}");
        super::fetch_adds(2);
    }

    /// DFS on two workers; the body marks each execution either runs.
    #[samaritan::test(strategy = "dfs", workers = 2)]
    fn counted_workers() {
        eprintln!("{MARK}");
        super::fetch_adds(2);
    }

    /// Three threads, a budget of 3 executions.
    #[samaritan::test(strategy = "dfs", max_executions = 3)]
    fn counted_budget() {
        eprintln!("{MARK}");
        super::fetch_adds(3);
    }

    /// An async body under DPOR: three tasks racing on a lock.
    async fn three_tasks() {
        let lock = samaritan::sync::Arc::new(samaritan::sync::Mutex::new(0));
        let tasks: Vec<_> = (0..3)
            .map(|_| {
                let lock = lock.clone();
                samaritan::executor::spawn(async move { *lock.lock().unwrap() += 1 })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(*lock.lock().unwrap(), 3);
    }

    #[samaritan::test(strategy = "dpor")]
    async fn counted_async_dpor() {
        eprintln!("{MARK}");
        three_tasks().await;
    }

    #[test]
    fn the_arguments_set_the_strategy_and_budget() {
        // DFS over two fetch_adds, as `check` would run it: the same count
        // as `Builder::explore` gives, exhausted.
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(|| super::fetch_adds(2)).unwrap();
        assert_eq!((report.outcome.clone(), report.exhausted, report.executions), (Outcome::Pass, true, 5));
        let c = child(&["--exact", "sim::counted_dfs"], &[]);
        assert!(c.ok, "{}", c.stderr);
        assert_eq!(executions(&c), 5, "{}", c.stderr);

        // Two workers share the depth-first search by work stealing: each
        // execution runs once, whichever worker runs it.
        let c = child(&["--exact", "sim::counted_workers"], &[]);
        assert!(c.ok, "{}", c.stderr);
        assert_eq!(executions(&c), 5, "{}", c.stderr);

        // The budget stops the search at 3, and the note says which test.
        let c = child(&["--exact", "sim::counted_budget"], &[]);
        assert!(c.ok, "{}", c.stderr);
        assert_eq!(executions(&c), 3, "{}", c.stderr);
        assert!(c.stderr.contains("samaritan: sim::counted_budget: "), "{}", c.stderr);
        assert!(c.stderr.contains("3 executions"), "{}", c.stderr);

        // An async body: the executor's main task, explored under DPOR.
        let report = Builder::new()
            .strategy(SearchStrategy::Dpor)
            .explore(|| samaritan::executor::block_on(three_tasks()))
            .unwrap();
        assert_eq!((report.outcome.clone(), report.exhausted), (Outcome::Pass, true), "{report}");
        let c = child(&["--exact", "sim::counted_async_dpor"], &[]);
        assert!(c.ok, "{}", c.stderr);
        assert_eq!(executions(&c) as u64, report.executions, "{}", c.stderr);
        assert_eq!(report.executions, 22, "{report}");
    }

    mod nested {
        /// The lost update, found: the expected panic is the report.
        #[samaritan::test(strategy = "dfs")]
        #[should_panic(expected = "an increment was lost")]
        fn finds_the_lost_update() {
            assert!(!super::lost_update(), "an increment was lost");
        }
    }

    #[test]
    fn a_failure_prints_a_replay_command_that_selects_the_test() {
        const NAME: &str = "sim::nested::finds_the_lost_update";
        let found = child(&["--exact", NAME], &[]);
        assert!(found.ok, "should_panic holds:\n{}", found.stderr);
        assert!(found.stderr.contains("samaritan found a bug"), "{}", found.stderr);
        let (command, token) = replay_command(&found);
        assert_eq!(command, format!("SAMARITAN_REPLAY={token} cargo test {NAME} -- --exact"));

        // What `cargo test NAME -- --exact` passes this binary: exactly
        // this test runs, and the token replays the same failure.
        let replayed = child(&[NAME, "--exact"], &[("SAMARITAN_REPLAY", &token)]);
        assert!(replayed.ok, "{}", replayed.stderr);
        assert!(replayed.stdout.contains("running 1 test"), "{}", replayed.stdout);
        assert!(replayed.stdout.contains(&format!("test {NAME} - should panic ... ok")), "{}", replayed.stdout);
        assert!(replayed.stderr.contains("an increment was lost"), "{}", replayed.stderr);
        assert_eq!(replay_command(&replayed).1, token);
    }

    /// Returns an error when an update was lost, in a child only.
    #[samaritan::test(strategy = "dfs", persist = false)]
    fn returns_an_error_in_a_child() -> Result<(), String> {
        if lost_update() && std::env::var_os(CHILD).is_some() {
            return Err("an increment was lost".into());
        }
        Ok(())
    }

    #[test]
    fn an_error_the_body_returns_is_a_failure_with_a_replay_command() {
        const NAME: &str = "sim::returns_an_error_in_a_child";
        let c = child(&["--exact", NAME], &[]);
        assert!(!c.ok, "{}", c.stderr);
        // The panic is the test's own, at its location.
        let panic = c.stderr.lines().find(|l| l.contains("the test returned an error")).unwrap_or_default();
        assert!(panic.contains("at tests/test_attribute.rs:"), "{}", c.stderr);
        assert!(panic.ends_with("the test returned an error: \"an increment was lost\""), "{}", c.stderr);
        let (command, token) = replay_command(&c);
        assert_eq!(command, format!("SAMARITAN_REPLAY={token} cargo test {NAME} -- --exact"));
        assert!(c.stdout.contains(&format!("test {NAME} ... FAILED")), "{}", c.stdout);
    }
}
