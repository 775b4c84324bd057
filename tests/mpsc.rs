//! `samaritan::sync::mpsc`: std's API in both modes; under `sim`, channels
//! made inside an execution are scheduled and their blocking is explored.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use samaritan::sync::mpsc::{
    channel, sync_channel, Receiver, RecvError, RecvTimeoutError, SendError, Sender, SyncSender, TryRecvError,
    TrySendError,
};
use samaritan::thread;

fn assert_send_sync<T: Send + Sync>() {}
fn assert_send<T: Send>() {}

#[test]
fn handles_have_std_auto_traits() {
    assert_send_sync::<Sender<u8>>();
    assert_send_sync::<SyncSender<u8>>();
    assert_send::<Receiver<u8>>();
}

// ---- Production mode: outside any execution, std's behaviour. ----

#[test]
fn channel_sends_and_receives_in_order() {
    let (tx, rx) = channel();
    let tx2 = tx.clone();
    tx.send(1).unwrap();
    tx2.send(2).unwrap();
    assert_eq!(rx.recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Timeout));
    drop((tx, tx2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(rx.recv(), Err(RecvError));
    assert_eq!(rx.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Disconnected));
}

#[test]
fn send_without_receiver_returns_the_value() {
    let (tx, rx) = channel();
    drop(rx);
    assert_eq!(tx.send(5), Err(SendError(5)));
    let (tx, rx) = sync_channel(1);
    drop(rx);
    assert_eq!(tx.send(6), Err(SendError(6)));
    assert_eq!(tx.try_send(7), Err(TrySendError::Disconnected(7)));
}

#[test]
fn sync_channel_is_bounded() {
    let (tx, rx) = sync_channel(1);
    let tx2 = tx.clone();
    assert_eq!(tx.try_send(1), Ok(()));
    assert_eq!(tx2.try_send(2), Err(TrySendError::Full(2)));
    assert_eq!(rx.recv(), Ok(1));
    tx2.send(3).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [3]);
}

#[test]
fn rendezvous_hands_over_between_threads() {
    let (tx, rx) = sync_channel(0);
    assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
    let sender = thread::spawn(move || {
        tx.send(2).unwrap();
        tx.send(3).unwrap();
    });
    assert_eq!(rx.recv(), Ok(2));
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(3));
    sender.join().unwrap();
    assert_eq!(rx.recv(), Err(RecvError));
}

#[test]
fn iterators_drain_until_disconnect() {
    let (tx, rx) = channel();
    for i in 0..3 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [0, 1, 2]);
    let sender = thread::spawn(move || {
        for i in 3..6 {
            tx.send(i).unwrap();
        }
    });
    assert_eq!(rx.iter().take(1).collect::<Vec<_>>(), [3]);
    let mut rest = Vec::new();
    for value in &rx {
        rest.push(value);
    }
    assert_eq!(rest, [4, 5]);
    sender.join().unwrap();
    let (tx, rx) = channel();
    tx.send(9).unwrap();
    drop(tx);
    assert_eq!(rx.into_iter().collect::<Vec<_>>(), [9]);
}

#[test]
fn handles_have_debug() {
    let (tx, rx) = channel::<u8>();
    let (stx, srx) = sync_channel::<u8>(0);
    assert_eq!(format!("{tx:?} {stx:?}"), "Sender { .. } SyncSender { .. }");
    assert_eq!(format!("{rx:?} {srx:?}"), "Receiver { .. } Receiver { .. }");
    assert_eq!(
        format!("{:?} {:?}", rx.iter(), rx.try_iter()),
        "Iter { rx: Receiver { .. } } TryIter { rx: Receiver { .. } }"
    );
    assert_eq!(format!("{:?}", srx.into_iter()), "IntoIter { rx: Receiver { .. } }");
}

/// Under `check` (one run in production, every schedule under `sim`): the
/// values of every sender arrive, then the receiver sees the disconnect.
#[test]
fn check_two_senders_deliver_everything() {
    samaritan::check(|| {
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        thread::spawn(move || tx.send(1).unwrap());
        thread::spawn(move || tx2.send(2).unwrap());
        let mut got: Vec<i32> = rx.iter().collect();
        got.sort_unstable();
        assert_eq!(got, [1, 2]);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    });
}

