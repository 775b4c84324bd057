//! Simulated threads: each spawned thread is an engine actor.
//!
//! Outside an exploration every function defers to `std::thread`, so a
//! `sim` build behaves like production. Inside one, `spawn` creates an
//! actor on a coroutine, `join` blocks until it finished, and `yield_now`
//! and `sleep` are yielding scheduling points.

use std::io;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ActorId, Op};

/// Where a simulated thread leaves its result for `join`.
struct Packet<T> {
    done: AtomicBool,
    result: Mutex<Option<T>>,
    slot: ObjectSlot,
}

/// Same API as [`std::thread::JoinHandle`].
pub struct JoinHandle<T>(Inner<T>);

enum Inner<T> {
    Real(std::thread::JoinHandle<T>),
    Sim { actor: ActorId, packet: Arc<Packet<T>> },
}

impl<T> std::fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Inner::Real(h) => h.fmt(f),
            Inner::Sim { actor, .. } => f.debug_struct("JoinHandle").field("actor", actor).finish(),
        }
    }
}

impl<T> JoinHandle<T> {
    /// Waits for the thread to finish and returns its result.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        match self.0 {
            Inner::Real(h) => h.join(),
            Inner::Sim { packet, .. } => {
                let (object, _) = packet.slot.id("Thread");
                rt::step_when(Op::Join, Some(object), Location::caller(), &|| packet.done.load(Ordering::Relaxed));
                let value = packet.result.lock().unwrap_or_else(|p| p.into_inner()).take();
                // A panicking thread ends the execution, so a finished one
                // always left its value.
                Ok(value.expect("a finished simulated thread left its result"))
            }
        }
    }

    /// Returns whether the thread has finished.
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            Inner::Real(h) => h.is_finished(),
            Inner::Sim { packet, .. } => packet.done.load(Ordering::Relaxed),
        }
    }
}

/// Same API as [`std::thread::Builder`].
#[derive(Debug, Default)]
pub struct Builder {
    name: Option<String>,
    stack_size: Option<usize>,
}

impl Builder {
    /// Creates a builder with no name and the default stack size.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Names the thread; the name shows in traces and reports.
    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    /// Sets the stack size of the thread (of its coroutine under `sim`).
    pub fn stack_size(mut self, size: usize) -> Builder {
        self.stack_size = Some(size);
        self
    }

    /// Spawns a thread running `f`.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        if !rt::active() {
            let mut std_builder = std::thread::Builder::new();
            if let Some(name) = self.name {
                std_builder = std_builder.name(name);
            }
            if let Some(size) = self.stack_size {
                std_builder = std_builder.stack_size(size);
            }
            return std_builder.spawn(f).map(|h| JoinHandle(Inner::Real(h)));
        }
        let packet =
            Arc::new(Packet { done: AtomicBool::new(false), result: Mutex::new(None), slot: ObjectSlot::new() });
        let theirs = packet.clone();
        let body = Box::new(move || {
            let (object, _) = theirs.slot.id("Thread");
            rt::acquired(object);
            let value = f();
            *theirs.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
            theirs.done.store(true, Ordering::Relaxed);
            rt::released(object);
        });
        let actor = rt::spawn(self.name, self.stack_size, Location::caller(), body);
        Ok(JoinHandle(Inner::Sim { actor, packet }))
    }
}

/// Spawns a new thread; same API as [`std::thread::spawn`].
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Builder::new().spawn(f).expect("failed to spawn thread")
}

/// Gives up the processor; a yielding scheduling point under `sim`.
#[track_caller]
pub fn yield_now() {
    if rt::active() {
        rt::step(Op::Yield, None, Location::caller());
    } else {
        std::thread::yield_now();
    }
}

/// Sleeps; under `sim` a yield that advances the virtual clock instead.
#[track_caller]
pub fn sleep(duration: Duration) {
    if rt::active() {
        rt::step(Op::Sleep, None, Location::caller());
        rt::advance_clock(duration.as_nanos().min(u128::from(u64::MAX)) as u64);
    } else {
        std::thread::sleep(duration);
    }
}
