//! What the code `#[tokio::test]` and `select!` generate calls under
//! `sim`: not an API, and hidden from the documentation (`__private`).

pub use samaritan;
/// tokio itself, for the tests that compare this crate's types with its.
pub use tokio;

/// Runs a `#[tokio::test]` body on a runtime of samaritan's executor that
/// lets `polls_at_once` tasks be inside a poll at once (`None`: no limit),
/// in tokio's current-thread order when `tokio_order` (the one flavor that
/// sets it has one poll at a time).
#[track_caller]
pub fn block_on<F: std::future::Future>((polls_at_once, tokio_order): (Option<usize>, bool), future: F) -> F::Output {
    crate::misuses();
    let mut builder = samaritan::executor::Builder::current_thread();
    if let Some(n) = polls_at_once {
        builder.polls_at_once(n);
    }
    if tokio_order {
        builder.tokio_order();
    }
    let rt = builder.build().expect("a poll limit of at least 1, and of 1 for tokio's order, builds");
    rt.block_on(future)
}

/// The branch `select!` polls first, given which branches are disabled.
///
/// `biased`: the first. Inside an exploration: the `k`-th enabled
/// branch, `k` an explored choice (`rt::choose`), so every order in which
/// ready branches can win is reached. Outside one: a random branch, as
/// tokio's `select!` picks it.
#[track_caller]
pub fn select_start(disabled: &[bool], biased: bool) -> usize {
    if biased || disabled.len() < 2 {
        return 0;
    }
    if samaritan_sim::rt::active() {
        let enabled: Vec<usize> = (0..disabled.len()).filter(|&i| !disabled[i]).collect();
        return match enabled.len() {
            0 => 0,
            n => enabled[samaritan::__private::pick(n)],
        };
    }
    samaritan::__private::pick(disabled.len())
}

pub use samaritan_macros::tokio_select as select_expand;
