//! tokio's `select!` for samaritan-tokio's `sim` build: the same syntax
//! and semantics (tokio's documentation of `select!` is the reference),
//! with the branch polled first asked of `__private::select_start`, which
//! makes it an explored choice inside an exploration.
//!
//! ```text
//! select! {
//!     biased;                                  // optional: poll in order
//!     <pattern> = <async expression> (, if <precondition>)? => <handler>,
//!     ...
//!     else => <expression>                     // optional
//! }
//! ```
//!
//! The expansion: the preconditions are evaluated, then every async
//! expression (disabled branches' too, as tokio does), each pinned on the
//! stack. Every poll starts at the branch `select_start` names and goes
//! round; a ready output that does not match its pattern disables its
//! branch. The futures are dropped before the chosen handler runs, so a
//! handler may use what they borrowed. With every branch disabled, the
//! `else` expression runs, or `select!` panics as tokio's does.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Pat, Token};

/// One `<pattern> = <async expression> (, if <precondition>)? => <handler>`.
struct Branch {
    pat: Pat,
    fut: Expr,
    cond: Option<Expr>,
    handler: Expr,
}

/// The input: samaritan-tokio's path, then `select!`'s.
struct Input {
    root: TokenStream,
    biased: bool,
    branches: Vec<Branch>,
    otherwise: Option<Expr>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Input> {
        let mut root = TokenStream::new();
        while !input.peek(Token![;]) {
            root.extend([input.parse::<TokenTree>()?]);
        }
        input.parse::<Token![;]>()?;
        let biased = input.peek(syn::Ident) && input.fork().parse::<syn::Ident>().is_ok_and(|i| i == "biased");
        if biased {
            input.parse::<syn::Ident>()?;
            input.parse::<Token![;]>()?;
        }
        let mut branches = Vec::new();
        let mut otherwise = None;
        while !input.is_empty() {
            if input.peek(Token![else]) {
                input.parse::<Token![else]>()?;
                input.parse::<Token![=>]>()?;
                otherwise = Some(handler(input)?);
                continue;
            }
            let pat = Pat::parse_multi_with_leading_vert(input)?;
            input.parse::<Token![=]>()?;
            let fut: Expr = input.parse()?;
            let cond = if input.peek(Token![,]) && input.peek2(Token![if]) {
                input.parse::<Token![,]>()?;
                input.parse::<Token![if]>()?;
                Some(input.parse()?)
            } else {
                None
            };
            input.parse::<Token![=>]>()?;
            let handler = handler(input)?;
            branches.push(Branch { pat, fut, cond, handler });
        }
        if branches.is_empty() {
            return Err(input.error("`select!` needs at least one branch other than `else`"));
        }
        Ok(Input { root, biased, branches, otherwise })
    }
}

/// A handler: a block (a comma after it is optional) or an expression
/// followed by a comma or the end.
fn handler(input: ParseStream<'_>) -> syn::Result<Expr> {
    if input.peek(syn::token::Brace) {
        let block: syn::Block = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        return Ok(Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block }));
    }
    let expr: Expr = input.parse()?;
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    Ok(expr)
}

/// `pat` without `ref` and `mut` on its bindings: the form that tests a
/// reference to the output without moving out of it.
fn clean(pat: &mut Pat) {
    match pat {
        Pat::Ident(p) => {
            p.by_ref = None;
            p.mutability = None;
            if let Some((_, sub)) = &mut p.subpat {
                clean(sub);
            }
        }
        Pat::Or(p) => p.cases.iter_mut().for_each(clean),
        Pat::Paren(p) => clean(&mut p.pat),
        Pat::Reference(p) => clean(&mut p.pat),
        Pat::Slice(p) => p.elems.iter_mut().for_each(clean),
        Pat::Struct(p) => p.fields.iter_mut().for_each(|f| clean(&mut f.pat)),
        Pat::Tuple(p) => p.elems.iter_mut().for_each(clean),
        Pat::TupleStruct(p) => p.elems.iter_mut().for_each(clean),
        Pat::Type(p) => clean(&mut p.pat),
        _ => {}
    }
}

/// Expands `select!`.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let Input { root, biased, branches, otherwise } = syn::parse2(input)?;
    let n = branches.len();
    let site = Span::mixed_site();
    let out = format_ident!("__SelectOut", span = site);
    let disabled = format_ident!("__select_disabled", span = site);
    let cx = format_ident!("__select_cx", span = site);
    let pending = format_ident!("__select_pending", span = site);
    let start = format_ident!("__select_start", span = site);
    let value = format_ident!("__select_value", span = site);
    let output = format_ident!("__select_output", span = site);
    let (k, branch, matches) =
        (format_ident!("k", span = site), format_ident!("branch", span = site), format_ident!("matches", span = site));
    let variants: Vec<_> = (0..n).map(|i| format_ident!("B{}", i)).collect();
    let params: Vec<_> = (0..n).map(|i| format_ident!("T{}", i)).collect();
    let futs: Vec<_> = (0..n).map(|i| format_ident!("__select_future_{}", i, span = site)).collect();
    let conds = branches.iter().map(|b| match &b.cond {
        Some(c) => quote!(!(#c)),
        None => quote!(false),
    });
    let fut_exprs = branches.iter().map(|b| &b.fut);
    let polls = branches.iter().enumerate().map(|(i, b)| {
        let mut test = b.pat.clone();
        clean(&mut test);
        let (f, v) = (&futs[i], &variants[i]);
        quote! {
            #i => match ::core::future::Future::poll(#f.as_mut(), #cx) {
                ::core::task::Poll::Ready(#value) => {
                    #[allow(unused_variables, unreachable_patterns, clippy::redundant_pattern_matching)]
                    let #matches = match &#value { #test => true, _ => false };
                    if #matches {
                        return ::core::task::Poll::Ready(#out::#v(#value));
                    }
                    #disabled[#i] = true;
                }
                ::core::task::Poll::Pending => #pending = true,
            },
        }
    });
    let arms = branches.iter().enumerate().map(|(i, b)| {
        let (pat, handler, v) = (&b.pat, &b.handler, &variants[i]);
        quote!(#out::#v(#pat) => #handler,)
    });
    let otherwise = match otherwise {
        Some(e) => quote!(#e),
        None => quote!(::core::panic!("all branches are disabled and there is no else branch")),
    };
    Ok(quote! {{
        #[allow(dead_code)]
        enum #out<#(#params),*> { #(#variants(#params),)* Disabled }
        let mut #disabled: [bool; #n] = [#(#conds),*];
        let #output = {
            #(let mut #futs = ::core::pin::pin!(::core::future::IntoFuture::into_future(#fut_exprs));)*
            ::core::future::poll_fn(|#cx: &mut ::core::task::Context<'_>| {
                let #start = #root::__private::select_start(&#disabled, #biased);
                let mut #pending = false;
                for #k in 0..#n {
                    #[allow(clippy::modulo_one)]
                    let #branch = (#start + #k) % #n;
                    if #disabled[#branch] {
                        continue;
                    }
                    match #branch {
                        #(#polls)*
                        _ => ::core::unreachable!("select! has {} branches", #n),
                    }
                }
                if #pending {
                    ::core::task::Poll::Pending
                } else {
                    ::core::task::Poll::Ready(#out::Disabled)
                }
            })
            .await
        };
        #[allow(unreachable_patterns)]
        match #output {
            #(#arms)*
            #out::Disabled => #otherwise,
            _ => ::core::unreachable!("a select! output matches its branch's pattern"),
        }
    }})
}
