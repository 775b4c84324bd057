//! The C11 memory model: litmus tests with their exact outcome sets, SeqCst
//! done right (Dekker and Peterson pass), data races under the real
//! happens-before, and the `sc` model as it was.
#![cfg(feature = "sim")]

mod common;

use std::collections::BTreeSet;

use common::litmus::{outcomes, outcomes_under, Outcomes};
use samaritan::cell::UnsafeCell;
use samaritan::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, MemoryModel, Outcome, SearchStrategy};

use Ordering::{Acquire, Relaxed, Release, SeqCst};

fn set(items: &[&[usize]]) -> BTreeSet<Vec<usize>> {
    items.iter().map(|v| v.to_vec()).collect()
}

/// Two atomics, shared.
type Two = Arc<(AtomicUsize, AtomicUsize)>;

/// Two atomics shared by two threads.
fn pair() -> (Two, Two) {
    let a = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
    (a.clone(), a)
}

/// Store buffering: each thread stores to one location and loads the other.
fn sb(store: Ordering, load: Ordering, fences: bool) -> Outcomes {
    sb_under(MemoryModel::Weak, store, load, fences)
}

fn sb_under(model: MemoryModel, store: Ordering, load: Ordering, fences: bool) -> Outcomes {
    outcomes_under(model, move || {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, store);
            if fences {
                fence(SeqCst);
            }
            b.1.load(load)
        });
        a.1.store(1, store);
        if fences {
            fence(SeqCst);
        }
        let r2 = a.0.load(load);
        vec![t.join().unwrap(), r2]
    })
}

#[test]
fn store_buffering_reads_both_old_values_unless_seqcst() {
    let all = set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]);
    let sc = set(&[&[0, 1], &[1, 0], &[1, 1]]);
    assert_eq!(sb(Relaxed, Relaxed, false).set, all);
    assert_eq!(sb(Release, Acquire, false).set, all);
    assert_eq!(sb(SeqCst, SeqCst, false).set, sc);
    // Relaxed accesses with a SeqCst fence between them on both sides.
    assert_eq!(sb(Relaxed, Relaxed, true).set, sc);
}

#[test]
fn the_sc_model_ignores_orderings_and_makes_no_choice_of_store() {
    let relaxed = sb_under(MemoryModel::Sc, Relaxed, Relaxed, false);
    assert_eq!(relaxed.set, set(&[&[0, 1], &[1, 0], &[1, 1]]));
    // The interleavings of two threads' two steps each after the spawn,
    // nothing more: the same count as SeqCst under the C11 model, which
    // has no choice of store either.
    let seqcst = sb(SeqCst, SeqCst, false);
    assert_eq!((relaxed.executions, seqcst.executions), (6, 6));
    // Relaxed under the C11 model: a load after the other thread's store
    // may also read the initial value (a choice per such load).
    assert_eq!(sb(Relaxed, Relaxed, false).executions, 20);
}

/// Store buffering whose loads are failing compare-exchanges (expecting a
/// value never stored, so each returns the value it read): what each
/// thread read.
fn sb_cas_run() -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, Relaxed);
        b.1.compare_exchange(7, 8, Relaxed, Relaxed).unwrap_err()
    });
    a.1.store(1, Relaxed);
    let r2 = a.0.compare_exchange(7, 8, Relaxed, Relaxed).unwrap_err();
    vec![t.join().unwrap(), r2]
}

fn sb_cas(model: MemoryModel) -> Outcomes {
    outcomes_under(model, sb_cas_run)
}

#[test]
fn a_failing_compare_exchange_reads_stale_stores_unless_loom_s_approximation_is_asked_for() {
    // C11: a failing compare-exchange is a load with its failure ordering,
    // so both may read the initial value, as two loads would.
    let weak = sb_cas(MemoryModel::Weak);
    assert_eq!(weak.set, set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]));
    // Loom's approximation: it reads the newest store, as a successful one
    // does; the outcome that needs a stale read is gone, and so are the
    // executions that chose one (the interleavings alone, as under sc).
    let newest = sb_cas(MemoryModel::WeakCasNewest);
    assert_eq!(newest.set, set(&[&[0, 1], &[1, 0], &[1, 1]]));
    assert_eq!((weak.executions, newest.executions), (20, 6));
    // A plain load still chooses among stores under the approximation.
    let loads = sb_under(MemoryModel::WeakCasNewest, Relaxed, Relaxed, false);
    assert_eq!((loads.set.len(), loads.executions), (4, 20));
}

