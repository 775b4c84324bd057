//! Putting a static lock's data back as the program began with it.
//!
//! A `static Mutex<Vec<u32>>` that one execution pushes to would hand the
//! next execution a vector a fresh process never has. Data can be put back
//! only from bytes that may be duplicated: the bytes a `static` holds
//! before anything ever locked it are its initializer's, a constant
//! expression's value (const evaluation allocates no heap memory), and may
//! be copied as a constant is at each use. So a lock in a static keeps a
//! snapshot of its data taken when it is first used inside an execution,
//! if nothing locked it before; and each execution that claimed the
//! static (`rt::keep_static`) drops what the data became and writes the
//! snapshot back once it has ended.
//!
//! A static locked outside any execution before its first use inside one
//! has no snapshot (its bytes may own heap memory by then): it keeps its
//! data from one execution to the next, as before.
//!
//! Invariants:
//! - `state` is null until the first use, then either [`TAINTED`] (used
//!   outside executions first: never put back) or a leaked snapshot of
//!   the data's bytes from before any use, which never changes again.
//! - A snapshot is only taken, and data only written back, with the real
//!   lock held exclusively ([`Lend`]).

use std::mem::{size_of, size_of_val, MaybeUninit};
use std::ops::DerefMut;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use samaritan_sim::rt;
use samaritan_sim::ObjectId;

use super::guard::Poison;

/// The `state` of a lock first used outside any execution.
const TAINTED: *mut MaybeUninit<u8> = std::ptr::NonNull::dangling().as_ptr();

/// A pointer to a lock, erased to its words (a pointer to a lock of an
/// unsized type has two), so that what holds it borrows nothing.
pub(crate) type Raw = [usize; 2];

/// Erases a pointer to `lock`.
pub(crate) fn erase<L: ?Sized>(lock: &L) -> Raw {
    let ptr: *const L = lock;
    let mut raw = [0usize; 2];
    // SAFETY: a pointer is one or two words (slices, `str` and trait
    // objects add one), and `raw` has room for two.
    unsafe {
        ptr::copy_nonoverlapping(
            (&ptr as *const *const L).cast::<u8>(),
            raw.as_mut_ptr().cast::<u8>(),
            size_of::<*const L>(),
        )
    };
    raw
}

/// Gets back the pointer [`erase`] erased.
///
/// # Safety
///
/// `raw` must come from `erase::<L>`.
pub(crate) unsafe fn unerase<L: ?Sized>(raw: Raw) -> *const L {
    // SAFETY: `raw` holds the bytes of a `*const L` (the caller's
    // contract), `size_of::<*const L>()` of them.
    unsafe { ptr::read_unaligned(raw.as_ptr().cast::<*const L>()) }
}

/// What to do with the data a lock lends.
pub(crate) enum Action {
    /// Copy its bytes.
    Snapshot,
    /// Drop it and write these bytes (a snapshot of the same size) back.
    Restore(*const MaybeUninit<u8>),
}

/// How a lock lends its data exclusively: takes its real lock (without
/// waiting; `None` when held elsewhere) and does `action` to the data
/// through [`act`]. The lock is the one `raw` points at.
pub(crate) type Lend = unsafe fn(raw: Raw, action: Action) -> Option<Snapshot>;

/// A snapshot's bytes (leaked when kept) and their number.
pub(crate) type Snapshot = (*mut MaybeUninit<u8>, usize);

