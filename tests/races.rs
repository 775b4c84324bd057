//! `samaritan::cell::UnsafeCell` in production mode, and data races found
//! under exploration.

use samaritan::cell::UnsafeCell;
use samaritan::sync::{Arc, Mutex};

/// A value threads share with no synchronization of its own: whatever
/// orders its accesses is up to the program, and samaritan checks it.
struct Shared(UnsafeCell<u64>);

// SAFETY: the tests order the accesses themselves, except the racy ones,
// which run only inside an exploration, where every thread is a coroutine
// on one OS thread and accesses never overlap in time.
unsafe impl Sync for Shared {}

impl Shared {
    fn new(value: u64) -> Arc<Shared> {
        Arc::new(Shared(UnsafeCell::new(value)))
    }

    #[track_caller]
    fn set(&self, value: u64) {
        // SAFETY: see `Sync`.
        self.0.with_mut(|p| unsafe { *p = value });
    }

    #[track_caller]
    fn get(&self) -> u64 {
        // SAFETY: see `Sync`.
        self.0.with(|p| unsafe { *p })
    }
}

#[test]
fn the_cell_behaves_like_std() {
    let cell = UnsafeCell::new(vec![1]);
    // SAFETY: no other reference to the value exists during either call.
    cell.with_mut(|p| unsafe { (*p).push(2) });
    assert_eq!(cell.with(|p| unsafe { (*p).clone() }), [1, 2]);
    let mut cell = cell;
    cell.get_mut().push(3);
    assert_eq!(cell.into_inner(), [1, 2, 3]);
    assert_eq!(UnsafeCell::<u8>::default().into_inner(), 0);
    assert_eq!(UnsafeCell::from(7).into_inner(), 7);
    assert_eq!(format!("{:?}", UnsafeCell::new(5)), format!("{:?}", std::cell::UnsafeCell::new(5)));
    // `new` is const, so a `Sync` wrapper can be a static.
    static STATIC: Shared = Shared(UnsafeCell::new(1));
    assert_eq!(STATIC.get(), 1);
}

#[cfg(not(feature = "sim"))]
#[test]
fn without_sim_the_cell_is_std_s_in_size_and_layout() {
    use std::mem::{align_of, size_of};
    assert_eq!(size_of::<UnsafeCell<[u8; 3]>>(), size_of::<std::cell::UnsafeCell<[u8; 3]>>());
    assert_eq!(align_of::<UnsafeCell<u64>>(), align_of::<u64>());
    let cell = UnsafeCell::new(1u32);
    assert_eq!(cell.with(|p| p as usize), &cell as *const UnsafeCell<u32> as usize);
}

