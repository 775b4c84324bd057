//! `select!`: crossbeam's syntax, expanded into nested matches so that the
//! selected arm's body runs outside any loop of the macro's (its `break`
//! and `continue` are the user's) and the channel expressions are
//! evaluated once, in order, living until the end of the select.

/// Waits on several channel operations and runs the arm of the one
/// selected (crossbeam's `select!`); under `sim` the choice among ready
/// operations is explored.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::channel::{select, unbounded};
/// use std::time::Duration;
///
/// let (tx, rx) = unbounded::<u8>();
/// let got = select! {
///     recv(rx) -> msg => msg.ok(),
///     default(Duration::from_millis(1)) => None,
/// };
/// assert_eq!(got, None);
/// tx.send(3).unwrap();
/// select! {
///     send(tx, 4) -> res => res.unwrap(),
///     default => unreachable!("an unbounded channel has room"),
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __samaritan_crossbeam_select {
    (@go $sel:ident ()) => {
        $crate::channel::__private::Pending::NotMine($sel.wait())
    };
    (@go $sel:ident (recv($r:expr $(,)?) -> $res:pat => $body:block, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@recv $sel ($r) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (recv($r:expr $(,)?) -> $res:pat => $body:block $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@recv $sel ($r) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (recv($r:expr $(,)?) -> $res:pat => $body:expr, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@recv $sel ($r) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (recv($r:expr $(,)?) -> $res:pat => $body:expr)) => {
        $crate::__samaritan_crossbeam_select!(@recv $sel ($r) ($res) ($body) ())
    };
    (@go $sel:ident (send($s:expr, $v:expr $(,)?) -> $res:pat => $body:block, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@send $sel ($s) ($v) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (send($s:expr, $v:expr $(,)?) -> $res:pat => $body:block $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@send $sel ($s) ($v) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (send($s:expr, $v:expr $(,)?) -> $res:pat => $body:expr, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@send $sel ($s) ($v) ($res) ($body) ($($rest)*))
    };
    (@go $sel:ident (send($s:expr, $v:expr $(,)?) -> $res:pat => $body:expr)) => {
        $crate::__samaritan_crossbeam_select!(@send $sel ($s) ($v) ($res) ($body) ())
    };
    (@go $sel:ident (default => $body:block, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::None) ($body) ($($rest)*))
    };
    (@go $sel:ident (default => $body:block $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::None) ($body) ($($rest)*))
    };
    (@go $sel:ident (default => $body:expr, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::None) ($body) ($($rest)*))
    };
    (@go $sel:ident (default => $body:expr)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::None) ($body) ())
    };
    (@go $sel:ident (default() => $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@go $sel (default => $($rest)*))
    };
    (@go $sel:ident (default($t:expr $(,)?) => $body:block, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::Some($t)) ($body) ($($rest)*))
    };
    (@go $sel:ident (default($t:expr $(,)?) => $body:block $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::Some($t)) ($body) ($($rest)*))
    };
    (@go $sel:ident (default($t:expr $(,)?) => $body:expr, $($rest:tt)*)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::Some($t)) ($body) ($($rest)*))
    };
    (@go $sel:ident (default($t:expr $(,)?) => $body:expr)) => {
        $crate::__samaritan_crossbeam_select!(@default $sel (::core::option::Option::Some($t)) ($body) ())
    };
    (@go $sel:ident ($($rest:tt)*)) => {
        ::core::compile_error!(
            "select!: expected `recv(r) -> pat => body`, `send(s, msg) -> pat => body`, `default => body` or `default(timeout) => body`, separated by commas"
        )
    };
    (@recv $sel:ident ($r:expr) ($res:pat) ($body:expr) ($($rest:tt)*)) => {
        match &$r {
            __op => {
                let __me = $sel.recv(__op);
                match $crate::__samaritan_crossbeam_select!(@go $sel ($($rest)*)) {
                    #[allow(unreachable_code)]
                    $crate::channel::__private::Pending::NotMine(__i) if __i == __me => {
                        let $res = __op.__selected();
                        $crate::channel::__private::Pending::Done($body)
                    }
                    __other => __other,
                }
            }
        }
    };
    (@send $sel:ident ($s:expr) ($v:expr) ($res:pat) ($body:expr) ($($rest:tt)*)) => {
        match &$s {
            __op => {
                let __me = $sel.send(__op);
                match $crate::__samaritan_crossbeam_select!(@go $sel ($($rest)*)) {
                    #[allow(unreachable_code)]
                    $crate::channel::__private::Pending::NotMine(__i) if __i == __me => {
                        let $res = __op.__send_selected($v);
                        $crate::channel::__private::Pending::Done($body)
                    }
                    __other => __other,
                }
            }
        }
    };
    (@default $sel:ident ($t:expr) ($body:expr) ($($rest:tt)*)) => {{
        $sel.default_arm($t);
        match $crate::__samaritan_crossbeam_select!(@go $sel ($($rest)*)) {
            #[allow(unreachable_code)]
            $crate::channel::__private::Pending::NotMine($crate::channel::__private::DEFAULT) => {
                $crate::channel::__private::Pending::Done($body)
            }
            __other => __other,
        }
    }};
    (@biased $($arms:tt)*) => {{
        let mut __sel = $crate::channel::__private::Select::new();
        __sel.biased();
        match $crate::__samaritan_crossbeam_select!(@go __sel ($($arms)*)) {
            $crate::channel::__private::Pending::Done(__value) => __value,
            $crate::channel::__private::Pending::NotMine(_) => {
                ::core::unreachable!("select! returned an operation no arm has")
            }
        }
    }};
    ($($arms:tt)*) => {{
        #[allow(unused_mut)]
        let mut __sel = $crate::channel::__private::Select::new();
        match $crate::__samaritan_crossbeam_select!(@go __sel ($($arms)*)) {
            $crate::channel::__private::Pending::Done(__value) => __value,
            $crate::channel::__private::Pending::NotMine(_) => {
                ::core::unreachable!("select! returned an operation no arm has")
            }
        }
    }};
}

/// As `select!`, but of the ready operations the first in the arms' order
/// is taken (crossbeam's `select_biased!`): no choice is explored.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::channel::unbounded;
///
/// let (a, ra) = unbounded();
/// let (b, rb) = unbounded();
/// a.send(1).unwrap();
/// b.send(2).unwrap();
/// let first = crossbeam::select_biased! {
///     recv(ra) -> m => m.unwrap(),
///     recv(rb) -> m => m.unwrap(),
/// };
/// assert_eq!(first, 1);
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __samaritan_crossbeam_select_biased {
    ($($arms:tt)*) => {
        $crate::__samaritan_crossbeam_select!(@biased $($arms)*)
    };
}
