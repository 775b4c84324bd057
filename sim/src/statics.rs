//! The program's statics: which addresses hold them, and which static
//! primitives a running execution has claimed.
//!
//! A primitive in a `static` outlives every execution, so what one
//! execution leaves in it would be the next one's initial state, which a
//! fresh process never sees (a counter of ids, a registry). A primitive
//! that registers in an execution therefore asks whether its address lies
//! in the program's statics (`rt::keep_static`); if so, it saves its
//! state, and the execution puts it back once it has ended, so that every
//! execution starts from the state the exploration began with.
//!
//! Invariants:
//! - A static is claimed by at most one running execution at a time, and
//!   only the execution that claimed it saves and restores it. Another
//!   exploration running at the same time on another OS thread (a second
//!   worker, a test running in parallel) shares it for real, unrestored;
//!   its execution records that, for the nondeterminism report.
//! - A claim ends when the claiming execution restores the static, after
//!   the execution has ended.
//! - The ranges are read once per process, from the program headers of
//!   the objects loaded then (Linux); elsewhere no address is a static,
//!   and statics keep their state across executions as before.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// What puts statics back after an execution (`rt::keep_static`), with
/// the address each claim is on.
pub(crate) type Restores = Vec<(usize, Box<dyn FnOnce() + Send>)>;

/// Whether `address` lies in a writable segment of the program or of a
/// shared object loaded when this was first asked (where `static`s with
/// interior mutability live).
pub(crate) fn is_static(address: usize) -> bool {
    let ranges = ranges();
    // Sorted, disjoint: the last range starting at or before the address.
    let at = ranges.partition_point(|&(start, _)| start <= address);
    at > 0 && address < ranges[at - 1].1
}

/// What the loaded objects' program headers say, read once.
#[derive(Default)]
struct Loaded {
    /// The writable segments, sorted by start.
    ranges: Vec<(usize, usize)>,
    /// Where the main executable (the first object) was loaded: the
    /// difference between its symbols' addresses in memory and in the file.
    bias: usize,
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut loaded = read_loaded();
        loaded.ranges.sort_unstable();
        loaded
    })
}

/// The writable segments, sorted by start.
fn ranges() -> &'static [(usize, usize)] {
    &loaded().ranges
}

/// Where the main executable was loaded (0 for one not built as a
/// position-independent executable, and off Linux): what its symbol
/// table's addresses are off by in memory (`symbols`).
pub(crate) fn executable_bias() -> usize {
    loaded().bias
}

#[cfg(target_os = "linux")]
fn read_loaded() -> Loaded {
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: `dl_iterate_phdr` passes a valid record of one loaded
        // object, whose `dlpi_phnum` program headers start at `dlpi_phdr`,
        // and `data` is the `Loaded` and flag `read_loaded` handed it.
        unsafe {
            let info = &*info;
            let (loaded, first) = &mut *data.cast::<(Loaded, bool)>();
            // The main executable comes first.
            if std::mem::take(first) {
                loaded.bias = info.dlpi_addr as usize;
            }
            let ranges = &mut loaded.ranges;
            if info.dlpi_phdr.is_null() {
                return 0;
            }
            for header in std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) {
                if header.p_type == libc::PT_LOAD && header.p_flags & libc::PF_W != 0 && header.p_memsz > 0 {
                    let start = (info.dlpi_addr as usize).wrapping_add(header.p_vaddr as usize);
                    ranges.push((start, start.saturating_add(header.p_memsz as usize)));
                }
            }
        }
        0
    }
    let mut data = (Loaded::default(), true);
    // SAFETY: the callback only reads the records it is given and writes
    // to `data`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut data as *mut (Loaded, bool)).cast()) };
    data.0
}

#[cfg(not(target_os = "linux"))]
fn read_loaded() -> Loaded {
    Loaded::default()
}

/// Which execution (by generation) holds each claimed static.
fn claims() -> &'static Mutex<HashMap<usize, u64>> {
    static CLAIMS: OnceLock<Mutex<HashMap<usize, u64>>> = OnceLock::new();
    CLAIMS.get_or_init(Mutex::default)
}

/// Claims the static at `address` for the execution of `generation`;
/// `false` when another running execution holds it.
pub(crate) fn claim(address: usize, generation: u64) -> bool {
    let mut claims = claims().lock().unwrap_or_else(|p| p.into_inner());
    *claims.entry(address).or_insert(generation) == generation
}

/// Ends the claim of `generation` on the static at `address`.
pub(crate) fn release(address: usize, generation: u64) {
    let mut claims = claims().lock().unwrap_or_else(|p| p.into_inner());
    if claims.get(&address) == Some(&generation) {
        claims.remove(&address);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    static COUNTER: AtomicU32 = AtomicU32::new(0);
    static mut ZEROED: [u64; 4] = [0; 4];

    #[test]
    fn statics_are_static_and_the_heap_and_stack_are_not() {
        let on_heap = Box::new(0u64);
        let on_stack = 0u64;
        #[cfg(target_os = "linux")]
        {
            assert!(is_static(&COUNTER as *const AtomicU32 as usize));
            // `.bss`, past the file's bytes.
            assert!(is_static(std::ptr::addr_of!(ZEROED) as usize));
        }
        assert!(!is_static(&*on_heap as *const u64 as usize));
        assert!(!is_static(&on_stack as *const u64 as usize));
        assert!(!is_static(0));
        assert!(!is_static(usize::MAX));
    }

    #[test]
    fn a_static_is_claimed_by_one_execution_at_a_time() {
        let address = &COUNTER as *const AtomicU32 as usize + 1;
        assert!(claim(address, 7));
        assert!(claim(address, 7), "the holder's own claim again");
        assert!(!claim(address, 8));
        release(address, 8);
        assert!(!claim(address, 8), "only the holder releases");
        release(address, 7);
        assert!(claim(address, 8));
        release(address, 8);
    }
}
