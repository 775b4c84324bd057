//! Misuse is not a bug in the program: a token from another program, an
//! async task spawned outside a runtime and a tokio runtime inside an
//! exploration each get a verdict of their own, under their own header,
//! with no replay token.
#![cfg(feature = "sim")]

use std::panic::{catch_unwind, AssertUnwindSafe};

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome};

/// Two threads each do a load and a store: an increment can be lost.
fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });
    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

/// Runs `f`, which must panic, and returns its panic message.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("a misuse panics");
    payload.downcast_ref::<String>().cloned().expect("a report is a String")
}

/// The token of another program (a three-thread lock-order deadlock).
const FOREIGN: &str = "s2_A2ljYgABJ2Z3pAIAAgIB8hY";

#[test]
fn a_token_from_another_program_is_a_misuse_with_no_token() {
    let report = Builder::new().persist(false).replay(FOREIGN, lost_update).unwrap();
    assert_eq!(
        report.outcome,
        Outcome::ScheduleMismatch {
            step: 7,
            detail: "the execution ended after 2 of the schedule's 3 choices".to_string()
        }
    );
    assert!(report.is_misuse() && !report.is_failure() && !report.outcome.is_pass(), "{report}");
    assert_eq!(report.token(), None);
    assert!(report.failure.is_none());
    assert_eq!(
        report.to_string(),
        "samaritan cannot check this test as written (execution 1, strategy icb)\n\
         \n\
         schedule does not fit the program at step 7: the execution ended after 2 of the schedule's 3 choices\n\
         \n\
         this is not a bug in the program under test, so there is no replay token\n"
    );
}

#[test]
fn check_panics_on_a_misuse_under_its_own_header() {
    let mut builder = Builder::new().persist(false);
    builder.replay = Some(FOREIGN.to_string());
    let message = panic_message(|| builder.check(lost_update));
    assert!(message.starts_with("samaritan cannot check this test as written"), "{message}");
    assert!(!message.contains("found a bug") && !message.contains("replay token:"), "{message}");
}

/// The line of the `spawn` below.
const SPAWN_LINE: u32 = line!() + 10;

#[test]
fn spawning_a_task_outside_a_runtime_is_a_misuse_not_a_panic_of_the_program() {
    let report = Builder::new()
        .persist(false)
        .explore(|| {
            let n = Arc::new(AtomicUsize::new(0));
            n.fetch_add(1, Ordering::SeqCst);
            // Not inside `block_on` or a task: there is no runtime here.
            let _task = samaritan::executor::spawn(async {});
        })
        .unwrap();
    let at = format!("{}:{}:25", file!(), SPAWN_LINE);
    assert_eq!(
        report.outcome,
        Outcome::Misuse {
            actor: "main".to_string(),
            detail: format!(
                "`spawn` called outside a runtime at {at}: no samaritan runtime on this thread: call from inside `Runtime::block_on` or a spawned task"
            ),
        },
        "{report}"
    );
    assert_eq!((report.executions, report.token()), (1, None));
    assert!(
        report
            .to_string()
            .starts_with("samaritan cannot check this test as written (execution 1, strategy portfolio/cb-por)\n"),
        "{report}"
    );
    // The same misuse through `Handle::current`.
    let report = Builder::new()
        .persist(false)
        .explore(|| {
            let _ = AtomicUsize::new(0).load(Ordering::SeqCst);
            let _handle = samaritan::executor::Handle::current();
        })
        .unwrap();
    let Outcome::Misuse { actor, detail } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "main");
    assert!(detail.starts_with("`Handle::current` called outside a runtime at tests/misuse.rs:"), "{detail}");
}

/// Threads of a tokio runtime started inside an exploration block it: the
/// watchdog's report names them as the likely cause, as a misuse.
#[cfg(target_os = "linux")]
#[test]
fn a_tokio_runtime_inside_an_exploration_is_named_as_a_misuse() {
    let report = Builder::new()
        .persist(false)
        .watchdog(std::time::Duration::from_millis(300))
        .explore(|| {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
            let (tx, rx) = tokio::sync::oneshot::channel();
            let t = thread::spawn(move || {
                thread::yield_now();
                let _ = tx.send(1);
            });
            // The simulated thread that would answer runs on the exploring
            // OS thread, which tokio's `block_on` now parks.
            let _ = rt.block_on(rx);
            t.join().unwrap();
        })
        .unwrap();
    let Outcome::Misuse { actor, detail } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "main");
    // How long it was silent depends on the watchdog's polling.
    let (silent, rest) = detail.split_once(" ms after ").expect(detail);
    assert!(silent.starts_with("it made no visible operation for "), "{detail}");
    assert_eq!(
        rest,
        "step 1 of execution 1, and 2 tokio runtime threads started in this process meanwhile: a tokio runtime inside an exploration runs its tasks on OS threads samaritan does not schedule, and waiting for them blocks every simulated thread; use samaritan::executor inside check"
    );
    assert_eq!(report.token(), None);
    assert!(
        report
            .to_string()
            .starts_with("samaritan cannot check this test as written (execution 1, strategy portfolio)\n"),
        "{report}"
    );
}
