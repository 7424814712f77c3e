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
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};

    /// A format's checker, or why there is none.
    pub(crate) type Compiled = Result<Arc<jsonschema::Validator>, String>;

    fn cache() -> &'static Mutex<HashMap<String, Compiled>> {
        static CACHE: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
        CACHE.get_or_init(Mutex::default)
    }

    /// The checker of `format`, built once.
    pub(crate) fn compiled(format: &str) -> Compiled {
        let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry(format.to_owned())
            .or_insert_with(|| {
                jsonschema::options()
                    .should_validate_formats(true)
                    .should_ignore_unknown_formats(false)
                    .build(&serde_json::json!({ "format": format }))
                    .map(Arc::new)
                    .map_err(|_| format!("format {format:?} is not one this runtime can assert"))
            })
            .clone()
    }

    /// Whether `text` is in `format`. A format with no checker failed when its tool was
    /// loaded; here it constrains nothing.
    pub(crate) fn accepts(checker: &jsonschema::Validator, text: &str) -> bool {
        checker.is_valid(&serde_json::Value::String(text.to_owned()))
    }
}

#[cfg(not(feature = "formats"))]
mod checker {
    use std::sync::Arc;

    /// Stands for a checker where there can be none.
    #[derive(Debug)]
    pub(crate) enum Never {}

    /// A format's checker, or why there is none.
    pub(crate) type Compiled = Result<Arc<Never>, String>;

    /// Without the `formats` feature there are no checkers.
    pub(crate) fn compiled(_format: &str) -> Compiled {
        Err("asserting formats needs tool-runtime's `formats` feature".to_owned())
    }

    pub(crate) fn accepts(checker: &Never, _text: &str) -> bool {
        match *checker {}
    }
}

pub(crate) use checker::{Compiled, accepts, compiled};

/// Whether `text` is in `format`; a format with no checker constrains nothing here (it was
/// refused at load).
pub(crate) fn matches(format: &str, text: &str) -> bool {
    compiled(format).map_or(true, |checker| accepts(&checker, text))
}

/// Builds the checker of every format `plan` asserts; the first that cannot be built, why.
pub(crate) fn check_formats(plan: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    match plan {
        Value::Object(object) => {
            if let Some(Value::String(format)) = object.get(ASSERTED) {
                compiled(format)?;
            }
            object.values().try_for_each(check_formats)
        }
        Value::Array(items) => items.iter().try_for_each(check_formats),
        _ => Ok(()),
    }
}
