//! The async primitives inside an exploration: each operation is a visible
//! step on the primitive's object, so interleavings inside critical
//! sections, lost updates and lock-order deadlocks between tasks are found.
//! Without `sim` the same programs run once on the production executor.

use samaritan::executor::{block_on, spawn};
use samaritan::sync::{Arc, AsyncMutex};

/// Two tasks each lock the mutex once and add one.
fn two_lockers() {
    block_on(async {
        let m = Arc::new(AsyncMutex::new(0));
        let m2 = m.clone();
        let t = spawn(async move { *m2.lock().await += 1 });
        *m.lock().await += 1;
        t.await.unwrap();
        assert_eq!(*m.try_lock().unwrap(), 2);
    });
}

#[test]
fn two_lockers_count_two_in_production() {
    two_lockers();
}

#[cfg(feature = "sim")]
mod sim {
    use samaritan::executor::{block_on, spawn};
    use samaritan::sync::{async_mpsc, oneshot, watch, Arc, AsyncMutex, Notify};
    use samaritan::{Builder, Op, Outcome, Report, SearchStrategy};

    /// Explores `f` exhaustively with DFS; returns the report.
    fn explore(f: impl Fn() + Send + Sync + 'static) -> Report {
        Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings")
    }

    /// Explores `f` exhaustively with DFS and checks it passed in exactly `executions` executions.
    #[track_caller]
    fn check_dfs(executions: u64, f: impl Fn() + Send + Sync + 'static) -> Report {
        let report = explore(f);
        assert_eq!(report.outcome, Outcome::Pass, "{report}");
        assert!(report.exhausted, "{report}");
        assert_eq!(report.executions, executions, "{report}");
        report
    }

    /// Explores `f` with DFS, checks it fails, and that the failure's token
    /// replays to the same outcome; returns the report.
    #[track_caller]
    fn check_found(f: fn()) -> Report {
        let report = explore(f);
        let failure = report.failure.as_ref().unwrap_or_else(|| panic!("no failure: {report}"));
        let replayed = Builder::new().replay(&failure.token, f).expect("a valid token");
        assert_eq!(replayed.outcome, report.outcome, "{replayed}");
        report
    }

    #[test]
    fn two_tasks_locking_once() {
        // After main's spawn: main lock Lm, unlock Um; the task poll P, lock
        // Lt, unlock Ut. A join or a lock that finds its answer ready takes
        // no step; a blocked one waits for a visible wake.
        // - Lm, Um before Lt (uncontended, main then waits on the join): P
        //   before Lm, between, or after Um: 3.
        // - P, Lt, Ut all before Lm: 1.
        // - Lt while main holds (P anywhere before Lt: before or after Lm):
        //   Um grants and wakes the task; then no choice: 2.
        // - Lm while the task holds (P, Lt, Lm): Ut wakes main: 1.
        // 3 + 1 + 2 + 1 = 7.
        check_dfs(7, super::two_lockers);
    }

    #[test]
    fn two_tasks_taking_a_one_permit_semaphore_behave_like_the_mutex() {
        // Acquire is a lock step and dropping the permit an unlock step, so
        // the shape, and the count, are those of `two_tasks_locking_once`: 7.
        use samaritan::sync::Semaphore;
        check_dfs(7, || {
            block_on(async {
                let s = Arc::new(Semaphore::new(1));
                let s2 = s.clone();
                let t = spawn(async move { drop(s2.acquire().await.unwrap()) });
                drop(s.acquire().await.unwrap());
                t.await.unwrap();
                assert_eq!(s.available_permits(), 1);
            })
        });
    }

    #[test]
    fn a_writer_and_a_reader_behave_like_two_lockers_and_two_readers_never_wait() {
        use samaritan::sync::AsyncRwLock;
        // A write is a lock step and a read a read-lock step; one of each
        // exclude each other as two mutex lockers do: 7.
        check_dfs(7, || {
            block_on(async {
                let l = Arc::new(AsyncRwLock::new(0));
                let l2 = l.clone();
                let t = spawn(async move { *l2.write().await += 1 });
                let _ = *l.read().await;
                t.await.unwrap();
            })
        });
        // Two readers never wait for each other: main's read R and release
        // Rr, the task's poll P, read Rt and release Rtr, interleave freely
        // with P first among the task's: C(5,2) = 10 orders of main's two
        // steps among the task's three, none blocked.
        check_dfs(10, || {
            block_on(async {
                let l = Arc::new(AsyncRwLock::new(0));
                let l2 = l.clone();
                let t = spawn(async move {
                    let _ = *l2.read().await;
                });
                let _ = *l.read().await;
                t.await.unwrap();
            })
        });
    }

    /// Each task reads under one lock and writes under another: an update is lost.
    fn split_critical_section() {
        block_on(async {
            let m = Arc::new(AsyncMutex::new(0));
            let m2 = m.clone();
            let t = spawn(async move {
                let v = *m2.lock().await;
                *m2.lock().await = v + 1;
            });
            let v = *m.lock().await;
            *m.lock().await = v + 1;
            t.await.unwrap();
            assert_eq!(*m.try_lock().unwrap(), 2, "an update was lost");
        });
    }

