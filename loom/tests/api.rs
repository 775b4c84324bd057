//! loom's API surface, used as loom users use it.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Condvar, Mutex, Notify};
use loom::thread;
use std::rc::Rc;

use crate::{assert_panic, assert_pass, assert_race, check, check_with};

#[test]
fn model_runs_a_correct_program() {
    loom::model(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let m = n.clone();
        let t = thread::spawn(move || m.fetch_add(1, Ordering::Relaxed));
        n.fetch_add(1, Ordering::Relaxed);
        t.join().unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 2);
    });
}

#[test]
fn spawn_takes_non_send_closures() {
    let report = check(|| {
        let shared = Rc::new(5);
        let t = thread::spawn(move || Rc::new(*shared + 1));
        assert_eq!(*t.join().unwrap(), 6);
    });
    assert_pass(&report, 1);
}

#[test]
fn spawn_outside_a_model_panics() {
    let err = std::panic::catch_unwind(|| thread::spawn(|| ())).unwrap_err();
    let message = err.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("outside loom::model"), "{message}");
}

/// A `Notify`, a flag, and a thread that sets the flag (Relaxed) and
/// then notifies.
fn spawn_notifier() -> (Arc<Notify>, Arc<AtomicUsize>, thread::JoinHandle<()>) {
    let notify = Arc::new(Notify::new());
    let done = Arc::new(AtomicUsize::new(0));
    let (n, d) = (notify.clone(), done.clone());
    let t = thread::spawn(move || {
        d.store(1, Ordering::Relaxed);
        n.notify();
    });
    (notify, done, t)
}

#[test]
fn notify_wakes_the_waiter() {
    let report = check(|| {
        let (notify, done, t) = spawn_notifier();
        // A wait may return spuriously (once, as loom's): check and wait
        // again.
        while done.load(Ordering::Relaxed) == 0 {
            notify.wait();
        }
        t.join().unwrap();
    });
    // 12 while the relaxed loads of `done` were also reordered with the
    // store they may read.
    assert_pass(&report, 7);
}

#[test]
fn a_notify_wait_may_return_spuriously_as_loom_s() {
    let report = check(|| {
        let (notify, done, t) = spawn_notifier();
        notify.wait();
        assert_eq!(done.load(Ordering::Relaxed), 1, "woke without the notification");
        t.join().unwrap();
    });
    assert_panic(&report, "woke without the notification");
}

#[test]
fn spurious_wakeups_are_off_as_in_loom_unless_asked() {
    // A waiter that trusts one `wait` (an `if` where a `while` belongs):
    // loom never wakes it spuriously, and neither does samaritan-loom by
    // default; with spurious failures on, samaritan finds the bug.
    fn model() {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let other = pair.clone();
        let t = thread::spawn(move || {
            *other.0.lock().unwrap() = true;
            other.1.notify_one();
        });
        let mut ready = pair.0.lock().unwrap();
        if !*ready {
            ready = pair.1.wait(ready).unwrap();
        }
        assert!(*ready, "woke spuriously");
        drop(ready);
        t.join().unwrap();
    }
    assert_pass(&check(model), 2);
    let report = check_with(|b| b.spurious_failures = true, model);
    assert_panic(&report, "woke spuriously");
}

#[test]
fn get_mut_pointers_are_checked() {
    /// Two threads write through `MutPtr`s with nothing ordering them.
    struct Racy(UnsafeCell<u32>);
    // SAFETY: the claim under test.
    unsafe impl Sync for Racy {}

    let report = check(|| {
        let cell = Arc::new(Racy(UnsafeCell::new(0)));
        let other = cell.clone();
        let t = thread::spawn(move || {
            let p = other.0.get_mut();
            // SAFETY: the race under test; the value stays valid.
            unsafe { *p.deref() += 1 };
        });
        cell.0.get_mut().with(|p| unsafe { *p += 1 });
        t.join().unwrap();
    });
    assert_race(&report);
}

#[test]
fn locked_accesses_through_const_ptr_pass() {
    let report = check(|| {
        let shared = Arc::new((Mutex::new(()), UnsafeCell::new(1u32)));
        let other = shared.clone();
        let t = thread::spawn(move || {
            let _held = other.0.lock().unwrap();
            // SAFETY: the lock is held.
            unsafe { *other.1.get().deref() }
        });
        {
            let _held = shared.0.lock().unwrap();
            // SAFETY: the lock is held.
            shared.1.with_mut(|p| unsafe { *p = 2 });
        }
        let seen = t.join().unwrap();
        assert!(seen == 1 || seen == 2);
    });
    assert_pass(&report, 2);
}

/// A value whose drop writes to a cell, shared through `Arc`.
struct WritesOnDrop(UnsafeCell<u32>);

// SAFETY: the cell is written by one thread, then by the drop (what the
// model checks).
unsafe impl Sync for WritesOnDrop {}

impl Drop for WritesOnDrop {
    fn drop(&mut self) {
        // SAFETY: the last owner.
        self.0.with_mut(|p| unsafe { *p = 0 });
    }
}

/// The main thread writes through its `Arc` and drops it while another
/// thread drops its clone: whichever drops last drops the value.
macro_rules! drop_race {
    ($arc:ident) => {{
        let a = $arc::new(WritesOnDrop(UnsafeCell::new(1)));
        let b = $arc::clone(&a);
        let t = thread::spawn(move || {
            thread::yield_now();
            drop(b);
        });
        // SAFETY: `b` is only dropped, never read.
        a.0.with_mut(|p| unsafe { *p = 2 });
        drop(a);
        t.join().unwrap();
    }};
}

#[test]
fn arc_orders_the_last_drop() {
    assert_pass(&check(|| drop_race!(Arc)), 2);
}

