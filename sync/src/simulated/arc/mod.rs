//! Simulated `Arc` and `Weak`: std's reference counting, with every
//! operation that reads or changes a count a step on the allocation's
//! engine object, and leak tracking.
//!
//! The counts are real atomics updated with std's orderings, so the types
//! behave like std's outside an exploration (a `sim` build is also a
//! production build). Inside one:
//! - Clones and downgrades are [`Op::RefInc`] steps; drops of an `Arc` or
//!   a `Weak` and `into_inner` are [`Op::RefDec`], taken as [`Op::RefFree`]
//!   when they free the value ([`rt::step_as`]: which one does is known
//!   only when the step is taken); `try_unwrap` is [`Op::RefRead`], taken
//!   as `RefFree` when it gets the value; `strong_count`, `weak_count`,
//!   `get_mut` and `make_mut`'s check are `RefRead`; an upgrade is
//!   [`Op::RefUpgrade`]. Any drop may be the last, so each is a scheduling
//!   point, and which owner frees the value is explored.
//! - For partial-order reduction, increments and decrements that free
//!   nothing commute with each other ([`Access::Count`]): only the reads,
//!   upgrades and the freeing decrement conflict, so owners that clone and
//!   drop their references independently add steps but few executions.
//! - Happens-before is std's: a decrement releases, and the one that
//!   frees the value (the last drop, a `try_unwrap` or `into_inner` that
//!   got it) acquires, so the value's `Drop` happens after every other
//!   owner's accesses; an upgrade and a `get_mut` that found its reference
//!   unique acquire; a clone synchronizes nothing.
//! - An `Arc` made by `Arc::new` in an execution is registered with the
//!   engine ([`rt::allocated`]) until its value is freed: one still alive
//!   when every thread has finished fails the execution with a leak
//!   verdict naming where it was created.
//!
//! Invariants:
//! - `ptr` points to an `Inner` from [`Inner::allocate`] (a `Box`, or the
//!   same layout for slices), live while `weak` is non-zero; `value` is
//!   initialized while `strong` is non-zero.
//! - `weak` counts the `Weak`s plus one for all the `Arc`s together (std's
//!   scheme), and is `usize::MAX` only while `get_mut` checks uniqueness.
//! - Steps name the allocation's location (drop glue does not pass on its
//!   caller's, and a handle is one pointer, as std's).

mod traits;
mod weak;

use std::alloc::Layout;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::panic::Location;
use std::pin::Pin;
use std::ptr::{self, NonNull};
use std::sync::atomic::{fence, AtomicUsize, Ordering};

use samaritan_sim::rt::{self, Allocation, ObjectSlot};
#[cfg(doc)]
use samaritan_sim::Access;
use samaritan_sim::{ObjectId, Op};

pub use weak::Weak;

/// Counts past this abort, as std's do: a program that leaks this many
/// clones would otherwise overflow the count.
const MAX_REFCOUNT: usize = isize::MAX as usize;

/// Same API as [`std::sync::Arc`], except that an `Arc<dyn Trait>` cannot
/// be made by coercion (std's needs the unstable `CoerceUnsized`); counts
/// are scheduled and leaks reported under `sim` (see the module docs).
pub struct Arc<T: ?Sized> {
    ptr: NonNull<Inner<T>>,
    _owns: PhantomData<Inner<T>>,
}

/// The allocation: counts, engine link, then the value.
#[repr(C)]
struct Inner<T: ?Sized> {
    header: Header,
    value: T,
}

/// Everything of the allocation but the value.
struct Header {
    strong: AtomicUsize,
    weak: AtomicUsize,
    slot: ObjectSlot,
    /// Set when created inside an execution: its leak tracking.
    allocation: Option<Allocation>,
    /// Where the allocation was made; its steps are reported there.
    created: &'static Location<'static>,
}

// SAFETY: as std's `Arc`: sharing the `T` between threads needs `Sync`,
// dropping it on any of them `Send`.
unsafe impl<T: ?Sized + Send + Sync> Send for Arc<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for Arc<T> {}

