//! A plan checked while the typed parse reads, rather than in a second reading of the text; and
//! the path of the value a typed parse failed at, found by the same reading.
//!
//! [`parse_with`] hands the argument types a deserializer that passes every call through to
//! serde_json's and looks at what comes back on the way: the numbers and strings the visitors are
//! given, the member names, the items and members counted. The types see the same calls, values
//! and errors they would see from serde_json alone; the plan sees each value at its place.
//!
//! A checked place the types read without looking (a value they skip, an enum, a key read as a
//! number) leaves the answer open, and the caller reads the text again by the plan
//! ([`Plan::is_violated_in`](super::Plan::is_violated_in)). So does a place whose checks need the
//! value whole (counts under unions, uniqueness).
//!
//! [`failure_path_with`] reads once more, keeping each member's name, to say where an error arose, as
//! `serde_path_to_error` does, in the same words: one reading, and so one instantiation of every
//! argument type's `Deserialize` in a tool's crate, serves both.

use std::cell::{Cell, RefCell};
use std::fmt::{self, Write as _};
use std::marker::PhantomData;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::node::Node;

/// What was seen during one parse.
#[derive(Default)]
pub struct Watch {
    /// A checked place breaks its checks.
    violated: Cell<bool>,
    /// A checked place went by unseen.
    blind: Cell<bool>,
    /// Whether the path of a failure is wanted: names are kept, and the places an error comes
    /// out of are noted.
    tracking: bool,
    /// While tracking: how many places deep the reading is.
    depth: Cell<usize>,
    /// While tracking: the places an error came out of, innermost first, each with its depth.
    way_out: RefCell<Vec<(usize, Place)>>,
}

/// A place a value is read at, inside the value around it.
enum Place {
    /// An array's item.
    Item(usize),
    /// A member's value or an enum's variant, by its name when it was read as text or a number.
    Named(Option<String>),
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

    /// Reads the value at a place one deeper, noting the place if an error comes out of it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn inside<T, E>(&self, place: Place, read: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        if !self.tracking {
            return read();
        }
        let depth = self.depth.get() + 1;
        self.depth.set(depth);
        let read = read();
        self.came_out(depth, read.is_err(), place);
        read
    }

    /// Back from `place`, at `depth`, with an error or not.
    fn came_out(&self, depth: usize, failed: bool, place: Place) {
        self.depth.set(depth - 1);
        if failed {
            self.left(depth, place);
        }
    }

    /// Notes that an error came out of `place`, at `depth`. An error on its way out leaves each
    /// place one shallower than the last; any other before it was caught on the way and is
    /// forgotten.
    fn left(&self, depth: usize, place: Place) {
        let mut way_out = self.way_out.borrow_mut();
        if way_out.last().is_some_and(|(last, _)| *last != depth + 1) {
            way_out.clear();
        }
        way_out.push((depth, place));
    }

    /// The path of the place the error came out of, as `serde_path_to_error` writes it
    /// (`a.b[2].c`, `?` for a name not read as text), empty at the root.
    fn path(&self) -> String {
        let mut path = String::new();
        for (_, place) in self.way_out.borrow().iter().rev() {
            match place {
                Place::Item(index) => {
                    let _ = write!(path, "[{index}]");
                }
                Place::Named(name) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(name.as_deref().unwrap_or("?"));
                }
            }
        }
        path
    }
}

/// The one part of reading a tool's arguments that depends on their type: given the plan's
/// root (`None`: nothing checked anywhere), the watch and serde_json's deserializer of the
/// text, it reads the arguments and keeps them ([`reader`]). All around it (the deserializer,
/// the verdict, the refusals, a failure's path) is plain code, built once in this crate rather
/// than again for every tool in each tool's crate.
pub type Reader<'r> = dyn for<'de> FnMut(
        Option<&Node>,
        &Watch,
        &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
    ) -> Result<(), serde_json::Error>
    + 'r;

/// The [`Reader`] of `T`, keeping the last value it read in `slot`.
pub fn reader<T: de::DeserializeOwned>(
    slot: &mut Option<T>,
) -> impl for<'de> FnMut(
    Option<&Node>,
    &Watch,
    &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
) -> Result<(), serde_json::Error>
+ '_ {
    move |root, watch, deserializer| {
        *slot = Some(read::<T>(root, watch, deserializer)?);
        Ok(())
    }
}

