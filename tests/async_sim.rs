//! The executor inside an exploration: tasks are actors, polls and wakes
//! are visible operations, and a lost wakeup is a deadlock naming the
//! pending task. Outside an exploration (and without `sim`) the executor
//! is the production one.

use samaritan::executor::{self, Builder};

#[path = "../examples/lost_wakeup.rs"]
#[allow(dead_code)]
mod lost_wakeup;

/// The fixed future of the example, on the real executor.
#[test]
fn the_fixed_example_completes_on_the_real_executor() {
    lost_wakeup::fixed();
}

/// Outside an exploration a `sim` build runs the real executor: a
/// multi-thread runtime's task runs on one of its named OS worker threads.
#[test]
fn outside_an_exploration_tasks_run_on_real_worker_threads() {
    let rt = Builder::multi_thread().worker_threads(2).thread_name("real").build().unwrap();
    let main = std::thread::current().id();
    let worker = rt.block_on(async { executor::spawn(async { std::thread::current() }).await.unwrap() });
    assert_ne!(worker.id(), main);
    assert!(worker.name().is_some_and(|n| n.starts_with("real-")), "{worker:?}");
}

#[cfg(feature = "sim")]
mod sim {
    use std::collections::BTreeSet;
    use std::sync::Mutex as StdMutex;
    use std::time::Duration;

    use samaritan::executor;
    use samaritan::sync::atomic::{AtomicUsize, Ordering};
    use samaritan::sync::Arc;
    use samaritan::{Builder, Op, Outcome, Report, SearchStrategy};

    use super::lost_wakeup;

    /// Explores `f` exhaustively with DFS and checks it passed in exactly
    /// `executions` executions.
    #[track_caller]
    fn check_dfs(executions: u64, f: impl Fn() + Send + Sync + 'static) -> Report {
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings");
        assert_eq!(report.outcome, Outcome::Pass, "{report}");
        assert!(report.exhausted, "{report}");
        assert_eq!(report.executions, executions, "{report}");
        report
    }

    /// The ops of the first DFS execution of `f`, which must fail.
    #[track_caller]
    fn first_trace_ops(f: impl Fn() + Send + Sync + 'static) -> Vec<(String, Op)> {
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings");
        let failure = report.failure.as_ref().unwrap_or_else(|| panic!("{report}"));
        failure.trace.lines.iter().map(|l| (l.actor.clone(), l.op)).collect()
    }

    #[test]
    fn a_joined_task_returns_its_output_in_one_execution() {
        // main: poll, spawn (the only actor each time); the task starts and
        // waits to poll while main polls the join handle (pending) and
        // waits for a wake. Only the task is enabled from then on: poll,
        // ready, wake main; main polls again. No choice: 1 execution.
        check_dfs(1, || {
            let v = executor::block_on(async { executor::spawn(async { 6 * 7 }).await.unwrap() });
            assert_eq!(v, 42);
        });
    }

    #[test]
    fn a_task_racing_its_spawner_has_three_executions() {
        // After the spawn, main's store and the task's first poll race:
        // - main stores first: main then waits on the join; the task runs
        //   alone (poll, store, wake main): 1.
        // - the task polls first: its store and main's store race again:
        //   task first (it finishes, nobody to wake) or main first (main
        //   waits, the task stores and wakes it): 2.
        // Total 3, and the join always sees the task's store done.
        check_dfs(3, || {
            let x = Arc::new(AtomicUsize::new(0));
            let y = Arc::new(AtomicUsize::new(0));
            let theirs = x.clone();
            executor::block_on(async move {
                let h = executor::spawn(async move { theirs.store(1, Ordering::SeqCst) });
                y.store(2, Ordering::SeqCst);
                h.await.unwrap();
                assert_eq!(x.load(Ordering::SeqCst), 1);
            });
        });
    }

    #[test]
    fn yield_now_lets_a_spawned_task_run_first() {
        // main spawns, then yields; three points where main (yield, wake
        // itself, poll again) and the task's first poll are both enabled.
        // The task polls first at the first point, the second or the third
        // (it then runs to its end): 3 executions with log "tm"; or main
        // passes all three and logs first: 1 with "mt". Total 4.
        let logs = std::sync::Arc::new(StdMutex::new(BTreeSet::new()));
        let seen = logs.clone();
        check_dfs(4, move || {
            let log = std::sync::Arc::new(StdMutex::new(String::new()));
            let theirs = log.clone();
            executor::block_on(async {
                let h = executor::spawn(async move { theirs.lock().unwrap().push('t') });
                executor::yield_now().await;
                log.lock().unwrap().push('m');
                h.await.unwrap();
            });
            seen.lock().unwrap().insert(log.lock().unwrap().clone());
        });
        let logs: Vec<String> = logs.lock().unwrap().iter().cloned().collect();
        assert_eq!(logs, ["mt", "tm"]);
    }

