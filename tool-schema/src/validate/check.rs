//! The first place a JSON value breaks a normalized schema, in the words the model sees.
//!
//! It reads every validation keyword schemars can emit: `type`, `enum`, `const`, `properties`,
//! `required`, `additionalProperties`, `propertyNames`, `dependentRequired`, `minProperties`,
//! `maxProperties`, `items`, `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`
//! (in Unicode code points, as JSON Schema counts), `pattern`, and `anyOf`/`oneOf`/`allOf`.
//! `format` is an annotation, as JSON Schema 2020-12 has it by default: it is shown to the model
//! and not asserted. Numbers compare exactly (integers as integers, so a bound of
//! 18446744073709551615 is not rounded); `1` and `1.0` are one value, as JSON Schema says.
//!
//! A value's members are looked at in the order they were sent, missing fields reported after
//! an object's members, as serde does. It explains why arguments were refused, and checks what
//! a tool's [`Plan`](super::Plan) leaves after a typed parse.

use std::fmt::Write;

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::locate::{Located, Segment};
use super::member::Member;
use super::{format, pattern};

use tool_text::quote as quote_found;

/// Where a value breaks its schema and how.
#[derive(Debug, PartialEq, Eq)]
pub struct Violation {
    /// The path of the failing value (`todos[1].status`), empty for the arguments as a whole.
    pub path: String,
    /// What is wrong there: `expected …, got …`, `missing field "…"`, `unknown field "…", …`.
    pub message: String,
}

/// The first violation of `schema` by `value`, if there is one.
pub fn first_violation(schema: &Value, value: &Value) -> Option<Violation> {
    let mut path = String::new();
    check(schema, value, &mut path).map(|message| Violation { path, message })
}

/// The keywords a schema around the part a refusal reads again may have: none of them judges
/// the part's siblings before the part itself (`required` is judged after an object's members).
const AROUND_A_PART: [&str; 14] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "$comment",
];

/// The first violation of `schema` inside `part`, the value at `located` in the arguments: what
/// [`first_violation`] of the whole arguments finds when nothing before the part breaks the
/// schema (as when the typed parse got to it). `None` when it cannot say so: a schema on the way
/// that could judge something else first, or a part that breaks nothing.
pub fn first_violation_in_part(
    schema: &Value,
    located: &Located<'_>,
    part: &Value,
) -> Option<Violation> {
    let mut schema = schema;
    let mut path = String::new();
    for segment in &located.segments {
        let object = schema.as_object()?;
        if object
            .keys()
            .any(|key| !AROUND_A_PART.contains(&key.as_str()))
        {
            return None;
        }
        let kind = match segment {
            Segment::Key(_) => "object",
            Segment::Index(_) => "array",
        };
        if object
            .member("type")
            .is_some_and(|types| types.as_str() != Some(kind))
        {
            return None;
        }
        schema = match *segment {
            Segment::Key(key) => {
                push_key(&mut path, key);
                match object
                    .member("properties")
                    .and_then(|properties| properties.member(key))
                {
                    Some(member) => member,
                    None => match object.member("additionalProperties") {
                        Some(member @ Value::Object(_)) => member,
                        _ => return None,
                    },
                }
            }
            Segment::Index(index) => {
                let _ = write!(path, "[{index}]");
                object.member("items")?
            }
        };
    }
    check(schema, part, &mut path).map(|message| Violation { path, message })
}

