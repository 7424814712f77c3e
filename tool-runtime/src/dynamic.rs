//! Tools defined at run time: [`DynamicTool`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::agent::Agent;
use crate::cancel::Cancel;
use crate::error::LoadError;
use crate::exec::Exec;
use crate::future::ToolFuture;
use crate::output::{IntoToolOutput, ToolOutput};
use crate::progress::Progress;
use crate::service::Service;
use crate::tool::{Invocation, Tool};
use tool_schema::validate::StrictValue;
use tool_schema::{Annotations, Definition};

/// A tool defined at run time: a name, a description and a JSON schema known only when the host
/// runs (from a config file, a plugin, an OpenAPI document, another MCP server), with a handler.
///
/// They keep the contract of a `#[tool]` function: the schema is checked when the tool is built
/// (a keyword the runtime does not enforce, a look-around pattern, a recursive reference: a
/// [`LoadError`] naming the tool and the construct), a model's arguments are validated against it
/// before the handler runs, with the same path-aware texts (`Error: invalid arguments: todos[1]:
/// …`), and the host's dialects, caps, deadlines and cancellation apply as to any tool.
///
/// ```
/// use serde_json::{Value, json};
/// use tool_runtime::{Ctx, DynamicTool, Exec};
///
/// let greet = DynamicTool::builder(
///     "greet",
///     "Greets someone by name.",
///     json!({
///         "type": "object",
///         "properties": {"name": {"type": "string", "minLength": 1}},
///         "required": ["name"],
///         "additionalProperties": false
///     }),
/// )
/// .handler(|_call, args: Value| format!("Hello, {}!", args["name"].as_str().unwrap_or("")))
/// .unwrap();
///
/// let mut ctx = Ctx::new();
/// ctx.tool(greet).unwrap();
/// let out = ctx.tools.call("greet", &Exec::new(), r#"{"name": "Ada"}"#).wait();
/// assert_eq!(out.text, "Hello, Ada!");
/// let out = ctx.tools.call("greet", &Exec::new(), r#"{"name": ""}"#).wait();
/// assert_eq!(
///     out.text,
///     "Error: invalid arguments: name: expected a string of at least 1 characters, got a \
///      string of 0 characters"
/// );
/// ```
pub struct DynamicTool {
    definition: Definition,
    handler: Handler,
    source: Option<String>,
    unchecked: bool,
}

type ValueFn = dyn Fn(&Call, Value) -> ToolOutput + Send + Sync;
type RawFn = dyn Fn(&Call, &str) -> ToolOutput + Send + Sync;
type AsyncFn =
    dyn Fn(Call, Value) -> std::pin::Pin<Box<dyn Future<Output = ToolOutput> + Send>> + Send + Sync;

enum Handler {
    Value(Arc<ValueFn>),
    Raw(Arc<RawFn>),
    Async(Arc<AsyncFn>),
}

/// What a runtime-defined tool's handler knows of its call besides the arguments: the context
/// parameters a `#[tool]` function declares ([`Exec`], [`Agent`], [`Cancel`], [`Progress`], a
/// host [`Service`]).
pub struct Call {
    exec: Exec,
    cancel: Cancel,
    progress: Progress,
    services: crate::service::Services,
    tool: String,
}

impl Call {
    fn of(invocation: &Invocation<'_>) -> Self {
        Call {
            exec: invocation.exec.clone(),
            cancel: invocation.cancel.clone(),
            progress: Progress::new(
                invocation.exec.progress.as_ref(),
                invocation.tool,
                invocation.exec.call_id.as_deref(),
            ),
            services: invocation.services.clone(),
            tool: invocation.tool.to_owned(),
        }
    }

    /// The host's context for the call.
    pub fn exec(&self) -> &Exec {
        &self.exec
    }

    /// The owning agent, if the call has one.
    pub fn agent(&self) -> Option<&Agent> {
        self.exec.agent.as_ref()
    }

    /// The owning agent, or the error a `#[tool]` function with an `Agent` parameter answers
    /// (`Error: <tool> requires an owning agent session`, returned as the handler's error).
    pub fn require_agent(&self) -> Result<&Agent, crate::ToolError> {
        self.agent().ok_or_else(|| {
            crate::ToolError::new(format!("{} requires an owning agent session", self.tool))
        })
    }

    /// The call's cancellation: the host's, or its deadline's.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Where the call reports its progress.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The host service of type `T`, if the host provided one.
    pub fn service<T: Send + Sync + 'static>(&self) -> Option<Service<T>> {
        self.services.get::<T>()
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.tool)
            .field("exec", &self.exec)
            .finish_non_exhaustive()
    }
}

