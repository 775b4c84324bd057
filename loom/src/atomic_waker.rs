//! A waker slot one task registers in and others wake; loom's
//! `future::AtomicWaker`, on a samaritan `Mutex`.

use std::task::Waker;

use samaritan::sync::Mutex;

/// Same API as loom's `future::AtomicWaker`.
#[derive(Debug, Default)]
pub struct AtomicWaker {
    waker: Mutex<Option<Waker>>,
}

impl AtomicWaker {
    /// Creates an empty slot.
    pub fn new() -> AtomicWaker {
        AtomicWaker::default()
    }

    /// Registers `waker`, replacing the one registered before.
    #[track_caller]
    pub fn register(&self, waker: Waker) {
        *self.waker.lock().unwrap() = Some(waker);
    }

    /// Registers a clone of `waker` unless it would wake the same task.
    #[track_caller]
    pub fn register_by_ref(&self, waker: &Waker) {
        let mut slot = self.waker.lock().unwrap();
        match &*slot {
            Some(w) if w.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
    }

    /// Wakes the registered waker, if any, and empties the slot.
    #[track_caller]
    pub fn wake(&self) {
        if let Some(w) = self.take_waker() {
            w.wake();
        }
    }

    /// Takes the registered waker out of the slot.
    #[track_caller]
    pub fn take_waker(&self) -> Option<Waker> {
        self.waker.lock().unwrap().take()
    }
}
