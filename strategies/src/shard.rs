//! Cutting a search space into shards (`samaritan_sim::Shard`) that
//! together explore exactly what one search would.
//!
//! - [`Sharded`] cuts a depth-first search (`dfs`) by schedule prefix: along
//!   each execution it multiplies the numbers of alternatives of the
//!   decisions made so far, and at the first decision where that product
//!   reaches 512 times the number of shards, the prefix up
//!   to there decides which shard owns every execution that starts with
//!   it (a hash of the prefix, [`prefix_key`]). A shard that does not own
//!   the prefix ends the execution there (`ChoiceError::Redundant`: the
//!   engine finishes it without asking) and the search counts it as
//!   another shard's (`Strategy::elsewhere`); the depth-first search then
//!   backtracks past the whole subtree. An execution with fewer decisions
//!   is owned by the hash of its whole path. Each shard thus runs every
//!   prefix once and its own executions in full: the shards' executions add
//!   up to the unsharded search's, and each one is run by one shard.
//! - DPOR shards the same way (`Dpor::sharded`), and explores every enabled
//!   actor at the decisions before the owner is known (a full backtrack
//!   set there: sound, since every order of those steps is explored, sleep
//!   sets still pruning), so that no shard needs races found in another's
//!   subtrees; it cuts at 64 prefixes per shard, since every decision
//!   above the cut costs it executions. The shards' executions add up to those of that search,
//!   which can be more than plain DPOR's.
//! - Iterative context bounding shards by work item instead
//!   (`Icb::sharded`): no execution is cut.
//! - Randomized searches have no space to cut: shard `i` draws from its own
//!   seed ([`shard_seed`]) and runs its share of the executions.
//!
//! Invariant: ownership is a function of the prefix alone, so every shard
//! that meets a prefix agrees on its owner.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, ObjectId, Outcome, SchedulePoint, Shard, Step, Strategy};

