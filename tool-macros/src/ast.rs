use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, PathArguments,
    Receiver, Type,
};

use crate::attr::Attrs;
use crate::ctxt::Ctxt;
use crate::param_attr::{self, ParamAttrs};

/// A function under `#[tool]`, its parameters classified.
pub(crate) struct ToolFn {
    /// The function as it is emitted: the user's, with the parameters' doc comments removed.
    pub item: ItemFn,
    pub attrs: Attrs,
    pub receiver: Option<Receiver>,
    pub params: Vec<Param>,
    /// The function's doc comment as a `&'static str` expression.
    pub doc: Option<TokenStream>,
}

pub(crate) struct Param {
    pub pat: Pat,
    pub ty: Type,
    pub kind: Kind,
    /// The parameter's doc comment as a `&'static str` expression, and its first attribute for
    /// spans.
    pub doc: Option<(TokenStream, Attribute)>,
    /// Its `#[serde]` and `#[schemars]` attributes.
    pub attrs: ParamAttrs,
}

pub(crate) enum Kind {
    /// Filled by the call or the host, never by the model: `&Exec`, `Agent`, `Cancel`,
    /// `Principal`, `Progress`, `Logger`, `Ask`, `Detach`, `Option<Agent>`,
    /// `Service<T>`, `Option<Service<T>>`. `injects` is the `T` of a `Service<T>`, a host service
    /// the tool's plugin cannot load without.
    Context { injects: Option<Box<Type>> },
    /// A property of the input schema.
    Model,
}

impl ToolFn {
    pub fn from_syn(cx: &Ctxt, attrs: Attrs, mut item: ItemFn) -> Self {
        let doc = doc_text(&item.attrs);
        let mut receiver = None;
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(self_param) => receiver = Some(self_param.clone()),
                FnArg::Typed(typed) => {
                    let doc_attr = typed.attrs.iter().find(|attr| is_doc(attr)).cloned();
                    let doc = doc_text(&typed.attrs).zip(doc_attr);
                    typed.attrs.retain(|attr| !is_doc(attr));
                    let param_attrs = param_attr::take(cx, &mut typed.attrs);
                    params.push(Param {
                        pat: (*typed.pat).clone(),
                        ty: (*typed.ty).clone(),
                        kind: classify(&typed.ty),
                        doc,
                        attrs: param_attrs,
                    });
                }
            }
        }
        ToolFn {
            item,
            attrs,
            receiver,
            params,
            doc,
        }
    }

    pub fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The tool's name: `name = "…"`, else the function's name.
    pub fn name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value(),
            None => self.ident().unraw().to_string(),
        }
    }

    /// The generated type's name: `type_name = "…"`, else the function's name in
    /// `UpperCamelCase`.
    pub fn type_ident(&self) -> Ident {
        if let Some(ident) = &self.attrs.type_name {
            return ident.clone();
        }
        let ident = self.ident();
        Ident::new(&upper_camel_case(&ident.unraw().to_string()), ident.span())
    }
}

/// What a tool function returns, read from how its return type is spelled.
pub(crate) enum Returns {
    /// Text (`String`, `&'static str`, `Cow<'static, str>`, `ToolOutput`), or a `Result` of it:
    /// turned into the output by `IntoToolOutput`.
    Text,
    /// Data: any other type `T`, or `Result<T, E>`.
    Data { ty: Box<Type>, result: bool },
}

impl ToolFn {
    /// Whether the function returns text or data, and which type of data.
    pub fn returns(&self) -> Returns {
        let syn::ReturnType::Type(_, ty) = &self.item.sig.output else {
            return Returns::Text;
        };
        let (success, result) = match single_type_arg_any(ty, "Result") {
            Some(success) => (success, true),
            None => (&**ty, false),
        };
        let text = match success {
            Type::Reference(_) | Type::ImplTrait(_) | Type::Never(_) => true,
            Type::Tuple(tuple) => tuple.elems.is_empty(),
            Type::Path(path) => path.path.segments.last().is_some_and(|last| {
                [
                    "String",
                    "str",
                    "Cow",
                    "ToolOutput",
                    "Image",
                    "Audio",
                    "EmbeddedResource",
                ]
                .iter()
                .any(|name| last.ident == name)
            }),
            _ => false,
        };
        if text {
            Returns::Text
        } else {
            Returns::Data {
                ty: Box::new(success.clone()),
                result,
            }
        }
    }
}

