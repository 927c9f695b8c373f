//! The integer rule of every JSON input, in JSON Schema's sense: a number
//! without a fractional part is an integer, whatever its spelling (`2`,
//! `2.0`, `2e0`; JavaScript and Python's floats write whole numbers so), and
//! `2.5` is not one. A schema's `"type": "integer"` accepts `2.0` and cannot
//! refuse it, so neither does a reader.
//!
//! Fields use it through serde: `#[serde(deserialize_with = "int::de")]`,
//! or `int::opt` for an `Option`. Their JSON Schema is the field type's own
//! (`"type": "integer"` with the type's bounds).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};

/// The integer `number` stands for, or `None` when it has a fractional part
/// (or is not finite). Floats beyond 2^53 are read as the integer they hold,
/// saturating at the bounds of `i128`.
pub fn of_number(number: &serde_json::Number) -> Option<i128> {
    if let Some(n) = number.as_i64() {
        Some(i128::from(n))
    } else if let Some(n) = number.as_u64() {
        Some(i128::from(n))
    } else {
        number.as_f64().and_then(of_float)
    }
}

fn of_float(f: f64) -> Option<i128> {
    // `as` saturates: 1e300 is i128::MAX, as good as any for a bound check.
    (f.is_finite() && f.fract() == 0.0).then_some(f as i128)
}

/// An integer type a field may have, with its bounds for messages.
pub trait Integer: Sized + TryFrom<i128> {
    /// The smallest value.
    const MIN: i128;
    /// The largest value.
    const MAX: i128;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
        }
    )*};
}
integer!(u8, u16, u32, u64, usize, i32, i64, i128);

/// Every non-negative integer: `1e30` too (a float, saturating at `i128::MAX`).
impl Integer for u128 {
    const MIN: i128 = 0;
    const MAX: i128 = i128::MAX;
}

/// What a `T` is, for messages: `a non-negative integer`, `an integer`.
pub fn what<T: Integer>() -> &'static str {
    if T::MIN == 0 {
        "a non-negative integer"
    } else {
        "an integer"
    }
}

/// The value `n` as a `T`, or why not: `expected a non-negative integer,
/// found number -3`, `expected an integer up to 4294967295, found number
/// 5000000000`.
pub fn convert<T: Integer>(n: i128, text: impl fmt::Display) -> Result<T, String> {
    if n < 0 && T::MIN == 0 {
        return Err(format!(
            "expected a non-negative integer, found number {text}"
        ));
    }
    T::try_from(n).map_err(|_| {
        format!(
            "expected an integer from {} to {}, found number {text}",
            T::MIN,
            T::MAX
        )
    })
}

/// Reads an integer field by the rule of this module.
pub fn de<'de, D: Deserializer<'de>, T: Integer>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_any(IntVisitor(PhantomData))
}

/// Reads a document's version number by the rule of this module: only
/// `supported` is read; another is an error naming `document` ("evidence").
pub fn version<'de, D: Deserializer<'de>>(
    deserializer: D,
    supported: u32,
    document: &str,
) -> Result<u32, D::Error> {
    let version: u32 = de(deserializer)?;
    if version == supported {
        Ok(version)
    } else {
        Err(serde::de::Error::custom(format!(
            "unsupported {document} version {version} (this run-check reads version {supported})"
        )))
    }
}

/// Reads a nullable integer field by the rule of this module. A field that
/// uses it is required (present, maybe null) unless it has `#[serde(default)]`.
pub fn opt<'de, D: Deserializer<'de>, T: Integer>(deserializer: D) -> Result<Option<T>, D::Error> {
    deserializer.deserialize_option(OptVisitor(PhantomData))
}

struct IntVisitor<T>(PhantomData<T>);

impl<T: Integer> Visitor<'_> for IntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(what::<T>())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        convert(i128::from(v), v).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        convert(i128::from(v), v).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        match of_float(v) {
            Some(n) => convert(
                n,
                serde_json::Number::from_f64(v).map_or(v.to_string(), |n| n.to_string()),
            )
            .map_err(E::custom),
            None => Err(E::custom(format!(
                "expected {}, found number {}",
                what::<T>(),
                serde_json::Number::from_f64(v).map_or(v.to_string(), |n| n.to_string())
            ))),
        }
    }
}

struct OptVisitor<T>(PhantomData<T>);

impl<'de, T: Integer> Visitor<'de> for OptVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} or null", what::<T>())
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        de(deserializer).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Doc {
        #[serde(deserialize_with = "de")]
        n: u32,
        #[serde(deserialize_with = "opt")]
        m: Option<i32>,
    }

    fn read(value: serde_json::Value) -> Result<Doc, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn whole_numbers_are_integers_whatever_their_spelling() {
        assert_eq!(
            read(json!({"n": 1.0, "m": -2.0})),
            Ok(Doc { n: 1, m: Some(-2) })
        );
        assert_eq!(read(json!({"n": 7, "m": null})), Ok(Doc { n: 7, m: None }));
        let doc: Doc = serde_json::from_str(r#"{"n": 2e0, "m": 130}"#).unwrap();
        assert_eq!(doc, Doc { n: 2, m: Some(130) });
    }

    #[test]
    fn fractions_negatives_and_out_of_range_are_named_with_their_value() {
        assert_eq!(
            read(json!({"n": 1.5, "m": null})).unwrap_err(),
            "expected a non-negative integer, found number 1.5"
        );
        assert_eq!(
            read(json!({"n": 1, "m": 0.5})).unwrap_err(),
            "expected an integer, found number 0.5"
        );
        assert_eq!(
            read(json!({"n": -3, "m": null})).unwrap_err(),
            "expected a non-negative integer, found number -3"
        );
        assert_eq!(
            read(json!({"n": 5_000_000_000_u64, "m": null})).unwrap_err(),
            "expected an integer from 0 to 4294967295, found number 5000000000"
        );
        assert_eq!(
            read(json!({"n": 1e300, "m": null})).unwrap_err(),
            "expected an integer from 0 to 4294967295, found number 1e+300"
        );
        assert_eq!(
            read(json!({"n": "1", "m": null})).unwrap_err(),
            "invalid type: string \"1\", expected a non-negative integer"
        );
        assert!(
            read(json!({"n": 1}))
                .unwrap_err()
                .contains("missing field `m`")
        );
    }

    #[test]
    fn numbers_of_a_parsed_value() {
        let n = |v: serde_json::Value| of_number(v.as_number().unwrap());
        assert_eq!(n(json!(2.0)), Some(2));
        assert_eq!(n(json!(-2)), Some(-2));
        assert_eq!(n(json!(u64::MAX)), Some(i128::from(u64::MAX)));
        assert_eq!(n(json!(2.5)), None);
    }
}
