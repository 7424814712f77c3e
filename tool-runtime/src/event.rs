//! Session events: `{seq, kind, data, time}`.

use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One event in a session's log.
///
/// `data` is kept as the JSON text it was appended as, so persisting and forwarding an event
/// never re-encodes it; [`Event::data`] decodes it into a typed value.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Event {
    /// The event's position in its session: 1 for the first event, then without gaps.
    pub seq: u64,
    /// What happened, namespaced by its writer (`todo/write`).
    pub kind: String,
    /// The event's payload as JSON text.
    #[serde(rename = "data")]
    pub raw_data: Box<RawValue>,
    /// When the event was appended, written as an RFC 3339 UTC timestamp.
    #[serde(with = "rfc3339")]
    pub time: SystemTime,
}

impl Event {
    /// An event; [`Session::append`](crate::Session::append) builds them, log backends and tests
    /// may too.
    pub fn new(
        seq: u64,
        kind: impl Into<String>,
        raw_data: Box<RawValue>,
        time: SystemTime,
    ) -> Self {
        Event {
            seq,
            kind: kind.into(),
            raw_data,
            time,
        }
    }

    /// Decodes the payload.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw_data.get())
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.kind == other.kind
            && self.raw_data.get() == other.raw_data.get()
            && self.time == other.time
    }
}

mod rfc3339 {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer, de};

    pub fn serialize<S: Serializer>(time: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&humantime::format_rfc3339_micros(*time))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        humantime::parse_rfc3339(&text).map_err(de::Error::custom)
    }
}
