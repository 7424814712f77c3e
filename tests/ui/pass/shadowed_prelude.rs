// Generated code must name nothing relative: these shadow the prelude and the serde crate.
#![allow(dead_code, non_camel_case_types)]

use tool_runtime::{Agent, Tool, tool};

struct Result;
struct Ok;
struct Err;
struct Option;
struct Some;
struct None;
struct String;
struct Vec;
struct Box;
mod serde {}
mod core {}
mod schemars {}

/// Counts letters.
#[tool]
fn letters(agent: ::core::option::Option<Agent>, word: std::string::String) -> std::string::String {
    let _ = agent;
    word.len().to_string()
}

fn main() {
    assert_eq!(Letters.definition().name(), "letters");
}
