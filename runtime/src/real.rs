//! The production backend: std's own items, re-exported at zero cost.

pub(crate) mod thread {
    pub use std::thread::{
        current, park, park_timeout, scope, sleep, spawn, yield_now, Builder, JoinHandle, LocalKey, Scope,
        ScopedJoinHandle, Thread, ThreadId,
    };
}
