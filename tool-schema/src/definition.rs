//! A tool as a model sees it ([`Definition`]) and how its calls may overlap ([`Concurrency`]).

use std::borrow::Cow;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

use crate::annotations::Annotations;
use crate::dialect::{self, Dialect, DialectError, Parts};
use crate::normalize::normalize;
use crate::validate::{self, Plan};

/// How a tool's calls may overlap the other calls of one batch (a model's turn).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Concurrency {
    /// Beside any others (the default).
    #[default]
    Parallel,
    /// Beside others, but never beside another call of the same tool (`#[tool(serial)]`: one
    /// list per agent, say).
    Serial,
    /// Alone: no other call of the batch runs while it does (`#[tool(exclusive)]`).
    Exclusive,
}

/// Whether a tool's calls may run as tasks (MCP's tasks extension): answered at once with a
/// handle the client polls, the call going on in the background.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: each call is answered when it ends (the default).
    #[default]
    Never,
    /// For a client that speaks the tasks extension; any other waits for the call's end
    /// (`#[tool(task)]`).
    Optional,
    /// Only as a task: a client that does not speak the extension is refused
    /// (`#[tool(task = "required")]`).
    Required,
}

/// What a tool cannot do without asking of the client that calls it (`#[tool(asks = "model")]`):
/// a client that declares it cannot answer is refused before the call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Asks {
    /// The person, through a form (MCP's elicitation).
    Person,
    /// The client's model (MCP's sampling).
    Model,
    /// The client's roots.
    Roots,
}

