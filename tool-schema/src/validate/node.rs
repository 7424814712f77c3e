//! One place of a [`Plan`](super::plan::Plan): the checks on the value there, compiled once, and
//! the places under it; checked on a value, on text read by hand ([`Cursor`]) or on serde's
//! stream of the text ([`Stream`]).

use std::cmp::Ordering;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::check::{self, Kind};
use super::scan::Cursor;
use tool_text::{position_expecting, same_name};

/// One place of a plan: the checks on the value there, and the places under it.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// Keywords on the value itself, as a schema of its own (checked whole; rare and small).
    pub(crate) own: Option<Value>,
    /// Numeric bounds and string lengths and patterns, compiled.
    pub(crate) number: Vec<(Ordering, serde_json::Number, bool)>,
    pub(crate) multiple_of: Option<serde_json::Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    /// Item and member counts.
    pub(crate) items_count: (Option<u64>, Option<u64>),
    pub(crate) members_count: (Option<u64>, Option<u64>),
    pub(crate) pattern: Option<Arc<regex::Regex>>,
    pub(crate) format: Option<super::compile::Compiled<super::format::Checker>>,
    /// The names the object declares, and whether it is closed to others here.
    pub(crate) names: Vec<String>,
    pub(crate) closed: bool,
    pub(crate) properties: Vec<(String, Node)>,
    /// For each declared name, its node's place in `properties` (members with checks).
    pub(crate) property_of: Vec<Option<usize>>,
    pub(crate) items: Option<Box<Node>>,
    pub(crate) prefix_items: Vec<Option<Node>>,
    pub(crate) additional: Option<Box<Node>>,
    /// What typed arguments enforce, and a plan of a whole schema checks on a value
    /// ([`Plan::is_violated_by`](super::Plan::is_violated_by)): the `false` schema, `type`, `enum`, `const` and `required`.
    /// A pruned schema carries none of them, so the stream never meets them.
    pub(crate) never: bool,
    pub(crate) types: Option<Value>,
    pub(crate) options: Option<Vec<Value>>,
    pub(crate) constant: Option<Value>,
    pub(crate) required: Vec<String>,
}

/// Keywords checked through the schema checker, on the value whole: uniqueness, names,
/// dependencies and unions.
const CHECKED_WHOLE: &[&str] = &[
    "uniqueItems",
    "propertyNames",
    "dependentRequired",
    "anyOf",
    "oneOf",
    "allOf",
];

