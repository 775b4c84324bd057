//! futures for production and, under the `sim` feature, futures'
//! channels, `lock::Mutex`, `executor::block_on` and `select!` on
//! samaritan's explorer: a drop-in for futures users.
//!
//! # Switching
//!
//! ```toml
//! [dependencies]
//! futures = { package = "samaritan-futures", path = "../samaritan/futures" }
//!
//! [dev-dependencies]
//! futures = { package = "samaritan-futures", path = "../samaritan/futures", features = ["sim"] }
//! samaritan = { path = "../samaritan", features = ["sim"] }
//! ```
//!
//! Without `sim` every item is futures'. With `sim` everything is still
//! futures' (its combinators, `Stream`, `Sink`, `join!`, `future::select`,
//! which poll in the order futures documents) except the parts that
//! synchronize:
//!
//! - `channel::mpsc` (bounded, with futures' capacity of the buffer plus
//!   one slot per sender, and unbounded) and `channel::oneshot`, on
//!   samaritan's async channels: every send and receive a scheduling
//!   point, `Stream` and `Sink` as futures' traits;
//! - `lock::Mutex` (with `lock_owned`), on samaritan's async mutex;
//! - `executor::block_on` and `block_on_stream`, on samaritan's executor;
//! - `select!`, futures' own macro with the branch polled first (futures
//!   picks it at random) an explored choice.
//!
//! The error types of the channels are this crate's (futures' cannot be
//! made outside it), with futures' methods.
//!
//! ```
//! extern crate samaritan_futures as futures;
//! use futures::channel::mpsc;
//! use futures::{SinkExt, StreamExt};
//!
//! futures::executor::block_on(async {
//!     let (mut tx, mut rx) = mpsc::channel(1);
//!     tx.send(1).await.unwrap();
//!     drop(tx);
//!     assert_eq!((rx.next().await, rx.next().await), (Some(1), None));
//! });
//! ```

#[cfg(feature = "sim")]
mod sim;

pub use futures::*;
#[cfg(feature = "sim")]
pub use sim::{channel, executor, lock};

/// Polls several futures at once and runs the branch of the first to
/// finish (futures' `select!`; under `sim`, which ready branch wins is an
/// explored choice).
#[cfg(feature = "sim")]
pub use crate::__samaritan_futures_select as select;

#[cfg(feature = "sim")]
#[doc(hidden)]
pub mod __private {
    //! What `select!` expands to: futures-util's internals, with the
    //! shuffle of the branches replaced.
    pub use futures_util::select_internal;

    /// The paths futures' `select_internal!` names as `__futures_crate`.
    pub mod select_shim {
        pub use futures_util::__private::*;

        /// futures-util's `async_await` helpers, but `shuffle`.
        pub mod async_await {
            pub use futures_util::__private::async_await::*;

            /// Puts the branch polled first at the front: an explored
            /// choice inside an exploration (every branch may win when
            /// several are ready), random outside, as futures' shuffle.
            #[track_caller]
            pub fn shuffle<T>(branches: &mut [T]) {
                let first = samaritan::__private::pick(branches.len());
                branches.rotate_left(first);
            }
        }
    }
}

/// futures' `select!` on samaritan's choice of the first branch.
#[cfg(feature = "sim")]
#[doc(hidden)]
#[macro_export]
macro_rules! __samaritan_futures_select {
    ($($tokens:tt)*) => {{
        use $crate::__private::select_shim as __futures_crate;
        $crate::__private::select_internal! {
            $( $tokens )*
        }
    }};
}