/// Reads `args` with `read` as `serde_json::from_str` would, checking `root`'s plan on the way:
/// whether the arguments break it (`None` when the parse read a checked place unseen). Without
/// a plan, the answer is `Some(false)`.
pub(crate) fn parse_with(
    root: Option<&Node>,
    args: &str,
    read: &mut Reader<'_>,
) -> Result<Option<bool>, serde_json::Error> {
    let watch = Watch::default();
    let mut deserializer = serde_json::Deserializer::from_str(args);
    read(root, &watch, &mut deserializer)?;
    deserializer.end()?;
    Ok(match watch.blind.get() {
        true => None,
        false => Some(watch.violated.get()),
    })
}

/// [`parse_with`] for `T`: the value parsed, with the verdict.
#[cfg(test)]
pub(crate) fn parse<T: de::DeserializeOwned>(
    root: Option<&Node>,
    args: &str,
) -> Result<(T, Option<bool>), serde_json::Error> {
    let mut parsed = None;
    let verdict = parse_with(root, args, &mut reader(&mut parsed))?;
    Ok((
        parsed.expect("a reading that succeeded keeps its value"),
        verdict,
    ))
}

/// Where in `args` the reading `read` fails, and its error, as `serde_path_to_error` says it:
/// the path of the innermost value the error came out of (empty at the root); `None` when it
/// reads the arguments.
pub fn failure_path_with(args: &str, read: &mut Reader<'_>) -> Option<(String, serde_json::Error)> {
    let watch = Watch {
        tracking: true,
        ..Watch::default()
    };
    let mut deserializer = serde_json::Deserializer::from_str(args);
    let error = read(None, &watch, &mut deserializer).err()?;
    Some((watch.path(), error))
}

/// [`failure_path_with`] for `T`.
#[cfg(test)]
pub(crate) fn failure_path<T: de::DeserializeOwned>(
    args: &str,
) -> Option<(String, serde_json::Error)> {
    failure_path_with(args, &mut reader::<T>(&mut None))
}

fn read<'de, T: de::Deserialize<'de>>(
    root: Option<&Node>,
    watch: &Watch,
    deserializer: &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
) -> Result<T, serde_json::Error> {
    let seed = Check {
        seed: PhantomData::<T>,
        node: root,
        watch,
    };
    seed.deserialize(deserializer)
}

