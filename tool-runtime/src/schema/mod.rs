//! Model-facing definitions: each tool's name, description and normalized input schema.
//!
//! The normalized schema is inline JSON Schema (2020-12 keywords) with no `$schema`, `title`,
//! `$defs` or `$ref` for non-recursive types, no non-standard numeric `format`s (`uint8`,
//! `int64`, `double`…; `minimum`/`maximum` stay), properties in declaration order, and every
//! schema object's keys in one fixed order, so its bytes are the same on every request.

pub(crate) mod check;

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::args::ArgSpec;

/// A tool as a model sees it: name, description and input schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    input_schema: Value,
}

impl Definition {
    /// A definition with this input schema, normalized.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> Self {
        Definition {
            name: name.into(),
            description: description.into(),
            input_schema: normalize(input_schema),
        }
    }

    /// The definition of a tool whose model arguments are `args`: an object with one property
    /// per argument, in order, each described by its doc comment; the arguments that are not
    /// optional are required, and no other property is allowed.
    ///
    /// Descriptions are inserted after schemars has produced the argument schemas, so nothing
    /// reshapes them: they reach the model byte for byte.
    pub fn from_args(name: &'static str, description: &'static str, args: &[ArgSpec]) -> Self {
        let mut generator = SchemaSettings::draft2020_12()
            .with(|settings| {
                settings.inline_subschemas = true;
                settings.meta_schema = None;
            })
            .into_generator();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for arg in args {
            let mut schema = Value::from((arg.schema)(&mut generator));
            if let Some(description) = arg.description {
                if let Value::Object(object) = &mut schema {
                    object.insert("description".into(), description.into());
                } else {
                    schema = json!({ "description": description });
                }
            }
            properties.insert(arg.name.into(), schema);
            if !(arg.optional)() {
                required.push(Value::from(arg.name));
            }
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), properties.into());
        if !required.is_empty() {
            schema.insert("required".into(), required.into());
        }
        schema.insert("additionalProperties".into(), false.into());
        let definitions = generator.take_definitions(true);
        if !definitions.is_empty() {
            // Recursive types cannot be inlined; they keep their references.
            schema.insert("$defs".into(), definitions.into());
        }
        Definition::new(name, description, Value::Object(schema))
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's description, byte for byte.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The normalized input schema.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The provider-neutral JSON form: `{"name", "description", "input_schema"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        })
    }
}

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

/// Normalizes a schema: see the module docs.
pub fn normalize(schema: Value) -> Value {
    match schema {
        Value::Object(object) => Value::Object(normalize_object(object)),
        other => other,
    }
}

fn normalize_object(mut object: Map<String, Value>) -> Map<String, Value> {
    object.remove("$schema");
    object.remove("title");
    if object
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| NUMERIC_FORMATS.contains(&format))
    {
        object.remove("format");
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
