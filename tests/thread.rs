//! `samaritan::thread`: std's behaviour outside an exploration (and in
//! production builds), and the modelled threads under `sim`.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
use std::sync::Arc as StdArc;
use std::time::{Duration, Instant};

use samaritan::thread;
use samaritan::thread_local;

thread_local! {
    /// A counter per thread, with a lazy (not `const`) initializer.
    static COUNTER: Cell<u32> = Cell::new(ten());
    static LOG: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

fn ten() -> u32 {
    "10".parse().unwrap()
}

thread_local!(static SINGLE: Cell<u8> = const { Cell::new(7) });

#[test]
fn spawn_and_join_return_the_value() {
    let handle = thread::spawn(|| 6 * 7);
    assert_eq!(handle.join().unwrap(), 42);
}

#[test]
fn a_panicking_thread_joins_as_an_error_and_sees_panicking() {
    struct Check(StdArc<StdAtomicBool>);
    impl Drop for Check {
        fn drop(&mut self) {
            self.0.store(thread::panicking(), StdOrdering::SeqCst);
        }
    }
    let saw = StdArc::new(StdAtomicBool::new(false));
    let theirs = saw.clone();
    let handle = thread::spawn(move || {
        let _check = Check(theirs);
        panic!("on purpose");
    });
    assert!(handle.join().is_err());
    assert!(saw.load(StdOrdering::SeqCst));
    assert!(!thread::panicking());
}

#[test]
fn builder_names_the_thread_and_sets_its_stack() {
    let handle = thread::Builder::new()
        .name("worker".to_string())
        .stack_size(1 << 20)
        .spawn(|| thread::current().name().map(str::to_string))
        .unwrap();
    assert_eq!(handle.thread().name(), Some("worker"));
    assert_eq!(handle.join().unwrap().as_deref(), Some("worker"));
    let unnamed = thread::spawn(|| thread::current().name().map(str::to_string));
    assert_eq!(unnamed.thread().name(), None);
    assert_eq!(unnamed.join().unwrap(), None);
}

#[test]
fn thread_ids_are_stable_and_distinct() {
    let me = thread::current();
    assert_eq!(me.id(), thread::current().id());
    let handle = thread::spawn(|| thread::current().id());
    let theirs = handle.thread().id();
    assert_eq!(handle.join().unwrap(), theirs);
    assert_ne!(theirs, me.id());
    let ids: HashSet<thread::ThreadId> = [me.id(), theirs, me.id()].into_iter().collect();
    assert_eq!(ids.len(), 2);
    assert!(format!("{:?}", me.id()).starts_with("ThreadId("));
    assert!(format!("{me:?}").starts_with("Thread {"));
}

#[test]
fn is_finished_turns_true_once_the_thread_is_done() {
    let handle = thread::spawn(|| thread::sleep(Duration::from_millis(1)));
    while !handle.is_finished() {
        thread::yield_now();
    }
    handle.join().unwrap();
}

#[test]
fn sleep_waits_at_least_its_duration() {
    let start = Instant::now();
    thread::sleep(Duration::from_millis(20));
    assert!(start.elapsed() >= Duration::from_millis(20));
}

#[test]
fn an_unpark_before_park_makes_park_return() {
    thread::current().unpark();
    thread::park();
    // The token was consumed: this one has to time out.
    let start = Instant::now();
    thread::park_timeout(Duration::from_millis(10));
    assert!(start.elapsed() >= Duration::from_millis(10));
}

#[test]
fn unpark_wakes_a_parked_thread() {
    let flag = StdArc::new(StdAtomicBool::new(false));
    let theirs = flag.clone();
    let handle = thread::spawn(move || {
        // `park` may wake spuriously in production: wait for the flag.
        while !theirs.load(StdOrdering::SeqCst) {
            thread::park();
        }
    });
    flag.store(true, StdOrdering::SeqCst);
    handle.thread().unpark();
    handle.join().unwrap();
}

#[test]
fn scoped_threads_borrow_local_data() {
    let mut numbers = vec![1, 2, 3];
    let total = StdAtomicUsize::new(0);
    let doubled = thread::scope(|s| {
        s.spawn(|| total.fetch_add(numbers.iter().sum(), StdOrdering::SeqCst));
        let named = thread::Builder::new()
            .name("scoped".to_string())
            .spawn_scoped(s, || (thread::current().name().map(str::to_string), numbers.len()))
            .unwrap();
        assert_eq!(named.thread().name(), Some("scoped"));
        assert_eq!(named.join().unwrap(), (Some("scoped".to_string()), 3));
        let last = s.spawn(|| numbers.iter().map(|n| n * 2).collect::<Vec<_>>());
        while !last.is_finished() {
            thread::yield_now();
        }
        last.join().unwrap()
    });
    // Every scoped thread was joined: `total` is final and `numbers` free.
    assert_eq!(total.load(StdOrdering::SeqCst), 6);
    assert_eq!(doubled, [2, 4, 6]);
    numbers.push(4);
    assert_eq!(numbers.len(), 4);
}

#[test]
fn a_scoped_thread_can_spawn_in_its_scope() {
    let count = StdAtomicUsize::new(0);
    thread::scope(|s| {
        s.spawn(|| {
            s.spawn(|| count.fetch_add(1, StdOrdering::SeqCst));
            count.fetch_add(1, StdOrdering::SeqCst);
        });
    });
    assert_eq!(count.load(StdOrdering::SeqCst), 2);
}

#[test]
fn available_parallelism_is_at_least_one() {
    assert!(thread::available_parallelism().unwrap().get() >= 1);
}

#[test]
fn thread_locals_are_per_thread() {
    COUNTER.set(1);
    LOG.with_borrow_mut(|log| log.push("main"));
    let (counter, log) = thread::spawn(|| {
        let before = COUNTER.get();
        COUNTER.set(before + 1);
        LOG.with_borrow_mut(|log| log.push("spawned"));
        (COUNTER.get(), LOG.with_borrow(Vec::clone))
    })
    .join()
    .unwrap();
    assert_eq!(counter, 11);
    assert_eq!(log, ["spawned"]);
    assert_eq!(COUNTER.get(), 1);
    assert_eq!(LOG.with_borrow(Vec::clone), ["main"]);
}

#[test]
fn local_key_cell_and_refcell_methods() {
    thread::spawn(|| {
        assert_eq!(SINGLE.get(), 7);
        assert_eq!(SINGLE.replace(8), 7);
        assert_eq!(SINGLE.take(), 8);
        assert_eq!(SINGLE.with(Cell::get), 0);
        assert_eq!(SINGLE.try_with(Cell::get), Ok(0));
        // `set` on a fresh key does not run the initializer.
        COUNTER.set(3);
        assert_eq!(COUNTER.get(), 3);
        LOG.set(vec!["a"]);
        assert_eq!(LOG.replace(vec!["b"]), ["a"]);
        assert_eq!(LOG.take(), ["b"]);
        assert!(LOG.with_borrow(Vec::is_empty));
    })
    .join()
    .unwrap();
}

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use super::common::{check_exhausts, dfs};
    use super::*;
    use samaritan::thread_local;

    use samaritan::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use samaritan::sync::Arc;
    use samaritan::{Builder, Deadlock, Outcome, SearchStrategy};

    /// Asserts that DFS finds a deadlock in `f` within `executions`
    /// executions, that its token replays to the same deadlock, and returns
    /// it.
    #[track_caller]
    fn check_deadlocks<F: Fn() + Send + Sync + Clone + 'static>(f: F, executions: u64) -> Deadlock {
        let report = dfs(f.clone());
        let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("{report}") };
        assert_eq!(report.executions, executions, "{report}");
        let token = &report.failure.as_ref().expect("a failure has a token").token;
        let again = Builder::new().replay(token, f).expect("a token we just made");
        assert_eq!(again.outcome, report.outcome, "{again}");
        deadlock.clone()
    }

    /// Summarizes a deadlock as (actor, op, object, holders) rows.
    fn rows(deadlock: &Deadlock) -> Vec<(String, String, String, String)> {
        deadlock
            .blocked
            .iter()
            .map(|b| (b.actor.clone(), b.op.clone(), b.object.clone().unwrap_or_default(), b.holders.join(",")))
            .collect()
    }

    #[test]
    fn park_and_unpark_in_both_orders() {
        let orders = StdArc::new([StdAtomicUsize::new(0), StdAtomicUsize::new(0)]);
        let seen = orders.clone();
        // main: spawn S, unpark U, join J; t1: store W, then chooses
        // whether its park wakes spuriously, park P (enabled once the token
        // is set, so after U, unless spurious). After S, t1 waits at W: DFS
        // tries main first. U then W P J: the token is there before t1
        // parks, either choice (2). W then U P J: t1 blocks in P until U
        // (1); or P is spurious, before or after U (2). Five executions,
        // two of them with the unpark before the parker arrived.
        check_exhausts(
            move || {
                let arrived = Arc::new(AtomicBool::new(false));
                let theirs = arrived.clone();
                let arrived_first = StdArc::new(StdAtomicBool::new(false));
                let mark = arrived_first.clone();
                let handle = thread::spawn(move || {
                    theirs.store(true, Ordering::SeqCst);
                    mark.store(true, StdOrdering::SeqCst);
                    thread::park();
                });
                handle.thread().unpark();
                seen[usize::from(arrived_first.load(StdOrdering::SeqCst))].fetch_add(1, StdOrdering::SeqCst);
                handle.join().unwrap();
            },
            5,
        );
        let counts = [orders[0].load(StdOrdering::SeqCst), orders[1].load(StdOrdering::SeqCst)];
        assert_eq!(counts, [2, 3], "unpark before the parker arrived, after it");
    }

    #[test]
    fn an_unpark_of_oneself_lets_the_next_park_through() {
        // One thread: U then P, which may wake spuriously or take the
        // token: two executions, one thread.
        check_exhausts(
            || {
                thread::current().unpark();
                thread::park();
            },
            2,
        );
    }

    /// The orders in which spawned threads' first visible operations ran,
    /// across one exploration.
    static FIRST_ORDERS: std::sync::Mutex<std::collections::BTreeSet<Vec<usize>>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());

    /// main spawns three threads whose first visible operation is on one
    /// shared object (a lock: shuttle's `mutex_unfair`; or an atomic
    /// fetch_add) and joins them, or returns at once; records the order
    /// they reached it in.
    fn first_steps(by_lock: bool, join: bool) {
        let order = Arc::new(samaritan::sync::Mutex::new(Vec::new()));
        let ticket = Arc::new(AtomicUsize::new(0));
        let slots: Arc<[StdAtomicUsize; 3]> = Arc::new([const { StdAtomicUsize::new(0) }; 3]);
        let handles: Vec<_> = (0..3)
            .map(|id| {
                let (order, ticket, slots) = (order.clone(), ticket.clone(), slots.clone());
                thread::spawn(move || {
                    let last = if by_lock {
                        let mut order = order.lock().unwrap();
                        order.push(id);
                        (order.len() == 3).then(|| order.clone())
                    } else {
                        // A plain std store: the fetch_add is the only step.
                        let ticket = ticket.fetch_add(1, Ordering::SeqCst);
                        slots[ticket].store(id, StdOrdering::SeqCst);
                        (ticket == 2).then(|| slots.iter().map(|s| s.load(StdOrdering::SeqCst)).collect())
                    };
                    if let Some(seen) = last.filter(|_| !join) {
                        FIRST_ORDERS.lock().unwrap().insert(seen);
                    }
                })
            })
            .collect();
        if !join {
            return;
        }
        for h in handles {
            h.join().unwrap();
        }
        let seen = if by_lock {
            order.lock().unwrap().clone()
        } else {
            slots.iter().map(|s| s.load(StdOrdering::SeqCst)).collect()
        };
        FIRST_ORDERS.lock().unwrap().insert(seen);
    }

    #[test]
    fn spawned_threads_take_their_first_steps_in_every_order() {
        // Three threads: 3! = 6 orders of their first steps, each reached
        // by every exhaustive search (DFS, DPOR; cb-por and icb within a
        // bound of 0 preemptions: main blocks in its first join or ends,
        // and each thread runs to its end, so any thread may go next for
        // free), whether main joins them or returns at once.
        let searches = [
            (SearchStrategy::Dfs, 0),
            (SearchStrategy::Dpor, 0),
            (SearchStrategy::CbPor, 0),
            (SearchStrategy::Icb, 0),
            (SearchStrategy::Portfolio, 2),
        ];
        for (by_lock, join) in [(true, true), (false, true), (true, false), (false, false)] {
            for (strategy, bound) in searches {
                FIRST_ORDERS.lock().unwrap().clear();
                let report = Builder::new()
                    .strategy(strategy)
                    .preemption_bound(bound)
                    .explore(move || first_steps(by_lock, join))
                    .unwrap();
                assert!(report.outcome.is_pass() && report.exhausted, "{report}");
                let orders = FIRST_ORDERS.lock().unwrap().len();
                assert_eq!(orders, 6, "{strategy:?}, by lock {by_lock}, join {join}: {report}");
            }
        }
    }

    #[test]
    fn park_may_wake_spuriously() {
        // main: S, W (store), U, J; t1 parks once (P) and assumes the
        // unpark came (no loop on the flag, which std's docs warn
        // against), reading the flag (L). t1 chooses first whether P is
        // spurious. No: P waits for U, one schedule, passes. Yes: P is
        // always enabled; after W, U P L, P U L and P L U pass; before W,
        // P L reads false: the fifth execution fails.
        let body = || {
            let flag = Arc::new(AtomicBool::new(false));
            let theirs = flag.clone();
            let handle = thread::spawn(move || {
                thread::park();
                assert!(theirs.load(Ordering::SeqCst), "woke without an unpark");
            });
            flag.store(true, Ordering::SeqCst);
            handle.thread().unpark();
            handle.join().unwrap();
        };
        let report = dfs(body);
        let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!((message.as_str(), report.executions), ("woke without an unpark", 5), "{report}");
        // Without spurious wake-ups: S W U P L J, one schedule.
        let report = Builder::new().strategy(SearchStrategy::Dfs).spurious_failures(false).explore(body).unwrap();
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 1), "{report}");
    }

    #[test]
    fn a_park_nobody_unparks_is_a_deadlock() {
        let deadlock = check_deadlocks(thread::park, 1);
        assert_eq!(rows(&deadlock), [("main".into(), "park".into(), "Thread#0".into(), String::new())]);
        assert!(deadlock.cycle.is_empty());
    }

    #[test]
    fn a_consumed_token_does_not_wake_a_second_park() {
        // main: S, U, J; t1: P1, P2. P1 waits for U, P2 for a second unpark
        // that never comes; main waits in J. One schedule.
        let deadlock = check_deadlocks(
            || {
                let handle = thread::Builder::new()
                    .name("parker".to_string())
                    .spawn(|| {
                        thread::park();
                        thread::park();
                    })
                    .unwrap();
                handle.thread().unpark();
                handle.join().unwrap();
            },
            1,
        );
        // The parked thread gives up its hold on its own object while it
        // parks, so `join` shows no holder and there is no cycle.
        assert_eq!(
            rows(&deadlock),
            [
                ("main".into(), "join".into(), "Thread#0".into(), String::new()),
                ("parker".into(), "park".into(), "Thread#0".into(), String::new()),
            ]
        );
        assert!(deadlock.cycle.is_empty());
    }

    #[test]
    fn park_timeout_is_unparked_or_times_out() {
        let outcomes = StdArc::new([StdAtomicUsize::new(0), StdAtomicUsize::new(0)]);
        let seen = outcomes.clone();
        // main: S, U, J; t1: T (park_timeout, always enabled), then, if it
        // timed out, P. After S: U first, then T takes the token (J waits);
        // or T first and times out, then U, and P takes the token; or P is
        // spurious, before or after U. Four, three of them timed out.
        check_exhausts(
            move || {
                let unparked = StdArc::new(StdAtomicBool::new(false));
                let theirs = unparked.clone();
                let seen = seen.clone();
                let handle = thread::spawn(move || {
                    thread::park_timeout(Duration::from_secs(1));
                    let woken = theirs.load(StdOrdering::SeqCst);
                    seen[usize::from(woken)].fetch_add(1, StdOrdering::SeqCst);
                    if !woken {
                        // Timed out: the token is still to come.
                        thread::park();
                    }
                });
                handle.thread().unpark();
                unparked.store(true, StdOrdering::SeqCst);
                handle.join().unwrap();
            },
            4,
        );
        let counts = [outcomes[0].load(StdOrdering::SeqCst), outcomes[1].load(StdOrdering::SeqCst)];
        assert_eq!(counts, [3, 1], "timed out three times, unparked once");
    }

    #[test]
    fn scoped_threads_borrow_local_data_and_are_joined() {
        // main: S1, S2, E (scope end, waits for both), L; t1: A; t2: B.
        // After S1: A first, then S2, B, E, L (1); or S2 first, then A and
        // B in either order (2). Three executions.
        check_exhausts(
            || {
                let n = AtomicUsize::new(0);
                let local = [1, 2];
                thread::scope(|s| {
                    s.spawn(|| n.fetch_add(local[0], Ordering::SeqCst));
                    s.spawn(|| n.fetch_add(local[1], Ordering::SeqCst));
                });
                assert_eq!(n.load(Ordering::SeqCst), 3);
            },
            3,
        );
    }

    #[test]
    fn scoped_join_handles_and_nested_spawns() {
        // main: S1, J1 (join t1), E (scope end), L; t1: S2 (spawns t2), A;
        // t2: B. After S1 only t1 can go (S2). Then A or B:
        // - A: t1 is done; J1 or B next, the other after: 2;
        // - B: J1 still waits for A, so A, J1, E, L: 1. Three executions.
        check_exhausts(
            || {
                let n = AtomicUsize::new(0);
                let name = thread::scope(|s| {
                    let h = thread::Builder::new()
                        .name("outer".to_string())
                        .spawn_scoped(s, || {
                            s.spawn(|| n.fetch_add(1, Ordering::SeqCst));
                            n.fetch_add(1, Ordering::SeqCst);
                            thread::current().name().map(str::to_string)
                        })
                        .unwrap();
                    assert_eq!(h.thread().name(), Some("outer"));
                    h.join().unwrap()
                });
                assert_eq!(name.as_deref(), Some("outer"));
                assert_eq!(n.load(Ordering::SeqCst), 2);
            },
            3,
        );
    }

    #[test]
    fn a_scope_waiting_on_a_parked_thread_is_a_deadlock() {
        let deadlock = check_deadlocks(
            || {
                let local = 5;
                thread::scope(|s| {
                    s.spawn(|| {
                        assert_eq!(local, 5);
                        thread::park();
                    });
                });
            },
            1,
        );
        // The scoped thread holds the scope while it runs.
        assert_eq!(
            rows(&deadlock),
            [
                ("main".into(), "join".into(), "Scope#1".into(), "t1".into()),
                ("t1".into(), "park".into(), "Thread#0".into(), String::new()),
            ]
        );
    }

    #[test]
    fn a_deadlock_inside_a_scope_abandons_both_threads_and_runs_nothing_of_theirs() {
        static DROPPED: StdAtomicUsize = StdAtomicUsize::new(0);
        /// Writes through a borrow of main's stack when dropped.
        struct Guard<'a>(&'a StdAtomicUsize);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, StdOrdering::SeqCst);
                DROPPED.fetch_add(1, StdOrdering::SeqCst);
            }
        }
        let report = samaritan::Builder::new()
            .strategy(samaritan::SearchStrategy::Dfs)
            .minimize(false)
            .explore(|| {
                let on_main_stack = StdAtomicUsize::new(0);
                thread::scope(|s| {
                    let h = s.spawn(|| {
                        let _guard = Guard(&on_main_stack);
                        thread::park();
                    });
                    h.join().unwrap();
                });
            })
            .unwrap();
        let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("{report}") };
        assert_eq!(
            rows(deadlock),
            [
                ("main".into(), "join".into(), "Thread#0".into(), String::new()),
                ("t1".into(), "park".into(), "Thread#0".into(), String::new()),
            ]
        );
        // Both threads are abandoned where they stand, main's scope with
        // them: t1's guard, which borrows main's stack, is never dropped,
        // so it never writes to a stack that is reused.
        assert_eq!(report.failure.as_ref().unwrap().leaked_actors, 0);
        assert_eq!(DROPPED.load(StdOrdering::SeqCst), 0);
    }

    #[test]
    fn a_panic_in_a_scoped_thread_fails_the_execution() {
        let report = dfs(|| {
            let local = 1;
            thread::scope(|s| {
                s.spawn(|| assert_eq!(local, 2, "scoped thread saw {local}"));
            });
        });
        let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!(actor, "t1");
        assert!(message.contains("scoped thread saw 1"), "{message}");
        assert_eq!(report.executions, 1);
        assert_eq!(report.failure.as_ref().unwrap().leaked_actors, 0);
    }

    thread_local! {
        static DROPS_SEEN: Cell<usize> = const { Cell::new(0) };
        static NOISY: Noisy = const { Noisy(0) };
    }

    static NOISY_DROPS: StdAtomicUsize = StdAtomicUsize::new(0);

    /// Counts its drops in `NOISY_DROPS`.
    struct Noisy(u8);

    impl Drop for Noisy {
        fn drop(&mut self) {
            NOISY_DROPS.fetch_add(usize::from(self.0) + 1, StdOrdering::SeqCst);
        }
    }

    #[test]
    fn thread_locals_are_distinct_per_simulated_thread() {
        // No visible operation touches a thread-local: main S, J; t1 none.
        // One execution.
        check_exhausts(
            || {
                COUNTER.set(1);
                DROPS_SEEN.set(5);
                NOISY.with(|_| ());
                let handle = thread::spawn(|| {
                    NOISY.with(|_| ());
                    let fresh = (COUNTER.get(), DROPS_SEEN.get());
                    COUNTER.set(2);
                    LOG.with_borrow_mut(|log| log.push("t1"));
                    (fresh, COUNTER.get(), LOG.take())
                });
                assert_eq!(handle.join().unwrap(), ((10, 0), 2, vec!["t1"]));
                assert_eq!(COUNTER.get(), 1);
                assert_eq!(DROPS_SEEN.get(), 5);
                assert!(LOG.with_borrow(Vec::is_empty));
                // t1's value went when t1 finished; main's goes at its end.
                assert_eq!(NOISY_DROPS.load(StdOrdering::SeqCst), 1);
            },
            1,
        );
        assert_eq!(NOISY_DROPS.load(StdOrdering::SeqCst), 2);
        // Outside an execution the std thread-local is used, untouched.
        assert_eq!(COUNTER.get(), 10);
    }

    /// A thread-local whose destructor takes a visible step (a fetch_add
    /// on a samaritan atomic) and, the first time, creates another key's
    /// value, whose destructor adds 10.
    struct Stepping;

    /// A thread-local created only during another's destruction.
    struct Late;

    /// Shared by the tests of `Stepping`: they take `ONE_AT_A_TIME` first.
    static STEPS: AtomicUsize = AtomicUsize::new(0);
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    thread_local! {
        static STEPPING: Stepping = const { Stepping };
        static LATE: Late = const { Late };
    }

    impl Drop for Stepping {
        fn drop(&mut self) {
            STEPS.fetch_add(1, Ordering::SeqCst);
            // A key whose destruction began is refused, as in std.
            assert!(STEPPING.try_with(|_| ()).is_err());
            LATE.with(|_| ());
        }
    }

    impl Drop for Late {
        fn drop(&mut self) {
            STEPS.fetch_add(10, Ordering::SeqCst);
        }
    }

    #[test]
    fn join_returns_after_the_thread_locals_are_destroyed() {
        // main: S, J, then its load; t1: its thread-local's destructor D1
        // (a step) and the one it creates, D2. join waits for both:
        // S D1 D2 J, one schedule. (Counted finished before its
        // destructors ran, t1 let J go first: main read 0, and D2 never
        // ran at all.)
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        check_exhausts(
            || {
                STEPS.store(0, Ordering::SeqCst);
                let t = thread::spawn(|| STEPPING.with(|_| ()));
                t.join().unwrap();
                assert_eq!(STEPS.load(Ordering::SeqCst), 11);
            },
            1,
        );
    }

    #[test]
    fn a_scope_may_end_before_its_threads_thread_locals_are_destroyed() {
        // As in std, a scope waits for its threads' closures, not their
        // thread-local destructors. main: the scope's end E, then its load
        // L; t1 (its closure done before its first step): D1, D2. The 6
        // orders of the two pairs put L before D1 (1), between (2) or
        // after both (3).
        static SEEN: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        SEEN.lock().unwrap().clear();
        check_exhausts(
            || {
                STEPS.store(0, Ordering::SeqCst);
                thread::scope(|s| {
                    s.spawn(|| STEPPING.with(|_| ()));
                });
                SEEN.lock().unwrap().push(STEPS.load(Ordering::SeqCst));
            },
            6,
        );
        let mut seen = SEEN.lock().unwrap().clone();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 1, 11, 11, 11]);
    }

    #[test]
    fn current_names_and_ids_come_from_the_engine() {
        check_exhausts(
            || {
                let main = thread::current();
                assert_eq!(main.name(), Some("main"));
                assert_eq!(format!("{:?}", main.id()), "ThreadId(1)");
                let named = thread::Builder::new()
                    .name("worker".to_string())
                    .spawn(|| (thread::current().name().map(str::to_string), thread::current().id()))
                    .unwrap();
                let unnamed = thread::spawn(|| (thread::current().name().map(str::to_string), thread::current().id()));
                assert_eq!(named.thread().name(), Some("worker"));
                assert_eq!(unnamed.thread().name(), None);
                let (named_id, unnamed_id) = (named.thread().id(), unnamed.thread().id());
                assert_eq!(named.join().unwrap(), (Some("worker".to_string()), named_id));
                assert_eq!(unnamed.join().unwrap(), (None, unnamed_id));
                assert_eq!(format!("{named_id:?}/{unnamed_id:?}"), "ThreadId(2)/ThreadId(3)");
                assert_eq!(thread::current().id(), main.id());
            },
            1,
        );
    }

    #[test]
    fn a_stack_that_cannot_be_had_makes_spawn_fail_as_std_does() {
        // r10: std's `spawn` returns the OS's error for a stack it cannot
        // map; so does a simulated thread's, without taking a step.
        let report = samaritan::Builder::new()
            .strategy(samaritan::SearchStrategy::Dfs)
            .explore(|| {
                for size in [1 << 62, usize::MAX] {
                    let err = thread::Builder::new().stack_size(size).spawn(|| 1).unwrap_err();
                    assert!(err.kind() == std::io::ErrorKind::OutOfMemory, "{err:?}");
                }
                // Spawning goes on as before.
                assert_eq!(thread::spawn(|| 2).join().unwrap(), 2);
            })
            .unwrap();
        assert_eq!((&report.outcome, report.executions, report.longest), (&samaritan::Outcome::Pass, 1, 2), "{report}");
    }
}
