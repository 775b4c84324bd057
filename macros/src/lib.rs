//! The `#[samaritan::test]` attribute. Use it through the `samaritan`
//! crate, which re-exports it as `samaritan::test`; the code it generates
//! names `::samaritan`.
//!
//! It also holds what samaritan-tokio's `sim` build needs and a library
//! crate cannot define: `#[tokio::test]` (the same test, its arguments
//! tokio's, its code naming `::tokio`) and `select!`'s expansion. Both are
//! hidden: they are used through samaritan-tokio.

mod args;
mod select;
mod tokio_args;

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::ItemFn;

/// Declares a test whose body samaritan explores under the `sim` feature.
///
/// On a `fn`, the test runs the body under `samaritan::check` (with the
/// settings the arguments give); on an `async fn`, the body is the main
/// task of samaritan's executor (`samaritan::executor::block_on`) inside
/// `check`. Without `sim` the test is a plain `#[test]` that runs the body
/// once (an `async fn` on the production executor), and the arguments are
/// checked but not used.
///
/// Arguments, each `name = literal`, set the `samaritan::Builder` setting
/// of the same meaning (an argument wins over the `SAMARITAN_*` variable;
/// a setting no argument gives still defaults from its variable):
///
/// | argument | setting | value |
/// |---|---|---|
/// | `strategy` | `Builder::strategy` | `"portfolio"`, `"icb"`, `"dfs"`, `"dpor"`, `"cb-por"`, `"bpor"`, `"hapset"`, `"random"`, `"pct"`, `"round-robin"` |
/// | `preemptions` | `Builder::preemption_bound` | integer |
/// | `fairness` | `Builder::fairness` | `true`/`false` |
/// | `pct_depth` | `Builder::pct_depth` | 1 to 64 |
/// | `max_steps` | `Builder::max_steps` | at least 1 |
/// | `max_executions` | `Builder::max_executions` | at least 1 |
/// | `max_time` | `Builder::max_time` | seconds (integer or float) greater than 0, or `"none"` (`Builder::unlimited_time`) |
/// | `seed` | `Builder::seed` | integer |
/// | `stack_size` | `Builder::stack_size` | bytes, at most 1073741824 |
/// | `watchdog_ms` | `Builder::watchdog` | milliseconds, at least 100 |
/// | `spurious_failures` | `Builder::spurious_failures` | `true`/`false` |
/// | `minimize` | `Builder::minimize` | `true`/`false` |
/// | `persist` | `Builder::persist` | `true`/`false` |
/// | `progress` | `Builder::progress` | `true`/`false` |
/// | `hapset_file` | `Builder::hapset_file` | a path |
/// | `workers` | `Builder::workers` | from 1 to 256 |
///
/// A bad argument (an unknown name, one given twice, a value of the wrong
/// kind or out of range) is a compile error that points at it.
///
/// The test keeps its other attributes (`#[should_panic]`, `#[ignore]`,
/// `#[cfg(...)]`, lint levels) and its return type: `()` or `Result<(), E>`
/// with `E: Debug`; under `sim` an `Err` fails the execution that returned
/// it, like a panic. A test with `#[should_panic]` does not persist its
/// failures unless `persist = true` says so.
///
/// The exploration is named after the test's path as the test harness
/// names it (its module path without the crate, then the function), so
/// that the replay command a failure prints,
/// `SAMARITAN_REPLAY=<token> cargo test <path> -- --exact`, selects exactly
/// this test, and its failures persist under its own directory.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand(args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// Expands `#[samaritan::test(args)] item`.
fn expand(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let mut parsed = args::Args::default();
    syn::parse::Parser::parse2(syn::meta::parser(|meta| parsed.parse(meta)), args)?;
    let func: ItemFn = syn::parse2(item)?;
    let persist_given = parsed.has("persist");
    let block_on = (quote!(::samaritan::executor::block_on), None);
    generate(quote!(::samaritan), block_on, "#[samaritan::test]", parsed.settings, persist_given, func)
}