impl Node {
    pub(crate) fn compile(schema: &Value) -> Node {
        let Value::Object(schema) = schema else {
            return Node {
                never: schema == &Value::Bool(false),
                ..Node::default()
            };
        };
        let mut node = Node {
            types: schema.get("type").cloned(),
            options: schema.get("enum").and_then(Value::as_array).cloned(),
            constant: schema.get("const").cloned(),
            required: schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            ..Node::default()
        };
        // Named twice, a required member is still one (the stream counts those it meets).
        let mut seen = std::collections::HashSet::new();
        node.required.retain(|name| seen.insert(name.clone()));
        let whole: Map<String, Value> = schema
            .iter()
            .filter(|(key, _)| CHECKED_WHOLE.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !whole.is_empty() {
            node.own = Some(Value::Object(whole));
        }
        for (key, way, inclusive) in [
            ("minimum", Ordering::Less, true),
            ("exclusiveMinimum", Ordering::Less, false),
            ("maximum", Ordering::Greater, true),
            ("exclusiveMaximum", Ordering::Greater, false),
        ] {
            if let Some(Value::Number(bound)) = schema.get(key) {
                node.number.push((way, bound.clone(), inclusive));
            }
        }
        node.multiple_of = match schema.get("multipleOf") {
            Some(Value::Number(step)) => Some(step.clone()),
            _ => None,
        };
        let count = |key: &str| schema.get(key).and_then(Value::as_u64);
        node.items_count = (count("minItems"), count("maxItems"));
        node.members_count = (count("minProperties"), count("maxProperties"));
        node.min_length = schema.get("minLength").and_then(Value::as_u64);
        node.max_length = schema.get("maxLength").and_then(Value::as_u64);
        node.format = schema
            .get(super::format::ASSERTED)
            .and_then(Value::as_str)
            .map(super::format::compiled);
        node.pattern = schema
            .get("pattern")
            .and_then(Value::as_str)
            .and_then(|pattern| super::pattern::compiled(pattern).ok());
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, property) in properties {
                let checked = property != &Value::Bool(true);
                node.property_of
                    .push(checked.then_some(node.properties.len()));
                if checked {
                    node.properties
                        .push((name.clone(), Node::compile(property)));
                }
            }
            node.names = properties.keys().cloned().collect();
        }
        node.closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        if let Some(items) = schema.get("items") {
            node.items = Some(Box::new(Node::compile(items)));
        }
        if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
            node.prefix_items = prefix
                .iter()
                .map(|item| (item != &Value::Bool(true)).then(|| Node::compile(item)))
                .collect();
        }
        if let Some(additional) = schema.get("additionalProperties")
            && additional.is_object()
        {
            node.additional = Some(Box::new(Node::compile(additional)));
        }
        node
    }

    /// The node that checks this array's item at `index`, if any: its `prefixItems` entry, or
    /// past those, `items`.
    pub(crate) fn item(&self, index: usize) -> Option<&Node> {
        match self.prefix_items.get(index) {
            Some(prefix) => prefix.as_ref(),
            None => self.items.as_deref(),
        }
    }

    /// What a member named `key` meets in this object: whether it breaks the object's being
    /// closed, and the node that checks its value, if any. `expected` is the place of the
    /// declared name after the last one found (members mostly come in the declared order); it
    /// moves past this one.
    pub(crate) fn member(&self, key: &str, expected: &mut usize) -> (bool, Option<&Node>) {
        self.member_at(position_expecting(&self.names, key, *expected), expected)
    }

    /// [`Node::member`] of the member at `place` among the declared names (`None`: undeclared).
    fn member_at(&self, place: Option<usize>, expected: &mut usize) -> (bool, Option<&Node>) {
        match place {
            Some(index) => {
                *expected = index + 1;
                let property = self.property_of[index].map(|index| &self.properties[index].1);
                (false, property)
            }
            None => (self.closed, self.additional.as_deref()),
        }
    }

    /// Whether the object declares a member of this name.
    fn declares(&self, name: &str) -> bool {
        self.names.iter().any(|declared| same_name(declared, name))
    }

    pub(crate) fn number_violated(&self, number: &serde_json::Number) -> bool {
        self.number.iter().any(|(way, bound, inclusive)| {
            let order = check::compare(number, bound);
            order == *way || (!inclusive && order == Ordering::Equal)
        }) || self
            .multiple_of
            .as_ref()
            .is_some_and(|step| !check::is_multiple(number, step))
    }

    pub(crate) fn count_violated((min, max): (Option<u64>, Option<u64>), count: usize) -> bool {
        let count = count as u64;
        min.is_some_and(|min| count < min) || max.is_some_and(|max| count > max)
    }

    pub(crate) fn string_violated(&self, text: &str) -> bool {
        // A string has between a quarter of its bytes and all of them in characters: when both
        // ends fit the bounds, the characters need no counting.
        let bytes = text.len() as u64;
        let surely_within = self.max_length.is_none_or(|max| bytes <= max)
            && self.min_length.is_none_or(|min| bytes.div_ceil(4) >= min);
        if !surely_within {
            let chars = text.chars().count() as u64;
            if self.min_length.is_some_and(|min| chars < min)
                || self.max_length.is_some_and(|max| chars > max)
            {
                return true;
            }
        }
        if let Some(Ok(checker)) = &self.format
            && !super::format::accepts(checker, text)
        {
            return true;
        }
        self.pattern
            .as_ref()
            .is_some_and(|pattern| !pattern.is_match(text))
    }

    pub(crate) fn is_violated(&self, value: &Value) -> bool {
        if self.never
            || self
                .types
                .as_ref()
                .is_some_and(|types| !check::type_matches(types, value))
            || self
                .options
                .as_ref()
                .is_some_and(|options| !options.iter().any(|option| check::same(option, value)))
            || self
                .constant
                .as_ref()
                .is_some_and(|constant| !check::same(constant, value))
        {
            return true;
        }
        if let Some(own) = &self.own
            && check::first_violation(own, value).is_some()
        {
            return true;
        }
        match value {
            Value::Number(number) => self.number_violated(number),
            Value::String(text) => self.string_violated(text),
            Value::Array(items) => {
                Node::count_violated(self.items_count, items.len())
                    || items.iter().enumerate().any(|(index, item)| {
                        self.item(index).is_some_and(|node| node.is_violated(item))
                    })
            }
            Value::Object(members) => {
                if Node::count_violated(self.members_count, members.len())
                    || (self.closed && members.keys().any(|key| !self.declares(key)))
                    || self.required.iter().any(|name| !members.contains_key(name))
                {
                    return true;
                }
                let named = self.properties.iter().any(|(name, node)| {
                    members
                        .get(name)
                        .is_some_and(|member| node.is_violated(member))
                });
                named
                    || self.additional.as_ref().is_some_and(|node| {
                        members
                            .iter()
                            .any(|(key, member)| !self.declares(key) && node.is_violated(member))
                    })
            }
            Value::Null | Value::Bool(_) => false,
        }
    }
}

