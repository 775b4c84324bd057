//! The statics of the test itself, whatever their type: those declared
//! inside the test's body start every execution from their initial bytes;
//! the test crate's others are named when an execution changed them and
//! the search then meets nondeterminism.
//!
//! A test often counts in a `static` of a std type declared in its own
//! body (`static DROPPED: AtomicUsize`, bumped by a `Drop` it wants to
//! see run): each process that runs the test sees it start at zero, but
//! an exploration runs the body many times in one process, and from the
//! second execution on the counter would hold what the first left. Such a
//! static belongs to this test alone, so after each execution its bytes
//! are put back to those it had when the program started, as a fresh
//! process would see them. samaritan's own primitives in statics are put
//! back by state instead (`rt::keep_static`), and are left to that here.
//!
//! Invariants:
//! - Only a static declared inside the test's body ([`Config::body_path`]:
//!   the closures of the test's function, or a `#[samaritan::test]`'s
//!   body) is put back, and only if it held its initial bytes when the
//!   search began. One declared in the test's function outside its
//!   closures may gather what every execution saw, for the test to assert
//!   on after the search; one at module level may be shared with tests
//!   running on other threads, whose state must not move under them. Those
//!   are only named in a nondeterminism report.
//! - A static is put back by one search at a time: a second search of the
//!   same test running at once (a second worker) shares it for real.
//! - Putting a static back does not run its destructor: what it owned
//!   (a `OnceLock<String>`'s string, a `Mutex<Vec<_>>`'s buffer) is
//!   leaked, once per execution that changed it.
//! - Bytes are read and written one relaxed atomic byte at a time: a
//!   module's static that a test on another thread updates atomically at
//!   that moment (a std atomic counter) is read without a data race. One
//!   that thread writes non-atomically (a `static mut`) would race with
//!   these reads, as with any other reader; the symbol table cannot tell
//!   the two apart.
//!
//!
//! [`Config::body_path`]: crate::Config::body_path

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::symbols::{self, DataSymbol};

/// At most this many bytes of the test crate's other statics are kept to
/// name the ones an execution changed.
const WATCHED_BYTES: usize = 1 << 20;

/// A static and the bytes it is compared with.
struct Kept {
    symbol: &'static DataSymbol,
    bytes: Box<[u8]>,
}

/// The test's statics for one search (see the module's invariants).
#[derive(Default)]
pub(crate) struct TestStatics {
    /// Statics declared inside the test's body, with their initial bytes:
    /// put back after every execution.
    local: Vec<Kept>,
    /// The crate's other statics, with their bytes when the search began.
    watched: Vec<Kept>,
    /// Statics declared inside the test's body that are not put back, and
    /// why.
    left: Vec<(&'static DataSymbol, &'static str)>,
}

/// The addresses of the statics searches now put back.
fn claimed() -> &'static Mutex<HashSet<usize>> {
    static CLAIMED: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    CLAIMED.get_or_init(Mutex::default)
}

impl TestStatics {
    /// The statics of the test whose body is at `body_path`
    /// (`krate::module::test::{{closure}}`); none when it is unknown or the
    /// symbol table cannot be read.
    pub(crate) fn of(body_path: Option<&str>) -> TestStatics {
        let mut statics = TestStatics::default();
        let Some(path) = body_path else { return statics };
        let (Some(inside), Some(krate)) =
            (symbols::mangled_prefix(path), path.split("::").next().and_then(symbols::mangled_prefix))
        else {
            return statics;
        };
        let mut watched_bytes = 0;
        for symbol in symbols::data_symbols().iter().filter(|s| symbols::is_inside(&s.name, &krate)) {
            let now = read(symbol);
            if symbols::is_inside(&symbol.name, &inside) {
                match symbol.initial_bytes() {
                    Some(initial) if *initial == *now => {
                        if claimed().lock().unwrap_or_else(|p| p.into_inner()).insert(symbol.address) {
                            statics.local.push(Kept { symbol, bytes: initial.into() });
                        } else {
                            statics.left.push((symbol, "another search of it runs at the same time"));
                        }
                        continue;
                    }
                    Some(_) => statics.left.push((symbol, "it had changed before the search began")),
                    None => statics.left.push((symbol, "its initial bytes cannot be read")),
                }
            }
            if watched_bytes + symbol.size <= WATCHED_BYTES {
                watched_bytes += symbol.size;
                statics.watched.push(Kept { symbol, bytes: now });
            }
        }
        statics
    }

    /// Puts back every static declared inside the test's body that the
    /// execution changed, except those holding one of the `kept`
    /// addresses (samaritan primitives that put themselves back).
    pub(crate) fn reset(&self, kept: &[usize]) {
        for Kept { symbol, bytes } in &self.local {
            let range = symbol.address..symbol.address + symbol.size;
            if kept.iter().any(|a| range.contains(a)) {
                continue;
            }
            if *read(symbol) != **bytes {
                write(symbol, bytes);
            }
        }
    }

