//! The arguments of `#[tokio::test(...)]` in samaritan-tokio's `sim`
//! build: tokio's own, accepted so that a tokio test compiles unchanged.
//!
//! `flavor` and `worker_threads` say how many tasks may be inside a poll
//! at once in the exploration: one on a current-thread runtime (the
//! default, where a poll runs to its end before another task's begins),
//! `worker_threads` on a multi-thread one, and no limit on a multi-thread
//! one without `worker_threads` (whose size is the machine's: no limit
//! covers every machine). `start_paused`
//! is checked and ignored: time inside an exploration is virtual and jumps
//! to the next timer when no task can run, which is what a paused tokio
//! clock does. `crate = "path"` names the crate the generated code calls,
//! as tokio's does.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Lit};

/// The argument names tokio's attribute takes (stable ones).
const NAMES: &[&str] = &["flavor", "worker_threads", "start_paused", "crate"];

/// What the arguments say.
pub(crate) struct TokioArgs {
    /// The path of samaritan-tokio in the user's crate (`::tokio`).
    pub(crate) root: TokenStream,
    /// The runtime: an `(Option<usize>, bool)` expression, how many polls
    /// may overlap and whether they go in tokio's current-thread order.
    pub(crate) polls_at_once: TokenStream,
}

/// Reads `#[tokio::test(...)]`'s arguments.
pub(crate) fn parse(args: TokenStream) -> syn::Result<TokioArgs> {
    let mut given: Vec<String> = Vec::new();
    let mut root = quote!(::tokio);
    let mut flavor: Option<String> = None;
    let mut workers: Option<TokenStream> = None;
    let parser = syn::meta::parser(|meta: ParseNestedMeta<'_>| {
        let name = meta.path.to_token_stream().to_string();
        if !NAMES.contains(&name.as_str()) {
            let names = NAMES.join(", ");
            return Err(meta.error(format!(
                "unknown argument `{name}`; expected one of {names} \
                 (samaritan's settings come from the `SAMARITAN_*` environment variables)"
            )));
        }
        if given.contains(&name) {
            return Err(meta.error(format!("`{name}` is given twice")));
        }
        let value: Expr = meta.value()?.parse()?;
        let Expr::Lit(ExprLit { lit, .. }) = &value else {
            return Err(syn::Error::new_spanned(&value, format!("`{name}` takes a literal")));
        };
        match (name.as_str(), lit) {
            ("flavor", Lit::Str(s)) if ["current_thread", "multi_thread"].contains(&s.value().as_str()) => {
                flavor = Some(s.value());
            }
            ("flavor", _) => {
                return Err(syn::Error::new_spanned(lit, "`flavor` takes \"current_thread\" or \"multi_thread\""))
            }
            ("worker_threads", Lit::Int(n)) if n.base10_parse::<usize>().is_ok_and(|n| n > 0) => {
                workers = Some(lit.to_token_stream());
            }
            ("worker_threads", _) => {
                return Err(syn::Error::new_spanned(lit, "`worker_threads` takes an integer greater than 0"))
            }
            ("start_paused", Lit::Bool(_)) => {}
            ("start_paused", _) => return Err(syn::Error::new_spanned(lit, "`start_paused` takes `true` or `false`")),
            ("crate", Lit::Str(s)) => root = s.parse::<syn::Path>()?.to_token_stream(),
            _ => {
                return Err(syn::Error::new_spanned(lit, "`crate` takes a path as a string, as in `crate = \"tokio\"`"))
            }
        }
        given.push(name);
        Ok(())
    });
    syn::parse::Parser::parse2(parser, args)?;
    if let (Some(flavor), Some(workers)) = (&flavor, &workers) {
        if flavor == "current_thread" {
            return Err(syn::Error::new_spanned(
                workers,
                "`worker_threads` is for the `multi_thread` flavor, not `current_thread`",
            ));
        }
    }
    // (polls at once, tokio's current-thread order).
    let polls_at_once = match (flavor.as_deref(), workers) {
        (Some("multi_thread"), Some(n)) => quote!((::core::option::Option::Some(#n), false)),
        (Some("multi_thread"), None) => quote!((::core::option::Option::None, false)),
        _ => quote!((::core::option::Option::Some(1), true)),
    };
    Ok(TokioArgs { root, polls_at_once })
}
