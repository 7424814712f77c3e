use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;
use syn::{Expr, ExprLit, Ident, Lit, LitStr};

use crate::ctxt::Ctxt;

/// The arguments of `#[tool(name = "…", description = …, type_name = "…")]`.
pub(crate) struct Attrs {
    pub name: Option<LitStr>,
    pub description: Option<Expr>,
    /// The generated type's name, when the default collides with one of the author's.
    pub type_name: Option<Ident>,
    /// `allow_undocumented`: no warning for a model parameter without a doc comment.
    pub allow_undocumented: bool,
    /// `title = "…"`: a title for people.
    pub title: Option<LitStr>,
    /// The behaviour hints declared, by their key (`read_only`, …), with their values.
    pub hints: Vec<(&'static str, bool)>,
    /// `blocking`: the synchronous function blocks, and runs off an async host's executor.
    pub blocking: Option<proc_macro2::TokenStream>,
    /// `assert_formats`: the `format` of every string argument is checked, not only shown.
    pub assert_formats: bool,
    /// `timeout = "30s"`: how long a call may run, and the literal it was read from.
    pub timeout: Option<(std::time::Duration, LitStr)>,
    /// `scopes = "todos:write"`: the OAuth scopes a caller needs, space-separated.
    pub scopes: Vec<String>,
    /// `exclusive` or `serial`: how the tool's calls may overlap the others of a batch.
    pub concurrency: Option<Ident>,
    /// `needs_approval`: a person approves each call before it runs.
    pub needs_approval: bool,
    /// `deferred`: the definition waits until a model searches for it.
    pub deferred: bool,
    /// `task` or `task = "required"`: its calls may, or must, run as tasks (the `TaskSupport`
    /// variant).
    pub task: Option<Ident>,
    /// `asks = "person model roots"`: what the tool cannot do without asking its client (the
    /// `Asks` variants).
    pub asks: Vec<Ident>,
}

const KEYS: &str = "`name`, `description`, `title`, `read_only`, `destructive`, `idempotent`, \
    `open_world`, `blocking`, `exclusive`, `serial`, `needs_approval`, `deferred`, `task`, \
    `asks`, `timeout`, `scopes`, `assert_formats`, `type_name` or `allow_undocumented`";

/// The behaviour hints, each a flag (`read_only`) or a flag with a value (`read_only = false`).
const HINTS: &[&str] = &["read_only", "destructive", "idempotent", "open_world"];

/// Parses the attribute's arguments. Every mistake is recorded and parsing goes on, so the user
/// sees all of them at once.
pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Attrs {
    let mut name = SetOnce::new(cx, "name");
    let mut description = SetOnce::new(cx, "description");
    let mut type_name = SetOnce::new(cx, "type_name");
    let mut allow_undocumented = SetOnce::new(cx, "allow_undocumented");
    let mut title = SetOnce::new(cx, "title");
    let mut blocking = SetOnce::new(cx, "blocking");
    let mut assert_formats = SetOnce::new(cx, "assert_formats");
    let mut timeout = SetOnce::new(cx, "timeout");
    let mut scopes = SetOnce::new(cx, "scopes");
    let mut concurrency = SetOnce::new(cx, "exclusive` or `serial");
    let mut needs_approval = SetOnce::new(cx, "needs_approval");
    let mut deferred = SetOnce::new(cx, "deferred");
    let mut task = SetOnce::new(cx, "task");
    let mut asks = SetOnce::new(cx, "asks");
    let mut hints: Vec<(&'static str, bool)> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.to_token_stream();
        if meta.path.is_ident("name") {
            let value: Expr = meta.value()?.parse()?;
            match value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => name.set(&key, lit),
                other => {
                    cx.error_spanned_by(other, "expected a string literal: `name = \"my_tool\"`")
                }
            }
        } else if meta.path.is_ident("description") {
            let value: Expr = meta.value()?.parse()?;
            description.set(&key, value);
        } else if meta.path.is_ident("title") {
            let value: Expr = meta.value()?.parse()?;
            match value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => title.set(&key, lit),
                other => cx.error_spanned_by(
                    other,
                    "expected a string literal: `title = \"Read a file\"`",
                ),
            }
        } else if let Some(hint) = HINTS.iter().find(|hint| meta.path.is_ident(hint)) {
            let value = if meta.input.peek(syn::Token![=]) {
                match meta.value()?.parse::<Expr>()? {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(value),
                        ..
                    }) => Some(value.value),
                    other => {
                        cx.error_spanned_by(
                            other,
                            format!("expected `true` or `false`: `{hint}` or `{hint} = false`"),
                        );
                        None
                    }
                }
            } else {
                Some(true)
            };
            if hints.iter().any(|(name, _)| name == hint) {
                cx.error_spanned_by(&key, format!("duplicate `#[tool]` argument `{hint}`"));
            } else if let Some(value) = value {
                hints.push((hint, value));
            }
        } else if meta.path.is_ident("blocking") {
            blocking.set(&key, key.clone());
        } else if meta.path.is_ident("needs_approval") {
            needs_approval.set(&key, ());
        } else if meta.path.is_ident("deferred") {
            deferred.set(&key, ());
        } else if meta.path.is_ident("task") {
            let span = meta.path.segments[0].ident.span();
            if meta.input.peek(syn::Token![=]) {
                let value: Expr = meta.value()?.parse()?;
                let support = match &value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => match lit.value().as_str() {
                        "optional" => Some("Optional"),
                        "required" => Some("Required"),
                        _ => None,
                    },
                    _ => None,
                };
                match support {
                    Some(support) => task.set(&key, Ident::new(support, span)),
                    None => cx.error_spanned_by(
                        value,
                        "expected `task`, `task = \"optional\"` or `task = \"required\"`",
                    ),
                }
            } else {
                task.set(&key, Ident::new("Optional", span));
            }
        } else if meta.path.is_ident("asks") {
            let value: Expr = meta.value()?.parse()?;
            let parsed = match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => parse_asks(&lit.value(), lit.span()),
                _ => Err("expected a string literal".to_owned()),
            };
            match parsed {
                Ok(parsed) => asks.set(&key, parsed),
                Err(message) => cx.error_spanned_by(
                    value,
                    format!(
                        "{message}: `asks = \"person\"`, `\"model\"`, `\"roots\"`, or several, space-separated"
                    ),
                ),
            }
        } else if meta.path.is_ident("exclusive") {
            concurrency.set(
                &key,
                Ident::new("Exclusive", meta.path.segments[0].ident.span()),
            );
        } else if meta.path.is_ident("serial") {
            concurrency.set(
                &key,
                Ident::new("Serial", meta.path.segments[0].ident.span()),
            );
        } else if meta.path.is_ident("timeout") {
            let value: Expr = meta.value()?.parse()?;
            let parsed = match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => humantime::parse_duration(&lit.value())
                    .ok()
                    .filter(|duration| !duration.is_zero())
                    .map(|duration| (duration, lit.clone())),
                _ => None,
            };
            match parsed {
                Some(parsed) => timeout.set(&key, parsed),
                None => cx.error_spanned_by(
                    value,
                    "expected a duration longer than zero as a string literal: `timeout = \"30s\"`, `\"500ms\"`, `\"2m\"`",
                ),
            }
        } else if meta.path.is_ident("scopes") {
            let value: Expr = meta.value()?.parse()?;
            match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => match parse_scopes(&lit.value()) {
                    Ok(parsed) => scopes.set(&key, parsed),
                    Err(message) => cx.error_spanned_by(lit, message),
                },
                other => cx.error_spanned_by(
                    other,
                    "expected the scopes as a string literal, space-separated: \
                     `scopes = \"todos:write\"`",
                ),
            }
        } else if meta.path.is_ident("assert_formats") {
            assert_formats.set(&key, ());
        } else if meta.path.is_ident("allow_undocumented") {
            allow_undocumented.set(&key, ());
        } else if meta.path.is_ident("type_name") {
            let value: Expr = meta.value()?.parse()?;
            let ident = match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => lit
                    .parse::<Ident>()
                    .ok()
                    .map(|ident| Ident::new(&ident.to_string(), lit.span())),
                _ => None,
            };
            match ident {
                Some(ident) => type_name.set(&key, ident),
                None => cx.error_spanned_by(
                    value,
                    "expected a type name as a string literal: `type_name = \"BumpTool\"`",
                ),
            }
        } else {
            let shown = key.to_string().replace(' ', "");
            cx.error_spanned_by(
                &key,
                format!("unknown `#[tool]` argument `{shown}`; expected {KEYS}"),
            );
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<Expr>()?;
            } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                meta.input.parse::<TokenStream>()?;
            }
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    Attrs {
        name: name.value,
        description: description.value,
        type_name: type_name.value,
        allow_undocumented: allow_undocumented.value.is_some(),
        title: title.value,
        hints,
        blocking: blocking.value,
        assert_formats: assert_formats.value.is_some(),
        timeout: timeout.value,
        scopes: scopes.value.unwrap_or_default(),
        concurrency: concurrency.value,
        needs_approval: needs_approval.value.is_some(),
        deferred: deferred.value.is_some(),
        task: task.value,
        asks: asks.value.unwrap_or_default(),
    }
}

