//! The arguments of `#[samaritan::test(...)]`: each a `name = literal`
//! that sets one `samaritan::Builder` setting.
//!
//! Every argument is checked here, where a mistake can point at its span:
//! an unknown name, one given twice, a value of the wrong kind, and a value
//! out of the range the `Builder` accepts (the ranges and their wording are
//! those of the root crate's `limits.rs`; `tests/test_attribute_ui.rs`
//! checks each edge).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Lit};

/// The strategy names, as `SAMARITAN_STRATEGY` spells them.
const STRATEGIES: &[&str] =
    &["portfolio", "icb", "dfs", "dpor", "cb-por", "bpor", "hapset", "random", "pct", "round-robin"];

/// The argument names, in the order the documentation lists them.
const NAMES: &[&str] = &[
    "strategy",
    "preemptions",
    "fairness",
    "pct_depth",
    "max_steps",
    "max_executions",
    "max_time",
    "seed",
    "stack_size",
    "watchdog_ms",
    "spurious_failures",
    "minimize",
    "persist",
    "progress",
    "hapset_file",
    "workers",
];

/// The largest coroutine stack the `Builder` accepts (1 GiB).
const MAX_STACK_SIZE: u64 = 1 << 30;

/// The shortest watchdog the `Builder` accepts, in milliseconds.
const MIN_WATCHDOG_MS: u64 = 100;

/// The deepest PCT bug depth the `Builder` accepts.
const MAX_PCT_DEPTH: u32 = 64;

/// The most workers the `Builder` accepts.
const MAX_WORKERS: u32 = 256;

/// The arguments read so far: each setting as the expression that builds
/// its `samaritan::__private::Setting`.
#[derive(Default)]
pub(crate) struct Args {
    /// The names given, to refuse a second one.
    given: Vec<String>,
    /// One `Setting` expression per argument, in the order given.
    pub(crate) settings: Vec<TokenStream>,
}

impl Args {
    /// Whether the argument `name` was given.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.given.iter().any(|g| g == name)
    }

    /// Reads one `name = value` argument.
    pub(crate) fn parse(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let name = meta.path.to_token_stream().to_string().replace(' ', "");
        if !NAMES.contains(&name.as_str()) {
            return Err(meta.error(format!("unknown argument `{name}`; expected one of {}", NAMES.join(", "))));
        }
        if self.has(&name) {
            return Err(meta.error(format!("`{name}` is given twice")));
        }
        if !meta.input.peek(syn::Token![=]) {
            return Err(meta.error(format!("`{name}` takes a value, as in `{}`", example(&name))));
        }
        let value: Expr = meta.value()?.parse()?;
        let setting = setting(&name, &value)?;
        self.given.push(name);
        self.settings.push(setting);
        Ok(())
    }
}

/// How an argument is written, for messages.
fn example(name: &str) -> &'static str {
    match name {
        "strategy" => "strategy = \"dpor\"",
        "preemptions" => "preemptions = 3",
        "fairness" => "fairness = false",
        "pct_depth" => "pct_depth = 3",
        "max_steps" => "max_steps = 10000",
        "max_executions" => "max_executions = 1000",
        "max_time" => "max_time = 30",
        "seed" => "seed = 7",
        "stack_size" => "stack_size = 65536",
        "watchdog_ms" => "watchdog_ms = 500",
        "spurious_failures" => "spurious_failures = false",
        "minimize" => "minimize = false",
        "persist" => "persist = false",
        "progress" => "progress = false",
        "hapset_file" => "hapset_file = \"target/coverage.hapset\"",
        "workers" => "workers = 2",
        _ => unreachable!("every name in NAMES has an example"),
    }
}