/// A tool as a model sees it: name, description and input schema, and its renderings in each
/// provider's [`Dialect`], each computed once.
#[derive(Clone, Debug)]
pub struct Definition {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    input_schema: Value,
    /// What the runtime checks the arguments against when it is not the input schema: that
    /// schema with its defaulted parameters also taking `null` (the default).
    checked_schema: Option<Value>,
    /// Why the schema cannot be sent to a model, if it cannot (a recursive type).
    schema_error: Option<String>,
    /// What the argument types leave to check, planned once.
    plan: Plan,
    annotations: Annotations,
    /// The normalized schema of the data the tool returns, if it returns data.
    output_schema: Option<Value>,
    /// How long a call may run, if the tool says.
    timeout: Option<Duration>,
    /// The OAuth scopes a caller's token needs to call the tool over an endpoint that checks
    /// callers.
    scopes: Vec<Cow<'static, str>>,
    /// How its calls may overlap others of one batch.
    concurrency: Concurrency,
    /// Whether a person decides on each call before it runs.
    needs_approval: bool,
    /// Whether its definition waits until a model searches for it.
    deferred: bool,
    /// The group a deferred tool is searched in, where a provider groups them: a name and
    /// what its tools are for.
    namespace: Option<(Cow<'static, str>, Cow<'static, str>)>,
    /// Whether a call needs an owning agent's session (an `Agent` parameter).
    requires_agent: bool,
    /// Whether a call runs to its end on its caller's thread.
    synchronous: bool,
    /// Whether its calls may run as tasks.
    task_support: TaskSupport,
    /// Whether the tool says itself where its call becomes a task (a `Detach` parameter).
    detaches: bool,
    /// What it cannot do without asking of its client.
    asks: Vec<Asks>,
    /// The input schema as its author wrote it, shown over MCP instead of the normalized one.
    as_written: Option<Value>,
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
        let plan = Plan::everything(&input_schema);
        Definition::with_plan(name.into(), description.into(), input_schema, plan)
    }

    /// A definition of a normalized schema, with the checks its argument types leave.
    pub(crate) fn with_plan(
        name: Cow<'static, str>,
        description: Cow<'static, str>,
        input_schema: Value,
        plan: Plan,
    ) -> Self {
        let recursive = input_schema.get("$defs").and_then(Value::as_object).map(|defs| {
            let names: Vec<&str> = defs.keys().map(String::as_str).collect();
            format!(
                "its arguments use the recursive type{} `{}`, which a tool schema cannot inline: give the model a finite shape",
                if names.len() == 1 { "" } else { "s" },
                names.join("`, `")
            )
        });
        let schema_error = recursive
            .or_else(|| validate::check_patterns(&input_schema).err())
            .or_else(|| plan.check_formats().err());
        Definition {
            name,
            description,
            input_schema,
            checked_schema: None,
            schema_error,
            plan,
            annotations: Annotations::new(),
            output_schema: None,
            timeout: None,
            scopes: Vec::new(),
            concurrency: Concurrency::Parallel,
            needs_approval: false,
            deferred: false,
            namespace: None,
            requires_agent: false,
            synchronous: false,
            task_support: TaskSupport::Never,
            detaches: false,
            asks: Vec::new(),
            as_written: None,
            rendered: Default::default(),
        }
    }

    pub(crate) fn with_checked_schema(mut self, checked: Option<Value>) -> Self {
        self.checked_schema = checked;
        self
    }

    /// What the runtime checks a call's arguments against: the input schema, where a parameter
    /// with a default may also be `null`.
    pub fn checked_schema(&self) -> &Value {
        self.checked_schema.as_ref().unwrap_or(&self.input_schema)
    }

    /// The same definition with `annotations`: a title and behaviour hints, which MCP's
    /// `tools/list` carries (see [`Annotations`]).
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self.rendered = Default::default();
        self
    }

    /// The same definition for a tool that returns data described by `schema` (normalized here).
    #[must_use]
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(normalize(schema));
        self.rendered = Default::default();
        self
    }

    /// The same definition for a tool whose calls may run for `timeout` at most
    /// (`#[tool(timeout = "30s")]`): past it, a call answers `Error: <tool> timed out after 30 s`
    /// and its `Cancel` (the runtime's) is cancelled. It is not part of what a model sees.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The same definition for a tool a caller may call only with a token granting every one
    /// of `scopes` (`#[tool(scopes = "todos:write")]`), where the host checks callers (an
    /// HTTP endpoint with authorization on): without them the call is refused before its
    /// arguments are read, and the tool is not listed to that caller. It is not part of what a
    /// model sees.
    #[must_use]
    pub fn with_scopes(mut self, scopes: &[&'static str]) -> Self {
        self.scopes = scopes.iter().map(|scope| Cow::Borrowed(*scope)).collect();
        self
    }

    /// The same definition whose calls overlap others of a batch only as `concurrency` says
    /// (`#[tool(exclusive)]`, `#[tool(serial)]`).
    #[must_use]
    pub fn with_concurrency(mut self, concurrency: Concurrency) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// How the tool's calls may overlap others of one batch ([`Concurrency::Parallel`] unless
    /// it says otherwise).
    pub fn concurrency(&self) -> Concurrency {
        self.concurrency
    }

    /// The same definition for a tool whose every call a person approves before it runs, in a
    /// host that asks (`#[tool(needs_approval)]`).
    #[must_use]
    pub fn with_needs_approval(mut self) -> Self {
        self.needs_approval = true;
        self
    }

    /// The same definition for a tool a model is not shown until it searches for it
    /// (`#[tool(deferred)]`): an agent with many tools sends the definitions of the deferred
    /// ones only once a search of the model's found them, which keeps them out of every
    /// request until then. It is not part of what a model sees; a host that searches none
    /// shows it as any other.
    #[must_use]
    pub fn with_deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// The same definition in the group `name`, described by `description` (what its tools are
    /// for): a provider that groups deferred tools (OpenAI Responses' namespaces) is sent it
    /// with the others of the group, searched as one. It is not part of what a model sees of
    /// the tool itself.
    #[must_use]
    pub fn with_namespace(
        mut self,
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.namespace = Some((name.into(), description.into()));
        self
    }

    /// The group the tool is searched in, and what its tools are for
    /// ([`Definition::with_namespace`]).
    pub fn namespace(&self) -> Option<(&str, &str)> {
        self.namespace
            .as_ref()
            .map(|(name, description)| (name.as_ref(), description.as_ref()))
    }

    /// The same definition of a tool whose calls need an owning agent's session (`#[tool]`
    /// says so of a tool with an `Agent` parameter): a host serving a call that names no
    /// session begins one for it rather than refuse it.
    pub fn with_agent_required(mut self, required: bool) -> Self {
        self.requires_agent = required;
        self
    }

    /// Whether a call needs an owning agent's session ([`Definition::with_agent_required`]).
    pub fn requires_agent(&self) -> bool {
        self.requires_agent
    }

    /// The same definition of a tool whose call runs to its end on its caller's thread, inside
    /// `Tool::call` (`#[tool]` says so of a plain `fn` that is not `blocking`; a runtime-defined
    /// tool, of a synchronous handler): a host whose sessions' writes block (a file made
    /// durable, a database round trip) may make the whole call on a blocking thread, rather
    /// than have each write step out of its executor.
    #[must_use]
    pub fn with_synchronous(mut self, synchronous: bool) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// Whether a call runs to its end on its caller's thread ([`Definition::with_synchronous`]).
    pub fn synchronous(&self) -> bool {
        self.synchronous
    }

    /// The same definition of a tool whose calls may run as tasks, as `support` says
    /// (`#[tool(task)]`, `#[tool(task = "required")]`).
    #[must_use]
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Whether the tool's calls may run as tasks ([`TaskSupport::Never`] unless it says).
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// The same definition of a tool that says itself where a call becomes a task (`#[tool]`
    /// says so of a tool with a `Detach` parameter): until then the call is an ordinary one,
    /// whose questions go the way any call's do.
    #[must_use]
    pub fn with_detaching(mut self, detaches: bool) -> Self {
        self.detaches = detaches;
        self
    }

    /// Whether the tool says itself where its call becomes a task
    /// ([`Definition::with_detaching`]); else a task-run call is one from its start.
    pub fn detaches(&self) -> bool {
        self.detaches
    }

    /// The same definition of a tool that cannot do without asking its client each of `asks`
    /// (`#[tool(asks = "person model")]`): a host refuses a call from a client that declares
    /// it cannot answer (MCP: `-32021`, naming the capability), before the call runs.
    #[must_use]
    pub fn with_asks(mut self, asks: &[Asks]) -> Self {
        self.asks = asks.to_vec();
        self
    }

    /// The same definition shown to MCP clients with `schema`, its input schema as its author
    /// wrote it, byte for byte (`$schema`, `$defs`, `$ref` and every keyword kept, JSON Schema
    /// 2020-12 being MCP's dialect), instead of the normalized form; other dialects get the
    /// normalized one. For a tool whose handler checks its arguments itself (a runtime-defined
    /// tool declared unchecked), whose schema may say what the runtime does not enforce.
    #[must_use]
    pub fn with_schema_as_written(mut self, schema: Value) -> Self {
        self.as_written = Some(schema);
        self.rendered = Default::default();
        self
    }

    /// What the tool cannot do without asking its client ([`Definition::with_asks`]).
    pub fn asks(&self) -> &[Asks] {
        &self.asks
    }

    /// Whether the definition waits until a model searches for it
    /// ([`Definition::with_deferred`]).
    pub fn deferred(&self) -> bool {
        self.deferred
    }

    /// Whether each call waits for a person's approval ([`Definition::with_needs_approval`]).
    pub fn needs_approval(&self) -> bool {
        self.needs_approval
    }

    /// The scopes a caller needs ([`Definition::with_scopes`]); none when the tool says none.
    pub fn scopes(&self) -> impl ExactSizeIterator<Item = &str> {
        self.scopes.iter().map(|scope| scope.as_ref())
    }

    /// How long a call may run, if the tool says; else the host's default applies
    /// (`ToolRegistry::set_default_timeout`, in the runtime).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The schema of the data the tool returns, if it returns data rather than text.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// The data a call returned, as MCP's `structuredContent`, which must be an object: the
    /// value itself when the output schema is an object's, else `{"result": value}` — the same
    /// rule MCP's `outputSchema` follows, so the two always agree.
    pub fn mcp_structured_content(&self, value: &Value) -> Value {
        if self.output_schema.as_ref().is_some_and(is_object_schema) {
            value.clone()
        } else {
            json!({ "result": value })
        }
    }

    /// The output schema as MCP's `outputSchema`: an object's schema as it is, any other wrapped
    /// as the one required property `result`.
    pub(crate) fn mcp_output_schema(&self) -> Option<Value> {
        let schema = self.output_schema.as_ref()?;
        Some(if is_object_schema(schema) {
            schema.clone()
        } else {
            json!({"type": "object", "properties": {"result": schema}, "required": ["result"]})
        })
    }

    /// The tool's title and behaviour hints, as declared.
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The checks left after the arguments parsed into their types.
    pub fn plan(&self) -> &Plan {
        &self.plan
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

    /// Why this definition's schema cannot be sent to a model, if it cannot (a recursive type).
    /// Registering the tool fails with it.
    pub fn schema_error(&self) -> Option<&str> {
        self.schema_error.as_deref()
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
    /// use serde_json::json;
    /// use tool_schema::{Definition, Dialect};
    ///
    /// let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    /// let greet = Definition::new("greet", "Says hello.", schema);
    /// let anthropic = greet.render(Dialect::Anthropic).unwrap();
    /// assert_eq!(anthropic["input_schema"]["properties"]["name"]["type"], "string");
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

    /// What a dialect's shape is made of.
    fn parts(&self) -> Parts<'_> {
        Parts {
            name: &self.name,
            description: &self.description,
            input_schema: &self.input_schema,
            as_written: self.as_written.as_ref(),
            checked_schema: self.checked_schema(),
            schema_error: self.schema_error.as_deref(),
            annotations: &self.annotations,
            output_schema: self.mcp_output_schema(),
        }
    }

    fn rendered(&self, dialect: Dialect) -> Result<&Rendered, DialectError> {
        self.rendered[dialect.index()]
            .get_or_init(|| {
                let value = dialect::render(&self.parts(), dialect)?;
                let text = value.to_string();
                Ok(Rendered { value, text })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Whether a schema admits objects only.
fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
}

impl PartialEq for Definition {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.description == other.description
            && self.input_schema == other.input_schema
            && self.annotations == other.annotations
            && self.output_schema == other.output_schema
    }
}
