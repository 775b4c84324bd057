//! Entry points without the `sim` feature: the body runs once, for real.

/// Without `sim`, runs `f` once on the calling thread.
///
/// With `sim`, explores every schedule of `f` instead; writing tests with
/// `check` lets one test body run in both modes.
#[track_caller]
pub fn check<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    f()
}
