//! Small readings and writings of JSON values every provider's format shares.

use serde_json::{Map, Value};

use crate::turn::WireError;

/// The string member `key` of `value`, which the provider always sends (`what` names it).
pub(crate) fn required_str<'v>(
    value: &'v Value,
    key: &str,
    what: &'static str,
) -> Result<&'v str, WireError> {
    required(value.get(key), what)
}

/// A member the provider always sends as a string (`what` names it), once found.
pub(crate) fn required<'v>(
    member: Option<&'v Value>,
    what: &'static str,
) -> Result<&'v str, WireError> {
    member
        .and_then(Value::as_str)
        .ok_or(WireError::Missing(what))
}

/// Arguments sent as a JSON string (OpenAI): as they are, `""` meaning no arguments.
pub(crate) fn string_args(arguments: Option<&Value>) -> String {
    match arguments {
        Some(Value::String(text)) if text.trim().is_empty() => "{}".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "{}".to_owned(),
    }
}

/// A JSON object of these members, each moved in. (`json!` serializes what it is given: for an
/// array or object that is a copy of all of it.)
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Map::with_capacity(N);
    for (key, value) in members {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

/// The members `names` of `value` (`None` for each it lacks, or when it is no object), found in
/// one pass over its members: a block of a response has a handful, and looking each name up
/// hashes it.
pub(crate) fn members<'v, const N: usize>(
    value: &'v Value,
    names: [&str; N],
) -> [Option<&'v Value>; N] {
    let mut found = [None; N];
    if let Value::Object(object) = value {
        for (key, member) in object {
            if let Some(slot) = names.iter().position(|name| name == key) {
                found[slot] = Some(member);
            }
        }
    }
    found
}

/// Arguments sent as a JSON value (Anthropic, Gemini): its text, members in the order sent.
pub(crate) fn value_args(arguments: Option<&Value>) -> String {
    // Into bytes, not through `Display`'s formatter: a call's arguments are most of a response.
    arguments.map_or_else(
        || "{}".to_owned(),
        |arguments| serde_json::to_string(arguments).expect("a JSON value encodes"),
    )
}
