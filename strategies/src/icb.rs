//! Iterative context bounding (iterative-context-bounding.txt, section 3,
//! Algorithm 1): every execution with 0 preemptions, then every one with 1,
//! and so on up to a bound.
//!
//! A *preemption* is a switch away from an actor that could have gone on
//! ([`SchedulePoint::preempts`]); a switch after it blocked, finished or
//! yielded is free, and so is one the fair scheduler forces. A fault the
//! platform injects (a spurious wake-up or failure:
//! [`ChoicePoint::fault`]) costs one too: like a preemption it is the
//! environment's choice, not the program's, and a bug that needs one
//! shows at bound 1.
//!
//! The paper's two work queues hold states; a stateless checker holds the
//! schedule prefix that leads to each state instead, and replays it. A
//! *work item* is a prefix whose last choice is a preemption. Exploring an
//! item is the paper's `Search`: replay the prefix, then run a depth-first
//! search over the free choices only (free switches and data choices),
//! always letting the running actor go on where a switch would preempt it;
//! at each such point met for the first time, each preempting alternative
//! becomes an item of the next bound (lines 29-32). Each execution is run
//! exactly once: it belongs to the item of its last preemption.
//!
//! The items an execution creates all extend its own path, so they share
//! one copy of it ([`Item`]): creating an item costs O(1), not a copy of
//! the path, and an execution of any length costs O(1) per step.
//!
//! Invariants:
//! - `queue` holds the items of `bound`, `next` those of `bound + 1`.
//! - Every execution with at most `bound - 1` preemptions has run.
//! - `frames[..depth]` are the free decisions of the running execution past
//!   the item's prefix; `path` is every choice it has made; `created` the
//!   items it made so far, as (prefix length, preempting choice, what the
//!   decisions up to it offered); `offered` is what every decision so far
//!   offered, folded ([`Signature::then`]).
//! - An item's replay offers at its last decision what the execution that
//!   made it offered there, folded over the prefix, or the program is not
//!   deterministic (checked once per replay, at the item's preemption).

use std::collections::VecDeque;
use std::sync::Arc;

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Shard, Strategy};

use crate::dfs::{current_first, values, Frames};
use crate::shard::prefix_key;
use crate::signature::Signature;

/// A work item: the schedule prefix `path[..len]` followed by `last`;
/// `offered`, what the prefix's decisions up to `last`'s offered.
#[derive(Clone, Debug)]
struct Item {
    path: Arc<[u32]>,
    len: u32,
    last: Option<u32>,
    offered: Option<Signature>,
}

impl Item {
    /// The item every search starts with: the empty prefix.
    fn root() -> Item {
        Item { path: Arc::from([]), len: 0, last: None, offered: None }
    }

    /// The prefix's choice at position `i`, if the prefix is that long.
    fn get(&self, i: usize) -> Option<u32> {
        match i.cmp(&(self.len as usize)) {
            std::cmp::Ordering::Less => Some(self.path[i]),
            std::cmp::Ordering::Equal => self.last,
            std::cmp::Ordering::Greater => None,
        }
    }
}

/// The key that decides which shard owns an item: its prefix and its
/// preempting choice.
fn item_key(prefix: &[u32], last: u32) -> u64 {
    prefix_key(prefix.iter().copied().chain([u32::MAX, last]))
}

/// Iterative context bounding up to a preemption bound.
#[derive(Debug)]
pub struct Icb {
    max_bound: u32,
    bound: u32,
    queue: VecDeque<Item>,
    next: Vec<Item>,
    /// Whether a preemption beyond `max_bound` was left unexplored.
    beyond: bool,
    item: Option<Item>,
    frames: Frames,
    path: Vec<u32>,
    created: Vec<(u32, u32, Signature)>,
    offered: Signature,
    /// The alternatives of the decision being made.
    options: Vec<u32>,
    done: bool,
    /// The part of the space this search explores (see [`Icb::sharded`]).
    shard: Shard,
    /// Whether the execution that just ended is counted by another shard.
    elsewhere: bool,
}

