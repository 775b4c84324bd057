//! Every type this crate puts in tokio's place under `sim` has each auto
//! trait tokio's has (`Send`, `Sync`, `Unpin`, `UnwindSafe`,
//! `RefUnwindSafe`), so code that compiles on tokio compiles here; a few
//! have more, listed in `EXTRA`, which no code can tell on stable Rust
//! but by asking, as this test does. (Without `sim` the types are tokio's
//! own.) Exhaustiveness: the one enum of this crate's own,
//! `TryAcquireError`, is matched without a wildcard in `api.rs`, as
//! tokio's allows.

use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};

use tokio::__private::tokio as real;

/// Asks whether `T` has an auto trait: the inherent method (bounded by
/// the trait) wins when `T` has it, the blanket trait's otherwise.
struct Probe<T: ?Sized>(PhantomData<T>);

/// The answers when `T` lacks the trait.
trait Lacks {
    fn send(&self) -> bool {
        false
    }
    fn sync(&self) -> bool {
        false
    }
    fn unpin(&self) -> bool {
        false
    }
    fn unwind_safe(&self) -> bool {
        false
    }
    fn ref_unwind_safe(&self) -> bool {
        false
    }
}

impl<T: ?Sized> Lacks for Probe<T> {}

/// Each inherent method exists only for the `T`s with the trait.
macro_rules! has {
    ($name:ident, $bound:path) => {
        impl<T: ?Sized + $bound> Probe<T> {
            #[allow(dead_code)]
            fn $name(&self) -> bool {
                true
            }
        }
    };
}

/// The five answers for a type, as `[Send, Sync, Unpin, UnwindSafe,
/// RefUnwindSafe]`.
macro_rules! traits {
    ($t:ty) => {
        [
            Probe::<$t>(PhantomData).send(),
            Probe::<$t>(PhantomData).sync(),
            Probe::<$t>(PhantomData).unpin(),
            Probe::<$t>(PhantomData).unwind_safe(),
            Probe::<$t>(PhantomData).ref_unwind_safe(),
        ]
    };
}

has!(send, Send);
has!(sync, Sync);
has!(unpin, Unpin);
has!(unwind_safe, UnwindSafe);
has!(ref_unwind_safe, RefUnwindSafe);

/// For each pair `ours => tokio's`, how they differ: the traits tokio's
/// has and ours lacks, and those ours has beyond it, as one line each.
macro_rules! differ {
    ($($ours:ty => $theirs:ty),* $(,)?) => {{
        const NAMES: [&str; 5] = ["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"];
        let (mut missing, mut extra) = (Vec::new(), Vec::new());
        $(
            let (ours, theirs) = (traits!($ours), traits!($theirs));
            for i in 0..5 {
                let line = format!("{}: {}", stringify!($ours), NAMES[i]);
                match (ours[i], theirs[i]) {
                    (false, true) => missing.push(line),
                    (true, false) => extra.push(line),
                    _ => {}
                }
            }
        )*
        (missing, extra)
    }};
}

/// The traits some of this crate's types have and tokio's do not: its
/// primitives hold no state a panic can leave half-changed for a caller
/// to see (their guards poison nothing, as tokio's), its `JoinSet` is a
/// list of join handles (which are unwind-safe, as tokio's), and its
/// `Sleep` and `Notified` need no pinning.
const EXTRA: &[&str] = &[
    "tokio::task::JoinSet<u8>: UnwindSafe",
    "tokio::task::JoinSet<u8>: RefUnwindSafe",
    "oneshot::Sender<u8>: UnwindSafe",
    "oneshot::Sender<u8>: RefUnwindSafe",
    "oneshot::Receiver<u8>: UnwindSafe",
    "oneshot::Receiver<u8>: RefUnwindSafe",
    "watch::Sender<u8>: UnwindSafe",
    "watch::Sender<u8>: RefUnwindSafe",
    "watch::Receiver<u8>: UnwindSafe",
    "watch::Receiver<u8>: RefUnwindSafe",
    "watch::Ref<'static, u8>: UnwindSafe",
    "watch::Ref<'static, u8>: RefUnwindSafe",
    "broadcast::Sender<u8>: UnwindSafe",
    "broadcast::Sender<u8>: RefUnwindSafe",
    "broadcast::Receiver<u8>: UnwindSafe",
    "broadcast::Receiver<u8>: RefUnwindSafe",
    "tokio::sync::Mutex<u8>: UnwindSafe",
    "tokio::sync::RwLock<u8>: UnwindSafe",
    "tokio::sync::Semaphore: UnwindSafe",
    "tokio::sync::Semaphore: RefUnwindSafe",
    "tokio::sync::SemaphorePermit<'static>: UnwindSafe",
    "tokio::sync::SemaphorePermit<'static>: RefUnwindSafe",
    "tokio::sync::OwnedSemaphorePermit: UnwindSafe",
    "tokio::sync::OwnedSemaphorePermit: RefUnwindSafe",
    "tokio::sync::futures::Notified<'static>: Unpin",
    "tokio::sync::futures::Notified<'static>: UnwindSafe",
    "tokio::sync::futures::Notified<'static>: RefUnwindSafe",
    "tokio::time::Sleep: Unpin",
];