#[test]
fn a_pass_under_loom_s_approximation_says_so_and_its_tokens_replay_under_it() {
    let program = || assert_ne!(sb_cas_run(), [0, 0], "both read the initial value");
    let weak = Builder::new().strategy(SearchStrategy::Dfs).persist(false).explore(program).unwrap();
    assert!(weak.is_failure(), "{weak}");
    let newest = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .memory_model(MemoryModel::WeakCasNewest)
        .persist(false)
        .explore(program)
        .unwrap();
    assert_eq!(
        newest.to_string(),
        "pass: every execution explored, a failing compare-exchange reading only the newest store \
         (loom's approximation): 6 executions, no bug (strategy dfs)"
    );
    // A failure found under the approximation names it in its token, and
    // the token replays under it (where the weak model's choices differ).
    let mp = || {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, Relaxed);
            b.1.store(1, Relaxed);
        });
        if a.1.compare_exchange(1, 2, Relaxed, Relaxed).is_ok() {
            assert_eq!(a.0.load(Relaxed), 1, "published but not seen");
        }
        t.join().unwrap();
    };
    let found = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .memory_model(MemoryModel::WeakCasNewest)
        .persist(false)
        .explore(mp)
        .unwrap();
    let failure = found.failure.as_ref().expect("a stale plain load is still explored");
    let schedule = samaritan::Schedule::from_token(&failure.token).unwrap();
    assert_eq!(schedule.memory_model, MemoryModel::WeakCasNewest);
    let replayed = Builder::new().replay(&failure.token, mp).unwrap();
    assert_eq!(replayed.failure.unwrap().trace, failure.trace);
}

/// Message passing: data, then a flag; the reader reads the flag, then the
/// data.
fn mp(store: Ordering, load: Ordering) -> Outcomes {
    outcomes(move || {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, Relaxed);
            b.1.store(1, store);
        });
        let flag = a.1.load(load);
        let data = a.0.load(Relaxed);
        t.join().unwrap();
        vec![flag, data]
    })
}

#[test]
fn message_passing_needs_release_and_acquire() {
    let all = set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]);
    assert_eq!(mp(Relaxed, Relaxed).set, all);
    assert_eq!(mp(Release, Relaxed).set, all);
    assert_eq!(mp(Relaxed, Acquire).set, all);
    assert_eq!(mp(Release, Acquire).set, set(&[&[0, 0], &[0, 1], &[1, 1]]));
}

#[test]
fn message_passing_through_fences() {
    let got = outcomes(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, Relaxed);
            fence(Release);
            b.1.store(1, Relaxed);
        });
        let flag = a.1.load(Relaxed);
        fence(Acquire);
        let data = a.0.load(Relaxed);
        t.join().unwrap();
        vec![flag, data]
    });
    assert_eq!(got.set, set(&[&[0, 0], &[0, 1], &[1, 1]]));
}