    /// Whether any static is put back after an execution.
    pub(crate) fn resets(&self) -> bool {
        !self.local.is_empty()
    }

    /// What a nondeterminism report adds about the test crate's statics
    /// that changed since the search began and are not put back: the
    /// likely cause. `None` when none did.
    pub(crate) fn changed_note(&self) -> Option<String> {
        // Those another search puts back belong to a test running beside.
        let others = claimed().lock().unwrap_or_else(|p| p.into_inner()).clone();
        let changed: Vec<String> = self
            .watched
            .iter()
            .filter(|k| !others.contains(&k.symbol.address) && *read(k.symbol) != *k.bytes)
            .map(|k| {
                let name = symbols::demangle(&k.symbol.name);
                match self.left.iter().find(|(s, _)| s.address == k.symbol.address) {
                    Some((_, why)) => format!("`{name}` (declared in the test's body, not put back: {why})"),
                    None => format!("`{name}`"),
                }
            })
            .collect();
        if changed.is_empty() {
            return None;
        }
        let what = if changed.len() == 1 { "`static`" } else { "statics" };
        Some(format!(
            "; the test's {what} {} changed during the search, and samaritan puts back only the statics \
             declared inside the test's body (its closures or `#[samaritan::test]` body)",
            changed.join(", ")
        ))
    }
}

impl Drop for TestStatics {
    fn drop(&mut self) {
        let mut claimed = claimed().lock().unwrap_or_else(|p| p.into_inner());
        for kept in &self.local {
            claimed.remove(&kept.symbol.address);
        }
    }
}

/// The bytes of `symbol` now.
fn read(symbol: &DataSymbol) -> Box<[u8]> {
    (0..symbol.size)
        .map(|i| {
            // SAFETY: the symbol table puts a writable static of `size`
            // bytes at `address`, mapped for the process's life; a byte of
            // it is read atomically (module invariant).
            unsafe { (*((symbol.address + i) as *const AtomicU8)).load(Ordering::Relaxed) }
        })
        .collect()
}

/// Writes `bytes` over `symbol`.
fn write(symbol: &DataSymbol, bytes: &[u8]) {
    for (i, &byte) in bytes.iter().enumerate() {
        // SAFETY: as in `read`; the static is writable, and only this
        // search puts it back (claimed).
        unsafe { (*((symbol.address + i) as *const AtomicU8)).store(byte, Ordering::Relaxed) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    static AT_MODULE_LEVEL: AtomicUsize = AtomicUsize::new(3);

    #[test]
    fn a_static_declared_in_the_test_goes_back_to_its_initial_bytes_and_one_at_module_level_is_named() {
        static COUNT: AtomicUsize = AtomicUsize::new(7);
        static mut ARRAY: [u32; 3] = [0; 3];
        let path = format!(
            "{}::a_static_declared_in_the_test_goes_back_to_its_initial_bytes_and_one_at_module_level_is_named",
            module_path!()
        );
        let statics = TestStatics::of(Some(&path));
        COUNT.fetch_add(5, Ordering::SeqCst);
        // SAFETY: no other code touches ARRAY.
        unsafe { (*std::ptr::addr_of_mut!(ARRAY))[1] = 9 };
        AT_MODULE_LEVEL.fetch_add(1, Ordering::SeqCst);
        if cfg!(target_os = "linux") {
            assert_eq!(statics.local.len(), 2);
            assert!(statics.resets());
            statics.reset(&[]);
            assert_eq!(COUNT.load(Ordering::SeqCst), 7);
            // SAFETY: as above.
            assert_eq!(unsafe { *std::ptr::addr_of!(ARRAY) }, [0; 3]);
            let note = statics.changed_note().unwrap();
            assert!(note.contains("`samaritan_sim::test_statics::tests::AT_MODULE_LEVEL`"), "{note}");
            assert!(!note.contains("COUNT`"), "{note}");
            // A second search of the same test at once shares them.
            let second = TestStatics::of(Some(&path));
            assert_eq!((second.local.len(), second.left.len()), (0, 2));
            drop(second);
            // A kept address (a primitive that puts itself back) is left alone.
            COUNT.fetch_add(1, Ordering::SeqCst);
            statics.reset(&[&COUNT as *const AtomicUsize as usize]);
            assert_eq!(COUNT.load(Ordering::SeqCst), 8);
            drop(statics);
            // Changed before the search began: not put back, named.
            let late = TestStatics::of(Some(&path));
            assert_eq!((late.local.len(), late.left.len()), (1, 1));
        } else {
            assert!(!statics.resets());
        }
        assert!(!TestStatics::of(Some("no_such_crate::f")).resets());
        assert!(!TestStatics::of(None).resets());
    }
}
