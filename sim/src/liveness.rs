//! Liveness verdicts: what an execution that reached the step bound under
//! the fair scheduler was doing (fair-stateless-model-checking.txt,
//! section 2: the large depth bound that turns divergence into a report).
//!
//! Under the fair scheduler every infinite execution is fair (Theorem 1), so
//! an execution that runs into a step bound far above any normal execution
//! is taken to be one of the paper's two diverging outcomes:
//! - a *good-samaritan violation*: an actor keeps being scheduled without
//!   ever yielding, so the scheduler cannot lower its priority;
//! - a *fair livelock*: the actors go round a cycle in which each of them
//!   yields, forever.
//!
//! Both are read off the tail of the recorded trace: the shortest period
//! with which the tail repeats (actor, operation, object, location) is the
//! cycle; an actor of the cycle that never yields in it violates the good
//! samaritan property. Values are ignored (a counter bumped in a loop does
//! not break the cycle).

use crate::trace::TraceStep;

/// How many steps from the end of the trace are examined.
const TAIL: usize = 1 << 14;

/// What a diverging execution was doing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Divergence {
    /// `trace[start..start + period]` repeats `repeats` times up to the end,
    /// and every actor in it yields in it.
    Livelock { start: usize, period: usize, repeats: usize },
    /// `actor` was scheduled `steps` times since it last yielded (or
    /// started), in the steps `trace[start..start + period]` over and over.
    NoYield { actor: usize, steps: usize, start: usize, period: usize },
    /// No repeating pattern: nothing more to say than the step bound.
    Unknown,
}

/// Classifies the end of `trace`, an execution cut off at the step bound.
pub(crate) fn classify(trace: &[TraceStep]) -> Divergence {
    let tail = &trace[trace.len().saturating_sub(TAIL)..];
    let Some((start, period, repeats)) = shortest_cycle(tail) else {
        return match spinner(tail) {
            Some(actor) => no_yield(trace, actor, trace.len() - tail.len() + tail.len() / 2, tail.len() / 2),
            None => Divergence::Unknown,
        };
    };
    // The pattern may have started before the examined tail.
    let same =
        |a: &TraceStep, b: &TraceStep| (a.actor, a.op, a.object, a.location) == (b.actor, b.op, b.object, b.location);
    let mut from = start + trace.len() - tail.len();
    while from > 0 && same(&trace[from - 1], &trace[from - 1 + period]) {
        from -= 1;
    }
    let repeats = repeats.max((trace.len() - from) / period);
    let start = trace.len() - repeats * period;
    let cycle = &trace[start..start + period];
    let mut actors: Vec<usize> = cycle.iter().map(|s| s.actor.index()).collect();
    actors.sort_unstable();
    actors.dedup();
    match actors.into_iter().find(|&a| !cycle.iter().any(|s| s.actor.index() == a && s.op.is_yield())) {
        Some(actor) => no_yield(trace, actor, start, period),
        None => Divergence::Livelock { start, period, repeats },
    }
}

fn no_yield(trace: &[TraceStep], actor: usize, start: usize, period: usize) -> Divergence {
    let steps = trace.iter().rev().take_while(|s| !(s.actor.index() == actor && s.op.is_yield()));
    let steps = steps.filter(|s| s.actor.index() == actor).count();
    Divergence::NoYield { actor, steps, start, period }
}

/// Finds the shortest period `p` with which the end of `steps` repeats at
/// least three times and over at least half of `steps`; returns where the
/// periodic stretch starts, `p`, and how many whole periods it holds.
fn shortest_cycle(steps: &[TraceStep]) -> Option<(usize, usize, usize)> {
    let n = steps.len();
    if n < 3 {
        return None;
    }
    // Z-function of the reversed keys: z[p] is how far the end of the
    // trace agrees with itself shifted by p.
    let key = |i: usize| {
        let s = &steps[n - 1 - i];
        (s.actor, s.op, s.object, s.location)
    };
    let mut z = vec![0usize; n];
    let (mut l, mut r) = (0, 0);
    for i in 1..n {
        let mut k = if i < r { (r - i).min(z[i - l]) } else { 0 };
        while i + k < n && key(k) == key(i + k) {
            k += 1;
        }
        z[i] = k;
        if i + k > r {
            (l, r) = (i, i + k);
        }
    }
    let p = (1..=n / 3).find(|&p| z[p] >= 2 * p && z[p] + p >= n / 2)?;
    let covered = z[p] + p;
    let repeats = covered / p;
    Some((n - repeats * p, p, repeats))
}

/// Returns an actor that took most of the steps of the second half of
/// `steps` without yielding once there.
fn spinner(steps: &[TraceStep]) -> Option<usize> {
    let half = &steps[steps.len() / 2..];
    let mut counts: Vec<(usize, bool)> = Vec::new();
    for s in half {
        let a = s.actor.index();
        if counts.len() <= a {
            counts.resize(a + 1, (0, false));
        }
        counts[a].0 += 1;
        counts[a].1 |= s.op.is_yield();
    }
    let (actor, &(count, yielded)) = counts.iter().enumerate().max_by_key(|(_, c)| c.0)?;
    (!yielded && count * 2 >= half.len() && count > 0).then_some(actor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{ActorId, Op};
    use std::panic::Location;

    fn step(actor: usize, op: Op, location: &'static Location<'static>) -> TraceStep {
        TraceStep { actor: ActorId::from_index(actor), op, object: None, location, value: 0, preempt: false }
    }

    #[test]
    fn a_yielding_cycle_is_a_livelock_with_its_repeat_count() {
        let (a, b) = (Location::caller(), Location::caller());
        let mut trace = vec![step(0, Op::Spawn, a), step(0, Op::Spawn, a)];
        for _ in 0..10 {
            trace.extend([
                step(1, Op::TryLock, a),
                step(2, Op::TryLock, b),
                step(1, Op::Yield, a),
                step(2, Op::Yield, b),
            ]);
        }
        assert_eq!(classify(&trace), Divergence::Livelock { start: 2, period: 4, repeats: 10 });
    }

    #[test]
    fn an_actor_that_never_yields_in_the_cycle_is_named() {
        let (a, b) = (Location::caller(), Location::caller());
        let mut trace = vec![step(1, Op::Yield, a)];
        for _ in 0..20 {
            trace.extend([step(1, Op::Load, a), step(1, Op::Load, b)]);
        }
        assert_eq!(classify(&trace), Divergence::NoYield { actor: 1, steps: 40, start: 1, period: 2 });
    }

    #[test]
    fn a_trace_without_a_pattern_says_nothing_more() {
        let a = Location::caller();
        // The Thue-Morse sequence never repeats a block three times in a row.
        let trace: Vec<TraceStep> = (0..300usize).map(|i| step(i.count_ones() as usize % 2, Op::Yield, a)).collect();
        assert_eq!(shortest_cycle(&trace), None);
        assert_eq!(classify(&trace), Divergence::Unknown);
        assert_eq!(shortest_cycle(&trace[..2]), None);
    }
}
