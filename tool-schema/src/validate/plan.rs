//! What a tool's argument types leave to be checked as they parse, planned once per tool.
//!
//! serde enforces a schema's types, its enums and constants, its required members, the objects
//! schemars closed (`deny_unknown_fields`) and the ranges integer types imply (`u8` is 0 to 255).
//! Everything else a schema can say is left to the plan: the bounds an author declared, lengths,
//! patterns, sizes, unique items, member names, dependent members, and the objects the runtime
//! closed itself. The plan is the schema pruned to those places, checked while the typed parse
//! reads (`alongside`); where that reading cannot see a checked place, the text is read again
//! by the plan, by hand ([`Cursor`]) or, failing that, by serde. A tool whose schema carries no
//! such keyword (todo_write) has an empty plan.

use serde_json::{Map, Value};

use super::alongside::{self, Reader};
use super::check::{self, Violation};
use super::node::{Node, Stream};
use super::scan::Cursor;

/// The keywords a node's own types do not enforce.
const UNENFORCED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
];

/// The checks left after a typed parse: a schema pruned to the places that carry them, compiled
/// (bounds read, patterns compiled) into a tree that visits only those places.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pruned: Option<Value>,
    root: Option<Node>,
}

impl Plan {
    /// A plan that checks everything `schema` says: for a schema no types stand behind.
    pub fn everything(schema: &Value) -> Self {
        Plan::of(Some(schema.clone()))
    }

    fn of(pruned: Option<Value>) -> Self {
        let root = pruned.as_ref().map(Node::compile);
        Plan { pruned, root }
    }

    /// Builds the checker of every format the plan asserts; the first that cannot be built, why.
    pub fn check_formats(&self) -> Result<(), String> {
        self.pruned
            .as_ref()
            .map_or(Ok(()), super::format::check_formats)
    }

    /// Whether nothing is left to check.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// Reads `args` with `read` as `serde_json::from_str` does, with the same errors, checking
    /// the plan on the way: whether the arguments break the plan. Where the types read a
    /// checked place without the plan seeing it, the text is read again by
    /// [`Plan::is_violated_in`].
    pub fn parse_with(&self, args: &str, read: &mut Reader<'_>) -> Result<bool, serde_json::Error> {
        match alongside::parse_with(self.root.as_ref(), args, read)? {
            Some(violated) => {
                // Every debug build (the tests, the fuzz targets) holds it to serde's reading.
                #[cfg(debug_assertions)]
                self.held_to_serde(args, violated);
                Ok(violated)
            }
            None => self.is_violated_in(args),
        }
    }

    #[cfg(debug_assertions)]
    fn held_to_serde(&self, args: &str, violated: bool) {
        if let Some(root) = &self.root {
            assert_eq!(
                Stream::violated_in(root, args).ok(),
                Some(violated),
                "the reading alongside the types differs from serde's for {args:?}"
            );
        }
    }

    /// Whether the JSON text `args` breaks what the plan checks, read as a stream: no JSON value
    /// is built but where a check needs one (counts, uniqueness, unions). `Err` when the text is
    /// not JSON.
    pub fn is_violated_in(&self, args: &str) -> Result<bool, serde_json::Error> {
        let Some(root) = &self.root else {
            return Ok(false);
        };
        // Text the typed parse accepted is read by hand, skipping what the plan does not check;
        // anything that reading does not expect is left to serde's reading below.
        let mut cursor = Cursor::new(args);
        if let Some(violated) = root.violated_at(&mut cursor)
            && cursor.peek().is_none()
        {
            // Every debug build (the tests, the fuzz targets) holds it to serde's reading.
            #[cfg(debug_assertions)]
            assert_eq!(
                Stream::violated_in(root, args).ok(),
                Some(violated),
                "the hand reading differs from serde's for {args:?}"
            );
            return Ok(violated);
        }
        Stream::violated_in(root, args)
    }

    /// Whether `value` breaks what the plan checks: for a plan of a whole schema
    /// ([`Plan::everything`]), whether it breaks the schema, answered by the compiled checks
    /// (no keyword looked up, no pattern's text hashed) where [`Plan::first_violation`] walks
    /// the schema to say where and how.
    pub fn is_violated_by(&self, value: &Value) -> bool {
        self.root
            .as_ref()
            .is_some_and(|root| root.is_violated(value))
    }

