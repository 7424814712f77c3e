//! `schema` and `sizes`: the tools' definitions, and what they weigh.

use std::io::{self, Write};
use std::process::ExitCode;

use tool_runtime::{Ctx, Definition, Dialect};

use crate::HostError;

/// Prints every definition in `dialect` as a JSON array, or the one of `tool` as an object.
pub(super) fn schema(
    name: &str,
    ctx: &Ctx,
    tool: Option<&str>,
    dialect: Dialect,
) -> Result<ExitCode, HostError> {
    let mut stdout = io::stdout().lock();
    match tool {
        None => {
            // Every tool that renders, and every one that cannot named, all at once.
            let mut rendered = Vec::new();
            let mut failed = Vec::new();
            for definition in ctx.tools.definitions() {
                match definition.render(dialect) {
                    Ok(entry) => rendered.push(entry.clone()),
                    Err(error) => failed.push(error),
                }
            }
            writeln!(stdout, "{}", pretty(&serde_json::Value::Array(rendered)))?;
            for error in &failed {
                crate::note!("{name}: {error}");
            }
            if !failed.is_empty() {
                return Ok(ExitCode::from(3));
            }
        }
        Some(tool) => match ctx.tools.get(tool) {
            Some(found) => writeln!(stdout, "{}", pretty(found.definition().render(dialect)?))?,
            None => {
                let available: Vec<_> = ctx.tools.names().collect();
                // In the words and quotes of the runtime's own refusal.
                crate::note!(
                    "{name}: unknown tool {}; available tools: {}",
                    tool_runtime::text::quote(tool),
                    available.join(", ")
                );
                return Ok(ExitCode::from(2));
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the sizes table: see `Command::Sizes`.
pub(super) fn sizes(ctx: &Ctx) -> Result<ExitCode, HostError> {
    write_sizes(ctx, &mut io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

/// The sizes table: see `Command::Sizes`.
fn write_sizes(ctx: &Ctx, out: &mut impl Write) -> Result<(), HostError> {
    writeln!(
        out,
        "{:<16} {:<17} {:>6} {:>6} {:>9} {:>6}",
        "tool", "dialect", "bytes", "texts", "structure", "tokens"
    )?;
    for definition in ctx.tools.definitions() {
        let texts = verbatim_bytes(definition);
        for dialect in Dialect::ALL {
            let json = match definition.json(dialect) {
                Ok(json) => json,
                Err(error) => {
                    writeln!(
                        out,
                        "{:<16} {:<17} {error}",
                        definition.name(),
                        dialect.name()
                    )?;
                    continue;
                }
            };
            writeln!(
                out,
                "{:<16} {:<17} {:>6} {:>6} {:>9} {:>6}",
                definition.name(),
                dialect.name(),
                json.len(),
                texts,
                json.len() - texts,
                tokens(json).map_or_else(|| "-".to_owned(), |n| n.to_string())
            )?;
        }
    }
    Ok(())
}

/// The bytes of the verbatim texts in a definition: its description and every description in
/// its schema, as they stand in the JSON.
fn verbatim_bytes(definition: &Definition) -> usize {
    fn in_schema(value: &serde_json::Value) -> usize {
        match value {
            serde_json::Value::Object(object) => object
                .iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("description", serde_json::Value::String(text)) => json_len(text),
                    _ => in_schema(value),
                })
                .sum(),
            serde_json::Value::Array(items) => items.iter().map(in_schema).sum(),
            _ => 0,
        }
    }
    json_len(definition.description()) + in_schema(definition.input_schema())
}

/// The length of a string's JSON escape, without its quotes.
fn json_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(0, |quoted| quoted.len() - 2)
}

#[cfg(feature = "tokens")]
fn tokens(text: &str) -> Option<usize> {
    Some(
        tiktoken_rs::o200k_base_singleton()
            .encode_with_special_tokens(text)
            .len(),
    )
}

#[cfg(not(feature = "tokens"))]
fn tokens(_: &str) -> Option<usize> {
    None
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value serializes")
}
