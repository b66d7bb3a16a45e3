//! A serde [`Serializer`](ser::Serializer) that builds a [`Node`] tree straight from any
//! `Serialize` value: the actual side of a scenario's matching (events, the pending decision).
//!
//! [`to_tree`] gives the tree that printing the value with `ron::to_string` (default options)
//! and reading the text back with [`parse`](super::tree::parse) gives, without the text:
//! - a struct is a [`Node::Named`] with an empty name (ron writes no struct names); a struct
//!   variant is a `Named` with the variant's name. With no fields (none declared, or all skipped)
//!   ron writes `()` or `Variant()`, which reads as an empty [`Node::Tuple`], so that is what
//!   an empty struct gives here too.
//! - tuples, tuple structs, newtype structs, `()` and unit structs are unnamed tuples; tuple and
//!   newtype variants are tuples named after the variant; `Some(x)` is a tuple named `Some`.
//! - `None` and unit variants are a [`Node::Ident`]; sequences a [`Node::List`]; maps a
//!   [`Node::Map`] in the order the value gives its entries.
//! - strings and chars are a [`Node::Str`]; bytes too, one char per byte (U+0000 to U+00FF), as
//!   the parser reads ron's `b"..."` escapes.
//! - integers are a [`Node::Int`]; one that does not fit in an `i64` is an [`Error`], as the
//!   parser rejects it. `f64` is a [`Node::Float`] as it is (any NaN becomes the positive one); an
//!   `f32` is the `f64` its shortest decimal text denotes (`0.1f32` gives `0.1`, not
//!   `0.10000000149011612`), since ron writes that text and the parser reads it as an `f64`.
//! - nesting deeper than [`MAX_DEPTH`] is an [`Error`], as in the parser.
//!
//! Where the two differ, on values the battle's types never hold: `i128` and `u128` that fit
//! in an `i64` give an integer here, where ron (built without its `integer128` feature) refuses
//! them; and a variant or field renamed (with serde) to something that is not a plain
//! identifier, or to `true`, `false`, `inf` or `NaN`, keeps its name here, where ron writes it
//! as a raw identifier (`r#...`) that the parser misreads or rejects.

use super::tree::{MAX_DEPTH, Node};
use serde::ser::{self, Serialize};
use std::fmt;

/// The tree of `value`. See the module documentation.
pub fn to_tree<T: Serialize + ?Sized>(value: &T) -> Result<Node, Error> {
    value.serialize(TreeSerializer { depth: 0 })
}

/// Why a value has no tree: an integer that does not fit in an `i64`, nesting deeper than
/// [`MAX_DEPTH`], or an error the value's `Serialize` impl raised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Serializes one value at `depth` (0 at the top; each child node is one deeper).
#[derive(Clone, Copy)]
struct TreeSerializer {
    depth: usize,
}