/// Checks `value` against `schema`; on failure leaves `path` at the failing value.
fn check(schema: &Value, value: &Value, path: &mut String) -> Option<String> {
    let schema = match schema {
        Value::Bool(true) => return None,
        Value::Bool(false) => return Some(format!("expected nothing, got {}", found(value))),
        Value::Object(schema) => schema,
        _ => return None,
    };
    if let Some(message) = check_alternatives(schema, value, path) {
        return Some(message);
    }
    if let Some(Value::Array(branches)) = schema.member("allOf") {
        for branch in branches {
            let len = path.len();
            if let Some(message) = check(branch, value, path) {
                return Some(message);
            }
            path.truncate(len);
        }
    }
    if let Some(types) = schema.member("type")
        && !type_matches(types, value)
    {
        return Some(format!(
            "expected {}, got {}",
            expected(schema),
            found(value)
        ));
    }
    if let Some(Value::Array(options)) = schema.member("enum")
        && !options.iter().any(|option| same(option, value))
    {
        return Some(format!(
            "expected {}, got {}",
            expected(schema),
            found(value)
        ));
    }
    if let Some(constant) = schema.member("const")
        && !same(constant, value)
    {
        return Some(format!(
            "expected {}, got {}",
            expected(schema),
            found(value)
        ));
    }
    match value {
        Value::Number(number) => check_number(schema, number),
        Value::String(text) => check_string(schema, text),
        Value::Array(items) => check_array(schema, items, path),
        Value::Object(members) => check_object(schema, members, path),
        Value::Null | Value::Bool(_) => None,
    }
}

/// `anyOf` and `oneOf`: the value must match a branch. When none does, the failure is explained
/// from inside the one branch whose type fits the value, or else from the branch that failed
/// deepest; when neither tells them apart, the whole union is what was expected.
fn check_alternatives(
    schema: &Map<String, Value>,
    value: &Value,
    path: &mut String,
) -> Option<String> {
    let branches = alternatives(schema)?;
    let len = path.len();
    let mut fitting = Vec::new();
    let mut deepest: Option<(String, String)> = None;
    for branch in branches {
        let message = check(branch, value, path)?;
        // A branch fits when it declares the value's type, or declares none and the value got
        // past its own level.
        let fits = match branch.member("type") {
            Some(types) => type_matches(types, value),
            None => path.len() > len,
        };
        if fits {
            fitting.push((path.clone(), message.clone()));
        }
        if fits && path.len() > len && deepest.is_none() {
            deepest = Some((path.clone(), message));
        }
        path.truncate(len);
    }
    let chosen = match fitting.len() {
        1 => fitting.pop(),
        _ => deepest,
    };
    match chosen {
        Some((at, message)) => {
            *path = at;
            Some(message)
        }
        None => Some(format!(
            "expected {}, got {}",
            union(branches),
            found(value)
        )),
    }
}

fn alternatives(schema: &Map<String, Value>) -> Option<&Vec<Value>> {
    schema
        .member("anyOf")
        .or_else(|| schema.member("oneOf"))
        .and_then(Value::as_array)
}