/// Declares a tokio test (`#[tokio::test]` of samaritan-tokio's `sim`
/// build): an `async fn` whose body is the main task of samaritan's
/// executor inside `check`, as `#[samaritan::test]` makes it. tokio's
/// arguments are accepted (see samaritan-tokio's documentation); the code
/// names `::tokio`, or the path `crate = "..."` gives.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = (|| {
        let parsed = tokio_args::parse(args.into())?;
        let func: ItemFn = syn::parse2(item.into())?;
        if func.sig.asyncness.is_none() {
            return Err(syn::Error::new_spanned(
                func.sig.fn_token,
                "the `async` keyword is missing from the function declaration",
            ));
        }
        let (root, workers) = (parsed.root, parsed.polls_at_once);
        // The runtime tokio's attribute would build: one poll at a time
        // on a current-thread runtime, `worker_threads` on a multi-thread one.
        let block_on = (quote!(#root::__private::block_on), Some(workers));
        generate(quote!(#root::__private::samaritan), block_on, "#[tokio::test]", Vec::new(), false, func)
    })();
    match expanded {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// Expands tokio's `select!` for samaritan-tokio's `sim` build; the input
/// is samaritan-tokio's path (`$crate`), then `select!`'s own input.
#[doc(hidden)]
#[proc_macro]
pub fn tokio_select(input: TokenStream) -> TokenStream {
    match select::expand(input.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// Writes the test `func` declared by `attribute` (for messages): its
/// body runs through `#root::__private::run` with `settings`, an `async`
/// one inside a call of `block_on`'s path with the future as its last
/// argument, after the first one if given.
fn generate(
    root: proc_macro2::TokenStream,
    block_on: (proc_macro2::TokenStream, Option<proc_macro2::TokenStream>),
    attribute: &str,
    mut settings: Vec<proc_macro2::TokenStream>,
    persist_given: bool,
    func: ItemFn,
) -> syn::Result<proc_macro2::TokenStream> {
    let sig = &func.sig;
    if let Some(attr) = func.attrs.iter().find(|a| a.path().is_ident("test")) {
        let message = format!("remove `#[test]`: `{attribute}` declares the test already");
        return Err(syn::Error::new_spanned(attr, message));
    }
    if let Some(token) = &sig.unsafety {
        return Err(syn::Error::new(token.span(), "a test cannot be an `unsafe fn`"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(&sig.generics, "a test cannot be generic"));
    }
    if !sig.inputs.is_empty() || sig.variadic.is_some() {
        return Err(syn::Error::new_spanned(&sig.inputs, "a test takes no arguments"));
    }
    // An expected panic is no bug to keep for the next run.
    if func.attrs.iter().any(|a| a.path().is_ident("should_panic")) && !persist_given {
        settings.push(quote!(#root::__private::Setting::Persist(false)));
    }

    let attrs = &func.attrs;
    let vis = &func.vis;
    let name = &sig.ident;
    let output = &sig.output;
    let mut inner = sig.clone();
    inner.ident = format_ident!("__samaritan_body", span = Span::mixed_site());
    let body_fn = &inner.ident;
    let block = &func.block;
    let path = name.to_string();
    // The calls carry the function's span, so that a failure's location
    // (`check` is `#[track_caller]`) points at the test.
    let span = sig.ident.span();
    let body = if sig.asyncness.is_some() {
        let (call, first) = block_on;
        let first = first.map(|arg| quote!(#arg,));
        quote_spanned!(span=> || #call(#first #body_fn()))
    } else {
        quote_spanned!(span=> #body_fn)
    };
    let run = quote_spanned!(span=>
        #root::__private::run(
            ::core::concat!(::core::module_path!(), "::", #path),
            &[#(#settings),*],
            #body,
            |result| #root::__private::fail_on_error(result),
        )
    );
    Ok(quote! {
        #[::core::prelude::v1::test]
        #(#attrs)*
        #vis fn #name() #output {
            #inner #block
            #run
        }
    })
}
