//! The default search: a systematic bounded search and randomized bug
//! hunters, interleaved execution by execution.
//!
//! A systematic search alone is slow to find a shallow bug in a program
//! with many threads: with `n` threads there are `n!` schedules without a
//! preemption, and iterative context bounding runs them all before the
//! first preemption. Randomized searches find such bugs in tens to
//! thousands of executions whatever the number of threads, but never say
//! what they covered. Coyote's default runs a portfolio of strategies for
//! the same reason; here one exploration runs both kinds, deterministically
//! interleaved:
//!
//! - the *systematic* part is partial-order reduction under a preemption
//!   bound ([`CbPor`]), run at bound 0, then 1, and so on up to the bound,
//!   each once the one below is exhausted (as iterative context bounding
//!   does: a bug it finds needs the fewest preemptions it can, and a pass,
//!   or a budget that stops the search, says up to which bound every
//!   execution was covered);
//! - the *hunters* are PCT ([`Pct`]) at depth 2 and at the configured
//!   depth (3 by default), and seeded uniform random search ([`Random`]),
//!   taking turns. Depth 2 finds the reorder and two-stage shapes of
//!   SCTBench at 50 and 100 threads where depth 3 does not; depth 3 finds
//!   them sooner at 10 and 20; random search finds lock mistakes at once.
//!
//! A hunter execution follows each systematic one as long as the
//! systematic part has not completed bound 0 (a program whose schedules
//! without a preemption it cannot even list in full, the `n!` orders of
//! many threads, is one where randomized search is the better bet) or run
//! [`RAMP`] executions; from then on one follows every [`LATER_SHARE`]
//! systematic executions, so that a proof takes little longer than the
//! systematic part alone. The search ends
//! when the systematic part is exhausted (the hunters' executions are
//! extra, never needed for the verdict). Every part runs under the fair
//! scheduler, which sits in the engine. A replay token names the part that
//! found the bug (`portfolio/pct`) and its seed; replay follows the
//! token's choices, whatever part made them.
//!
//! With workers ([`Portfolio::team`]) each worker runs its own hunters
//! (from its own seed) and one member of a [`CbPor::team`] at each bound:
//! the systematic part at bound `b` is one search shared out by work
//! stealing, and a worker moves to `b + 1` when the pool says every worker
//! is done with `b`. A failure any part of any worker finds stops them
//! all.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, ObjectId, Outcome, SchedulePoint, Shard, Step, Strategy};

use crate::shard::shard_seed;
use crate::{CbPor, Pct, Random};

/// The systematic searches of a portfolio's workers: for each bound, one
/// [`CbPor::team`], made when the first worker reaches the bound, each
/// worker taking its member.
#[derive(Debug)]
struct Teams {
    workers: usize,
    shard: Shard,
    members: Mutex<BTreeMap<u32, Vec<Option<CbPor>>>>,
}

impl Teams {
    /// Worker `i`'s member of the team at `bound`.
    fn member(&self, bound: u32, i: usize) -> CbPor {
        let mut members = self.members.lock().unwrap_or_else(|p| p.into_inner());
        let team = members
            .entry(bound)
            .or_insert_with(|| CbPor::team(self.workers, bound, self.shard).into_iter().map(Some).collect());
        team[i].take().expect("each worker takes its member once")
    }
}

/// Systematic executions during which hunters run as often as the
/// systematic part, at least.
pub const RAMP: u64 = 1_000;

/// Once bound 0 is complete and [`RAMP`] executions have run, systematic
/// executions per hunter execution.
pub const LATER_SHARE: u64 = 8;

/// Which part runs the current execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Running {
    Systematic,
    Hunter(usize),
}

/// The default search: cb-por at rising bounds, with PCT and random
/// search interleaved.
pub struct Portfolio {
    max_bound: u32,
    /// The systematic search at the bound being explored.
    systematic: CbPor,
    bound: u32,
    /// The largest bound whose every execution has been explored.
    done_bound: Option<u32>,
    /// Whether the last finished systematic search left executions beyond
    /// its bound unexplored.
    beyond: bool,
    hunters: Vec<Box<dyn Strategy + Send>>,
    next_hunter: usize,
    systematic_runs: u64,
    hunter_runs: u64,
    /// The counts `(systematic, hunter)` when the even share ended.
    even_until: Option<(u64, u64)>,
    running: Running,
    exhausted: bool,
    /// The part of the systematic search's space this portfolio explores.
    shard: Shard,
    /// Whether the execution that just ended is another shard's.
    elsewhere: bool,
    /// With workers: the teams of the systematic searches, and which
    /// worker this is.
    teams: Option<(Arc<Teams>, usize)>,
    /// The rank of the last failing execution.
    failed: Option<Vec<u32>>,
    /// The flag that calls the search off ([`Strategy::set_cancel`]).
    cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Portfolio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Portfolio")
            .field("bound", &self.bound)
            .field("max_bound", &self.max_bound)
            .field("systematic_runs", &self.systematic_runs)
            .field("hunter_runs", &self.hunter_runs)
            .finish_non_exhaustive()
    }
}