/// What any of `branches` expects: `"low" or "high" or null`.
fn union(branches: &[Value]) -> String {
    branches
        .iter()
        .filter_map(Value::as_object)
        .map(|branch| match branch.member("enum") {
            // An enum's values, each an alternative of the union.
            Some(Value::Array(options)) => {
                options.iter().map(literal).collect::<Vec<_>>().join(" or ")
            }
            _ => expected(branch),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn check_number(schema: &Map<String, Value>, number: &Number) -> Option<String> {
    let bound = |key: &str| match schema.member(key) {
        Some(Value::Number(bound)) => Some(compare(number, bound)),
        _ => None,
    };
    let outside = bound("minimum") == Some(Ordering::Less)
        || bound("exclusiveMinimum").is_some_and(Ordering::is_le)
        || bound("maximum") == Some(Ordering::Greater)
        || bound("exclusiveMaximum").is_some_and(Ordering::is_ge)
        || matches!(schema.member("multipleOf"), Some(Value::Number(step)) if !is_multiple(number, step));
    outside.then(|| format!("expected {}, got {number}", expected(schema)))
}

/// Orders two JSON numbers exactly when both are integers, else as `f64`s.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
    }
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

pub(super) fn is_multiple(number: &Number, step: &Number) -> bool {
    match (integer(number), integer(step)) {
        (Some(_), Some(0)) => true,
        (Some(number), Some(step)) => number % step == 0,
        _ => match (number.as_f64(), step.as_f64()) {
            (Some(number), Some(step)) if step != 0.0 => {
                let quotient = number / step;
                quotient.is_finite() && quotient.fract() == 0.0
            }
            _ => true,
        },
    }
}

/// JSON Schema's equality: numbers by value (`1` is `1.0`), arrays item by item, objects member
/// by member whatever their order.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Ordering::Equal,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.member(key).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

fn check_string(schema: &Map<String, Value>, text: &str) -> Option<String> {
    let bound = |key: &str| schema.member(key).and_then(Value::as_u64);
    let (min, max) = (bound("minLength"), bound("maxLength"));
    if min.is_some() || max.is_some() {
        let chars = text.chars().count() as u64;
        if min.is_some_and(|min| chars < min) || max.is_some_and(|max| chars > max) {
            return Some(format!(
                "expected {}, got a string of {chars} characters",
                expected(schema)
            ));
        }
    }
    // Outside an asserted format, or not matching the pattern: said in the same words.
    let refused = matches!(
        schema.member(format::ASSERTED),
        Some(Value::String(name)) if !format::matches(name, text)
    ) || matches!(
        schema.member("pattern"),
        Some(Value::String(regex)) if !pattern::matches(regex, text)
    );
    if refused {
        return Some(format!(
            "expected {}, got {}",
            expected(schema),
            quote_found(text)
        ));
    }
    None
}

fn check_array(schema: &Map<String, Value>, items: &[Value], path: &mut String) -> Option<String> {
    let count = items.len() as u64;
    let bound = |key: &str| schema.member(key).and_then(Value::as_u64);
    if bound("minItems").is_some_and(|min| count < min)
        || bound("maxItems").is_some_and(|max| count > max)
    {
        return Some(format!(
            "expected {}, got an array of {count} items",
            expected(schema)
        ));
    }
    if schema.member("uniqueItems") == Some(&Value::Bool(true)) {
        for (index, item) in items.iter().enumerate() {
            if let Some(first) = items[..index]
                .iter()
                .position(|earlier| same(earlier, item))
            {
                return Some(format!(
                    "expected {}, got item {index} equal to item {first}",
                    expected(schema)
                ));
            }
        }
    }
    let prefix = schema.member("prefixItems").and_then(Value::as_array);
    for (index, item) in items.iter().enumerate() {
        let item_schema = match prefix.and_then(|prefix| prefix.get(index)) {
            Some(item_schema) => item_schema,
            None => match schema.member("items") {
                Some(item_schema) => item_schema,
                None => continue,
            },
        };
        let len = path.len();
        let _ = write!(path, "[{index}]");
        if let Some(message) = check(item_schema, item, path) {
            return Some(message);
        }
        path.truncate(len);
    }
    None
}

fn check_object(
    schema: &Map<String, Value>,
    members: &Map<String, Value>,
    path: &mut String,
) -> Option<String> {
    let count = members.len() as u64;
    let bound = |key: &str| schema.member(key).and_then(Value::as_u64);
    if bound("minProperties").is_some_and(|min| count < min)
        || bound("maxProperties").is_some_and(|max| count > max)
    {
        return Some(format!(
            "expected {}, got an object of {count} members",
            expected(schema)
        ));
    }
    let properties = schema.member("properties").and_then(Value::as_object);
    let additional = schema.member("additionalProperties");
    let names = schema.member("propertyNames");
    for (key, member) in members {
        if let Some(names) = names
            && let Some(problem) = check(names, &Value::String(key.clone()), &mut String::new())
        {
            return Some(format!("member name {}: {problem}", quote_found(key)));
        }
        let member_schema = match properties.and_then(|properties| properties.member(key)) {
            Some(member_schema) => member_schema,
            None => match additional {
                Some(Value::Bool(false)) => return Some(unknown_field(key, properties)),
                Some(member_schema) => member_schema,
                None => continue,
            },
        };
        let len = path.len();
        push_key(path, key);
        if let Some(message) = check(member_schema, member, path) {
            return Some(message);
        }
        path.truncate(len);
    }
    let required = schema.member("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if members.member(name).is_none() {
            return Some(format!("missing field {}", quote_found(name)));
        }
    }
    if let Some(Value::Object(dependent)) = schema.member("dependentRequired") {
        for (present, needed) in dependent {
            if members.member(present).is_none() {
                continue;
            }
            let needed = needed
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str);
            for name in needed {
                if members.member(name).is_none() {
                    return Some(format!(
                        "missing field {}, which {} requires",
                        quote_found(name),
                        quote_found(present)
                    ));
                }
            }
        }
    }
    None
}