/// The parts of a [`DynamicTool`] before its handler: see [`DynamicTool::builder`].
#[derive(Debug)]
#[must_use = "a tool is built by one of the handler methods"]
pub struct DynamicToolBuilder {
    name: String,
    description: String,
    input_schema: Value,
    output_schema: Option<Value>,
    annotations: Annotations,
    timeout: Option<Duration>,
    source: Option<String>,
    unchecked: bool,
    concurrency: tool_schema::Concurrency,
    needs_approval: bool,
    deferred: bool,
    namespace: Option<(String, String)>,
    task_support: tool_schema::TaskSupport,
}

impl DynamicTool {
    /// A tool named `name` (as the model sees it), described to the model by `description`
    /// (byte for byte), whose arguments `input_schema` describes: a JSON Schema of an object.
    pub fn builder(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> DynamicToolBuilder {
        DynamicToolBuilder {
            name: name.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            annotations: Annotations::new(),
            timeout: None,
            source: None,
            unchecked: false,
            concurrency: tool_schema::Concurrency::Parallel,
            needs_approval: false,
            deferred: false,
            namespace: None,
            task_support: tool_schema::TaskSupport::Never,
        }
    }
}

impl DynamicToolBuilder {
    /// The schema of the data the tool returns: its results are then data, their text the
    /// data's JSON (MCP's `structuredContent`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// What the tool declares of itself: a title and behaviour hints.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// A human-readable title (MCP's `title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.annotations = self.annotations.with_title(title.into());
        self
    }

    /// How long a call may run (an async handler's): past it the call answers that it timed
    /// out and its [`Cancel`] is cancelled.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How the tool's calls may overlap the others of a batch (see
    /// [`Concurrency`](crate::Concurrency)).
    pub fn concurrency(mut self, concurrency: tool_schema::Concurrency) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Each call waits for a person's approval, in a host that asks.
    pub fn needs_approval(mut self) -> Self {
        self.needs_approval = true;
        self
    }

    /// Its definition waits until a model searches for it (see
    /// [`Definition::with_deferred`](crate::Definition::with_deferred)).
    pub fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// The group it is searched in when deferred, and what the group's tools are for (see
    /// [`Definition::with_namespace`](crate::Definition::with_namespace)).
    pub fn namespace(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.namespace = Some((name.into(), description.into()));
        self
    }

