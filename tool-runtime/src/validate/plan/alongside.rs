//! A plan checked while the typed parse reads, rather than in a second reading of the text.
//!
//! [`parse`] hands the argument types a deserializer that passes every call through to
//! serde_json's and looks at what comes back on the way: the numbers and strings the visitors are
//! given, the member names, the items and members counted. The types see the same calls, values
//! and errors they would see from serde_json alone; the plan sees each value at its place.
//!
//! A checked place the types read without looking (a value they skip, an enum, a key read as a
//! number) leaves the answer open, and the caller reads the text again by the plan
//! ([`Plan::is_violated_in`](super::Plan::is_violated_in)). So does a place whose checks need the
//! value whole (counts under unions, uniqueness).

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Node;

/// What was seen of the plan during one parse.
#[derive(Default)]
struct Watch {
    /// A checked place breaks its checks.
    violated: Cell<bool>,
    /// A checked place went by unseen.
    blind: Cell<bool>,
}

impl Watch {
    /// Whether nothing more needs looking at: the answer is known, or cannot be.
    fn settled(&self) -> bool {
        self.violated.get() || self.blind.get()
    }

    fn violate(&self, violated: bool) {
        if violated {
            self.violated.set(true);
        }
    }

    fn blind(&self) {
        self.blind.set(true);
    }
}

/// Parses `args` into `T` as `serde_json::from_str` would, checking `root`'s plan on the way:
/// whether the arguments break it (`None` when the parse read a checked place unseen), with
/// the parsed value. Without a plan, the answer is `Some(false)`.
pub(crate) fn parse<T: de::DeserializeOwned>(
    root: Option<&Node>,
    args: &str,
) -> Result<(T, Option<bool>), serde_json::Error> {
    let watch = Watch::default();
    let mut deserializer = serde_json::Deserializer::from_str(args);
    let seed = Check {
        seed: PhantomData::<T>,
        node: root,
        watch: &watch,
    };
    let parsed = seed.deserialize(&mut deserializer)?;
    deserializer.end()?;
    let verdict = match watch.blind.get() {
        true => None,
        false => Some(watch.violated.get()),
    };
    Ok((parsed, verdict))
}

/// A seed, for a value at a place of the plan (`None`: a place nothing is checked at).
struct Check<'p, S> {
    seed: S,
    node: Option<&'p Node>,
    watch: &'p Watch,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Check<'_, S> {
    type Value = S::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let node = match self.node {
            Some(_) if self.watch.settled() => None,
            Some(node) if node.own.is_some() => {
                // Counts, uniqueness and unions need the value whole.
                self.watch.blind();
                None
            }
            node => node,
        };
        self.seed.deserialize(Checking {
            inner: deserializer,
            node,
            watch: self.watch,
        })
    }
}

/// A deserializer for a value at a place of the plan: serde_json's, its visitors watched.
struct Checking<'p, D> {
    inner: D,
    node: Option<&'p Node>,
    watch: &'p Watch,
}

macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor = Visit { inner: visitor, node: self.node, watch: self.watch };
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checking<'_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // serde_json's own types (`RawValue`) are read through made-up maps, not the text's.
        let node = match name.starts_with("$serde_json::") {
            true => {
                if self.node.is_some() {
                    self.watch.blind();
                }
                None
            }
            false => self.node,
        };
        let visitor = Visit {
            inner: visitor,
            node,
            watch: self.watch,
        };
        self.inner.deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if self.node.is_some() {
            self.watch.blind();
        }
        self.inner.deserialize_ignored_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A visitor of a value at a place of the plan, which checks what it is given and hands it on.
struct Visit<'p, V> {
    inner: V,
    node: Option<&'p Node>,
    watch: &'p Watch,
}

