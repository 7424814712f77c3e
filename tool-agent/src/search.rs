//! Deferred tools and the search that loads them: an agent with many tools sends the model only
//! the ones always loaded (every tool not [deferred](tool_runtime::Definition::deferred), so
//! `todo_write` always) and [`SEARCH_TOOL`]; a search of the model's finds deferred tools by
//! BM25 over their names, descriptions and parameter names, and each tool found is loaded: its
//! definition is sent with every request of the session from then on.
//!
//! Which tools were loaded, and when, is the session's: each search that found tools is a
//! [`LOADED_EVENT`], so a resumed session (or a replay) sends the same set. A call of a deferred
//! tool that is not loaded is answered as a call of a tool this run does not have, naming the
//! search; a loaded tool's calls are checked as any other's.
//!
//! ```
//! use serde_json::json;
//! use tool_agent::search::ToolIndex;
//! use tool_runtime::DynamicTool;
//!
//! let tool = |name: &str, description: &str, schema| {
//!     DynamicTool::builder(name, description, schema).deferred().handler(|_, _| "").unwrap()
//! };
//! let weather = tool("get_weather", "The weather in a city today.",
//!     json!({"type": "object", "properties": {"city": {"type": "string"}}}));
//! let issues = tool("create_issue", "Files an issue in a repository.",
//!     json!({"type": "object", "properties": {"repository": {"type": "string"}}}));
//! use tool_runtime::Tool as _;
//! let index = ToolIndex::new([weather.definition(), issues.definition()]);
//! let found: Vec<&str> = index.search("file an issue", 5).iter().map(|hit| hit.name).collect();
//! assert_eq!(found, ["create_issue"]);
//! ```

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_runtime::{Definition, DynamicTool, ToolOutput};

/// The name of the search tool the model is offered when some tools are deferred.
pub const SEARCH_TOOL: &str = "search_tools";

/// The kind of the session event that records the tools a search loaded:
/// [`Loaded`] as JSON.
pub const LOADED_EVENT: &str = "agent/tools_loaded";

/// How a run with deferred tools has them searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// By the provider's own search where it has one, else by [`SEARCH_TOOL`] (the default).
    /// Anthropic's is its BM25 tool search tool, OpenAI Responses' the hosted `tool_search`:
    /// each deferred tool is sent with `"defer_loading": true`, which the provider keeps out of
    /// the model's context until its search finds the tool, and the searches its responses
    /// carry are the session's as [`SEARCH_TOOL`]'s are.
    #[default]
    Native,
    /// As [`Mode::Native`], with Anthropic's regular-expression variant of its search.
    NativeRegex,
    /// By [`SEARCH_TOOL`], this framework's, on every provider.
    Framework,
}

impl Mode {
    /// The provider's own search tool as a request's `tools` carries it, if the provider has
    /// one and this mode uses it.
    pub(crate) fn native(self, provider: tool_wire::Provider) -> Option<&'static str> {
        match (self, provider) {
            (Mode::Framework, _) => None,
            (Mode::Native, tool_wire::Provider::Anthropic) => {
                Some(r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#)
            }
            (Mode::NativeRegex, tool_wire::Provider::Anthropic) => Some(
                r#"{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}"#,
            ),
            (_, tool_wire::Provider::OpenAiResponses) => Some(r#"{"type":"tool_search"}"#),
            _ => None,
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    /// `native`, `native-regex` or `framework`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "native" => Ok(Mode::Native),
            "native-regex" => Ok(Mode::NativeRegex),
            "framework" => Ok(Mode::Framework),
            _ => Err(format!(
                "{} is not `native`, `native-regex` or `framework`",
                tool_runtime::text::quote(text)
            )),
        }
    }
}

/// The most tools one search returns.
pub const MAX_RESULTS: usize = 10;

/// How many tools a search returns when the model does not say.
pub const DEFAULT_RESULTS: usize = 5;

/// What [`LOADED_EVENT`] records: the search and the tools it loaded, in its order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Loaded {
    /// The model's query.
    pub query: String,
    /// The tools found and loaded.
    pub tools: Vec<String>,
}

/// The search tool's description, as the model reads it.
pub const SEARCH_DESCRIPTION: &str = "Searches the tools that are available but not loaded yet, by keywords of what a tool does, its name or its parameters. The tools found are loaded: from your next turn they are among your tools, to be called as any other. Search again with other words when none fits.";

