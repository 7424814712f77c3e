//! What a model sees of a tool, and how what the model sends is held to it: the schema room of
//! the `#[tool]` framework.
//!
//! - [`Definition`]: a tool's name, description (byte for byte) and normalized input schema,
//!   its annotations, output schema, scopes, timeout and concurrency class, and its rendering
//!   in every provider's [`Dialect`], each computed once.
//! - [`validate`]: every validation keyword a schema carries, checked in the schema's own words,
//!   and the [`Plan`](validate::Plan) of what a tool's argument types leave to check after they
//!   parse, checked while they parse.
//!
//! The normalized schema is inline JSON Schema (2020-12 keywords) with no `$schema`, `title`,
//! `$defs` or `$ref` for non-recursive types, no non-standard numeric `format`s (`uint8`,
//! `int64`, `double`…; `minimum`/`maximum` stay), properties in declaration order, and every
//! schema object's keys in one fixed order, so its bytes are the same on every request.
//!
//! ```
//! use serde_json::json;
//! use tool_schema::{Definition, Dialect};
//!
//! let greet = Definition::new(
//!     "greet",
//!     "Says hello.",
//!     json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
//! );
//! let openai = greet.render(Dialect::OpenAi).unwrap();
//! assert_eq!(openai["type"], "function");
//! assert_eq!(openai["function"]["parameters"]["required"][0], "name");
//! ```
//!
//! # The room
//!
//! It uses `tool-text` (quoting what a model sent) and serde, schemars and regex; nothing of the
//! framework's above it. Authors and hosts reach it through `tool-runtime`, which re-exports
//! what they name and parses every call through [`validate`].

mod annotations;
mod definition;
mod dialect;
mod generate;
mod normalize;
pub mod validate;

pub use annotations::Annotations;
pub use definition::{Asks, Concurrency, Definition, TaskSupport};
pub use dialect::{Dialect, DialectError};
pub use generate::{ArgSpec, output_schema};