    #[test]
    fn a_lost_update_under_a_split_critical_section_is_found() {
        let report = check_found(split_critical_section);
        assert!(matches!(&report.outcome, Outcome::Panic { message, .. } if message.contains("an update was lost")));
    }

    /// main locks A then B; the task locks B then A.
    fn abba() {
        block_on(async {
            let a = Arc::new(AsyncMutex::new(()));
            let b = Arc::new(AsyncMutex::new(()));
            let (a2, b2) = (a.clone(), b.clone());
            let t = spawn(async move {
                let _b = b2.lock().await;
                let _a = a2.lock().await;
            });
            {
                let _a = a.lock().await;
                let _b = b.lock().await;
            }
            t.await.unwrap();
        });
    }

    #[test]
    fn an_abba_deadlock_between_two_async_mutexes_is_found() {
        let report = check_found(abba);
        let Outcome::Deadlock(d) = &report.outcome else { panic!("{report}") };
        // Both tasks are pending in `poll`, each awaiting the mutex the
        // other holds, and the wait-for cycle goes through them.
        let blocked: Vec<_> = d
            .blocked
            .iter()
            .map(|b| (b.actor.as_str(), b.op.as_str(), b.awaiting.as_deref(), b.holders.clone()))
            .collect();
        assert_eq!(
            blocked,
            [
                ("main", "poll", Some("AsyncMutex#3"), vec!["task-1".to_string()]),
                ("task-1", "poll", Some("AsyncMutex#2"), vec!["main".to_string()]),
            ],
            "{report}"
        );
        assert_eq!(d.cycle, ["main", "task-1", "main"], "{report}");
        // The trace ends with each one's second lock, on the other's mutex.
        let lines = &report.failure.as_ref().unwrap().trace.lines;
        let last: Vec<_> =
            lines[lines.len() - 3..].iter().map(|l| (l.actor.as_str(), l.op, l.object.clone())).collect();
        let (a, b) = (Some("AsyncMutex#2".to_string()), Some("AsyncMutex#3".to_string()));
        assert_eq!(last, [("task-1", Op::Lock, b.clone()), ("task-1", Op::Lock, a), ("main", Op::Lock, b)], "{report}");
    }

    #[test]
    fn oneshot_count() {
        // After the spawn: main's receive R; the task's poll P, send S and
        // the sender's drop (close) C. main's receiver is dropped (close Cr)
        // when it is ready, then the join takes no step if the task is done.
        // - R before S (R before or after P: 2): S wakes main (W). Then
        //   main's poll, R again, Cr race the task's C: 4 places. 2 * 4 = 8.
        // - S before R: main's R, Cr race the task's C: 3 places.
        // 8 + 3 = 11.
        check_dfs(11, || {
            block_on(async {
                let (tx, rx) = oneshot::channel();
                let t = spawn(async move { tx.send(7).unwrap() });
                assert_eq!(rx.await, Ok(7));
                t.await.unwrap();
            })
        });
    }

    #[test]
    fn an_async_receiver_dropped_with_messages_queued_says_how_many() {
        let report = explore(|| {
            block_on(async {
                let (tx, rx) = async_mpsc::channel(2);
                tx.send(7).await.unwrap();
                drop(rx);
                panic!("stop");
            })
        });
        let trace = &report.failure.as_ref().expect("a panic is a failure").trace;
        let notes: Vec<&str> = trace.lines.iter().filter_map(|l| l.note.as_deref()).collect();
        assert_eq!(notes, ["1 message dropped unreceived"], "{trace}");
    }

    #[test]
    fn mpsc_count() {
        // As for oneshot, but the receiver is dropped only after the join:
        // - R before S (2): S wakes main, whose poll and R race the task's
        //   close: 3 places. 2 * 3 = 6.
        // - S before R: R and the close race: 2.
        // 6 + 2 = 8.
        check_dfs(8, || {
            block_on(async {
                let (tx, mut rx) = async_mpsc::channel(1);
                let t = spawn(async move { tx.send(1).await.unwrap() });
                assert_eq!(rx.recv().await, Some(1));
                t.await.unwrap();
            })
        });
    }

    #[test]
    fn notify_count() {
        // main: `notified()` reads the state (load L), its poll waits (W);
        // the task: poll P, notify_one N. Any order of [L, W] with [P, N]
        // is possible (W before N waits and is woken; N before W leaves a
        // permit), and nothing after them races: C(4, 2) = 6.
        check_dfs(6, || {
            block_on(async {
                let n = Arc::new(Notify::new());
                let n2 = n.clone();
                let t = spawn(async move { n2.notify_one() });
                n.notified().await;
                t.await.unwrap();
            })
        });
    }

    #[test]
    fn watch_count() {
        // main: changed() R, then borrow B (a recv); the task: poll P, send
        // S, the sender's drop C. The receiver drops after the join.
        // - R before S (2): S wakes main; main's poll, R, B race C: 4. = 8.
        // - S before R: main's R, B race C: 3.
        // 8 + 3 = 11.
        check_dfs(11, || {
            block_on(async {
                let (tx, mut rx) = watch::channel(0);
                let t = spawn(async move { tx.send(1).unwrap() });
                rx.changed().await.unwrap();
                assert_eq!(*rx.borrow(), 1);
                t.await.unwrap();
            })
        });
    }
}
