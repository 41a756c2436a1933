//! A minimal serde `Deserializer` over one CSV row already split into `&str` fields: the
//! row deserializes as a sequence (fields in the row type's column order), each field as a
//! borrowed string (empty = `None` for options). No allocation, no per-row name matching.

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use std::fmt;

/// A deserialization failure, with the index of the field it happened in.
#[derive(Debug)]
pub(crate) struct FieldError {
    pub field: Option<usize>,
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FieldError {}

impl de::Error for FieldError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        FieldError { field: None, message: message.to_string() }
    }
}

/// Deserializes `T` from `fields` by position.
pub(crate) fn from_fields<'a, T: de::Deserialize<'a>>(fields: &'a [&'a str]) -> Result<T, FieldError> {
    T::deserialize(Row { fields, next: 0 })
}

struct Row<'a> {
    fields: &'a [&'a str],
    next: usize,
}

impl<'de> Deserializer<'de> for Row<'de> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_seq(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for Row<'de> {
    type Error = FieldError;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, FieldError> {
        let Some(field) = self.fields.get(self.next) else { return Ok(None) };
        let index = self.next;
        self.next += 1;
        seed.deserialize(Field(field)).map(Some).map_err(|mut e| {
            e.field = Some(index);
            e
        })
    }
}

struct Field<'a>(&'a str);

impl<'de> Deserializer<'de> for Field<'de> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        if self.0.is_empty() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}
