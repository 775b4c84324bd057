//! The verbs for what a primitive keeps beyond a step: objects found by
//! address, a bit of state on an object, how to release a lock whose
//! holder is abandoned, values that live for one execution, and statics
//! put back after each execution. Re-exported by [`crate::rt`], where
//! primitives find them.
//!
//! Like every verb of `rt`, these are called from inside an execution;
//! outside one they do nothing (or say so).

use std::any::Any;

use crate::op::ObjectId;
use crate::run::with_exec;

/// Returns the object at `address` in the running execution, registering
/// it under `kind` on first use there; the second value is `true` when it
/// was registered just now. For a primitive with no room for an
/// [`ObjectSlot`](crate::rt::ObjectSlot) (an atomic keeps std's layout):
/// the execution keeps the object of each address it met. A value moved after it was used is a
/// new object at its new address (its history starts from the value it
/// holds); a value dropped must say so ([`forget_at`]), or another
/// created at the same address in the same execution would continue it.
///
/// # Panics
///
/// Outside an execution.
#[inline]
pub fn object_at(address: usize, kind: &'static str) -> (ObjectId, bool) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(&id) = e.addresses.get(&address) {
            return (id, false);
        }
        let id = ObjectId(e.objects.len() as u32);
        e.objects.push(crate::execution::ObjectInfo::new(kind));
        e.addresses.insert(address, id);
        (id, true)
    })
    .expect("object_at called outside an execution")
}

/// Forgets the object at `address` ([`object_at`]): the value there was
/// dropped, so a value made at the same address later is another object.
/// Does nothing outside an execution.
pub fn forget_at(address: usize) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if e.addresses.remove(&address).is_some() && !e.restores.is_empty() {
            // A static's value dropped in place (a slot of a static pool):
            // nothing is left there to put back.
            let generation = e.generation;
            e.restores.retain(|(at, _)| *at != address);
            crate::statics::release(address, generation);
        }
    });
}

/// Says how to release `object` (a lock) for a holder that is abandoned
/// when its execution ends early: the engine does not unwind such a
/// thread, so the guard it holds is never dropped, and once every thread
/// has stopped the engine calls `release(data)` once for each such holder
/// ([`acquired`](crate::rt::acquired) and not
/// [`released`](crate::rt::released)), with nothing borrowed, before
/// the threads' stacks are reused. Call it when the object is registered.
///
/// `release` must make the lock free for one holder (a real lock's
/// forced unlock) and only touch the object `data` names, which must be
/// alive while any thread holds it.
pub fn on_abandon(object: ObjectId, data: [usize; 2], release: unsafe fn([usize; 2])) {
    with_exec(|cell| {
        if let Some(info) = cell.borrow_mut().objects.get_mut(object.index()) {
            info.abandon = Some((data, release));
        }
    });
}

/// Returns the bit of state a primitive keeps on `object` in the engine
/// (false when the object was registered); false outside an execution.
pub fn flag(object: ObjectId) -> bool {
    with_exec(|cell| cell.borrow().objects.get(object.index()).is_some_and(|o| o.flag)).unwrap_or(false)
}

/// Sets the bit of state a primitive keeps on `object` ([`flag`]).
pub fn set_flag(object: ObjectId, value: bool) {
    with_exec(|cell| {
        if let Some(info) = cell.borrow_mut().objects.get_mut(object.index()) {
            info.flag = value;
        }
    });
}

/// Returns the value the running execution keeps under `key` (the
/// address of a `static` that stands for it), made by `make` on the first
/// call in the execution; `None` outside an execution. The values live
/// until the main thread's body returns and are dropped then, in the main
/// thread (or, in an execution that ends early, once it has ended): as
/// loom keeps its `lazy_static!` values, one per execution. A value made
/// after that lives to the execution's end.
///
/// The pointer is valid until the value is dropped; `make` runs with the
/// engine free, and may take steps.
pub fn execution_value(key: usize, make: impl FnOnce() -> Box<dyn Any>) -> Option<*const dyn Any> {
    let found = with_exec(|cell| {
        let e = cell.borrow();
        e.values.iter().find(|(k, _)| *k == key).map(|(_, v)| &**v as *const dyn Any)
    })?;
    if found.is_some() {
        return found;
    }
    let value = make();
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        // `make` may have taken steps, and another actor made it then.
        if let Some((_, v)) = e.values.iter().find(|(k, _)| *k == key) {
            return &**v as *const dyn Any;
        }
        e.values.push((key, value));
        &*e.values.last().expect("just pushed").1 as *const dyn Any
    })
}

/// Returns whether `address` lies in the program's statics (Linux only:
/// elsewhere, always false). See [`keep_static`].
pub fn is_static(address: usize) -> bool {
    crate::statics::is_static(address)
}

/// Keeps a primitive in a `static` from carrying one execution's state
/// into the next: when `address` (the primitive's own) lies in the
/// program's statics, calls `save`, which saves the primitive's state and
/// returns what puts it back, and runs that once the execution has ended
/// (after teardown, outside the execution). Call it when the primitive's
/// `object` is registered in an execution, before the first access
/// changes anything. Returns whether the state will be put back.
///
/// `save` may refuse, saying why (a lock's data that was used outside any
/// exploration first cannot be copied); a static another exploration
/// running at the same time uses (a second worker, a test on another
/// thread) is shared for real, and `save` is not called. Either way a
/// nondeterminism report names the object and why. Statics are known on
/// Linux only; elsewhere nothing is saved.
pub fn keep_static(
    address: usize,
    object: ObjectId,
    save: impl FnOnce() -> Result<Box<dyn FnOnce() + Send>, &'static str>,
) -> bool {
    if !crate::statics::is_static(address) {
        return false;
    }
    let Some(generation) = with_exec(|cell| cell.borrow().generation) else { return false };
    let saved = if crate::statics::claim(address, generation) {
        // `save` may run the primitive's own code (a lock): the engine is
        // not borrowed meanwhile.
        let saved = save();
        if saved.is_err() {
            crate::statics::release(address, generation);
        }
        saved
    } else {
        Err("it is shared with another exploration running at the same time (a second worker, or a test on another thread)")
    };
    let kept = saved.is_ok();
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        match saved {
            Ok(restore) => e.restores.push((address, restore)),
            Err(why) => e.unrestored.push((object, why)),
        }
    });
    kept
}
