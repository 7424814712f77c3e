//! Normalization of schemars output into the one form every dialect starts from.

use serde_json::{Map, Value};

/// Schema keywords in the order they are written; others follow in alphabetical order.
const KEY_ORDER: &[&str] = &[
    "type",
    "description",
    "enum",
    "const",
    "format",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "default",
    "examples",
    "$ref",
    "$defs",
];

/// Numeric `format`s that are schemars' own, not JSON Schema's; the range they imply is kept
/// in `minimum`/`maximum`.
const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// Normalizes a schema (schemars output) into the one form every dialect starts from: no
/// `$schema` or `title`; schemars' numeric `format`s (`uint8`, `int64`, `double`…) replaced by
/// the `minimum`/`maximum` they imply; "this or null" always as `anyOf` with `{"type": "null"}`;
/// a `oneOf` whose branches cannot overlap as `anyOf`; properties in declaration order; and
/// every schema object's keys in one fixed order, so the bytes are the same on every request.
///
pub(crate) fn normalize(schema: Value) -> Value {
    match schema {
        Value::Object(object) => Value::Object(normalize_object(object)),
        other => other,
    }
}

fn normalize_object(mut object: Map<String, Value>) -> Map<String, Value> {
    object.remove("$schema");
    object.remove("title");
    if let Some(format) = object.get("format").and_then(Value::as_str)
        && NUMERIC_FORMATS.contains(&format)
    {
        // The range the format implies stays, as `minimum`/`maximum`: the parser enforces it.
        let (min, max) = crate::validate::implied_range(format);
        object.remove("format");
        if let Some(min) = min {
            object.entry("minimum").or_insert(min);
        }
        if let Some(max) = max {
            object.entry("maximum").or_insert(max);
        }
    }
    for (key, value) in &mut object {
        match key.as_str() {
            "items" | "additionalProperties" | "not" | "contains" => {
                *value = normalize(value.take());
            }
            "properties" | "$defs" | "patternProperties" => {
                if let Value::Object(children) = value {
                    for child in children.values_mut() {
                        *child = normalize(child.take());
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(children) = value {
                    for child in children {
                        *child = normalize(child.take());
                    }
                }
            }
            _ => {}
        }
    }
    let object = nullable_as_any_of(object);
    let object = documented_variants_as_enum(object);
    let object = disjoint_one_of_as_any_of(object);
    let mut entries: Vec<(String, Value)> = object.into_iter().collect();
    entries.sort_by(|(a, _), (b, _)| {
        let rank = |key: &str| {
            KEY_ORDER
                .iter()
                .position(|k| *k == key)
                .unwrap_or(KEY_ORDER.len())
        };
        rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
    });
    entries.into_iter().collect()
}

/// Keywords that describe a schema rather than constrain it: they stay outside a union.
const ANNOTATIONS: &[&str] = &["description", "default", "examples", "deprecated"];

/// One form for "this or null" everywhere: `{"type": ["integer", "null"], …}` (schemars' form for
/// an `Option` of a simple type) becomes `{"anyOf": [{"type": "integer", …}, {"type": "null"}]}`,
/// the form schemars gives an `Option` of anything else.
fn nullable_as_any_of(mut object: Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Array(types)) = object.get("type") else {
        return object;
    };
    if !types.iter().any(|t| t == "null") {
        return object;
    }
    let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    let mut outer = Map::new();
    for key in ANNOTATIONS {
        if let Some(value) = object.remove(*key) {
            outer.insert((*key).to_owned(), value);
        }
    }
    object.insert(
        "type".into(),
        match <[Value; 1]>::try_from(others) {
            Ok([only]) => only,
            Err(others) => Value::Array(others),
        },
    );
    if let Some(Value::Array(options)) = object.get_mut("enum") {
        options.retain(|option| !option.is_null());
    }
    let branch = normalize_object(object);
    outer.insert(
        "anyOf".into(),
        Value::Array(vec![
            Value::Object(branch),
            serde_json::json!({"type": "null"}),
        ]),
    );
    outer
}

/// A unit enum some of whose variants have doc comments: schemars gives a `oneOf` of
/// `{"const", "description"}` branches (and one `enum` branch of the undocumented variants, first),
/// which changes the enum's shape with its docs. It stays an `enum` of its values, in schemars'
/// order, and the variants join its description, one line each: `- "value": doc` (a variant
/// without docs is listed by its value).
fn documented_variants_as_enum(mut object: Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Array(branches)) = object.get("oneOf").or_else(|| object.get("anyOf")) else {
        return object;
    };
    // Each branch is one documented variant (`const`), or the undocumented ones (`enum`).
    let variants = |branch: &Value| -> Option<Vec<(String, Option<String>)>> {
        let branch = branch.as_object()?;
        let allowed = ["type", "const", "enum", "description"];
        if branch.keys().any(|key| !allowed.contains(&key.as_str()))
            || branch.get("type").is_some_and(|t| t != "string")
        {
            return None;
        }
        let doc = branch
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match (branch.get("const"), branch.get("enum")) {
            (Some(Value::String(value)), None) => Some(vec![(value.clone(), doc)]),
            (None, Some(Value::Array(values))) if doc.is_none() => values
                .iter()
                .map(|value| Some((value.as_str()?.to_owned(), None)))
                .collect(),
            _ => None,
        }
    };
    let Some(variants) = branches
        .iter()
        .map(variants)
        .collect::<Option<Vec<_>>>()
        .map(|lists| lists.concat())
    else {
        return object;
    };
    if variants.len() < 2 || variants.iter().all(|(_, doc)| doc.is_none()) {
        return object;
    }
    object.remove("oneOf");
    object.remove("anyOf");
    let mut description = object
        .get("description")
        .and_then(Value::as_str)
        .map(|text| format!("{text}\n"))
        .unwrap_or_default();
    for (index, (value, doc)) in variants.iter().enumerate() {
        if index > 0 {
            description.push('\n');
        }
        description.push_str("- ");
        description.push_str(&Value::from(value.as_str()).to_string());
        if let Some(doc) = doc {
            description.push_str(": ");
            description.push_str(doc);
        }
    }
    object.insert("type".into(), "string".into());
    object.insert("description".into(), description.into());
    object.insert(
        "enum".into(),
        variants
            .into_iter()
            .map(|(value, _)| Value::from(value))
            .collect(),
    );
    object
}

