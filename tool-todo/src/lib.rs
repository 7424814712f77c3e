//! `todo_write`: the agent's whole task list, replaced on every call.
//!
//! The model sends the complete list each time; the tool checks it, appends one `todo/write`
//! event with the list as sent to the calling agent's session, and answers with a one-line
//! summary. The current list of a session is the data of its latest `todo/write` event
//! ([`current`]). Hosts load the tool as the plugin [`TodoWrite`].
//!
//! ```
//! use tool_runtime::{Agent, Ctx, Exec, Session};
//! use tool_todo::{Todo, TodoStatus, TodoWrite};
//!
//! let mut ctx = Ctx::new();
//! ctx.plugin::<TodoWrite>().unwrap();
//!
//! let agent = Agent::new("agent-1", Session::in_memory());
//! let exec = Exec::for_agent(agent.clone());
//! let args = r#"{"todos": [{"content": "Write the parser", "status": "in_progress"}]}"#;
//! let out = ctx.tools.call("todo_write", &exec, args).wait();
//! assert_eq!(out.text, "Updated todo list: 0 pending, 1 in progress, 0 completed");
//!
//! let list = tool_todo::current(agent.session()).unwrap().unwrap();
//! assert_eq!(list, [Todo::new("Write the parser", TodoStatus::InProgress)]);
//! ```
//!
//! # The room
//!
//! One tool and what shows it: it uses `tool-runtime` alone (and, with `acp`, the
//! `agent-client-protocol` crate's schema types). Hosts, stores and transports use it; it uses
//! none of them.

#[cfg(feature = "acp")]
pub mod acp;
mod checklist;

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::text::{is_blank, quote};
use tool_runtime::{Agent, Event, Service, Session, SessionError, ToolError, tool};

pub use checklist::{ChecklistStyle, checklist, neutralize};

/// The tool's name.
pub const NAME: &str = "todo_write";

/// The tool's description, byte for byte.
pub const DESCRIPTION: &str = include_str!("todo_write.description.txt");

/// The kind of the session event each accepted call appends.
pub const EVENT_KIND: &str = "todo/write";

/// One task.
// An empty schemars description keeps this doc comment out of the schema, whose `items` carry
// none: the model-facing texts are the spec's, and only those.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct Todo {
    /// What the task is — a short imperative line.
    pub content: String,
    /// pending (not started) | in_progress (now) | completed (done).
    pub status: TodoStatus,
}

impl Todo {
    /// A task with this content and status.
    pub fn new(content: impl Into<String>, status: TodoStatus) -> Self {
        Todo {
            content: content.into(),
            status,
        }
    }
}

/// Where a task stands: `pending` (not started), `in_progress` (being worked on now) or
/// `completed` (finished).
// The variants carry no doc comments: schemars would turn the schema's `enum` into a `oneOf`.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// The data of a `todo/write` event: the whole list as sent.
#[derive(Serialize, Deserialize)]
struct TodoWriteData {
    todos: Vec<Todo>,
}

#[doc = include_str!("todo_write.description.txt")]
// Replacing the list destroys nothing (every list stays in the session log), sending one list
// twice leaves the state it left once, and the tool reaches nothing beyond its session. Over an
// endpoint that checks its callers, a caller needs the `todos:write` scope (not part of what a
// model sees). One list per agent: two calls in one turn never run side by side (`serial`), so
// each replaces the list the one before it left.
#[tool(
    name = "todo_write",
    description = include_str!("todo_write.description.txt"),
    title = "Todo list",
    destructive = false,
    idempotent,
    open_world = false,
    scopes = "todos:write",
    serial
)]
pub fn todo_write(
    agent: Agent,
    // The host's limits, when it sets its own.
    limits: Option<Service<TodoLimits>>,
    /// The COMPLETE task list, replacing any previous list.
    todos: Vec<Todo>,
) -> Result<String, ToolError> {
    let limits = limits.as_deref().copied().unwrap_or_default();
    limits.check(&todos)?;
    let summary = summary_of(check(&todos)?);
    // The event keeps the list itself; its JSON is written when a log or a reader needs it.
    agent
        .session()
        .append_value(EVENT_KIND, TodoWriteData { todos })
        .map_err(|error| ToolError::new(format!("could not record the todo list: {error}")))?;
    Ok(summary)
}

/// Limits on one list, with safe defaults; a host sets its own by providing a `TodoLimits`
/// service ([`Ctx::provide`](tool_runtime::Ctx::provide)). They are checked after the argument
/// schema and before the list's rules.
///
/// ```
/// use tool_runtime::{Agent, Ctx, Exec, Session};
/// use tool_todo::{TodoLimits, TodoWrite};
///
/// let mut ctx = Ctx::new();
/// ctx.provide(TodoLimits { max_todos: 2, ..TodoLimits::default() });
/// ctx.plugin::<TodoWrite>().unwrap();
/// let exec = Exec::for_agent(Agent::new("a", Session::in_memory()));
/// let args = r#"{"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "pending"}, {"content": "c", "status": "pending"}]}"#;
/// let out = ctx.tools.call("todo_write", &exec, args).wait();
/// assert_eq!(out.text, "Error: invalid todos: at most 2 todos, got 3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TodoLimits {
    /// The most todos one list may hold. Default: 1,000.
    pub max_todos: usize,
    /// The most characters one todo's content may hold. Default: 10,000.
    pub max_content_chars: usize,
}

