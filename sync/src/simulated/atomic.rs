//! Simulated atomics: a real atomic plus a scheduling point per access.
//!
//! Memory model: by default the C11 model of the engine
//! (`samaritan_sim`'s memory module, RC11): a load may read any store that
//! coherence and happens-before allow, which one being an explored choice,
//! and the `Ordering`s passed are honoured (SeqCst as RC11's SC rules say).
//! The real atomic holds the newest value in modification order, which is
//! what `get_mut`, `into_inner` and `as_ptr` see. With
//! `Builder::memory_model(MemoryModel::Sc)` every access is sequentially
//! consistent whatever `Ordering` is passed, as before the model existed.
//! Orderings std refuses (a `Release` load, an `Acquire` store, a
//! `Release` or `AcqRel` failure ordering) panic with std's message in
//! both modes.
//!
//! `compare_exchange_weak` may fail spuriously even when the value matches:
//! that is an explored choice, off with `Builder::spurious_failures(false)`.
//! Two spurious failures in a row on one atomic are not explored, so the
//! usual retry loop stays finite under exhaustive search.

use std::panic::Location;
use std::sync::atomic::Ordering;

use samaritan_sim::rt;
use samaritan_sim::{ObjectId, Op};

/// The engine side of an atomic, which holds nothing but its value (std's
/// layout): its object is the running execution's object at its address
/// (`rt::object_at`), and whether its last weak compare-exchange failed
/// spuriously is that object's flag. A value dropped inside an execution
/// tells the engine (`rt::forget_at`), so that another atomic made at the
/// same address is another object.
struct Site {
    address: usize,
}

impl Site {
    /// The site of the atomic at `atomic`.
    #[inline]
    fn of<A>(atomic: &A) -> Site {
        Site { address: atomic as *const A as usize }
    }

    /// Announces an access to an atomic of `P` whose value is now
    /// `current`, if inside an execution, as the operation `op` says for
    /// its object; returns the object when the access must then go
    /// through the memory model. On the atomic's first
    /// access in an execution, an atomic in a `static` is kept from
    /// carrying this execution's value into the next: `restore` puts
    /// `current` back once the execution has ended.
    #[inline]
    #[track_caller]
    fn access<P: Bits>(
        &self,
        op: impl FnOnce(ObjectId) -> Op,
        seq_cst: bool,
        current: impl FnOnce() -> u64,
        restore: fn(usize, u64),
    ) -> Option<ObjectId> {
        if !rt::active() {
            return None;
        }
        let (object, fresh) = rt::object_at(self.address, "Atomic");
        if fresh {
            rt::show_values(object, P::show);
            let (address, initial) = (self.address, current());
            rt::keep_static(address, object, || Ok(Box::new(move || restore(address, initial))));
        }
        rt::atomic_step(op(object), object, seq_cst, Location::caller());
        rt::weak_memory().then_some(object)
    }

    /// Decides whether a weak compare-exchange whose comparison `matches`
    /// fails spuriously (an explored choice), at most once in a row, so
    /// that the usual retry loop terminates under exhaustive search while
    /// the failure is still seen; call after [`Site::access`].
    #[track_caller]
    fn fails_spuriously(&self, matches: bool) -> bool {
        if !rt::active() {
            return false;
        }
        let (object, _) = rt::object_at(self.address, "Atomic");
        let fails = matches && rt::spurious_failures() && !rt::flag(object) && rt::choose_fault(Location::caller());
        rt::set_flag(object, fails);
        fails
    }

    /// Says that the atomic is dropped.
    #[inline]
    fn dropped(&self) {
        if rt::active() {
            rt::forget_at(self.address);
        }
    }
}