#[test]
fn std_arc_would_report_a_false_race() {
    // std's count is not modelled: the drop in the spawned thread is not
    // ordered after the main thread's write.
    use std::sync::Arc as StdArc;
    assert_race(&check(|| drop_race!(StdArc)));
}

loom::lazy_static! {
    static ref TOTAL: AtomicUsize = AtomicUsize::new(0);
}

loom::thread_local! {
    static LOCAL: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

#[test]
fn lazy_static_and_thread_local() {
    let report = check(|| {
        let t = thread::spawn(|| LOCAL.with(|l| l.replace(7)));
        LOCAL.with(|l| l.set(1));
        assert_eq!(t.join().unwrap(), 0);
        assert_eq!(LOCAL.with(|l| l.get()), 1);
        let _ = TOTAL.load(Ordering::Relaxed);
    });
    assert_pass(&report, 1);
}

#[test]
fn block_on_and_atomic_waker() {
    let report = check(|| {
        let value = loom::future::block_on(async { 6 * 7 });
        assert_eq!(value, 42);
        let waker = loom::future::AtomicWaker::new();
        waker.wake();
        assert!(waker.take_waker().is_none());
    });
    assert_pass(&report, 1);
}

#[test]
fn atomics_have_loom_extras() {
    let report = check(|| {
        let mut n = AtomicUsize::new(3);
        n.with_mut(|v| *v += 1);
        // SAFETY: not shared.
        assert_eq!(unsafe { n.unsync_load() }, 4);
        assert_eq!(n.into_inner(), 4);
        loom::hint::spin_loop();
        loom::skip_branch();
    });
    assert_pass(&report, 1);
}

/// Two threads and the main thread take one lock each, at bound 0.
fn three_lockers(loom_bound: bool) -> samaritan::Report {
    let bound_0 = |b: &mut loom::model::Builder| {
        b.preemption_bound = Some(0);
        b.loom_bound = loom_bound;
    };
    check_with(bound_0, || {
        let lock = Arc::new(loom::sync::Mutex::new(0));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let lock = lock.clone();
                thread::spawn(move || *lock.lock().unwrap() += 1)
            })
            .collect();
        *lock.lock().unwrap() += 1;
        for t in threads {
            t.join().unwrap();
        }
    })
}

#[test]
fn a_preemption_bound_runs_bpor_counting_the_bound_as_loom() {
    // Loom's count: at bound 0 no other switch is ever explored, so one
    // execution (the main thread's lock first, then the threads in order).
    let report = three_lockers(true);
    assert_eq!((report.strategy.as_str(), report.executions, report.completed_bound), ("bpor", 1, Some(0)));
    assert!(
        report.to_string().contains(
            "every execution with <= 0 preemptions and no other switch once they are spent (loom's bound) explored"
        ),
        "{report}"
    );
    // The whole bound: the free switch where the main thread blocks in
    // `join` is explored too (which thread takes the lock first).
    let report = three_lockers(false);
    assert_eq!((report.strategy.as_str(), report.executions, report.completed_bound), ("bpor", 2, Some(0)));
    assert!(report.to_string().contains("every execution with <= 0 preemptions explored"), "{report}");
}

/// Store buffering through failing compare-exchanges: both reading the
/// initial value needs a failing compare-exchange to read a stale store.
fn cas_store_buffering(cas_reads_newest: bool) -> samaritan::Report {
    check_with(
        |b| b.cas_reads_newest = cas_reads_newest,
        || {
            let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
            let (x2, y2) = (x.clone(), y.clone());
            let t = thread::spawn(move || {
                x2.store(1, Ordering::Relaxed);
                y2.compare_exchange(7, 8, Ordering::Relaxed, Ordering::Relaxed).unwrap_err()
            });
            y.store(1, Ordering::Relaxed);
            let seen = x.compare_exchange(7, 8, Ordering::Relaxed, Ordering::Relaxed).unwrap_err();
            assert!(seen + t.join().unwrap() > 0, "both read the initial value");
        },
    )
}

#[test]
fn a_failing_compare_exchange_reads_the_newest_store_as_loom_s_and_the_summary_says_so() {
    let report = cas_store_buffering(true);
    assert!(report.outcome.is_pass(), "{report}");
    assert!(
        report.to_string().contains(
            "every execution explored, a failing compare-exchange reading only the newest store (loom's approximation)"
        ),
        "{report}"
    );
    // The whole C11 model finds the stale reads.
    let report = cas_store_buffering(false);
    assert!(report.is_failure() && report.to_string().contains("both read the initial value"), "{report}");
}

#[test]
fn cells_are_checked() {
    /// A `Cell` shared with nothing ordering its accesses.
    struct Shared(loom::cell::Cell<u32>);
    // SAFETY: the claim under test.
    unsafe impl Sync for Shared {}

    let report = check(|| {
        let shared = Arc::new(Shared(loom::cell::Cell::new(1)));
        let other = shared.clone();
        let t = thread::spawn(move || other.0.set(2));
        let _ = shared.0.get();
        t.join().unwrap();
    });
    assert_race(&report);
}

#[test]
fn max_branches_is_the_step_bound() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = None;
    builder.max_duration = None;
    builder.max_branches = 10;
    let report = builder
        .to_samaritan()
        .persist(false)
        .explore(|| {
            let n = AtomicUsize::new(0);
            for _ in 0..20 {
                n.fetch_add(1, Ordering::Relaxed);
            }
        })
        .unwrap();
    // Past the bound, the fair scheduler names the thread that took the
    // steps without yielding (even with no other thread to starve).
    assert!(
        matches!(&report.outcome, samaritan::Outcome::GoodSamaritanViolation { actor, steps: 10, .. } if actor == "main"),
        "{report}"
    );
}