fn unknown_field(key: &str, properties: Option<&Map<String, Value>>) -> String {
    let known: Vec<String> = properties
        .into_iter()
        .flat_map(Map::keys)
        .map(|name| quote_found(name))
        .collect();
    let key = quote_found(key);
    match known.as_slice() {
        [] => format!("unknown field {key}, expected no fields"),
        [only] => format!("unknown field {key}, expected {only}"),
        _ => format!("unknown field {key}, expected one of {}", known.join(", ")),
    }
}

/// Appends `.key`, or `["key"]` when the key is not an identifier.
fn push_key(path: &mut String, key: &str) {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        let _ = write!(path, "[{}]", quote_found(key));
    }
}

pub(super) fn type_matches(types: &Value, value: &Value) -> bool {
    type_admits(types, Kind::of(value))
}

/// Whether `type` (a name or a list of names) admits a value of this kind.
pub(super) fn type_admits(types: &Value, kind: Kind) -> bool {
    let is = |name: &str| match name {
        "null" => kind == Kind::Null,
        "boolean" => kind == Kind::Boolean,
        "string" => kind == Kind::String,
        "array" => kind == Kind::Array,
        "object" => kind == Kind::Object,
        "number" => matches!(kind, Kind::Integer | Kind::Fraction),
        "integer" => kind == Kind::Integer,
        _ => true,
    };
    match types {
        Value::String(name) => is(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(is),
        _ => true,
    }
}

/// A JSON value's kind, as `type` names it. JSON Schema's integers include `1.0` and `1e3` (the
/// parser accepts them too, see `coerce_integers`): a `Fraction` is a number with no integer
/// value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Null,
    Boolean,
    Integer,
    Fraction,
    String,
    Array,
    Object,
}

impl Kind {
    pub(super) fn of(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(number) if number.is_i64() || number.is_u64() => Kind::Integer,
            Value::Number(number) => Kind::of_f64(number.as_f64().unwrap_or(f64::NAN)),
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// The kind of a number read as a float.
    pub(super) fn of_f64(number: f64) -> Kind {
        match number.fract() == 0.0 {
            true => Kind::Integer,
            false => Kind::Fraction,
        }
    }
}

/// Rewrites the numbers with a fraction or an exponent that the schema takes as integers
/// (`2.0`, `1e3`) as plain integers, so the argument types read them. Returns whether it
/// rewrote any.
pub fn coerce_integers(schema: &Value, value: &mut Value) -> bool {
    let Value::Object(schema) = schema else {
        return false;
    };
    let mut changed = false;
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .member(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            changed |= coerce_integers(branch, value);
        }
    }
    let wants_integer = match schema.member("type") {
        Some(Value::String(name)) => name == "integer",
        Some(Value::Array(names)) => {
            names.iter().any(|n| n == "integer") && !names.iter().any(|n| n == "number")
        }
        _ => false,
    };
    match value {
        Value::Number(number) if wants_integer && !number.is_i64() && !number.is_u64() => {
            let Some(float) = number.as_f64().filter(|f| f.fract() == 0.0) else {
                return changed;
            };
            // Exactly representable: below 2^53 in magnitude.
            if float.abs() < 9_007_199_254_740_992.0 {
                #[allow(clippy::cast_possible_truncation)]
                let integer = float as i64;
                *value = Value::from(integer);
                return true;
            }
            changed
        }
        Value::Array(items) => {
            let prefix = schema.member("prefixItems").and_then(Value::as_array);
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(item_schema) = prefix
                    .and_then(|p| p.get(index))
                    .or_else(|| schema.member("items"))
                {
                    changed |= coerce_integers(item_schema, item);
                }
            }
            changed
        }
        Value::Object(members) => {
            let properties = schema.member("properties").and_then(Value::as_object);
            for (key, member) in members.iter_mut() {
                if let Some(member_schema) = properties
                    .and_then(|p| p.member(key))
                    .or_else(|| schema.member("additionalProperties"))
                {
                    changed |= coerce_integers(member_schema, member);
                }
            }
            changed
        }
        _ => changed,
    }
}

