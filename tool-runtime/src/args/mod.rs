//! Model arguments: parsing a call's raw JSON into the tool's argument types, and the one error
//! format every tool shares.
//!
//! The success path deserializes straight from the text into typed values, with no JSON value
//! in between, checking on the way what the types leave to the schema (bounds, lengths,
//! patterns…: the tool's plan). Only when that fails are the arguments read again, as a JSON
//! value checked against the tool's own input schema, to say where the first failing value is,
//! what was expected and what was found, in the schema's words (never a Rust type name). When
//! the tool's types check its whole schema, only the innermost array or object around where the
//! typed parse stopped is read again, so a refusal costs about what the part before the stop
//! did.

use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::output::ToolOutput;
use crate::refusal;
use tool_schema::Definition;

use tool_schema::validate;

/// A type a `#[tool]` function can take as a model argument: it deserializes from the model's
/// JSON and describes itself as a JSON schema. Implemented for every such type.
///
/// Generated code reaches each argument type only through this trait's methods, so a type that
/// lacks `Deserialize` or `JsonSchema` is reported once, at the parameter's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a model argument of a #[tool] function",
    note = "a model argument needs `serde::Deserialize` and `schemars::JsonSchema`: derive both on it",
    note = "context parameters are spelled `&Exec`, `Agent`, `Option<Agent>` or `Service<T>`; a type alias for one of them is read as a model argument"
)]
pub trait ModelArg: Sized {
    /// The argument's schema.
    fn schema(generator: &mut SchemaGenerator) -> Schema;

    /// Whether the argument may be left out: whether it deserializes from nothing, as an
    /// `Option` does. The same test decides the schema's `required` list and what the parser
    /// accepts, so the two cannot disagree.
    fn optional() -> bool;

    /// Parses the next value of an argument map.
    fn next<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Self, A::Error>;

    /// The value of an argument the model left out: `None` for an `Option`, else a
    /// missing-field error.
    fn missing<E: de::Error>(name: &'static str) -> Result<Self, E>;
}

impl<T: DeserializeOwned + JsonSchema> ModelArg for T {
    fn schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<T>()
    }

    fn optional() -> bool {
        // With the error type of `missing`'s use, so the two share one instantiation.
        T::deserialize(Missing::<serde_json::Error>::new("")).is_ok()
    }

    fn next<'de, A: MapAccess<'de>>(map: &mut A) -> Result<T, A::Error> {
        map.next_value()
    }

    fn missing<E: de::Error>(name: &'static str) -> Result<T, E> {
        T::deserialize(Missing::<E>::new(name))
    }
}

/// Deserializes an argument name into its index in the tool's argument names, refusing names
/// not among them. Arguments mostly come in the order they are declared, so the name after the
/// last one found is tried first ([`ArgFields::after`]).
#[derive(Clone, Copy, Debug)]
pub struct ArgFields {
    fields: &'static [&'static str],
    next: usize,
}

impl ArgFields {
    /// The names of a tool's arguments, in their order.
    pub fn new(fields: &'static [&'static str]) -> Self {
        ArgFields { fields, next: 0 }
    }

    /// The same names, expecting the one after `index` next.
    pub fn after(self, index: usize) -> Self {
        ArgFields {
            next: index + 1,
            ..self
        }
    }
}

impl<'de> DeserializeSeed<'de> for ArgFields {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for ArgFields {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an argument name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        crate::text::position_expecting(self.fields, name, self.next)
            .ok_or_else(|| E::unknown_field(name, self.fields))
    }
}

/// A deserializer for a value that is not there: `Option`s become `None`, everything else fails
/// with a missing-field error.
struct Missing<E> {
    name: &'static str,
    error: PhantomData<E>,
}

impl<E> Missing<E> {
    fn new(name: &'static str) -> Self {
        Missing {
            name,
            error: PhantomData,
        }
    }
}

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.name))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Parses a call's raw arguments into `T`, the tool's argument struct, or explains why not in
/// the shared error format.
///
/// Generic code is built again in each tool's crate: all but the reading of `T` itself (a
/// `Reader`, handed on as a trait object) is in plain functions beside this one, built once.
pub fn parse_args<T: DeserializeOwned>(
    definition: &Definition,
    args: &str,
) -> Result<T, ToolOutput> {
    let mut parsed = None;
    parse_args_with(definition, args, &mut validate::reader(&mut parsed))?;
    // A reading that succeeded kept its value.
    parsed.ok_or_else(|| refusal::invalid_args("", "the arguments were not read"))
}

/// [`parse_args`] with the reading of the argument types given as a [`validate::Reader`]: all
/// of it but that reading, built once here.
fn parse_args_with(
    definition: &Definition,
    args: &str,
    read: &mut validate::Reader<'_>,
) -> Result<(), ToolOutput> {
    match definition.plan().parse_with(args, read) {
        Ok(false) => Ok(()),
        Ok(true) => Err(plan_refusal(definition, args)),
        Err(error) => {
            if let Some(refusal) = part_refusal(definition, args, &error) {
                // Every debug build (the tests, the fuzz targets) holds it to the whole reading.
                #[cfg(debug_assertions)]
                held_to_whole(
                    &refusal,
                    retry_or_explain(definition.checked_schema(), args, &error, read).err(),
                    args,
                );
                return Err(refusal);
            }
            retry_or_explain(definition.checked_schema(), args, &error, read)
        }
    }
}

