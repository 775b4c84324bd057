//! A program explored through `samaritan::Builder`, with its outcomes and
//! execution count.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use samaritan::{Builder, Outcome, SearchStrategy};

use crate::programs;

#[test]
fn two_producers_reach_the_stream_in_either_order() {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let record = seen.clone();
    let report = Builder::new()
        .strategy(SearchStrategy::Dpor)
        .persist(false)
        .progress(false)
        .explore(move || {
            let got = samaritan::executor::block_on(programs::two_producers());
            record.lock().unwrap().insert(got);
        })
        .expect("valid settings");
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from([vec![1, 2], vec![2, 1]]));
    // Every operation on the channel (two sends, three sender drops, the
    // receives) is dependent on the others: their orders, up to what
    // commutes elsewhere.
    assert_eq!(report.executions, 493, "{report}");
}