impl Default for TodoLimits {
    fn default() -> Self {
        TodoLimits {
            max_todos: 1_000,
            max_content_chars: 10_000,
        }
    }
}

impl TodoLimits {
    /// Checks a list against the limits: the count, then each content in list order.
    pub fn check(&self, todos: &[Todo]) -> Result<(), ToolError> {
        if todos.len() > self.max_todos {
            return Err(ToolError::new(format!(
                "invalid todos: at most {} todos, got {}",
                self.max_todos,
                todos.len()
            )));
        }
        for todo in todos {
            // Bytes bound characters from above: count only when the bytes could be too many.
            if todo.content.len() > self.max_content_chars {
                let chars = todo.content.chars().count();
                if chars > self.max_content_chars {
                    return Err(ToolError::new(format!(
                        "invalid todo: `content` has {chars} characters, more than {}",
                        self.max_content_chars
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Checks a list against the rules, reporting the first violation in the spec's order: an empty
/// content, then a duplicate content, then more than one `in_progress`.
pub fn validate(todos: &[Todo]) -> Result<(), ToolError> {
    check(todos).map(drop)
}

/// [`validate`], answering with how many tasks stand at each status.
fn check(todos: &[Todo]) -> Result<Counts, ToolError> {
    // Content a person would see as empty is empty: whitespace, and characters that render as
    // nothing (a zero-width space, a tag character), which the checklist would show only as
    // escapes.
    if todos.iter().any(|todo| is_blank(&todo.content)) {
        return Err(ToolError::new(
            "invalid todo: `content` must be a non-empty string",
        ));
    }
    if let Some(content) = first_duplicate(todos) {
        // Quoted as argument errors quote: whole up to 48 characters, then cut with `…`.
        let quoted = quote(content);
        return Err(ToolError::new(format!(
            "invalid todos: duplicate content {quoted}"
        )));
    }
    let counts = Counts::of(todos);
    if counts.in_progress > 1 {
        return Err(ToolError::new(format!(
            "invalid todos: at most one task may be in_progress, got {}",
            counts.in_progress
        )));
    }
    Ok(counts)
}

/// The trimmed content of the first task whose content, trimmed, an earlier task's has.
fn first_duplicate(todos: &[Todo]) -> Option<&str> {
    // Up to this many, comparing each pair costs less than hashing every content.
    const PAIRWISE: usize = 8;
    if todos.len() <= PAIRWISE {
        let mut seen = [""; PAIRWISE];
        for (i, todo) in todos.iter().enumerate() {
            let content = todo.content.trim();
            if seen[..i].contains(&content) {
                return Some(content);
            }
            seen[i] = content;
        }
        return None;
    }
    // A list holds at most `TodoLimits::max_todos` contents, which bounds what colliding hashes
    // could cost; foldhash is seeded per process.
    let mut seen: HashSet<&str, foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(todos.len(), Default::default());
    todos
        .iter()
        .map(|todo| todo.content.trim())
        .find(|content| !seen.insert(*content))
}

/// How many tasks of a list stand at each status.
#[derive(Clone, Copy, Default)]
struct Counts {
    pending: usize,
    in_progress: usize,
    completed: usize,
}

impl Counts {
    fn of(todos: &[Todo]) -> Counts {
        let mut counts = Counts::default();
        for todo in todos {
            match todo.status {
                TodoStatus::Pending => counts.pending += 1,
                TodoStatus::InProgress => counts.in_progress += 1,
                TodoStatus::Completed => counts.completed += 1,
            }
        }
        counts
    }
}

/// The success text for an accepted list.
pub fn summary(todos: &[Todo]) -> String {
    summary_of(Counts::of(todos))
}

/// `Updated todo list: {pending} pending, {in progress} in progress, {completed} completed`,
/// written in one allocation: every accepted call makes one.
fn summary_of(counts: Counts) -> String {
    let mut number = itoa::Buffer::new();
    let mut text = String::with_capacity(96);
    text.push_str("Updated todo list: ");
    text.push_str(number.format(counts.pending));
    text.push_str(" pending, ");
    text.push_str(number.format(counts.in_progress));
    text.push_str(" in progress, ");
    text.push_str(number.format(counts.completed));
    text.push_str(" completed");
    text
}

/// The current list of a session as the JSON text it was stored with: the `todos` array exactly
/// as the model sent it, or `None` when the session has no list.
pub fn current_json(session: &Session) -> Result<Option<String>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        todos: &'a serde_json::value::RawValue,
    }
    session
        .latest(EVENT_KIND)
        .map(|event| {
            let raw = event.raw_data()?;
            serde_json::from_str::<Raw<'_>>(raw.get()).map(|raw| raw.todos.get().to_owned())
        })
        .transpose()
}

/// The first line of a restatement.
pub const RESTATEMENT_HEADER: &str =
    "Your todo list, restated because earlier messages were compacted (todo_write replaces it):";

/// The message a host adds right after compacting a conversation, so the model sees its plan
/// again (`spec/todo_restatement.md`): the session's current list, one line per item
/// (`- [<status>] <content as a JSON string>`), or `None` when there is no list or every item is
/// `completed`. Reads the session's replayed state; appends nothing. A list the session cannot
/// decode (a log edited by hand) has nothing to restate either: [`current`] says why.
///
/// ```
/// use tool_runtime::Session;
/// use tool_todo::{Todo, TodoStatus};
///
/// let session = Session::in_memory();
/// assert_eq!(tool_todo::restatement(&session), None);
/// let todos = vec![
///     Todo::new("Read the spec", TodoStatus::Completed),
///     Todo::new("Write the parser", TodoStatus::InProgress),
/// ];
/// session.append("todo/write", &serde_json::json!({ "todos": todos })).unwrap();
/// assert_eq!(
///     tool_todo::restatement(&session).unwrap(),
///     "Your todo list, restated because earlier messages were compacted (todo_write replaces it):\n\
///      - [completed] \"Read the spec\"\n\
///      - [in_progress] \"Write the parser\""
/// );
/// ```
pub fn restatement(session: &Session) -> Option<String> {
    let todos = current(session).ok().flatten()?;
    if todos
        .iter()
        .all(|todo| todo.status == TodoStatus::Completed)
    {
        return None;
    }
    let mut text = RESTATEMENT_HEADER.to_owned();
    for todo in &todos {
        let status = match todo.status {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
        };
        // The whole content, quoted as a JSON string: line breaks stay on the item's line.
        let content = serde_json::to_string(&todo.content).expect("a string serializes");
        text.push_str(&format!("\n- [{status}] {content}"));
    }
    Some(text)
}

/// The current list of a session: the data of its latest `todo/write` event, or `None` when it
/// has none. Answers from the session's replayed state, without reading the log.
pub fn current(session: &Session) -> Result<Option<Vec<Todo>>, serde_json::Error> {
    session
        .latest(EVENT_KIND)
        .and_then(|event| todos_of(&event))
        .transpose()
}

/// The latest todo list of a session log cannot be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "session log {}: line {line}: the todo list cannot be read: {}",
    path.display(),
    tool_runtime::text::neutralize(&source.to_string())
)]
pub struct ListError {
    /// The log (a file, or a session's name in a store).
    pub path: std::path::PathBuf,
    /// The 1-based line of the event.
    pub line: u64,
    /// What the deserializer said; the message shows it neutralized, as it may quote the log.
    pub source: serde_json::Error,
}

/// The current todo list of `session`, persisted at `path` ([`current`]): an error names the
/// file and line, and what it quotes from the log cannot drive a terminal.
pub fn current_in(
    session: &Session,
    path: &std::path::Path,
) -> Result<Option<Vec<Todo>>, ListError> {
    current(session).map_err(|source| ListError {
        path: path.to_path_buf(),
        line: session.latest(EVENT_KIND).map_or(0, |event| event.seq + 1),
        source,
    })
}

/// The list as it stood after event `seq` of a session: the data of its latest `todo/write`
/// event at or before `seq`, or `None` when it had none yet. Rewinding a conversation to `seq`
/// restores the plan with it. Answers from the replayed state when the list has not changed
/// since `seq`; otherwise the log is asked (an indexed query on PostgreSQL, a read up to `seq`
/// on a file).
///
/// ```
/// use tool_runtime::Session;
///
/// let session = Session::in_memory();
/// session.append("todo/write", &serde_json::json!({"todos": [{"content": "a", "status": "pending"}]})).unwrap();
/// session.append("todo/write", &serde_json::json!({"todos": []})).unwrap();
/// assert_eq!(tool_todo::at(&session, 0).unwrap(), None);
/// assert_eq!(tool_todo::at(&session, 1).unwrap().unwrap()[0].content, "a");
/// assert_eq!(tool_todo::at(&session, 2).unwrap(), Some(vec![]));
/// ```
pub fn at(session: &Session, seq: u64) -> Result<Option<Vec<Todo>>, SessionError> {
    match session.latest_at(EVENT_KIND, seq)? {
        Some(event) => Ok(todos_of(&event).transpose()?),
        None => Ok(None),
    }
}

/// The list a `todo/write` event holds; `None` for an event of another kind. The list as it was
/// appended when this process appended it, else decoded from the event's JSON.
pub fn todos_of(event: &Event) -> Option<Result<Vec<Todo>, serde_json::Error>> {
    (event.kind == EVENT_KIND).then(|| match event.value::<TodoWriteData>() {
        Some(data) => Ok(data.todos.clone()),
        None => event.data::<TodoWriteData>().map(|data| data.todos),
    })
}
