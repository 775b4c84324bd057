//! How many polls overlap: on a current-thread runtime (the default of
//! `#[tokio::test]`) a poll runs to its end before another task's begins;
//! with `worker_threads = n`, up to `n` overlap. The `#[tokio::test]`
//! without `sim` runs on tokio itself.

use crate::programs;

/// `#[tokio::test]`'s default flavor explores one poll at a time, so the
/// program passes here (and on tokio, without `sim`).
#[tokio::test]
async fn tokio_test_polls_one_task_at_a_time() {
    programs::flag_set_after_spawn().await;
    programs::yield_lets_waiting_tasks_run().await;
    programs::small_acquires_behind_a_large_one(3).await;
    programs::refill_runs_before_the_woken_main_task().await;
    programs::zero_sleeps_let_spawned_hooks_run().await;
    programs::a_task_that_wakes_itself_and_finishes().await;
    programs::tasks_left_pending_at_shutdown().await;
}

/// With `worker_threads = 2` polls overlap, and the task that runs inside
/// the spawner's poll is found.
#[cfg(feature = "sim")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[should_panic(expected = "the task ran inside the spawner's poll")]
async fn tokio_test_on_two_workers_overlaps_polls() {
    programs::flag_set_after_spawn().await;
}

/// Explorations of the programs on one worker in tokio's current-thread
/// order (what `#[tokio::test]` builds), on one worker in any order, and
/// with more workers.
#[cfg(feature = "sim")]
mod explored {
    use samaritan::{Outcome, Report, SearchStrategy};
    use SearchStrategy::{Dfs, Dpor, Icb};

    use crate::programs;
    use crate::support::{explore_current_thread, explore_on};

    /// The runtime an exploration runs the program on.
    #[derive(Clone, Copy)]
    enum On {
        /// One poll at a time, in tokio's current-thread order.
        TokioOrder,
        /// This many polls at once (`None`: no limit), woken tasks in any
        /// order.
        Polls(Option<usize>),
    }