/// Panics as std does for a load ordering it refuses.
#[track_caller]
fn check_load(order: Ordering) {
    match order {
        Ordering::Release => panic!("there is no such thing as a release load"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release load"),
        _ => {}
    }
}

/// Panics as std does for a store ordering it refuses.
#[track_caller]
fn check_store(order: Ordering) {
    match order {
        Ordering::Acquire => panic!("there is no such thing as an acquire store"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release store"),
        _ => {}
    }
}

/// Panics as std does for a compare-exchange failure ordering it refuses.
#[track_caller]
fn check_failure(failure: Ordering) {
    match failure {
        Ordering::Release => panic!("there is no such thing as a release failure ordering"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release failure ordering"),
        _ => {}
    }
}

/// The load half of an RMW's ordering (for `fetch_update`'s failure).
fn load_part(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// Same as [`std::sync::atomic::fence`]; a scheduling point under `sim`.
#[track_caller]
pub fn fence(order: Ordering) {
    if rt::active() {
        if rt::weak_memory() {
            let object = if order == Ordering::SeqCst { rt::sc_fence_object() } else { None };
            rt::step(Op::Fence, object, Location::caller());
            rt::atomic_fence(order);
        } else {
            rt::step(Op::Fence, None, Location::caller());
        }
    }
    std::sync::atomic::fence(order);
}

/// Same as [`std::sync::atomic::compiler_fence`]; not a scheduling point.
pub fn compiler_fence(order: Ordering) {
    std::sync::atomic::compiler_fence(order);
}

/// A value an atomic holds, as the memory model's 64 bits.
trait Bits: Copy {
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    /// The value as a trace shows what a load read: no whitespace, and
    /// `None` when it would differ from run to run.
    fn show(bits: u64) -> Option<String>;
}

macro_rules! bits {
    ($($prim:ty),*) => {
        $(
            impl Bits for $prim {
                fn to_bits(self) -> u64 {
                    self as u64
                }
                fn from_bits(bits: u64) -> $prim {
                    bits as $prim
                }
                fn show(bits: u64) -> Option<String> {
                    Some(<$prim as Bits>::from_bits(bits).to_string())
                }
            }
        )*
    };
}

bits!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Bits for bool {
    fn to_bits(self) -> u64 {
        self as u64
    }
    fn from_bits(bits: u64) -> bool {
        bits != 0
    }
    fn show(bits: u64) -> Option<String> {
        Some(<bool as Bits>::from_bits(bits).to_string())
    }
}

// Pointers travel through the model as their address (exposing their
// provenance, as an integer cast does: `with_exposed_provenance_mut` needs
// Rust 1.84, newer than the crate's MSRV).
impl<T> Bits for *mut T {
    fn to_bits(self) -> u64 {
        self as usize as u64
    }
    fn from_bits(bits: u64) -> *mut T {
        bits as usize as *mut T
    }
    /// Null, or nothing: an address differs from run to run.
    fn show(bits: u64) -> Option<String> {
        (bits == 0).then(|| "null".to_string())
    }
}

/// The accesses every atomic has, over its std atomic `$std` of `$prim`.
macro_rules! accesses {
    ($std:ty, $prim:ty $(, $generic:ident)?) => {
        /// Announces an access (see [`Site::access`]).
        #[inline]
        #[track_caller]
        fn access(&self, op: Op, orders: &[Ordering]) -> Option<ObjectId> {
            self.announce(|_| op, orders.contains(&Ordering::SeqCst))
        }

        /// Announces a load with `order`: a weak one when the memory model
        /// lets it read any readable store ([`rt::load_op`]).
        #[inline]
        #[track_caller]
        fn load_access(&self, order: Ordering) -> Option<ObjectId> {
            self.announce(|object| rt::load_op(object, order), order == Ordering::SeqCst)
        }

        /// Announces the access `op` says for the atomic's object.
        #[inline]
        #[track_caller]
        fn announce(&self, op: impl FnOnce(ObjectId) -> Op, seq_cst: bool) -> Option<ObjectId> {
            let restore = |address: usize, bits: u64| {
                // SAFETY: `address` is an atomic of this type in the
                // program's statics (only those are put back), which lives
                // as long as the program.
                let atomic = unsafe { &*(address as *const Self) };
                atomic.inner.store(Bits::from_bits(bits), Ordering::SeqCst);
            };
            Site::of(self).access::<$prim>(op, seq_cst, || self.inner.load(Ordering::SeqCst).to_bits(), restore)
        }

        /// Loads the value.
        #[track_caller]
        pub fn load(&self, order: Ordering) -> $prim {
            check_load(order);
            // The value is read after the step: another actor may store
            // before this one is scheduled.
            let object = self.load_access(order);
            let current = self.inner.load(Ordering::SeqCst);
            match object {
                Some(o) => Bits::from_bits(rt::atomic_load(o, current.to_bits(), order, Location::caller())),
                None => current,
            }
        }

        /// Stores a value.
        #[track_caller]
        pub fn store(&self, value: $prim, order: Ordering) {
            check_store(order);
            match self.access(Op::Store, &[order]) {
                Some(o) => {
                    let current = self.inner.load(Ordering::SeqCst).to_bits();
                    let now = rt::atomic_store(o, current, value.to_bits(), order, Location::caller());
                    self.inner.store(Bits::from_bits(now), Ordering::SeqCst);
                }
                None => self.inner.store(value, Ordering::SeqCst),
            }
        }

        /// Under the memory model, a read-modify-write of `op` that writes
        /// `f(read)`, or fails reading when `f` returns `None`; `stale`
        /// lets a failure read an older store (a compare-exchange's).
        #[track_caller]
        fn modify(
            &self,
            object: ObjectId,
            success: Ordering,
            failure: Ordering,
            stale: Option<&dyn Fn(u64) -> bool>,
            f: &mut dyn FnMut($prim) -> Option<$prim>,
        ) -> Result<$prim, $prim> {
            let current = self.inner.load(Ordering::SeqCst).to_bits();
            let mut g = |bits: u64| f(Bits::from_bits(bits)).map(Bits::to_bits);
            let (result, now) = rt::atomic_rmw(object, current, success, failure, Location::caller(), stale, &mut g);
            self.inner.store(Bits::from_bits(now), Ordering::SeqCst);
            result.map(Bits::from_bits).map_err(Bits::from_bits)
        }

        /// Stores a value, returning the previous one.
        #[track_caller]
        pub fn swap(&self, value: $prim, order: Ordering) -> $prim {
            match self.access(Op::Rmw, &[order]) {
                Some(o) => match self.modify(o, order, Ordering::Relaxed, None, &mut |_| Some(value)) {
                    Ok(v) | Err(v) => v,
                },
                None => self.inner.swap(value, Ordering::SeqCst),
            }
        }

        /// Stores `new` if the value is `current`.
        #[track_caller]
        pub fn compare_exchange(
            &self,
            current: $prim,
            new: $prim,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$prim, $prim> {
            check_failure(failure);
            match self.access(Op::CompareExchange, &[success, failure]) {
                Some(o) => {
                    let stale = |bits: u64| <$prim as Bits>::from_bits(bits) != current;
                    self.modify(o, success, failure, Some(&stale), &mut |v| (v == current).then_some(new))
                }
                None => self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst),
            }
        }

        /// Like `compare_exchange`, but may fail spuriously (an explored
        /// choice under `sim`).
        #[track_caller]
        pub fn compare_exchange_weak(
            &self,
            current: $prim,
            new: $prim,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$prim, $prim> {
            check_failure(failure);
            match self.access(Op::CompareExchange, &[success, failure]) {
                Some(o) => {
                    let stale = |bits: u64| <$prim as Bits>::from_bits(bits) != current;
                    let mut f = |v: $prim| {
                        let matches = v == current;
                        (!Site::of(self).fails_spuriously(matches) && matches).then_some(new)
                    };
                    self.modify(o, success, failure, Some(&stale), &mut f)
                }
                None => {
                    let seen = self.inner.load(Ordering::SeqCst);
                    if Site::of(self).fails_spuriously(seen == current) {
                        return Err(seen);
                    }
                    self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst)
                }
            }
        }

        /// Fetches the value and applies `f` to it until `f` returns
        /// `None` or the update succeeds; one step (under the memory model
        /// it reads the newest value, as its successful attempt would).
        #[track_caller]
        pub fn fetch_update<F>(&self, set: Ordering, fetch: Ordering, mut f: F) -> Result<$prim, $prim>
        where
            F: FnMut($prim) -> Option<$prim>,
        {
            check_failure(fetch);
            match self.access(Op::Rmw, &[set, fetch]) {
                Some(o) => self.modify(o, set, load_part(fetch), None, &mut f),
                None => self.inner.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| f(v)),
            }
        }
    };
}

macro_rules! common {
    ($name:ident, $std:ty, $prim:ty) => {
        /// Same API as the std atomic of the same name, with its size and
        /// alignment; scheduled under `sim`.
        #[derive(Default)]
        #[repr(transparent)]
        pub struct $name {
            inner: $std,
        }

        impl Drop for $name {
            fn drop(&mut self) {
                Site::of(self).dropped();
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl From<$prim> for $name {
            fn from(value: $prim) -> $name {
                $name::new(value)
            }
        }

        impl $name {
            /// Creates a new atomic.
            pub const fn new(value: $prim) -> $name {
                $name { inner: <$std>::new(value) }
            }

            /// Returns a mutable reference to the value (no other access can race).
            pub fn get_mut(&mut self) -> &mut $prim {
                self.inner.get_mut()
            }

            /// Consumes the atomic and returns the value.
            pub fn into_inner(mut self) -> $prim {
                *self.inner.get_mut()
            }

            /// Returns a pointer to the underlying value.
            pub const fn as_ptr(&self) -> *mut $prim {
                self.inner.as_ptr()
            }

            accesses!($std, $prim);
        }
    };
}

macro_rules! rmw {
    ($name:ident, $std:ty, $prim:ty, $($method:ident),*) => {
        impl $name {
            $(
                /// Read-modify-write, returning the previous value.
                #[track_caller]
                pub fn $method(&self, value: $prim, order: Ordering) -> $prim {
                    match self.access(Op::Rmw, &[order]) {
                        Some(o) => {
                            // std's own arithmetic, on a scratch atomic.
                            let mut apply = |v: $prim| {
                                let scratch = <$std>::new(v);
                                scratch.$method(value, Ordering::Relaxed);
                                Some(scratch.into_inner())
                            };
                            match self.modify(o, order, Ordering::Relaxed, None, &mut apply) {
                                Ok(v) | Err(v) => v,
                            }
                        }
                        None => self.inner.$method(value, Ordering::SeqCst),
                    }
                }
            )*
        }
    };
}

macro_rules! int {
    ($name:ident, $std:ty, $prim:ty) => {
        common!($name, $std, $prim);
        rmw!(
            $name, $std, $prim, fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min
        );
    };
}

int!(AtomicI8, std::sync::atomic::AtomicI8, i8);
int!(AtomicI16, std::sync::atomic::AtomicI16, i16);
int!(AtomicI32, std::sync::atomic::AtomicI32, i32);
int!(AtomicI64, std::sync::atomic::AtomicI64, i64);
int!(AtomicIsize, std::sync::atomic::AtomicIsize, isize);
int!(AtomicU8, std::sync::atomic::AtomicU8, u8);
int!(AtomicU16, std::sync::atomic::AtomicU16, u16);
int!(AtomicU32, std::sync::atomic::AtomicU32, u32);
int!(AtomicU64, std::sync::atomic::AtomicU64, u64);
int!(AtomicUsize, std::sync::atomic::AtomicUsize, usize);

common!(AtomicBool, std::sync::atomic::AtomicBool, bool);
rmw!(AtomicBool, std::sync::atomic::AtomicBool, bool, fetch_and, fetch_nand, fetch_or, fetch_xor);

impl AtomicBool {
    /// Logical "not" with the current value, returning the previous one.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

/// Same API as [`std::sync::atomic::AtomicPtr`], with its size and
/// alignment; scheduled under `sim`.
#[repr(transparent)]
pub struct AtomicPtr<T> {
    inner: std::sync::atomic::AtomicPtr<T>,
}

impl<T> Drop for AtomicPtr<T> {
    fn drop(&mut self) {
        Site::of(self).dropped();
    }
}

impl<T> Default for AtomicPtr<T> {
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> std::fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer.
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr { inner: std::sync::atomic::AtomicPtr::new(p) }
    }

    /// Returns a mutable reference to the pointer.
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.inner.get_mut()
    }

    /// Consumes the atomic and returns the pointer.
    pub fn into_inner(mut self) -> *mut T {
        *self.inner.get_mut()
    }

    accesses!(std::sync::atomic::AtomicPtr<T>, *mut T);
}
