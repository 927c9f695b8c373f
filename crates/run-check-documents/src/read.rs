//! Reading a document: from bytes (a UTF-8 byte-order mark is skipped,
//! UTF-16 is refused, a syntax error names its line and column) or from a
//! parsed value, into a type of this crate. A value of the wrong shape is a
//! [`Problem`] naming the JSON path of the first problem
//! (`$.checks[2].exit_code: expected an integer, found number 1.5`), the
//! same way whichever program reads it.

use std::fmt;

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde_json::{Map, Value};

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The JSON path of the value at fault (`$`, `$.a.b`, `$.a[3]`); `None`
    /// for an error of syntax or encoding.
    pub path: Option<String>,
    /// 1-based line and column of a syntax error.
    pub location: Option<(usize, usize)>,
    /// What is wrong, one line.
    pub message: String,
}

impl Problem {
    /// A problem with the value at `path`.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: Some(path.into()),
            location: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((line, column)) = self.location {
            write!(f, "{line}:{column}: ")?;
        }
        if let Some(path) = &self.path {
            write!(f, "{path}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

/// Reads a `T` from JSON text.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(Problem {
            path: None,
            location: None,
            message: "the file is UTF-16 encoded; save it as UTF-8".into(),
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let mut track = serde_path_to_error::Track::new();
    let value = T::deserialize(serde_path_to_error::Deserializer::new(
        &mut json, &mut track,
    ))
    .and_then(|value| json.end().map(|()| value));
    value.map_err(|err| {
        if err.is_data() {
            shape(&track.path(), &message(&err))
        } else {
            Problem {
                path: None,
                location: Some((err.line(), err.column().max(1))),
                message: format!("invalid JSON: {}", message(&err)),
            }
        }
    })
}

/// Reads a `T` from a parsed value.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Problem> {
    serde_path_to_error::deserialize(value).map_err(|err| shape(err.path(), &message(err.inner())))
}

/// Reads a `T` from another format's value (a TOML table, ...), worded as
/// a JSON reader words it; `message` is the format's error message alone.
pub fn from_deserializer<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
    message: impl Fn(&D::Error) -> String,
) -> Result<T, Problem> {
    serde_path_to_error::deserialize(deserializer)
        .map_err(|err| shape(err.path(), &message(err.inner())))
}

/// `base` with the members of `layer` replaced, read again as a `T` (each
/// member with its rules; an unknown one refused).
pub fn layered<T: Serialize + DeserializeOwned>(
    base: &T,
    layer: &Map<String, Value>,
) -> Result<T, Problem> {
    let mut all = match serde_json::to_value(base) {
        Ok(Value::Object(all)) => all,
        _ => Map::new(),
    };
    all.extend(layer.iter().map(|(k, v)| (k.clone(), v.clone())));
    from_value(Value::Object(all))
}

/// Reads a nullable field that must be present (`null` is `None`; absent is
/// an error): `#[serde(deserialize_with = "read::nullable")]`. A plain
/// `Option` field reads an absent field as `None`.
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(deserializer)
}

/// Reads an enumeration of words from a string:
/// `#[serde(deserialize_with = "read::word")]`. serde_json reads an enum
/// from a number as a syntax error, with no JSON path.
pub fn word<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<T, D::Error> {
    let text = String::deserialize(deserializer)?;
    T::deserialize(serde::de::IntoDeserializer::<serde::de::value::Error>::into_deserializer(text))
        .map_err(serde::de::Error::custom)
}

/// serde_json's message without its trailing ` at line L column C`.
pub fn message(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    message
        .strip_suffix(&suffix)
        .unwrap_or(&message)
        .to_string()
}

/// The path of member `name` of the object at `path`: `$.votes`, or
/// `$.quick_assessments["two words"]` when `name` is not an identifier.
pub fn child(path: &str, name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        format!("{path}.{name}")
    } else {
        format!("{path}[{}]", Value::String(name.to_string()))
    }
}

/// `a`, `a or b`, `a, b or c`: the names a message offers instead.
pub fn alternatives(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [only] => (*only).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A shape error at `path`, worded as every reader words it: a missing or
/// unknown member is named by its own path.
fn shape(path: &serde_path_to_error::Path, text: &str) -> Problem {
    use serde_path_to_error::Segment;
    let mut at = String::from("$");
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => at.push_str(&format!("[{index}]")),
            Segment::Map { key } => at = child(&at, key),
            Segment::Enum { variant } => at = child(&at, variant),
            Segment::Unknown => {}
        }
    }
    let quoted = |text: &str| -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    if let Some(rest) = text.strip_prefix("missing field ") {
        let name = quoted(rest).into_iter().next().unwrap_or_default();
        return Problem::at(child(&at, &name), "missing required field");
    }
    if let Some(rest) = text.strip_prefix("unknown field ") {
        // The path already ends with the unknown member.
        let words = quoted(rest);
        if let Some((_, expected)) = words.split_first() {
            let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
            let message = if expected.is_empty() {
                "unknown field (expected none)".to_string()
            } else {
                format!("unknown field (expected {})", alternatives(&expected))
            };
            return Problem::at(at, message);
        }
    }
    if let Some(rest) = text.strip_prefix("unknown variant ") {
        let words = quoted(rest);
        if let Some((found, expected)) = words.split_first() {
            let expected: Vec<String> = expected.iter().map(|w| format!("{w:?}")).collect();
            return Problem::at(
                at,
                format!("expected one of {}, found {found:?}", expected.join(", ")),
            );
        }
    }
    // serde reads a struct from an array of its fields too; an array of the
    // wrong length is worded as the wrong type it is.
    if text.starts_with("invalid length ") && text.contains(", expected struct ") {
        return Problem::at(at, "expected an object, found array");
    }
    if let Some(rest) = text.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return Problem::at(
            at,
            format!(
                "expected {}, found {}",
                json_kind(expected),
                json_found(found)
            ),
        );
    }
    Problem::at(at, text)
}

