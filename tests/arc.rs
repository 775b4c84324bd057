//! `samaritan::sync::counted::{Arc, Weak}`: std's API in both modes;
//! under `sim`, counts are scheduled, the last drop is ordered after every
//! other owner's accesses, and an `Arc` still alive at the end is a leak.

use samaritan::sync::counted::{Arc, Weak};

#[test]
fn arc_and_weak_behave_like_std() {
    let mut a = Arc::new(vec![1]);
    Arc::make_mut(&mut a).push(2);
    let b = Arc::clone(&a);
    assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a), Arc::ptr_eq(&a, &b)), (2, 0, true));
    assert!(Arc::get_mut(&mut a).is_none());
    Arc::make_mut(&mut a).push(3);
    assert_eq!((&a[..], &b[..], Arc::ptr_eq(&a, &b)), (&[1, 2, 3][..], &[1, 2][..], false));
    let weak = Arc::downgrade(&b);
    assert_eq!((weak.strong_count(), weak.weak_count(), Arc::weak_count(&b)), (1, 1, 1));
    assert_eq!(weak.upgrade().as_deref(), Some(&vec![1, 2]));
    let c = b.clone();
    let b = Arc::try_unwrap(b).expect_err("two strong references");
    assert_eq!(Arc::into_inner(c), None);
    assert_eq!(Arc::try_unwrap(b), Ok(vec![1, 2]), "a Weak does not count");
    assert!(weak.upgrade().is_none());
    assert_eq!((weak.strong_count(), weak.weak_count()), (0, 0));
    assert!(Weak::<u8>::new().upgrade().is_none());
    assert!(Weak::<u8>::new().ptr_eq(&Weak::default()));

    let raw = Arc::into_raw(Arc::new(5u64));
    // SAFETY: `raw` came from `into_raw`, and each count is given back.
    unsafe {
        Arc::increment_strong_count(raw);
        Arc::decrement_strong_count(raw);
        assert_eq!(*Arc::from_raw(raw), 5);
    }
    let slice: Arc<[String]> = Arc::from(vec!["a".to_string(), "b".to_string()]);
    let text: Arc<str> = Arc::from("text");
    let collected: Arc<[u8]> = (1..=3).collect();
    assert_eq!((&slice[..], &*text, &collected[..]), (&["a".to_string(), "b".to_string()][..], "text", &[1, 2, 3][..]));
    assert_eq!((format!("{text:?}"), format!("{text}")), ("\"text\"".to_string(), "text".to_string()));
    assert!(Arc::new(1) < Arc::new(2) && Arc::new(1) == Arc::from(1) && *Arc::<u8>::default() == 0);
    assert_eq!(Arc::unwrap_or_clone(Arc::new(7)), 7);
}

