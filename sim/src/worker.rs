//! Exploring threads, kept for reuse across explorations.
//!
//! Each exploration runs on its own OS thread so that the caller can watch
//! it (the watchdog). Spawning a thread per exploration costs tens of
//! microseconds, which dominates small explorations, so finished threads
//! wait here for the next one.
//!
//! Invariant: a thread goes back to the pool only if its exploration left
//! it clean: no abandoned coroutine (whose unwinding may have left the
//! thread's panic count raised) and not panicking.

use std::io;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// Work for an exploring thread; returns whether the thread is clean
/// enough to be reused.
pub(crate) type Job = Box<dyn FnOnce() -> bool + Send>;

/// Idle threads, each waiting on its channel.
static IDLE: Mutex<Vec<mpsc::Sender<Job>>> = Mutex::new(Vec::new());

/// At most this many threads wait idle.
const MAX_IDLE: usize = 8;

/// Runs `job` on an idle exploring thread, or on a new one.
pub(crate) fn run(mut job: Job) -> io::Result<()> {
    loop {
        let idle = IDLE.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let Some(tx) = idle else { break };
        match tx.send(job) {
            Ok(()) => return Ok(()),
            // That thread is gone; try the next one.
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (tx, rx) = mpsc::channel::<Job>();
    tx.send(job).expect("a new channel accepts a message");
    std::thread::Builder::new().name("samaritan-explorer".into()).spawn(move || {
        while let Some(job) = receive(&rx) {
            let clean = job() && !std::thread::panicking();
            let mut idle = IDLE.lock().unwrap_or_else(|p| p.into_inner());
            if !clean || idle.len() >= MAX_IDLE {
                return;
            }
            idle.push(tx.clone());
        }
    })?;
    Ok(())
}

/// How long a hand-off waits by spinning before it blocks: long enough to
/// cover a small exploration, short enough not to matter to a busy machine.
pub(crate) const SPIN: Duration = Duration::from_micros(100);

/// Receives from `rx`, spinning for [`SPIN`] before blocking: waking a
/// blocked thread costs tens of microseconds, more than a small
/// exploration takes.
pub(crate) fn receive<T>(rx: &mpsc::Receiver<T>) -> Option<T> {
    let until = Instant::now() + SPIN;
    loop {
        match rx.try_recv() {
            Ok(value) => return Some(value),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if Instant::now() < until => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}
