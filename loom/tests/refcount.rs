//! An `Arc`-like reference count, as a loom user writes it: an
//! `AtomicUsize` count, a release decrement and an acquire fence before
//! the free.
//!
//! "Free" drops the value in place (the cell becomes `None`) while the
//! allocation itself stays alive for the whole model, so a bug variant's
//! use after free is a panic or a data race, never undefined behaviour.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{fence, AtomicUsize, Ordering};
use loom::thread;

use crate::{assert_panic, assert_pass, check};

/// Which decrement the handles run.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// `fetch_sub(Release)`, then `fence(Acquire)` before the free.
    Correct,
    /// The decrement is a load and a store: a decrement racing with an
    /// increment can undo it, and the count reaches zero with a handle
    /// left (a premature free).
    SplitDecrement,
    /// `fetch_sub(Relaxed)` and no fence: the free is not ordered after
    /// another handle's last read. A weak-memory bug: loom reports it as
    /// a data race, samaritan (sequentially consistent atomics) does not.
    NoAcquireFence,
}

struct Inner {
    count: AtomicUsize,
    value: UnsafeCell<Option<String>>,
    variant: Variant,
}

/// A counted handle to a leaked `Inner`.
struct Handle {
    inner: &'static Inner,
}

// SAFETY: the count orders the free after every other handle's accesses
// (what the model checks).
unsafe impl Send for Handle {}

impl Handle {
    fn new(value: &str, variant: Variant) -> Handle {
        let inner = Inner { count: AtomicUsize::new(1), value: UnsafeCell::new(Some(value.into())), variant };
        Handle { inner: Box::leak(Box::new(inner)) }
    }

    fn len(&self) -> usize {
        // SAFETY: a live handle keeps the value (what the model checks).
        self.inner.value.with(|v| unsafe { (*v).as_ref().expect("use after free").len() })
    }
}

impl Clone for Handle {
    fn clone(&self) -> Handle {
        self.inner.count.fetch_add(1, Ordering::Relaxed);
        Handle { inner: self.inner }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let count = &self.inner.count;
        let last = match self.inner.variant {
            Variant::Correct => {
                let last = count.fetch_sub(1, Ordering::Release) == 1;
                if last {
                    fence(Ordering::Acquire);
                }
                last
            }
            Variant::SplitDecrement => {
                let n = count.load(Ordering::Acquire);
                count.store(n.wrapping_sub(1), Ordering::Release);
                n == 1
            }
            Variant::NoAcquireFence => count.fetch_sub(1, Ordering::Relaxed) == 1,
        };
        if last {
            // SAFETY: the last handle frees (what the model checks).
            self.inner.value.with_mut(|v| unsafe { *v = None });
        }
    }
}

/// A thread reads through its handle and drops it while the main thread
/// clones its own, drops the original and reads through the clone.
fn clone_and_drop(variant: Variant) {
    let a = Handle::new("hello", variant);
    let b = a.clone();
    let t = thread::spawn(move || {
        assert_eq!(b.len(), 5);
        drop(b);
    });
    let c = a.clone();
    drop(a);
    assert_eq!(c.len(), 5);
    t.join().unwrap();
    drop(c);
}

#[test]
fn correct_count_passes() {
    assert_pass(&check(|| clone_and_drop(Variant::Correct)), 3);
}

#[test]
fn split_decrement_frees_early() {
    assert_panic(&check(|| clone_and_drop(Variant::SplitDecrement)), "use after free");
}

#[test]
fn missing_acquire_fence_is_not_found() {
    // In this program the last drop is main's, after it joined the thread:
    // the join orders the thread's read before the free, with or without
    // the fence, so there is nothing to find (under the C11 model too).
    assert_pass(&check(|| clone_and_drop(Variant::NoAcquireFence)), 3);
}