/// The search tool's definition: a query, and how many tools to return at most.
pub fn search_definition() -> Definition {
    use tool_runtime::Tool as _;
    search_tool(&Asked::default()).definition().clone()
}

/// A search the model asked for: its query and how many tools it wants at most.
#[derive(Clone, Debug)]
pub(crate) struct Query {
    pub(crate) text: String,
    pub(crate) limit: usize,
}

/// Where the search tool's handler leaves the query of a call it was not refused.
#[derive(Clone, Debug, Default)]
pub(crate) struct Asked(Arc<Mutex<Option<Query>>>);

impl Asked {
    /// The query left, taken.
    pub(crate) fn take(&self) -> Option<Query> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The search tool, whose handler leaves each call's checked query in `asked` (the loop
/// searches, since it holds the tools).
pub(crate) fn search_tool(asked: &Asked) -> DynamicTool {
    let asked = asked.clone();
    DynamicTool::builder(
        SEARCH_TOOL,
        SEARCH_DESCRIPTION,
        serde_json::json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Keywords of what the tool does, its name or its parameters"
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_RESULTS,
                    "description": format!("How many tools to return at most (default {DEFAULT_RESULTS})")
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
    .handler(move |_, args: Value| {
        let query = Query {
            text: args["query"].as_str().unwrap_or_default().to_owned(),
            limit: args["limit"]
                .as_u64()
                .map_or(DEFAULT_RESULTS, |limit| limit as usize),
        };
        *asked.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(query);
        ""
    })
    .expect("the search tool's schema is one the runtime enforces")
}

/// What a call of a deferred tool that no search loaded answers.
pub fn not_loaded(name: &str) -> ToolOutput {
    ToolOutput::error(format!(
        "{name} is not loaded: search for it with {SEARCH_TOOL} first, then call it"
    ))
}

/// The tools loaded in `session`: every tool of every [`LOADED_EVENT`], in the order loaded.
pub fn loaded(session: &tool_runtime::Session) -> Result<Vec<String>, tool_runtime::SessionError> {
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    session.for_each_from(1, &mut |event| {
        if event.kind == LOADED_EVENT
            && let Ok(loaded) = event.data::<Loaded>()
        {
            for tool in loaded.tools {
                if seen.insert(tool.clone()) {
                    names.push(tool);
                }
            }
        }
    })?;
    Ok(names)
}

/// One tool a search found, and how well it matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit<'i> {
    /// The tool's name.
    pub name: &'i str,
    /// Its BM25 score for the query.
    pub score: f64,
}

/// A BM25 index of tools: each tool a document of its name's words (counted twice: a name says
/// most of what a tool does), its description's and its parameters' names, at every depth;
/// kept as each word's postings, so a search reads only the tools that have its words.
#[derive(Clone, Debug, Default)]
pub struct ToolIndex {
    names: Vec<String>,
    /// Each tool's length in words.
    lengths: Vec<u32>,
    /// Per word: the tools that have it, and how often.
    postings: HashMap<String, Vec<(u32, u32)>>,
    average_length: f64,
}

/// BM25's parameters, as Lucene has them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

impl ToolIndex {
    /// The index of `definitions`.
    pub fn new<'d>(definitions: impl IntoIterator<Item = &'d Definition>) -> Self {
        let mut index = ToolIndex::default();
        let mut words = Vec::new();
        let mut counts: HashMap<String, u32> = HashMap::new();
        for definition in definitions {
            let Ok(at) = u32::try_from(index.names.len()) else {
                break;
            };
            words.clear();
            terms(definition.name(), &mut words);
            terms(definition.name(), &mut words);
            terms(definition.description(), &mut words);
            parameter_names(definition.input_schema(), &mut words);
            for word in words.drain(..) {
                *counts.entry(word).or_default() += 1;
            }
            index.lengths.push(counts.values().sum());
            for (word, count) in counts.drain() {
                index.postings.entry(word).or_default().push((at, count));
            }
            index.names.push(definition.name().to_owned());
        }
        let total: u64 = index.lengths.iter().map(|&length| u64::from(length)).sum();
        if !index.names.is_empty() {
            index.average_length = total as f64 / index.names.len() as f64;
        }
        index
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The tools that match `query` best, at most `limit`, best first (ties by name); a tool
    /// that shares no word with the query is not among them.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        let mut words = Vec::new();
        terms(query, &mut words);
        words.sort_unstable();
        words.dedup();
        let count = self.names.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for word in &words {
            let Some(postings) = self.postings.get(word) else {
                continue;
            };
            let n = postings.len() as f64;
            let weight = ((count - n + 0.5) / (n + 0.5) + 1.0).ln();
            for &(at, tf) in postings {
                let length = f64::from(self.lengths[at as usize]);
                let norm = K1 * (1.0 - B + B * length / self.average_length);
                let tf = f64::from(tf);
                *scores.entry(at).or_default() += weight * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut hits: Vec<Hit<'_>> = scores
            .into_iter()
            .filter(|(_, score)| *score > 0.0)
            .map(|(at, score)| Hit {
                name: &self.names[at as usize],
                score,
            })
            .collect();
        hits.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(b.name)));
        hits.truncate(limit);
        hits
    }
}

