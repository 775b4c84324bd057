//! A global allocator under which an execution never gets back an address
//! it freed: whether two pointers compare equal depends on the schedule
//! only.
//!
//! Lock-free code compares pointers (a compare-exchange on a list's head,
//! a hazard-pointer scan). With the system allocator, a block freed in an
//! execution may come back at the next allocation of its size, or not,
//! depending on what else was allocated and freed in between, and the
//! engine's own allocations differ between the first run of a schedule and
//! its replay (a replay records the trace, a search grows its tables). So
//! the same schedule could see a compare-exchange succeed on a reused
//! address (an ABA) in one run and fail in the next, and the explorer would
//! report nondeterminism for a correct test.
//!
//! [`NoReuse`] takes that choice away from the allocator: while an
//! execution runs on a thread, every block that thread frees is held back
//! and handed to the system allocator only when the execution ends. An
//! allocation during the execution therefore never returns a block freed
//! earlier in it, and a pointer to a freed block never equals a live one.
//! A bug that needs an address to come back is out of the model, as it is
//! out of loom's; what is in it is explored the same way in every run.
//!
//! Invariants:
//! - Between [`begin`] and the matching [`end`] on a thread, a block that
//!   thread frees is pushed on the thread's held list (up to [`HELD_CAP`]
//!   bytes; past that, blocks are freed at once) and nothing else touches
//!   it until `end` frees the list.
//! - Every layout is padded to at least [`MIN_SIZE`] bytes, the same way on
//!   allocation, reallocation and free, so a held block can carry the
//!   list's link and its own layout in its first two words.
//! - This module names nothing else in the crate: `run` calls in.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;

/// The smallest block handed out: room for the held list's link and the
/// block's layout.
const MIN_SIZE: usize = 2 * size_of::<usize>();

/// How many bytes an execution holds back at most; blocks freed past this
/// go back to the system at once (an execution that frees this much is
/// rare, and unbounded memory would be worse than a rare reuse).
pub const HELD_CAP: usize = 1 << 30;

/// Bits of a held block's second word that keep its alignment's log2.
const ALIGN_SHIFT: u32 = usize::BITS - 6;

/// This thread's executions and what they hold.
#[derive(Clone, Copy)]
struct Held {
    /// Executions running on this thread (nested ones count too).
    depth: usize,
    /// The most recently held block, or null.
    head: *mut u8,
    /// Bytes held.
    bytes: usize,
}

thread_local! {
    static HELD: Cell<Held> = const { Cell::new(Held { depth: 0, head: ptr::null_mut(), bytes: 0 }) };
}

/// Marks the start of an execution on this thread: from now on, what this
/// thread frees is held.
pub(crate) fn begin() {
    HELD.with(|h| {
        let mut held = h.get();
        held.depth += 1;
        h.set(held);
    });
}

/// Marks the end of an execution on this thread; at the outermost one,
/// hands every held block back to the system allocator.
pub(crate) fn end() {
    let head = HELD.with(|h| {
        let mut held = h.get();
        held.depth = held.depth.saturating_sub(1);
        if held.depth > 0 {
            h.set(held);
            return ptr::null_mut();
        }
        let head = held.head;
        h.set(Held { depth: 0, head: ptr::null_mut(), bytes: 0 });
        head
    });
    let mut block = head;
    while !block.is_null() {
        // SAFETY: every block on the list was written by `hold`: a live
        // allocation of at least `MIN_SIZE` bytes whose first word is the
        // next block and second its padded layout, and no one else holds
        // a pointer to it (its owner freed it).
        unsafe {
            let next = ptr::read_unaligned(block.cast::<*mut u8>());
            let word = ptr::read_unaligned(block.cast::<usize>().add(1));
            let size = word & ((1 << ALIGN_SHIFT) - 1);
            let align = 1usize << (word >> ALIGN_SHIFT);
            System.dealloc(block, Layout::from_size_align_unchecked(size, align));
            block = next;
        }
    }
}

/// Whether an execution runs on this thread.
fn holding() -> bool {
    HELD.with(|h| h.get().depth > 0)
}

/// Keeps `block` (freed, of the padded `layout`) until the execution ends;
/// `false` when it must be freed now (no execution, or the cap reached).
///
/// # Safety
///
/// `block` is a live allocation of `layout`, padded, that its owner frees.
unsafe fn hold(block: *mut u8, layout: Layout) -> bool {
    HELD.with(|h| {
        let mut held = h.get();
        if held.depth == 0 || layout.size() >= 1 << ALIGN_SHIFT || held.bytes + layout.size() > HELD_CAP {
            return false;
        }
        let word = layout.size() | ((layout.align().trailing_zeros() as usize) << ALIGN_SHIFT);
        // SAFETY: the block has at least `MIN_SIZE` bytes (padded) and is
        // its owner's no more; unaligned writes need no alignment.
        unsafe {
            ptr::write_unaligned(block.cast::<*mut u8>(), held.head);
            ptr::write_unaligned(block.cast::<usize>().add(1), word);
        }
        held.head = block;
        held.bytes += layout.size();
        h.set(held);
        true
    })
}

