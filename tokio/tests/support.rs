//! What the explorations share.

use std::future::Future;

use samaritan::{Builder, Report, SearchStrategy};

/// Explores the async program `f` makes, as the main task of samaritan's
/// executor, with an exhaustive depth-first search.
#[track_caller]
pub(crate) fn explore<F, Fut>(f: F) -> Report
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()>,
{
    Builder::new()
        .strategy(SearchStrategy::Dfs)
        .persist(false)
        .progress(false)
        .explore(move || samaritan::executor::block_on(f()))
        .expect("valid settings")
}
