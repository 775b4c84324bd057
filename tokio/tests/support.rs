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

/// Explores the async program `f` makes, as the main task of a runtime
/// that lets `polls` polls overlap (`None`: no limit), with `strategy`.
#[track_caller]
pub(crate) fn explore_on<F, Fut>(polls: Option<usize>, strategy: SearchStrategy, f: F) -> Report
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()>,
{
    explore_runtime(polls, false, strategy, f)
}

/// Explores the async program `f` makes, as the main task of a runtime that
/// polls one task at a time in tokio's current-thread order (what
/// `#[tokio::test]` builds), with `strategy`.
#[track_caller]
pub(crate) fn explore_current_thread<F, Fut>(strategy: SearchStrategy, f: F) -> Report
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()>,
{
    explore_runtime(Some(1), true, strategy, f)
}

/// Explores `f`'s program on a runtime with `polls` polls at once, in
/// tokio's order when `tokio_order`.
#[track_caller]
fn explore_runtime<F, Fut>(polls: Option<usize>, tokio_order: bool, strategy: SearchStrategy, f: F) -> Report
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()>,
{
    Builder::new()
        .strategy(strategy)
        .persist(false)
        .progress(false)
        .explore(move || {
            let mut builder = samaritan::executor::Builder::current_thread();
            if let Some(n) = polls {
                builder.polls_at_once(n);
            }
            if tokio_order {
                builder.tokio_order();
            }
            builder.build().unwrap().block_on(f())
        })
        .expect("valid settings")
}
