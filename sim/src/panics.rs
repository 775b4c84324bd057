//! Panic capture: inside an execution, panics are recorded, not printed.
//!
//! A process-wide hook is installed once. On a thread that runs an
//! execution it stores the panic's location for the report and prints
//! nothing (a failing execution is reported once, by the explorer); on any
//! other thread it defers to the hook that was there before.

use std::any::Any;
use std::cell::RefCell;
use std::panic;
use std::sync::{Mutex, Once, PoisonError};

use crate::outcome::Outcome;

/// Panic messages that mean the test used something an exploration cannot
/// run, not that the program has a bug: each the start of a message and
/// what to tell the user. Registered by the crates above the engine
/// ([`crate::rt::misuse_on_panic`]); the engine knows none of them.
static MISUSES: Mutex<Vec<(&'static str, &'static str)>> = Mutex::new(Vec::new());

thread_local! {
    /// Message and location of the latest panic in an actor on this thread.
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
    /// Whether an actor on this thread panicked and has not been caught
    /// by the engine yet ([`caught`]).
    static IN_PANIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Whether the note before an abort was written for the running
    /// actor's panic (std's own "panic in a destructor during cleanup"
    /// follows the destructor's panic and needs no second one).
    static NOTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Registers a panic message's start that makes a panic a misuse.
pub(crate) fn misuse_on_panic(starts: &'static str, detail: &'static str) {
    let mut misuses = MISUSES.lock().unwrap_or_else(PoisonError::into_inner);
    if !misuses.iter().any(|(s, _)| *s == starts) {
        misuses.push((starts, detail));
    }
}

/// The verdict on `actor`'s panic: a misuse when its message starts as a
/// registered one, naming what panicked where; otherwise the panic.
pub(crate) fn verdict(actor: String, message: String, location: String) -> Outcome {
    let misuses = MISUSES.lock().unwrap_or_else(PoisonError::into_inner);
    match misuses.iter().find(|(starts, _)| message.starts_with(starts)) {
        Some((_, detail)) => Outcome::Misuse { actor, detail: format!("{detail} (a panic at {location}: {message})") },
        None => Outcome::Panic { actor, message, location },
    }
}

/// The engine caught the running actor's panic (or it returned): a later
/// panic is not one during unwinding.
pub(crate) fn caught() {
    IN_PANIC.with(|p| p.set(false));
    NOTED.with(|n| n.set(false));
}

/// Given the first panic's message and location (if the actor unwinds
/// from one) and the new panic's, the note to write before an abort.
pub(crate) type BeforeAbort = fn(first: Option<(&str, &str)>, second: (&str, &str)) -> Option<String>;

/// What the hook needs from the engine: whether the panicking thread runs
/// an execution, and what to say about it when a panic starts while the
/// running actor unwinds (the first panic's message and location, if the
/// actor unwinds from a panic rather than from teardown, and the new
/// panic's): `None` when it does not unwind.
#[derive(Clone, Copy)]
pub(crate) struct Engine {
    pub(crate) active: fn() -> bool,
    pub(crate) before_abort: BeforeAbort,
}

/// Installs the capturing hook (once per process).
///
/// A panic that starts while its thread is already unwinding (a
/// destructor that panics during unwinding) makes std abort the process
/// as soon as it leaves the destructor, with one line and nothing of what
/// samaritan knows. So the hook first writes, straight to standard error
/// (past the test harness's capture, which an abort would lose), both
/// panics and what the engine says about the execution.
pub(crate) fn install_hook(engine: Engine) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if (engine.active)() {
                let location = info.location().map_or_else(|| "<unknown>".to_string(), crate::trace::location_string);
                let message = message_of(info.payload());
                let first = match IN_PANIC.with(|p| p.replace(true)) {
                    true => LAST.with(|slot| slot.borrow().clone()),
                    false => None,
                };
                let first = first.as_ref().map(|(m, l)| (m.as_str(), l.as_str()));
                if !NOTED.with(|n| n.get()) {
                    if let Some(note) = (engine.before_abort)(first, (&message, &location)) {
                        use std::io::Write as _;
                        let _ = std::io::stderr().write_all(note.as_bytes());
                        NOTED.with(|n| n.set(true));
                    }
                }
                LAST.with(|slot| *slot.borrow_mut() = Some((message, location)));
            } else {
                previous(info);
            }
        }));
    });
}

/// Returns the message of a panic payload.
pub(crate) fn message_of(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Returns the message and location of a panic caught in an actor.
pub(crate) fn describe(payload: &(dyn Any + Send)) -> (String, String) {
    let message = message_of(payload);
    let location = LAST.with(|slot| slot.borrow_mut().take()).map_or_else(|| "<unknown>".to_string(), |(_, l)| l);
    (message, location)
}

/// Returns the message and location of the panic this thread is unwinding
/// from, as the hook saw it start.
pub(crate) fn in_flight() -> (String, String) {
    LAST.with(|slot| slot.borrow().clone()).unwrap_or_else(|| ("<unknown>".to_string(), "<unknown>".to_string()))
}
