//! Explorations of programs written against crossbeam's channel API: a
//! channel deadlock found with a token that replays it, its fixed twin
//! exhausted, and `select!`'s choice and time channels explored.

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;
use std::time::Duration;

use samaritan::sync::atomic::{AtomicBool, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome, SearchStrategy};
use samaritan_crossbeam::channel::{after, bounded, unbounded};
use samaritan_crossbeam::select;
use samaritan_crossbeam::utils::Backoff;

fn dfs() -> Builder {
    Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false)
}

/// Asserts that DFS passes `f` after exactly `executions` executions and
/// covers the whole space.
#[track_caller]
fn check_exhausts(f: impl Fn() + Send + Sync + 'static, executions: u64) {
    let report = dfs().explore(f).unwrap();
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, executions, true), "{report}");
}

/// As [`check_exhausts`], with DPOR.
#[track_caller]
fn check_dpor_exhausts(f: impl Fn() + Send + Sync + 'static, executions: u64) {
    let report = dfs().strategy(SearchStrategy::Dpor).explore(f).unwrap();
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, executions, true), "{report}");
}

/// A worker answers each request on a rendezvous channel; `answer_first`
/// makes main wait for an answer before it sends its request (each side
/// waits for the other).
fn request_reply(answer_first: bool) {
    let (requests, incoming) = bounded::<u32>(0);
    let (replies, answers) = bounded::<u32>(0);
    let worker = thread::spawn(move || {
        for n in incoming.iter() {
            replies.send(n * 2).unwrap();
        }
    });
    if answer_first {
        let _ = answers.recv();
    }
    requests.send(21).unwrap();
    assert_eq!(answers.recv(), Ok(42));
    drop(requests);
    worker.join().unwrap();
}

#[test]
fn two_sides_waiting_for_each_other_deadlock_and_the_token_replays() {
    let report = dfs().explore(|| request_reply(true)).unwrap();
    let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("{report}") };
    let text = report.to_string();
    assert_eq!(deadlock.blocked.len(), 2, "{text}");
    let line = include_str!("explore.rs").lines().position(|l| l.ends_with("let _ = answers.recv();")).unwrap() + 1;
    assert!(text.contains(&format!("crossbeam/tests/explore.rs:{line}:")), "main's receive is named: {text}");
    let again = dfs().replay(report.token().unwrap(), || request_reply(true)).unwrap();
    assert!(matches!(again.outcome, Outcome::Deadlock(_)), "{again}");
    check_exhausts(|| request_reply(false), 1792);
}

#[test]
fn select_explores_every_ready_operation() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let s = seen.clone();
    check_exhausts(
        move || {
            let (a, ra) = unbounded();
            let (b, rb) = unbounded();
            a.send('a').unwrap();
            b.send('b').unwrap();
            let first = select! {
                recv(ra) -> m => m.unwrap(),
                recv(rb) -> m => m.unwrap(),
            };
            s.lock().unwrap().insert(first);
        },
        2,
    );
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from(['a', 'b']));
}

#[test]
fn a_select_with_a_timeout_channel_sees_the_message_or_the_timeout() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let s = seen.clone();
    let report = dfs()
        .explore(move || {
            let (tx, rx) = unbounded();
            let t = thread::spawn(move || tx.send(1).unwrap());
            let got = select! {
                recv(rx) -> m => m.ok(),
                recv(after(Duration::from_secs(1))) -> _ => None,
            };
            t.join().unwrap();
            s.lock().unwrap().insert(got);
        })
        .unwrap();
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from([None, Some(1)]));
}

#[test]
fn a_backoff_spin_loop_ends_under_the_fair_scheduler() {
    check_exhausts(
        || {
            let flag = Arc::new(AtomicBool::new(false));
            let other = flag.clone();
            let t = thread::spawn(move || other.store(true, Ordering::SeqCst));
            let backoff = Backoff::new();
            while !flag.load(Ordering::SeqCst) {
                backoff.snooze();
            }
            t.join().unwrap();
        },
        5,
    );
}

#[test]
fn a_rendezvous_between_two_selects_completes() {
    // DFS runs 1,408,676 executions of this (every order of the selects'
    // lock steps); DPOR one per order of the dependent ones.
    check_dpor_exhausts(
        || {
            let (tx, rx) = bounded::<u8>(0);
            let t = thread::spawn(move || {
                select! {
                    send(tx, 1) -> res => res.unwrap(),
                }
            });
            let got = select! {
                recv(rx) -> m => m.unwrap(),
            };
            assert_eq!(got, 1);
            t.join().unwrap();
        },
        890,
    );
}

/// Two threads add 1 to an `AtomicCell`: with a load and a store
/// (`racy`) or with `fetch_add`.
fn add_twice(racy: bool) {
    let cell = Arc::new(samaritan_crossbeam::atomic::AtomicCell::new(0u32));
    let other = cell.clone();
    let add = move |cell: &samaritan_crossbeam::atomic::AtomicCell<u32>| {
        if racy {
            cell.store(cell.load() + 1);
        } else {
            cell.fetch_add(1);
        }
    };
    let t = thread::spawn(move || add(&other));
    add(&cell);
    t.join().unwrap();
    assert_eq!(cell.load(), 2, "an increment was lost");
}

#[test]
fn an_atomic_cell_s_load_and_store_lose_an_update_and_fetch_add_does_not() {
    let report = dfs().explore(|| add_twice(true)).unwrap();
    assert!(
        matches!(&report.outcome, Outcome::Panic { message, .. } if message.contains("an increment was lost")),
        "{report}"
    );
    assert!(dfs().replay(report.token().unwrap(), || add_twice(true)).unwrap().is_failure());
    check_exhausts(|| add_twice(false), 2);
}

#[test]
fn a_full_array_queue_refuses_and_a_pop_makes_room_in_every_order() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let s = seen.clone();
    check_exhausts(
        move || {
            let q = Arc::new(samaritan_crossbeam::queue::ArrayQueue::new(1));
            q.push(1).unwrap();
            let other = q.clone();
            let t = thread::spawn(move || other.pop());
            let pushed = q.push(2).is_ok();
            let popped = t.join().unwrap();
            s.lock().unwrap().insert((pushed, popped));
        },
        2,
    );
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from([(false, Some(1)), (true, Some(1))]));
}

#[test]
fn scoped_threads_are_explored() {
    // Two scoped threads add to a counter with a load and a store: the
    // lost update is found, so their steps are scheduled.
    let report = dfs()
        .explore(|| {
            let n = samaritan::sync::atomic::AtomicUsize::new(0);
            samaritan_crossbeam::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|_| {
                        let seen = n.load(Ordering::SeqCst);
                        n.store(seen + 1, Ordering::SeqCst);
                    });
                }
            })
            .unwrap();
            assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
        })
        .unwrap();
    assert!(
        matches!(&report.outcome, Outcome::Panic { message, .. } if message.contains("an increment was lost")),
        "{report}"
    );
}
