//! `samaritan::hint::spin_loop` and `thread::sleep`: plain calls in
//! production, yielding scheduling points under exploration.

use std::time::{Duration, Instant};

use samaritan::hint::spin_loop;
use samaritan::thread;

#[test]
fn spin_loop_and_sleep_behave_like_std_outside_an_exploration() {
    spin_loop();
    let start = Instant::now();
    thread::sleep(Duration::from_millis(20));
    assert!(start.elapsed() >= Duration::from_millis(20));
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::sync::atomic::{AtomicBool, Ordering};
    use samaritan::sync::Arc;
    use samaritan::{Builder, Op, Outcome, SearchStrategy};

    #[test]
    fn spin_loop_and_sleep_are_yielding_steps_that_take_no_real_time() {
        let start = Instant::now();
        let report = Builder::new()
            .explore(|| {
                spin_loop();
                thread::sleep(Duration::from_secs(3600));
                panic!("stop here");
            })
            .unwrap();
        assert!(start.elapsed() < Duration::from_secs(60), "a simulated sleep does not sleep");
        let trace = &report.failure.as_ref().unwrap().trace;
        let ops: Vec<Op> = trace.lines.iter().map(|l| l.op).collect();
        assert_eq!(ops, [Op::SpinLoop, Op::Sleep]);
        assert!(ops.iter().all(|op| op.is_yield()));
        assert!(trace.to_string().contains("(yield)"));
    }

    #[test]
    fn a_spin_wait_on_a_flag_set_by_another_thread_ends_under_the_fair_scheduler() {
        let spin = || {
            let flag = Arc::new(AtomicBool::new(false));
            let flag2 = flag.clone();
            let t = thread::spawn(move || flag2.store(true, Ordering::SeqCst));
            while !flag.load(Ordering::SeqCst) {
                spin_loop();
            }
            t.join().unwrap();
        };
        // spin_loop is a yield: after the spinner's second one the fair
        // scheduler lets the setter through, so every execution ends.
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(spin).unwrap();
        assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 5, true), "{report}");
        // Without it, DFS keeps choosing the spinner up to the step bound:
        // a report, not a hang.
        let report = Builder::new().fairness(false).max_steps(200).explore(spin).unwrap();
        assert_eq!((report.outcome, report.executions), (Outcome::StepBound { steps: 200 }, 1));
    }
}
