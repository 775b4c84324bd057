//! Leak tracking: values a primitive registers when it creates them in an
//! execution ([`crate::rt::allocated`]) and unregisters when it frees them
//! ([`crate::rt::freed`]). One still registered when the execution ends
//! normally (every actor finished) is a leak: nothing can free it any
//! more, since no actor is left to (a reference cycle, `mem::forget`).
//!
//! Invariants:
//! - `live` counts the `Some` entries of `entries`.
//! - An [`Allocation`] names an entry of the execution of its generation
//!   only: freeing one from another execution (a value kept in a `static`
//!   past the end of the execution that made it) changes nothing.

use std::panic::Location;

use crate::outcome::Outcome;
use crate::trace::location_string;

/// A value registered for leak tracking in one execution
/// ([`crate::rt::allocated`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub(crate) generation: u64,
    pub(crate) index: u32,
}

/// The values registered in one execution.
#[derive(Debug, Default)]
pub(crate) struct Allocations {
    /// Each value's kind and creation site, in creation order; `None` once
    /// freed.
    entries: Vec<Option<(&'static str, &'static Location<'static>)>>,
    live: usize,
}

impl Allocations {
    /// Forgets the last execution, keeping the buffer's capacity.
    pub(crate) fn reset(&mut self) {
        self.entries.clear();
        self.live = 0;
    }

    /// Registers a value of `kind` created at `location`.
    pub(crate) fn add(
        &mut self,
        generation: u64,
        kind: &'static str,
        location: &'static Location<'static>,
    ) -> Allocation {
        self.entries.push(Some((kind, location)));
        self.live += 1;
        Allocation { generation, index: (self.entries.len() - 1) as u32 }
    }

    /// Unregisters `allocation`, if it belongs to this execution
    /// (`generation`) and is still registered.
    pub(crate) fn free(&mut self, generation: u64, allocation: Allocation) {
        if allocation.generation != generation {
            return;
        }
        if let Some(entry) = self.entries.get_mut(allocation.index as usize).filter(|e| e.is_some()) {
            *entry = None;
            self.live -= 1;
        }
    }

    /// The verdict for an execution whose actors all finished: a leak of
    /// the first value still registered, if any.
    pub(crate) fn verdict(&self) -> Option<Outcome> {
        if self.live == 0 {
            return None;
        }
        let (kind, location) = self.entries.iter().flatten().next().copied()?;
        Some(Outcome::Leak { kind: kind.to_string(), location: location_string(location), others: self.live - 1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_freed_in_its_own_execution_is_no_leak_and_a_stale_free_changes_nothing() {
        let mut allocations = Allocations::default();
        let here = Location::caller();
        let a = allocations.add(7, "Arc", here);
        let b = allocations.add(7, "Arc", here);
        allocations.free(7, a);
        allocations.free(7, a);
        allocations.free(8, b);
        let line = here.line();
        let verdict = allocations.verdict().map(|o| o.to_string());
        assert_eq!(
            verdict.as_deref().map(|v| v.lines().next().unwrap_or_default().to_string()),
            Some(format!(
                "leak: the Arc created at sim/src/leak.rs:{line}:20 is still alive when every thread has finished"
            ))
        );
        allocations.free(7, b);
        assert_eq!(allocations.verdict(), None);
    }
}
