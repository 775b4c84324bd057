//! std's clocks inside an execution: the program's own reads of the wall
//! clock (`std::time::Instant::now`, `SystemTime::now`, anything that calls
//! libc's `clock_gettime`) move on when the virtual clock jumps.
//!
//! A program may time things with std's clocks while it sleeps on the
//! virtual clock: a pool stamps a connection with `std::time::Instant` and
//! reaps idle ones from a `tokio::time::interval`. In a real run a
//! one-second sleep lets a second pass on every clock; in an execution the
//! virtual clock jumps in no time, and without this module std's clock
//! would not move, the connection would never grow old, and the test would
//! fail where no real run fails. So while an execution runs on a thread,
//! libc's `clock_gettime` answers that thread with a reading that moves
//! only with the program: the real reading taken at the execution's first
//! read of that clock, plus the *skew* (how far the virtual clocks of the
//! executions run on the thread have jumped so far), plus a microsecond
//! for each read of the clock in the execution. The real time the engine
//! itself spends (or the OS takes from the thread) between two reads does
//! not show: a test that asserts a measured duration within a few
//! milliseconds of its sleeps measures exactly its sleeps, in every
//! execution and replay, and a loop that spins until std's clock passes a
//! deadline still ends (each read moves the clock).
//!
//! Invariants:
//! - The skew only grows: a new execution starts its virtual clock at zero
//!   again but keeps the skew, and each clock's readings on a thread never
//!   go back (an execution's first reading is at least past the last one
//!   the thread was given), so std's monotonic clocks stay monotonic on
//!   the thread across executions.
//! - Inside an execution the readings are a function of the schedule: the
//!   first reading of each clock and, after it, the virtual jumps and the
//!   number of reads. Real time spent blocked in the OS (a real
//!   `std::thread::sleep`, a wait for a wake from outside the model) does
//!   not move them either.
//! - Only the thread that runs an execution, and only while it runs one,
//!   sees the skew: the explorer's time budget and watchdog (which read the
//!   clock between executions or on another thread), every other thread
//!   and production code read the real clock.
//! - What the program reads is the real clock plus a function of the
//!   schedule: a test that compares std durations with thresholds far above
//!   the engine's own microseconds sees the same answers in every replay.
//! - Only on 64-bit Linux with glibc, linked dynamically: the interposed
//!   `clock_gettime` defers to glibc's own, found with `dlsym(RTLD_NEXT)`.
//!   Elsewhere std's clocks stay real inside an execution
//!   ([`STD_CLOCKS_FOLLOW`] says which).

use std::cell::Cell;

/// The clock ids `clock_gettime` takes that this module keeps readings of
/// (Linux's are below 12).
const CLOCKS: usize = 12;

/// How far each read of a clock inside an execution moves it, in
/// nanoseconds.
pub(crate) const READ_TICK_NS: i128 = 1_000;

/// One clock's readings on a thread.
#[derive(Clone, Copy, Default)]
struct Reading {
    /// The real reading (ns) at the execution's first read, less the skew
    /// then, raised so that the execution's readings follow the last one
    /// given before it; `None` until the execution first reads the clock.
    base: Option<i128>,
    /// Reads in this execution.
    reads: u32,
    /// The last reading given on the thread (ns), in any execution.
    last: Option<i128>,
}

thread_local! {
    /// Whether this thread runs an execution now.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// How far the virtual clocks of this thread's executions have jumped,
    /// in nanoseconds, summed over every execution so far.
    static SKEW_NS: Cell<u64> = const { Cell::new(0) };
    /// Each clock's readings, by clock id.
    static READINGS: Cell<[Reading; CLOCKS]> = const { Cell::new([Reading { base: None, reads: 0, last: None }; CLOCKS]) };
}

