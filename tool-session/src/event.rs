//! Session events: `{seq, kind, data, time}`.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer, ser};
use serde_json::value::RawValue;

/// One event in a session's log.
///
/// The data is kept as the JSON text it was appended or read as; an event appended with
/// [`Session::append_value`](crate::Session::append_value) keeps the value itself and writes its
/// JSON text only when something needs it (a log file, a reader of [`Event::raw_data`]), so a
/// memory log never pays for it. [`Event::data`] decodes the data into a typed value;
/// [`Event::value`] gives the appended value back without decoding.
#[derive(Clone)]
#[non_exhaustive]
pub struct Event {
    /// The event's position in its session: 1 for the first event, then without gaps.
    pub seq: u64,
    /// What happened, namespaced by its writer (`todo/write`).
    pub kind: String,
    /// When the event was appended, written as an RFC 3339 UTC timestamp.
    pub time: SystemTime,
    raw: OnceLock<Result<Box<RawValue>, String>>,
    value: Option<Arc<dyn EventValue>>,
}

/// A value an event keeps as it was appended.
trait EventValue: Send + Sync {
    fn encode(&self) -> Result<Box<RawValue>, serde_json::Error>;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Send + Sync + 'static> EventValue for T {
    fn encode(&self) -> Result<Box<RawValue>, serde_json::Error> {
        serde_json::value::to_raw_value(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
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
        let raw = OnceLock::new();
        let _ = raw.set(Ok(raw_data));
        Event {
            seq,
            kind: kind.into(),
            time,
            raw,
            value: None,
        }
    }

    /// An event that keeps `value` and writes its JSON text when first needed.
    pub(crate) fn with_value<T: Serialize + Send + Sync + 'static>(
        seq: u64,
        kind: impl Into<String>,
        value: T,
        time: SystemTime,
    ) -> Self {
        Event {
            seq,
            kind: kind.into(),
            time,
            raw: OnceLock::new(),
            value: Some(Arc::new(value)),
        }
    }

    /// The data as JSON text, written once when first asked for.
    pub fn raw_data(&self) -> Result<&RawValue, serde_json::Error> {
        let raw = self.raw.get_or_init(|| match &self.value {
            Some(value) => value.encode().map_err(|error| error.to_string()),
            None => Err("an event without data".to_owned()),
        });
        match raw {
            Ok(raw) => Ok(raw),
            Err(message) => Err(ser::Error::custom(message)),
        }
    }

    /// Decodes the data.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw_data()?.get())
    }

    /// The value the event was appended with, when this process appended it with
    /// [`Session::append_value`](crate::Session::append_value) as a `T`; `None` otherwise (an
    /// event read from a log has only its JSON text: use [`Event::data`]).
    pub fn value<T: Any>(&self) -> Option<&T> {
        self.value.as_deref()?.as_any().downcast_ref()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let raw = self.raw_data().map_err(ser::Error::custom)?;
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
            && match (self.raw_data(), other.raw_data()) {
                (Ok(a), Ok(b)) => a.get() == b.get(),
                _ => false,
            }
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("seq", &self.seq)
            .field("kind", &self.kind)
            .field("data", &self.raw_data().map(RawValue::get))
            .field("time", &self.time)
            .finish()
    }
}

/// Reads an event's time: an RFC 3339 UTC timestamp. Every reader of a log line checks it the
/// same way.
pub(crate) fn parse_time(text: &str) -> Result<SystemTime, humantime::TimestampError> {
    humantime::parse_rfc3339(text)
}

/// Whether [`parse_time`] reads `text`, without the reading: a time as a log writes it
/// (`2026-12-05T12:34:56.123456Z`, a year from 1970, every field in its range) is checked by
/// hand; any other is read.
pub(crate) fn check_time(text: &str) -> Result<(), humantime::TimestampError> {
    if is_written_time(text.as_bytes()) {
        Ok(())
    } else {
        parse_time(text).map(drop)
    }
}

/// Whether `text` is `YYYY-MM-DDTHH:MM:SS.ffffffZ` with each field in its range: such a time
/// [`humantime::parse_rfc3339`] reads (its last is in 9999).
fn is_written_time(text: &[u8]) -> bool {
    let Ok(text) = <&[u8; 27]>::try_from(text) else {
        return false;
    };
    let digits = |from: usize, to: usize| text[from..to].iter().all(u8::is_ascii_digit);
    let shape = text[4] == b'-'
        && text[7] == b'-'
        && text[10] == b'T'
        && text[13] == b':'
        && text[16] == b':'
        && text[19] == b'.'
        && text[26] == b'Z'
        && digits(0, 4)
        && digits(5, 7)
        && digits(8, 10)
        && digits(11, 13)
        && digits(14, 16)
        && digits(17, 19)
        && digits(20, 26);
    if !shape {
        return false;
    }
    let number = |from: usize, to: usize| {
        text[from..to]
            .iter()
            .fold(0u32, |n, digit| n * 10 + u32::from(digit - b'0'))
    };
    let (year, month, day) = (number(0, 4), number(5, 7), number(8, 10));
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    };
    year >= 1970
        && (1..=days).contains(&day)
        && number(11, 13) <= 23
        && number(14, 16) <= 59
        && number(17, 19) <= 59
}

#[cfg(test)]
mod tests {
    use super::{check_time, is_written_time, parse_time};

    /// The hand check accepts only times humantime reads, and checking any time answers as
    /// reading it does: every field at and past its bounds, leap years included.
    #[test]
    fn a_time_is_checked_as_it_is_read() {
        let mut checked = 0;
        let mut by_hand = 0;
        for year in [1969, 1970, 1900, 2000, 2023, 2024, 2100, 9999] {
            for month in 0..=13 {
                for day in [0, 1, 28, 29, 30, 31, 32] {
                    for (hour, minute, second) in [
                        (0, 0, 0),
                        (23, 59, 59),
                        (24, 0, 0),
                        (0, 60, 0),
                        (0, 0, 60),
                        (0, 0, 61),
                    ] {
                        let time = format!(
                            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.123456Z"
                        );
                        let read = parse_time(&time).is_ok();
                        assert_eq!(check_time(&time).is_ok(), read, "{time}");
                        if is_written_time(time.as_bytes()) {
                            assert!(read, "{time} passed by hand but does not read");
                            by_hand += 1;
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(
            by_hand >= 600 && by_hand < checked,
            "{by_hand} of {checked}"
        );
        for time in [
            "2026-12-05T12:34:56Z",
            "2026-12-05T12:34:56.1Z",
            "2026-12-05 12:34:56.123456Z",
            "2026-12-05T12:34:56.123456+00:00",
            "2026-12-05T12:34:56.12345xZ",
            "2026-12-05T12:34:56.123456z",
            "2026-1a-05T12:34:56.123456Z",
            "+026-12-05T12:34:56.123456Z",
            "",
        ] {
            assert_eq!(check_time(time).is_ok(), parse_time(time).is_ok(), "{time}");
        }
        assert!(is_written_time(b"2024-02-29T23:59:59.999999Z"));
        assert!(!is_written_time(b"2023-02-29T00:00:00.000000Z"));
    }
}
