//! The production executor: spawning, joining, aborting, panics, blocking
//! work, fairness, stealing and shutdown. Outside an exploration the
//! executor is the real one in both modes, so every test runs the same with
//! `sim` (tasks inside an exploration: `tests/async_sim.rs`).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use samaritan::executor::{self, Builder, Handle, JoinError, Runtime};

/// Runs `f` on its own thread and fails if it takes longer than 20 s (a
/// hang in shutdown or a lost wakeup), re-raising its panic otherwise.
#[track_caller]
fn with_watchdog(f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => t.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(t.join().unwrap_err()),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("test hung for 20 s"),
    }
}

fn multi(workers: usize) -> Runtime {
    Builder::multi_thread().worker_threads(workers).build().unwrap()
}

fn current() -> Runtime {
    Builder::current_thread().build().unwrap()
}

/// Both flavours, for tests that must hold on each.
fn flavours() -> Vec<(&'static str, Runtime)> {
    vec![("multi_thread", multi(4)), ("current_thread", current())]
}

/// Sets a flag when dropped: shows a task's future was dropped.
struct DropFlag(Arc<AtomicUsize>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A future that never completes, holding a `DropFlag`.
async fn pending_forever(flag: DropFlag) {
    let _flag = flag;
    std::future::pending::<()>().await;
}

#[test]
fn spawn_many_and_sum() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let sum = rt.block_on(async {
                let handles: Vec<_> = (0..1000u64).map(|i| executor::spawn(async move { i })).collect();
                let mut sum = 0;
                for h in handles {
                    sum += h.await.unwrap();
                }
                sum
            });
            assert_eq!(sum, 999 * 1000 / 2, "{name}");
        }
    });
}

#[test]
fn join_handle_gives_the_output() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let h = rt.spawn(async { String::from("out") });
            assert_eq!(rt.block_on(h).unwrap(), "out", "{name}");
        }
    });
}

#[test]
fn spawn_from_outside_then_await_from_block_on() {
    with_watchdog(|| {
        let rt = multi(2);
        let handles: Vec<_> = (0..100usize).map(|i| rt.spawn(async move { i * 2 })).collect();
        let total: usize = rt.block_on(async {
            let mut t = 0;
            for h in handles {
                t += h.await.unwrap();
            }
            t
        });
        assert_eq!(total, 99 * 100);
    });
}

#[test]
fn abort_drops_the_future_and_joins_cancelled() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let dropped = Arc::new(AtomicUsize::new(0));
            let h = rt.spawn(pending_forever(DropFlag(dropped.clone())));
            let err = rt.block_on(async {
                executor::yield_now().await;
                assert!(!h.is_finished(), "{name}");
                h.abort();
                h.await.unwrap_err()
            });
            assert!(err.is_cancelled() && !err.is_panic(), "{name}: {err:?}");
            assert!(matches!(err, JoinError::Cancelled), "{name}");
            assert_eq!(err.to_string(), "task was cancelled");
            assert_eq!(dropped.load(Ordering::SeqCst), 1, "{name}");
        }
    });
}

#[test]
fn an_abort_handle_aborts_the_task_its_join_handle_joins() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let dropped = Arc::new(AtomicUsize::new(0));
            let h = rt.spawn(pending_forever(DropFlag(dropped.clone())));
            let aborter = h.abort_handle();
            let other = aborter.clone();
            let err = rt.block_on(async {
                executor::yield_now().await;
                assert!(!aborter.is_finished(), "{name}");
                other.abort();
                h.await.unwrap_err()
            });
            assert!(err.is_cancelled(), "{name}: {err:?}");
            assert!(aborter.is_finished(), "{name}");
            assert_eq!(dropped.load(Ordering::SeqCst), 1, "{name}");
        }
        // A blocking closure's handle, like its join handle, aborts nothing.
        let rt = current();
        let out = rt.block_on(async {
            let h = executor::spawn_blocking(|| 3);
            h.abort_handle().abort();
            h.await
        });
        assert_eq!(out.unwrap(), 3);
    });
}

#[test]
fn abort_after_completion_keeps_the_output() {
    with_watchdog(|| {
        let rt = current();
        let out = rt.block_on(async {
            let h = executor::spawn(async { 7 });
            executor::yield_now().await;
            assert!(h.is_finished());
            h.abort();
            h.await
        });
        assert_eq!(out.unwrap(), 7);
    });
}

