//! A oneshot channel, as a loom user writes it: the value in an
//! `UnsafeCell`, an `AtomicUsize` state whose bits say that a value was
//! sent and that the receiver is gone.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

use crate::{assert_panic, assert_pass, assert_race, check};

/// A value is in the cell, for the receiver.
const VALUE_SENT: usize = 1;
/// The receiver is gone; the sender keeps its value.
const CLOSED: usize = 2;

/// Which sender the channel runs.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// Write the value, then set `VALUE_SENT` with `fetch_or(AcqRel)`.
    Correct,
    /// Set `VALUE_SENT` before writing the value: the receiver can take
    /// the value while it is being written.
    PublishBeforeWrite,
    /// Check `CLOSED`, then write and `store(VALUE_SENT)`: a receiver
    /// dropped in between loses `CLOSED` and no one drops the value.
    CheckThenStore,
    /// `fetch_or(Relaxed)` and `load(Relaxed)`: the value's write is not
    /// ordered before its read. A weak-memory bug: loom reports it as a
    /// data race, samaritan (sequentially consistent atomics) does not.
    Relaxed,
}

struct Inner<T> {
    state: AtomicUsize,
    value: UnsafeCell<Option<T>>,
    variant: Variant,
}

// SAFETY: the state bits give the cell to one side at a time (what the
// model checks).
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // The endpoints own the value's drop, as with a `MaybeUninit`
        // slot: a value still here is leaked. The access is ordered after
        // both endpoints' by `loom::sync::Arc`'s modelled count.
        // SAFETY: the last `Arc` is gone; no other access.
        std::mem::forget(self.value.with_mut(|v| unsafe { (*v).take() }));
    }
}

struct Sender<T>(Arc<Inner<T>>);
struct Receiver<T>(Arc<Inner<T>>);

fn channel<T>(variant: Variant) -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner { state: AtomicUsize::new(0), value: UnsafeCell::new(None), variant });
    (Sender(inner.clone()), Receiver(inner))
}

impl<T> Sender<T> {
    fn send(self, value: T) -> Result<(), T> {
        let inner = &self.0;
        let (publish, _) = orderings(inner.variant);
        match inner.variant {
            Variant::Correct | Variant::Relaxed => {
                // SAFETY: the receiver reads the cell only once `VALUE_SENT` is set.
                inner.value.with_mut(|v| unsafe { *v = Some(value) });
                if inner.state.fetch_or(VALUE_SENT, publish) & CLOSED != 0 {
                    // SAFETY: the receiver is gone.
                    return Err(inner.value.with_mut(|v| unsafe { (*v).take() }).unwrap());
                }
            }
            Variant::PublishBeforeWrite => {
                if inner.state.fetch_or(VALUE_SENT, publish) & CLOSED != 0 {
                    return Err(value);
                }
                // SAFETY: the bug under test; the model reports the race.
                inner.value.with_mut(|v| unsafe { *v = Some(value) });
            }
            Variant::CheckThenStore => {
                if inner.state.load(Ordering::Acquire) & CLOSED != 0 {
                    return Err(value);
                }
                // SAFETY: as in `Correct`, but for the lost `CLOSED`.
                inner.value.with_mut(|v| unsafe { *v = Some(value) });
                inner.state.store(VALUE_SENT, Ordering::Release);
            }
        }
        Ok(())
    }
}

/// The orderings of the publishing `fetch_or` and the receiver's load.
fn orderings(variant: Variant) -> (Ordering, Ordering) {
    match variant {
        Variant::Relaxed => (Ordering::Relaxed, Ordering::Relaxed),
        _ => (Ordering::AcqRel, Ordering::Acquire),
    }
}

impl<T> Receiver<T> {
    fn try_recv(&self) -> Option<T> {
        let inner = &self.0;
        let (_, observe) = orderings(inner.variant);
        if inner.state.load(observe) & VALUE_SENT == 0 {
            return None;
        }
        // SAFETY: `VALUE_SENT` gives the cell to the receiver.
        Some(inner.value.with_mut(|v| unsafe { (*v).take() }).expect("a sent value is in the cell"))
    }

    fn recv(self) -> T {
        loop {
            if let Some(value) = self.try_recv() {
                return value;
            }
            thread::yield_now();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let inner = &self.0;
        if inner.state.fetch_or(CLOSED, Ordering::AcqRel) & VALUE_SENT != 0 {
            // SAFETY: a sent value not received is the receiver's to drop.
            drop(inner.value.with_mut(|v| unsafe { (*v).take() }));
        }
    }
}

/// Counts its live instances, to find a value no one dropped.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(live: &Arc<AtomicUsize>) -> Counted {
        live.fetch_add(1, Ordering::Relaxed);
        Counted(live.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A thread sends; the main thread receives it.
fn send_recv(variant: Variant) {
    let (tx, rx) = channel(variant);
    let t = thread::spawn(move || tx.send(42).unwrap());
    assert_eq!(rx.recv(), 42);
    t.join().unwrap();
}

/// A thread sends while the main thread drops the receiver: the value is
/// dropped once, whoever ends up with it.
fn send_vs_close(variant: Variant) {
    let live = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel(variant);
    let value = Counted::new(&live);
    let t = thread::spawn(move || drop(tx.send(value)));
    drop(rx);
    t.join().unwrap();
    assert_eq!(live.load(Ordering::Relaxed), 0, "the value was leaked");
}

#[test]
fn correct_channel_passes() {
    // 6 executions under sequential consistency; the C11 model adds the
    // receiver's choice of reading the state before the sender's store
    // (8 while its weak load was also reordered with that store).
    assert_pass(&check(|| send_recv(Variant::Correct)), 7);
    assert_pass(&check(|| send_vs_close(Variant::Correct)), 4);
}

#[test]
fn publish_before_write_is_a_data_race() {
    assert_race(&check(|| send_recv(Variant::PublishBeforeWrite)));
}

#[test]
fn check_then_store_leaks_the_value() {
    assert_panic(&check(|| send_vs_close(Variant::CheckThenStore)), "the value was leaked");
}

#[test]
fn relaxed_publication_is_a_data_race() {
    // Under the C11 model a Relaxed flag publishes nothing: the receiver's
    // read of the value is not ordered after the sender's write.
    assert_race(&check(|| send_recv(Variant::Relaxed)));
}
