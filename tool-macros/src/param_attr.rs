//! `#[serde(…)]` and `#[schemars(…)]` on a model parameter, with the meaning they have on a
//! struct field: a rename, a default, and the constraints and examples of its schema.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Expr, LitStr, Path};

use crate::ctxt::Ctxt;

/// What a parameter's `#[serde]` and `#[schemars]` attributes say.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    /// `#[serde(rename = "…")]`: the property name the model sees.
    pub rename: Option<LitStr>,
    /// `#[serde(default)]` or `#[serde(default = "path")]`: the value of a left-out argument.
    pub default: Option<DefaultValue>,
    /// The `#[schemars(…)]` attributes as written; they describe the parameter's schema, on the
    /// field of a newtype the macro generates.
    pub schemars: Vec<Attribute>,
    /// The first of them all, to point at on a context parameter.
    pub first: Option<Attribute>,
}

/// What a left-out argument with a default becomes.
pub(crate) enum DefaultValue {
    /// `T::default()`.
    Trait,
    /// The function at this path, called with no arguments.
    Path(Path),
}

const SERDE_KEYS: &str = "`rename = \"…\"`, `default` and `default = \"path\"`";
const SCHEMARS_KEYS: &str = "`range(min = …, max = …)`, `length(min = …, max = …)`, \
    `regex(pattern = …)`, `pattern(…)`, `contains(…)`, `inner(…)`, `email`, `url`, \
    `example = …` and `extend(\"key\" = …)`";
const SCHEMARS_SUPPORTED: &[&str] = &[
    "range", "length", "regex", "pattern", "contains", "inner", "email", "url", "example", "extend",
];

/// Takes the `#[serde]` and `#[schemars]` attributes off a parameter and reads them, recording
/// every unsupported key (each on its own token) in `cx`.
pub(crate) fn take(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> ParamAttrs {
    let mut out = ParamAttrs::default();
    let (ours, rest): (Vec<_>, Vec<_>) = std::mem::take(attrs)
        .into_iter()
        .partition(|attr| attr.path().is_ident("serde") || attr.path().is_ident("schemars"));
    *attrs = rest;
    out.first = ours.first().cloned();
    for attr in ours {
        if attr.path().is_ident("serde") {
            serde_attr(cx, &attr, &mut out);
        } else {
            schemars_attr(cx, &attr);
            out.schemars.push(attr);
        }
    }
    out
}

fn serde_attr(cx: &Ctxt, attr: &Attribute, out: &mut ParamAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        let key = meta.path.to_token_stream();
        if meta.path.is_ident("rename") {
            let name: LitStr = meta.value()?.parse()?;
            if out.rename.replace(name).is_some() {
                cx.error_spanned_by(&key, "duplicate `rename` on this parameter");
            }
        } else if meta.path.is_ident("default") {
            let value = if meta.input.peek(syn::Token![=]) {
                let path: LitStr = meta.value()?.parse()?;
                DefaultValue::Path(path.parse()?)
            } else {
                DefaultValue::Trait
            };
            if out.default.replace(value).is_some() {
                cx.error_spanned_by(&key, "duplicate `default` on this parameter");
            }
        } else {
            cx.error_spanned_by(
                &key,
                format!(
                    "`#[serde({})]` is not supported on a #[tool] parameter; supported: {SERDE_KEYS}",
                    shown(&key)
                ),
            );
            skip_value(&meta)?;
        }
        Ok(())
    });
    if let Err(error) = result {
        cx.syn_error(error);
    }
}

fn schemars_attr(cx: &Ctxt, attr: &Attribute) {
    let result = attr.parse_nested_meta(|meta| {
        let key = meta.path.to_token_stream();
        let supported = meta
            .path
            .get_ident()
            .is_some_and(|ident| SCHEMARS_SUPPORTED.iter().any(|name| ident == name));
        if !supported {
            cx.error_spanned_by(
                &key,
                format!(
                    "`#[schemars({})]` is not supported on a #[tool] parameter; supported: {SCHEMARS_KEYS}",
                    shown(&key)
                ),
            );
        }
        // schemars reads the values itself, and reports its own mistakes.
        skip_value(&meta)
    });
    if let Err(error) = result {
        cx.syn_error(error);
    }
}

/// Skips what follows a key: `= value`, `(…)`, or nothing.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

fn shown(key: &TokenStream) -> String {
    key.to_string().replace(' ', "")
}
