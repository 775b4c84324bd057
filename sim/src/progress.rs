//! What the thread that watches an exploration sees of it.

use std::sync::atomic::{AtomicU32, AtomicU64};

/// Shared with the watchdog: how far the exploration has got.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub(crate) steps: AtomicU64,
    pub(crate) executions: AtomicU64,
    /// The actor running (or starting) most recently.
    pub(crate) actor: AtomicU32,
    /// Names given to actors of the running execution, by index.
    pub(crate) names: std::sync::Mutex<Vec<(u32, String)>>,
    /// Set by the watchdog when it gave up on the exploration: it stops at
    /// the next execution instead of running on unseen.
    pub(crate) cancelled: std::sync::atomic::AtomicBool,
}