impl Header {
    fn new(created: &'static Location<'static>) -> Header {
        Header {
            strong: AtomicUsize::new(1),
            weak: AtomicUsize::new(1),
            slot: ObjectSlot::new(),
            allocation: rt::allocated("Arc", created),
            created,
        }
    }

    /// Announces `op` on the allocation inside an execution; returns its
    /// object then.
    fn step(&self, op: Op) -> Option<ObjectId> {
        if !rt::active() {
            return None;
        }
        let (object, _) = self.slot.id("Arc");
        rt::step(op, Some(object), self.created);
        Some(object)
    }

    /// Announces `op`, an operation that takes the value out when its
    /// reference is the only strong one: the step is taken as
    /// [`Op::RefFree`] then (the count cannot change between the step and
    /// the caller's update of it: no other actor runs in between).
    fn step_freeing(&self, op: Op) {
        if !rt::active() {
            return;
        }
        let (object, _) = self.slot.id("Arc");
        let taken = || if self.strong.load(Ordering::Relaxed) == 1 { Op::RefFree } else { op };
        rt::step_as(op, Some(object), self.created, &taken);
    }

    /// The step just announced succeeded, and acquires (std's `Acquire`).
    fn acquired(&self, object: Option<ObjectId>) {
        if let Some(object) = object {
            rt::acquire(object);
        }
    }

    /// The strong count reached 0 in a [`Op::RefFree`] step: the value is
    /// freed by this actor, after every other owner's accesses (the step
    /// acquired them).
    fn freed(&self) {
        fence(Ordering::Acquire);
        if let Some(allocation) = self.allocation {
            rt::freed(allocation);
        }
    }

    /// Whether the caller's `Arc` is the only reference, `Weak`s included;
    /// locks the weak count meanwhile, as std does, so that no `Weak` is
    /// made from another `Arc` between the two reads.
    fn is_unique(&self) -> bool {
        if self.weak.compare_exchange(1, usize::MAX, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return false;
        }
        let unique = self.strong.load(Ordering::Acquire) == 1;
        self.weak.store(1, Ordering::Release);
        unique
    }
}

impl<T: ?Sized> Inner<T> {
    /// Gives up one weak reference; frees the memory with the last.
    ///
    /// # Safety
    ///
    /// `ptr` is live and the caller owns one weak reference (the `Arc`s'
    /// shared one once the value was dropped, or a `Weak`'s), which it
    /// does not use again.
    unsafe fn release_weak(ptr: NonNull<Inner<T>>) {
        // SAFETY: live while the caller's weak reference counts.
        let header = unsafe { &ptr.as_ref().header };
        if header.weak.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        fence(Ordering::Acquire);
        // SAFETY: the last reference: nothing else reads the allocation.
        // The layout is read off the (dropped) value's metadata, as std's
        // `Weak::drop` did before `Layout::for_value_raw`.
        unsafe {
            let layout = Layout::for_value(ptr.as_ref());
            std::alloc::dealloc(ptr.as_ptr().cast(), layout);
        }
    }
}