impl Icb {
    /// Creates a search over every execution with at most `max_bound`
    /// preemptions.
    pub fn new(max_bound: u32) -> Icb {
        Icb {
            max_bound,
            bound: 0,
            queue: VecDeque::from([Item::root()]),
            next: Vec::new(),
            beyond: false,
            item: None,
            frames: Frames::default(),
            path: Vec::new(),
            created: Vec::new(),
            offered: Signature::EMPTY,
            options: Vec::new(),
            done: false,
            shard: Shard::WHOLE,
            elsewhere: false,
        }
    }

    /// Creates a search over the part `shard` owns of what
    /// [`Icb::new`]`(max_bound)` explores. Shards split the work items of
    /// bound 2 (the prefixes that end in a second preemption; of bound 1
    /// when that is the search's bound) by a hash of the prefix; an item's
    /// descendants belong to its shard. Every shard runs the executions
    /// with fewer preemptions, which make those items, but each counts in
    /// one shard only (the first for those without preemptions, else the
    /// one its item hashes to; the others run it as another shard's,
    /// `Strategy::elsewhere`). The shards' executions add up to the
    /// unsharded search's, each counted by one shard.
    ///
    /// ```
    /// use samaritan_sim::Shard;
    /// use samaritan_strategies::Icb;
    ///
    /// let second_of_two = Icb::sharded(2, Shard::new(2, 2).unwrap());
    /// assert_eq!(second_of_two.bound(), 0);
    /// ```
    pub fn sharded(max_bound: u32, shard: Shard) -> Icb {
        Icb { shard, ..Icb::new(max_bound) }
    }

    /// Returns the preemption bound being explored now.
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// The bound whose work items the shards split: 2 (items of bound 1
    /// are too few, and too unequal, to share out evenly), or the search's
    /// bound if it is lower. Below it every shard runs every execution.
    fn split_bound(&self) -> u32 {
        self.max_bound.min(2)
    }

    /// Whether the running execution is counted by another shard.
    fn counted_elsewhere(&self) -> bool {
        if self.shard.is_whole() || self.bound >= self.split_bound() {
            return false;
        }
        // Below the split bound every shard runs every execution; each
        // counts where its item hashes to, those without preemptions in
        // the first shard.
        match &self.item {
            Some(item) if item.len > 0 || item.last.is_some() => {
                !self.shard.owns(item_key(&item.path[..item.len as usize], item.last.unwrap_or(u32::MAX)))
            }
            _ => self.shard.index() != 1,
        }
    }

    /// At the replayed item's preemption: checks that the decisions so far
    /// offered what they did in the execution that made the item.
    fn check_offered(&self) -> Result<(), ChoiceError> {
        match &self.item {
            Some(Item { len, offered: Some(known), .. }) if *len as usize == self.path.len() => {
                known.replayed(self.offered)
            }
            _ => Ok(()),
        }
    }

    /// Returns the replayed prefix's choice at this point, if any.
    fn replaying(&self) -> Option<u32> {
        self.item.as_ref().and_then(|item| item.get(self.path.len()))
    }
}

