//! Whether serde_json can encode a value, found without encoding it.
//!
//! [`Session::append_value`](crate::Session::append_value) keeps the value and writes its JSON
//! only when something needs it, so a memory log never pays for encoding. A value serde_json
//! cannot encode must still fail its append, on every log: this walk fails exactly where
//! serde_json's serializer would — a map key that is not a string, a number, a `bool`, a `char`
//! or a unit variant; a non-finite float key; an error from the value's own `Serialize` — and
//! formats nothing. Its tests hold it to serde_json.

use serde::ser::{self, Impossible, Serialize};

/// Fails as `serde_json::to_vec(value)` would, without writing anything.
pub(crate) fn check<T: Serialize + ?Sized>(value: &T) -> Result<(), serde_json::Error> {
    value.serialize(Value)
}

fn key_must_be_a_string() -> serde_json::Error {
    ser::Error::custom("key must be a string")
}

fn float_key_must_be_finite() -> serde_json::Error {
    ser::Error::custom("float key must be finite (got NaN or +/-inf)")
}

/// A value: everything goes, but what its parts say.
struct Value;

/// A map key: what serde_json can write as a JSON string.
struct Key;

macro_rules! accept {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), serde_json::Error> {
            Ok(())
        })*
    };
}

macro_rules! refuse {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), serde_json::Error> {
            Err(key_must_be_a_string())
        })*
    };
}

impl ser::Serializer for Value {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Value;
    type SerializeTuple = Value;
    type SerializeTupleStruct = Value;
    type SerializeTupleVariant = Value;
    type SerializeMap = Value;
    type SerializeStruct = Value;
    type SerializeStructVariant = Value;

    accept! {
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str,
    }

    fn serialize_none(self) -> Result<(), serde_json::Error> {
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), serde_json::Error> {
        value.serialize(Value)
    }

    fn serialize_unit(self) -> Result<(), serde_json::Error> {
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), serde_json::Error> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(Value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(Value)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_tuple(self, _: usize) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Value, serde_json::Error> {
        Ok(Value)
    }
}

/// The parts of a compound value: each checked as a value.
macro_rules! parts {
    ($($trait:ident :: $method:ident ($($name:ty),*)),* $(,)?) => {
        $(impl ser::$trait for Value {
            type Ok = ();
            type Error = serde_json::Error;

            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $(_: $name,)*
                value: &T,
            ) -> Result<(), serde_json::Error> {
                value.serialize(Value)
            }

            fn end(self) -> Result<(), serde_json::Error> {
                Ok(())
            }
        })*
    };
}

parts! {
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(&'static str),
    SerializeStructVariant::serialize_field(&'static str),
}

impl ser::SerializeMap for Value {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), serde_json::Error> {
        key.serialize(Key)
    }

    fn serialize_value<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(Value)
    }

    fn end(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

type NoKey = Impossible<(), serde_json::Error>;

impl ser::Serializer for Key {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = NoKey;
    type SerializeTuple = NoKey;
    type SerializeTupleStruct = NoKey;
    type SerializeTupleVariant = NoKey;
    type SerializeMap = NoKey;
    type SerializeStruct = NoKey;
    type SerializeStructVariant = NoKey;

    accept! {
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_char: char,
        serialize_str: &str,
    }

    refuse! { serialize_bytes: &[u8], serialize_unit_struct: &'static str }

    fn serialize_f32(self, value: f32) -> Result<(), serde_json::Error> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(float_key_must_be_finite())
        }
    }

    fn serialize_f64(self, value: f64) -> Result<(), serde_json::Error> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(float_key_must_be_finite())
        }
    }

    fn serialize_none(self) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), serde_json::Error> {
        value.serialize(Key)
    }

    fn serialize_unit(self) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), serde_json::Error> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(Key)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _: usize) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, serde_json::Error> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::check;

    /// A map whose keys are floats, which no std map allows.
    struct FloatKeys(Vec<(f64, u8)>);

    impl serde::Serialize for FloatKeys {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }

    /// Agrees with serde_json on `value`: both accept it, or both refuse it with one message.
    fn agrees<T: serde::Serialize>(value: &T) {
        let ours = check(value).map_err(|e| e.to_string());
        let theirs = serde_json::to_vec(value)
            .map(drop)
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs);
    }

    #[test]
    fn agrees_with_serde_json_on_keys_and_values() {
        agrees(&BTreeMap::from([("a", 1)]));
        agrees(&BTreeMap::from([(1u8, 1)]));
        agrees(&BTreeMap::from([(true, 1)]));
        agrees(&BTreeMap::from([('c', 1)]));
        agrees(&BTreeMap::from([(vec![1], 1)]));
        agrees(&BTreeMap::from([((1, 2), 1)]));
        agrees(&BTreeMap::from([((), 1)]));
        agrees(&BTreeMap::from([(Some("a"), 1)]));
        agrees(&BTreeMap::from([(None::<&str>, 1)]));
        agrees(&vec![BTreeMap::from([(vec![1u8], vec![2u8])])]);
        agrees(&(f64::NAN, "text", [1.5f32], Some(())));
        agrees(&FloatKeys(vec![(1.5, 1)]));
        agrees(&FloatKeys(vec![(1.5, 1), (f64::INFINITY, 2)]));
    }

    #[test]
    fn a_serialize_error_is_the_values_own() {
        struct Fails;
        impl serde::Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("cannot be written"))
            }
        }
        agrees(&vec![Fails]);
    }
}