impl<V> Visit<'_, V> {
    #[inline(always)]
    fn number(&self, number: impl FnOnce() -> Option<serde_json::Number>) {
        if let Some(node) = self.node
            && !(node.number.is_empty() && node.multiple_of.is_none())
        {
            self.watch
                .violate(number().is_some_and(|number| node.number_violated(&number)));
        }
    }

    #[inline(always)]
    fn string(&self, text: &str) {
        if let Some(node) = self.node {
            self.watch.violate(node.string_violated(text));
        }
    }

    /// A value the plan cannot follow the reading of.
    fn unseen(&self) {
        if self.node.is_some() {
            self.watch.blind();
        }
    }
}

macro_rules! visit_number {
    ($($method:ident($ty:ty) => $number:expr;)*) => {$(
        #[inline(always)]
        fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.number(|| $number(value));
            self.inner.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<V::Value, E> {
        self.inner.visit_bool(value)
    }

    visit_number! {
        visit_i8(i8) => |value| Some(serde_json::Number::from(value));
        visit_i16(i16) => |value| Some(serde_json::Number::from(value));
        visit_i32(i32) => |value| Some(serde_json::Number::from(value));
        visit_i64(i64) => |value| Some(serde_json::Number::from(value));
        visit_u8(u8) => |value| Some(serde_json::Number::from(value));
        visit_u16(u16) => |value| Some(serde_json::Number::from(value));
        visit_u32(u32) => |value| Some(serde_json::Number::from(value));
        visit_u64(u64) => |value| Some(serde_json::Number::from(value));
        visit_f32(f32) => |value| serde_json::Number::from_f64(f64::from(value));
        visit_f64(f64) => serde_json::Number::from_f64;
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<V::Value, E> {
        self.unseen();
        self.inner.visit_i128(value)
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<V::Value, E> {
        self.unseen();
        self.inner.visit_u128(value)
    }

    fn visit_char<E: de::Error>(self, value: char) -> Result<V::Value, E> {
        self.string(value.encode_utf8(&mut [0; 4]));
        self.inner.visit_char(value)
    }

    #[inline(always)]
    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        self.string(value);
        self.inner.visit_str(value)
    }

    #[inline(always)]
    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        self.string(value);
        self.inner.visit_borrowed_str(value)
    }

    #[inline(always)]
    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        self.string(&value);
        self.inner.visit_string(value)
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<V::Value, E> {
        self.unseen();
        self.inner.visit_bytes(value)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, value: &'de [u8]) -> Result<V::Value, E> {
        self.unseen();
        self.inner.visit_borrowed_bytes(value)
    }

    fn visit_byte_buf<E: de::Error>(self, value: Vec<u8>) -> Result<V::Value, E> {
        self.unseen();
        self.inner.visit_byte_buf(value)
    }

    #[inline(always)]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    #[inline(always)]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let checking = Checking {
            inner: deserializer,
            node: self.node,
            watch: self.watch,
        };
        self.inner.visit_some(checking)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        let checking = Checking {
            inner: deserializer,
            node: self.node,
            watch: self.watch,
        };
        self.inner.visit_newtype_struct(checking)
    }

    #[inline(always)]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let mut items = Items {
            inner: seq,
            node: self.node,
            watch: self.watch,
            count: 0,
        };
        let value = self.inner.visit_seq(&mut items)?;
        // The items the visitor took: serde_json refuses any it left.
        if let Some(node) = self.node {
            self.watch
                .violate(Node::count_violated(node.items_count, items.count));
        }
        Ok(value)
    }

    #[inline(always)]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut members = Members {
            inner: map,
            at: Names {
                node: self.node,
                watch: self.watch,
                count: 0,
                expected: 0,
                value: None,
            },
        };
        let value = self.inner.visit_map(&mut members)?;
        if let Some(node) = self.node {
            self.watch
                .violate(Node::count_violated(node.members_count, members.at.count));
        }
        Ok(value)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.unseen();
        self.inner.visit_enum(data)
    }
}