/// The words of `text` as the index keeps them: split at anything not a letter or digit and
/// where a lowercase letter meets an uppercase one (`createIssue`, `create_issue`, `Create
/// issue` are the same two words), lowercased, a plural's `s` dropped.
fn terms(text: &str, out: &mut Vec<String>) {
    let mut word = String::new();
    let mut previous_lower = false;
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(stem(std::mem::take(word)));
        }
    };
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, out);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut word, out);
        }
        previous_lower = c.is_lowercase() || c.is_numeric();
        word.extend(c.to_lowercase());
    }
    flush(&mut word, out);
}

/// `word` without a plural's `s` (`issues`, `files`; not `status`, `class`, `is`).
fn stem(mut word: String) -> String {
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        word.pop();
    }
    word
}

/// The names of every property `schema` declares, at any depth, as words.
fn parameter_names(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                for name in properties.keys() {
                    terms(name, out);
                }
            }
            for value in object.values() {
                parameter_names(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| parameter_names(item, out)),
        _ => {}
    }
}

/// What a search answers the model: each tool found on a line of its own, its name and the
/// first line of its description, or that none was found.
pub fn answer(query: &str, found: &[&Definition]) -> String {
    if found.is_empty() {
        return format!(
            "No tool matches {}: search again with other words.",
            tool_runtime::text::quote(query)
        );
    }
    let mut text = format!(
        "Loaded {} tool{}; from your next turn {} among your tools:\n",
        found.len(),
        if found.len() == 1 { "" } else { "s" },
        if found.len() == 1 {
            "it is"
        } else {
            "they are"
        }
    );
    for definition in found {
        let line = definition.description().lines().next().unwrap_or_default();
        text.push_str(&format!("- {}: {line}\n", definition.name()));
    }
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, &mut out);
        out
    }

    #[test]
    fn names_split_into_the_words_a_query_uses() {
        assert_eq!(words("createIssue"), ["create", "issue"]);
        assert_eq!(words("create_issues"), ["create", "issue"]);
        assert_eq!(
            words("HTTPServer list2Files"),
            ["httpserver", "list2", "file"]
        );
        assert_eq!(words("status class is"), ["status", "class", "is"]);
        assert_eq!(words("  "), Vec::<String>::new());
    }

    #[test]
    fn a_search_ranks_by_the_query_and_leaves_out_what_shares_no_word() {
        let definition = |name: &str, description: &str, property: &str| {
            Definition::new(
                name.to_owned(),
                description.to_owned(),
                serde_json::json!({"type": "object", "properties": {property: {"type": "string"}}}),
            )
        };
        let tools = [
            definition("read_file", "Reads a file's text.", "path"),
            definition("write_file", "Writes text to a file.", "path"),
            definition(
                "search_issues",
                "Finds issues of a repository.",
                "repository",
            ),
            definition("send_mail", "Sends a mail.", "recipient"),
        ];
        let index = ToolIndex::new(&tools);
        let names = |query: &str, limit| -> Vec<String> {
            index
                .search(query, limit)
                .iter()
                .map(|hit| hit.name.to_owned())
                .collect()
        };
        assert_eq!(names("read a file", 5)[0], "read_file");
        assert_eq!(names("files", 5), ["read_file", "write_file"]);
        assert_eq!(names("repository", 5), ["search_issues"]);
        assert_eq!(names("recipient", 5), ["send_mail"]);
        assert_eq!(names("file", 1), ["read_file"]);
        assert!(names("weather", 5).is_empty());
        assert!(names("", 5).is_empty());
        assert!(ToolIndex::new(&[]).search("file", 5).is_empty());
    }
}