/// A read under the C11 model says, in the trace, which store it read.
#[test]
fn a_weak_memory_failure_says_which_store_each_load_read() {
    let data_line = line!() + 6;
    let flag_line = line!() + 5;
    let report = Builder::new().strategy(SearchStrategy::Dfs).explore(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(42, Relaxed);
            b.1.fetch_add(1, Relaxed);
        });
        if a.1.load(Relaxed) == 1 {
            assert_eq!(a.0.load(Relaxed), 42, "the data is published with a Relaxed flag");
        }
        t.join().unwrap();
    });
    let report = report.unwrap();
    let failure = report.failure.as_ref().expect("the stale read is found");
    let at = |line: u32| format!("tests/weak_memory.rs:{line}:17");
    // (thread, operation with the value read, which store, whether an RMW's).
    let reads: Vec<_> = failure
        .trace
        .lines
        .iter()
        .filter_map(|l| {
            let r = l.read.as_ref()?;
            Some((l.actor.as_str(), format!("{}={}", l.op, r.value.as_deref()?), r.store.clone(), r.rmw))
        })
        .collect();
    assert_eq!(
        reads,
        [
            ("t1", "rmw=0".to_string(), None, false),
            ("main", "load=1".to_string(), Some((at(flag_line), "t1".to_string())), true),
            ("main", "load=0".to_string(), None, false),
        ],
        "{report}"
    );
    let text = failure.trace.to_string();
    assert!(text.contains(&format!("(from rmw at {} by t1)", at(flag_line))), "{text}");
    assert!(text.contains("load=0") && text.contains("(from the initial value)"), "{text}");
    // The store the stale load did not read is in the trace too.
    assert!(text.contains(&at(data_line)), "{text}");
    // The format is versioned, and the annotated trace reads back.
    assert_eq!(samaritan::Trace::parse(&failure.trace.to_file()).as_ref(), Ok(&failure.trace));
}

#[test]
fn load_buffering_is_out_of_scope() {
    // RC11 allows [1, 1] (each load reads the other thread's later store);
    // the model never reads a store from the future.
    let got = outcomes(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            let r = b.0.load(Relaxed);
            b.1.store(1, Relaxed);
            r
        });
        let r = a.1.load(Relaxed);
        a.0.store(1, Relaxed);
        vec![t.join().unwrap(), r]
    });
    assert_eq!(got.set, set(&[&[0, 0], &[0, 1], &[1, 0]]));
}

/// Independent reads of independent writes: two writers, two readers that
/// read the locations in opposite orders.
fn iriw(store: Ordering, load: Ordering) -> Outcomes {
    outcomes(move || {
        let a = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let (w1, w2, r1, r2) = (a.clone(), a.clone(), a.clone(), a.clone());
        let t1 = thread::spawn(move || w1.0.store(1, store));
        let t2 = thread::spawn(move || w2.1.store(1, store));
        let t3 = thread::spawn(move || vec![r1.0.load(load), r1.1.load(load)]);
        let t4 = thread::spawn(move || vec![r2.1.load(load), r2.0.load(load)]);
        t1.join().unwrap();
        t2.join().unwrap();
        let mut seen = t3.join().unwrap();
        seen.extend(t4.join().unwrap());
        seen
    })
}

#[test]
fn iriw_readers_disagree_on_the_order_of_writes_unless_seqcst() {
    // The readers' outcome [x, y] then [y, x]: [1, 0, 1, 0] means the first
    // reader saw x before y and the second y before x.
    let weak = iriw(Release, Acquire);
    assert!(weak.set.contains(&vec![1, 0, 1, 0]), "{:?}", weak.set);
    assert_eq!(weak.set.len(), 16);
    let sc = iriw(SeqCst, SeqCst);
    assert!(!sc.set.contains(&vec![1, 0, 1, 0]), "{:?}", sc.set);
    assert_eq!(sc.set.len(), 15);
}

/// 2+2W: each thread writes both locations, in opposite orders; the final
/// values after both joined.
fn two_plus_two_w(order: Ordering) -> Outcomes {
    outcomes(move || {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, order);
            b.1.store(2, order);
        });
        a.1.store(1, order);
        a.0.store(2, order);
        t.join().unwrap();
        vec![a.0.load(Relaxed), a.1.load(Relaxed)]
    })
}

#[test]
fn two_plus_two_w_orders_stores_against_program_order_unless_seqcst() {
    assert_eq!(two_plus_two_w(Relaxed).set, set(&[&[1, 1], &[1, 2], &[2, 1], &[2, 2]]));
    assert_eq!(two_plus_two_w(Release).set, set(&[&[1, 1], &[1, 2], &[2, 1], &[2, 2]]));
    assert_eq!(two_plus_two_w(SeqCst).set, set(&[&[1, 2], &[2, 1], &[2, 2]]));
}

