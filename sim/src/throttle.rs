//! Slowing down an exploring thread the watchdog gave up on.
//!
//! When the watchdog reports uncontrolled blocking, the exploring thread
//! is left behind: nothing can stop code that loops without visible
//! operations. If it spins, it would burn a core for the rest of the
//! process (the rest of a `cargo test` run). Freezing it for good is not
//! safe: it may be inside a lock other threads need (stdout's, the
//! allocator's). So a small thread sends it a signal every [`PERIOD`], and
//! the handler sleeps for all of the period but [`RUN`]: the thread keeps
//! about 1% of a core, and a lock it holds is released within a period.
//!
//! Invariant: a signal is sent only while the thread is registered in
//! [`Progress::explorer`], under that lock; the exploring thread
//! unregisters itself (under the lock) before its job ends, so a signal
//! never reaches a thread that went on to other work or exited.
//!
//! Only Linux; elsewhere the thread is left to run.

use std::sync::Arc;
#[cfg(target_os = "linux")]
use std::time::Duration;

use crate::progress::Progress;

/// How often the left-behind thread is stopped.
#[cfg(target_os = "linux")]
const PERIOD: Duration = Duration::from_millis(100);

/// How long it may run each period.
#[cfg(target_os = "linux")]
const RUN: Duration = Duration::from_millis(1);

/// This OS thread, as the throttle names it.
pub(crate) fn this_thread() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `pthread_self` has no preconditions.
        unsafe { libc::pthread_self() as u64 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Starts throttling the thread registered in `progress`, for as long as
/// it stays registered.
pub(crate) fn throttle(progress: Arc<Progress>) {
    #[cfg(target_os = "linux")]
    {
        if !install() {
            return;
        }
        let spawned = std::thread::Builder::new().name("samaritan-throttle".into()).spawn(move || loop {
            {
                let explorer = progress.explorer.lock().unwrap_or_else(|p| p.into_inner());
                let Some(thread) = *explorer else { return };
                // SAFETY: the thread is registered, so it is alive until it
                // takes this lock (module invariant).
                unsafe { libc::pthread_kill(thread as libc::pthread_t, signal()) };
            }
            std::thread::sleep(PERIOD);
        });
        // Without a thread to send the signals, the thread runs on.
        drop(spawned);
    }
    #[cfg(not(target_os = "linux"))]
    drop(progress);
}

/// The signal used: one of the real-time signals near the top, which
/// libraries rarely claim.
#[cfg(target_os = "linux")]
fn signal() -> libc::c_int {
    libc::SIGRTMAX() - 3
}

/// Installs the handler once; returns whether it is installed.
#[cfg(target_os = "linux")]
fn install() -> bool {
    use std::sync::OnceLock;
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: a zeroed action filled in with a handler of the
        // SA_SIGINFO-less signature and SA_RESTART, so that interrupted
        // system calls go on.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal(), std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                // Someone else uses it: leave it to them.
                return false;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal(), &action, std::ptr::null_mut()) == 0
        }
    })
}

/// Sleeps for the period but [`RUN`] (`nanosleep` is async-signal-safe).
#[cfg(target_os = "linux")]
extern "C" fn on_signal(_: libc::c_int) {
    let pause = PERIOD - RUN;
    let time =
        libc::timespec { tv_sec: pause.as_secs() as libc::time_t, tv_nsec: pause.subsec_nanos() as libc::c_long };
    // SAFETY: a valid timespec; interrupted sleeps end early, which is fine.
    unsafe { libc::nanosleep(&time, std::ptr::null_mut()) };
}
