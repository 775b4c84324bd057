//! cb-por explored end to end through the engine: forgetting its tables
//! when they fill up costs executions, never an outcome.

use std::collections::BTreeSet;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{explore, Config, Op, Report};

use super::CbPor;

static SHARED: ObjectSlot = ObjectSlot::new();
static OWN: [ObjectSlot; 3] = [const { ObjectSlot::new() }; 3];
/// The order in which threads wrote the shared object, this execution.
static ORDER: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static SEEN: Mutex<BTreeSet<Vec<u8>>> = Mutex::new(BTreeSet::new());
static DONE: AtomicUsize = AtomicUsize::new(0);

/// Three threads each write the shared object and their own one twice,
/// alternately; the last to finish records the order of the shared
/// writes (the outcome: one per class of equivalent executions).
fn program() {
    ORDER.lock().unwrap().clear();
    DONE.store(0, Ordering::Relaxed);
    let here = Location::caller();
    for t in 0..3u8 {
        let body = move || {
            for _ in 0..2 {
                rt::step(Op::Store, Some(SHARED.id("A").0), here);
                ORDER.lock().unwrap().push(t);
                rt::step(Op::Store, Some(OWN[t as usize].id("B").0), here);
            }
            if DONE.fetch_add(1, Ordering::Relaxed) == 2 {
                SEEN.lock().unwrap().insert(ORDER.lock().unwrap().clone());
            }
        };
        rt::spawn(None, None, here, Box::new(body)).unwrap();
    }
}

/// Explores [`program`] with cb-por at `bound`, its tables capped at
/// `cap` entries; returns the report and the outcomes.
fn run(bound: u32, cap: usize) -> (Report, BTreeSet<Vec<u8>>) {
    SEEN.lock().unwrap().clear();
    let mut search = CbPor::new(bound);
    search.table_cap = cap;
    let mut config = Config::default();
    config.max_time = None;
    let report = explore(config, Box::new(search), Arc::new(program));
    (report, std::mem::take(&mut *SEEN.lock().unwrap()))
}

#[test]
fn tables_forgotten_when_full_cost_executions_not_outcomes() {
    let mut counts = Vec::new();
    for bound in 0..=2 {
        let (whole, expected) = run(bound, super::TABLE_CAP);
        let (capped, got) = run(bound, 8);
        for r in [&whole, &capped] {
            assert!(r.outcome.is_pass() && r.exhausted, "bound {bound}: {r}");
        }
        assert_eq!(got, expected, "bound {bound}");
        counts.push((expected.len(), whole.executions, capped.executions));
    }
    // (outcomes, executions whole, executions capped): at bound 0 the
    // tables are not needed (one execution per order of the threads);
    // above it the capped search runs 2.8 and 7.8 times as many to reach
    // the same orders.
    assert_eq!(counts, vec![(6, 6, 6), (24, 24, 68), (60, 60, 468)]);
}

#[test]
fn a_full_table_is_forgotten_and_keeps_its_room() {
    let mut search = CbPor::new(0);
    search.table_cap = 100;
    search.visited.extend(0..99);
    search.bound_tables();
    assert_eq!(search.visited.len(), 99);
    search.visited.insert(99);
    let room = search.visited.capacity();
    search.bound_tables();
    assert_eq!((search.visited.len(), search.visited.capacity()), (0, room));
}