impl TreeSerializer {
    /// The tree of a value nested one level below this one.
    fn child<T: Serialize + ?Sized>(self, value: &T) -> Result<Node, Error> {
        let depth = self.depth + 1;
        if depth >= MAX_DEPTH {
            return Err(Error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        value.serialize(TreeSerializer { depth })
    }

    fn int(self, v: impl Into<i128>) -> Result<Node, Error> {
        let v = v.into();
        i64::try_from(v)
            .map(Node::Int)
            .map_err(|_| Error(format!("integer `{v}` does not fit in 64 bits")))
    }

    fn items(self, shape: Shape, len: usize) -> Items {
        Items {
            ser: self,
            shape,
            items: Vec::with_capacity(len),
        }
    }

    fn fields(self, name: Option<&'static str>, len: usize) -> Fields {
        Fields {
            ser: self,
            name,
            fields: Vec::with_capacity(len),
        }
    }
}

fn tuple(name: Option<&str>, items: Vec<Node>) -> Node {
    Node::Tuple {
        name: name.map(str::to_string),
        items,
    }
}

impl ser::Serializer for TreeSerializer {
    type Ok = Node;
    type Error = Error;
    type SerializeSeq = Items;
    type SerializeTuple = Items;
    type SerializeTupleStruct = Items;
    type SerializeTupleVariant = Items;
    type SerializeMap = Entries;
    type SerializeStruct = Fields;
    type SerializeStructVariant = Fields;

    fn serialize_bool(self, v: bool) -> Result<Node, Error> {
        Ok(Node::Bool(v))
    }

    fn serialize_i8(self, v: i8) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_i16(self, v: i16) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_i32(self, v: i32) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_i64(self, v: i64) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_i128(self, v: i128) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_u8(self, v: u8) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_u16(self, v: u16) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_u32(self, v: u32) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_u64(self, v: u64) -> Result<Node, Error> {
        self.int(v)
    }

    fn serialize_u128(self, v: u128) -> Result<Node, Error> {
        i128::try_from(v)
            .map_err(|_| Error(format!("integer `{v}` does not fit in 64 bits")))
            .and_then(|v| self.int(v))
    }

    fn serialize_f32(self, v: f32) -> Result<Node, Error> {
        if v.is_nan() {
            return Ok(Node::Float(f64::NAN));
        }
        // ron writes `{v:?}`, the shortest text that reads back as `v`; the parser reads that
        // text as an `f64`.
        let text = format!("{v:?}");
        text.parse::<f64>()
            .map(Node::Float)
            .map_err(|e| Error(format!("float `{text}`: {e}")))
    }

    fn serialize_f64(self, v: f64) -> Result<Node, Error> {
        Ok(Node::Float(if v.is_nan() { f64::NAN } else { v }))
    }

    fn serialize_char(self, v: char) -> Result<Node, Error> {
        Ok(Node::Str(v.to_string()))
    }

    fn serialize_str(self, v: &str) -> Result<Node, Error> {
        Ok(Node::Str(v.to_string()))
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<Node, Error> {
        Ok(Node::Str(v.iter().copied().map(char::from).collect()))
    }

    fn serialize_none(self) -> Result<Node, Error> {
        Ok(Node::Ident("None".to_string()))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node, Error> {
        Ok(tuple(Some("Some"), vec![self.child(value)?]))
    }

    fn serialize_unit(self) -> Result<Node, Error> {
        Ok(tuple(None, Vec::new()))
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Node, Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Node, Error> {
        Ok(Node::Ident(variant.to_string()))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        Ok(tuple(None, vec![self.child(value)?]))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        Ok(tuple(Some(variant), vec![self.child(value)?]))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Items, Error> {
        Ok(self.items(Shape::List, len.unwrap_or(0)))
    }

    fn serialize_tuple(self, len: usize) -> Result<Items, Error> {
        Ok(self.items(Shape::Tuple(None), len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items, Error> {
        Ok(self.items(Shape::Tuple(None), len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items, Error> {
        Ok(self.items(Shape::Tuple(Some(variant)), len))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Entries, Error> {
        Ok(Entries {
            ser: self,
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
        })
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Fields, Error> {
        Ok(self.fields(None, len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Fields, Error> {
        Ok(self.fields(Some(variant), len))
    }
}

/// What a run of items becomes.
#[derive(Clone, Copy)]
enum Shape {
    /// `[a, b]`: a sequence.
    List,
    /// `(a, b)` or `Variant(a, b)`: a tuple, tuple struct or tuple variant.
    Tuple(Option<&'static str>),
}

/// The items of a sequence, tuple, tuple struct or tuple variant, as they come.
struct Items {
    ser: TreeSerializer,
    shape: Shape,
    items: Vec<Node>,
}

impl Items {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(self.ser.child(value)?);
        Ok(())
    }

    fn finish(self) -> Node {
        match self.shape {
            Shape::List => Node::List(self.items),
            Shape::Tuple(name) => tuple(name, self.items),
        }
    }
}

impl ser::SerializeSeq for Items {
    type Ok = Node;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTuple for Items {
    type Ok = Node;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleStruct for Items {
    type Ok = Node;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleVariant for Items {
    type Ok = Node;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

/// The fields of a struct (`name` is `None`) or of a struct variant, as they come.
struct Fields {
    ser: TreeSerializer,
    name: Option<&'static str>,
    fields: Vec<(String, Node)>,
}

impl Fields {
    fn push<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.fields.push((key.to_string(), self.ser.child(value)?));
        Ok(())
    }

    fn finish(self) -> Node {
        if self.fields.is_empty() {
            // ron writes `()` or `Variant()`, which reads as a tuple.
            tuple(self.name, Vec::new())
        } else {
            Node::Named {
                name: self.name.unwrap_or_default().to_string(),
                fields: self.fields,
            }
        }
    }
}

impl ser::SerializeStruct for Fields {
    type Ok = Node;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.push(key, value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for Fields {
    type Ok = Node;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.push(key, value)
    }

    fn end(self) -> Result<Node, Error> {
        Ok(self.finish())
    }
}

/// The entries of a map, in the order they come; `key` waits for its value.
struct Entries {
    ser: TreeSerializer,
    entries: Vec<(Node, Node)>,
    key: Option<Node>,
}

impl ser::SerializeMap for Entries {
    type Ok = Node;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        if self.key.is_some() {
            return Err(Error("a map key without a value".to_string()));
        }
        self.key = Some(self.ser.child(key)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let Some(key) = self.key.take() else {
            return Err(Error("a map value without a key".to_string()));
        };
        self.entries.push((key, self.ser.child(value)?));
        Ok(())
    }

    fn end(self) -> Result<Node, Error> {
        if self.key.is_some() {
            return Err(Error("a map key without a value".to_string()));
        }
        Ok(Node::Map(self.entries))
    }
}

#[cfg(test)]
mod tests;