/// The `Asks` variants of `asks = "…"`: `person`, `model` and `roots`, space-separated, each
/// once.
fn parse_asks(text: &str, span: proc_macro2::Span) -> Result<Vec<Ident>, String> {
    let mut asks: Vec<Ident> = Vec::new();
    for word in text.split_whitespace() {
        let variant = match word {
            "person" => "Person",
            "model" => "Model",
            "roots" => "Roots",
            other => return Err(format!("`{other}` is not what a tool asks")),
        };
        if asks.iter().any(|known| known == variant) {
            return Err(format!("`{word}` is named twice"));
        }
        asks.push(Ident::new(variant, span));
    }
    if asks.is_empty() {
        return Err("nothing is named".to_owned());
    }
    Ok(asks)
}

/// The scopes of `scopes = "…"`: one or more scope tokens of OAuth (RFC 6749 §3.3: printable
/// ASCII but the space, `"` and `\`), space-separated, each once.
fn parse_scopes(text: &str) -> Result<Vec<String>, String> {
    let scopes: Vec<String> = text.split(' ').map(str::to_owned).collect();
    if text.trim().is_empty() {
        return Err(
            "expected one or more scopes, space-separated: `scopes = \"todos:write\"`".into(),
        );
    }
    for scope in &scopes {
        if scope.is_empty() {
            return Err(format!(
                "`{text}`: scopes are separated by one space, with none before or after"
            ));
        }
        if let Some(bad) = scope
            .chars()
            .find(|c| !matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E'))
        {
            return Err(format!(
                "`{scope}` is not a scope: it has {bad:?}, and a scope is printable ASCII \
                 without the space, `\"` or `\\` (RFC 6749)"
            ));
        }
    }
    for (index, scope) in scopes.iter().enumerate() {
        if scopes[..index].contains(scope) {
            return Err(format!("the scope `{scope}` is given twice"));
        }
    }
    Ok(scopes)
}

/// An argument that may be given once; a second occurrence is reported on its key.
struct SetOnce<'c, T> {
    cx: &'c Ctxt,
    key: &'static str,
    value: Option<T>,
}

impl<'c, T> SetOnce<'c, T> {
    fn new(cx: &'c Ctxt, key: &'static str) -> Self {
        SetOnce {
            cx,
            key,
            value: None,
        }
    }

    fn set(&mut self, tokens: &TokenStream, value: T) {
        if self.value.is_some() {
            self.cx.error_spanned_by(
                tokens,
                format!("duplicate `#[tool]` argument `{}`", self.key),
            );
        } else {
            self.value = Some(value);
        }
    }
}
