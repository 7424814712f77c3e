//! Session events: `{seq, kind, data, time}`.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// One event in a session's log.
///
/// The data is kept as the JSON text it was appended or read as; an event appended with
/// [`Session::append_value`](crate::Session::append_value) keeps the value itself as well.
/// [`Event::data`] decodes the data into a typed value; [`Event::value`] gives the appended value
/// back without decoding.
#[derive(Clone)]
#[non_exhaustive]
pub struct Event {
    /// The event's position in its session: 1 for the first event, then without gaps.
    pub seq: u64,
    /// What happened, namespaced by its writer (`todo/write`).
    pub kind: String,
    /// When the event was appended, written as an RFC 3339 UTC timestamp.
    pub time: SystemTime,
    raw: Box<RawValue>,
    value: Option<Arc<dyn Any + Send + Sync>>,
}

impl Event {
    /// An event with its data as JSON text; log backends and tests build them,
    /// [`Session::append`](crate::Session::append) too.
    pub fn new(
        seq: u64,
        kind: impl Into<String>,
        raw_data: Box<RawValue>,
        time: SystemTime,
    ) -> Self {
        Event {
            seq,
            kind: kind.into(),
            time,
            raw: raw_data,
            value: None,
        }
    }

    /// An event that keeps `value` as well as its JSON text, `raw_data`.
    pub(crate) fn with_value<T: Send + Sync + 'static>(
        seq: u64,
        kind: impl Into<String>,
        raw_data: Box<RawValue>,
        value: T,
        time: SystemTime,
    ) -> Self {
        Event {
            seq,
            kind: kind.into(),
            time,
            raw: raw_data,
            value: Some(Arc::new(value)),
        }
    }

    /// The data as JSON text.
    pub fn raw_data(&self) -> &RawValue {
        &self.raw
    }

    /// Decodes the data.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw.get())
    }

    /// The value the event was appended with, when this process appended it with
    /// [`Session::append_value`](crate::Session::append_value) as a `T`; `None` otherwise (an
    /// event read from a log has only its JSON text: use [`Event::data`]).
    pub fn value<T: Any>(&self) -> Option<&T> {
        self.value.as_deref()?.downcast_ref()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let raw = self.raw_data();
        let mut event = serializer.serialize_struct("Event", 4)?;
        event.serialize_field("seq", &self.seq)?;
        event.serialize_field("kind", &self.kind)?;
        event.serialize_field("data", raw)?;
        event.serialize_field(
            "time",
            &humantime::format_rfc3339_micros(self.time).to_string(),
        )?;
        event.end()
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire<'a> {
            seq: u64,
            kind: String,
            data: Box<RawValue>,
            #[serde(borrow)]
            time: std::borrow::Cow<'a, str>,
        }
        let wire = Wire::deserialize(deserializer)?;
        let time = parse_time(&wire.time).map_err(serde::de::Error::custom)?;
        Ok(Event::new(wire.seq, wire.kind, wire.data, time))
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.kind == other.kind
            && self.time == other.time
            && self.raw.get() == other.raw.get()
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("seq", &self.seq)
            .field("kind", &self.kind)
            .field("data", &self.raw.get())
            .field("time", &self.time)
            .finish()
    }
}

/// Reads an event's time: an RFC 3339 UTC timestamp. Every reader of a log line checks it the
/// same way.
pub(crate) fn parse_time(text: &str) -> Result<SystemTime, humantime::TimestampError> {
    humantime::parse_rfc3339(text)
}