/// A seed, for a value at a place of the plan (`None`: a place nothing is checked at).
struct Check<'p, S> {
    seed: S,
    node: Option<&'p Node>,
    watch: &'p Watch,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Check<'_, S> {
    type Value = S::Value;

    #[cfg_attr(not(debug_assertions), inline(always))]
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

/// Hands `$forward` every `Deserializer` method that takes a visitor, with its other arguments,
/// but `deserialize_newtype_struct` and `deserialize_ignored_any` (which a wrapper may read
/// differently).
macro_rules! deserialize_methods {
    ($forward:ident) => {
        $forward! {
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
    };
}

macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor = Visit { inner: visitor, node: self.node, watch: self.watch };
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checking<'_, D> {
    type Error = D::Error;

    deserialize_methods!(forward_deserialize);

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
        // serde_json skips the value without showing it.
        if self.node.is_some() {
            self.watch.blind();
        }
        let visitor = Visit {
            inner: visitor,
            node: None,
            watch: self.watch,
        };
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
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number(&self, number: impl FnOnce() -> Option<serde_json::Number>) {
        if let Some(node) = self.node
            && !(node.number.is_empty() && node.multiple_of.is_none())
        {
            self.watch
                .violate(number().is_some_and(|number| node.number_violated(&number)));
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
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

macro_rules! visit {
    ($($method:ident($($value:ident: $ty:ty)?) $(=> $check:ident($($shown:expr)?))?;)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, $($value: $ty)?) -> Result<V::Value, E> {
            $(self.$check($($shown)?);)?
            self.inner.$method($($value)?)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit! {
        visit_bool(value: bool);
        visit_i8(value: i8) => number(|| Some(value.into()));
        visit_i16(value: i16) => number(|| Some(value.into()));
        visit_i32(value: i32) => number(|| Some(value.into()));
        visit_i64(value: i64) => number(|| Some(value.into()));
        visit_u8(value: u8) => number(|| Some(value.into()));
        visit_u16(value: u16) => number(|| Some(value.into()));
        visit_u32(value: u32) => number(|| Some(value.into()));
        visit_u64(value: u64) => number(|| Some(value.into()));
        visit_f32(value: f32) => number(|| serde_json::Number::from_f64(value.into()));
        visit_f64(value: f64) => number(|| serde_json::Number::from_f64(value));
        visit_i128(value: i128) => unseen();
        visit_u128(value: u128) => unseen();
        visit_char(value: char) => string(value.encode_utf8(&mut [0; 4]));
        visit_str(value: &str) => string(value);
        visit_borrowed_str(value: &'de str) => string(value);
        visit_string(value: String) => string(&value);
        visit_bytes(value: &[u8]) => unseen();
        visit_borrowed_bytes(value: &'de [u8]) => unseen();
        visit_byte_buf(value: Vec<u8>) => unseen();
        visit_none();
        visit_unit();
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Checking {
            inner: deserializer,
            node: self.node,
            watch: self.watch,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Checking {
            inner: deserializer,
            node: self.node,
            watch: self.watch,
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
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

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut members = Members {
            inner: map,
            at: Names {
                node: self.node,
                watch: self.watch,
                count: 0,
                expected: 0,
                value: None,
                name: None,
            },
        };
        let value = self.inner.visit_map(&mut members)?;
        if let Some(node) = self.node {
            self.watch
                .violate(Node::count_violated(node.members_count, members.at.count));
        }
        Ok(value)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.unseen();
        self.inner.visit_enum(Variants {
            inner: data,
            watch: self.watch,
        })
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

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let check = Check {
            seed,
            node: self.node.and_then(|node| node.item(self.count)),
            watch: self.watch,
        };
        let index = self.count;
        let item = self
            .watch
            .inside(Place::Item(index), || self.inner.next_element_seed(check))?;
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

/// What the names of an object's members tell: how many came, where the next value is checked
/// and, while tracking, the name itself.
struct Names<'p> {
    node: Option<&'p Node>,
    watch: &'p Watch,
    count: usize,
    /// Where in the declared names the next is looked for first.
    expected: usize,
    /// The place of the value after the name just read.
    value: Option<&'p Node>,
    /// The name just read, while tracking.
    name: Option<String>,
}

/// What a name reading hears of the name: text, or something else (a number, say), written
/// as a path writes it where it can be.
trait Hears {
    fn text(&mut self, name: &str);

    fn other(&mut self, written: impl FnOnce() -> Option<String>);
}

impl Hears for Names<'_> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn text(&mut self, name: &str) {
        self.count += 1;
        if self.watch.tracking {
            self.name = Some(name.to_owned());
        }
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

    fn other(&mut self, written: impl FnOnce() -> Option<String>) {
        self.count += 1;
        if self.watch.tracking {
            self.name = written();
        }
        if self.node.is_some() {
            self.watch.blind();
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<'_, A> {
    type Error = A::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.at.value = None;
        if self.at.watch.tracking {
            self.at.name = None;
        }
        let name = Name {
            inner: seed,
            at: &mut self.at,
        };
        let key = self.inner.next_key_seed(name);
        // An error reading a name comes out of the member's place.
        if key.is_err() && self.at.watch.tracking {
            let watch = self.at.watch;
            watch.left(watch.depth.get() + 1, Place::Named(self.at.name.take()));
        }
        key
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let check = Check {
            seed,
            node: self.at.value.take(),
            watch: self.at.watch,
        };
        let name = &mut self.at.name;
        self.at.watch.inside(Place::Named(name.take()), || {
            self.inner.next_value_seed(check)
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// An enum's variants, each at a place of its own, named after it.
struct Variants<'p, A> {
    inner: A,
    watch: &'p Watch,
}

/// What a variant's name reading hears: the name, while tracking.
struct VariantName<'p> {
    watch: &'p Watch,
    name: Option<String>,
}

impl Hears for VariantName<'_> {
    fn text(&mut self, name: &str) {
        if self.watch.tracking {
            self.name = Some(name.to_owned());
        }
    }

    fn other(&mut self, written: impl FnOnce() -> Option<String>) {
        if self.watch.tracking {
            self.name = written();
        }
    }
}

impl<'p, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Variants<'p, A> {
    type Error = A::Error;
    type Variant = Variant<'p, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let mut heard = VariantName {
            watch: self.watch,
            name: None,
        };
        let name = Name {
            inner: seed,
            at: &mut heard,
        };
        let (value, inner) = self.inner.variant_seed(name)?;
        let variant = Variant {
            inner,
            watch: self.watch,
            name: heard.name,
        };
        Ok((value, variant))
    }
}

/// A variant's content, at the variant's place.
struct Variant<'p, A> {
    inner: A,
    watch: &'p Watch,
    name: Option<String>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        let (inner, name) = (self.inner, self.name);
        self.watch
            .inside(Place::Named(name), || inner.unit_variant())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        let (inner, name) = (self.inner, self.name);
        let check = Check {
            seed,
            node: None,
            watch: self.watch,
        };
        self.watch
            .inside(Place::Named(name), || inner.newtype_variant_seed(check))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let (inner, name) = (self.inner, self.name);
        let visitor = Visit {
            inner: visitor,
            node: None,
            watch: self.watch,
        };
        self.watch
            .inside(Place::Named(name), || inner.tuple_variant(len, visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let (inner, name) = (self.inner, self.name);
        let visitor = Visit {
            inner: visitor,
            node: None,
            watch: self.watch,
        };
        self.watch
            .inside(Place::Named(name), || inner.struct_variant(fields, visitor))
    }
}

/// A name's seed, deserializer and visitor at once: whichever the reading is at, it is handed
/// on, and the name is heard on the way.
struct Name<'a, T, H> {
    inner: T,
    at: &'a mut H,
}

impl<'de, K: DeserializeSeed<'de>, H: Hears> DeserializeSeed<'de> for Name<'_, K, H> {
    type Value = K::Value;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        self.inner.deserialize(Name {
            inner: deserializer,
            at: self.at,
        })
    }
}

macro_rules! forward_name {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* Name { inner: visitor, at: self.at })
        }
    )*};
}

impl<'de, D: Deserializer<'de>, H: Hears> Deserializer<'de> for Name<'_, D, H> {
    type Error = D::Error;

    deserialize_methods!(forward_name);

    forward_name! {
        deserialize_newtype_struct(name: &'static str);
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! hear {
    ($($method:ident($($value:ident: $ty:ty)?) => $written:expr;)*) => {$(
        fn $method<E: de::Error>(self, $($value: $ty)?) -> Result<V::Value, E> {
            self.at.other(|| $written);
            self.inner.$method($($value)?)
        }
    )*};
}

impl<'de, V: Visitor<'de>, H: Hears> Visitor<'de> for Name<'_, V, H> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<V::Value, E> {
        self.at.text(name);
        self.inner.visit_str(name)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<V::Value, E> {
        self.at.text(name);
        self.inner.visit_borrowed_str(name)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_string<E: de::Error>(self, name: String) -> Result<V::Value, E> {
        self.at.text(&name);
        self.inner.visit_string(name)
    }

    // Written as `serde_path_to_error` writes names that are not text: booleans and integers
    // as they read, anything else as unknown.
    hear! {
        visit_bool(value: bool) => Some(value.to_string());
        visit_i8(value: i8) => Some(value.to_string());
        visit_i16(value: i16) => Some(value.to_string());
        visit_i32(value: i32) => Some(value.to_string());
        visit_i64(value: i64) => Some(value.to_string());
        visit_i128(value: i128) => Some(value.to_string());
        visit_u8(value: u8) => Some(value.to_string());
        visit_u16(value: u16) => Some(value.to_string());
        visit_u32(value: u32) => Some(value.to_string());
        visit_u64(value: u64) => Some(value.to_string());
        visit_u128(value: u128) => Some(value.to_string());
        visit_f32(value: f32) => None;
        visit_f64(value: f64) => None;
        visit_char(value: char) => None;
        visit_byte_buf(value: Vec<u8>) => None;
        visit_none() => None;
        visit_unit() => None;
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<V::Value, E> {
        self.at.other(|| None);
        self.inner.visit_bytes(value)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, value: &'de [u8]) -> Result<V::Value, E> {
        self.at.other(|| None);
        self.inner.visit_borrowed_bytes(value)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.at.other(|| None);
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.at.other(|| None);
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.at.other(|| None);
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.at.other(|| None);
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.at.other(|| None);
        self.inner.visit_enum(data)
    }
}