    #[test]
    fn polls_wakes_and_yields_are_visible_operations() {
        // The first DFS execution: main polls, spawns and yields; after a
        // yield the engine runs another actor first, so the task polls (and
        // finishes, with no joiner's waker to wake); then main wakes itself
        // (the second half of `yield_now`), polls again, joins and panics.
        let ops = first_trace_ops(|| {
            executor::block_on(async {
                let h = executor::spawn(async { 1 });
                executor::yield_now().await;
                h.await.unwrap();
            });
            panic!("the end");
        });
        let main = |op| ("main".to_string(), op);
        assert_eq!(
            ops,
            [
                main(Op::Poll),
                main(Op::Spawn),
                main(Op::Yield),
                ("task-1".into(), Op::Poll),
                main(Op::Wake),
                main(Op::Poll)
            ]
        );
    }

    #[test]
    fn an_aborted_task_resolves_to_cancelled_in_two_executions() {
        // After the spawn, main's wake of the aborted task races the task's
        // first poll: main first (the task then drops its future and wakes
        // main), or the task first (it polls `pending`, waits; main wakes
        // it, waits on the join; the task cancels and wakes main). 2.
        check_dfs(2, || {
            let e = executor::block_on(async {
                let h = executor::spawn(std::future::pending::<u32>());
                h.abort();
                h.await.unwrap_err()
            });
            assert!(e.is_cancelled(), "{e}");
        });
    }

    #[test]
    fn an_abort_handle_aborts_as_the_join_handle_does_in_two_executions() {
        // As above, through an `AbortHandle`. 2.
        check_dfs(2, || {
            let e = executor::block_on(async {
                let h = executor::spawn(std::future::pending::<u32>());
                h.abort_handle().abort();
                h.await.unwrap_err()
            });
            assert!(e.is_cancelled(), "{e}");
        });
    }

    #[test]
    fn a_task_that_never_finishes_is_cancelled_when_the_runtime_drops() {
        // block_on returns with the task pending; dropping its runtime
        // aborts it, so the execution ends without a deadlock: the abort's
        // wake races the task's first poll, as above. 2 executions.
        check_dfs(2, || {
            executor::block_on(async {
                drop(executor::spawn(std::future::pending::<()>()));
            });
        });
    }

    #[test]
    fn a_panic_in_a_task_is_caught_and_does_not_fail_the_execution() {
        // As the joined task above: 1 execution.
        check_dfs(1, || {
            let e = executor::block_on(async { executor::spawn(async { panic!("boom") }).await.unwrap_err() });
            assert!(e.is_panic());
            assert_eq!(e.to_string(), "task panicked with message \"boom\"");
        });
    }

    #[test]
    fn a_panic_in_block_on_fails_the_execution() {
        let report = Builder::new()
            .strategy(SearchStrategy::Dfs)
            .explore(|| executor::block_on(async { panic!("uncaught") }))
            .expect("valid settings");
        let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!((actor.as_str(), message.as_str()), ("main", "uncaught"));
    }

    #[test]
    fn spawn_blocking_runs_on_a_simulated_thread() {
        // The blocking closure's actor runs to its store when spawned (it
        // has no earlier visible operation) and then races main's load:
        // 2 executions, the join sees the value either way.
        let loads = std::sync::Arc::new(StdMutex::new(BTreeSet::new()));
        let seen = loads.clone();
        check_dfs(2, move || {
            let x = Arc::new(AtomicUsize::new(0));
            let theirs = x.clone();
            let (early, v) = executor::block_on(async {
                let h = executor::spawn_blocking(move || {
                    theirs.store(5, Ordering::SeqCst);
                    samaritan::thread::current().name().map(str::to_string)
                });
                let early = x.load(Ordering::SeqCst);
                (early, h.await.unwrap())
            });
            assert_eq!(v, None);
            seen.lock().unwrap().insert(early);
        });
        assert_eq!(*loads.lock().unwrap(), BTreeSet::from([0, 5]));
    }

    #[test]
    fn a_join_error_from_a_panicking_blocking_closure_is_caught() {
        check_dfs(1, || {
            let e = executor::block_on(async { executor::spawn_blocking(|| panic!("blocking")).await.unwrap_err() });
            assert!(e.is_panic());
        });
    }

    #[test]
    fn a_runtime_built_inside_an_exploration_starts_no_os_threads() {
        // Two "workers", but tasks are actors: the task sees the simulated
        // thread named after it.
        check_dfs(1, || {
            let rt = executor::Builder::multi_thread().worker_threads(2).build().unwrap();
            let name = rt.block_on(async {
                executor::spawn(async { samaritan::thread::current().name().map(str::to_string) }).await.unwrap()
            });
            assert_eq!(name.as_deref(), Some("task-1"));
        });
    }