impl<T> Arc<T> {
    /// Constructs a new `Arc<T>`.
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        Arc::new_at(value, Location::caller())
    }

    fn new_at(value: T, created: &'static Location<'static>) -> Arc<T> {
        let inner = Box::new(Inner { header: Header::new(created), value });
        Arc::from_inner(NonNull::from(Box::leak(inner)))
    }

    /// Constructs a new `Pin<Arc<T>>`.
    #[track_caller]
    pub fn pin(value: T) -> Pin<Arc<T>> {
        // SAFETY: the value is never moved out of its allocation while it is
        // pinned: `try_unwrap` and `into_inner` need an unpinned `Arc`.
        unsafe { Pin::new_unchecked(Arc::new(value)) }
    }

    /// Returns the inner value, if the `Arc` has exactly one strong
    /// reference; otherwise gives the `Arc` back. A step that may free.
    pub fn try_unwrap(this: Arc<T>) -> Result<T, Arc<T>> {
        let header = this.header();
        header.step_freeing(Op::RefRead);
        if header.strong.compare_exchange(1, 0, Ordering::Relaxed, Ordering::Relaxed).is_err() {
            return Err(this);
        }
        header.freed();
        // SAFETY: the strong count went from 1 to 0 here: the value is
        // ours to move out, once, and the `Arc`s' weak reference too.
        unsafe { Ok(Arc::take(this)) }
    }

    /// Returns the inner value, if this is the last strong reference;
    /// drops the reference otherwise. A step that may free.
    pub fn into_inner(this: Arc<T>) -> Option<T> {
        let header = this.header();
        header.step_freeing(Op::RefDec);
        if header.strong.fetch_sub(1, Ordering::Release) != 1 {
            std::mem::forget(this);
            return None;
        }
        header.freed();
        // SAFETY: as in `try_unwrap`: this decrement reached 0.
        unsafe { Some(Arc::take(this)) }
    }

    /// Moves the value out and gives up the `Arc`s' weak reference.
    ///
    /// # Safety
    ///
    /// The strong count reached 0 by `this`'s own reference.
    unsafe fn take(this: Arc<T>) -> T {
        let this = ManuallyDrop::new(this);
        // SAFETY: initialized until now, and read once (caller's contract).
        let value = unsafe { ptr::read(&this.ptr.as_ref().value) };
        // SAFETY: the `Arc`s' weak reference is ours now.
        unsafe { Inner::release_weak(this.ptr) };
        value
    }

    /// Consumes the `Arc`, returning a pointer to the value.
    pub fn into_raw(this: Arc<T>) -> *const T {
        let ptr = Arc::as_ptr(&this);
        std::mem::forget(this);
        ptr
    }

    /// Constructs an `Arc` from a pointer [`Arc::into_raw`] returned.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::from_raw`]: `ptr` comes from `Arc::<T>::into_raw`
    /// and its strong reference is given back once.
    pub unsafe fn from_raw(ptr: *const T) -> Arc<T> {
        let offset = std::mem::offset_of!(Inner<T>, value);
        // SAFETY: `ptr` points to the `value` field of an `Inner<T>`, so
        // the allocation starts `offset` bytes before it (non-null).
        unsafe { Arc::from_inner(NonNull::new_unchecked(ptr.byte_sub(offset) as *mut Inner<T>)) }
    }

    /// Adds a strong reference to the `Arc` that `ptr` came from.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::increment_strong_count`].
    pub unsafe fn increment_strong_count(ptr: *const T) {
        // SAFETY: the caller's obligations; the borrowed `Arc` is not dropped.
        let arc = ManuallyDrop::new(unsafe { Arc::from_raw(ptr) });
        std::mem::forget(Arc::clone(&arc));
    }

    /// Gives up a strong reference to the `Arc` that `ptr` came from.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::decrement_strong_count`].
    pub unsafe fn decrement_strong_count(ptr: *const T) {
        // SAFETY: the caller's obligations.
        drop(unsafe { Arc::from_raw(ptr) });
    }
}

impl<T: ?Sized> Arc<T> {
    fn from_inner(ptr: NonNull<Inner<T>>) -> Arc<T> {
        Arc { ptr, _owns: PhantomData }
    }

    fn header(&self) -> &Header {
        // SAFETY: the allocation lives while `self` counts in it.
        unsafe { &self.ptr.as_ref().header }
    }

    /// Gets the number of strong pointers to this allocation. A step.
    pub fn strong_count(this: &Arc<T>) -> usize {
        this.header().step(Op::RefRead);
        this.header().strong.load(Ordering::Relaxed)
    }

    /// Gets the number of `Weak` pointers to this allocation. A step.
    pub fn weak_count(this: &Arc<T>) -> usize {
        this.header().step(Op::RefRead);
        match this.header().weak.load(Ordering::Relaxed) {
            // Locked by `get_mut` (outside an exploration): it was 1.
            usize::MAX => 0,
            n => n - 1,
        }
    }