    /// What [`Plan::is_violated_by`] answers of the value the JSON text `args` holds, read as
    /// a stream: no JSON value is built but where a check needs one (uniqueness, names,
    /// unions, `enum`, `const`). `Err` when the text is not JSON, or names a member twice (as
    /// [`StrictValue`](super::StrictValue) reads it).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_schema::validate::Plan;
    ///
    /// let plan = Plan::everything(&json!({
    ///     "type": "object",
    ///     "properties": {"n": {"type": "integer", "minimum": 1}},
    ///     "required": ["n"],
    /// }));
    /// assert_eq!(plan.is_violated_by_text(r#"{"n": 2.0}"#).ok(), Some(false));
    /// assert_eq!(plan.is_violated_by_text(r#"{"n": 0.5}"#).ok(), Some(true));
    /// assert_eq!(plan.is_violated_by_text(r#"{}"#).ok(), Some(true));
    /// assert!(plan.is_violated_by_text(r#"{"n": 1, "n": 2}"#).is_err());
    /// ```
    pub fn is_violated_by_text(&self, args: &str) -> Result<bool, serde_json::Error> {
        let Some(root) = &self.root else {
            return serde_json::from_str::<super::StrictValue>(args).map(|_| false);
        };
        let violated = Stream::whole_violated_in(root, args);
        // Every debug build (the tests, the fuzz targets) holds it to the value's answer.
        #[cfg(debug_assertions)]
        if let Ok(violated) = violated {
            let value: Value = serde_json::from_str(args).expect("the stream read it");
            assert_eq!(
                violated,
                root.is_violated(&value),
                "the stream's answer differs from the value's for {args:?}"
            );
        }
        violated
    }

    /// The first place `value` breaks what the plan checks, in the schema's words.
    pub fn first_violation(&self, value: &Value) -> Option<Violation> {
        check::first_violation(self.pruned.as_ref()?, value)
    }
}

/// Closes every object of a generated schema (schemars output, before normalization) that
/// declares members and says nothing of others, so an unknown member is refused, and plans the
/// checks the argument types leave.
///
/// Open maps stay open: a `HashMap`, a `serde_json::Map` and a `#[serde(flatten)]` map each say
/// what other members may be (`additionalProperties` is a schema or `true`).
///
/// With `formats`, the `format` of every string is asserted too (see [`super::format`]).
pub(crate) fn close_and_plan(schema: &mut Value, formats: bool) -> Plan {
    Plan::of(prune(schema, formats))
}

/// The range schemars' integer `format` implies, which the integer type enforces.
pub(crate) fn implied_range(format: &str) -> (Option<Value>, Option<Value>) {
    match format {
        "int8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        "int" | "int64" => (Some(i64::MIN.into()), Some(i64::MAX.into())),
        "uint8" => (Some(0.into()), Some(u8::MAX.into())),
        "uint16" => (Some(0.into()), Some(u16::MAX.into())),
        "uint32" => (Some(0.into()), Some(u32::MAX.into())),
        "uint" | "uint64" => (Some(0.into()), Some(u64::MAX.into())),
        "uint128" => (Some(0.into()), None),
        _ => (None, None),
    }
}