#[test]
fn coherence_of_reads_and_writes_holds_even_when_relaxed() {
    // CoRR: two reads of one thread never see the writes out of order.
    let corr = outcomes(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || {
            b.0.store(1, Relaxed);
            b.0.store(2, Relaxed);
        });
        let r1 = a.0.load(Relaxed);
        let r2 = a.0.load(Relaxed);
        t.join().unwrap();
        vec![r1, r2]
    });
    assert_eq!(corr.set, set(&[&[0, 0], &[0, 1], &[0, 2], &[1, 1], &[1, 2], &[2, 2]]));
    // CoWR: a thread reads its own write or a later one, never the initial.
    let cowr = outcomes(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || b.0.store(2, Relaxed));
        a.0.store(1, Relaxed);
        let r = a.0.load(Relaxed);
        t.join().unwrap();
        vec![r]
    });
    assert_eq!(cowr.set, set(&[&[1], &[2]]));
}

#[test]
fn read_modify_writes_are_atomic_and_continue_release_sequences() {
    let adds = outcomes(|| {
        let (a, b) = pair();
        let t = thread::spawn(move || b.0.fetch_add(1, Relaxed));
        let mine = a.0.fetch_add(1, Relaxed);
        let theirs = t.join().unwrap();
        vec![mine.min(theirs), mine.max(theirs), a.0.load(Relaxed)]
    });
    assert_eq!(adds.set, set(&[&[0, 1, 2]]));
    // Release store, then another thread's relaxed RMW: an acquire reading
    // the RMW still synchronizes with the release (a release sequence).
    let chain = outcomes(|| {
        let a = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let (b, c) = (a.clone(), a.clone());
        let t1 = thread::spawn(move || {
            b.0.store(1, Relaxed);
            b.1.store(1, Release);
        });
        let t2 = thread::spawn(move || {
            c.1.fetch_add(1, Relaxed);
        });
        let flag = a.1.load(Acquire);
        let data = a.0.load(Relaxed);
        t1.join().unwrap();
        t2.join().unwrap();
        vec![flag, data]
    });
    // Flag 2 is the RMW that read the release store: the data must be
    // seen. Flag 1 may be the RMW that ran first, which publishes nothing.
    assert_eq!(chain.set, set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1], &[2, 1]]));
}

/// Two flags and the data they guard.
struct Guarded {
    flags: (AtomicBool, AtomicBool),
    data: UnsafeCell<usize>,
}

// SAFETY: the tests use `data` only as their protocol allows; a wrong
// protocol is what the race detector is there to report.
unsafe impl Sync for Guarded {}

/// Dekker's mutual exclusion with SeqCst flags: each thread raises its
/// flag, then enters only if the other's is down.
fn dekker(store: Ordering, load: Ordering) -> samaritan::Report {
    Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(move || {
            let flags = (AtomicBool::new(false), AtomicBool::new(false));
            let state = Arc::new(Guarded { flags, data: UnsafeCell::new(0) });
            let s = state.clone();
            let t = thread::spawn(move || {
                s.flags.1.store(true, store);
                if !s.flags.0.load(load) {
                    // SAFETY: inside the critical section.
                    s.data.with_mut(|v| unsafe { *v += 1 });
                }
            });
            state.flags.0.store(true, store);
            if !state.flags.1.load(load) {
                // SAFETY: inside the critical section.
                state.data.with_mut(|v| unsafe { *v += 1 });
            }
            t.join().unwrap();
        })
        .unwrap()
}

#[test]
fn dekker_is_correct_with_seqcst_and_races_with_acquire_release() {
    let sc = dekker(SeqCst, SeqCst);
    assert_eq!((&sc.outcome, sc.executions, sc.exhausted), (&Outcome::Pass, 6, true), "{sc}");
    let weak = dekker(Release, Acquire);
    assert!(matches!(weak.outcome, Outcome::DataRace { .. }), "{weak}");
}

/// Peterson's lock: a flag each and a shared `turn`.
struct Peterson {
    flags: [AtomicBool; 2],
    turn: AtomicUsize,
    data: UnsafeCell<usize>,
}

