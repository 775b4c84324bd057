//! Entry points without the `sim` feature: the body runs once, for real.

/// Without `sim`, runs `f` once on the calling thread.
///
/// With `sim`, explores every schedule of `f` instead; writing tests with
/// `check` lets one test body run in both modes.
///
/// ```
/// use samaritan::sync::{Arc, Mutex};
///
/// samaritan::check(|| {
///     let total = Arc::new(Mutex::new(0));
///     let t = {
///         let total = total.clone();
///         samaritan::thread::spawn(move || *total.lock().unwrap() += 1)
///     };
///     *total.lock().unwrap() += 1;
///     t.join().unwrap();
///     assert_eq!(*total.lock().unwrap(), 2);
/// });
/// ```
#[track_caller]
pub fn check<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    f()
}
