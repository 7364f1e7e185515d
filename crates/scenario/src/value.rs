//! `Range`: a parameter that is either a fixed number or a `[lo, hi]` pair
//! drawn per run. The scenario crate never samples; the simulator draws with
//! its own seeded RNG (uniformly in `[lo, hi]`).

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A number, or a `[lo, hi]` range drawn uniformly once per run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    Fixed(f64),
    Uniform { lo: f64, hi: f64 },
}

impl Range {
    pub fn lo(&self) -> f64 {
        match *self {
            Range::Fixed(v) => v,
            Range::Uniform { lo, .. } => lo,
        }
    }
    pub fn hi(&self) -> f64 {
        match *self {
            Range::Fixed(v) => v,
            Range::Uniform { hi, .. } => hi,
        }
    }
    pub fn is_fixed(&self) -> bool {
        matches!(self, Range::Fixed(_)) || self.lo() == self.hi()
    }
    /// Midpoint, for reporting.
    pub fn mid(&self) -> f64 {
        (self.lo() + self.hi()) / 2.0
    }
    /// Draw a value given a uniform sample `u` in `[0, 1)`.
    pub fn at(&self, u: f64) -> f64 {
        self.lo() + (self.hi() - self.lo()) * u
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Fixed(v) => write!(f, "{v}"),
            Range::Uniform { lo, hi } => write!(f, "[{lo}, {hi}]"),
        }
    }
}

impl From<f64> for Range {
    fn from(v: f64) -> Self {
        Range::Fixed(v)
    }
}

impl Serialize for Range {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Range::Fixed(v) => s.serialize_f64(v),
            Range::Uniform { lo, hi } => {
                let mut seq = s.serialize_seq(Some(2))?;
                seq.serialize_element(&lo)?;
                seq.serialize_element(&hi)?;
                seq.end()
            }
        }
    }
}

struct RangeVisitor;

impl<'de> Visitor<'de> for RangeVisitor {
    type Value = Range;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or a [lo, hi] pair of numbers")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Range, E> {
        Ok(Range::Fixed(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Range, E> {
        Ok(Range::Fixed(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Range, E> {
        Ok(Range::Fixed(v as f64))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Range, A::Error> {
        let mut vals = Vec::new();
        while let Some(v) = seq.next_element::<Number>()? {
            vals.push(v.0);
        }
        match vals[..] {
            [lo, hi] => Ok(Range::Uniform { lo, hi }),
            _ => Err(de::Error::custom(format!(
                "expected a [lo, hi] pair of numbers, found an array of {} element(s)",
                vals.len()
            ))),
        }
    }
}

/// A number that accepts TOML integers and floats.
struct Number(f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Range {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RangeVisitor)
    }
}
