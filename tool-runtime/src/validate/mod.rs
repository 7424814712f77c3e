//! Checking JSON values against a tool's input schema: every validation keyword the schema
//! carries, in the schema's own words ([`check`]), the regular expressions of `pattern`
//! ([`pattern`]), the formats a tool asserts ([`format`]), and the plan of what a tool's
//! argument types leave to be checked after they parsed ([`plan`]).

mod check;
mod format;
mod locate;
mod pattern;
mod plan;
mod scan;

pub(crate) use check::{Violation, coerce_integers, first_violation, first_violation_in_part};
pub(crate) use locate::container_at;
pub(crate) use pattern::check_patterns;
pub(crate) use plan::{Plan, Reader, close_and_plan, failure_path_with, implied_range, reader};
pub(crate) use scan::string_stop;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

/// What a schema's text compiles to, or why it does not: a pattern's regular expression, a
/// format's checker.
pub(crate) type Compiled<T> = Result<Arc<T>, String>;

/// Each text compiled once: tools' schemas hold a handful of patterns and formats, shared by
/// every call.
pub(crate) struct CompileOnce<T>(OnceLock<Mutex<HashMap<String, Compiled<T>>>>);

impl<T> CompileOnce<T> {
    pub(crate) const fn new() -> Self {
        CompileOnce(OnceLock::new())
    }

    /// The compiled form of `text`, compiled by `compile` the first time it is asked for.
    pub(crate) fn get(
        &self,
        text: &str,
        compile: impl FnOnce() -> Result<T, String>,
    ) -> Compiled<T> {
        let mut cache = self
            .0
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(compiled) = cache.get(text) {
            return compiled.clone();
        }
        let compiled = compile().map(Arc::new);
        cache.insert(text.to_owned(), compiled.clone());
        compiled
    }
}

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

/// A small deterministic generator (xorshift) for the tests that compare a hand reading with
/// serde's on many texts, so they need no crate.
#[cfg(test)]
pub(crate) struct Rng(pub(crate) u64);

#[cfg(test)]
impl Rng {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