impl Node {
    /// Whether the value at `cursor` breaks the node's checks, as [`Stream`] answers it, the
    /// cursor taking the value; `None` at anything unexpected.
    pub(crate) fn violated_at(&self, cursor: &mut Cursor<'_>) -> Option<bool> {
        if self.own.is_some() {
            // Counts, uniqueness and unions need the value whole.
            cursor.peek()?;
            let start = cursor.offset();
            cursor.skip_value()?;
            let value: Value = serde_json::from_str(cursor.since(start)?).ok()?;
            return Some(self.is_violated(&value));
        }
        match cursor.peek()? {
            b'"' => {
                let text = cursor.string()?;
                Some(self.string_violated(&text))
            }
            b'[' => self.items_violated_at(cursor),
            b'{' => self.members_violated_at(cursor),
            b't' | b'f' | b'n' => cursor.skip_value().map(|()| false),
            _ => {
                let start = cursor.offset();
                cursor.skip_value()?;
                if self.number.is_empty() && self.multiple_of.is_none() {
                    return Some(false);
                }
                Some(self.number_violated(&number(cursor.since(start)?)?))
            }
        }
    }

    fn items_violated_at(&self, cursor: &mut Cursor<'_>) -> Option<bool> {
        cursor.eat(b'[')?;
        let mut violated = false;
        let mut index = 0;
        if cursor.eat(b']').is_none() {
            loop {
                match (self.item(index), violated) {
                    (Some(node), false) => violated |= node.violated_at(cursor)?,
                    _ => cursor.skip_value()?,
                }
                index += 1;
                match cursor.peek()? {
                    b',' => cursor.eat(b',')?,
                    b']' => break cursor.eat(b']')?,
                    _ => return None,
                }
            }
        }
        Some(violated || Node::count_violated(self.items_count, index))
    }

    fn members_violated_at(&self, cursor: &mut Cursor<'_>) -> Option<bool> {
        cursor.eat(b'{')?;
        let mut violated = false;
        let mut count = 0;
        let mut expected = 0;
        if cursor.eat(b'}').is_none() {
            loop {
                let key = cursor.string()?;
                cursor.eat(b':')?;
                count += 1;
                let (unknown, node) = self.member(&key, &mut expected);
                violated |= unknown;
                match (node, violated) {
                    (Some(node), false) => violated |= node.violated_at(cursor)?,
                    _ => cursor.skip_value()?,
                }
                match cursor.peek()? {
                    b',' => cursor.eat(b',')?,
                    b'}' => break cursor.eat(b'}')?,
                    _ => return None,
                }
            }
        }
        Some(violated || Node::count_violated(self.members_count, count))
    }
}

/// A JSON number's text as serde_json reads it: an integer as `u64` or, negative, `i64`; anything
/// else (fractions, exponents, `-0`, long integers) by serde_json itself.
pub(crate) fn number(text: &str) -> Option<serde_json::Number> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    let plain = (1..=18).contains(&digits.len())
        && digits.bytes().all(|byte| byte.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'));
    if !plain {
        return text.parse().ok();
    }
    let magnitude: u64 = digits.parse().ok()?;
    Some(match negative {
        false => magnitude.into(),
        // serde_json reads `-0` as a float.
        true if magnitude == 0 => return text.parse().ok(),
        true => (-i64::try_from(magnitude).ok()?).into(),
    })
}

/// A plan's node, checking the value the JSON stream holds at its place: what a plan's typed
/// parse leaves (a pruned plan's checks), or, `whole`, everything the node says, as
/// [`Node::is_violated`] answers of the value the text holds, and a member named twice an error
/// (as [`StrictValue`](super::StrictValue) reads it).
pub(crate) struct Stream<'a> {
    node: &'a Node,
    whole: bool,
}

/// A place a node says nothing of, read whole only so a member named twice in it is seen.
static ANYTHING: Node = Node {
    own: None,
    number: Vec::new(),
    multiple_of: None,
    min_length: None,
    max_length: None,
    items_count: (None, None),
    members_count: (None, None),
    pattern: None,
    format: None,
    names: Vec::new(),
    closed: false,
    properties: Vec::new(),
    property_of: Vec::new(),
    items: None,
    prefix_items: Vec::new(),
    additional: None,
    never: false,
    types: None,
    options: None,
    constant: None,
    required: Vec::new(),
};