    /// Whether an exploration on `on` under `strategy` passes, having
    /// exhausted the search, or the panic's message if not; and its
    /// executions.
    fn verdict<F, Fut>(on: On, strategy: SearchStrategy, f: F) -> (Result<(), String>, u64)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let report: Report = match on {
            On::TokioOrder => explore_current_thread(strategy, f),
            On::Polls(n) => explore_on(n, strategy, f),
        };
        let verdict = match &report.outcome {
            Outcome::Pass if report.exhausted => Ok(()),
            Outcome::Panic { message, .. } => Err(message.clone()),
            _ => panic!("expected an exhaustive pass or a panic, got:\n{report}"),
        };
        (verdict, report.executions)
    }

    /// A deadlock on a runtime with workers names what each task awaits,
    /// not the worker it gave back at the end of its poll (a yield).
    #[test]
    fn a_deadlock_on_one_worker_names_the_awaited_channel() {
        for on in [On::TokioOrder, On::Polls(Some(1))] {
            let report = match on {
                On::TokioOrder => explore_current_thread(Dfs, programs::receiver_awaited_while_its_sender_lives),
                On::Polls(n) => explore_on(n, Dfs, programs::receiver_awaited_while_its_sender_lives),
            };
            let Outcome::Deadlock(deadlock) = &report.outcome else {
                panic!("expected a deadlock, got:\n{report}");
            };
            let blocked: Vec<_> = deadlock.blocked.iter().map(|b| (b.actor.as_str(), b.awaiting.as_deref())).collect();
            // Awaiting a join handle is no step of its own, so main's is
            // not known; before, both named `Worker#0`.
            assert_eq!(blocked, [("main", None), ("task-1", Some("AsyncChannel#3"))], "{report}");
        }
    }

    #[test]
    fn a_spawned_task_runs_after_the_spawners_poll_on_one_worker() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::flag_set_after_spawn), (Ok(()), 1));
        assert_eq!(verdict(On::Polls(Some(1)), Dfs, programs::flag_set_after_spawn), (Ok(()), 1));
    }

    #[test]
    fn a_spawned_task_may_run_inside_the_spawners_poll_on_two_workers() {
        let message = "the task ran inside the spawner's poll".to_string();
        assert_eq!(verdict(On::Polls(Some(2)), Dpor, programs::flag_set_after_spawn).0, Err(message.clone()));
        assert_eq!(verdict(On::Polls(None), Dpor, programs::flag_set_after_spawn).0, Err(message));
    }

    /// A std mutex held across a `Sleep`'s poll: another poll never finds it
    /// held, so nothing blocks outside the model.
    #[test]
    fn a_std_mutex_held_inside_one_poll_never_blocks_another_task() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::sleeps_under_a_std_mutex), (Ok(()), 1));
        assert_eq!(verdict(On::Polls(Some(1)), Dfs, programs::sleeps_under_a_std_mutex), (Ok(()), 2));
    }

    /// A waker called under a std mutex where polls overlap: the wake's
    /// step waits for the waking task's next visible operation, after the
    /// mutex is released. As a scheduling point of its own there, another
    /// task's poll blocked on the mutex for real: "uncontrolled blocking"
    /// in execution 238 on two workers, after the watchdog (the shape of a
    /// mobc pool test run on two workers, whose `futures` mutex wakes its
    /// next waiter under a std mutex).
    #[test]
    fn a_wake_under_a_std_mutex_never_blocks_another_task() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::wakes_under_a_std_mutex), (Ok(()), 1));
        assert_eq!(verdict(On::Polls(Some(2)), Dfs, programs::wakes_under_a_std_mutex), (Ok(()), 5424));
        assert_eq!(verdict(On::Polls(None), Dfs, programs::wakes_under_a_std_mutex), (Ok(()), 24));
    }

    /// A task that yields goes behind the tasks already waiting in tokio's
    /// order; polled in any order, or on two workers, it may resume first.
    #[test]
    fn a_yielding_task_resumes_after_the_waiting_ones_in_tokios_order() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::yield_lets_waiting_tasks_run), (Ok(()), 1));
        let message = "assertion `left == right` failed: the yielding task resumed before the waiting ones ran\n  left: 0\n right: 2";
        assert_eq!(
            verdict(On::Polls(Some(1)), Dfs, programs::yield_lets_waiting_tasks_run),
            (Err(message.to_string()), 1)
        );
        let message = "assertion `left == right` failed: the yielding task resumed before the waiting ones ran\n  left: 1\n right: 2";
        assert_eq!(
            verdict(On::Polls(Some(2)), Icb, programs::yield_lets_waiting_tasks_run).0,
            Err(message.to_string())
        );
    }

    /// A refill spawned before the wake of the main task runs first in
    /// tokio's order (one execution); in any order the main task may look
    /// first, which tokio's current-thread runtime never does.
    #[test]
    fn the_main_task_runs_after_the_tasks_woken_before_it_in_tokios_order() {
        let program = programs::refill_runs_before_the_woken_main_task;
        assert_eq!(verdict(On::TokioOrder, Dfs, program), (Ok(()), 1));
        let message = "assertion `left == right` failed: the main task ran before the refill\n  left: 0\n right: 1";
        assert_eq!(verdict(On::Polls(Some(1)), Dfs, program).0, Err(message.to_string()));
    }

    /// A zero sleep lasts until tokio's next millisecond tick: the tasks
    /// spawned before it run while it waits, in one execution.
    #[test]
    fn a_zero_sleep_lets_the_spawned_tasks_run() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::zero_sleeps_let_spawned_hooks_run), (Ok(()), 1));
    }

    /// A task's wake of itself in its last poll leaves no place in tokio's
    /// run queue: before, it stayed at the queue's front, next for good,
    /// and the main task's timer led to a false deadlock (bb8's pool tests:
    /// the connection task's retry timer fired in its last poll).
    #[test]
    fn a_task_that_wakes_itself_in_its_last_poll_leaves_the_run_queue() {
        assert_eq!(verdict(On::TokioOrder, Dfs, programs::a_task_that_wakes_itself_and_finishes), (Ok(()), 1));
    }

    /// The tasks a shutdown aborts are woken in spawn order: in a hash
    /// map's order, which changes from one execution to the next, a replay
    /// met other wakes than its execution had ("nondeterminism"; six of
    /// bb8's tests).
    #[test]
    fn a_shutdown_aborts_the_pending_tasks_in_the_same_order_in_every_execution() {
        let program = programs::tasks_left_pending_at_shutdown;
        assert_eq!(verdict(On::TokioOrder, Dfs, program), (Ok(()), 55));
    }

    /// The shape of a rate limiter's drop test that got a false deadlock when
    /// every task's steps interleaved with the main task's first poll: small
    /// acquires in a `JoinSet` behind a large one, inside a `select!` with a
    /// sleep. It holds on one worker and is a real failure on two.
    #[test]
    fn small_acquires_stay_behind_a_large_one_polled_first_on_one_worker() {
        let small = || programs::small_acquires_behind_a_large_one(2);
        assert_eq!(verdict(On::TokioOrder, Dfs, small), (Ok(()), 9));
        assert_eq!(verdict(On::Polls(Some(1)), Dfs, small), (Ok(()), 216));
        // Found late by the depth-first searches (DPOR: 268,529 executions,
        // as their first choices are the ones to change), in 145 by ICB.
        let two = verdict(On::Polls(Some(2)), Icb, small);
        assert_eq!(two, (Err("a small acquire got ahead of the large one".to_string()), 145));
    }
}