#[cfg(not(feature = "sim"))]
#[test]
fn without_sim_it_is_std_s_arc() {
    let a: Arc<dyn Fn() -> u8> = Arc::new(|| 1);
    assert_eq!(a(), 1);
    let _: std::sync::Arc<u8> = Arc::new(1);
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::cell::UnsafeCell;
    use samaritan::{thread, Builder, Outcome, Report, SearchStrategy};
    use std::collections::BTreeSet;
    use std::sync::Mutex as StdMutex;

    fn explore<F: Fn() + Send + Sync + 'static>(strategy: SearchStrategy, f: F) -> Report {
        Builder::new().strategy(strategy).persist(false).explore(f).expect("valid settings")
    }

    /// Asserts that `strategy` passes `f` after exactly `executions`
    /// executions, having exhausted the space.
    #[track_caller]
    fn check_passes<F: Fn() + Send + Sync + 'static>(strategy: SearchStrategy, f: F, executions: u64) {
        let report = explore(strategy, f);
        assert_eq!(
            (&report.outcome, report.executions, report.exhausted),
            (&Outcome::Pass, executions, true),
            "{report}"
        );
    }

    /// A value whose `Drop` writes a cell that its owners wrote too.
    struct Written(UnsafeCell<u64>);

    // SAFETY: accesses happen inside explorations only, where every thread
    // is a coroutine on one OS thread; the race detector checks their order.
    unsafe impl Sync for Written {}

    impl Written {
        fn write(&self) {
            // SAFETY: see `Sync`.
            self.0.with_mut(|p| unsafe { *p += 1 });
        }
    }

    impl Drop for Written {
        fn drop(&mut self) {
            self.write();
        }
    }

    /// Main writes and drops its `Arc`; a thread drops its clone,
    /// unjoined: whichever drop is last runs the value's `Drop`, which
    /// writes too.
    fn last_drop_writes() {
        let a = Arc::new(Written(UnsafeCell::new(0)));
        let b = a.clone();
        thread::spawn(move || drop(b));
        a.write();
        drop(a);
    }

    #[test]
    fn the_last_drop_happens_after_every_other_owner_s_accesses() {
        // With std's count this reports a race between the drop's write and
        // the other owner's (loom/tests/api.rs: std_arc_would_report_a_false_race).
        // Two drops, either of them last (main's write takes no step):
        // both searches run the two orders.
        check_passes(SearchStrategy::Dfs, last_drop_writes, 2);
        check_passes(SearchStrategy::Dpor, last_drop_writes, 2);
    }

    /// What the explorations running now observed.
    static SEEN: StdMutex<BTreeSet<String>> = StdMutex::new(BTreeSet::new());
    /// Held by each test that uses `SEEN` for its whole run.
    static SERIAL: StdMutex<()> = StdMutex::new(());

    fn observed<F: Fn() + Send + Sync + 'static>(strategy: SearchStrategy, f: F) -> (u64, Vec<String>) {
        SEEN.lock().unwrap().clear();
        let report = explore(strategy, f);
        assert!(report.outcome.is_pass() && report.exhausted, "{report}");
        (report.executions, std::mem::take(&mut *SEEN.lock().unwrap()).into_iter().collect())
    }

    fn see(what: String) {
        SEEN.lock().unwrap().insert(what);
    }

    /// `try_unwrap` in main races with a thread that clones and drops.
    fn unwrap_races_a_clone() {
        let a = Arc::new(5);
        let b = a.clone();
        thread::spawn(move || {
            let c = b.clone();
            drop(b);
            drop(c);
        });
        match Arc::try_unwrap(a) {
            Ok(v) => see(format!("unwrapped {v}")),
            Err(a) => see(format!("shared by {}", Arc::strong_count(&a))),
        }
    }

    #[test]
    fn try_unwrap_racing_a_clone_and_drops_explores_both_outcomes() {
        let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        // DFS: main's three steps (try_unwrap, then strong_count and drop
        // when it failed) interleaved with t1's three (clone, drop, drop),
        // C(6, 3) = 20; where t1 finished first, try_unwrap succeeds and
        // main takes one step only (one schedule). DPOR: 16, one per class
        // of those orders up to swapping adjacent count changes that free
        // nothing (t1's clone with main's drop, main's drop with t1's first
        // drop; counted by brute force), the fewest there can be.
        let expected = ["shared by 1", "shared by 2", "shared by 3", "unwrapped 5"].map(String::from).to_vec();
        assert_eq!(observed(SearchStrategy::Dfs, unwrap_races_a_clone), (20, expected.clone()));
        assert_eq!(observed(SearchStrategy::Dpor, unwrap_races_a_clone), (16, expected));
    }

    /// Records which thread dropped it.
    struct Freed;

    impl Drop for Freed {
        fn drop(&mut self) {
            see(format!("freed by {}", thread::current().name().unwrap_or("?")));
        }
    }

    /// Three threads and main each drop one `Arc` of one value, unjoined:
    /// whichever drop is last frees it.
    fn four_owners_drop() {
        let a = Arc::new(Freed);
        let clones = [a.clone(), a.clone(), a.clone()];
        for (i, b) in clones.into_iter().enumerate() {
            thread::Builder::new().name(format!("t{}", i + 1)).spawn(move || drop(b)).expect("a stack");
        }
        drop(a);
    }

    #[test]
    fn any_of_the_owners_may_free_the_value() {
        let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        let expected = ["freed by main", "freed by t1", "freed by t2", "freed by t3"].map(String::from).to_vec();
        // DFS: main's second and third spawns and its drop, with t1's drop
        // anywhere after the first spawn, t2's after the second, t3's after
        // the third: 2 orders of [drop, t3] after the third spawn, t2 in
        // one of 4 places among them, t1 in one of 6: 48.
        assert_eq!(observed(SearchStrategy::Dfs, four_owners_drop), (48, expected.clone()));
        // DPOR: the drops that free nothing commute, so who drops last is
        // what differs: 4 executions, and 4 more cut short where a sleeping
        // drop was left the last by the others (it wakes: it would free
        // now) and the rest is covered. A sleeper that stayed asleep there
        // would leave its freeing drop unexplored.
        let report = explore(SearchStrategy::Dpor, four_owners_drop);
        assert_eq!((report.executions, report.pruned), (8, 4), "{report}");
        assert_eq!(observed(SearchStrategy::Dpor, four_owners_drop), (8, expected));
    }

    /// A thread drops its clone while main reads the count.
    fn count_races_a_drop() {
        let a = Arc::new(());
        let b = a.clone();
        thread::spawn(move || drop(b));
        see(format!("{} strong", Arc::strong_count(&a)));
    }

    #[test]
    fn strong_count_is_an_explored_observation() {
        let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        // t1's drop before main's strong_count, between it and main's drop
        // (t1's drop is not the last), or after both (it frees): three
        // inequivalent schedules, both searches.
        let expected = ["1 strong", "2 strong"].map(String::from).to_vec();
        assert_eq!(observed(SearchStrategy::Dfs, count_races_a_drop), (3, expected.clone()));
        assert_eq!(observed(SearchStrategy::Dpor, count_races_a_drop), (3, expected));
    }

    /// The line of `cycle`.
    const CYCLE: u32 = line!() + 2;
    /// Two nodes that own each other: neither is ever dropped.
    fn cycle() {
        struct Node(StdMutex<Option<Arc<Node>>>);
        let a = Arc::new(Node(StdMutex::new(None)));
        let b = Arc::new(Node(StdMutex::new(Some(a.clone()))));
        *a.0.lock().unwrap() = Some(b);
    }

    #[test]
    fn a_reference_cycle_is_a_leak_naming_where_the_arc_was_made() {
        let report = explore(SearchStrategy::Dfs, cycle);
        let location = format!("tests/arc.rs:{}:17", CYCLE + 2);
        assert_eq!(
            report.outcome,
            Outcome::Leak { kind: "Arc".into(), location: location.clone(), others: 1 },
            "{report}"
        );
        assert_eq!(report.executions, 1);
        let failure = report.failure.as_ref().expect("a leak has a trace");
        let token = failure.token.clone();
        assert_eq!(Builder::new().replay(&token, cycle).unwrap().outcome, report.outcome);
        assert_eq!(
            report.outcome.to_string(),
            format!(
                "leak: the Arc created at {location} is still alive when every thread has finished (and 1 more)\n  \
                 nothing is left to drop it: a reference cycle (break it with a Weak), mem::forget, or into_raw without from_raw"
            )
        );
    }

    #[test]
    fn a_weak_back_reference_is_no_leak_and_a_forgotten_arc_is_one() {
        check_passes(
            SearchStrategy::Dfs,
            || {
                struct Node(StdMutex<Weak<Node>>);
                let a = Arc::new(Node(StdMutex::new(Weak::new())));
                *a.0.lock().unwrap() = Arc::downgrade(&a);
                assert!(a.0.lock().unwrap().upgrade().is_some());
            },
            1,
        );
        let report = explore(SearchStrategy::Dfs, || std::mem::forget(Arc::new(1)));
        assert_eq!(report.outcome.kind(), "leak", "{report}");
    }

    #[test]
    fn an_arc_made_outside_the_execution_is_not_tracked() {
        let outer = Arc::new(1);
        check_passes(SearchStrategy::Dfs, move || std::mem::forget(outer.clone()), 1);
    }
}