    /// Whether its calls may run as tasks (MCP's tasks extension; see
    /// [`TaskSupport`](crate::TaskSupport)): each is one from its start.
    pub fn task(mut self, support: tool_schema::TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Where the tool came from (`MCP server \`files\``, `tools.json`): a refusal of two tools
    /// of one name says it, where it would otherwise name the tool's type.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Shows the model the input schema as written (to MCP clients byte for byte, `$schema` and
    /// `$defs` kept; to providers normalized, references inlined where they can be) and does not
    /// enforce it: a keyword the runtime does not check is not refused, and a call's arguments
    /// are only checked to be a JSON object, the rest left to the handler (for a handler that
    /// forwards them to someone who checks them: another MCP server). A schema the runtime
    /// cannot even read (a recursive type, a pattern it cannot compile) is still refused.
    pub fn unchecked(mut self) -> Self {
        self.unchecked = true;
        self
    }

    /// The tool, whose handler takes the arguments as a JSON value, checked against the schema.
    pub fn handler<O: IntoToolOutput>(
        self,
        handler: impl Fn(&Call, Value) -> O + Send + Sync + 'static,
    ) -> Result<DynamicTool, LoadError> {
        self.build(Handler::Value(Arc::new(move |call, args| {
            handler(call, args).into_tool_output()
        })))
    }

    /// The tool, whose handler takes the arguments as the JSON text the model sent, checked
    /// against the schema (for a handler that forwards it, to another server say, unchanged).
    ///
    /// The text is checked as it is read, with no JSON value built for it (one is built only
    /// to word a refusal): the cheapest way to serve a runtime-defined tool, about the cost of
    /// a `#[tool]` function's typed parse.
    pub fn raw_handler<O: IntoToolOutput>(
        self,
        handler: impl Fn(&Call, &str) -> O + Send + Sync + 'static,
    ) -> Result<DynamicTool, LoadError> {
        self.build(Handler::Raw(Arc::new(move |call, args| {
            handler(call, args).into_tool_output()
        })))
    }

    /// The tool, whose handler is async: awaited by an async host, driven on a runtime by a
    /// synchronous one, as an `async fn` tool is.
    pub fn async_handler<O, F>(
        self,
        handler: impl Fn(Call, Value) -> F + Send + Sync + 'static,
    ) -> Result<DynamicTool, LoadError>
    where
        O: IntoToolOutput,
        F: Future<Output = O> + Send + 'static,
    {
        let handler = Arc::new(handler);
        self.build(Handler::Async(Arc::new(move |call, args| {
            let future = handler(call, args);
            Box::pin(async move { future.await.into_tool_output() })
        })))
    }

    fn build(mut self, handler: Handler) -> Result<DynamicTool, LoadError> {
        let schema_error = |reason: String| LoadError::Schema {
            tool: self.name.clone(),
            reason,
        };
        // An unchecked tool is shown to MCP clients with its schema as written.
        let as_written = self.unchecked.then(|| self.input_schema.clone());
        match inline_references(&self.input_schema) {
            Ok(inlined) => self.input_schema = inlined,
            // Shown as written: the references stay for the model to read.
            Err(_) if self.unchecked => {}
            Err(reason) => return Err(schema_error(reason)),
        }
        if !valid_name(&self.name) {
            return Err(schema_error(format!(
                "{} is not a tool name: a letter or `_`, then at most 63 letters, digits, `_` \
                 or `-` (the rule #[tool] holds names to)",
                crate::text::quote(&self.name)
            )));
        }
        match self.input_schema.get("type") {
            Some(Value::String(kind)) if kind == "object" => {}
            _ => {
                return Err(schema_error(
                    "the input schema must be an object's (`\"type\": \"object\"`)".to_owned(),
                ));
            }
        }
        if !self.unchecked {
            unenforced(&self.input_schema, "arguments").map_err(schema_error)?;
        }
        let mut definition = Definition::new(
            self.name.clone(),
            self.description.clone(),
            self.input_schema.clone(),
        )
        .with_annotations(self.annotations.clone())
        .with_concurrency(self.concurrency)
        .with_task_support(self.task_support)
        .with_synchronous(!matches!(handler, Handler::Async(_)));
        if let Some(schema) = &self.output_schema {
            definition = definition.with_output_schema(schema.clone());
        }
        if let Some(timeout) = self.timeout {
            definition = definition.with_timeout(timeout);
        }
        if self.deferred {
            definition = definition.with_deferred();
        }
        if let Some((name, description)) = &self.namespace {
            definition = definition.with_namespace(name.clone(), description.clone());
        }
        if self.needs_approval {
            definition = definition.with_needs_approval();
        }
        if let Some(schema) = as_written {
            definition = definition.with_schema_as_written(schema);
        }
        if let Some(reason) = definition.schema_error() {
            return Err(schema_error(reason.to_owned()));
        }
        Ok(DynamicTool {
            definition,
            handler,
            source: self.source,
            unchecked: self.unchecked,
        })
    }
}

/// `schema` with each reference to its own definitions (`$ref` to `#/$defs/<name>` or
/// `#/definitions/<name>`, as pydantic and schemars write a nested type) replaced by the
/// definition, and the definitions dropped: the inline form the runtime enforces and a model
/// reads. A reference that names itself, at any depth, cannot be inlined (a recursive type);
/// one to anything else is not one the runtime resolves.
fn inline_references(schema: &Value) -> Result<Value, String> {
    let Value::Object(root) = schema else {
        return Ok(schema.clone());
    };
    let mut definitions = serde_json::Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(defs) = root.get(key) {
            let Value::Object(defs) = defs else {
                return Err(format!("`{key}` is not an object of schemas"));
            };
            for (name, definition) in defs {
                definitions.insert(format!("#/{key}/{name}"), definition.clone());
            }
        }
    }
    let mut root = root.clone();
    root.remove("$defs");
    root.remove("definitions");
    let mut within = Within::default();
    inline(Value::Object(root), &definitions, &mut within)
}

/// The references being inlined, outermost first, and how many were so far.
#[derive(Default)]
struct Within {
    references: Vec<String>,
    inlined: usize,
}

/// The most references one schema may inline: a definition used twice in one used twice… grows
/// as a power, and a schema from elsewhere may be written so.
const MAX_INLINED: usize = 4096;

