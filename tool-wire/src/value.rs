//! A JSON text read into a [`Value`] as `serde_json::from_str` reads it, built with each object
//! and array at its final size.
//!
//! serde_json's own reader grows each object as its members come: an object of four or more
//! members (every block of a response) has its table rehashed and its entries moved once more,
//! and an array of twenty calls is reallocated four times. Here a member or item is first kept
//! on a stack this thread reuses, and the object or array is made at its size when it closes:
//! about a quarter less time for a provider's response (see BENCHMARKS.md, Wire).
//!
//! The same [`serde_json::Deserializer`] reads the text, so what is accepted, what is refused
//! and every error are serde_json's own. One difference, on purpose: an object's member named
//! `$serde_json::private::RawValue` (serde_json's private token) is kept as a member, where
//! serde_json's reader would read the text that member holds in its place.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Members and items of the objects and arrays still open, innermost last.
#[derive(Default)]
struct Stacks {
    members: Vec<(String, Value)>,
    items: Vec<Value>,
}

/// Most members or items a thread's stacks keep room for between two readings: a response with
/// a longer array or object lets its room go when it is read.
const KEPT_ROOM: usize = 256;

thread_local! {
    static STACKS: RefCell<Stacks> = RefCell::default();
}

/// Reads `text` (one JSON value, whitespace around it) as `serde_json::from_str::<Value>` does.
pub(crate) fn parse(text: &str) -> serde_json::Result<Value> {
    with_stacks(|stacks| {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let value = Build(stacks).deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(value)
    })
}

fn with_stacks<T>(reading: impl FnOnce(&mut Stacks) -> T) -> T {
    STACKS.with(|stacks| match stacks.try_borrow_mut() {
        Ok(mut stacks) => {
            // A reading that failed halfway left what it had gathered.
            stacks.members.clear();
            stacks.items.clear();
            let read = reading(&mut stacks);
            if stacks.members.capacity() > KEPT_ROOM {
                stacks.members = Vec::new();
            }
            if stacks.items.capacity() > KEPT_ROOM {
                stacks.items = Vec::new();
            }
            read
        }
        // Not reached (nothing a reading calls reads again), but never a panic.
        Err(_) => reading(&mut Stacks::default()),
    })
}

/// An optional object member, built as [`parse`] builds (for `#[serde(deserialize_with)]`, with
/// `default`): `null` is none, anything but an object is refused.
pub(crate) fn object<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Map<String, Value>>, D::Error> {
    match with_stacks(|stacks| Build(stacks).deserialize(deserializer))? {
        Value::Object(object) => Ok(Some(object)),
        Value::Null => Ok(None),
        _ => Err(serde::de::Error::custom("a member that is not an object")),
    }
}

/// Reads one value, its members and items kept on the stacks until it closes.
struct Build<'s>(&'s mut Stacks);

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let base = self.0.items.len();
        while let Some(item) = seq.next_element_seed(Build(self.0))? {
            self.0.items.push(item);
        }
        Ok(Value::Array(self.0.items.drain(base..).collect()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let base = self.0.members.len();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Build(self.0))?;
            self.0.members.push((key, value));
        }
        let mut object = Map::with_capacity(self.0.members.len() - base);
        // Inserted in order: a repeated name keeps its first place and its last value, as
        // serde_json's reader keeps it.
        for (key, value) in self.0.members.drain(base..) {
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `text` both ways and holds the answers equal: the same value, or the same error.
    fn same(text: &str) {
        let ours = parse(text);
        let serde = serde_json::from_str::<Value>(text);
        match (&ours, &serde) {
            (Ok(ours), Ok(serde)) => {
                assert_eq!(ours, serde, "{text}");
                // Equal maps may differ in order; the text they write may not.
                assert_eq!(ours.to_string(), serde.to_string(), "{text}");
            }
            (Err(ours), Err(serde)) => assert_eq!(ours.to_string(), serde.to_string(), "{text}"),
            _ => panic!("{text}: ours {ours:?}, serde_json {serde:?}"),
        }
    }

    #[test]
    fn a_text_reads_as_serde_json_reads_it() {
        for text in [
            "null",
            " true ",
            "false",
            "0",
            "-0",
            "-1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "1.5e300",
            "1e400",
            "0.1",
            "\"\"",
            r#""a\"b\\c\u00e9\ud83d\ude00\n""#,
            "[]",
            "{}",
            "[[],[[]],{}]",
            r#"{"b":1,"a":2,"c":{"z":[1,2,{"y":null}],"x":"w"}}"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"a":{"b":1,"b":{"c":2}},"d":[{"e":1,"e":2}],"a":4}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"todo_write","input":{"todos":[]},"x":1}"#,
            "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21]",
            "  {\n  \"a\" : [ 1 , 2 ] \n}  ",
            // Refused, with serde_json's own errors.
            "",
            " ",
            "{",
            "[1,2",
            r#"{"a":1,}"#,
            "[1,]",
            "{} {}",
            "{}x",
            "nul",
            r#""\ud800""#,
            "\"\u{1}\"",
            "01",
            "{1:2}",
            &"[".repeat(200),
            &format!("{}{}", "[".repeat(127), "]".repeat(127)),
            &format!("{}{}", "[".repeat(128), "]".repeat(128)),
            &format!("{}{}", "{\"a\":".repeat(128), "}".repeat(128)),
        ] {
            same(text);
        }
    }

    #[test]
    fn a_failed_reading_leaves_nothing_for_the_next() {
        // An error deep inside leaves members and items on the stacks; the next reading is whole.
        same(r#"{"a":[1,2,{"b":[3,4,"#);
        same(r#"{"c":[5,6],"d":{"e":7}}"#);
        same(r#"[[1,2,3],[4,5,{"f":6,"g":"#);
        same(r#"[[7],[8,{"h":9}]]"#);
    }

    #[test]
    fn long_arrays_and_objects_read_whole_and_let_their_room_go() {
        let array = format!(
            "[{}]",
            (0..1000)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        same(&array);
        let object = format!(
            "{{{}}}",
            (0..1000)
                .map(|i| format!("\"k{i}\":[{i}]"))
                .collect::<Vec<_>>()
                .join(",")
        );
        same(&object);
        STACKS.with_borrow(|stacks| {
            assert!(stacks.members.capacity() <= KEPT_ROOM);
            assert!(stacks.items.capacity() <= KEPT_ROOM);
        });
    }

    #[test]
    fn serde_json_s_private_token_is_an_ordinary_member() {
        let text = r#"{"$serde_json::private::RawValue":"[1,2]"}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::json!({"$serde_json::private::RawValue": "[1,2]"})
        );
    }
}