    #[test]
    fn a_sleep_is_a_step_that_takes_no_wall_time() {
        // An hour of virtual time: main polls, sleeps (one step: it arms a
        // timer and is pending), and with no one else to run the clock jumps
        // an hour and wakes it: it polls again and goes on to its panic.
        let start = std::time::Instant::now();
        let ops = first_trace_ops(|| {
            executor::block_on(samaritan::time::sleep(Duration::from_secs(3600)));
            panic!("the end");
        });
        assert_eq!(
            ops,
            [("main".to_string(), Op::Poll), ("main".to_string(), Op::Sleep), ("main".to_string(), Op::Poll)]
        );
        assert!(start.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn a_timeout_elapses_when_nothing_else_can_happen_first() {
        // A future that stays pending loses once nothing else can run (the
        // clock jumps to the deadline); a ready one wins. One actor, no
        // choice: 1 execution.
        check_dfs(1, || {
            let hour = Duration::from_secs(3600);
            let lost = executor::block_on(samaritan::time::timeout(hour, std::future::pending::<()>()));
            assert!(lost.is_err());
            let won = executor::block_on(samaritan::time::timeout(hour, async { 3 }));
            assert_eq!(won, Ok(3));
        });
    }

    #[test]
    fn a_timeout_and_its_future_ready_at_the_same_instant_race() {
        // The sender sleeps exactly as long as the receiver's timeout: both
        // timers fire at the same virtual instant, so the receiver sees its
        // message ready and its deadline passed at once, and which wins is
        // an explored choice: both results are reached.
        use std::sync::Mutex as StdMutex;
        static SEEN: StdMutex<Vec<bool>> = StdMutex::new(Vec::new());
        let report = samaritan::Builder::new()
            .strategy(samaritan::SearchStrategy::Dfs)
            .explore(|| {
                executor::block_on(async {
                    let (tx, rx) = samaritan::sync::oneshot::channel::<u32>();
                    let second = Duration::from_secs(1);
                    let sender = executor::spawn(async move {
                        samaritan::time::sleep(second).await;
                        let _ = tx.send(7);
                    });
                    let got = samaritan::time::timeout(second, rx).await;
                    SEEN.lock().unwrap().push(got.is_ok());
                    sender.await.unwrap();
                })
            })
            .unwrap();
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
        let seen = SEEN.lock().unwrap();
        assert!(seen.contains(&true) && seen.contains(&false), "{seen:?}");
    }

    #[test]
    fn a_timer_fires_once_the_clock_reaches_it_even_while_a_thread_runs() {
        // main spins with thread::sleep (each a yield moving the clock 1
        // ms) until a task that sleeps 5 ms sets the flag: the task's timer
        // is due after five of main's sleeps, whoever else can run, so
        // every execution ends (no livelock). Two actors; DFS explores the
        // orders the fair scheduler leaves.
        let report = samaritan::Builder::new()
            .strategy(SearchStrategy::Dfs)
            .explore(|| {
                let flag = Arc::new(AtomicUsize::new(0));
                let rt = executor::Builder::current_thread().build().unwrap();
                let f = flag.clone();
                let _task = rt.spawn(async move {
                    samaritan::time::sleep(Duration::from_millis(5)).await;
                    f.store(1, Ordering::SeqCst);
                });
                while flag.load(Ordering::SeqCst) == 0 {
                    samaritan::thread::sleep(Duration::from_millis(1));
                }
            })
            .unwrap();
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    #[test]
    fn a_sleep_under_a_combinator_wakes_the_combinators_child_waker() {
        // A combinator that polls its child only after the child's own
        // waker fired (as join/select implementations do): the sleep's
        // timer must call that waker, not only wake the task.
        struct OnlyWhenWoken<F> {
            child: std::pin::Pin<Box<F>>,
            woken: std::sync::Arc<std::sync::atomic::AtomicBool>,
        }
        struct Flag(std::sync::Arc<std::sync::atomic::AtomicBool>, std::task::Waker);
        impl std::task::Wake for Flag {
            fn wake(self: std::sync::Arc<Self>) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
                self.1.wake_by_ref();
            }
        }
        impl<F: std::future::Future> std::future::Future for OnlyWhenWoken<F> {
            type Output = F::Output;
            fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
                if !self.woken.swap(false, std::sync::atomic::Ordering::SeqCst) {
                    return std::task::Poll::Pending;
                }
                let waker = std::task::Waker::from(std::sync::Arc::new(Flag(self.woken.clone(), cx.waker().clone())));
                self.child.as_mut().poll(&mut std::task::Context::from_waker(&waker))
            }
        }
        check_dfs(1, || {
            executor::block_on(OnlyWhenWoken {
                child: Box::pin(samaritan::time::sleep(Duration::from_millis(5))),
                woken: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
            });
        });
    }

    #[test]
    fn std_clocks_move_with_the_virtual_sleeps_of_threads_and_tasks() {
        // A thread sleeps a minute and a task an hour, both virtual: the
        // program's own reads of std's clocks see each sleep take at least
        // its length (and far less than both together), in every schedule.
        fn lasted(start: std::time::Instant, at_least: Duration) {
            let took = start.elapsed();
            assert!(took >= at_least && took < at_least + Duration::from_secs(30), "{took:?}");
        }
        if !samaritan_sim::STD_CLOCKS_FOLLOW {
            return;
        }
        check_dfs(3, || {
            let t = samaritan::thread::spawn(|| {
                let start = std::time::Instant::now();
                samaritan::thread::sleep(Duration::from_secs(60));
                lasted(start, Duration::from_secs(60));
            });
            let wall = std::time::SystemTime::now();
            executor::block_on(samaritan::time::sleep(Duration::from_secs(3600)));
            let took = wall.elapsed().unwrap();
            assert!(took >= Duration::from_secs(3600) && took < Duration::from_secs(3690), "{took:?}");
            t.join().unwrap();
        });
    }

    #[test]
    fn interval_ticks_follow_virtual_time_exactly() {
        // Ticks at 0, 10 and 20 ms; a task that sleeps 15 ms finishes
        // between the second and third: one order only.
        static EVENTS: StdMutex<Vec<&'static str>> = StdMutex::new(Vec::new());
        let report = samaritan::Builder::new()
            .strategy(SearchStrategy::Dfs)
            .explore(|| {
                EVENTS.lock().unwrap().clear();
                executor::block_on(async {
                    let sleeper = executor::spawn(async {
                        samaritan::time::sleep(Duration::from_millis(15)).await;
                        EVENTS.lock().unwrap().push("slept 15");
                    });
                    let mut interval = samaritan::time::interval(Duration::from_millis(10));
                    for tick in ["tick 0", "tick 10", "tick 20"] {
                        interval.tick().await;
                        EVENTS.lock().unwrap().push(tick);
                    }
                    sleeper.await.unwrap();
                });
                assert_eq!(*EVENTS.lock().unwrap(), ["tick 0", "tick 10", "slept 15", "tick 20"]);
            })
            .unwrap();
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    /// The lost wakeup's deadlock: the waiter task blocked in `poll` on its
    /// task object, at the line where it stored its waker.
    #[track_caller]
    fn assert_lost_wakeup(report: &Report) {
        let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("{report}") };
        let waiter = deadlock.blocked.iter().find(|b| b.actor == "task-1").unwrap_or_else(|| panic!("{report}"));
        assert_eq!(waiter.op, "poll");
        assert_eq!(waiter.object.as_deref(), Some("Task#1"));
        // Its last visible operation before `Pending`: the line after the
        // comment marking the bug, where it stores its waker.
        let source = include_str!("../examples/lost_wakeup.rs");
        let bug = source.lines().position(|l| l.contains("// The bug:")).expect("the marked line") + 2;
        assert!(waiter.location.starts_with(&format!("examples/lost_wakeup.rs:{bug}:")), "{report}");
        let main = deadlock.blocked.iter().find(|b| b.actor == "main").unwrap_or_else(|| panic!("{report}"));
        assert_eq!((main.op.as_str(), main.object.as_deref()), ("poll", Some("Task#0")));
        assert_eq!(deadlock.blocked.len(), 2, "{report}");
    }

    #[test]
    fn the_lost_wakeup_is_a_deadlock_naming_the_pending_task_and_replays() {
        let report =
            Builder::new().strategy(SearchStrategy::Dfs).explore(lost_wakeup::lost_wakeup).expect("valid settings");
        assert_lost_wakeup(&report);
        let token = &report.failure.as_ref().expect("a failure").token;
        let replayed = Builder::new().replay(token, lost_wakeup::lost_wakeup).expect("a valid token");
        assert_lost_wakeup(&replayed);
        assert_eq!(replayed.outcome, report.outcome);
    }

    #[test]
    fn the_fixed_future_passes_every_interleaving() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(lost_wakeup::fixed).expect("valid settings");
        assert_eq!(report.outcome, Outcome::Pass, "{report}");
        assert!(report.exhausted);
    }

    /// Outside an exploration, a `sim` build's executor is the real one
    /// even for tasks spawned from a test that also explores.
    #[test]
    fn exploring_does_not_change_the_executor_outside() {
        check_dfs(1, || executor::block_on(async {}));
        let rt = executor::Builder::multi_thread().worker_threads(1).build().unwrap();
        let name =
            rt.block_on(async { executor::spawn(async { std::thread::current().name().map(str::to_string) }).await });
        assert_eq!(name.unwrap().as_deref(), Some("samaritan-worker-0"));
    }
}