fn inline(
    schema: Value,
    definitions: &serde_json::Map<String, Value>,
    within: &mut Within,
) -> Result<Value, String> {
    match schema {
        Value::Object(mut object) => {
            if let Some(reference) = object.remove("$ref") {
                let Some(target) = reference.as_str().and_then(|r| definitions.get(r)) else {
                    return Err(format!(
                        "the reference {reference} is not to one of the schema's own \
                         definitions (`#/$defs/<name>`)"
                    ));
                };
                let reference = reference.as_str().unwrap_or_default().to_owned();
                if within.references.contains(&reference) {
                    let name = reference.rsplit('/').next().unwrap_or_default();
                    return Err(format!(
                        "its arguments use the recursive type `{name}`, which a tool schema \
                         cannot inline: give the model a finite shape"
                    ));
                }
                within.inlined += 1;
                if within.inlined > MAX_INLINED {
                    return Err(format!(
                        "it inlines more than {MAX_INLINED} references: the schema is too large \
                         to give a model"
                    ));
                }
                within.references.push(reference);
                let target = inline(target.clone(), definitions, within);
                within.references.pop();
                let target = target?;
                // Keywords beside the reference apply too: annotations (a description, a
                // default) join the definition; anything else is the conjunction JSON Schema
                // makes of them.
                let beside = inline(Value::Object(object), definitions, within)?;
                let Value::Object(beside) = beside else {
                    unreachable!("an object stays an object")
                };
                if beside.is_empty() {
                    return Ok(target);
                }
                let annotation_only = beside.keys().all(|key| {
                    matches!(
                        key.as_str(),
                        "title"
                            | "description"
                            | "default"
                            | "examples"
                            | "deprecated"
                            | "$comment"
                    )
                });
                return Ok(match target {
                    Value::Object(mut target) if annotation_only => {
                        target.extend(beside);
                        Value::Object(target)
                    }
                    target => {
                        let mut all = beside;
                        all.insert("allOf".into(), Value::Array(vec![target]));
                        Value::Object(all)
                    }
                });
            }
            let mut out = serde_json::Map::with_capacity(object.len());
            for (key, value) in object {
                let value = match key.as_str() {
                    // Data, not schemas: kept as written.
                    "enum" | "const" | "default" | "examples" | "required" => value,
                    "properties" | "patternProperties" => match value {
                        Value::Object(members) => Value::Object(
                            members
                                .into_iter()
                                .map(|(name, schema)| {
                                    inline(schema, definitions, within).map(|s| (name, s))
                                })
                                .collect::<Result<_, _>>()?,
                        ),
                        other => other,
                    },
                    _ => match value {
                        value @ Value::Object(_) => inline(value, definitions, within)?,
                        Value::Array(items) => Value::Array(
                            items
                                .into_iter()
                                .map(|item| match item {
                                    item @ Value::Object(_) => inline(item, definitions, within),
                                    item => Ok(item),
                                })
                                .collect::<Result<_, _>>()?,
                        ),
                        value => value,
                    },
                };
                out.insert(key, value);
            }
            Ok(Value::Object(out))
        }
        other => Ok(other),
    }
}

/// The keywords the runtime reads (see the validator) and the annotations it shows; anything
/// else in a schema would be promised to the model and not kept.
const KNOWN: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "dependentRequired",
    "minProperties",
    "maxProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "oneOf",
    "allOf",
    "format",
    // Annotations: shown, asserting nothing.
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "nullable",
];

/// The formats a schema may name: JSON Schema 2020-12's (which `#[tool(assert_formats)]`
/// checks), and the integer and number formats schemars writes for Rust's types.
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "uuid",
    "int8",
    "int16",
    "int32",
    "int64",
    "int",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uint",
    "float",
    "double",
];

/// The first keyword of `schema` the runtime would not enforce, with where it is.
fn unenforced(schema: &Value, path: &str) -> Result<(), String> {
    let Value::Object(object) = schema else {
        return match schema {
            Value::Bool(_) => Ok(()),
            _ => Err(format!("{path} is not a schema")),
        };
    };
    if let Some(keyword) = object.keys().find(|key| !KNOWN.contains(&key.as_str())) {
        return Err(format!(
            "`{keyword}` at {path} is a keyword the runtime does not enforce"
        ));
    }
    if let Some(format) = object.get("format") {
        match format.as_str() {
            Some(name) if FORMATS.contains(&name) => {}
            _ => {
                return Err(format!(
                    "the format {format} at {path} is not one the runtime knows ({})",
                    FORMATS.join(", ")
                ));
            }
        }
    }
    let subschemas = |key: &str| -> Vec<(String, &Value)> {
        match object.get(key) {
            Some(Value::Object(members)) if key == "properties" => members
                .iter()
                .map(|(name, schema)| (format!("{path}.{name}"), schema))
                .collect(),
            Some(Value::Array(branches)) if key != "required" && key != "enum" => branches
                .iter()
                .enumerate()
                .map(|(index, schema)| (format!("{path}[{index}]"), schema))
                .collect(),
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => vec![(path.to_owned(), schema)],
            _ => Vec::new(),
        }
    };
    for key in [
        "properties",
        "items",
        "prefixItems",
        "additionalProperties",
        "propertyNames",
        "anyOf",
        "oneOf",
        "allOf",
    ] {
        for (at, subschema) in subschemas(key) {
            unenforced(subschema, &at)?;
        }
    }
    Ok(())
}

