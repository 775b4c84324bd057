//! `samaritan::collections`: std's maps in production; under `sim`, maps
//! that iterate in the same order in every execution, and the report that
//! names a loop whose objects came in another order.

use std::hash::BuildHasher;

use samaritan::collections::{HashMap, HashSet, RandomState};

#[test]
fn the_maps_do_what_std_s_do() {
    let mut m: HashMap<&str, u32> = HashMap::new();
    assert_eq!(m.insert("a", 1), None);
    assert_eq!(m.insert("a", 2), Some(1));
    *m.entry("b").or_insert(10) += 1;
    assert_eq!((m["a"], m["b"], m.len()), (2, 11, 2));
    let mut pairs: Vec<(&str, u32)> = m.iter().map(|(k, v)| (*k, *v)).collect();
    pairs.sort();
    assert_eq!(pairs, [("a", 2), ("b", 11)]);
    for (k, v) in &mut m {
        *v += k.len() as u32;
    }
    let mut values = Vec::new();
    for (k, v) in &m {
        values.push(*v - k.len() as u32);
    }
    values.sort();
    assert_eq!(values, [2, 11]);
    // A function generic over std's map's hasher takes it (in `sim`, by
    // dereferencing).
    fn total<S: BuildHasher>(m: &std::collections::HashMap<&str, u32, S>) -> u32 {
        m.values().sum()
    }
    assert_eq!(total(&m), 15);
    let copy = m.clone();
    assert_eq!(copy, m);
    m.extend([("c", 0)]);
    assert_ne!(copy, m);
    let from: HashMap<u8, char> = HashMap::from([(1, 'x')]);
    assert_eq!(format!("{from:?}"), "{1: 'x'}");
    let collected: HashMap<u8, u8> = (0..5).map(|i| (i, i * i)).collect();
    assert_eq!((collected.len(), collected.get(&4)), (5, Some(&16)));
    let mut owned: Vec<(u8, u8)> = collected.into_iter().collect();
    owned.sort();
    assert_eq!(owned, [(0, 0), (1, 1), (2, 4), (3, 9), (4, 16)]);
    let with: HashMap<u8, u8> = HashMap::with_capacity(8);
    assert!(with.capacity() >= 8 && with.is_empty());

    let mut s: HashSet<u32> = HashSet::from([1, 2]);
    assert!(s.insert(3) && !s.insert(3));
    s.extend(&[4, 5]);
    let mut all = Vec::new();
    for v in &s {
        all.push(*v);
    }
    all.sort();
    assert_eq!(all, [1, 2, 3, 4, 5]);
    let evens: HashSet<u32> = s.iter().copied().filter(|v| v % 2 == 0).collect();
    assert_eq!(evens, HashSet::from([2, 4]));
    assert!(HashSet::<u8>::default().is_empty() && HashSet::<u8>::with_capacity(4).capacity() >= 4);
}

#[test]
fn outside_an_exploration_the_keys_are_std_s_random_ones() {
    // std's `RandomState` gives every new state other keys; so does
    // samaritan's outside an exploration, in both modes.
    let (a, b) = (RandomState::new(), RandomState::new());
    assert_ne!(a.hash_one(7u32), b.hash_one(7u32));
    assert_eq!(a.hash_one(7u32), a.hash_one(7u32));
}