/// The first type argument of `ty` when its last path segment is `name` (`Result<T, E>` → `T`).
fn single_type_arg_any<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

impl Param {
    /// The property name: `#[serde(rename = "…")]`, else the parameter's name without `r#`.
    pub fn name(&self) -> String {
        if let Some(rename) = &self.attrs.rename {
            return rename.value();
        }
        match &self.pat {
            Pat::Ident(pat) => pat.ident.unraw().to_string(),
            other => other.to_token_stream().to_string(),
        }
    }
}

fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// Doc attributes as one string expression: each line loses one leading space if it has one, and
/// the lines are joined with `\n`. A doc attribute that is not a literal (`#[doc =
/// include_str!(…)]`) is taken as it is.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<TokenStream> {
    let mut parts = Vec::new();
    for attr in attrs.iter().filter(|attr| is_doc(attr)) {
        let Meta::NameValue(name_value) = &attr.meta else {
            continue;
        };
        let part = match &name_value.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => {
                let text = lit
                    .value()
                    .split('\n')
                    .map(|line| line.strip_prefix(' ').unwrap_or(line))
                    .collect::<Vec<_>>()
                    .join("\n");
                quote!(#text)
            }
            other => other.to_token_stream(),
        };
        parts.push(part);
    }
    match parts.as_slice() {
        [] => None,
        [only] => Some(only.clone()),
        _ => Some(joined(&parts)),
    }
}

fn joined(parts: &[TokenStream]) -> TokenStream {
    let mut tokens = TokenStream::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            tokens.extend(quote!("\n",));
        }
        tokens.extend(quote!(#part,));
    }
    quote!(::core::concat!(#tokens))
}

/// Classifies a parameter by how its type is spelled. The runtime's `FromCall` and `ModelArg`
/// bounds back this up, so a misread (an alias of `Agent`, say) is a compile error, not a silent
/// change of meaning.
fn classify(ty: &Type) -> Kind {
    match ty {
        Type::Reference(reference)
            if reference.mutability.is_none() && last_ident_is(&reference.elem, "Exec") =>
        {
            Kind::Context { injects: None }
        }
        _ if [
            "Agent",
            "Cancel",
            "Progress",
            "Logger",
            "Ask",
            "Detach",
            "Principal",
        ]
        .iter()
        .any(|name| last_ident_is(ty, name)) =>
        {
            Kind::Context { injects: None }
        }
        _ => match single_type_arg(ty) {
            Some(("Option", inner)) if last_ident_is(inner, "Agent") => {
                Kind::Context { injects: None }
            }
            // A service the tool can do without: resolved per call, not injected.
            Some(("Option", inner)) if matches!(single_type_arg(inner), Some(("Service", _))) => {
                Kind::Context { injects: None }
            }
            Some(("Service", inner)) => Kind::Context {
                injects: Some(Box::new(inner.clone())),
            },
            _ => Kind::Model,
        },
    }
}

/// Whether `ty` is a path whose last segment is `name`, without generic arguments.
pub(crate) fn last_ident_is(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == name && segment.arguments.is_none()),
        _ => false,
    }
}

/// `Name<T>` as (`Name`, `T`).
fn single_type_arg(ty: &Type) -> Option<(&'static str, &Type)> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    let name = ["Option", "Service"]
        .into_iter()
        .find(|name| segment.ident == name)?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.first() {
        Some(GenericArgument::Type(inner)) if args.args.len() == 1 => Some((name, inner)),
        _ => None,
    }
}

fn upper_camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    for part in snake.split('_').filter(|part| !part.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        "Tool".to_owned()
    } else {
        out
    }
}
