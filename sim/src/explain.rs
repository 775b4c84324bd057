//! Explanations a report adds to a verdict, read off the failing trace:
//! what the verdict alone does not say.
//!
//! A deadlock in which a thread waits on a condition variable is often a
//! lost wakeup: the notification came before the wait began, when nobody
//! was waiting, and none came after. The trace shows both steps; this
//! module names them. It only reads a finished trace, so it changes no
//! verdict, token or execution count.

use crate::op::Op;
use crate::outcome::Outcome;
use crate::trace::Trace;

/// For each thread the deadlock leaves waiting on a condition variable,
/// what happened to the notifications of that condvar, one line each.
pub(crate) fn wakeups(outcome: &Outcome, trace: &Trace) -> Vec<String> {
    let Outcome::Deadlock(deadlock) = outcome else { return Vec::new() };
    let mut lines = Vec::new();
    for blocked in &deadlock.blocked {
        let Some(condvar) = &blocked.object else { continue };
        if blocked.op != Op::Wait.name() {
            continue;
        }
        // The step at which it began its last wait on the condvar.
        let waits = |l: &&crate::TraceLine| {
            l.actor == blocked.actor && l.op == Op::Wait && l.object.as_deref() == Some(condvar)
        };
        let Some(wait) = trace.lines.iter().rev().find(waits) else { continue };
        let notifies = |l: &&crate::TraceLine| {
            matches!(l.op, Op::NotifyOne | Op::NotifyAll) && l.object.as_deref() == Some(condvar)
        };
        let after = trace.lines[wait.index..].iter().filter(notifies).count();
        if after > 0 {
            continue;
        }
        let who = &blocked.actor;
        lines.push(match trace.lines[..wait.index].iter().rev().find(notifies) {
            Some(notify) => format!(
                "lost wakeup: '{}' notified {condvar} ({} at step {}, {}) before '{who}' began waiting on it at step {}, and no notification came after",
                notify.actor, notify.op, notify.index, notify.location, wait.index
            ),
            None => format!("no thread notified {condvar}, on which '{who}' began waiting at step {}", wait.index),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::wakeups;
    use crate::outcome::{BlockedActor, Deadlock, Outcome};
    use crate::trace::Trace;

    fn deadlock(op: &str, object: &str) -> Outcome {
        Outcome::Deadlock(Deadlock {
            blocked: vec![BlockedActor {
                actor: "main".into(),
                op: op.into(),
                object: Some(object.into()),
                awaiting: None,
                holders: Vec::new(),
                location: "a.rs:5:1".into(),
            }],
            cycle: Vec::new(),
        })
    }

    const TRACE: &str = "\
0 main spawn - a.rs:1:1
1 main lock Mutex#0 a.rs:2:1
2 t1 notify_one Condvar#1 a.rs:3:1
3 main wait Condvar#1 a.rs:4:1
";

    #[test]
    fn a_notification_before_the_wait_is_named_as_a_lost_wakeup() {
        let trace = Trace::parse(TRACE).unwrap();
        assert_eq!(
            wakeups(&deadlock("wait", "Condvar#1"), &trace),
            ["lost wakeup: 't1' notified Condvar#1 (notify_one at step 2, a.rs:3:1) before 'main' began waiting on it at step 3, and no notification came after"]
        );
    }

    #[test]
    fn a_condvar_nobody_notified_is_named_and_other_deadlocks_get_nothing() {
        let trace = Trace::parse(TRACE).unwrap();
        assert_eq!(wakeups(&deadlock("wait", "Condvar#9"), &trace), Vec::<String>::new(), "no wait on it in the trace");
        let quiet = Trace::parse("0 main lock Mutex#0 a.rs:2:1\n1 main wait Condvar#1 a.rs:4:1\n").unwrap();
        assert_eq!(
            wakeups(&deadlock("wait", "Condvar#1"), &quiet),
            ["no thread notified Condvar#1, on which 'main' began waiting at step 1"]
        );
        assert_eq!(wakeups(&deadlock("lock", "Mutex#0"), &trace), Vec::<String>::new());
        assert_eq!(wakeups(&Outcome::Pass, &trace), Vec::<String>::new());
    }
}
