//! Snapshots of failing schedules and exploration summaries.
#![cfg(feature = "sim")]

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Report, SearchStrategy};

/// The record a snapshot holds: the summary, the verdict and the trace.
fn record(report: &Report) -> String {
    let mut out = format!(
        "strategy: {}\nexecutions: {}\nexhausted: {}\nverdict: {}\n",
        report.strategy, report.executions, report.exhausted, report.outcome
    );
    if let Some(failure) = &report.failure {
        out.push_str(&format!("preemptions: {}\ntoken: {}\n\n{}", failure.trace.preemptions(), failure.token, failure.trace));
    }
    out
}

/// Explores `f` with `strategy` and snapshots the record under `name`.
#[track_caller]
fn check<F: Fn() + Send + Sync + 'static>(name: &str, strategy: SearchStrategy, seed: u64, f: F) {
    let report = Builder::new().strategy(strategy).seed(seed).max_executions(10_000).explore(f).unwrap();
    insta::with_settings!({
        snapshot_suffix => format!("{strategy:?}").to_lowercase(),
        description => format!("strategy {strategy:?}, seed {seed}, max 10000 executions"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, record(&report));
    });
}

fn lost_update() {
    let counter = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                let seen = counter.load(Ordering::SeqCst);
                counter.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 2, "an increment was lost");
}

fn lock_order_inversion() {
    let accounts = Arc::new(Mutex::new(100));
    let audit = Arc::new(Mutex::new(Vec::<i32>::new()));
    let (a, b) = (accounts.clone(), audit.clone());
    let transfer = thread::Builder::new()
        .name("transfer".into())
        .spawn(move || {
            let mut balance = a.lock().unwrap();
            *balance -= 10;
            b.lock().unwrap().push(-10);
        })
        .unwrap();
    let auditor = thread::Builder::new()
        .name("auditor".into())
        .spawn(move || {
            let log = audit.lock().unwrap();
            let balance = accounts.lock().unwrap();
            assert_eq!(*balance - log.iter().sum::<i32>(), 100);
        })
        .unwrap();
    transfer.join().unwrap();
    auditor.join().unwrap();
}

fn locked_counter() {
    let n = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || *n.lock().unwrap() += 1)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*n.lock().unwrap(), 3);
}

#[test]
fn lost_update_dfs() {
    check("lost_update", SearchStrategy::Dfs, 0, lost_update);
}

#[test]
fn lost_update_random() {
    check("lost_update", SearchStrategy::Random, 1, lost_update);
}

#[test]
fn lock_order_deadlock_dfs() {
    check("lock_order_deadlock", SearchStrategy::Dfs, 0, lock_order_inversion);
}

#[test]
fn locked_counter_summary_dfs() {
    check("locked_counter", SearchStrategy::Dfs, 0, locked_counter);
}
