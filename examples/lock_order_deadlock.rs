//! A lock-order inversion: one thread takes `accounts` then `audit`, the
//! other `audit` then `accounts`. samaritan reports the deadlock, naming
//! both locks, both threads and the wait-for cycle.
//!
//! Run with `cargo run --example lock_order_deadlock --features sim`.

use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

pub(crate) fn transfer_and_audit() {
    let accounts = Arc::new(Mutex::new(100));
    let audit = Arc::new(Mutex::new(Vec::<i32>::new()));
    let (a, b) = (accounts.clone(), audit.clone());
    let transfer = thread::Builder::new()
        .name("transfer".into())
        .spawn(move || {
            let mut balance = a.lock().unwrap();
            *balance -= 10;
            b.lock().unwrap().push(-10);
        })
        .unwrap();
    let auditor = thread::Builder::new()
        .name("auditor".into())
        .spawn(move || {
            let log = audit.lock().unwrap();
            let balance = accounts.lock().unwrap();
            assert_eq!(*balance - log.iter().sum::<i32>(), 100);
        })
        .unwrap();
    transfer.join().unwrap();
    auditor.join().unwrap();
}

fn main() {
    let report = samaritan::Builder::new().explore(transfer_and_audit).expect("valid settings");
    println!("{report}");
}