/// Does `action` to `data`, which the caller holds exclusively; returns
/// the snapshot taken, or one with no bytes after a restore.
///
/// # Safety
///
/// For [`Action::Restore`], the bytes must be a snapshot of a `T` of the
/// same size taken before anything used it (module docs).
pub(crate) unsafe fn act<T: ?Sized>(data: &mut T, action: Action) -> Snapshot {
    let len = size_of_val(data);
    let at = (data as *mut T).cast::<MaybeUninit<u8>>();
    match action {
        Action::Snapshot => {
            let bytes: Box<[MaybeUninit<u8>]> = (0..len).map(|_| MaybeUninit::uninit()).collect();
            let bytes = Box::into_raw(bytes).cast::<MaybeUninit<u8>>();
            // SAFETY: `at` points at `len` bytes of `data`, held
            // exclusively; `bytes` has room for `len`. Copied as
            // `MaybeUninit`, padding included.
            unsafe { ptr::copy_nonoverlapping(at, bytes, len) };
            (bytes, len)
        }
        Action::Restore(bytes) => {
            // SAFETY: `data` is initialized and held exclusively: drop it
            // in place, then write a duplicate of the initializer's value
            // over it (the caller's contract), which makes it initialized
            // again.
            unsafe {
                ptr::drop_in_place(data as *mut T);
                ptr::copy_nonoverlapping(bytes, at, len);
            }
            (ptr::null_mut(), 0)
        }
    }
}

/// Does `action` to the data `guard` lends, if the real lock could be
/// taken (`None`: held elsewhere); put-back data is no longer poisoned.
///
/// # Safety
///
/// As [`act`].
pub(crate) unsafe fn lent<T: ?Sized>(
    guard: Option<impl DerefMut<Target = T>>,
    poison: &Poison,
    action: Action,
) -> Option<Snapshot> {
    let mut guard = guard?;
    // SAFETY: the caller's contract.
    let done = unsafe { act(&mut *guard, action) };
    drop(guard);
    poison.clear();
    Some(done)
}

/// Whether a static lock's data can be put back (see the module docs).
#[derive(Debug)]
pub(crate) struct Pristine {
    state: AtomicPtr<MaybeUninit<u8>>,
}

impl Pristine {
    pub(crate) const fn new() -> Pristine {
        Pristine { state: AtomicPtr::new(ptr::null_mut()) }
    }

    /// Notes a use outside any execution: from now on, unless a snapshot
    /// was taken before, the data is never put back.
    #[inline]
    pub(crate) fn used_outside(&self) {
        if self.state.load(Ordering::Relaxed).is_null() {
            let _ = self.state.compare_exchange(ptr::null_mut(), TAINTED, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// On the registration of the lock `raw` points at as `object` in an
    /// execution: if the lock is a static, takes the snapshot if none was
    /// taken yet and the data is still the initializer's, and has the
    /// execution write it back once it ended.
    ///
    /// # Safety
    ///
    /// `lend` must be the lending function of the lock `raw` points at,
    /// and this `Pristine` that lock's.
    pub(crate) unsafe fn keep(&self, raw: Raw, object: ObjectId, lend: Lend) {
        rt::keep_static(raw[0], object, || {
            let mut snapshot = self.state.load(Ordering::Acquire);
            if snapshot.is_null() {
                // SAFETY: the caller's contract.
                snapshot = match unsafe { lend(raw, Action::Snapshot) } {
                    Some((bytes, _)) => {
                        match self.state.compare_exchange(ptr::null_mut(), bytes, Ordering::AcqRel, Ordering::Acquire) {
                            Ok(_) => bytes,
                            // Another exploration took it at the same
                            // time: the same bytes (nothing locked it
                            // meanwhile).
                            Err(theirs) => theirs,
                        }
                    }
                    None => {
                        // Held elsewhere, outside the model: not pristine.
                        self.used_outside();
                        self.state.load(Ordering::Acquire)
                    }
                };
            }
            if snapshot == TAINTED {
                return Err("it was locked outside any exploration first, so samaritan has no copy of its data as the program began");
            }
            Ok(put_back(raw, snapshot as usize, lend))
        });
    }
}

/// What writes the snapshot at `snapshot` back into the data of the lock
/// `raw` points at (a function of its own, not generic, so that what it
/// returns borrows nothing).
fn put_back(raw: Raw, snapshot: usize, lend: Lend) -> Box<dyn FnOnce() + Send> {
    Box::new(move || {
        // SAFETY: `keep`'s caller vouched for `lend` and `raw`, the lock
        // is a static (it lives as long as the program), and the snapshot
        // is its data's, taken before any use.
        unsafe { lend(raw, Action::Restore(snapshot as *const MaybeUninit<u8>)) };
    })
}
