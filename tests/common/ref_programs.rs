//! Small generated programs over one reference-counted value
//! (`samaritan::sync::counted`): two or three threads, each starting with
//! a clone, that clone, drop, read the strong count, try to unwrap, and
//! downgrade and upgrade. The outcome is every register and the thread
//! whose step freed the value, so an exploration that misses an order of
//! two count operations that matters misses an outcome.

use std::sync::Mutex as StdMutex;

use samaritan::sync::counted::{Arc, Weak};
use samaritan::thread;

use super::programs::Gen;

/// One instruction of a generated thread, on its own clones (`mine`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum RefIns {
    /// Clone the last of `mine` onto `mine`.
    Clone,
    /// Drop the last of `mine`; `reg` = how many are left.
    Drop,
    /// `reg` = the strong count (99 without a clone).
    Count,
    /// `try_unwrap` the last of `mine`: `reg` = 100 and the value dropped
    /// when it was the only one, else 0 and the clone kept.
    TryUnwrap,
    /// Keep a `Weak` of the last of `mine`.
    Downgrade,
    /// Upgrade the kept `Weak` onto `mine`: `reg` = 1, or 0 when it cannot.
    Upgrade,
}

/// A generated program: its threads' instructions.
#[derive(Clone, Debug)]
pub(crate) struct RefProgram {
    pub(crate) threads: Vec<Vec<RefIns>>,
}

/// The value: its drop records which thread freed it.
struct Value(std::sync::Arc<StdMutex<u32>>, u32);

impl Drop for Value {
    fn drop(&mut self) {
        let name = thread::current().name().map(str::to_string);
        // Threads are named `t1`, `t2`, ...; main is 0.
        let by = name.and_then(|n| n.strip_prefix('t').and_then(|i| i.parse().ok())).unwrap_or(0);
        *self.0.lock().unwrap() = by + self.1;
    }
}

impl RefProgram {
    /// A program of at most 4 instructions, so that DFS stays fast.
    pub(crate) fn generate(g: &mut Gen) -> RefProgram {
        loop {
            let threads = (0..2 + g.below(2))
                .map(|_| {
                    (0..1 + g.below(2))
                        .map(|_| match g.below(6) {
                            0 => RefIns::Clone,
                            1 => RefIns::Drop,
                            2 => RefIns::Count,
                            3 => RefIns::TryUnwrap,
                            4 => RefIns::Downgrade,
                            _ => RefIns::Upgrade,
                        })
                        .collect()
                })
                .collect::<Vec<Vec<RefIns>>>();
            if threads.iter().map(Vec::len).sum::<usize>() <= 4 {
                return RefProgram { threads };
            }
        }
    }

    /// Runs the program once; returns its outcome.
    pub(crate) fn run(&self) -> Vec<u32> {
        let freed = std::sync::Arc::new(StdMutex::new(u32::MAX));
        let root = Arc::new(Value(freed.clone(), 10));
        let handles: Vec<_> = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, body)| {
                let (body, first) = (body.clone(), root.clone());
                let builder = thread::Builder::new().name(format!("t{}", i + 1));
                builder
                    .spawn(move || {
                        let (mut mine, mut weak, mut seen) = (vec![first], Weak::new(), Vec::new());
                        for ins in body {
                            let reg = match ins {
                                RefIns::Clone => {
                                    let copy = mine.last().cloned();
                                    mine.extend(copy);
                                    mine.len() as u32
                                }
                                RefIns::Drop => {
                                    mine.pop();
                                    mine.len() as u32
                                }
                                RefIns::Count => mine.last().map_or(99, |a| Arc::strong_count(a) as u32),
                                RefIns::TryUnwrap => match mine.pop().map(Arc::try_unwrap) {
                                    Some(Ok(_value)) => 100,
                                    Some(Err(kept)) => {
                                        mine.push(kept);
                                        0
                                    }
                                    None => 99,
                                },
                                RefIns::Downgrade => {
                                    weak = mine.last().map_or_else(Weak::new, Arc::downgrade);
                                    1
                                }
                                RefIns::Upgrade => match weak.upgrade() {
                                    Some(a) => {
                                        mine.push(a);
                                        1
                                    }
                                    None => 0,
                                },
                            };
                            seen.push(reg);
                        }
                        seen
                    })
                    .expect("a stack for the thread")
            })
            .collect();
        drop(root);
        let mut outcome: Vec<u32> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
        outcome.push(*freed.lock().unwrap());
        outcome
    }
}
