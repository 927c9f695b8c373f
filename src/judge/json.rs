//! Typed access to a `serde_json::Value` that names the JSON path of the first
//! problem (`$.checks[2].status: expected a string, found number`). Used for
//! the judge's input and for each history line; never panics, never guesses.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;

pub(crate) use crate::json_input::{kind, parse_document, syntax_message};

/// A problem at a JSON path: a missing field or a value of the wrong type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    /// `$`, `$.a.b`, `$.a[3]`.
    pub path: String,
    /// What is wrong, one line.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub(crate) fn new(path: &str, message: impl Into<String>) -> Problem {
        Problem {
            path: path.to_string(),
            message: message.into(),
        }
    }

    /// The user-facing error: `FILE: $.path: message` (with `prefix`, e.g.
    /// `line 3: `, before the path).
    pub(crate) fn into_error(self, file: &Path, prefix: &str) -> Error {
        Error::Config {
            path: file.to_path_buf(),
            location: None,
            key: Some(format!("{prefix}{}", self.path)),
            message: self.message,
        }
    }
}

/// The result of a typed access.
pub(crate) type Access<T> = Result<T, Problem>;

/// `path.name`.
pub(crate) fn child(path: &str, name: &str) -> String {
    format!("{path}.{name}")
}

/// `path[index]`.
pub(crate) fn index(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// An object.
pub(crate) fn object<'a>(value: &'a Value, path: &str) -> Access<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| Problem::new(path, format!("expected an object, found {}", kind(value))))
}

/// A required field of the object at `path`.
pub(crate) fn field<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    name: &str,
) -> Access<&'a Value> {
    object
        .get(name)
        .ok_or_else(|| Problem::new(&child(path, name), "missing required field"))
}

/// An optional field: absent and `null` are both `None`.
pub(crate) fn optional<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

/// A string.
pub(crate) fn string<'a>(value: &'a Value, path: &str) -> Access<&'a str> {
    value
        .as_str()
        .ok_or_else(|| Problem::new(path, format!("expected a string, found {}", kind(value))))
}

/// A boolean.
pub(crate) fn boolean(value: &Value, path: &str) -> Access<bool> {
    value
        .as_bool()
        .ok_or_else(|| Problem::new(path, format!("expected a boolean, found {}", kind(value))))
}

/// A finite number.
pub(crate) fn number(value: &Value, path: &str) -> Access<f64> {
    value
        .as_f64()
        .filter(|n| n.is_finite())
        .ok_or_else(|| Problem::new(path, format!("expected a number, found {}", kind(value))))
}

/// A number within `0..=100` (a score).
pub(crate) fn score(value: &Value, path: &str) -> Access<f64> {
    let n = number(value, path)?;
    if (0.0..=100.0).contains(&n) {
        Ok(n)
    } else {
        Err(Problem::new(
            path,
            format!("expected a score within 0..100, found {value}"),
        ))
    }
}

/// A non-negative integer (`2.0` is not one).
pub(crate) fn count(value: &Value, path: &str) -> Access<u64> {
    match value {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Ok(u),
            (None, Some(i)) => Err(Problem::new(
                path,
                format!("expected a non-negative integer, found {i}"),
            )),
            _ => Err(Problem::new(
                path,
                format!("expected a non-negative integer, found number {n}"),
            )),
        },
        other => Err(Problem::new(
            path,
            format!("expected a non-negative integer, found {}", kind(other)),
        )),
    }
}

/// A non-negative integer that fits in `u32`.
pub(crate) fn count32(value: &Value, path: &str) -> Access<u32> {
    let n = count(value, path)?;
    u32::try_from(n).map_err(|_| Problem::new(path, format!("{n} is too large")))
}

/// An array.
pub(crate) fn array<'a>(value: &'a Value, path: &str) -> Access<&'a [Value]> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| Problem::new(path, format!("expected an array, found {}", kind(value))))
}

/// A string or `null`/absent.
pub(crate) fn opt_string(
    object: &Map<String, Value>,
    path: &str,
    name: &str,
) -> Access<Option<String>> {
    optional(object, name)
        .map(|v| string(v, &child(path, name)).map(str::to_string))
        .transpose()
}

/// One of `words` (exactly as written).
pub(crate) fn word<'a>(value: &Value, path: &str, words: &[&'a str]) -> Access<&'a str> {
    let expected = words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let found = match value {
        Value::String(s) => match words.iter().find(|w| **w == s.as_str()) {
            Some(w) => return Ok(w),
            None => format!("\"{s}\""),
        },
        other => kind(other).to_string(),
    };
    Err(Problem::new(
        path,
        format!("expected one of {expected}, found {found}"),
    ))
}

/// Parses one line of JSON; the error is `invalid JSON: ... (column C)`.
pub(crate) fn parse_line(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|err| {
        format!(
            "invalid JSON: {} (column {})",
            syntax_message(&err),
            err.column().max(1)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accessors_name_the_path_and_the_type_found() {
        let doc = json!({"a": 1, "b": "x", "c": null, "d": [1], "e": -3, "f": 2.5});
        let o = object(&doc, "$").unwrap();
        assert_eq!(
            field(o, "$", "z").unwrap_err(),
            Problem::new("$.z", "missing required field")
        );
        assert_eq!(
            string(&doc["a"], "$.a").unwrap_err().message,
            "expected a string, found number"
        );
        assert_eq!(
            number(&doc["b"], "$.b").unwrap_err().message,
            "expected a number, found string"
        );
        assert_eq!(
            count(&doc["e"], "$.e").unwrap_err().message,
            "expected a non-negative integer, found -3"
        );
        assert_eq!(
            count(&doc["f"], "$.f").unwrap_err().message,
            "expected a non-negative integer, found number 2.5"
        );
        assert_eq!(count(&doc["a"], "$.a"), Ok(1));
        assert_eq!(
            score(&json!(100.5), "$.s").unwrap_err().message,
            "expected a score within 0..100, found 100.5"
        );
        assert_eq!(score(&json!(100), "$.s"), Ok(100.0));
        assert_eq!(opt_string(o, "$", "c"), Ok(None));
        assert_eq!(opt_string(o, "$", "b"), Ok(Some("x".into())));
        assert_eq!(
            word(&doc["b"], "$.b", &["p", "q"]).unwrap_err().message,
            "expected one of \"p\", \"q\", found \"x\""
        );
        assert_eq!(
            word(&doc["d"], "$.d", &["p"]).unwrap_err().message,
            "expected one of \"p\", found array"
        );
        assert_eq!(index(&child("$", "d"), 0), "$.d[0]");
    }

    #[test]
    fn documents_report_syntax_errors_with_line_and_column() {
        let file = Path::new("in.json");
        assert_eq!(
            parse_document(file, b"{\n  \"a\": 1,\n}")
                .unwrap_err()
                .to_string(),
            "in.json:3:1: invalid JSON: trailing comma"
        );
        assert_eq!(
            parse_document(file, b"\xFF\xFE{}").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(parse_document(file, b"\xEF\xBB\xBF{}").unwrap(), json!({}));
    }
}
