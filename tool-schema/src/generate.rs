//! A tool's input schema, generated from its model arguments.

use std::fmt;

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::definition::Definition;
use crate::normalize::normalize;
use crate::validate;

/// One model argument of a tool, as the input schema describes it.
#[derive(Clone, Copy)]
pub struct ArgSpec {
    /// The property name: the parameter's name.
    pub name: &'static str,
    /// The parameter's doc comment, if it has one.
    pub description: Option<&'static str>,
    /// The argument type's schema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Whether the argument may be left out (an `Option`).
    pub optional: fn() -> bool,
    /// Set for a parameter with `#[serde(default)]`: the default's JSON, when its type can say
    /// it (is `Serialize`). Such an argument may be left out or be `null`, both meaning the
    /// default, so it has a form in every dialect (OpenAI's strict mode requires every property,
    /// and takes `null` for one left out).
    pub default: Option<fn() -> Option<Value>>,
}

impl fmt::Debug for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgSpec")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Definition {
    /// The definition of a tool whose model arguments are `args`: an object with one property
    /// per argument, in order, each described by its doc comment; the arguments that are not
    /// optional are required, and no other property is allowed.
    ///
    /// Descriptions are inserted after schemars has produced the argument schemas, so nothing
    /// reshapes them: they reach the model byte for byte.
    #[doc(hidden)]
    pub fn from_args(
        name: &'static str,
        description: &'static str,
        args: &[ArgSpec],
        assert_formats: bool,
    ) -> Self {
        let mut generator = generator();
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
            if let Some(default) = arg.default.and_then(|default| default())
                && let Value::Object(object) = &mut schema
            {
                object.insert("default".into(), default);
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
        let mut schema = Value::Object(schema);
        // What the runtime checks: the schema, but that a parameter with a default also takes
        // `null`, meaning the default.
        let defaulted: Vec<&str> = args
            .iter()
            .filter(|arg| arg.default.is_some())
            .map(|arg| arg.name)
            .collect();
        let mut checked = (!defaulted.is_empty()).then(|| {
            let mut checked = schema.clone();
            if let Some(properties) = checked["properties"].as_object_mut() {
                for name in &defaulted {
                    if let Some(property) = properties.get_mut(*name) {
                        *property = nullable(std::mem::take(property));
                    }
                }
            }
            checked
        });
        // Before normalization, which drops the integer formats that tell a type's own range
        // from a declared one.
        let plan = match &mut checked {
            Some(checked) => {
                validate::close_and_plan(&mut schema, assert_formats);
                validate::close_and_plan(checked, assert_formats)
            }
            None => validate::close_and_plan(&mut schema, assert_formats),
        };
        if !definitions.is_empty() {
            // Recursive types cannot be inlined; they keep their references, and registering
            // the tool fails (see `schema_error`).
            for schema in std::iter::once(&mut schema).chain(checked.as_mut()) {
                if let Value::Object(schema) = schema {
                    schema.insert("$defs".into(), definitions.clone().into());
                }
            }
        }
        Definition::with_plan(name.into(), description.into(), normalize(schema), plan)
            .with_checked_schema(checked.map(normalize))
    }
}

/// `schema`, accepting `null` too (for a parameter with a default, in what the runtime checks,
/// and in the dialects that send `null` for an argument left out): a `type` of its own gains `"null"`, any other schema becomes
/// one branch of an `anyOf` beside `{"type": "null"}` (an `enum` or `const` would refuse it).
pub(super) fn nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    let accepts_null = |branch: &Value| {
        branch.get("type") == Some(&json!("null"))
            || branch
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|types| types.contains(&json!("null")))
    };
    if accepts_null(&Value::Object(object.clone()))
        || object
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(accepts_null))
    {
        return Value::Object(object);
    }
    let simple = !object.contains_key("enum") && !object.contains_key("const");
    match object.get_mut("type") {
        Some(Value::String(single)) if simple => {
            let single = std::mem::take(single);
            object.insert("type".into(), json!([single, "null"]));
            Value::Object(object)
        }
        Some(Value::Array(types)) if simple => {
            types.push(json!("null"));
            Value::Object(object)
        }
        _ => json!({ "anyOf": [Value::Object(object), { "type": "null" }] }),
    }
}

/// The normalized schema of `T`, a tool's output, with the settings of its input schema.
#[doc(hidden)]
pub fn output_schema<T: schemars::JsonSchema>() -> Value {
    normalize(Value::from(generator().subschema_for::<T>()))
}

/// The generator of every tool schema, input and output: draft 2020-12, subschemas inline, no
/// `$schema`.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator()
}