/// The refusal of arguments that parsed but break the plan: the first violation in the order
/// the model sent its members, which may be earlier than the first the plan met.
fn plan_refusal(definition: &Definition, args: &str) -> ToolOutput {
    let value: Value = match serde_json::from_str(args) {
        Ok(value) => value,
        Err(error) => return refusal::malformed_args(&error),
    };
    let violation = validate::first_violation(definition.checked_schema(), &value)
        .or_else(|| definition.plan().first_violation(&value));
    match violation {
        Some(violation) => refusal::invalid_args(&violation.path, violation.message),
        None => refusal::invalid_args("", "the arguments break the tool's schema"),
    }
}

/// The refusal [`violation_where_parse_stopped`] finds, for a tool whose types check its whole
/// schema.
fn part_refusal(
    definition: &Definition,
    args: &str,
    error: &serde_json::Error,
) -> Option<ToolOutput> {
    if !definition.plan().is_empty() {
        return None;
    }
    let violation = violation_where_parse_stopped(definition, args, error)?;
    Some(refusal::invalid_args(&violation.path, violation.message))
}

#[cfg(debug_assertions)]
fn held_to_whole(part: &ToolOutput, whole: Option<ToolOutput>, args: &str) {
    assert_eq!(
        whole.as_ref(),
        Some(part),
        "the part's refusal differs from the whole arguments' for {args:?}"
    );
}

/// The refusal of arguments the typed parse stopped in, read from the innermost array or object
/// around where it stopped rather than from the whole arguments: what [`retry_or_explain`] would
/// say, at the cost of that part. Only for a tool whose types check its whole schema (an empty
/// plan), so that nothing before the stop breaks the schema; `None` whenever that cannot be
/// made sure of, and the whole arguments are read.
fn violation_where_parse_stopped(
    definition: &Definition,
    args: &str,
    error: &serde_json::Error,
) -> Option<validate::Violation> {
    if error.classify() != serde_json::error::Category::Data {
        return None;
    }
    let stopped = offset_of(args, error.line(), error.column())?.checked_sub(1)?;
    // Malformed text makes this `None` (the scan checks the syntax), and the whole arguments'
    // reading says it is malformed.
    let located = validate::container_at(args, stopped)?;
    let part: Value = serde_json::from_str(located.text).ok()?;
    validate::first_violation_in_part(definition.checked_schema(), &located, &part)
}

/// The byte offset of serde_json's (line, column): lines from 1, columns in bytes.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = match line {
        0 => return None,
        1 => 0,
        _ => {
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .nth(line - 2)?
                .0
                + 1
        }
    };
    let offset = start + column;
    (offset <= text.len()).then_some(offset)
}

/// The slow path, after the typed parse failed: accepts what the schema accepts after all
/// (integers written as `2.0`), or explains the failure in the schema's words.
fn retry_or_explain(
    schema: &Value,
    args: &str,
    error: &serde_json::Error,
    read: &mut validate::Reader<'_>,
) -> Result<(), ToolOutput> {
    // Read back from text, by the reading that refused it: `T::deserialize(&value)` would
    // instantiate every argument type's `Deserialize` once more, for the value's deserializer,
    // in every tool's crate.
    if let Some(coerced) = schema_refusal_or_coerced(schema, args)?
        && validate::Plan::default().parse_with(&coerced, read).is_ok()
    {
        return Ok(());
    }
    // The schema accepts what the types refuse (a hand-written `Deserialize`, say): give the
    // deserializer's own account, at the path of the failing value.
    Err(types_refusal(
        validate::failure_path_with(args, read),
        error,
    ))
}

/// The refusal of arguments that are not JSON or break the schema; else, when the schema counts
/// some of their numbers as integers that serde does not (`2.0`), the arguments with those
/// written as integers, to try again: the schema stays exactly what is enforced.
fn schema_refusal_or_coerced(schema: &Value, args: &str) -> Result<Option<String>, ToolOutput> {
    // Whether the JSON itself is malformed is asked of the JSON parser alone: serde_json also
    // classifies some type mismatches as syntax errors (a number where an enum was expected).
    let mut value: Value = match serde_json::from_str(args) {
        Ok(value) => value,
        Err(error) => return Err(refusal::malformed_args(&error)),
    };
    if let Some(violation) = validate::first_violation(schema, &value) {
        return Err(refusal::invalid_args(&violation.path, violation.message));
    }
    Ok(validate::coerce_integers(schema, &mut value).then(|| value.to_string()))
}

/// The types' own account of a refusal the schema does not explain: at the path of the value
/// their parse failed in, or the first error's words at the root.
fn types_refusal(
    failure: Option<(String, serde_json::Error)>,
    error: &serde_json::Error,
) -> ToolOutput {
    match failure {
        Some((path, error)) => refusal::invalid_args(&path, without_position(&error)),
        None => refusal::invalid_args("", without_position(error)),
    }
}

/// serde_json's message without its ` at line L column C` suffix.
///
/// The message can quote what the model sent (an unknown enum variant, say), so control
/// characters in it are escaped, keeping the message on one line, and it is cut to
/// [`MAX_FALLBACK_CHARS`] characters.
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    let mut out = String::with_capacity(message.len().min(MAX_FALLBACK_CHARS + 8));
    for (count, c) in message.chars().enumerate() {
        if count == MAX_FALLBACK_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The longest message from the deserializer, in characters, given whole.
const MAX_FALLBACK_CHARS: usize = 200;