/// What a schema expects, as a phrase: `a string`, `one of "a", "b"`, `an integer from 0 to 255`.
fn expected(schema: &Map<String, Value>) -> String {
    if let Some(Value::Array(options)) = schema.member("enum") {
        let options: Vec<String> = options.iter().map(literal).collect();
        return match options.as_slice() {
            [only] => only.clone(),
            _ => format!("one of {}", options.join(", ")),
        };
    }
    if let Some(constant) = schema.member("const") {
        return literal(constant);
    }
    if schema.member("type").is_none()
        && let Some(branches) = alternatives(schema)
    {
        return union(branches);
    }
    let mut phrase = match schema.member("type") {
        Some(Value::String(name)) => type_phrase(name).to_owned(),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(type_phrase)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "a value".to_owned(),
    };
    let number = |key: &str| {
        schema
            .member(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    match (number("minimum"), number("maximum")) {
        // A wide unsigned range (`u32`, `u64`) reads as a model would say it: non-negative,
        // at most a number worth writing.
        (Some(min), Some(max)) if phrase == "an integer" && min == "0" && wide(&max) => {
            phrase = "a non-negative integer".to_owned();
            if max.parse::<u64>().is_ok_and(|max| max <= MAX_SAFE_INTEGER) {
                let _ = write!(phrase, " at most {max}");
            }
        }
        // The whole of `i64`: any integer a model would write.
        (Some(min), Some(max))
            if phrase == "an integer"
                && min == i64::MIN.to_string()
                && max == i64::MAX.to_string() => {}
        (Some(min), Some(max)) => {
            let _ = write!(phrase, " from {min} to {max}");
        }
        (Some(min), None) => {
            let _ = write!(phrase, " of at least {min}");
        }
        (None, Some(max)) => {
            let _ = write!(phrase, " of at most {max}");
        }
        (None, None) => {}
    }
    if let Some(min) = number("exclusiveMinimum") {
        let _ = write!(phrase, " greater than {min}");
    }
    if let Some(max) = number("exclusiveMaximum") {
        let _ = write!(phrase, " less than {max}");
    }
    if let Some(step) = number("multipleOf") {
        let _ = write!(phrase, " that is a multiple of {step}");
    }
    for (min_key, max_key, unit) in [
        ("minLength", "maxLength", "characters"),
        ("minItems", "maxItems", "items"),
        ("minProperties", "maxProperties", "members"),
    ] {
        match (number(min_key), number(max_key)) {
            (Some(min), Some(max)) => {
                let _ = write!(phrase, " of {min} to {max} {unit}");
            }
            (Some(min), None) => {
                let _ = write!(phrase, " of at least {min} {unit}");
            }
            (None, Some(max)) => {
                let _ = write!(phrase, " of at most {max} {unit}");
            }
            (None, None) => {}
        }
    }
    if schema.member("uniqueItems") == Some(&Value::Bool(true)) {
        phrase.push_str(" of unique items");
    }
    if let Some(Value::String(name)) = schema.member(format::ASSERTED) {
        let _ = write!(phrase, " in the format {}", quote_found(name));
    }
    if let Some(Value::String(regex)) = schema.member("pattern") {
        let _ = write!(phrase, " matching {}", quote_found(regex));
    }
    phrase
}

/// The largest integer a JSON number holds exactly everywhere (2^53 - 1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Whether `max` bounds an unsigned range wider than a model thinks of as a range: past
/// `i32::MAX`.
fn wide(max: &str) -> bool {
    max.parse::<u64>().is_ok_and(|max| max > i32::MAX as u64)
        || max
            .parse::<f64>()
            .is_ok_and(|max| max > f64::from(i32::MAX))
}

fn type_phrase(name: &str) -> &str {
    match name {
        "null" => "null",
        "boolean" => "a boolean",
        "string" => "a string",
        "array" => "an array",
        "object" => "an object",
        "number" => "a number",
        "integer" => "an integer",
        other => other,
    }
}

/// A schema's literal value as a message shows it.
fn literal(value: &Value) -> String {
    match value {
        Value::String(text) => quote_found(text),
        other => found(other),
    }
}

/// What the model sent, as a message shows it: strings quoted (and cut when long), numbers,
/// booleans and null as written, arrays and objects by kind.
fn found(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(text) => quote_found(text),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn violation(schema: Value, value: Value) -> Option<(String, String)> {
        first_violation(&schema, &value).map(|v| (v.path, v.message))
    }

    #[test]
    fn nested_enum_names_path_expected_and_found() {
        let schema = json!({"type": "object", "properties": {"todos": {"type": "array", "items": {
            "type": "object",
            "properties": {"status": {"type": "string", "enum": ["pending", "done"]}},
            "required": ["status"], "additionalProperties": false}}}});
        let value = json!({"todos": [{"status": "pending"}, {"status": "later"}]});
        assert_eq!(
            violation(schema, value),
            Some((
                "todos[1].status".into(),
                r#"expected one of "pending", "done", got "later""#.into()
            ))
        );
    }

    #[test]
    fn members_are_checked_in_the_order_sent_and_missing_fields_last() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a", "b"], "additionalProperties": false});
        assert_eq!(
            violation(schema.clone(), json!({"b": "x", "c": 1})),
            Some(("b".into(), r#"expected an integer, got "x""#.into()))
        );
        assert_eq!(
            violation(schema.clone(), json!({"c": 1, "b": "x"})),
            Some((
                "".into(),
                r#"unknown field "c", expected one of "a", "b""#.into()
            ))
        );
        assert_eq!(
            violation(schema, json!({"b": 1})),
            Some(("".into(), r#"missing field "a""#.into()))
        );
    }

    #[test]
    fn nullable_union_explains_the_branch_that_fits() {
        let schema = json!({"anyOf": [
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 255}}},
            {"type": "null"}]});
        assert_eq!(violation(schema.clone(), json!(null)), None);
        assert_eq!(
            violation(schema.clone(), json!({"n": 300})),
            Some((
                "n".into(),
                "expected an integer from 0 to 255, got 300".into()
            ))
        );
        assert_eq!(
            violation(schema, json!("x")),
            Some(("".into(), r#"expected an object or null, got "x""#.into()))
        );
    }

    #[test]
    fn odd_keys_are_quoted_in_the_path_and_long_strings_are_cut() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        let long = "x".repeat(100);
        let (path, message) = violation(schema, json!({"a b": long})).unwrap();
        assert_eq!(path, r#"["a b"]"#);
        assert_eq!(
            message,
            format!("expected an integer, got \"{}…\"", "x".repeat(48))
        );
    }

    #[test]
    fn integers_are_json_schema_integers() {
        let schema = json!({"type": "integer"});
        assert_eq!(violation(schema.clone(), json!(1.0)), None);
        assert_eq!(violation(schema.clone(), json!(1e3)), None);
        assert_eq!(
            violation(schema, json!(1.5)),
            Some(("".into(), "expected an integer, got 1.5".into()))
        );
    }

    #[test]
    fn integral_floats_are_rewritten_where_the_schema_wants_integers() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"},
            "list": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}});
        let mut value = json!({"n": 2.0, "x": 2.0, "list": [1e2, null, 3]});
        assert!(coerce_integers(&schema, &mut value));
        assert_eq!(value.to_string(), r#"{"n":2,"x":2.0,"list":[100,null,3]}"#);
        assert!(!coerce_integers(&schema, &mut value));
    }
}