/// Closes the open objects under `node` and returns the checks left at it, if any.
fn prune(node: &mut Value, formats: bool) -> Option<Value> {
    let Value::Object(object) = node else {
        return None;
    };
    let closed_here = declares_members(object) && !object.contains_key("additionalProperties");
    if closed_here {
        object.insert("additionalProperties".into(), false.into());
    }

    let mut out = Map::new();
    for key in UNENFORCED {
        if let Some(value) = object.get(*key) {
            out.insert((*key).to_owned(), value.clone());
        }
    }
    if formats
        && super::format::applies(object)
        && let Some(format) = object.get("format").and_then(Value::as_str)
    {
        out.insert(super::format::ASSERTED.to_owned(), format.into());
        // For the message's words ("a string in the format …"); the type is checked already.
        if let Some(kind) = object.get("type") {
            out.insert("type".to_owned(), kind.clone());
        }
    }
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        let (min, max) = implied_range(format);
        for (key, implied) in [("minimum", min), ("maximum", max)] {
            if implied.is_some() && out.get(key) == implied.as_ref() {
                out.remove(key);
            }
        }
    }

    let mut properties = Map::new();
    if let Some(Value::Object(members)) = object.get_mut("properties") {
        for (name, member) in members.iter_mut() {
            match prune(member, formats) {
                Some(pruned) => {
                    properties.insert(name.clone(), pruned);
                }
                // The names are needed where the object is closed here.
                None if closed_here => {
                    properties.insert(name.clone(), true.into());
                }
                None => {}
            }
        }
    }
    if closed_here {
        out.insert("additionalProperties".into(), false.into());
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key)
            && let Some(pruned) = prune(child, formats)
        {
            out.insert(key.to_owned(), pruned);
        }
    }
    // Members checked as others must be told from the declared ones.
    if out.contains_key("additionalProperties")
        && let Some(Value::Object(declared)) = object.get("properties")
    {
        for name in declared.keys() {
            properties.entry(name.clone()).or_insert(Value::Bool(true));
        }
    }
    if !properties.is_empty() {
        out.insert("properties".into(), properties.into());
    }
    if let Some(Value::Array(prefix)) = object.get_mut("prefixItems") {
        let pruned: Vec<Option<Value>> =
            prefix.iter_mut().map(|item| prune(item, formats)).collect();
        if pruned.iter().any(Option::is_some) {
            let pruned = pruned
                .into_iter()
                .map(|item| item.unwrap_or(Value::Bool(true)))
                .collect();
            out.insert("prefixItems".into(), Value::Array(pruned));
        }
    }
    // In a union, which branch a value takes depends on every branch's types: a union with a
    // check in any branch keeps its branches whole.
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = object.get_mut(key) {
            let mut checked = false;
            for branch in branches.iter_mut() {
                checked |= prune(branch, formats).is_some();
            }
            if checked {
                let mut branches = Value::Array(branches.clone());
                if formats {
                    assert_formats(&mut branches);
                }
                out.insert(key.to_owned(), branches);
            }
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Marks every string `format` under `node` as asserted, for a schema checked whole.
fn assert_formats(node: &mut Value) {
    match node {
        Value::Object(object) => {
            if super::format::applies(object)
                && let Some(format) = object.get("format").cloned()
            {
                object.insert(super::format::ASSERTED.to_owned(), format);
            }
            object.values_mut().for_each(assert_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(assert_formats),
        _ => {}
    }
}

/// Whether a schema is a struct's: an object with declared members.
fn declares_members(object: &Map<String, Value>) -> bool {
    let is_object = match object.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => false,
    };
    is_object && object.contains_key("properties")
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    use super::super::node::number;
    use super::super::rng::Rng;

    impl Rng {
        fn space(&mut self) -> &'static str {
            [" ", "", "", "\n  ", "\t"][self.below(5)]
        }

        /// A JSON value's text, its members named `a`, `b` or `c` so the schemas below meet them.
        fn json(&mut self, depth: usize) -> String {
            let pick = if depth > 3 {
                self.below(4)
            } else {
                self.below(6)
            };
            match pick {
                0 => [
                    "0",
                    "7",
                    "-3",
                    "2.5",
                    "-0",
                    "1e2",
                    "12345678901234567890",
                    "0.1",
                ][self.below(8)]
                .to_owned(),
                1 => [
                    "\"\"",
                    "\"ab\"",
                    "\"abcdef\"",
                    "\"é😀\"",
                    "\"a\\\"b\"",
                    "\"\\u0041x\"",
                    "\"A B\"",
                ][self.below(7)]
                .to_owned(),
                2 => ["true", "false", "null"][self.below(3)].to_owned(),
                3 | 4 => {
                    let items: Vec<String> =
                        (0..self.below(4)).map(|_| self.json(depth + 1)).collect();
                    let sep = format!(",{}", self.space());
                    format!("[{}{}{}]", self.space(), items.join(&sep), self.space())
                }
                _ => {
                    let members: Vec<String> = (0..self.below(4))
                        .map(|_| {
                            let key = ["a", "b", "c", "d", "\\u0061"][self.below(5)];
                            format!(
                                "\"{key}\"{}:{}{}",
                                self.space(),
                                self.space(),
                                self.json(depth + 1)
                            )
                        })
                        .collect();
                    format!("{{{}{}}}", self.space(), members.join(","))
                }
            }
        }
    }

    /// Plans that meet the values [`Rng::json`] writes at every kind of place.
    fn nodes() -> Vec<Node> {
        [
            json!({"properties": {"a": {"minLength": 2, "maxLength": 4}, "b": {"maximum": 5},
                   "c": {"items": {"exclusiveMinimum": 0}, "maxItems": 2}},
                   "additionalProperties": false}),
            json!({"properties": {"a": {"pattern": "^[a-z]+$"}, "b": true},
                   "additionalProperties": {"minimum": 1, "multipleOf": 0.5}}),
            json!({"items": {"properties": {"a": {"properties": {"b": {"minLength": 1}}},
                   "c": {"uniqueItems": true}}, "minProperties": 1}}),
            json!({"prefixItems": [{"maxLength": 1}, true, {"minimum": 0}],
                   "items": {"maxProperties": 1}, "minItems": 1}),
        ]
        .iter()
        .map(Node::compile)
        .collect()
    }

    #[test]
    fn the_hand_reading_answers_as_serde_reads() {
        let nodes = nodes();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut by_hand, mut broken) = (0, 0);
        for _ in 0..4_000 {
            let text = rng.json(0);
            for node in &nodes {
                let expected = Stream::violated_in(node, &text).ok();
                let mut cursor = Cursor::new(&text);
                let answer = node.violated_at(&mut cursor);
                if let Some(violated) = answer
                    && cursor.peek().is_none()
                {
                    by_hand += 1;
                    broken += usize::from(violated);
                    assert_eq!(Some(violated), expected, "{text} against {node:?}");
                }
            }
        }
        // Every text is read by hand (it is well-formed), and both answers come up often.
        assert_eq!(by_hand, 16_000);
        assert!(
            broken > 500 && by_hand - broken > 500,
            "{broken} of {by_hand}"
        );
    }

    #[test]
    fn a_whole_schema_read_as_a_stream_answers_as_its_value() {
        let plans: Vec<Plan> = [
            json!({"type": "object", "required": ["a", "b", "a"],
                   "properties": {"a": {"type": ["string", "null"], "minLength": 2},
                                  "b": {"type": "integer", "maximum": 10},
                                  "c": {"enum": [7, "ab", [], null]}},
                   "additionalProperties": {"type": "array", "items": {"type": "number"}}}),
            json!({"type": "array", "minItems": 1,
                   "prefixItems": [{"const": 7}, false, {"type": "boolean"}],
                   "items": {"type": "object", "properties": {"a": {"type": "string"}},
                             "required": ["a"], "additionalProperties": false}}),
            json!({"anyOf": [{"type": "string"}, {"type": "object", "required": ["d"]}],
                   "items": {"uniqueItems": true}}),
            json!({"type": ["object", "array"], "properties": {"b": {"not_a_keyword": 1}},
                   "items": {"type": "integer"}}),
        ]
        .iter()
        .map(Plan::everything)
        .collect();
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let (mut broken, mut kept, mut twice) = (0, 0, 0);
        for _ in 0..4_000 {
            let text = rng.json(0);
            let strict = serde_json::from_str::<super::super::StrictValue>(&text);
            for plan in &plans {
                match (plan.is_violated_by_text(&text), &strict) {
                    (Ok(violated), Ok(value)) => {
                        assert_eq!(violated, plan.is_violated_by(&value.0), "{text}");
                        broken += usize::from(violated);
                        kept += usize::from(!violated);
                    }
                    // A member named twice, wherever it is, as the strict reading sees it.
                    (Err(_), Err(_)) => twice += 1,
                    (answer, strict) => panic!("{text}: {answer:?} against {strict:?}"),
                }
            }
        }
        assert!(
            broken > 500 && kept > 500 && twice > 100,
            "{broken} broken, {kept} kept, {twice} named twice"
        );
    }

    #[test]
    fn the_reading_alongside_a_value_answers_as_serde_reads() {
        let nodes = nodes();
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut answered, mut broken, mut open) = (0, 0, 0);
        for _ in 0..4_000 {
            let text = rng.json(0);
            for node in &nodes {
                let expected = Stream::violated_in(node, &text).ok();
                let (value, verdict) = alongside::parse::<Value>(Some(node), &text).unwrap();
                assert_eq!(value, serde_json::from_str::<Value>(&text).unwrap());
                match verdict {
                    Some(violated) => {
                        answered += 1;
                        broken += usize::from(violated);
                        assert_eq!(Some(violated), expected, "{text} against {node:?}");
                    }
                    None => open += 1,
                }
            }
        }
        // Both answers come up often; a value whose checks need it whole (unique items under
        // the third plan) leaves the answer open.
        assert!(
            broken > 500 && answered - broken > 500 && open > 0,
            "{broken} of {answered}, {open} open"
        );
    }

    /// Argument types as authors write them: options, defaults, a list, an enum.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Typed {
        a: Option<String>,
        #[serde(default)]
        b: Option<f64>,
        #[serde(default)]
        c: Vec<u32>,
        #[serde(default)]
        d: Option<Kind>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Ab,
        Abcdef,
    }

    #[test]
    fn the_types_meet_the_same_values_and_errors_as_from_serde_json_alone() {
        let node = Node::compile(&json!({
            "properties": {"a": {"minLength": 2, "maxLength": 4}, "b": {"maximum": 5},
                "c": {"items": {"maximum": 6}, "maxItems": 2}, "d": {"maxLength": 2}},
            "additionalProperties": false}));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut parsed, mut refused, mut broken, mut open) = (0, 0, 0, 0);
        for _ in 0..20_000 {
            let text = rng.json(0);
            let alone = serde_json::from_str::<Typed>(&text).map_err(|e| e.to_string());
            let alongside = alongside::parse::<Typed>(Some(&node), &text);
            match alongside {
                Ok((value, verdict)) => {
                    parsed += 1;
                    assert_eq!(Ok(&value), alone.as_ref(), "{text}");
                    match verdict {
                        Some(violated) => {
                            broken += usize::from(violated);
                            let expected = Stream::violated_in(&node, &text).ok();
                            assert_eq!(Some(violated), expected, "{text}");
                        }
                        // An enum is read through serde_json's own access, unseen.
                        None => {
                            open += 1;
                            assert!(value.d.is_some(), "{text}");
                        }
                    }
                }
                Err(error) => {
                    refused += 1;
                    assert_eq!(Err(error.to_string()), alone, "{text}");
                }
            }
        }
        assert!(
            parsed > 200 && refused > 200 && broken > 20 && open > 0,
            "{parsed} parsed ({broken} broken, {open} open), {refused} refused"
        );
    }

    #[test]
    fn raw_values_read_at_checked_places_leave_the_answer_open() {
        #[derive(Deserialize)]
        struct Raw {
            a: Box<serde_json::value::RawValue>,
            b: String,
        }
        let node = Node::compile(&json!({"properties": {"b": {"maxLength": 1}}}));
        let text = r#"{"a": {"b": "long"}, "b": "xy"}"#;
        let (raw, verdict) = alongside::parse::<Raw>(Some(&node), text).unwrap();
        // The raw text is the model's, and the plan's place for `b` is not taken for `a`'s.
        assert_eq!((raw.a.get(), raw.b.as_str()), (r#"{"b": "long"}"#, "xy"));
        assert_eq!(verdict, Some(true));

        let node = Node::compile(&json!({"properties": {"a": {"maxLength": 1}}}));
        let (_, verdict) = alongside::parse::<Raw>(Some(&node), text).unwrap();
        assert_eq!(verdict, None);
    }

    /// Where `serde_path_to_error` says `T`'s parse of `text` fails, and its error's words.
    fn path_to_error<T: serde::de::DeserializeOwned>(text: &str) -> Option<(String, String)> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let error = serde_path_to_error::deserialize::<_, T>(&mut deserializer).err()?;
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        Some((path, error.inner().to_string()))
    }

    fn failure<T: serde::de::DeserializeOwned>(text: &str) -> Option<(String, String)> {
        alongside::failure_path::<T>(text).map(|(path, error)| (path, error.to_string()))
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        a: Option<Inner>,
        #[serde(default)]
        b: Vec<Variant>,
        #[serde(default)]
        c: std::collections::BTreeMap<String, Wrapped>,
        #[serde(default)]
        d: Option<(u8, String)>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        b: Option<u8>,
        #[serde(default)]
        c: Vec<String>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Variant {
        #[serde(rename = "ab")]
        Ab,
        #[serde(rename = "a")]
        A(u8),
        #[serde(rename = "b")]
        B { c: u8 },
        #[serde(rename = "c")]
        C(u8, u8),
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrapped(Option<Vec<bool>>);

    #[test]
    fn a_failure_is_placed_where_serde_path_to_error_places_it() {
        let mut rng = Rng(0x853c_49e6_748f_ea9b);
        let (mut failed, mut deep) = (0, 0);
        for _ in 0..20_000 {
            let text = rng.json(0);
            for answer in [
                (failure::<Outer>(&text), path_to_error::<Outer>(&text)),
                (failure::<Typed>(&text), path_to_error::<Typed>(&text)),
                (
                    failure::<Vec<Variant>>(&text),
                    path_to_error::<Vec<Variant>>(&text),
                ),
            ] {
                assert_eq!(answer.0, answer.1, "{text}");
                if let Some((path, _)) = answer.0 {
                    failed += 1;
                    deep += usize::from(path.contains('.') || path.contains('['));
                }
            }
        }
        assert!(
            failed > 10_000 && deep > 1_000,
            "{failed} failed, {deep} deep"
        );

        // Names read as numbers and booleans, variants of every kind, unknown names.
        for text in [
            r#"{"1": 2, "x": 3}"#,
            r#"{"1": "x"}"#,
            r#"{"true": "x"}"#,
            r#"[{"b": {"c": "x"}}]"#,
            r#"[{"c": [1, "x"]}]"#,
            r#"[{"a": -1}]"#,
            r#"[{"zz": 1}]"#,
            r#"["ab", {"ab": 1}]"#,
            r#"{"a": {"b": 300}}"#,
            r#"{"c": {"k": [true, 1]}}"#,
            r#"{"d": [1, 2]}"#,
            r#"{"a": null, "a": null}"#,
        ] {
            assert_eq!(
                failure::<std::collections::BTreeMap<u8, bool>>(text),
                path_to_error::<std::collections::BTreeMap<u8, bool>>(text),
                "{text}"
            );
            assert_eq!(
                failure::<std::collections::BTreeMap<bool, u8>>(text),
                path_to_error::<std::collections::BTreeMap<bool, u8>>(text),
                "{text}"
            );
            assert_eq!(
                failure::<Vec<Variant>>(text),
                path_to_error::<Vec<Variant>>(text),
                "{text}"
            );
            assert_eq!(
                failure::<Outer>(text),
                path_to_error::<Outer>(text),
                "{text}"
            );
        }
        assert_eq!(
            failure::<Outer>(r#"{"c": {"k": [true, 1]}}"#).map(|(path, _)| path),
            Some("c.k[1]".to_owned())
        );
    }

    #[test]
    fn lengths_count_characters_whatever_their_bytes() {
        let node = Node::compile(&json!({"minLength": 2, "maxLength": 3}));
        for (text, violated) in [
            ("ab", false),
            ("abc", false),
            ("a", true),
            ("abcd", true),
            // Three characters in six, eight and twelve bytes.
            ("ééé", false),
            ("😀a😀", false),
            ("😀😀😀", false),
            // One character in four bytes; four in eight.
            ("😀", true),
            ("éééé", true),
        ] {
            assert_eq!(node.string_violated(text), violated, "{text}");
        }
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        for text in [
            "0",
            "7",
            "-7",
            "-0",
            "00",
            "01",
            "123456789012345678",
            "1234567890123456789",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-123456789012345678",
            "1.5",
            "-0.0",
            "1e3",
            "-",
            "",
            "1-2",
            "+1",
        ] {
            assert_eq!(
                number(text),
                text.parse::<serde_json::Number>().ok(),
                "{text}"
            );
        }
    }

    #[test]
    fn types_alone_plan_nothing() {
        let mut schema = json!({"type": "object", "properties": {
            "todos": {"type": "array", "items": {"type": "object",
                "properties": {"status": {"type": "string", "enum": ["a", "b"]}},
                "required": ["status"], "additionalProperties": false}},
            "n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}},
            "additionalProperties": false});
        assert!(close_and_plan(&mut schema, false).is_empty());
    }

    #[test]
    fn declared_bounds_and_open_objects_are_planned_where_they_are() {
        let mut schema = json!({"type": "object", "properties": {
            "score": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 100},
            "big": {"type": "array", "items": {"type": "string"}},
            "page": {"type": "object", "properties": {"pageSize": {"type": "integer"}}},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}}},
            "additionalProperties": false});
        let plan = close_and_plan(&mut schema, false);
        assert_eq!(
            plan.pruned,
            Some(json!({"properties": {
                "score": {"maximum": 100},
                "page": {"additionalProperties": false, "properties": {"pageSize": true}}}}))
        );
        // The model sees the closed object; the map stays open.
        assert_eq!(
            schema["properties"]["page"]["additionalProperties"],
            json!(false)
        );
        assert!(schema["properties"]["map"]["additionalProperties"].is_object());
        assert!(
            plan.first_violation(&json!({"score": 100, "big": ["x"]}))
                .is_none()
        );
        assert_eq!(
            plan.first_violation(&json!({"page": {"page_size": 1}}))
                .map(|v| v.path),
            Some("page".to_owned())
        );
    }
}
