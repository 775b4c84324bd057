//! Stack overflow in a simulated thread is a verdict, with the thread's
//! name and stack size, and a token that replays it; the process goes on.
#![cfg(all(feature = "sim", target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Outcome};

/// Recurses `n` levels deep, 256 bytes of frame each at least.
#[inline(never)]
fn recurse(n: u64) -> u64 {
    let frame = std::hint::black_box([n as u8; 256]);
    if n == 0 {
        return u64::from(frame[0]);
    }
    std::hint::black_box(recurse(n - 1)) + u64::from(frame[1])
}

/// The verdict of `report`, which must be a stack overflow.
fn overflow(report: &samaritan::Report) -> (&str, usize) {
    match &report.outcome {
        Outcome::StackOverflow { actor, stack_size } => (actor.as_str(), *stack_size),
        _ => panic!("expected a stack overflow:\n{report}"),
    }
}

fn spawned_thread_overflows() {
    let t = thread::spawn(|| recurse(1_000_000));
    std::hint::black_box(t.join().unwrap());
}

#[test]
fn a_thread_that_overflows_its_stack_is_a_verdict_whose_token_replays() {
    let builder = Builder::new().stack_size(256 * 1024);
    let report = builder.explore(spawned_thread_overflows).unwrap();
    assert_eq!(overflow(&report), ("t1", 256 * 1024));
    assert_eq!(report.executions, 1);
    assert_eq!(
        report.to_string().lines().nth(2),
        Some("stack overflow: thread 't1' overflowed its stack of 262144 bytes")
    );
    let token = &report.failure.as_ref().unwrap().token;
    let replayed = builder.replay(token, spawned_thread_overflows).unwrap();
    assert_eq!(overflow(&replayed), ("t1", 256 * 1024));
    // The exploring thread is fine afterwards: the next search runs on it.
    let next = Builder::new().explore(|| thread::spawn(|| recurse(10)).join().map(drop).unwrap()).unwrap();
    assert!(!next.outcome.is_failure(), "{next}");
}

#[test]
fn one_threads_own_stack_size_is_the_one_reported() {
    let report = Builder::new()
        .stack_size(64 * 1024)
        .explore(|| {
            let t =
                thread::Builder::new().name("deep".into()).stack_size(512 * 1024).spawn(|| recurse(1_000_000)).unwrap();
            std::hint::black_box(t.join().unwrap());
        })
        .unwrap();
    assert_eq!(overflow(&report), ("deep", 512 * 1024));
}

#[test]
fn a_thread_asking_for_less_than_the_default_gets_and_reports_the_default() {
    let report = Builder::new()
        .stack_size(256 * 1024)
        .explore(|| {
            let t = thread::Builder::new().stack_size(16 * 1024).spawn(|| recurse(1_000_000)).unwrap();
            std::hint::black_box(t.join().unwrap());
        })
        .unwrap();
    assert_eq!(overflow(&report), ("t1", 256 * 1024));
}

#[test]
fn the_main_thread_overflowing_inside_a_scope_leaves_its_scoped_threads_alone() {
    let report = Builder::new()
        .stack_size(256 * 1024)
        .explore(|| {
            let shared = Mutex::new(0u32);
            let hits = AtomicUsize::new(0);
            thread::scope(|s| {
                s.spawn(|| {
                    // Borrows from main's frames, which the overflow
                    // discards: this thread must never run again.
                    *shared.lock().unwrap() += 1;
                    hits.fetch_add(1, Ordering::SeqCst);
                });
                std::hint::black_box(recurse(1_000_000));
            });
        })
        .unwrap();
    assert_eq!(overflow(&report), ("main", 256 * 1024));
}

#[test]
fn an_overflow_is_found_only_in_the_schedules_that_recurse() {
    let report = Builder::new()
        .strategy(samaritan::SearchStrategy::Dfs)
        .stack_size(256 * 1024)
        .explore(|| {
            let depth = Arc::new(AtomicUsize::new(10));
            let d = depth.clone();
            let t = thread::spawn(move || d.store(1_000_000, Ordering::SeqCst));
            std::hint::black_box(recurse(depth.load(Ordering::SeqCst) as u64));
            t.join().unwrap();
        })
        .unwrap();
    assert_eq!(overflow(&report), ("main", 256 * 1024));
    // The first schedule runs main to its end before t1 stores.
    assert_eq!(report.executions, 2);
    let trace = report.failure.as_ref().unwrap().trace.to_string();
    assert!(trace.contains("store"), "{trace}");
}
