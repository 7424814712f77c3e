//! Model-facing definitions: each tool's name, description and normalized input schema.
//!
//! The normalized schema is inline JSON Schema (2020-12 keywords) with no `$schema`, `title`,
//! `$defs` or `$ref` for non-recursive types, no non-standard numeric `format`s (`uint8`,
//! `int64`, `double`…; `minimum`/`maximum` stay), properties in declaration order, and every
//! schema object's keys in one fixed order, so its bytes are the same on every request.

pub(crate) mod check;
mod dialect;
mod normalize;

pub use dialect::{Dialect, DialectError};
pub use normalize::normalize;

use std::borrow::Cow;
use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::args::ArgSpec;

/// A tool as a model sees it: name, description and input schema, and its renderings in each
/// provider's [`Dialect`], each computed once.
#[derive(Clone, Debug)]
pub struct Definition {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    input_schema: Value,
    /// Why the schema cannot be sent to a model, if it cannot (a recursive type).
    problem: Option<String>,
    rendered: [OnceLock<Result<Rendered, DialectError>>; Dialect::ALL.len()],
}

#[derive(Clone, Debug)]
struct Rendered {
    value: Value,
    text: String,
}

impl Definition {
    /// A definition with this input schema, normalized.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> Self {
        let input_schema = normalize(input_schema);
        let problem = input_schema.get("$defs").and_then(Value::as_object).map(|defs| {
            let names: Vec<&str> = defs.keys().map(String::as_str).collect();
            format!(
                "its arguments use the recursive type{} `{}`, which a tool schema cannot inline: give the model a finite shape",
                if names.len() == 1 { "" } else { "s" },
                names.join("`, `")
            )
        });
        Definition {
            name: name.into(),
            description: description.into(),
            input_schema,
            problem,
            rendered: Default::default(),
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
            // Recursive types cannot be inlined; they keep their references, and registering
            // the tool fails (see `problem`).
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

    /// Why this definition cannot be sent to a model, if it cannot. Registering the tool fails
    /// with it.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The provider-neutral JSON form: `{"name", "description", "input_schema"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        })
    }

    /// The definition in `dialect`, computed once.
    ///
    /// ```
    /// use tool_runtime::{Dialect, Tool, tool};
    ///
    /// /// Says hello.
    /// #[tool]
    /// fn greet(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let openai = Greet.definition().render(Dialect::OpenAi).unwrap();
    /// assert_eq!(openai["type"], "function");
    /// assert_eq!(openai["function"]["parameters"]["required"][0], "name");
    /// ```
    pub fn render(&self, dialect: Dialect) -> Result<&Value, DialectError> {
        self.rendered(dialect).map(|rendered| &rendered.value)
    }

    /// The definition in `dialect` as compact JSON text, computed once: the same bytes on every
    /// request.
    pub fn json(&self, dialect: Dialect) -> Result<&str, DialectError> {
        self.rendered(dialect)
            .map(|rendered| rendered.text.as_str())
    }

    fn rendered(&self, dialect: Dialect) -> Result<&Rendered, DialectError> {
        self.rendered[dialect.index()]
            .get_or_init(|| {
                let value = dialect::render(self, dialect)?;
                let text = value.to_string();
                Ok(Rendered { value, text })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl PartialEq for Definition {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.description == other.description
            && self.input_schema == other.input_schema
    }
}