impl Portfolio {
    /// Creates the portfolio: cb-por up to `max_bound` preemptions, PCT of
    /// depth 2 drawing from `seed`, PCT of depth `pct_depth` from `seed +
    /// 1` (left out when it is 2 too), and random search from `seed + 2`.
    pub fn new(max_bound: u32, seed: u64, pct_depth: u32) -> Portfolio {
        Portfolio::sharded(max_bound, seed, pct_depth, Shard::WHOLE)
    }

    /// Creates the portfolio's part `shard`: its systematic search is
    /// [`CbPor::sharded`] at each bound, and its hunters draw from the
    /// shard's own seed ([`shard_seed`](crate::shard_seed)).
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::Portfolio;
    ///
    /// assert_eq!(Portfolio::sharded(2, 0, 3, Shard::new(2, 4).unwrap()).name(), "portfolio");
    /// ```
    pub fn sharded(max_bound: u32, seed: u64, pct_depth: u32, shard: Shard) -> Portfolio {
        let seed = shard_seed(seed, shard);
        let mut hunters: Vec<Box<dyn Strategy + Send>> = vec![Box::new(Pct::new(seed, 2))];
        if pct_depth != 2 {
            hunters.push(Box::new(Pct::new(seed.wrapping_add(1), pct_depth)));
        }
        hunters.push(Box::new(Random::new(seed.wrapping_add(2))));
        Portfolio { systematic: CbPor::sharded(0, shard), shard, ..Portfolio::with_hunters(max_bound, hunters) }
    }

    /// Creates the portfolio with the given hunters (none: the systematic
    /// search alone, at rising bounds).
    pub fn with_hunters(max_bound: u32, hunters: Vec<Box<dyn Strategy + Send>>) -> Portfolio {
        Portfolio {
            max_bound,
            systematic: CbPor::new(0),
            bound: 0,
            done_bound: None,
            beyond: false,
            hunters,
            next_hunter: 0,
            systematic_runs: 0,
            hunter_runs: 0,
            even_until: None,
            running: Running::Systematic,
            exhausted: false,
            shard: Shard::WHOLE,
            elsewhere: false,
            teams: None,
            failed: None,
            cancel: None,
        }
    }

    /// Creates the `n` workers of one portfolio (of the part `shard` owns,
    /// unless it is the whole): worker `i`'s hunters draw from the seed of
    /// part `i` of `n` of the shard ([`shard_seed`](crate::shard_seed)), and
    /// the systematic search at each bound is one [`CbPor::team`] (module
    /// docs).
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::Portfolio;
    ///
    /// let workers = Portfolio::team(2, 2, 0, 3, Shard::WHOLE);
    /// assert_eq!((workers.len(), workers[1].name()), (2, "portfolio"));
    /// ```
    pub fn team(n: usize, max_bound: u32, seed: u64, pct_depth: u32, shard: Shard) -> Vec<Portfolio> {
        let teams = Arc::new(Teams { workers: n, shard, members: Mutex::new(BTreeMap::new()) });
        (0..n)
            .map(|i| {
                // The hunters' seeds of part `i` of the shard cut in `n`.
                let count = shard.count() * n as u32;
                let part = Shard::new((shard.index() - 1) * n as u32 + i as u32 + 1, count).unwrap_or(shard);
                let hunters = Portfolio::sharded(max_bound, seed, pct_depth, part).hunters;
                Portfolio {
                    systematic: teams.member(0, i),
                    shard,
                    teams: Some((teams.clone(), i)),
                    ..Portfolio::with_hunters(max_bound, hunters)
                }
            })
            .collect()
    }

    /// Whether the next execution is a hunter's.
    fn hunter_due(&mut self) -> bool {
        let (s, h) = (self.systematic_runs, self.hunter_runs);
        if self.even_until.is_none() && self.done_bound.is_some() && s >= RAMP {
            self.even_until = Some((s, h));
        }
        let due = match self.even_until {
            None => h < s,
            Some((s0, h0)) => h < h0 + (s - s0) / LATER_SHARE,
        };
        due && !self.hunters.is_empty()
    }

    /// The part running now.
    fn part_mut(&mut self) -> &mut dyn Strategy {
        match self.running {
            Running::Systematic => &mut self.systematic,
            Running::Hunter(i) => &mut *self.hunters[i],
        }
    }

    fn part_ref(&self) -> &dyn Strategy {
        match self.running {
            Running::Systematic => &self.systematic,
            Running::Hunter(i) => &*self.hunters[i],
        }
    }
}