// SAFETY: as `Guarded`: `data` is used only inside the lock, and a lock
// that does not exclude is what the race detector reports.
unsafe impl Sync for Peterson {}

impl Peterson {
    /// Thread `me` takes the lock, adds one to `data`, and lets go.
    fn add(&self, me: usize, order: (Ordering, Ordering)) {
        let (store, load) = order;
        let other = 1 - me;
        self.flags[me].store(true, store);
        self.turn.store(other, store);
        while self.flags[other].load(load) && self.turn.load(load) == other {
            thread::yield_now();
        }
        // SAFETY: inside the critical section.
        self.data.with_mut(|v| unsafe { *v += 1 });
        self.flags[me].store(false, store);
    }
}

/// Two threads each take Peterson's lock once, with the given orderings.
fn peterson(store: Ordering, load: Ordering) -> samaritan::Report {
    Builder::new()
        .strategy(SearchStrategy::Dpor)
        .explore(move || {
            let lock = Arc::new(Peterson {
                flags: [AtomicBool::new(false), AtomicBool::new(false)],
                turn: AtomicUsize::new(0),
                data: UnsafeCell::new(0),
            });
            let l = lock.clone();
            let t = thread::spawn(move || l.add(1, (store, load)));
            lock.add(0, (store, load));
            t.join().unwrap();
            // SAFETY: both threads are done.
            assert_eq!(lock.data.with(|v| unsafe { *v }), 2);
        })
        .unwrap()
}

#[test]
fn peterson_is_correct_with_seqcst_and_races_with_acquire_release() {
    // Every order of the flag, turn and spin steps under DPOR, the spins
    // ended by the fair scheduler's yield rule; no SeqCst load reads a
    // stale flag, so no execution enters twice.
    let sc = peterson(SeqCst, SeqCst);
    assert_eq!((&sc.outcome, sc.executions, sc.exhausted), (&Outcome::Pass, 36, true), "{sc}");
    // Each thread stores its flag, then loads the other's: store buffering
    // lets both read "down" and enter together.
    let weak = peterson(Release, Acquire);
    assert!(matches!(weak.outcome, Outcome::DataRace { .. }), "{weak}");
}

/// A value initialized once under a lock and published by a flag, read
/// without the lock once the flag is up (double-checked initialization).
struct Published {
    ready: AtomicBool,
    init: samaritan::sync::Mutex<()>,
    value: UnsafeCell<usize>,
}

// SAFETY: `value` is written once, under `init`, before `ready` is raised,
// and read only after `ready` is seen up; whether the flag's orderings
// make that a happens-before is what the race detector checks.
unsafe impl Sync for Published {}

impl Published {
    fn get(&self, order: (Ordering, Ordering)) -> usize {
        let (store, load) = order;
        if !self.ready.load(load) {
            let _guard = self.init.lock().unwrap();
            if !self.ready.load(Relaxed) {
                self.value.with_mut(|v| unsafe { *v = 42 });
                self.ready.store(true, store);
            }
        }
        // SAFETY: see the `Sync` impl.
        self.value.with(|v| unsafe { *v })
    }
}

fn lazy_publish(store: Ordering, load: Ordering) -> samaritan::Report {
    lazy_publish_under(MemoryModel::Weak, store, load)
}

fn lazy_publish_under(model: MemoryModel, store: Ordering, load: Ordering) -> samaritan::Report {
    let program = move || {
        let lazy = Arc::new(Published {
            ready: AtomicBool::new(false),
            init: samaritan::sync::Mutex::new(()),
            value: UnsafeCell::new(0),
        });
        let other = lazy.clone();
        let t = thread::spawn(move || other.get((store, load)));
        let mine = lazy.get((store, load));
        assert_eq!((mine, t.join().unwrap()), (42, 42));
    };
    Builder::new().strategy(SearchStrategy::Dpor).memory_model(model).explore(program).expect("valid settings")
}