#[test]
fn a_panicking_task_is_caught_and_others_keep_running() {
    with_watchdog(|| {
        for (name, rt) in [("multi_thread", multi(1)), ("current_thread", current())] {
            let (err, after) = rt.block_on(async {
                let bad = executor::spawn(async { panic!("boom") });
                let err: JoinError = bad.await.unwrap_err();
                // The single worker survived: later tasks still run.
                let later: Vec<_> = (0..10u32).map(|i| executor::spawn(async move { i })).collect();
                let mut after = 0;
                for h in later {
                    after += h.await.unwrap();
                }
                (err, after)
            });
            assert_eq!(after, 45, "{name}");
            assert!(err.is_panic() && !err.is_cancelled(), "{name}");
            assert_eq!(err.to_string(), "task panicked with message \"boom\"");
            assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom", "{name}");
        }
    });
}

#[test]
fn is_finished_turns_true_once_the_task_ran() {
    with_watchdog(|| {
        current().block_on(async {
            let h = executor::spawn(async { 1 });
            // The main future runs first: the task has not been polled yet.
            assert!(!h.is_finished());
            executor::yield_now().await;
            assert!(h.is_finished());
            assert_eq!(h.await.unwrap(), 1);
        });
    });
}

#[test]
fn spawn_blocking_runs_on_another_thread() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let here = std::thread::current().id();
            let (there, sum, err) = rt.block_on(async {
                let h = executor::spawn_blocking(|| (std::thread::current().id(), (1..=10u32).sum::<u32>()));
                let (there, sum) = h.await.unwrap();
                let bad = executor::spawn_blocking(|| -> u32 { panic!("blocking boom") });
                (there, sum, bad.await.unwrap_err())
            });
            assert_ne!(here, there, "{name}");
            assert_eq!(sum, 55, "{name}");
            assert!(err.is_panic(), "{name}");
        }
    });
}

#[test]
fn spawn_blocking_sees_the_runtime_as_current() {
    with_watchdog(|| {
        let rt = multi(2);
        let out = rt.block_on(async {
            let h = executor::spawn_blocking(|| Handle::current().spawn(async { 5 }));
            h.await.unwrap().await.unwrap()
        });
        assert_eq!(out, 5);
    });
}

#[test]
fn yield_now_interleaves_two_tasks_in_order() {
    with_watchdog(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let task = |name: &'static str, log: Arc<Mutex<Vec<String>>>| async move {
            for i in 0..3 {
                log.lock().unwrap().push(format!("{name}{i}"));
                executor::yield_now().await;
            }
        };
        current().block_on(async {
            let a = executor::spawn(task("a", log.clone()));
            let b = executor::spawn(task("b", log.clone()));
            a.await.unwrap();
            b.await.unwrap();
        });
        assert_eq!(*log.lock().unwrap(), ["a0", "b0", "a1", "b1", "a2", "b2"]);
    });
}

#[test]
fn work_stealing_uses_more_than_one_worker() {
    with_watchdog(|| {
        let rt = multi(4);
        let ids = rt.block_on(async {
            // Spawned from a worker, these land on that worker's local queue:
            // any other worker that runs one stole it.
            executor::spawn(async {
                let handles: Vec<_> = (0..64)
                    .map(|_| {
                        executor::spawn(async {
                            let start = Instant::now();
                            while start.elapsed() < Duration::from_millis(1) {
                                std::hint::spin_loop();
                            }
                            std::thread::current().id()
                        })
                    })
                    .collect();
                let mut ids = HashSet::new();
                for h in handles {
                    ids.insert(h.await.unwrap());
                }
                ids
            })
            .await
            .unwrap()
        });
        assert!(ids.len() > 1, "all 64 tasks ran on one worker");
    });
}

#[test]
fn current_thread_runs_tasks_on_the_block_on_thread() {
    with_watchdog(|| {
        let here = std::thread::current().id();
        let there = current().block_on(async { executor::spawn(async { std::thread::current().id() }).await.unwrap() });
        assert_eq!(here, there);
    });
}

/// Completes once another thread has set the flag, waking it through the
/// waker it stored: a cross-thread wake of a parked runtime.
struct Flagged {
    state: Arc<Mutex<(bool, Option<std::task::Waker>)>>,
}