impl Strategy for Portfolio {
    fn name(&self) -> &'static str {
        "portfolio"
    }

    fn begin_execution(&mut self) -> bool {
        loop {
            if self.exhausted || self.systematic.team_stopped() {
                // Done, or another worker found a failure.
                return false;
            }
            if self.begin_part() {
                return true;
            }
            // A worker's systematic part learns that its team is done
            // with a bound while it waits for work: up a bound, then.
            if !self.systematic.exhausted() {
                return false;
            }
        }
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        self.part_mut().choose_actor(point)
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        self.part_mut().choose_value(point)
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        self.end_part(outcome);
    }

    fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    fn observes_steps(&self) -> bool {
        self.systematic.observes_steps() || self.hunters.iter().any(|h| h.observes_steps())
    }

    fn on_step(&mut self, step: &Step) {
        let part = self.part_mut();
        if part.observes_steps() {
            part.on_step(step);
        }
    }

    fn on_end(&mut self, object: ObjectId) {
        let part = self.part_mut();
        if part.observes_steps() {
            part.on_end(object);
        }
    }

    fn on_read(&mut self, source: u32) {
        let part = self.part_mut();
        if part.observes_steps() {
            part.on_read(source);
        }
    }

    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn seed(&self) -> Option<u64> {
        self.part_ref().seed()
    }

    fn completed_bound(&self) -> Option<u32> {
        self.done_bound
    }

    fn bounded(&self) -> bool {
        self.exhausted && self.beyond
    }

    fn part(&self) -> Option<&'static str> {
        Some(self.part_ref().name())
    }

    fn randomized(&self) -> u64 {
        self.hunter_runs
    }

    fn rank(&self) -> Option<Vec<u32>> {
        self.failed.clone()
    }

    fn set_cancel(&mut self, cancel: Arc<AtomicBool>) {
        // Kept for the members of the bounds to come, too.
        self.systematic.set_cancel(cancel.clone());
        self.cancel = Some(cancel);
    }

    fn progress(&self) -> Option<String> {
        let complete = match self.done_bound {
            Some(done) => format!(", bound {done} complete"),
            None => String::new(),
        };
        Some(format!("{} at bound {}{complete}, {} randomized", self.systematic.name(), self.bound, self.hunter_runs))
    }
}

impl Portfolio {
    /// Prepares the next execution: of a hunter if one is due, else of the
    /// systematic part (at the next bound once it is done with this one).
    fn begin_part(&mut self) -> bool {
        // The systematic part knows it is done as soon as its last
        // execution ends: then no hunter runs after it.
        while self.systematic.exhausted() {
            // Every execution within this bound explored.
            self.done_bound = Some(self.bound);
            self.beyond = self.systematic.bounded();
            if !self.beyond || self.bound >= self.max_bound {
                self.exhausted = true;
            }
            if self.exhausted {
                return false;
            }
            self.bound += 1;
            self.systematic = match &self.teams {
                Some((teams, i)) => teams.member(self.bound, *i),
                None => CbPor::sharded(self.bound, self.shard),
            };
            if let Some(cancel) = &self.cancel {
                self.systematic.set_cancel(cancel.clone());
            }
        }
        if self.hunter_due() {
            let i = self.next_hunter;
            self.next_hunter = (i + 1) % self.hunters.len();
            if self.hunters[i].begin_execution() {
                self.running = Running::Hunter(i);
                return true;
            }
        }
        self.running = Running::Systematic;
        self.systematic.begin_execution()
    }

    /// Lets the part that ran the execution learn how it ended; counts it.
    fn end_part(&mut self, outcome: &Outcome) {
        self.part_mut().end_execution(outcome);
        self.elsewhere = self.running == Running::Systematic && self.systematic.elsewhere();
        if !outcome.is_pass() && !self.elsewhere {
            // A systematic failure ranks by its bound, then its place in
            // the search; a hunter's after every systematic one (the
            // hunters' order is no search order).
            let rank = match (self.running, self.systematic.rank()) {
                (Running::Systematic, Some(rank)) => [self.bound].into_iter().chain(rank).collect(),
                _ => vec![u32::MAX],
            };
            self.systematic.team_failed(&rank);
            self.failed = self.teams.is_some().then_some(rank);
        }
        match self.running {
            // Another shard's execution counts there, and shares no turn
            // with the hunters here.
            Running::Systematic if self.elsewhere => {}
            Running::Systematic => self.systematic_runs += 1,
            Running::Hunter(_) => self.hunter_runs += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunters_take_every_other_execution_until_bound_0_is_done_then_one_in_nine() {
        let mut p = Portfolio::new(2, 0, 3);
        let mut order = Vec::new();
        for i in 0..3_000 + 9 * 110 {
            // Bound 0 done after the first 1,500 systematic executions.
            if i == 3_000 {
                p.done_bound = Some(0);
            }
            p.running = if p.hunter_due() { Running::Hunter(0) } else { Running::Systematic };
            order.push(p.running);
            match p.running {
                Running::Systematic => p.systematic_runs += 1,
                Running::Hunter(_) => p.hunter_runs += 1,
            }
        }
        assert_eq!(&order[..4], [Running::Systematic, Running::Hunter(0), Running::Systematic, Running::Hunter(0)]);
        assert_eq!(p.even_until, Some((1_500, 1_500)));
        assert_eq!(p.hunter_runs, 1_500 + 110);
        assert_eq!(p.systematic_runs, 1_500 + 8 * 110);
    }
}