/// Handles made inside `check` and kept past it (here in a static) behave
/// like std's: under `sim` they are modelled handles, which block for real
/// outside an execution.
#[test]
fn handles_kept_past_check_keep_working() {
    type Kept = (Sender<u8>, Receiver<u8>, SyncSender<u8>, Receiver<u8>);
    static KEPT: StdMutex<Option<Kept>> = StdMutex::new(None);
    samaritan::check(|| {
        let (tx, rx) = channel();
        tx.send(1).unwrap();
        let (stx, srx) = sync_channel(0);
        *KEPT.lock().unwrap() = Some((tx, rx, stx, srx));
    });
    let (tx, rx, stx, srx) = KEPT.lock().unwrap().take().expect("check ran the closure");
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        tx.send(2).unwrap();
        stx.send(3).unwrap();
        assert_eq!(stx.try_send(4), Err(TrySendError::Full(4)));
    });
    assert_eq!(rx.recv(), Ok(1));
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(2));
    assert_eq!(srx.recv(), Ok(3));
    sender.join().unwrap();
    assert_eq!(rx.recv(), Err(RecvError));
    assert_eq!(srx.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Disconnected));
}

// ---- Simulation: exact exploration counts and verdicts. ----

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex as StdMutex};
    use std::time::Duration;

    use samaritan::sync::mpsc::{
        channel, sync_channel, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError,
    };
    use samaritan::thread;
    use samaritan::{BlockedActor, Builder, Outcome};

    use super::common::{check_exhausts, dfs as explore};

    /// Asserts that DFS passes `f` in exactly `executions` executions.
    #[track_caller]
    fn check_passes(executions: u64, f: impl Fn() + Send + Sync + 'static) {
        check_exhausts(f, executions);
    }

    /// Asserts that DFS finds a deadlock in which exactly `blocked` (actor,
    /// op, object) are stuck, and that its token replays to the same verdict.
    #[track_caller]
    fn check_deadlock(f: fn(), blocked: &[(&str, &str, &str)]) {
        let report = explore(f);
        let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("expected a deadlock, got {report}") };
        let seen: Vec<(&str, &str, &str)> = deadlock
            .blocked
            .iter()
            .map(|b: &BlockedActor| (b.actor.as_str(), b.op.as_str(), b.object.as_deref().unwrap_or("-")))
            .collect();
        assert_eq!(seen, blocked);
        assert!(deadlock.blocked.iter().all(|b| b.location.contains("tests/mpsc.rs")), "{report}");
        let token = report.token().expect("a deadlock has a token");
        let again = Builder::new().replay(token, f).expect("a token we just made");
        assert_eq!(again.outcome, report.outcome);
    }

    /// Counts how often each label was recorded across an exploration.
    #[derive(Clone, Default)]
    struct Tally(Arc<StdMutex<BTreeMap<String, u64>>>);

    impl Tally {
        fn add(&self, label: impl Into<String>) {
            *self.0.lock().unwrap().entry(label.into()).or_default() += 1;
        }
        fn get(&self) -> Vec<(String, u64)> {
            self.0.lock().unwrap().iter().map(|(k, v)| (k.clone(), *v)).collect()
        }
    }

    /// Like [`check_passes`], and asserts how often `f` recorded each label.
    #[track_caller]
    fn check_tallied(executions: u64, expected: &[(&str, u64)], f: impl Fn(&Tally) + Send + Sync + 'static) {
        let tally = Tally::default();
        let t = tally.clone();
        check_passes(executions, move || f(&t));
        let expected: Vec<(String, u64)> = expected.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        assert_eq!(tally.get(), expected);
    }

    /// Labels a send's result (std's error `Debug` output varies by version).
    fn sent_label<E>(result: &Result<(), E>) -> &'static str {
        match result {
            Ok(()) => "sent",
            Err(_) => "failed",
        }
    }

    #[test]
    fn two_senders_one_receiver_dfs_count() {
        // After main's first spawn (the only thread then), the steps are:
        //   main: S2 (spawn t2) < R1 (recv) < R2 (recv) < D (drop rx);
        //   t1: a (send 1);  t2: b (send 2), possible only after S2;
        //   d: dropping the last sender, by whichever thread sends second
        //   (the first drop is not a step), so d > max(a, b).
        // R1 waits for a send: R1 > min(a, b); R2 waits for both: R2 > max(a, b).
        // Each valid order of these 7 steps is one execution:
        //   b first: S2 b a, then R1 R2 D with d in any of 4 places     = 4
        //            S2 b R1 a, then R2 D with d in any of 3 places     = 3
        //   a first: {a, S2} in 2 orders, then b, R1 R2 D and d: 2 * 4 = 8
        //            {a, S2} in 2 orders, R1, b, then R2 D and d: 2 * 3 = 6
        // Total 4 + 3 + 8 + 6 = 21.
        check_passes(21, || {
            let (tx, rx) = channel();
            let tx2 = tx.clone();
            thread::spawn(move || tx.send(1).unwrap());
            thread::spawn(move || tx2.send(2).unwrap());
            let mut got = [rx.recv().unwrap(), rx.recv().unwrap()];
            got.sort_unstable();
            assert_eq!(got, [1, 2]);
        });
    }

    #[test]
    fn receiver_waits_forever_when_a_sender_is_kept_alive() {
        // The classic mistake: main keeps its own `tx` while it drains the
        // workers' values, so `iter` never sees the disconnect. Every
        // schedule deadlocks; DFS reports the first.
        check_deadlock(
            || {
                let (tx, rx) = channel();
                for i in 0..2 {
                    let tx = tx.clone();
                    thread::spawn(move || tx.send(i).unwrap());
                }
                let _total: i32 = rx.iter().sum();
            },
            &[("main", "recv", "Channel#0")],
        );
    }

    #[test]
    fn sender_waits_forever_on_a_full_channel() {
        check_deadlock(
            || {
                let (tx, _rx) = sync_channel(1);
                tx.send(1).unwrap();
                tx.send(2).unwrap();
            },
            &[("main", "send", "Channel#0")],
        );
    }

    #[test]
    fn rendezvous_send_returns_after_the_value_was_taken() {
        // main S A R J (A: its arrival at the receive, a step of its own
        // on a rendezvous channel); t1 P1 P2 d. After S, A and t1's P1 are
        // both enabled (2 orders); from there every step has one enabled
        // thread: main takes the value (t1's P2 waits for that), t1 drops
        // the last sender (main's join waits for t1). 2 executions.
        check_passes(2, || {
            let taken = Arc::new(AtomicBool::new(false));
            let (tx, rx) = sync_channel(0);
            let seen = taken.clone();
            let t1 = thread::spawn(move || {
                tx.send(7).unwrap();
                // A plain std flag: set by main with no step after its recv.
                assert!(seen.load(Ordering::Relaxed), "send returned before the value was taken");
            });
            assert_eq!(rx.recv(), Ok(7));
            taken.store(true, Ordering::Relaxed);
            t1.join().unwrap();
        });
    }

    #[test]
    fn rendezvous_with_two_senders_dfs_count() {
        // Capacity 0; t1 sends 1, t2 sends 2; each send is P1 (put the
        // value in the empty slot) then P2 (wait until it was taken).
        // main: S2 (spawn t2), R1, R2 (recv), D (drop rx); d: dropping the
        // last sender, after both threads' second steps.
        // The first putter P fills the slot, so the other, Q, can put only
        // after R1 takes P's value. Up to R1 the prefixes are:
        //   t1 first: {a1, S2} in 2 orders, R1;  t2 first: S2 b1 R1  = 3
        // After R1: Q1 < R2 < Q2 < d, R2 < D, and P2 anywhere before d.
        //   D after R2 in 3 places: D Q2 d | Q2 D d | Q2 d D; then P2 has
        //   5, 5 and 4 places before d                              = 14
        // Total 3 * 14 = 42 without main's arrival steps; each receive is
        // now an arrival A then R (A always enabled), which DFS counts at
        // 170.
        check_passes(170, || {
            let (tx, rx) = sync_channel(0);
            let tx2 = tx.clone();
            thread::spawn(move || tx.send(1).unwrap());
            thread::spawn(move || tx2.send(2).unwrap());
            let mut got = [rx.recv().unwrap(), rx.recv().unwrap()];
            got.sort_unstable();
            assert_eq!(got, [1, 2]);
        });
    }

    #[test]
    fn rendezvous_try_send_needs_a_waiting_receiver() {
        // main: S (spawn), Y (yield), A (arrives at recv), R (recv), J
        // (join), D (drop rx); t1: T (try_send), then d (dropping the last
        // sender). After S, main's Y and t1's T are both enabled:
        //   T first: no receiver arrived, so Full; then t1's d before Y,
        //     between Y and A or after A (R waits for d, gets the
        //     disconnect)                                                = 3
        //   Y first, then T before A: Full; d and A in 2 orders          = 2
        //   Y first, then A: main waits in R, so T is forced and chooses
        //     whether main had reached it:
        //     yes, T hands 1 over; then R and d in 2 orders             = 2
        //     no, Full; then d, R (the disconnect)                      = 1
        // Total 8.
        check_tallied(8, &[("full Err(RecvError)", 6), ("sent Ok(1)", 2)], |t| {
            let (tx, rx) = sync_channel(0);
            let t1 = thread::spawn(move || tx.try_send(1));
            thread::yield_now();
            let got = rx.recv();
            let sent = match t1.join().unwrap() {
                Ok(()) => "sent",
                Err(TrySendError::Full(1)) => "full",
                Err(err) => panic!("unexpected {err}"),
            };
            t.add(format!("{sent} {got:?}"));
        });
    }

    #[test]
    fn rendezvous_try_send_can_be_full_while_the_receiver_announced_recv() {
        // As above without the yield. After S, main's A and t1's T are
        // both enabled:
        //   T first: no receiver arrived, so Full; d and A in 2 orders   = 2
        //   A first: main waits in R, so T is forced and chooses whether
        //   main had reached its recv:
        //     yes, T hands 1 over; then R and d in 2 orders              = 2
        //     no, Full; then d, R (the disconnect)                        = 1
        // Total 5. (Without the choice every T after A succeeded.)
        check_tallied(5, &[("full Err(RecvError)", 3), ("sent Ok(1)", 2)], |t| {
            let (tx, rx) = sync_channel(0);
            let t1 = thread::spawn(move || tx.try_send(1));
            let got = rx.recv();
            let sent = match t1.join().unwrap() {
                Ok(()) => "sent",
                Err(TrySendError::Full(1)) => "full",
                Err(err) => panic!("unexpected {err}"),
            };
            t.add(format!("{sent} {got:?}"));
        });
    }

    #[test]
    fn recv_timeout_reaches_both_verdicts() {
        // main: S (spawn), RT (recv_timeout), D (drop rx); t1: a (send 1),
        // d (drop the last sender). All four are always enabled, so the
        // executions are the C(4, 2) = 6 interleavings of RT D with a d:
        //   RT D a d: timeout, and the send fails (receiver gone);
        //   RT a D d, RT a d D: timeout, the send succeeds;
        //   a RT D d, a RT d D, a d RT D: Ok(1) (a queued value wins over
        //   the disconnect).
        check_tallied(6, &[("Err(Timeout)", 3), ("Ok(1)", 3), ("send failed", 1)], |t| {
            let (tx, rx) = channel();
            let sender = t.clone();
            thread::spawn(move || {
                if tx.send(1).is_err() {
                    sender.add("send failed");
                }
            });
            t.add(format!("{:?}", rx.recv_timeout(Duration::from_secs(1))));
        });
    }

    #[test]
    fn recv_after_every_sender_dropped_is_an_error() {
        // main: S, R, D; t1: d (drop its only sender). R waits for d, so
        // after S only t1 is enabled: one execution.
        check_passes(1, || {
            let (tx, rx) = channel::<u8>();
            thread::spawn(move || drop(tx));
            assert_eq!(rx.recv(), Err(RecvError));
            assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
            assert_eq!(rx.recv_timeout(Duration::from_secs(1)), Err(RecvTimeoutError::Disconnected));
        });
    }

    #[test]
    fn send_after_receiver_dropped_is_an_error() {
        // main: S (spawn), D (drop rx); t1: s (send), d (dropping its sender).
        // t1 exists only after S, so the executions are the 3 places of D
        // among s d: D s d fails the send; s D d and s d D succeed.
        check_tallied(3, &[("failed", 1), ("sent", 2)], |t| {
            let (tx, rx) = channel();
            let t = t.clone();
            thread::spawn(move || t.add(sent_label(&tx.send(4))));
            drop(rx);
        });
    }

    #[test]
    fn try_recv_sees_empty_or_a_value() {
        // main: S, TR (try_recv), D (drop rx); t1: a (send), d (dropping the
        // last sender). All always enabled: the C(4, 2) = 6 interleavings of
        // TR D with a d. TR before a: Empty (TR D a d, TR a D d, TR a d D);
        // after a: Ok(5) (a TR D d, a TR d D, a d TR D).
        check_tallied(6, &[("Err(Empty)", 3), ("Ok(5)", 3)], |t| {
            let (tx, rx) = channel();
            thread::spawn(move || {
                let _ = tx.send(5);
            });
            t.add(format!("{:?}", rx.try_recv()));
        });
    }

    #[test]
    fn bounded_send_waits_for_room() {
        // Capacity 1. t1: s1, s2 (send 1, 2), d (dropping the last sender);
        // main: S, R1 R2 R3 (`iter`: two values, then the disconnect), D.
        // s2 waits for R1 to make room, R1 for s1, R2 for s2, R3 for d.
        // So S s1 R1 s2 is forced, then R2 and d in 2 orders, then R3 D.
        check_passes(2, || {
            let (tx, rx) = sync_channel(1);
            thread::spawn(move || {
                tx.send(1).unwrap();
                tx.send(2).unwrap();
            });
            assert_eq!(rx.into_iter().collect::<Vec<i32>>(), [1, 2]);
        });
    }

    #[test]
    fn bounded_try_send_fails_when_full_and_disconnected() {
        // One thread, no choices: one execution.
        check_passes(1, || {
            let (tx, rx) = sync_channel(1);
            assert_eq!(tx.try_send(1), Ok(()));
            assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
            assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1]);
            drop(rx);
            assert_eq!(tx.try_send(3), Err(TrySendError::Disconnected(3)));
            assert_eq!(tx.send(4), Err(SendError(4)));
        });
    }

    #[test]
    fn channel_trace_names_the_user_lines() {
        let report = explore(|| {
            let (tx, rx) = channel::<u8>();
            drop(tx);
            let _ = rx.recv();
            panic!("stop");
        });
        let trace = &report.failure.as_ref().expect("a panic is a failure").trace;
        let steps: Vec<(String, &str)> =
            trace.lines.iter().map(|l| (l.op.to_string(), l.object.as_deref().unwrap_or("-"))).collect();
        // Dropping the last sender closes the channel, then the recv.
        // Dropping the receiver as the panic unwinds main takes no step: a
        // panicking thread's destructors run without scheduling points.
        let expected = [("close", "Channel#0"), ("recv", "Channel#0")];
        assert_eq!(steps, expected.map(|(op, object)| (op.to_string(), object)));
        // Calls carry the user's line; a drop (whose glue does not forward
        // `#[track_caller]`) carries the line that made the channel.
        let made = trace.lines[0].location.clone();
        let recv = trace.lines[1].location.clone();
        assert!(made.starts_with("tests/mpsc.rs:") && recv.starts_with("tests/mpsc.rs:"), "{trace}");
        let line = |l: &str| l.split(':').nth(1).unwrap().parse::<u32>().unwrap();
        assert_eq!(line(&recv), line(&made) + 2, "{trace}");
    }

    #[test]
    fn a_receiver_dropped_with_messages_queued_says_how_many() {
        let report = explore(|| {
            let (tx, rx) = channel::<u8>();
            tx.send(1).unwrap();
            tx.send(2).unwrap();
            drop(rx);
            panic!("stop");
        });
        let trace = &report.failure.as_ref().expect("a panic is a failure").trace;
        let close = trace.lines.iter().find(|l| l.op == samaritan::Op::Close).expect("the receiver's close");
        assert_eq!(close.note.as_deref(), Some("2 messages dropped unreceived"), "{trace}");
        assert!(trace.to_string().contains("  (2 messages dropped unreceived)"), "{trace}");
    }
}