#[test]
fn a_locked_cell_counts_with_real_threads() {
    // In both modes these are real threads: outside an exploration the cell
    // only hands out its pointer.
    let lock = Arc::new(Mutex::new(()));
    let shared = Shared::new(0);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (lock, shared) = (lock.clone(), shared.clone());
            std::thread::spawn(move || {
                for _ in 0..1000 {
                    let _held = lock.lock().unwrap();
                    shared.set(shared.get() + 1);
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(shared.get(), 4000);
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::sync::atomic::{AtomicBool, Ordering};
    use samaritan::sync::{mpsc, Condvar};
    use samaritan::{thread, Builder, Outcome, RaceAccess, Report, SearchStrategy};

    fn dfs<F: Fn() + Send + Sync + 'static>(f: F) -> Report {
        Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings")
    }

    /// Asserts that DFS passes `f` after exactly `executions` executions,
    /// having exhausted the space.
    #[track_caller]
    fn check_passes<F: Fn() + Send + Sync + 'static>(f: F, executions: u64) {
        let report = dfs(f);
        assert_eq!(
            (&report.outcome, report.executions, report.exhausted),
            (&Outcome::Pass, executions, true),
            "{report}"
        );
    }

    /// An access of `actor` at `line` (counted from a program's `fn`
    /// line, `line!()` in the constant above it) and `column` of this file.
    fn access(write: bool, actor: &str, line: u32, column: u32) -> RaceAccess {
        RaceAccess {
            write,
            actor: actor.into(),
            location: format!("tests/races.rs:{line}:{column}"),
            in_std_arc_drop: false,
        }
    }

    /// The line of `unsynchronized_writes`.
    const UNSYNCHRONIZED: u32 = line!() + 2;
    /// A thread and main write the cell with nothing ordering them.
    fn unsynchronized_writes() {
        let shared = Shared::new(0);
        let other = shared.clone();
        let t = thread::spawn(move || other.set(1));
        shared.set(2);
        t.join().unwrap();
    }

    #[test]
    fn unsynchronized_writes_race_in_the_first_execution() {
        let report = dfs(unsynchronized_writes);
        // t1 runs to its end when spawned (a cell access is no scheduling
        // point), so its write comes first; main's write does not happen
        // after it in any schedule.
        assert_eq!(
            report.outcome,
            Outcome::DataRace {
                cell: "UnsafeCell#0".into(),
                first: access(true, "t1", UNSYNCHRONIZED + 3, 45),
                second: access(true, "main", UNSYNCHRONIZED + 4, 16),
            },
            "{report}"
        );
        assert_eq!(report.executions, 1);
        let (t1, main) = (UNSYNCHRONIZED + 3, UNSYNCHRONIZED + 4);
        assert_eq!(
            report.outcome.to_string(),
            format!(
                "data race on UnsafeCell#0: nothing orders these two accesses, and at least one writes\n  \
                 write by thread 't1' at tests/races.rs:{t1}:45\n  write by thread 'main' at tests/races.rs:{main}:16\n  \
                 make one happen after the other (a lock, a join, a channel, an atomic store the other thread loads)"
            )
        );
        // The trace holds steps only: the spawn, then the race ends the
        // execution at main's next scheduling point.
        let failure = report.failure.as_ref().expect("a race has a trace");
        assert_eq!(failure.trace.to_string().trim(), format!("0  main  spawn             -  tests/races.rs:{t1}:17"));
    }

    /// The same writes under a lock.
    fn locked_writes() {
        let (lock, shared) = (Arc::new(Mutex::new(())), Shared::new(0));
        let (lock2, other) = (lock.clone(), shared.clone());
        let t = thread::spawn(move || {
            let _held = lock2.lock().unwrap();
            other.set(other.get() + 1);
        });
        {
            let _held = lock.lock().unwrap();
            shared.set(shared.get() + 1);
        }
        t.join().unwrap();
        assert_eq!(shared.get(), 2);
    }

    #[test]
    fn writes_under_a_lock_pass_in_every_schedule() {
        // t1 starts and announces its lock; main's lock or t1's goes first,
        // and everything after is forced (the other lock, then the join,
        // wait): 2 executions, each checked for races.
        check_passes(locked_writes, 2);
    }

    /// A thread publishes the cell's value through a flag; main reads the
    /// cell only once it saw the flag.
    fn message_passing() {
        let (ready, shared) = (Arc::new(AtomicBool::new(false)), Shared::new(0));
        let (ready2, other) = (ready.clone(), shared.clone());
        let t = thread::spawn(move || {
            other.set(42);
            ready2.store(true, Ordering::Release);
        });
        if ready.load(Ordering::Acquire) {
            assert_eq!(shared.get(), 42);
        }
        t.join().unwrap();
    }

    #[test]
    fn a_flag_store_seen_by_a_load_orders_the_cell() {
        // t1 writes when spawned and announces its store; main's load runs
        // before it (false: no read) or after it, where under the C11 model
        // it reads the store (true: the read happens after the write) or
        // still the initial false (no read): 3 executions.
        check_passes(message_passing, 3);
    }

    /// A thread writes the cell, then sends a message; main reads the cell
    /// once it received it.
    fn channel_handoff() {
        let (tx, rx) = mpsc::channel();
        let shared = Shared::new(0);
        let other = shared.clone();
        let t = thread::spawn(move || {
            other.set(1);
            tx.send(()).unwrap();
        });
        rx.recv().unwrap();
        assert_eq!(shared.get(), 1);
        t.join().unwrap();
    }

    #[test]
    fn a_message_orders_the_cell() {
        // main's recv waits for t1's send; then main's recv and t1's close
        // (its sender dropped) go in either order: 2 executions.
        check_passes(channel_handoff, 2);
    }

    /// Main writes, spawns a thread that writes, joins it and reads.
    fn spawn_and_join() {
        let shared = Shared::new(0);
        shared.set(1);
        let other = shared.clone();
        let t = thread::spawn(move || other.set(other.get() + 1));
        t.join().unwrap();
        shared.set(shared.get() + 1);
        assert_eq!(shared.get(), 3);
    }

    #[test]
    fn a_spawn_and_a_join_order_the_cell() {
        check_passes(spawn_and_join, 1);
    }

    /// Two threads and main read a cell written before the spawns.
    fn concurrent_reads() {
        let shared = Shared::new(7);
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let other = shared.clone();
                thread::spawn(move || assert_eq!(other.get(), 7))
            })
            .collect();
        assert_eq!(shared.get(), 7);
        handles.into_iter().for_each(|h| h.join().unwrap());
    }

    #[test]
    fn reads_do_not_race_with_reads() {
        check_passes(concurrent_reads, 1);
    }

    /// A value initialized on first use, whose check and initialization are
    /// separate steps: two threads may both find it missing.
    struct Lazy {
        ready: AtomicBool,
        value: Shared,
    }

    /// The line of `Lazy::get`.
    const LAZY_GET: u32 = line!() + 2;
    impl Lazy {
        fn get(&self) -> u64 {
            if !self.ready.load(Ordering::Acquire) {
                self.value.set(42);
                self.ready.store(true, Ordering::Release);
            }
            self.value.get()
        }
    }

    fn racy_lazy_init() {
        let lazy = Arc::new(Lazy { ready: AtomicBool::new(false), value: Shared(UnsafeCell::new(0)) });
        let other = lazy.clone();
        let t = thread::spawn(move || assert_eq!(other.get(), 42));
        assert_eq!(lazy.get(), 42);
        t.join().unwrap();
    }

    /// Both threads initialize: main, then t1.
    fn double_initialization() -> Outcome {
        Outcome::DataRace {
            cell: "UnsafeCell#0".into(),
            first: access(true, "main", LAZY_GET + 2, 28),
            second: access(true, "t1", LAZY_GET + 2, 28),
        }
    }

    #[test]
    fn a_race_only_some_schedules_show_is_found_and_replays() {
        // With no preemption main initializes before t1 checks; under the
        // C11 model t1's check may still read the initial false (the second
        // execution), and both write: no preemption needed. (Under
        // sequential consistency the race takes both checks before either
        // store: 1 preemption, execution 3.)
        let report = Builder::new().strategy(SearchStrategy::Icb).explore(racy_lazy_init).expect("valid settings");
        let expected = double_initialization();
        assert_eq!((&report.outcome, report.executions, report.completed_bound), (&expected, 2, None), "{report}");
        let failure = report.failure.as_ref().expect("a race has a trace");
        assert_eq!(failure.trace.preemptions(), 0, "{report}");
        let again = Builder::new().replay(&failure.token, racy_lazy_init).expect("a token just made");
        assert_eq!(again.outcome, expected, "{again}");
        assert_eq!(again.failure.expect("a replayed race has a trace").trace, failure.trace);
    }

    #[test]
    fn dfs_finds_the_lazy_race_in_its_second_execution() {
        // DFS runs main to its join first (t1 then finds the value set: a
        // pass), then switches to t1 right after main's check.
        let report = dfs(racy_lazy_init);
        assert_eq!((report.outcome, report.executions), (double_initialization(), 2));
    }

    /// Main reads the cell under a lock, then waits on a condition
    /// variable (which gives the lock up without an unlock step) until t1
    /// has written it under the lock.
    fn condvar_handoff() {
        let (state, shared) = (Arc::new((Mutex::new(false), Condvar::new())), Shared::new(0));
        let (state2, other) = (state.clone(), shared.clone());
        let t = thread::spawn(move || {
            let (done, changed) = &*state2;
            let mut done = done.lock().unwrap();
            other.set(other.get() + 1);
            *done = true;
            changed.notify_one();
        });
        let (done, changed) = &*state;
        let mut done = done.lock().unwrap();
        let before = shared.get();
        while !*done {
            done = changed.wait(done).unwrap();
        }
        assert_eq!((before, shared.get()), (if before == 0 { 0 } else { 1 }, 1));
        drop(done);
        t.join().unwrap();
    }

    #[test]
    fn a_condvar_wait_releases_the_lock_for_race_detection() {
        // t1's section first: everything after is forced (1). main's
        // first: it reads, gives the lock up in its wait, t1 writes under
        // it and notifies, and main's wake-up comes before or after t1's
        // unlock (2). Without the release in the wait, t1's write would not
        // come after main's read. Main's first wait may also wake
        // spuriously (W2 always enabled, then L' re-checks): W2 before
        // t1's lock, with L' before it (a second wait, woken before or
        // after t1's unlock: 2) or after it (t1's notification is lost: 1);
        // W2 after t1's lock, before its notify (1) or after it, before or
        // after its unlock (2). Total 3 + 6 = 9.
        check_passes(condvar_handoff, 9);
    }

    /// The line of `scoped`.
    const SCOPED: u32 = line!() + 3;
    /// A scoped thread writes the cell (two do when `second_writes`), and
    /// main reads it after the scope.
    fn scoped(second_writes: bool) {
        let shared = Shared(UnsafeCell::new(0));
        thread::scope(|s| {
            s.spawn(|| shared.set(1));
            if second_writes {
                s.spawn(|| shared.set(2));
            }
        });
        shared.get();
    }

    #[test]
    fn the_end_of_a_scope_orders_its_threads_but_their_start_does_not() {
        check_passes(|| scoped(false), 1);
        let report = dfs(|| scoped(true));
        // t1 ran to its end before t2 started, but nothing orders the two.
        let expected = Outcome::DataRace {
            cell: "UnsafeCell#0".into(),
            first: access(true, "t1", SCOPED + 3, 31),
            second: access(true, "t2", SCOPED + 5, 35),
        };
        assert_eq!((&report.outcome, report.executions), (&expected, 1), "{report}");
    }

    /// The line of `try_lock`.
    const TRY_LOCK: u32 = line!() + 4;
    /// Main writes under a lock, then takes the lock once more and writes
    /// nothing; t1 writes when its `try_lock` succeeds, and reads without
    /// the lock when it fails.
    fn try_lock(read_when_busy: bool) {
        let (lock, shared) = (Arc::new(Mutex::new(())), Shared::new(0));
        let (lock2, other) = (lock.clone(), shared.clone());
        let t = thread::spawn(move || match lock2.try_lock() {
            Ok(_held) => other.set(1),
            Err(_) if read_when_busy => drop(other.get()),
            Err(_) => {}
        });
        {
            let _held = lock.lock().unwrap();
            shared.set(2);
        }
        drop(lock.lock().unwrap());
        t.join().unwrap();
    }

    #[test]
    fn a_try_lock_orders_accesses_only_when_it_takes_the_lock() {
        // t1's try_lock (always enabled) runs before main's first lock,
        // inside either section, or between them; after both it is the
        // only step left: 5 executions.
        check_passes(|| try_lock(false), 5);
        let report = dfs(|| try_lock(true));
        // DFS runs main first: t1's try_lock then succeeds after both
        // sections (a pass), then fails inside the second one. The first
        // section, and main's write in it, ended before: a lock acquired
        // then would order the write before t1's read, but a failed
        // try_lock synchronizes with nothing.
        let expected = Outcome::DataRace {
            cell: "UnsafeCell#0".into(),
            first: access(true, "main", TRY_LOCK + 10, 20),
            second: access(false, "t1", TRY_LOCK + 5, 52),
        };
        assert_eq!((&report.outcome, report.executions), (&expected, 2), "{report}");
        let steps: Vec<String> = report
            .failure
            .expect("a race has a trace")
            .trace
            .lines
            .iter()
            .map(|l| format!("{} {}", l.actor, l.op))
            .collect();
        assert_eq!(steps, ["main spawn", "main lock", "main unlock", "main lock", "t1 try_lock"]);
    }

    /// A value shared by std's `Arc` (the default `sync::Arc`), whose
    /// `Drop` writes its cell: t1 writes it and drops its `Arc`; main drops
    /// the last one. std's `Arc` orders its last drop after the other
    /// owners' accesses (its count's release and acquire), but samaritan
    /// cannot see that, so it reports a race, and says why.
    #[test]
    fn a_race_in_a_destructor_std_s_arc_started_names_counted_arc() {
        struct Logged(UnsafeCell<u64>);
        // SAFETY: as `Shared`.
        unsafe impl Sync for Logged {}
        impl Drop for Logged {
            fn drop(&mut self) {
                // SAFETY: as `Shared`.
                self.0.with_mut(|p| unsafe { *p = 0 });
            }
        }
        let report = dfs(|| {
            let value = std::sync::Arc::new(Logged(UnsafeCell::new(0)));
            let other = value.clone();
            let t = thread::spawn(move || {
                // SAFETY: as `Shared`.
                other.0.with_mut(|p| unsafe { *p = 1 });
                drop(other);
            });
            thread::yield_now();
            drop(value);
            t.join().unwrap();
        });
        let Outcome::DataRace { second, .. } = &report.outcome else { panic!("{report}") };
        assert!(second.in_std_arc_drop, "{report}");
        assert!(
            report.to_string().contains(
                "the second access runs in a destructor that the last owner of a std `Arc` started by dropping it"
            ),
            "{report}"
        );
        // A race with nothing of std's `Arc` about it says nothing of it.
        let Outcome::DataRace { second, .. } = &dfs(unsynchronized_writes).outcome else { panic!() };
        assert!(!second.in_std_arc_drop);
    }
}