/// `layout` with at least `MIN_SIZE` bytes.
fn padded(layout: Layout) -> Layout {
    // SAFETY: the alignment is `layout`'s, and growing a valid size to
    // `MIN_SIZE` (far below `isize::MAX`) keeps it valid.
    unsafe { Layout::from_size_align_unchecked(layout.size().max(MIN_SIZE), layout.align()) }
}

/// The global allocator for test binaries: the system allocator, except
/// that memory freed during an execution is reused only after it ends.
///
/// Install it in a test binary whose code compares pointers to memory it
/// frees (lock-free lists, hazard pointers, epochs):
///
/// ```
/// #[global_allocator]
/// static ALLOC: samaritan_sim::NoReuse = samaritan_sim::NoReuse;
///
/// fn main() {
///     // Outside an execution this is the system allocator: a freed
///     // block may come back at the next allocation. Inside one it never
///     // does.
///     let first = Box::new(1u64);
///     drop(first);
///     assert_eq!(*Box::new(2u64), 2);
/// }
/// ```
///
/// Outside an execution it costs a thread-local read per free; inside one
/// it holds at most [`HELD_CAP`] bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReuse;

// SAFETY: every method forwards to the system allocator with the padded
// layout, the same padding for a block's allocation, reallocation and
// free; a held block is freed exactly once, by `end`.
unsafe impl GlobalAlloc for NoReuse {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, with a padded (larger) layout.
        unsafe { System.alloc(padded(layout)) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(padded(layout)) }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let layout = padded(layout);
        // SAFETY: the caller frees a block this allocator handed out with
        // `layout`, padded here as it was there.
        unsafe {
            if !hold(block, layout) {
                System.dealloc(block, layout);
            }
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !holding() {
            // SAFETY: the caller's contract, both sizes padded alike.
            return unsafe { System.realloc(block, padded(layout), new_size.max(MIN_SIZE)) };
        }
        // A move would free the old block inside the system allocator,
        // which could hand it out again: move by hand and hold the old one.
        // SAFETY: `new_size` with `layout`'s alignment is a valid layout
        // (the caller's contract); both blocks have at least the bytes
        // copied.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            let moved = self.alloc(new_layout);
            if !moved.is_null() {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                self.dealloc(block, layout);
            }
            moved
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates and frees through `NoReuse` without installing it.
    fn cycle(n: usize) -> Vec<usize> {
        let layout = Layout::new::<[u8; 24]>();
        (0..n)
            .map(|_| {
                // SAFETY: a non-zero layout, freed with the same layout.
                unsafe {
                    let block = NoReuse.alloc(layout);
                    assert!(!block.is_null());
                    NoReuse.dealloc(block, layout);
                    block as usize
                }
            })
            .collect()
    }

    #[test]
    fn a_block_freed_during_an_execution_never_comes_back_in_it() {
        begin();
        let addresses = cycle(1000);
        let distinct: std::collections::BTreeSet<_> = addresses.iter().collect();
        assert_eq!(distinct.len(), 1000);
        assert_eq!(HELD.with(|h| h.get().bytes), 1000 * 24);
        end();
        assert_eq!(HELD.with(|h| h.get().bytes), 0);
        assert!(HELD.with(|h| h.get().head.is_null()));
    }

    #[test]
    fn a_nested_execution_releases_nothing_until_the_outer_one_ends() {
        begin();
        begin();
        cycle(3);
        end();
        assert_eq!(HELD.with(|h| h.get().bytes), 3 * 24);
        assert!(holding());
        end();
        assert!(!holding());
        assert_eq!(HELD.with(|h| h.get().bytes), 0);
    }

    #[test]
    fn a_tiny_block_is_padded_to_carry_the_link() {
        let layout = Layout::new::<u8>();
        begin();
        // SAFETY: as in `cycle`.
        unsafe {
            let block = NoReuse.alloc(layout);
            NoReuse.dealloc(block, layout);
        }
        assert_eq!(HELD.with(|h| h.get().bytes), MIN_SIZE);
        end();
    }

    #[test]
    fn a_reallocation_during_an_execution_moves_and_holds_the_old_block() {
        let layout = Layout::new::<[u64; 4]>();
        begin();
        // SAFETY: a live block reallocated to a valid size, then freed
        // with its new layout.
        unsafe {
            let block = NoReuse.alloc(layout);
            block.cast::<u64>().write(7);
            let grown = NoReuse.realloc(block, layout, 64);
            assert_ne!(grown, block);
            assert_eq!(grown.cast::<u64>().read(), 7);
            assert_eq!(HELD.with(|h| h.get().bytes), 32);
            NoReuse.dealloc(grown, Layout::from_size_align_unchecked(64, 8));
        }
        assert_eq!(HELD.with(|h| h.get().bytes), 96);
        end();
    }

    #[test]
    fn outside_an_execution_a_free_goes_back_at_once() {
        cycle(10);
        assert_eq!(HELD.with(|h| h.get().bytes), 0);
        assert!(!holding());
    }
}
