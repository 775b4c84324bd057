//! Partial-order reduction under a preemption bound (cb-por): sound where
//! sleep sets plus a bound are not, and never more executions than ICB.
#![cfg(feature = "sim")]

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;
use samaritan::{Builder, Outcome, Report, SearchStrategy};

mod common;

use common::models::{fetch_adds, mutex_counter};

fn run<F: Fn() + Send + Sync + 'static>(strategy: SearchStrategy, bound: u32, f: F) -> Report {
    Builder::new().strategy(strategy).preemption_bound(bound).persist(false).explore(f).unwrap()
}

/// The final values of `y` seen by the exploration running now.
static FINAL_Y: StdMutex<BTreeSet<usize>> = StdMutex::new(BTreeSet::new());

/// por-for-context-bounded-search.txt, Fig. 1: T1 writes x then y, T2
/// writes y. `y := 2, x := 1, y := 1` takes no preemption (T2 finishes
/// before T1 starts), but sleep sets with a bound of 0 never run it.
fn figure_1() {
    let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let t1 = {
        let (x, y) = (x.clone(), y.clone());
        thread::spawn(move || {
            x.store(1, Ordering::SeqCst);
            y.store(1, Ordering::SeqCst);
        })
    };
    let t2 = {
        let y = y.clone();
        thread::spawn(move || y.store(2, Ordering::SeqCst))
    };
    t1.join().unwrap();
    t2.join().unwrap();
    FINAL_Y.lock().unwrap().insert(y.load(Ordering::SeqCst));
}

#[test]
fn figure_1_reaches_y_equal_1_with_no_preemption() {
    FINAL_Y.lock().unwrap().clear();
    let report = run(SearchStrategy::CbPor, 0, figure_1);
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    assert_eq!(*FINAL_Y.lock().unwrap(), BTreeSet::from([1, 2]), "{report}");
    assert_eq!(report.executions, 2);
}

/// Asserts that cb-por passes `f` at `bound` after exactly `executions`
/// executions, none cut short, and that ICB needs `icb` for the same.
#[track_caller]
fn check_counts<F: Fn() + Send + Sync + Copy + 'static>(f: F, bound: u32, executions: u64, icb: u64) {
    let por = run(SearchStrategy::CbPor, bound, f);
    assert_eq!(
        (&por.outcome, por.executions, por.pruned, por.exhausted, por.completed_bound),
        (&Outcome::Pass, executions, 0, true, Some(bound)),
        "{por}"
    );
    let plain = run(SearchStrategy::Icb, bound, f);
    assert_eq!((&plain.outcome, plain.executions), (&Outcome::Pass, icb), "{plain}");
}

/// Three fetch_adds: all 6 orders need no preemption (each thread ends
/// after its one step), so every bound gives 6; ICB repeats equivalent
/// orders.
#[test]
fn fetch_add_orders_are_explored_once_at_every_bound() {
    for (bound, icb) in [(0, 13), (1, 26), (2, 40), (3, 44)] {
        check_counts(|| fetch_adds(3), bound, 6, icb);
    }
}

/// Three threads taking one lock twice: the 90 lock orders, reached as
/// the bound allows.
#[test]
fn mutex_counter_lock_orders_grow_with_the_bound_up_to_90() {
    for (bound, por, icb) in [(0, 6, 13), (1, 24, 92), (2, 60, 383), (3, 90, 1105)] {
        check_counts(mutex_counter, bound, por, icb);
    }
}

#[path = "../examples/work_stealing.rs"]
#[allow(dead_code)] // Its `main`.
mod work_stealing;

/// The Cilk THE queue's check-before-claim bug needs two preemptions:
/// cb-por passes at bound 1 and finds it at bound 2, like ICB.
#[test]
fn the_work_stealing_bug_needs_two_preemptions_under_cb_por_too() {
    let pass = run(SearchStrategy::CbPor, 1, work_stealing::buggy);
    assert_eq!((&pass.outcome, pass.exhausted), (&Outcome::Pass, true), "{pass}");
    let found = run(SearchStrategy::CbPor, 2, work_stealing::buggy);
    assert!(matches!(&found.outcome, Outcome::Panic { message, .. } if message.contains("taken twice")), "{found}");
    assert_eq!((pass.executions, found.executions), (13, 3));
}