#[test]
fn a_lazy_value_published_with_a_relaxed_flag_is_a_data_race() {
    // The reader that finds the flag up reads the value without the lock:
    // with a Relaxed flag nothing orders the initializing write before it.
    let relaxed = lazy_publish(Relaxed, Relaxed);
    let Outcome::DataRace { cell, first, second } = &relaxed.outcome else { panic!("{relaxed}") };
    assert_eq!(cell, "UnsafeCell#0", "{relaxed}");
    assert_eq!((first.write, second.write), (true, false), "{relaxed}");
    // Release on the store alone, or Acquire on the load alone, is not
    // enough either; both together are.
    assert!(matches!(lazy_publish(Release, Relaxed).outcome, Outcome::DataRace { .. }));
    assert!(matches!(lazy_publish(Relaxed, Acquire).outcome, Outcome::DataRace { .. }));
    let fixed = lazy_publish(Release, Acquire);
    // 6 while the reader's weak load of the flag was reordered with the
    // initializer's store as well as choosing between its stores.
    assert_eq!((&fixed.outcome, fixed.executions, fixed.exhausted), (&Outcome::Pass, 4, true), "{fixed}");
    // Under `sc` every atomic access synchronizes: the bug is not there.
    let sc = lazy_publish_under(MemoryModel::Sc, Relaxed, Relaxed);
    assert_eq!((&sc.outcome, sc.exhausted), (&Outcome::Pass, true), "{sc}");
}

/// A cell shared between threads; whether its accesses are ordered is
/// what the race detector checks.
struct Shared(UnsafeCell<usize>);

// SAFETY: the accesses are checked by the race detector, which is what the
// tests that use it look at.
unsafe impl Sync for Shared {}

/// A data write published by a Release store, which the reader's Relaxed
/// read-modify-write reads and continues (a release sequence); the
/// reader's Acquire load of its own RMW's store then synchronizes with the
/// writer, so reading the data is no race.
#[test]
fn an_acquire_load_of_ones_own_relaxed_rmw_synchronizes_through_the_release_sequence() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            let shared = Arc::new((AtomicUsize::new(0), Shared(UnsafeCell::new(0))));
            let theirs = shared.clone();
            let t = thread::spawn(move || {
                // SAFETY: see `Shared`.
                theirs.1 .0.with_mut(|p| unsafe { *p = 7 });
                theirs.0.store(1, Release);
            });
            if shared.0.fetch_add(0, Relaxed) == 1 && shared.0.load(Acquire) == 1 {
                // SAFETY: ordered after the write by the release sequence.
                assert_eq!(shared.1 .0.with(|p| unsafe { *p }), 7);
            }
            t.join().unwrap();
        })
        .expect("valid settings");
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
}

/// One thread stores `1..=n` to an atomic, another loads it `n` times
/// (all `Relaxed`): the loads can read `C(2n, n)` ways (a non-decreasing
/// sequence of the `n + 1` values), and DPOR runs exactly one execution
/// per way. A weak load commutes with the stores before it, so DPOR no
/// longer runs both orders of each load and store and, in each, every
/// choice of store: 2, 6, 20, 70 against DFS's 3, 20, 175, 1764 (and
/// DPOR's own before, which were DFS's here: every step touched the one
/// atomic).
#[test]
fn dpor_runs_one_execution_per_way_the_loads_can_read() {
    let mut counts = Vec::new();
    for n in 1..=4 {
        let seen = outcomes(move || {
            let x = Arc::new(AtomicUsize::new(0));
            let writer = x.clone();
            let t = thread::spawn(move || (1..=n).for_each(|i| writer.store(i, Relaxed)));
            let read: Vec<usize> = (0..n).map(|_| x.load(Relaxed)).collect();
            t.join().unwrap();
            read
        });
        assert!(seen.set.iter().all(|read| read.windows(2).all(|w| w[0] <= w[1])), "coherence: {:?}", seen.set);
        counts.push((seen.set.len(), seen.executions, seen.dpor));
    }
    assert_eq!(counts, [(2, 3, 2), (6, 20, 6), (20, 175, 20), (70, 1764, 70)]);
}