    /// Returns a mutable reference to the value, if there are no other
    /// `Arc` or `Weak` pointers to it. A step.
    pub fn get_mut(this: &mut Arc<T>) -> Option<&mut T> {
        let header = this.header();
        let object = header.step(Op::RefRead);
        if !header.is_unique() {
            return None;
        }
        header.acquired(object);
        // SAFETY: the only reference, borrowed mutably: no other access.
        Some(unsafe { &mut (*this.ptr.as_ptr()).value })
    }

    /// Creates a new [`Weak`] pointer to this allocation. A step.
    pub fn downgrade(this: &Arc<T>) -> Weak<T> {
        let header = this.header();
        header.step(Op::RefInc);
        let mut current = header.weak.load(Ordering::Relaxed);
        loop {
            if current == usize::MAX {
                // `get_mut` checks uniqueness on another thread (outside
                // an exploration; inside, its step is atomic).
                std::hint::spin_loop();
                current = header.weak.load(Ordering::Relaxed);
                continue;
            }
            assert!(current <= MAX_REFCOUNT, "Arc weak count overflow");
            match header.weak.compare_exchange_weak(current, current + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return Weak::from_inner(this.ptr),
                Err(old) => current = old,
            }
        }
    }

    /// Returns whether the two `Arc`s point to the same allocation.
    pub fn ptr_eq(this: &Arc<T>, other: &Arc<T>) -> bool {
        ptr::addr_eq(this.ptr.as_ptr(), other.ptr.as_ptr())
    }

    /// Provides a raw pointer to the data.
    pub fn as_ptr(this: &Arc<T>) -> *const T {
        // SAFETY: a place projection in a live allocation; no reference.
        unsafe { &raw const (*this.ptr.as_ptr()).value }
    }
}

impl<T: Clone> Arc<T> {
    /// Makes a mutable reference into the given `Arc`, cloning the value
    /// into a new allocation when it is shared. A step.
    ///
    /// Unlike std's, a value with no other `Arc` but some `Weak`s is
    /// cloned too (std moves it out): the `Weak`s can no longer upgrade
    /// either way.
    #[track_caller]
    pub fn make_mut(this: &mut Arc<T>) -> &mut T {
        let header = this.header();
        let object = header.step(Op::RefRead);
        if header.is_unique() {
            header.acquired(object);
        } else {
            *this = Arc::new_at((**this).clone(), Location::caller());
        }
        // SAFETY: unique now: no other reference to the value.
        unsafe { &mut (*this.ptr.as_ptr()).value }
    }

    /// Returns the inner value if this is the only `Arc`, else a clone
    /// of it. A step.
    pub fn unwrap_or_clone(this: Arc<T>) -> T {
        Arc::try_unwrap(this).unwrap_or_else(|arc| (*arc).clone())
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    /// Makes a clone of the `Arc` pointer. A step.
    fn clone(&self) -> Arc<T> {
        self.header().step(Op::RefInc);
        let old = self.header().strong.fetch_add(1, Ordering::Relaxed);
        if old > MAX_REFCOUNT {
            std::process::abort();
        }
        Arc::from_inner(self.ptr)
    }
}

impl<T: ?Sized> Drop for Arc<T> {
    /// Drops the `Arc`, and the value with the last one. A step.
    fn drop(&mut self) {
        let header = self.header();
        header.step_freeing(Op::RefDec);
        if header.strong.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        header.freed();
        // SAFETY: the last strong reference: the value is dropped once,
        // here, and the `Arc`s' weak reference is ours.
        unsafe {
            ptr::drop_in_place(&raw mut (*self.ptr.as_ptr()).value);
            Inner::release_weak(self.ptr);
        }
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the value lives while `self` counts in it.
        unsafe { &self.ptr.as_ref().value }
    }
}