impl Future for Flagged {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.state.lock().unwrap();
        if s.0 {
            return Poll::Ready(());
        }
        s.1 = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[test]
fn a_wake_from_another_thread_resumes_a_parked_task() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let state = Arc::new(Mutex::new((false, None)));
            let h = rt.spawn(Flagged { state: state.clone() });
            let setter = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                let w = {
                    let mut s = state.lock().unwrap();
                    s.0 = true;
                    s.1.take()
                };
                if let Some(w) = w {
                    w.wake();
                }
            });
            rt.block_on(h).unwrap_or_else(|e| panic!("{name}: {e}"));
            setter.join().unwrap();
        }
    });
}

#[test]
fn handle_current_inside_and_outside_a_runtime() {
    with_watchdog(|| {
        assert_eq!(
            Handle::try_current().unwrap_err().to_string(),
            "no samaritan runtime on this thread: call from inside `Runtime::block_on` or a spawned task"
        );
        let outside = std::panic::catch_unwind(|| drop(executor::spawn(async {}))).unwrap_err();
        let msg = outside.downcast_ref::<String>().unwrap();
        assert!(msg.starts_with("`spawn` called outside a runtime: no samaritan runtime"), "{msg}");
        for (name, rt) in flavours() {
            let out = rt.block_on(async {
                let from_block_on = Handle::current().spawn(async { 1 }).await.unwrap();
                let from_task = executor::spawn(async { Handle::current().spawn(async { 2 }).await.unwrap() });
                from_block_on + from_task.await.unwrap()
            });
            assert_eq!(out, 3, "{name}");
        }
        assert!(Handle::try_current().is_err());
    });
}

#[test]
fn free_block_on_runs_spawned_tasks() {
    with_watchdog(|| {
        let out = executor::block_on(async {
            let h = executor::spawn(async { 20 });
            executor::yield_now().await;
            h.await.unwrap() + 1
        });
        assert_eq!(out, 21);
    });
}

#[test]
fn zero_workers_is_an_error() {
    let err = Builder::multi_thread().worker_threads(0).build().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "worker_threads must be at least 1");
}

#[test]
fn dropping_the_runtime_drops_pending_tasks() {
    with_watchdog(|| {
        for (name, rt) in flavours() {
            let dropped = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..10).map(|_| rt.spawn(pending_forever(DropFlag(dropped.clone())))).collect();
            // Let the multi-thread workers poll them once (so they are idle,
            // not queued); on current-thread they were never polled.
            rt.block_on(executor::yield_now());
            let handle = rt.handle().clone();
            drop(rt);
            assert_eq!(dropped.load(Ordering::SeqCst), 10, "{name}");
            for h in handles {
                assert!(h.is_finished(), "{name}");
                assert!(executor::block_on(h).unwrap_err().is_cancelled(), "{name}");
            }
            // Spawning on a handle of a shut-down runtime cancels at once.
            let late = handle.spawn(async { 1 });
            assert!(executor::block_on(late).unwrap_err().is_cancelled(), "{name}");
        }
    });
}

#[test]
fn shutdown_timeout_returns_once_idle_workers_exit() {
    with_watchdog(|| {
        let rt = multi(3);
        let dropped = Arc::new(AtomicUsize::new(0));
        let _h = rt.spawn(pending_forever(DropFlag(dropped.clone())));
        assert!(rt.shutdown_timeout(Duration::from_secs(10)));
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn shutdown_with_a_busy_worker_does_not_hang() {
    with_watchdog(|| {
        let rt = multi(2);
        let started = Arc::new(AtomicBool::new(false));
        let s = started.clone();
        // A task that keeps yielding: always queued again, never idle.
        let h = rt.spawn(async move {
            s.store(true, Ordering::SeqCst);
            loop {
                executor::yield_now().await;
            }
        });
        while !started.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        drop(rt);
        assert!(executor::block_on(h).unwrap_err().is_cancelled());
    });
}

#[test]
fn dropping_the_runtime_inside_its_own_task_does_not_hang() {
    with_watchdog(|| {
        let slot: Arc<Mutex<Option<Runtime>>> = Arc::new(Mutex::new(None));
        let (tx, rx) = mpsc::channel();
        let rt = multi(2);
        let s = slot.clone();
        let _h = rt.spawn(async move {
            let rt = loop {
                if let Some(rt) = s.lock().unwrap().take() {
                    break rt;
                }
                executor::yield_now().await;
            };
            drop(rt);
            tx.send(()).unwrap();
        });
        *slot.lock().unwrap() = Some(rt);
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
    });
}