/// FNV-1a offset basis: the key of the empty prefix.
const KEY_START: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds one decision into a prefix key (FNV-1a over its bytes).
fn fold(key: u64, choice: u32) -> u64 {
    choice.to_le_bytes().iter().fold(key, |k, &b| (k ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The key of a schedule prefix: which shard owns it is
/// `Shard::owns(prefix_key(..))`, mixed so that neighbouring prefixes
/// spread evenly.
pub(crate) fn prefix_key(choices: impl IntoIterator<Item = u32>) -> u64 {
    finish(choices.into_iter().fold(KEY_START, fold))
}

/// Mixes a folded key (a splitmix64 finish: FNV's low bits alone spread
/// poorly modulo the number of shards).
fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed shard `shard` of a randomized search from `seed` draws from:
/// `seed` itself for the first shard (and the whole space), distinct seeds
/// for the others.
///
/// ```
/// use samaritan_sim::Shard;
/// use samaritan_strategies::shard_seed;
///
/// assert_eq!(shard_seed(7, Shard::WHOLE), 7);
/// assert_eq!(shard_seed(7, Shard::new(1, 4).unwrap()), 7);
/// assert_ne!(shard_seed(7, Shard::new(2, 4).unwrap()), 7);
/// ```
pub fn shard_seed(seed: u64, shard: Shard) -> u64 {
    seed.wrapping_add(u64::from(shard.index() - 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Where the running execution's prefix stands: the decisions so far,
/// folded into a key, until they are enough to decide which shard owns
/// the execution (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    shard: Shard,
    /// Prefixes per shard, at least ([`Split::FANOUT`] unless said).
    fanout: u64,
    /// The key of the prefix so far.
    key: u64,
    /// The product of the alternatives of its decisions so far
    /// (saturating).
    spread: u64,
    /// Whether this shard owns the running execution, once decided.
    owned: Option<bool>,
}

impl Default for Split {
    /// The whole space: nothing is cut.
    fn default() -> Split {
        Split::new(Shard::WHOLE)
    }
}

impl Split {
    /// How many prefixes per shard the space is cut into, at least: more
    /// spreads the work more evenly, and costs each shard one cut
    /// execution per prefix. At 64, two shards of a DFS of 1.6 M
    /// executions got 928,896 and 713,578 (a 2-worker speed-up of 1.48);
    /// at 512, 836,978 and 805,496 (1.95), for about 900 cut executions
    /// per shard (BENCHMARKS.md).
    pub(crate) const FANOUT: u64 = 512;

    pub(crate) fn new(shard: Shard) -> Split {
        Split::with_fanout(shard, Split::FANOUT)
    }

    /// A split into at least `fanout` prefixes per shard.
    pub(crate) fn with_fanout(shard: Shard, fanout: u64) -> Split {
        Split { shard, fanout, key: KEY_START, spread: 1, owned: None }
    }

    /// Starts the next execution.
    pub(crate) fn begin(&mut self) {
        (self.key, self.spread, self.owned) = (KEY_START, 1, None);
    }

    /// Whether the owner of the running execution is still undecided (its
    /// prefix is too short to say).
    pub(crate) fn undecided(&self) -> bool {
        self.owned.is_none() && !self.shard.is_whole()
    }

    /// Takes one decision among `alternatives` into the prefix; returns
    /// whether the execution is another shard's (it must end here).
    pub(crate) fn take(&mut self, choice: u32, alternatives: usize) -> bool {
        if self.undecided() {
            self.key = fold(self.key, choice);
            self.spread = self.spread.saturating_mul(alternatives as u64);
            if self.spread >= self.fanout * u64::from(self.shard.count()) {
                self.owned = Some(self.shard.owns(finish(self.key)));
            }
        }
        self.is_elsewhere()
    }

    /// Whether the owner is decided and is another shard.
    pub(crate) fn is_elsewhere(&self) -> bool {
        self.owned == Some(false)
    }

    /// Whether the execution that just ended is another shard's (one with
    /// too few decisions to decide earlier goes by its whole path).
    pub(crate) fn end(&mut self) -> bool {
        if self.shard.is_whole() {
            return false;
        }
        !*self.owned.get_or_insert_with(|| self.shard.owns(finish(self.key)))
    }
}

/// A depth-first search restricted to the executions one shard owns
/// (module docs).
///
/// ```
/// use samaritan_sim::{Shard, Strategy};
/// use samaritan_strategies::{Dfs, Sharded};
///
/// let shard = Sharded::new(Dfs::new(), Shard::new(2, 3).unwrap());
/// assert_eq!(shard.name(), "dfs");
/// ```
#[derive(Debug)]
pub struct Sharded<S> {
    inner: S,
    split: Split,
    /// Whether the execution that just ended is another shard's.
    elsewhere: bool,
}

impl<S: Strategy> Sharded<S> {
    /// Restricts `inner` (a depth-first search) to the executions `shard`
    /// owns.
    pub fn new(inner: S, shard: Shard) -> Sharded<S> {
        Sharded { inner, split: Split::new(shard), elsewhere: false }
    }
}

impl<S: Strategy> Strategy for Sharded<S> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn begin_execution(&mut self) -> bool {
        self.split.begin();
        self.inner.begin_execution()
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        let actor = self.inner.choose_actor(point)?;
        match self.split.take(actor.index() as u32, point.enabled.len()) {
            true => Err(ChoiceError::Redundant),
            false => Ok(actor),
        }
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        let value = self.inner.choose_value(point)?;
        match self.split.take(value as u32, point.alternatives) {
            true => Err(ChoiceError::Redundant),
            false => Ok(value),
        }
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        self.elsewhere = self.split.end();
        // Another shard's execution is no failure of this one's part.
        self.inner.end_execution(if self.elsewhere { &Outcome::Pass } else { outcome });
    }

    fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    fn rank(&self) -> Option<Vec<u32>> {
        self.inner.rank()
    }

    fn set_cancel(&mut self, cancel: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.inner.set_cancel(cancel);
    }

    fn observes_steps(&self) -> bool {
        self.inner.observes_steps()
    }

    fn on_step(&mut self, step: &Step) {
        self.inner.on_step(step);
    }

    fn on_end(&mut self, object: ObjectId) {
        self.inner.on_end(object);
    }

    fn on_read(&mut self, source: u32) {
        self.inner.on_read(source);
    }

    fn exhausted(&self) -> bool {
        self.inner.exhausted()
    }

    fn seed(&self) -> Option<u64> {
        self.inner.seed()
    }

    fn completed_bound(&self) -> Option<u32> {
        self.inner.completed_bound()
    }

    fn bounded(&self) -> bool {
        self.inner.bounded()
    }

    fn progress(&self) -> Option<String> {
        self.inner.progress().map(|p| format!("shard {}, {p}", self.split.shard))
    }
}
