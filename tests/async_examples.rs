//! The async examples: a `select!` loop that drops a message it already
//! took, and a Notify-style permit lost by a non-atomic read-modify-write.
//! Under `sim` each bug is found with an exact verdict and its token
//! replays; the fixed variants pass every interleaving. Without `sim` the
//! fixed variants run on the production executor.

#[path = "../examples/select_drop.rs"]
#[allow(dead_code)]
mod select_drop;

#[path = "../examples/notify_permit.rs"]
#[allow(dead_code)]
mod notify_permit;

#[test]
fn the_fixed_select_loop_processes_the_message_on_the_real_executor() {
    select_drop::fixed();
}

#[test]
fn the_fixed_notify_wakes_the_waiter_on_the_real_executor() {
    notify_permit::fixed();
}

#[cfg(feature = "sim")]
mod sim {
    use samaritan::{Builder, Outcome, Report, SearchStrategy};

    use super::{notify_permit, select_drop};

    /// Explores `f` exhaustively with DFS.
    fn explore(f: fn()) -> Report {
        Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings")
    }

    /// Explores `f` with DFS, checks it fails, and that its token replays
    /// to the same outcome; returns the report.
    #[track_caller]
    fn check_found(f: fn()) -> Report {
        let report = explore(f);
        let failure = report.failure.as_ref().unwrap_or_else(|| panic!("no failure: {report}"));
        let replayed = Builder::new().replay(&failure.token, f).expect("a valid token");
        assert_eq!(replayed.outcome, report.outcome, "{replayed}");
        report
    }

    /// Explores `f` with DFS and checks every one of `executions` executions passed.
    #[track_caller]
    fn check_pass(executions: u64, f: fn()) {
        let report = explore(f);
        assert_eq!(report.outcome, Outcome::Pass, "{report}");
        assert!(report.exhausted, "{report}");
        assert_eq!(report.executions, executions, "{report}");
    }

    #[test]
    fn a_message_dropped_by_the_losing_select_branch_is_found_and_replays() {
        let report = check_found(select_drop::select_drop);
        let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!(actor, "main");
        assert!(message.contains("a sent message was never processed"), "{report}");
    }

    #[test]
    fn the_fixed_select_loop_processes_every_message() {
        // Measured, not derived: three actors with a dozen visible steps
        // each are past counting by hand; the count pins the exploration.
        // 1,850 before a task's wakes of others waited for its next
        // visible operation: what the waker does after the wake without a
        // step (here the main task's await of the join handle, which
        // registers its waker) is now done when the wake's step is
        // decided, so the consumer's end wakes main in more executions.
        check_pass(2014, select_drop::fixed);
    }

    #[test]
    fn a_notify_permit_lost_by_a_load_then_store_is_a_deadlock_and_replays() {
        let report = check_found(notify_permit::notify_permit);
        let Outcome::Deadlock(d) = &report.outcome else { panic!("{report}") };
        let blocked: Vec<_> = d.blocked.iter().map(|b| (b.actor.as_str(), b.op.as_str())).collect();
        // main awaits the waiter's join; the waiter is pending forever.
        assert_eq!(blocked, [("main", "poll"), ("task-1", "poll")], "{report}");
        // The waiter last did something visible at its store of WAITING.
        assert!(d.blocked[1].location.starts_with("examples/notify_permit.rs:"), "{report}");
    }

    #[test]
    fn the_fixed_notify_never_loses_the_permit() {
        // Measured, not derived (as above).
        check_pass(726, notify_permit::fixed);
    }
}
