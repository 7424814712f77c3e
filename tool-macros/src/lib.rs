//! The `#[tool]` attribute macro. Use it as `tool_runtime::tool`, which documents it.
//!
//! The flow reads in three steps: parse (`attr`, `ast`) -> check (`check`) -> expand (`expand`,
//! or `fallback` beside the errors).
//!
//! # The room
//!
//! Compile time only: it uses syn, quote and proc-macro2, and generates code that names the
//! runtime through `::tool_runtime::__private`, so the crates it serves depend on nothing but
//! `tool-runtime`.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod fallback;
mod param_attr;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use crate::ast::ToolFn;
use crate::ctxt::Ctxt;

/// Turns a function into a model-facing tool. See `tool_runtime::tool` for the documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let output = tool_impl(args.into(), input.into());
    if std::env::var_os("TOOL_MACROS_DEBUG").is_some() {
        eprintln!("{output}");
    }
    output.into()
}

fn tool_impl(args: TokenStream2, input: TokenStream2) -> TokenStream2 {
    let cx = Ctxt::new();
    let attrs = attr::parse(&cx, args);
    let item = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(item)) => item,
        Ok(other) => {
            cx.error_spanned_by(
                first_token(&other),
                "#[tool] goes on a function: `fn`, or `async fn`",
            );
            return with_errors(cx, input);
        }
        Err(error) => {
            cx.syn_error(error);
            return with_errors(cx, input);
        }
    };
    let tool = ToolFn::from_syn(&cx, attrs, item);
    check::check(&cx, &tool);
    match cx.check() {
        Ok(()) => expand::expand(&tool),
        Err(error) => {
            let errors = error.to_compile_error();
            let fallback = fallback::fallback(&tool);
            quote!(#errors #fallback)
        }
    }
}

fn with_errors(cx: Ctxt, input: TokenStream2) -> TokenStream2 {
    let errors = cx.check().err().map(|error| error.to_compile_error());
    quote!(#errors #input)
}

/// The item's keyword (`struct`, `impl`…), or its first token, for the error's span.
fn first_token(item: &syn::Item) -> TokenStream2 {
    use quote::ToTokens;
    match item {
        syn::Item::Struct(item) => item.struct_token.to_token_stream(),
        syn::Item::Enum(item) => item.enum_token.to_token_stream(),
        syn::Item::Impl(item) => item.impl_token.to_token_stream(),
        syn::Item::Trait(item) => item.trait_token.to_token_stream(),
        syn::Item::Mod(item) => item.mod_token.to_token_stream(),
        syn::Item::Const(item) => item.const_token.to_token_stream(),
        syn::Item::Static(item) => item.static_token.to_token_stream(),
        syn::Item::Type(item) => item.type_token.to_token_stream(),
        syn::Item::Use(item) => item.use_token.to_token_stream(),
        other => other.to_token_stream(),
    }
}