/// What an unchecked tool's arguments are held to: a JSON object.
static AN_OBJECT: std::sync::LazyLock<tool_schema::validate::Plan> =
    std::sync::LazyLock::new(|| {
        tool_schema::validate::Plan::everything(&serde_json::json!({"type": "object"}))
    });

impl Tool for DynamicTool {
    fn definition(&self) -> &Definition {
        &self.definition
    }

    fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    fn call<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        // The text is checked as it is read: a value is built only for a handler that takes
        // one, or to word a refusal.
        let plan = match self.unchecked {
            true => &*AN_OBJECT,
            false => self.definition.plan(),
        };
        if let Ok(false) = plan.is_violated_by_text(call.args) {
            let args = match &self.handler {
                Handler::Raw(handler) => {
                    return ToolFuture::ready(handler(&Call::of(&call), call.args));
                }
                // Each member is named once: the plain reading builds what the strict one would.
                _ => serde_json::from_str::<Value>(call.args),
            };
            if let Ok(args) = args {
                return self.handle(&call, args);
            }
        }
        // Text that is not a JSON value (or names a member twice) takes the shared path, for
        // its words.
        let args = match serde_json::from_str::<StrictValue>(call.args) {
            Ok(StrictValue(args)) => args,
            Err(_) => match crate::args::parse_args::<StrictValue>(&self.definition, call.args) {
                Ok(StrictValue(args)) => args,
                Err(refused) => return ToolFuture::ready(refused),
            },
        };
        // No types stand behind the schema: all of it is checked, in the words and order a
        // macro tool's refusal has.
        let schema = self.definition.checked_schema();
        if self.unchecked {
            if !args.is_object() {
                return ToolFuture::ready(crate::refusal::invalid_args(
                    "",
                    format!("expected an object, got {}", kind_of(&args)),
                ));
            }
        } else if self.definition.plan().is_violated_by(&args) {
            // The compiled checks found a fault; the schema is walked to say where and how.
            return ToolFuture::ready(
                match tool_schema::validate::first_violation(schema, &args) {
                    Some(violation) => {
                        crate::refusal::invalid_args(&violation.path, violation.message)
                    }
                    None => {
                        crate::refusal::invalid_args("", "the arguments break the tool's schema")
                    }
                },
            );
        }
        self.handle(&call, args)
    }
}

impl DynamicTool {
    /// Calls the handler with checked arguments.
    fn handle<'a>(&'a self, call: &Invocation<'a>, mut args: Value) -> ToolFuture<'a> {
        // An integer written `2.0` is one, as JSON Schema counts: the handler reads `2`.
        if !self.unchecked && has_integral_float(&args) {
            tool_schema::validate::coerce_integers(self.definition.checked_schema(), &mut args);
        }
        match &self.handler {
            Handler::Value(handler) => ToolFuture::ready(handler(&Call::of(call), args)),
            Handler::Raw(handler) => ToolFuture::ready(handler(&Call::of(call), call.args)),
            Handler::Async(handler) => ToolFuture::boxed(handler(Call::of(call), args)),
        }
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.definition.name())
            .finish_non_exhaustive()
    }
}

/// Whether `value` holds a number written with a fraction or an exponent that is a whole number
/// (`2.0`, `1e3`): only then may the schema read one as an integer (a walk of the value alone,
/// where rewriting walks the schema too).
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => {
            !number.is_i64()
                && !number.is_u64()
                && number.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(members) => members.values().any(has_integral_float),
        _ => false,
    }
}

/// A JSON value's kind, as a refusal names it.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The rule `#[tool]` holds names to: a letter or `_`, then at most 63 letters, digits, `_` or
/// `-`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64
}
