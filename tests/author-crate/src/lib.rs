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

/// The weather in a city, as data.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct Weather {
    /// The city.
    pub city: String,
    /// Degrees Celsius.
    pub temp_c: f64,
    /// What the sky is like.
    pub sky: Sky,
}

/// What the sky is like.
#[derive(Debug, serde::Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sky {
    /// Not a cloud.
    Clear,
    /// Some clouds.
    Cloudy,
}

/// Tells the weather in a city.
#[tool(
    title = "Weather",
    read_only,
    idempotent,
    open_world = false,
    type_name = "WeatherTool"
)]
pub fn weather(
    /// The city.
    city: String,
) -> Result<Weather, ToolError> {
    if city.is_empty() {
        return Err(ToolError::new("name a city"));
    }
    let sky = if city.len() % 2 == 0 {
        Sky::Clear
    } else {
        Sky::Cloudy
    };
    Ok(Weather {
        city,
        temp_c: 21.5,
        sky,
    })
}

/// Says who is asking; refuses mallory.
#[tool(title = "Who am I", read_only, scopes = "whoami:read")]
pub fn whoami(principal: tool_runtime::Principal) -> Result<String, ToolError> {
    if principal.subject == "mallory" {
        return Err(ToolError::new("mallory may not ask"));
    }
    Ok(format!("{} of {}", principal.subject, principal.issuer))
}

/// The forecast for several days: a list, so MCP gets it as `{"result": […]}`.
#[tool]
pub fn outlook(
    /// How many days.
    #[schemars(range(min = 1, max = 7))]
    days: u32,
) -> Vec<f64> {
    (0..days).map(|day| 20.0 + f64::from(day) / 2.0).collect()
}

/// Waits on tokio's timer.
#[tool(timeout = "20s")]
pub async fn nap(
    /// How long, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Blocks its thread, as file I/O or a subprocess does.
#[tool(blocking)]
pub fn tally(
    /// How long, in milliseconds.
    ms: u64,
) -> String {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    format!("blocked {ms} ms")
}

/// Surveys some sites, reporting each, until done or cancelled.
#[tool(timeout = "10m")]
pub async fn survey(
    cancel: tool_runtime::Cancel,
    progress: tool_runtime::Progress,
    /// How many sites.
    sites: u32,
    /// How long each takes, in milliseconds.
    ms: u64,
) -> String {
    for site in 1..=sites {
        if cancel.is_cancelled() {
            return format!("stopped after {} sites", site - 1);
        }
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        progress.report(site, sites, format!("surveyed site {site}"));
    }
    format!("surveyed {sites} sites")
}

/// Draws a bar chart of some values: a text and an image.
#[tool]
pub fn chart(
    /// The values, each 0 to 255.
    values: Vec<u8>,
) -> Result<tool_runtime::ToolOutput, ToolError> {
    if values.is_empty() {
        return Err(ToolError::new("give at least one value"));
    }
    // A stand-in for an encoder: the image's bytes are the values themselves.
    let image = tool_runtime::Image::new("image/x-bars", values.clone());
    Ok(tool_runtime::ToolOutput::success(format!("{} bars:", values.len())).with_image(image))
}

/// The small cuts an author meets: defaults, tools that return nothing, a tool that panics, a
/// tool no strict schema can say.
pub mod cuts {
    use std::collections::HashMap;

    use tool_runtime::{ToolError, tool};

    fn ten() -> u32 {
        10
    }

    /// Lists a page of results.
    #[tool]
    pub fn page(
        /// Results per page.
        #[serde(default = "ten")]
        size: u32,
        /// Match exactly.
        #[serde(default)]
        exact: bool,
    ) -> String {
        format!("size {size}, exact {exact}")
    }

    /// Clears the cache.
    #[tool]
    pub fn reset() {}

    /// Forgets one key.
    #[tool]
    pub fn forget(
        /// The key.
        key: String,
    ) -> Result<(), ToolError> {
        if key.is_empty() {
            return Err(ToolError::new("name a key"));
        }
        Ok(())
    }

    /// Breaks.
    #[tool]
    pub fn explode() -> String {
        panic!("the tool broke\nbadly")
    }

    /// Tags a thing.
    #[tool]
    pub fn tag(
        /// Free-form labels.
        labels: HashMap<String, String>,
    ) -> String {
        labels.len().to_string()
    }
}

/// Tools whose schemas are known only when the host runs: read from a JSON file of
/// `{"name", "description", "input_schema"}` entries, each answering with its arguments as data.
pub mod schemas {
    use serde::Deserialize;
    use tool_runtime::{DynamicTool, LoadError, ToolOutput};

    #[derive(Deserialize)]
    struct Entry {
        name: String,
        description: String,
        input_schema: serde_json::Value,
    }

    /// The tools `json` describes; a schema the runtime cannot enforce is a load error naming
    /// the tool.
    pub fn tools(json: &str, source: &str) -> Result<Vec<DynamicTool>, LoadError> {
        let entries: Vec<Entry> = serde_json::from_str(json).map_err(|error| LoadError::Schema {
            tool: source.to_owned(),
            reason: error.to_string(),
        })?;
        entries
            .into_iter()
            .map(|entry| {
                DynamicTool::builder(entry.name, entry.description, entry.input_schema)
                    .source(source)
                    .handler(|_, args: serde_json::Value| ToolOutput::structured(args))
            })
            .collect()
    }
}