#[test]
fn the_probe_tells_a_trait_from_its_absence() {
    assert_eq!(traits!(u8), [true; 5]);
    assert_eq!(traits!(std::rc::Rc<u8>), [false, false, true, true, true]);
    assert_eq!(traits!(&'static mut u8), [true, true, true, false, true]);
    assert_eq!(traits!(std::cell::Cell<u8>), [true, false, true, true, false]);
    assert_eq!(traits!(std::marker::PhantomPinned), [true, true, false, true, true]);
}

#[test]
fn every_mapped_type_has_tokios_auto_traits() {
    use tokio::sync::{broadcast, mpsc, oneshot, watch};
    type Ready = std::future::Ready<()>;
    let differ = differ![
        tokio::task::JoinHandle<u8> => real::task::JoinHandle<u8>,
        tokio::task::AbortHandle => real::task::AbortHandle,
        tokio::task::JoinError => real::task::JoinError,
        tokio::task::JoinSet<u8> => real::task::JoinSet<u8>,
        tokio::task::Id => real::task::Id,
        mpsc::Sender<u8> => real::sync::mpsc::Sender<u8>,
        mpsc::UnboundedSender<u8> => real::sync::mpsc::UnboundedSender<u8>,
        mpsc::Receiver<u8> => real::sync::mpsc::Receiver<u8>,
        mpsc::UnboundedReceiver<u8> => real::sync::mpsc::UnboundedReceiver<u8>,
        mpsc::Permit<'static, u8> => real::sync::mpsc::Permit<'static, u8>,
        mpsc::OwnedPermit<u8> => real::sync::mpsc::OwnedPermit<u8>,
        oneshot::Sender<u8> => real::sync::oneshot::Sender<u8>,
        oneshot::Receiver<u8> => real::sync::oneshot::Receiver<u8>,
        oneshot::error::RecvError => real::sync::oneshot::error::RecvError,
        watch::Sender<u8> => real::sync::watch::Sender<u8>,
        watch::Receiver<u8> => real::sync::watch::Receiver<u8>,
        watch::Ref<'static, u8> => real::sync::watch::Ref<'static, u8>,
        watch::error::RecvError => real::sync::watch::error::RecvError,
        broadcast::Sender<u8> => real::sync::broadcast::Sender<u8>,
        broadcast::Receiver<u8> => real::sync::broadcast::Receiver<u8>,
        tokio::sync::Mutex<u8> => real::sync::Mutex<u8>,
        tokio::sync::MutexGuard<'static, u8> => real::sync::MutexGuard<'static, u8>,
        tokio::sync::OwnedMutexGuard<u8> => real::sync::OwnedMutexGuard<u8>,
        tokio::sync::TryLockError => real::sync::TryLockError,
        tokio::sync::RwLock<u8> => real::sync::RwLock<u8>,
        tokio::sync::RwLockReadGuard<'static, u8> => real::sync::RwLockReadGuard<'static, u8>,
        tokio::sync::RwLockWriteGuard<'static, u8> => real::sync::RwLockWriteGuard<'static, u8>,
        tokio::sync::Notify => real::sync::Notify,
        tokio::sync::Semaphore => real::sync::Semaphore,
        tokio::sync::SemaphorePermit<'static> => real::sync::SemaphorePermit<'static>,
        tokio::sync::OwnedSemaphorePermit => real::sync::OwnedSemaphorePermit,
        tokio::sync::AcquireError => real::sync::AcquireError,
        tokio::sync::TryAcquireError => real::sync::TryAcquireError,
        tokio::sync::futures::Notified<'static> => real::sync::futures::Notified<'static>,
        tokio::time::Sleep => real::time::Sleep,
        tokio::time::Timeout<Ready> => real::time::Timeout<Ready>,
        tokio::time::Interval => real::time::Interval,
        tokio::time::Instant => real::time::Instant,
        tokio::time::error::Elapsed => real::time::error::Elapsed,
    ];
    let (missing, extra) = differ;
    assert!(missing.is_empty(), "auto traits tokio's types have and these lack:\n{}", missing.join("\n"));
    assert_eq!(extra, EXTRA);
}
