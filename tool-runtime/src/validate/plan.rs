//! What a tool's argument types leave to be checked after they parsed, planned once per tool.
//!
//! serde enforces a schema's types, its enums and constants, its required members, the objects
//! schemars closed (`deny_unknown_fields`) and the ranges integer types imply (`u8` is 0 to 255).
//! Everything else a schema can say is checked against the parsed JSON value: the bounds an
//! author declared, lengths, patterns, sizes, unique items, member names, dependent members, and
//! the objects the runtime closed itself. The plan is the schema pruned to those places; a tool
//! whose schema carries none (todo_write) has an empty plan and pays nothing for it.

use serde_json::{Map, Value};

use super::check::{self, Violation};

/// The keywords a node's own types do not enforce.
const UNENFORCED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
];

/// The checks left after a typed parse: a schema pruned to the places that carry them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pruned: Option<Value>,
}

impl Plan {
    /// A plan that checks everything `schema` says: for a schema no types stand behind.
    pub(crate) fn everything(schema: &Value) -> Self {
        Plan {
            pruned: Some(schema.clone()),
        }
    }

    /// Whether nothing is left to check.
    pub(crate) fn is_empty(&self) -> bool {
        self.pruned.is_none()
    }

    /// The first place `value` breaks what the plan checks.
    pub(crate) fn first_violation(&self, value: &Value) -> Option<Violation> {
        check::first_violation(self.pruned.as_ref()?, value)
    }
}

/// Closes every object of a generated schema (schemars output, before normalization) that
/// declares members and says nothing of others, so an unknown member is refused, and plans the
/// checks the argument types leave.
///
/// Open maps stay open: a `HashMap`, a `serde_json::Map` and a `#[serde(flatten)]` map each say
/// what other members may be (`additionalProperties` is a schema or `true`).
pub(crate) fn close_and_plan(schema: &mut Value) -> Plan {
    Plan {
        pruned: prune(schema),
    }
}

/// The range schemars' integer `format` implies, which the integer type enforces.
pub(crate) fn implied_range(format: &str) -> (Option<Value>, Option<Value>) {
    match format {
        "int8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        "int" | "int64" => (Some(i64::MIN.into()), Some(i64::MAX.into())),
        "uint8" => (Some(0.into()), Some(u8::MAX.into())),
        "uint16" => (Some(0.into()), Some(u16::MAX.into())),
        "uint32" => (Some(0.into()), Some(u32::MAX.into())),
        "uint" | "uint64" => (Some(0.into()), Some(u64::MAX.into())),
        "uint128" => (Some(0.into()), None),
        _ => (None, None),
    }
}

/// Closes the open objects under `node` and returns the checks left at it, if any.
fn prune(node: &mut Value) -> Option<Value> {
    let Value::Object(object) = node else {
        return None;
    };
    let closed_here = declares_members(object) && !object.contains_key("additionalProperties");
    if closed_here {
        object.insert("additionalProperties".into(), false.into());
    }

    let mut out = Map::new();
    for key in UNENFORCED {
        if let Some(value) = object.get(*key) {
            out.insert((*key).to_owned(), value.clone());
        }
    }
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        let (min, max) = implied_range(format);
        for (key, implied) in [("minimum", min), ("maximum", max)] {
            if implied.is_some() && out.get(key) == implied.as_ref() {
                out.remove(key);
            }
        }
    }

    let mut properties = Map::new();
    if let Some(Value::Object(members)) = object.get_mut("properties") {
        for (name, member) in members.iter_mut() {
            match prune(member) {
                Some(pruned) => {
                    properties.insert(name.clone(), pruned);
                }
                // The names are needed where the object is closed here.
                None if closed_here => {
                    properties.insert(name.clone(), true.into());
                }
                None => {}
            }
        }
    }
    if closed_here {
        out.insert("additionalProperties".into(), false.into());
    }
    if !properties.is_empty() {
        out.insert("properties".into(), properties.into());
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key)
            && let Some(pruned) = prune(child)
        {
            out.insert(key.to_owned(), pruned);
        }
    }
    if let Some(Value::Array(prefix)) = object.get_mut("prefixItems") {
        let pruned: Vec<Option<Value>> = prefix.iter_mut().map(prune).collect();
        if pruned.iter().any(Option::is_some) {
            let pruned = pruned
                .into_iter()
                .map(|item| item.unwrap_or(Value::Bool(true)))
                .collect();
            out.insert("prefixItems".into(), Value::Array(pruned));
        }
    }
    // In a union, which branch a value takes depends on every branch's types: a union with a
    // check in any branch keeps its branches whole.
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = object.get_mut(key) {
            let mut checked = false;
            for branch in branches.iter_mut() {
                checked |= prune(branch).is_some();
            }
            if checked {
                out.insert(key.to_owned(), Value::Array(branches.clone()));
            }
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Whether a schema is a struct's: an object with declared members.
fn declares_members(object: &Map<String, Value>) -> bool {
    let is_object = match object.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => false,
    };
    is_object && object.contains_key("properties")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn types_alone_plan_nothing() {
        let mut schema = json!({"type": "object", "properties": {
            "todos": {"type": "array", "items": {"type": "object",
                "properties": {"status": {"type": "string", "enum": ["a", "b"]}},
                "required": ["status"], "additionalProperties": false}},
            "n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}},
            "additionalProperties": false});
        assert!(close_and_plan(&mut schema).is_empty());
    }

    #[test]
    fn declared_bounds_and_open_objects_are_planned_where_they_are() {
        let mut schema = json!({"type": "object", "properties": {
            "score": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 100},
            "big": {"type": "array", "items": {"type": "string"}},
            "page": {"type": "object", "properties": {"pageSize": {"type": "integer"}}},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}}},
            "additionalProperties": false});
        let plan = close_and_plan(&mut schema);
        assert_eq!(
            plan.pruned,
            Some(json!({"properties": {
                "score": {"maximum": 100},
                "page": {"additionalProperties": false, "properties": {"pageSize": true}}}}))
        );
        // The model sees the closed object; the map stays open.
        assert_eq!(
            schema["properties"]["page"]["additionalProperties"],
            json!(false)
        );
        assert!(schema["properties"]["map"]["additionalProperties"].is_object());
        assert!(
            plan.first_violation(&json!({"score": 100, "big": ["x"]}))
                .is_none()
        );
        assert_eq!(
            plan.first_violation(&json!({"page": {"page_size": 1}}))
                .map(|v| v.path),
            Some("page".to_owned())
        );
    }
}