impl Stream<'_> {
    /// Whether `args` breaks `root`'s checks, read with serde_json; `Err` when it is not JSON.
    pub(crate) fn violated_in(root: &Node, args: &str) -> Result<bool, serde_json::Error> {
        Stream::read(root, args, false)
    }

    /// Whether the value `args` holds breaks what `root` says, read with serde_json, as
    /// [`Node::is_violated`] answers of it; `Err` when it is not JSON or names a member twice.
    pub(crate) fn whole_violated_in(root: &Node, args: &str) -> Result<bool, serde_json::Error> {
        Stream::read(root, args, true)
    }

    fn read(node: &Node, args: &str, whole: bool) -> Result<bool, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(args);
        let stream = Stream { node, whole };
        let violated = serde::de::DeserializeSeed::deserialize(stream, &mut deserializer)?;
        deserializer.end()?;
        Ok(violated)
    }

    /// The stream of a place under this one that `node` checks, once nothing broke the checks
    /// yet: else only a whole value's is read on, for its names ([`ANYTHING`]).
    fn under<'n>(&self, node: Option<&'n Node>, violated: bool) -> Option<Stream<'n>> {
        match (node, violated, self.whole) {
            (Some(node), false, whole) => Some(Stream { node, whole }),
            (_, _, true) => Some(Stream {
                node: &ANYTHING,
                whole: true,
            }),
            (_, _, false) => None,
        }
    }

    /// Whether `type` refuses a value of this kind (only asked of the whole value).
    fn refuses(&self, kind: Kind) -> bool {
        self.whole
            && (self.node.types.as_ref()).is_some_and(|types| !check::type_admits(types, kind))
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Stream<'_> {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        let node = self.node;
        if self.whole && (node.options.is_some() || node.constant.is_some()) || node.own.is_some() {
            // Counts, uniqueness, unions and equality need the value whole.
            let value = match self.whole {
                true => super::StrictValue::deserialize(deserializer)?.0,
                false => Value::deserialize(deserializer)?,
            };
            return Ok(node.is_violated(&value));
        }
        if self.whole && node.never {
            let anything = Stream {
                node: &ANYTHING,
                whole: true,
            };
            deserializer.deserialize_any(anything)?;
            return Ok(true);
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Stream<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(self.refuses(Kind::Boolean))
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(self.refuses(Kind::Null))
    }

    fn visit_none<E>(self) -> Result<bool, E> {
        Ok(self.refuses(Kind::Null))
    }

    fn visit_i64<E>(self, value: i64) -> Result<bool, E> {
        Ok(self.refuses(Kind::Integer) || self.node.number_violated(&value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<bool, E> {
        Ok(self.refuses(Kind::Integer) || self.node.number_violated(&value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<bool, E> {
        Ok(self.refuses(Kind::of_f64(value))
            || serde_json::Number::from_f64(value).is_some_and(|n| self.node.number_violated(&n)))
    }

    fn visit_str<E>(self, text: &str) -> Result<bool, E> {
        Ok(self.refuses(Kind::String) || self.node.string_violated(text))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut violated = self.refuses(Kind::Array);
        let mut index = 0;
        loop {
            let next = match self.under(self.node.item(index), violated) {
                Some(stream) => seq.next_element_seed(stream)?,
                None => seq.next_element::<serde::de::IgnoredAny>()?.map(|_| false),
            };
            match next {
                Some(item) => violated |= item,
                None => {
                    return Ok(violated || Node::count_violated(self.node.items_count, index));
                }
            }
            index += 1;
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let node = self.node;
        let mut violated = self.refuses(Kind::Object);
        let mut count = 0;
        let mut expected = 0;
        let mut names = Names::default();
        let mut required = 0;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            count += 1;
            let place = position_expecting(&node.names, &key, expected);
            if self.whole {
                if !names.first_time(place, key.clone()) {
                    return Err(super::strict::duplicate(&key));
                }
                required += usize::from(node.required.iter().any(|name| same_name(name, &key)));
            }
            let (unknown, member) = node.member_at(place, &mut expected);
            violated |= unknown;
            violated |= match self.under(member, violated) {
                Some(stream) => map.next_value_seed(stream)?,
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    false
                }
            };
        }
        Ok(violated
            || required < node.required.len()
            || Node::count_violated(node.members_count, count))
    }
}

/// The member names an object has shown so far, to see one named twice: the declared ones by
/// their place, the others by name.
#[derive(Default)]
struct Names<'de> {
    declared: u64,
    others: std::collections::HashSet<std::borrow::Cow<'de, str>>,
}

impl<'de> Names<'de> {
    /// Whether the member at `place` among the declared names (else named `key`) is new.
    fn first_time(&mut self, place: Option<usize>, key: std::borrow::Cow<'de, str>) -> bool {
        match place {
            Some(place) if place < 64 => {
                let bit = 1 << place;
                let new = self.declared & bit == 0;
                self.declared |= bit;
                new
            }
            // A name borrowed from the text is kept as a borrow.
            _ => self.others.insert(key),
        }
    }
}

/// A member name, borrowed from the text when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(key)))
            }

            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(key.to_owned())))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}
