//! A tool's input schema, generated from its model arguments.

use std::fmt;

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::{Definition, normalize};
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
        // Before normalization, which drops the integer formats that tell a type's own range
        // from a declared one.
        let plan = validate::close_and_plan(&mut schema, assert_formats);
        if !definitions.is_empty()
            && let Value::Object(schema) = &mut schema
        {
            // Recursive types cannot be inlined; they keep their references, and registering
            // the tool fails (see `schema_error`).
            schema.insert("$defs".into(), definitions.into());
        }
        Definition::with_plan(name.into(), description.into(), normalize(schema), plan)
    }
}

/// The normalized schema of `T`, a tool's output, with the settings of its input schema.
#[doc(hidden)]
pub fn output_schema<T: crate::output::StructuredOutput>() -> Value {
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
