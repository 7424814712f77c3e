use quote::ToTokens;
use syn::{Pat, Safety, Type};

use crate::ast::{Kind, ToolFn};
use crate::ctxt::Ctxt;

/// Checks every rule, reporting each broken one on its own token.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn) {
    not_const(cx, tool);
    not_unsafe(cx, tool);
    no_abi(cx, tool);
    not_generic(cx, tool);
    no_receiver(cx, tool);
    not_variadic(cx, tool);
    valid_name(cx, tool);
    has_description(cx, tool);
    if let (Some(key), Some(_)) = (&tool.attrs.blocking, &tool.item.sig.asyncness) {
        cx.error_spanned_by(
            key,
            "`blocking` is for a synchronous function that blocks; an `async fn` yields instead",
        );
    }
    if let Some((_, literal)) = &tool.attrs.timeout
        && tool.item.sig.asyncness.is_none()
        && tool.attrs.blocking.is_none()
    {
        cx.error_spanned_by(
            literal,
            "`timeout` needs an `async fn` or `#[tool(blocking)]`: a plain synchronous tool runs on its caller's thread, where nothing can cut it short",
        );
    }
    let mut names = std::collections::HashSet::new();
    for param in &tool.params {
        plain_name(cx, &param.pat);
        match param.kind {
            Kind::Model => {
                owned_model_arg(cx, &param.ty);
                if !names.insert(param.name()) {
                    let at = param
                        .attrs
                        .rename
                        .as_ref()
                        .map_or_else(|| param.pat.to_token_stream(), ToTokens::to_token_stream);
                    cx.error_spanned_by(
                        at,
                        format!(
                            "two parameters are the model's argument {:?}; rename one with `#[serde(rename = \"…\")]`",
                            param.name()
                        ),
                    );
                }
            }
            Kind::Context { .. } => {
                if tool.attrs.task.is_none() && crate::ast::last_ident_is(&param.ty, "Detach") {
                    cx.error_spanned_by(
                        &param.ty,
                        "a `Detach` parameter says where a call becomes a task; declare the tool `#[tool(task)]`",
                    );
                }
                if let Some((_, attr)) = &param.doc {
                    cx.error_spanned_by(
                        attr,
                        "a context parameter is not shown to the model, so its doc comment would be lost; use a `//` comment",
                    );
                }
                if let Some(attr) = &param.attrs.first {
                    cx.error_spanned_by(
                        attr,
                        "a context parameter is not one of the model's arguments: `#[serde]` and `#[schemars]` do not apply to it",
                    );
                }
            }
        }
    }
}

// A tool runs when a model calls it, never at compile time.
fn not_const(cx: &Ctxt, tool: &ToolFn) {
    if let Some(constness) = &tool.item.sig.constness {
        cx.error_spanned_by(constness, "a #[tool] function cannot be `const`");
    }
}

// The runtime calls the tool with arguments a model wrote; it cannot uphold a safety contract.
fn not_unsafe(cx: &Ctxt, tool: &ToolFn) {
    if let Safety::Unsafe(unsafety) = &tool.item.sig.safety {
        cx.error_spanned_by(unsafety, "a #[tool] function cannot be `unsafe`");
    }
}

// The runtime calls the tool as a Rust function.
fn no_abi(cx: &Ctxt, tool: &ToolFn) {
    if let Some(abi) = &tool.item.sig.abi {
        cx.error_spanned_by(abi, "a #[tool] function cannot have an `extern` ABI");
    }
}

// One tool has one schema: its argument types must be concrete.
fn not_generic(cx: &Ctxt, tool: &ToolFn) {
    let generics = &tool.item.sig.generics;
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "a #[tool] function cannot be generic; write it for concrete types",
        );
    } else if let Some(where_clause) = &generics.where_clause {
        cx.error_spanned_by(
            where_clause,
            "a #[tool] function cannot have a `where` clause",
        );
    }
}

// The generated tool type has no instance of `Self` to call a method on.
fn no_receiver(cx: &Ctxt, tool: &ToolFn) {
    if let Some(receiver) = &tool.receiver {
        cx.error_spanned_by(
            receiver.self_token,
            "a #[tool] function cannot take `self`; write a free function, and take host state as a `Service<T>` parameter",
        );
    }
}

fn not_variadic(cx: &Ctxt, tool: &ToolFn) {
    if let Some(variadic) = &tool.item.sig.variadic {
        cx.error_spanned_by(variadic, "a #[tool] function cannot be variadic");
    }
}

// Every major provider accepts `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
fn valid_name(cx: &Ctxt, tool: &ToolFn) {
    let name = tool.name();
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64;
    if !valid {
        let message = format!(
            "invalid tool name `{name}`: a tool name is a letter or `_`, then at most 63 letters, digits, `_` or `-`"
        );
        match &tool.attrs.name {
            Some(lit) => cx.error_spanned_by(lit, message),
            None => cx.error_spanned_by(tool.ident(), message),
        }
    }
}

// The model chooses tools by their descriptions.
fn has_description(cx: &Ctxt, tool: &ToolFn) {
    if tool.attrs.description.is_none() && tool.doc.is_none() {
        cx.error_spanned_by(
            tool.ident(),
            "a #[tool] function needs a description: add a doc comment, or `#[tool(description = \"…\")]`",
        );
    }
}

// A parameter's name is its property's name.
fn plain_name(cx: &Ctxt, pat: &Pat) {
    match pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {}
        other => cx.error_spanned_by(
            other,
            "a #[tool] parameter must be a plain name, which names its property; destructure it inside the function",
        ),
    }
}

// Arguments are parsed from the model's JSON and outlive it: they must own their data.
fn owned_model_arg(cx: &Ctxt, ty: &Type) {
    match ty {
        Type::Reference(_) => cx.error_spanned_by(
            ty,
            "a model argument must own its data: use `String` for `&str`, `Vec<T>` for `&[T]`",
        ),
        Type::ImplTrait(_) => cx.error_spanned_by(ty, "a model argument cannot be `impl Trait`"),
        _ => {}
    }
}
