//! Explanations a report adds to a verdict, read off the failing trace:
//! what the verdict alone does not say.
//!
//! A deadlock in which a thread waits on a condition variable is often a
//! lost wakeup: the notification came before the wait began, when nobody
//! was waiting, and none came after. The trace shows both steps; this
//! module names them. Likewise an async task left pending that nothing
//! woke after its last step. It only reads a finished trace, so it changes
//! no verdict, token or execution count.

use crate::op::Op;
use crate::outcome::Outcome;
use crate::trace::Trace;

/// For each thread the deadlock leaves waiting on a condition variable,
/// what happened to the notifications of that condvar, one line each.
pub(crate) fn wakeups(outcome: &Outcome, trace: &Trace) -> Vec<String> {
    let Outcome::Deadlock(deadlock) = outcome else { return Vec::new() };
    let mut lines = Vec::new();
    for blocked in &deadlock.blocked {
        if let Some(line) = pending(blocked, trace) {
            lines.push(line);
            continue;
        }
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

/// An async task left pending (blocked in `poll`, awaiting an object):
/// when nothing woke its task after its last step, the line that says so.
/// A task blocked joining another task awaits nothing and gets none: its
/// wait is the other's consequence.
fn pending(blocked: &crate::outcome::BlockedActor, trace: &Trace) -> Option<String> {
    let task = blocked.object.as_deref()?;
    if blocked.op != Op::Poll.name() || blocked.awaiting.is_none() {
        return None;
    }
    let last = trace.lines.iter().rev().find(|l| l.actor == blocked.actor && l.op != Op::Choose)?;
    let woken = trace.lines[last.index..].iter().any(|l| l.op == Op::Wake && l.object.as_deref() == Some(task));
    (!woken).then(|| {
        format!(
            "'{}' has been pending since its step {} ({}{}, {}) and nothing woke {task} after it: \
             its wakeup was lost, or what it awaits never came",
            blocked.actor,
            last.index,
            last.op,
            last.object.as_deref().map_or(String::new(), |o| format!(" {o}")),
            last.location
        )
    })
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
            outside_wait_ms: None,
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

    /// A task pending on `Task#1` awaiting `Mutex#2`.
    fn pending_task() -> Outcome {
        let Outcome::Deadlock(mut d) = deadlock("poll", "Task#1") else { unreachable!() };
        d.blocked[0].actor = "task-1".into();
        d.blocked[0].awaiting = Some("Mutex#2".into());
        Outcome::Deadlock(d)
    }

    #[test]
    fn a_pending_task_nothing_woke_is_named_and_one_woken_later_is_not() {
        let lost = Trace::parse(
            "0 task-1 poll Task#1 a.rs:1:1\n1 task-2 wake Task#1 a.rs:2:1\n2 task-1 unlock Mutex#2 a.rs:3:1\n",
        )
        .unwrap();
        assert_eq!(
            wakeups(&pending_task(), &lost),
            ["'task-1' has been pending since its step 2 (unlock Mutex#2, a.rs:3:1) and nothing woke Task#1 after it: its wakeup was lost, or what it awaits never came"]
        );
        let woken = Trace::parse("0 task-1 unlock Mutex#2 a.rs:3:1\n1 task-2 wake Task#1 a.rs:2:1\n").unwrap();
        assert_eq!(wakeups(&pending_task(), &woken), Vec::<String>::new());
    }
}
