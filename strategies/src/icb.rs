//! Iterative context bounding (iterative-context-bounding.txt, section 3,
//! Algorithm 1): every execution with 0 preemptions, then every one with 1,
//! and so on up to a bound.
//!
//! A *preemption* is a switch away from an actor that could have gone on
//! ([`SchedulePoint::preempts`]); a switch after it blocked, finished or
//! yielded is free, and so is one the fair scheduler forces.
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
//! Invariants:
//! - `queue` holds the items of `bound`, `next` those of `bound + 1`.
//! - Every execution with at most `bound - 1` preemptions has run.
//! - `frames[..depth]` are the free decisions of the running execution past
//!   the item's prefix; `path` is every choice it has made.

use std::collections::VecDeque;

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

use crate::dfs::{current_first, signature, value_signature, Frames};

/// Iterative context bounding up to a preemption bound.
#[derive(Debug)]
pub struct Icb {
    max_bound: u32,
    bound: u32,
    queue: VecDeque<Box<[u32]>>,
    next: Vec<Box<[u32]>>,
    /// Whether a preemption beyond `max_bound` was left unexplored.
    beyond: bool,
    item: Option<Box<[u32]>>,
    frames: Frames,
    path: Vec<u32>,
    done: bool,
}

impl Icb {
    /// Creates a search over every execution with at most `max_bound`
    /// preemptions.
    pub fn new(max_bound: u32) -> Icb {
        Icb {
            max_bound,
            bound: 0,
            queue: VecDeque::from([Box::from([])]),
            next: Vec::new(),
            beyond: false,
            item: None,
            frames: Frames::default(),
            path: Vec::new(),
            done: false,
        }
    }

    /// Returns the preemption bound being explored now.
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// Returns the replayed prefix's choice at this point, if any.
    fn replaying(&self) -> Option<u32> {
        self.item.as_ref().and_then(|item| item.get(self.path.len()).copied())
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
        if let Some(choice) = self.replaying() {
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
        let sig = signature(point);
        let fresh = self.frames.is_new();
        let choice = match point.current.filter(|_| !point.yielding) {
            // Line 26-32: the running actor goes on; switching to any other
            // is a preemption, explored at the next bound.
            Some(current) => {
                let choice = self.frames.decide(vec![current.index() as u32], sig)?;
                if fresh {
                    for &other in point.enabled.iter().filter(|&&a| a != current) {
                        if self.bound < self.max_bound {
                            let mut item = Vec::with_capacity(self.path.len() + 1);
                            item.extend_from_slice(&self.path);
                            item.push(other.index() as u32);
                            self.next.push(item.into_boxed_slice());
                        } else {
                            self.beyond = true;
                        }
                    }
                }
                choice
            }
            // Lines 33-37: a free switch: every enabled actor, no cost.
            None => self.frames.decide(current_first(point), sig)?,
        };
        self.path.push(choice);
        Ok(ActorId::from_index(choice as usize))
    }

    fn choose_value(&mut self, point: &ChoicePoint) -> Result<usize, ChoiceError> {
        if let Some(choice) = self.replaying() {
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
        let choice = self.frames.decide((0..point.alternatives as u32).collect(), value_signature(point))?;
        self.path.push(choice);
        Ok(choice as usize)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {
        if !self.frames.backtrack() {
            // Every free choice of this item is explored.
            self.item = None;
        }
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
}