/// serde's name of what was expected, in JSON's words: `a sequence` is
/// `an array`, a struct or map `an object`, `f64` `a number`.
fn json_kind(expected: &str) -> &str {
    match expected {
        "a sequence" => "an array",
        "f64" | "f32" => "a number",
        "variant identifier" | "string or map" => "a string",
        _ if expected.starts_with("struct ") || expected.starts_with("a map") => "an object",
        _ => expected,
    }
}

/// serde's name of a value found, in JSON's words: `integer `3`` is
/// `number 3`, `string "x"` is `string`, `map` is `object`.
fn json_found(found: &str) -> String {
    let inner = || found.split('`').nth(1).unwrap_or_default();
    if found.starts_with("integer `") || found.starts_with("floating point `") {
        format!("number {}", inner())
    } else if found.starts_with("boolean") {
        "boolean".into()
    } else if found.starts_with("string ") {
        "string".into()
    } else {
        match found {
            "map" => "object".into(),
            "sequence" => "array".into(),
            _ => found.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[test]
    fn member_paths_quote_keys_that_are_not_identifiers() {
        assert_eq!(child("$", "votes"), "$.votes");
        assert_eq!(child("$", "_a1"), "$._a1");
        assert_eq!(child("$", "1a"), "$[\"1a\"]");
        assert_eq!(child("$", ""), "$[\"\"]");
        assert_eq!(child("$.x", "a\"b"), "$.x[\"a\\\"b\"]");
        assert_eq!(child("$", "候选"), "$[\"候选\"]");
    }

    /// A number reads back as the value that was written, to the last
    /// place: a score, re-rendered from the evidence, shows the digits the
    /// run showed. (The binary's tests would pass without the crate's
    /// `float_roundtrip`, which a dev-dependency turns on there; this one,
    /// with `cargo test -p run-check-documents`, would not.)
    #[test]
    fn a_float_reads_back_exactly() {
        for score in [94.677_225_431_448_95, 98.394_234_698_334_61, 0.1 + 0.2] {
            let text = serde_json::to_string(&score).unwrap();
            assert_eq!(from_slice::<f64>(text.as_bytes()), Ok(score), "{text}");
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        items: Vec<Item>,
        #[serde(deserialize_with = "nullable")]
        note: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        #[serde(deserialize_with = "crate::int::de")]
        n: u32,
        kind: Kind,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        A,
        B,
    }

    fn problem(text: &str) -> String {
        from_slice::<Doc>(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn shape_errors_name_the_json_path() {
        assert_eq!(
            problem(r#"{"items": [{"n": 1, "kind": "a"}, {"n": 1.5, "kind": "a"}], "note": null}"#),
            "$.items[1].n: expected a non-negative integer, found number 1.5"
        );
        assert_eq!(
            problem(r#"{"items": [{"n": 1}], "note": null}"#),
            "$.items[0].kind: missing required field"
        );
        assert_eq!(
            problem(r#"{"items": [], "note": null, "extra key": 1}"#),
            "$[\"extra key\"]: unknown field (expected items or note)"
        );
        assert_eq!(
            problem(r#"{"items": [{"n": 1, "kind": "c"}], "note": null}"#),
            "$.items[0].kind: expected one of \"a\", \"b\", found \"c\""
        );
        assert_eq!(problem("[]"), "$: expected an object, found array");
        assert_eq!(
            problem(r#"{"items": []}"#),
            "$.note: missing required field"
        );
        assert_eq!(
            problem(r#"{"items": {}, "note": null}"#),
            "$.items: expected an array, found object"
        );
        let doc = from_value::<Doc>(json!({"items": [{"n": 2.0, "kind": "b"}], "note": "x"}));
        assert_eq!(doc.unwrap().items[0].n, 2);
        assert_eq!(
            from_value::<Doc>(json!({"items": [{"n": -1, "kind": "b"}], "note": "x"}))
                .unwrap_err()
                .to_string(),
            "$.items[0].n: expected a non-negative integer, found number -1"
        );
    }

    #[test]
    fn syntax_and_encoding_errors_name_line_and_column() {
        assert_eq!(
            problem("{\n  \"items\": [],\n}"),
            "3:1: invalid JSON: trailing comma"
        );
        assert_eq!(
            problem(r#"{"items": [], "note": null} x"#),
            "1:29: invalid JSON: trailing characters"
        );
        assert_eq!(
            problem("\u{feff}{\"items\": [], \"note\": 1}"),
            "$.note: expected a string, found number 1"
        );
        assert_eq!(
            from_slice::<Doc>(b"\xFF\xFE{").unwrap_err().to_string(),
            "the file is UTF-16 encoded; save it as UTF-8"
        );
    }
}