/// Builds the `Setting` expression of argument `name` from its value.
fn setting(name: &str, value: &Expr) -> syn::Result<TokenStream> {
    let span = value_span(value);
    let lit = match value {
        Expr::Lit(ExprLit { lit, .. }) => lit,
        // A negative number: the right kind, out of every range.
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. })
            if numeric(name) && matches!(&**expr, Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. })) =>
        {
            return Err(syn::Error::new_spanned(value, format!("`{name}` must not be negative")));
        }
        _ => return Err(syn::Error::new_spanned(value, wrong_kind(name))),
    };
    let path = quote!(::samaritan::__private::Setting);
    Ok(match name {
        "strategy" => {
            let s = string(name, lit)?;
            if !STRATEGIES.contains(&s.as_str()) {
                let known = STRATEGIES.join(", ");
                return Err(syn::Error::new(span, format!("unknown strategy \"{s}\"; expected one of {known}")));
            }
            quote!(#path::Strategy(#s))
        }
        "preemptions" => {
            let n: u32 = integer(name, lit, "an integer from 0 to 4294967295")?;
            quote!(#path::Preemptions(#n))
        }
        "pct_depth" => {
            let n: u32 = integer(name, lit, "a depth from 1 to 64")?;
            if !(1..=MAX_PCT_DEPTH).contains(&n) {
                return Err(range(name, span, "a depth from 1 to 64"));
            }
            quote!(#path::PctDepth(#n))
        }
        "max_steps" => {
            let n: u64 = integer(name, lit, "a number of steps, at least 1")?;
            if n == 0 {
                return Err(range(name, span, "a number of steps, at least 1"));
            }
            quote!(#path::MaxSteps(#n))
        }
        "max_executions" => {
            let n: u64 = integer(name, lit, "a number of executions, at least 1")?;
            if n == 0 {
                return Err(range(name, span, "a number of executions, at least 1"));
            }
            quote!(#path::MaxExecutions(#n))
        }
        "max_time" => max_time(name, lit, span)?,
        "seed" => {
            let n: u64 = integer(name, lit, "an unsigned 64-bit number")?;
            quote!(#path::Seed(#n))
        }
        "stack_size" => {
            let n: u64 = integer(name, lit, "a number of bytes, at most 1073741824")?;
            if n > MAX_STACK_SIZE {
                return Err(range(name, span, "a number of bytes, at most 1073741824"));
            }
            let n = proc_macro2::Literal::u64_unsuffixed(n);
            quote!(#path::StackSize(#n))
        }
        "watchdog_ms" => {
            let n: u64 = integer(name, lit, "a number of milliseconds, at least 100")?;
            if n < MIN_WATCHDOG_MS {
                return Err(range(name, span, "a number of milliseconds, at least 100"));
            }
            quote!(#path::WatchdogMs(#n))
        }
        "spurious_failures" => {
            let on = boolean(name, lit)?;
            quote!(#path::SpuriousFailures(#on))
        }
        "fairness" => {
            let on = boolean(name, lit)?;
            quote!(#path::Fairness(#on))
        }
        "minimize" => {
            let on = boolean(name, lit)?;
            quote!(#path::Minimize(#on))
        }
        "persist" => {
            let on = boolean(name, lit)?;
            quote!(#path::Persist(#on))
        }
        "progress" => {
            let on = boolean(name, lit)?;
            quote!(#path::Progress(#on))
        }
        "hapset_file" => {
            let s = string(name, lit)?;
            if s.trim().is_empty() {
                return Err(range(name, span, "a file path"));
            }
            quote!(#path::HapsetFile(#s))
        }
        "workers" => {
            let n: u32 = integer(name, lit, "a number of workers from 1 to 256")?;
            if !(1..=MAX_WORKERS).contains(&n) {
                return Err(range(name, span, "a number of workers from 1 to 256"));
            }
            quote!(#path::Workers(#n))
        }
        _ => unreachable!("every name in NAMES is handled"),
    })
}

/// `max_time`: seconds (an integer or a float greater than 0), or `"none"`
/// for no time budget, as `SAMARITAN_MAX_TIME` takes it.
fn max_time(name: &str, lit: &Lit, span: Span) -> syn::Result<TokenStream> {
    const EXPECTED: &str = "a number of seconds greater than 0, or \"none\"";
    let path = quote!(::samaritan::__private::Setting);
    let seconds = match lit {
        Lit::Str(s) if s.value() == "none" => return Ok(quote!(#path::MaxTime(::core::option::Option::None))),
        Lit::Int(i) => i.base10_parse::<f64>().map_err(|_| range(name, span, EXPECTED))?,
        Lit::Float(f) => f.base10_parse::<f64>().map_err(|_| range(name, span, EXPECTED))?,
        _ => return Err(syn::Error::new(span, format!("`{name}` takes {EXPECTED}, as in `max_time = 30`"))),
    };
    let time = std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| range(name, span, EXPECTED))?;
    let (secs, nanos) = (time.as_secs(), time.subsec_nanos());
    Ok(quote!(#path::MaxTime(::core::option::Option::Some(::core::time::Duration::new(#secs, #nanos)))))
}

/// The span a message about `value` points at.
fn value_span(value: &Expr) -> Span {
    syn::spanned::Spanned::span(value)
}

/// Whether argument `name` takes a number.
fn numeric(name: &str) -> bool {
    !matches!(name, "strategy" | "hapset_file" | "fairness" | "spurious_failures" | "minimize" | "persist" | "progress")
}

/// What a value that is not a literal of the right kind is told.
fn wrong_kind(name: &str) -> String {
    let kind = match name {
        "strategy" | "hapset_file" => "a string literal",
        "max_time" => "a number of seconds or \"none\"",
        _ if numeric(name) => "an integer literal",
        _ => "`true` or `false`",
    };
    format!("`{name}` takes {kind}, as in `{}`", example(name))
}

/// The error for a value of the right kind out of range.
fn range(name: &str, span: Span, expected: &str) -> syn::Error {
    syn::Error::new(span, format!("`{name}` must be {expected}"))
}

fn string(name: &str, lit: &Lit) -> syn::Result<String> {
    match lit {
        Lit::Str(s) => Ok(s.value()),
        other => Err(syn::Error::new(other.span(), wrong_kind(name))),
    }
}

fn boolean(name: &str, lit: &Lit) -> syn::Result<bool> {
    match lit {
        Lit::Bool(b) => Ok(b.value),
        other => Err(syn::Error::new(other.span(), wrong_kind(name))),
    }
}

fn integer<N>(name: &str, lit: &Lit, expected: &str) -> syn::Result<N>
where
    N: std::str::FromStr,
    N::Err: std::fmt::Display,
{
    match lit {
        Lit::Int(i) if i.suffix().is_empty() => i.base10_parse().map_err(|_| range(name, i.span(), expected)),
        Lit::Int(i) => {
            Err(syn::Error::new(i.span(), format!("`{name}` takes an unsuffixed integer, as in `{}`", example(name))))
        }
        other => Err(syn::Error::new(other.span(), wrong_kind(name))),
    }
}