/// An array's items, each at its place of the plan.
struct Items<'p, A> {
    inner: A,
    node: Option<&'p Node>,
    watch: &'p Watch,
    count: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let node = self
            .node
            .and_then(|node| match node.prefix_items.get(self.count) {
                Some(prefix) => prefix.as_ref(),
                None => node.items.as_deref(),
            });
        let item = self.inner.next_element_seed(Check {
            seed,
            node,
            watch: self.watch,
        })?;
        if item.is_some() {
            self.count += 1;
        }
        Ok(item)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// An object's members, each value at the place of the plan its name leads to.
struct Members<'p, A> {
    inner: A,
    at: Names<'p>,
}

/// What an object's member names tell: how many came, and where the next value is checked.
struct Names<'p> {
    node: Option<&'p Node>,
    watch: &'p Watch,
    count: usize,
    /// Where in the declared names the next is looked for first.
    expected: usize,
    /// The place of the value after the name just read.
    value: Option<&'p Node>,
}

impl Names<'_> {
    fn named(&mut self, name: &str) {
        self.count += 1;
        let Some(node) = self.node else {
            return;
        };
        if self.watch.settled() {
            return;
        }
        let (unknown, value) = node.member(name, &mut self.expected);
        self.watch.violate(unknown);
        self.value = value;
    }

    /// A name read some other way than as text (a number, say).
    fn unseen(&mut self) {
        self.count += 1;
        if self.node.is_some() {
            self.watch.blind();
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.at.value = None;
        self.inner.next_key_seed(Name {
            inner: seed,
            at: &mut self.at,
        })
    }

    #[inline(always)]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.inner.next_value_seed(Check {
            seed,
            node: self.at.value.take(),
            watch: self.at.watch,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A member name's seed, deserializer and visitor at once: whichever the reading is at, it is
/// handed on, and the name is read on the way.
struct Name<'a, 'p, T> {
    inner: T,
    at: &'a mut Names<'p>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Name<'_, '_, K> {
    type Value = K::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        self.inner.deserialize(Name {
            inner: deserializer,
            at: self.at,
        })
    }
}

macro_rules! forward_name {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* Name { inner: visitor, at: self.at })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Name<'_, '_, D> {
    type Error = D::Error;

    forward_name! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! name_unseen {
    ($($method:ident($($value:ident: $ty:ty)?);)*) => {$(
        fn $method<E: de::Error>(self, $($value: $ty)?) -> Result<V::Value, E> {
            self.at.unseen();
            self.inner.$method($($value)?)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Name<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    #[inline(always)]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<V::Value, E> {
        self.at.named(name);
        self.inner.visit_str(name)
    }

    #[inline(always)]
    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<V::Value, E> {
        self.at.named(name);
        self.inner.visit_borrowed_str(name)
    }

    #[inline(always)]
    fn visit_string<E: de::Error>(self, name: String) -> Result<V::Value, E> {
        self.at.named(&name);
        self.inner.visit_string(name)
    }

    name_unseen! {
        visit_bool(value: bool);
        visit_i8(value: i8);
        visit_i16(value: i16);
        visit_i32(value: i32);
        visit_i64(value: i64);
        visit_i128(value: i128);
        visit_u8(value: u8);
        visit_u16(value: u16);
        visit_u32(value: u32);
        visit_u64(value: u64);
        visit_u128(value: u128);
        visit_f32(value: f32);
        visit_f64(value: f64);
        visit_char(value: char);
        visit_byte_buf(value: Vec<u8>);
        visit_none();
        visit_unit();
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<V::Value, E> {
        self.at.unseen();
        self.inner.visit_bytes(value)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, value: &'de [u8]) -> Result<V::Value, E> {
        self.at.unseen();
        self.inner.visit_borrowed_bytes(value)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.at.unseen();
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.at.unseen();
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.at.unseen();
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.at.unseen();
        self.inner.visit_map(map)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.at.unseen();
        self.inner.visit_enum(data)
    }
}
