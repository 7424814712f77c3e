//! `format`, asserted: for the tools that opt in (`#[tool(assert_formats)]`).
//!
//! JSON Schema 2020-12 makes `format` an annotation: it tells the model what a string is meant
//! to be, and validators do not check it. That is the default here too. A tool that opts in has
//! every `format` on a string of its input schema checked, with the `jsonschema` crate's format
//! checkers (the same ones its `format-assertion` vocabulary uses): `date-time`, `date`, `time`,
//! `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `iri`,
//! `iri-reference`, `uri-template`, `json-pointer`, `relative-json-pointer`, `regex` and `uuid`.
//! A format it does not know fails when the tool is loaded, naming it. The checkers come with
//! the runtime's `formats` feature; without it, a tool that asserts formats fails to load and
//! says which feature to turn on.

/// The key under which a plan carries a format to assert: not `format`, which stays an
/// annotation wherever a schema is read whole.
pub(crate) const ASSERTED: &str = "x-asserted-format";

/// Whether a schema node is one whose `format` is asserted: a string's (integer and number
/// formats name the range of a type, which the type enforces).
pub(crate) fn applies(node: &serde_json::Map<String, serde_json::Value>) -> bool {
    match node.get("type") {
        Some(serde_json::Value::String(name)) => name == "string",
        Some(serde_json::Value::Array(names)) => names.iter().any(|name| name == "string"),
        _ => false,
    }
}

#[cfg(feature = "formats")]
mod checker {
    use super::super::compile::{CompileOnce, Compiled};

    /// What checks a format.
    pub(crate) type Checker = jsonschema::Validator;

    /// Every format's checker built so far.
    static CHECKERS: CompileOnce<Checker> = CompileOnce::new();

    /// The checker of `format`, built once.
    pub(crate) fn compiled(format: &str) -> Compiled<Checker> {
        CHECKERS.get(format, || {
            jsonschema::options()
                .should_validate_formats(true)
                .should_ignore_unknown_formats(false)
                .build(&serde_json::json!({ "format": format }))
                .map_err(|_| format!("format {format:?} is not one this runtime can assert"))
        })
    }

    /// Whether `text` is in `format`. A format with no checker failed when its tool was
    /// loaded; here it constrains nothing.
    pub(crate) fn accepts(checker: &Checker, text: &str) -> bool {
        checker.is_valid(&serde_json::Value::String(text.to_owned()))
    }
}

#[cfg(not(feature = "formats"))]
mod checker {
    use super::super::compile::Compiled;

    /// Stands for a checker where there can be none.
    #[derive(Debug)]
    pub(crate) enum Checker {}

    /// Without the `formats` feature there are no checkers.
    pub(crate) fn compiled(_format: &str) -> Compiled<Checker> {
        Err("asserting formats needs tool-runtime's `formats` feature".to_owned())
    }

    pub(crate) fn accepts(checker: &Checker, _text: &str) -> bool {
        match *checker {}
    }
}

pub(crate) use checker::{Checker, accepts, compiled};

/// Whether `text` is in `format`; a format with no checker constrains nothing here (it was
/// refused at load).
pub(crate) fn matches(format: &str, text: &str) -> bool {
    compiled(format).map_or(true, |checker| accepts(&checker, text))
}

/// Builds the checker of every format `plan` asserts; the first that cannot be built, why.
pub(crate) fn check_formats(plan: &serde_json::Value) -> Result<(), String> {
    super::member::each_keyword(plan, ASSERTED, &mut |format| compiled(format).map(drop))
}
