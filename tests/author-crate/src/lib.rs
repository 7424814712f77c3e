//! An author's tools: constrained newtypes, nested structs, and attributes on parameters.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_runtime::{ToolError, tool};

/// How many to add: 1 to 10.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Amount(#[schemars(range(min = 1, max = 10))] pub u64);

/// A label: lowercase letters, at most eight.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Label(#[schemars(length(max = 8), regex(pattern = r"^[a-z]+$"))] pub String);

/// Where the counter stands.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Options {
    /// Counts shown per page.
    #[serde(rename = "pageSize")]
    pub page_size: Option<u32>,
    /// Labels to attach, each once.
    pub labels: Option<HashSet<String>>,
}

/// A type of the author's own named like the tool's default type.
pub struct Bump;

fn one() -> u64 {
    1
}

/// Bumps a counter.
#[tool(type_name = "BumpTool")]
pub fn bump(
    /// How much to add.
    by: Amount,
    /// A label for this bump.
    label: Option<Label>,
    /// Display options.
    options: Option<Options>,
    /// How many times to bump.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 3))]
    times: u64,
) -> Result<String, ToolError> {
    let _ = Bump;
    let label = label.map_or_else(String::new, |label| format!(" ({})", label.0));
    let page = options.and_then(|o| o.page_size).unwrap_or(10);
    Ok(format!("+{}{label}, page {page}", by.0 * times))
}

/// Sends a note to an address.
#[tool(assert_formats)]
pub fn notify(
    /// The address.
    #[schemars(email)]
    to: String,
) -> String {
    format!("sent to {to}")
}
