//! Panic capture: inside an execution, panics are recorded, not printed.
//!
//! A process-wide hook is installed once. On a thread that runs an
//! execution it stores the panic's location for the report and prints
//! nothing (a failing execution is reported once, by the explorer); on any
//! other thread it defers to the hook that was there before.

use std::any::Any;
use std::cell::RefCell;
use std::panic;
use std::sync::Once;

thread_local! {
    /// Message and location of the latest panic in an actor on this thread.
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Installs the capturing hook (once per process); `active` says whether
/// the panicking thread runs an execution.
pub(crate) fn install_hook(active: fn() -> bool) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if active() {
                let location = info.location().map_or_else(|| "<unknown>".to_string(), crate::trace::location_string);
                let message = message_of(info.payload());
                LAST.with(|slot| *slot.borrow_mut() = Some((message, location)));
            } else {
                previous(info);
            }
        }));
    });
}

/// Returns the message of a panic payload.
fn message_of(payload: &(dyn Any + Send)) -> String {
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
