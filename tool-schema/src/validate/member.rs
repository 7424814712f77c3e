//! Looking into a schema's objects: a member by name, and a keyword wherever it stands.

use serde_json::{Map, Value};

/// A member of a JSON object found by comparing names in order: a schema's objects hold a
/// handful of keywords, and a scan finds one sooner than hashing its name (serde_json's maps
/// hash with SipHash). Larger objects are looked up by hash.
pub(crate) trait Member {
    /// The member named `key`, if there is one (`None` for anything but an object).
    fn member(&self, key: &str) -> Option<&Value>;
}

/// Objects up to this many members are scanned.
const SCANNED_MEMBERS: usize = 12;

impl Member for Map<String, Value> {
    fn member(&self, key: &str) -> Option<&Value> {
        if self.len() > SCANNED_MEMBERS {
            return self.get(key);
        }
        self.iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    }
}

impl Member for Value {
    fn member(&self, key: &str) -> Option<&Value> {
        self.as_object()?.member(key)
    }
}

/// Calls `check` on the string under `key` in every object of `schema`; the first error.
pub(crate) fn each_keyword(
    schema: &Value,
    key: &str,
    check: &mut impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(text)) = object.get(key) {
                check(text)?;
            }
            object
                .values()
                .try_for_each(|member| each_keyword(member, key, check))
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| each_keyword(item, key, check)),
        _ => Ok(()),
    }
}