/// `oneOf` whose branches cannot overlap (each a distinct `const`, or each an object of one
/// required, distinct property and no others: serde's enums) means the same as `anyOf`, which
/// more providers accept.
fn disjoint_one_of_as_any_of(mut object: Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Array(branches)) = object.get("oneOf") else {
        return object;
    };
    let keys: Option<Vec<String>> = branches.iter().map(disjoint_key).collect();
    let disjoint = keys.is_some_and(|mut keys| {
        let len = keys.len();
        keys.sort();
        keys.dedup();
        keys.len() == len
    });
    if disjoint && !object.contains_key("anyOf") {
        let branches = object.remove("oneOf").expect("checked above");
        object.insert("anyOf".into(), branches);
    }
    object
}

/// What tells a `oneOf` branch apart: its `const`, or its one required property.
fn disjoint_key(branch: &Value) -> Option<String> {
    if let Some(constant) = branch.get("const") {
        return Some(format!("const {constant}"));
    }
    let closed = branch.get("additionalProperties") == Some(&Value::Bool(false));
    let required = branch.get("required")?.as_array()?;
    let properties = branch.get("properties")?.as_object()?;
    match required.as_slice() {
        [Value::String(tag)] if closed && properties.len() == 1 => Some(format!("property {tag}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn schemars_output_becomes_the_normalized_form() {
        use serde_json::json;
        let schemars_output = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {"n": {"type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255, "description": "A count."}}
        });
        assert_eq!(
            normalize(schemars_output),
            json!({
                "type": "object",
                "properties": {"n": {"description": "A count.", "anyOf": [
                    {"type": "integer", "minimum": 0, "maximum": 255},
                    {"type": "null"}
                ]}}
            })
        );
    }
}