#[cfg(feature = "sim")]
mod sim {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicUsize, Ordering as StdOrdering};
    use std::sync::Mutex as StdMutex;

    use samaritan::collections::{HashMap, RandomState};
    use samaritan::sync::{Arc, Mutex};
    use samaritan::{thread, Builder, Outcome, SearchStrategy};

    fn dfs() -> Builder {
        Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false)
    }

    /// The hint every report of objects that came in another order ends
    /// its detail with.
    const HINT: &str = "the objects came in another order, as when the test loops over a std `HashMap` or \
                        `HashSet` (whose order its `RandomState` draws afresh in every execution) or over values \
                        ordered by address: iterate a `samaritan::collections::HashMap` or `HashSet`, whose order \
                        is the same in every execution";

    /// `t1` takes the first of four locks once; main takes each of them
    /// once, one at a time, in the order of `map`, and records it. No
    /// order is a bug: which lock main meets `t1` on is what the order
    /// changes.
    fn lock_in_map_order<M>(seen: &StdMutex<Vec<Vec<u32>>>)
    where
        M: Default + Extend<(u32, Arc<Mutex<u32>>)>,
        for<'a> &'a M: IntoIterator<Item = (&'a u32, &'a Arc<Mutex<u32>>)>,
    {
        let locks: Vec<Arc<Mutex<u32>>> = (0..4).map(|_| Arc::new(Mutex::new(0))).collect();
        let first = locks[0].clone();
        let mut map = M::default();
        map.extend(locks.into_iter().enumerate().map(|(i, l)| (i as u32, l)));
        let t = thread::spawn(move || *first.lock().unwrap() += 1);
        let mut order = Vec::new();
        for (&key, lock) in &map {
            *lock.lock().unwrap() += 1;
            order.push(key);
        }
        t.join().unwrap();
        seen.lock().unwrap().push(order);
    }

    #[test]
    fn objects_that_come_in_another_order_are_named_with_the_fix() {
        // Every other execution walks the locks backwards: a loop over a
        // collection whose order changes from one execution to the next.
        static EXECUTIONS: AtomicUsize = AtomicUsize::new(0);
        EXECUTIONS.store(0, StdOrdering::SeqCst);
        let body = || {
            let locks: Vec<Arc<Mutex<u32>>> = (0..2).map(|_| Arc::new(Mutex::new(0))).collect();
            let first = locks[0].clone();
            let t = thread::spawn(move || *first.lock().unwrap() += 1);
            let mut order: Vec<&Arc<Mutex<u32>>> = locks.iter().collect();
            if EXECUTIONS.fetch_add(1, StdOrdering::SeqCst) % 2 == 1 {
                order.reverse();
            }
            for lock in order {
                *lock.lock().unwrap() += 1;
            }
            t.join().unwrap();
        };
        let report = dfs().explore(body).unwrap();
        let Outcome::Nondeterminism { step, detail } = &report.outcome else { panic!("{report}") };
        assert_eq!((report.executions, *step), (2, 1), "{report}");
        // Where a line of this file holding `code` calls `lock` (the
        // `nth` such line), as a report names it.
        let at = |code: &str, nth: usize| {
            let (i, line) =
                include_str!("collections.rs").lines().enumerate().filter(|(_, l)| l.contains(code)).nth(nth).unwrap();
            format!("tests/collections.rs:{}:{}", i + 1, line.find("lock()").unwrap() + 1)
        };
        assert!(
            detail.starts_with(&format!(
                "replaying the same prefix, the threads announced the same operations at the same places as \
                 before, on other objects (now 'main' lock on Mutex#2 at {}, 't1' lock on Mutex#1 at {}); {HINT}",
                at("*lock.lock().unwrap() += 1;", 1),
                at("*first.lock().unwrap() += 1);", 1),
            )),
            "{detail}"
        );
        // Every systematic search checks its replayed prefixes so. (The
        // portfolio's hunters run executions between cb-por's, which here
        // changes which executions walk backwards.)
        for strategy in [SearchStrategy::Icb, SearchStrategy::Dpor, SearchStrategy::CbPor] {
            EXECUTIONS.store(0, StdOrdering::SeqCst);
            let report = dfs().strategy(strategy).explore(body).unwrap();
            let Outcome::Nondeterminism { detail, .. } = &report.outcome else { panic!("{report}") };
            assert!(detail.contains(HINT), "{strategy:?}: {detail}");
        }
    }

    #[test]
    fn a_loop_over_a_std_hashmap_is_reported_and_the_same_loop_over_samaritan_s_passes() {
        // std's keys differ in every execution: an exploration meets the
        // locks in another order on a replayed prefix unless every replay
        // happens to draw the same order (all 20 did, in each of three
        // runs, when this was written).
        let seen = Arc::new(StdMutex::new(Vec::new()));
        let mut reported = 0;
        for _ in 0..20 {
            let s = seen.clone();
            let report = dfs().explore(move || lock_in_map_order::<std::collections::HashMap<_, _>>(&s)).unwrap();
            match &report.outcome {
                Outcome::Pass => {}
                Outcome::Nondeterminism { detail, .. } if detail.contains(HINT) => reported += 1,
                _ => panic!("{report}"),
            }
        }
        assert!(reported > 0, "no exploration of 20 met the std map's orders");

        // samaritan's map: the same order in every execution of every
        // exploration, and DFS's whole search.
        let mut orders = Vec::new();
        for _ in 0..3 {
            seen.lock().unwrap().clear();
            let s = seen.clone();
            let report = dfs().explore(move || lock_in_map_order::<HashMap<_, _>>(&s)).unwrap();
            assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 21, true), "{report}");
            let seen = seen.lock().unwrap();
            assert_eq!(seen.len(), 21);
            assert!(seen.iter().all(|o| *o == seen[0]), "{seen:?}");
            orders.push(seen[0].clone());
        }
        assert!(orders.iter().all(|o| *o == orders[0]), "{orders:?}");
    }

    #[test]
    fn inside_an_exploration_every_random_state_has_the_same_keys() {
        let hashes = Arc::new(StdMutex::new(Vec::new()));
        let h = hashes.clone();
        let report = dfs()
            .explore(move || {
                let (a, b) = (RandomState::new(), RandomState::default());
                h.lock().unwrap().push((a.hash_one("key"), b.hash_one("key")));
            })
            .unwrap();
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 1));
        let hashes = hashes.lock().unwrap();
        let outside = RandomState::new().hash_one("key");
        assert_eq!(hashes.len(), 1);
        assert_eq!(hashes[0].0, hashes[0].1);
        assert_ne!(hashes[0].0, outside);
        // And in another exploration.
        let again = dfs().explore(|| assert_eq!(RandomState::new().hash_one("key"), 0)).unwrap();
        let Outcome::Panic { message, .. } = &again.outcome else { panic!("{again}") };
        assert!(message.contains(&format!("left: {}", hashes[0].0)), "{message}");
    }
}