impl Strategy for Icb {
    fn name(&self) -> &'static str {
        "icb"
    }

    fn begin_execution(&mut self) -> bool {
        if self.done {
            return false;
        }
        self.path.clear();
        self.created.clear();
        self.offered = Signature::EMPTY;
        self.frames.begin();
        while self.item.is_none() {
            // Lines 12-20: the next item of this bound, or the next bound.
            if let Some(item) = self.queue.pop_front() {
                self.item = Some(item);
                self.frames.clear();
            } else if self.next.is_empty() || self.bound == self.max_bound {
                self.done = true;
                return false;
            } else {
                self.bound += 1;
                self.queue = std::mem::take(&mut self.next).into();
            }
        }
        true
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        let sig = Signature::of(point);
        self.offered = self.offered.then(sig);
        if let Some(choice) = self.replaying() {
            self.check_offered()?;
            if !point.enabled.iter().any(|a| a.index() == choice as usize) {
                return Err(ChoiceError::Nondeterminism {
                    detail: format!(
                        "replaying a known prefix, thread #{choice} is not enabled where it was before (enabled: {:?})",
                        point.enabled.iter().map(|a| a.index()).collect::<Vec<_>>()
                    ),
                });
            }
            self.path.push(choice);
            return Ok(ActorId::from_index(choice as usize));
        }
        let fresh = self.frames.is_new();
        let choice = match point.current.filter(|_| !point.yielding) {
            // Line 26-32: the running actor goes on; switching to any other
            // is a preemption, explored at the next bound.
            Some(current) => {
                let choice = self.frames.decide(&[current.index() as u32], sig)?;
                if fresh {
                    for &other in point.enabled.iter().filter(|&&a| a != current) {
                        if self.bound < self.max_bound {
                            self.created.push((self.path.len() as u32, other.index() as u32, self.offered));
                        } else {
                            self.beyond = true;
                        }
                    }
                }
                choice
            }
            // Lines 33-37: a free switch: every enabled actor, no cost.
            None => {
                current_first(point, &mut self.options);
                self.frames.decide(&self.options, sig)?
            }
        };
        self.path.push(choice);
        Ok(ActorId::from_index(choice as usize))
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        self.offered = self.offered.then(Signature::of_value(point));
        if let Some(choice) = self.replaying() {
            self.check_offered()?;
            if choice as usize >= point.alternatives {
                return Err(ChoiceError::Nondeterminism {
                    detail: format!(
                        "replaying a known prefix, a data choice offered {} alternatives where value {choice} was taken before",
                        point.alternatives
                    ),
                });
            }
            self.path.push(choice);
            return Ok(choice as usize);
        }
        let fresh = self.frames.is_new();
        if point.fault {
            // No fault costs nothing; the fault is explored at the next
            // bound, as a preemption is.
            self.options.clear();
            self.options.push(0);
            if fresh {
                if self.bound < self.max_bound {
                    self.created.push((self.path.len() as u32, 1, self.offered));
                } else {
                    self.beyond = true;
                }
            }
        } else {
            values(point, &mut self.options);
        }
        let choice = self.frames.decide(&self.options, Signature::of_value(point))?;
        self.path.push(choice);
        Ok(choice as usize)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {
        self.elsewhere = self.counted_elsewhere();
        if self.bound + 1 == self.split_bound() && !self.shard.is_whole() {
            // Items of the split bound go to the shard their prefix hashes
            // to (`Icb::sharded`); deeper ones stay with their parent's.
            let (path, shard) = (&self.path, self.shard);
            self.created.retain(|&(len, last, _)| shard.owns(item_key(&path[..len as usize], last)));
        }
        // The items this execution made share one copy of its path.
        if let Some(longest) = self.created.iter().map(|c| c.0).max() {
            let path: Arc<[u32]> = Arc::from(&self.path[..longest as usize]);
            self.next.extend(self.created.drain(..).map(|(len, last, offered)| Item {
                path: path.clone(),
                len,
                last: Some(last),
                offered: Some(offered),
            }));
        }
        self.created.clear();
        if !self.frames.backtrack() {
            // Every free choice of this item is explored.
            self.item = None;
        }
    }

    fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    fn exhausted(&self) -> bool {
        self.done
    }

    fn completed_bound(&self) -> Option<u32> {
        if self.done {
            Some(self.bound)
        } else {
            self.bound.checked_sub(1)
        }
    }

    fn bounded(&self) -> bool {
        self.done && self.beyond
    }

    fn progress(&self) -> Option<String> {
        let items = self.queue.len() + usize::from(self.item.is_some());
        Some(format!("bound {}, {items} work items left at it, {} queued for the next", self.bound, self.next.len()))
    }
}