/// Whether std's clocks follow the virtual clock inside an execution on
/// this platform (64-bit Linux with glibc, linked dynamically); where they
/// do not, a program that times its sleeps with `std::time::Instant` sees
/// no time pass across them.
///
/// ```
/// # #[cfg(all(target_os = "linux", target_env = "gnu"))]
/// assert!(samaritan_sim::STD_CLOCKS_FOLLOW);
/// ```
pub const STD_CLOCKS_FOLLOW: bool =
    cfg!(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64", not(target_feature = "crt-static")));

/// Marks this thread as running an execution; returns what it was before,
/// for [`end`] (an execution may start inside another's teardown). A new
/// execution takes each clock's real reading afresh at its first read.
pub(crate) fn begin() -> bool {
    let was = ACTIVE.with(|a| a.replace(true));
    if !was {
        let mut readings = READINGS.with(Cell::get);
        for r in &mut readings {
            (r.base, r.reads) = (None, 0);
        }
        READINGS.with(|c| c.set(readings));
    }
    was
}

/// Undoes [`begin`], restoring `before`.
pub(crate) fn end(before: bool) {
    ACTIVE.with(|a| a.set(before));
}

/// The virtual clock jumped by `nanos`: std's clocks jump with it.
pub(crate) fn jumped(nanos: u64) {
    SKEW_NS.with(|s| s.set(s.get().saturating_add(nanos)));
}

/// Reads std's clock `now` really is on the engine's behalf, as if outside
/// the execution (a wait for a wake from outside the model is timed in
/// real time).
pub(crate) fn real<T>(now: impl FnOnce() -> T) -> T {
    let was = ACTIVE.with(|a| a.replace(false));
    let reading = now();
    ACTIVE.with(|a| a.set(was));
    reading
}

/// What this thread is told of clock `clock` whose real reading is `real`
/// (ns): the module's reading inside an execution, `real` outside one.
/// `try_with`: a read may come while the thread's locals are being
/// destroyed.
fn reading(clock: usize, real: i128) -> i128 {
    if !ACTIVE.try_with(Cell::get).unwrap_or(false) || clock >= CLOCKS {
        return real;
    }
    let Ok(mut readings) = READINGS.try_with(Cell::get) else { return real };
    let skew = i128::from(SKEW_NS.try_with(Cell::get).unwrap_or(0));
    let r = &mut readings[clock];
    let base = *r.base.get_or_insert_with(|| {
        // At least past the last reading given, whatever the skew is now.
        let floor = r.last.map_or(i128::MIN, |last| last + 1 - skew);
        real.max(floor)
    });
    r.reads = r.reads.saturating_add(1);
    let now = base + skew + i128::from(r.reads - 1) * READ_TICK_NS;
    r.last = Some(now);
    let _ = READINGS.try_with(|c| c.set(readings));
    now
}

#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64", not(target_feature = "crt-static")))]
mod interpose {
    //! The interposed `clock_gettime`. The executable's own definition of
    //! a symbol wins over the shared libc's, so every caller in the process
    //! (std, and C code linked in) reaches this one.

    use std::ffi::{c_char, c_int, c_long, c_void};
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// glibc's `struct timespec` on 64-bit Linux.
    #[repr(C)]
    pub(super) struct Timespec {
        tv_sec: i64,
        tv_nsec: c_long,
    }

    extern "C" {
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }

    /// `RTLD_NEXT`: the next definition after the caller's object.
    const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;
    /// `RTLD_DEFAULT`: the global search order.
    const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();

    type ClockGettime = unsafe extern "C" fn(c_int, *mut Timespec) -> c_int;

    /// glibc's `clock_gettime`, once looked up.
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

    /// The clocks that tell time (as opposed to CPU time): realtime,
    /// monotonic, monotonic raw, realtime coarse, monotonic coarse,
    /// boottime, realtime alarm, boottime alarm, TAI.
    fn tells_time(clock: c_int) -> bool {
        matches!(clock, 0 | 1 | 4..=9 | 11)
    }

    fn real() -> Option<ClockGettime> {
        let mut f = REAL.load(Ordering::Acquire);
        if f.is_null() {
            // SAFETY: `dlsym` with a NUL-terminated name; a null answer is
            // handled below.
            f = unsafe { dlsym(RTLD_NEXT, c"clock_gettime".as_ptr()) };
            if f.is_null() {
                // SAFETY: as above. glibc's internal alias of the same
                // function, for the case where no later object defines it.
                f = unsafe { dlsym(RTLD_DEFAULT, c"__clock_gettime".as_ptr()) };
            }
            if f.is_null() {
                return None;
            }
            REAL.store(f, Ordering::Release);
        }
        // SAFETY: `f` is glibc's `clock_gettime` (or its alias), whose
        // signature `ClockGettime` is.
        Some(unsafe { std::mem::transmute::<*mut c_void, ClockGettime>(f) })
    }

    /// libc's `clock_gettime`, with the thread's skew added to the clocks
    /// that tell time.
    ///
    /// # Safety
    ///
    /// As glibc's: `ts` points to a writable `timespec`.
    #[no_mangle]
    unsafe extern "C" fn clock_gettime(clock: c_int, ts: *mut Timespec) -> c_int {
        let Some(real) = real() else {
            // Unreachable with a dynamically linked glibc, which always
            // defines the symbol; EINVAL is what callers are told of a
            // clock they may not read.
            return -1;
        };
        // SAFETY: the caller's contract, passed on.
        let status = unsafe { real(clock, ts) };
        if status == 0 && tells_time(clock) {
            // SAFETY: `real` succeeded, so `ts` is a valid, written timespec.
            let ts = unsafe { &mut *ts };
            let real = i128::from(ts.tv_sec) * 1_000_000_000 + ts.tv_nsec as i128;
            let told = super::reading(clock as usize, real);
            if told != real {
                ts.tv_sec = told.div_euclid(1_000_000_000) as i64;
                ts.tv_nsec = told.rem_euclid(1_000_000_000) as c_long;
            }
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant, SystemTime};

    #[test]
    fn only_a_thread_that_runs_an_execution_sees_the_skew() {
        let outside = Instant::now();
        let wall = SystemTime::now();
        let before = begin();
        jumped(3_600_000_000_000);
        let inside = Instant::now();
        let wall_inside = SystemTime::now();
        end(before);
        let after = Instant::now();
        if STD_CLOCKS_FOLLOW {
            assert!(inside - outside >= Duration::from_secs(3600));
            assert!(wall_inside.duration_since(wall).unwrap() >= Duration::from_secs(3600));
            // The explorer's own reads, between executions, are real.
            assert!(after < inside);
            assert!(after - outside < Duration::from_secs(60));
            // Another thread never sees it.
            let begun = begin();
            let elsewhere = std::thread::spawn(Instant::now).join().unwrap();
            assert!(Instant::now() - elsewhere >= Duration::from_secs(3600));
            end(begun);
        } else {
            assert!(inside - outside < Duration::from_secs(60));
        }
    }

    #[test]
    fn inside_an_execution_only_jumps_and_reads_move_the_clock() {
        let before = begin();
        let first = Instant::now();
        // Real time the thread spends between two reads does not show.
        std::thread::sleep(Duration::from_millis(20));
        let second = Instant::now();
        jumped(5_000_000);
        let third = Instant::now();
        let really = real(Instant::now);
        end(before);
        let outside = Instant::now();
        if STD_CLOCKS_FOLLOW {
            let tick = Duration::from_nanos(READ_TICK_NS as u64);
            assert_eq!(second - first, tick);
            assert_eq!(third - second, Duration::from_millis(5) + tick);
            // The engine's own real reading, and the next execution's first
            // one, never go back behind what the execution was told.
            assert!(really >= first + Duration::from_millis(20), "{:?}", really - first);
            let again = begin();
            let next = Instant::now();
            end(again);
            assert!(next > third && outside > first);
        }
    }

    #[test]
    fn the_skew_carries_nanoseconds_into_seconds() {
        let before = begin();
        let start = Instant::now();
        jumped(999_999_999);
        jumped(999_999_999);
        let later = Instant::now();
        end(before);
        if STD_CLOCKS_FOLLOW {
            let d = later - start;
            assert!(d >= Duration::from_nanos(1_999_999_998) && d < Duration::from_secs(3), "{d:?}");
        }
    }
}
