//! Reading user-supplied JSON documents: the typed documents of
//! `run-check-documents` (evidence for judge, merge and retry; the retry
//! state, vote inputs, task files) through [`typed`] and [`evidence`], and
//! the one document still read by hand (the judge's aggregator input)
//! through [`parse_document`] and the accessors here. One place for
//! the encoding rules, the input size budget, the one-line syntax errors
//! and the JSON path of the first problem
//! (`$.checks[2].status: expected a string, found number 3`), so every
//! command words them the same way: a number found where something else was
//! expected is named with its value, a closed object's unknown member as
//! `unknown field (expected a, b or c)`, and integers follow one rule
//! (`run_check_documents::int`). The accessors never panic and never guess;
//! the rules of each hand-read document (which objects are closed, ranges,
//! defaults) stay with the command that reads it.

use std::fmt::Display;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::run::evidence::Evidence;

/// The most JSON values a document may hold, an object counting as
/// [`OBJECT_WEIGHT`]. A parsed value costs 32 bytes and more, an object's
/// map about 700 even with one member, so the budget keeps the parse of the
/// largest input (64 MiB, see `bounded`) under 200 MiB whatever its shape
/// (measured: a 64 MiB array of short strings, 180 MiB; of one-member
/// objects, under 100 MiB); without it a 64 MiB `[0,0,0,…]` parses into
/// 1 GiB. Evidence with tens of thousands of diagnostics fits.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// What an object counts for in [`MAX_VALUES`].
const OBJECT_WEIGHT: usize = 8;

/// Parses a JSON document: a UTF-8 byte-order mark is skipped; UTF-16 and
/// syntax errors are one-line errors naming `file`, line and column; a
/// document of more than [`MAX_VALUES`] values is refused before it is
/// parsed.
pub(crate) fn parse_document(file: &Path, bytes: &[u8]) -> Result<Value, Error> {
    typed(file, bytes)
}

/// Reads a document of the `run-check-documents` crate from `bytes` as
/// [`parse_document`] reads JSON, its shape errors naming `file` and the
/// JSON path.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(file: &Path, bytes: &[u8]) -> Result<T, Error> {
    within_budget(file, bytes)?;
    run_check_documents::read::from_slice(bytes).map_err(|problem| from_problem(file, problem))
}

/// Reads an evidence document: the one reader of judge, merge and retry.
pub(crate) fn evidence(file: &Path, bytes: &[u8]) -> Result<Evidence, Error> {
    within_budget(file, bytes)?;
    Evidence::from_slice(bytes).map_err(|problem| from_problem(file, problem))
}

fn within_budget(file: &Path, bytes: &[u8]) -> Result<(), Error> {
    if values(bytes) > MAX_VALUES {
        return Err(Error::Input {
            path: file.to_path_buf(),
            location: None,
            key: None,
            message: format!("more than {MAX_VALUES} JSON values, the limit for one input"),
        });
    }
    Ok(())
}

/// The user-facing error of a document's problem in `file`.
pub(crate) fn from_problem(file: &Path, problem: run_check_documents::read::Problem) -> Error {
    Error::Input {
        path: file.to_path_buf(),
        location: problem.location,
        key: problem.path,
        message: problem.message,
    }
}

/// An upper bound of the values in JSON text, an object counting as
/// [`OBJECT_WEIGHT`]: one, plus one per `[`, `,` and `:` and the weight per
/// `{` outside strings (a byte scan, no parse).
pub(crate) fn values(bytes: &[u8]) -> usize {
    let (mut count, mut string, mut escaped) = (1usize, false, false);
    for &byte in bytes {
        if string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => string = true,
                b'{' => count += OBJECT_WEIGHT,
                b'[' | b',' | b':' => count += 1,
                _ => {}
            }
        }
    }
    count
}

/// Parses one line of JSON (a JSON-lines file); the error is
/// `invalid JSON: ... (column C)`.
pub(crate) fn parse_line(text: &str) -> Result<Value, String> {
    if values(text.as_bytes()) > MAX_VALUES {
        return Err(format!(
            "more than {MAX_VALUES} JSON values, the limit for one input"
        ));
    }
    serde_json::from_str(text).map_err(|err| {
        format!(
            "invalid JSON: {} (column {})",
            syntax_message(&err),
            err.column().max(1)
        )
    })
}

/// serde_json's message without its trailing ` at line L column C` (the
/// location is reported separately).
pub(crate) fn syntax_message(err: &serde_json::Error) -> String {
    run_check_documents::read::message(err)
}

/// The JSON type of `value`, for messages (`expected a string, found number`).
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The JSON type of `value` with a number's value (`number 2.5`), for
/// messages where the type may be right but the number is not
/// (`expected an integer, found number 2.5`).
pub(crate) fn found(value: &Value) -> String {
    match value {
        Value::Number(n) => format!("number {n}"),
        other => kind(other).to_string(),
    }
}

/// A problem at a JSON path: a missing field, a value of the wrong type, or
/// a value a command's rules reject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// `$`, `$.a.b`, `$.a[3]`.
    pub(crate) path: String,
    /// What is wrong, one line.
    pub(crate) message: String,
}

impl Problem {
    /// A problem at `path`.
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The user-facing error: `FILE: $.path: message` (with `prefix`, e.g.
    /// `line 3: `, before the path).
    pub(crate) fn into_error(self, file: &Path, prefix: &str) -> Error {
        Error::Input {
            path: file.to_path_buf(),
            location: None,
            key: Some(format!("{prefix}{}", self.path)),
            message: self.message,
        }
    }
}

/// The result of a typed access.
pub(crate) type Access<T> = Result<T, Problem>;

pub(crate) use run_check_documents::read::child;

/// `path[index]`.
pub(crate) fn index(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// `expected WHAT, found FOUND` at `path` (`found` is usually [`kind`] or
/// [`found()`]).
pub(crate) fn mismatch(path: &str, what: &str, found: impl Display) -> Problem {
    Problem::new(path, format!("expected {what}, found {found}"))
}

/// An object.
pub(crate) fn object<'a>(value: &'a Value, path: &str) -> Access<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| mismatch(path, "an object", found(value)))
}

/// A required field of the object at `path`; its path is `path.name`.
pub(crate) fn field<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    name: &str,
) -> Access<&'a Value> {
    object
        .get(name)
        .ok_or_else(|| Problem::new(child(path, name), "missing required field"))
}

/// An optional field: absent and `null` are both `None`.
pub(crate) fn optional<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

/// A string.
pub(crate) fn string<'a>(value: &'a Value, path: &str) -> Access<&'a str> {
    value
        .as_str()
        .ok_or_else(|| mismatch(path, "a string", found(value)))
}

/// A string field, `null` or absent.
pub(crate) fn opt_string(
    object: &Map<String, Value>,
    path: &str,
    name: &str,
) -> Access<Option<String>> {
    optional(object, name)
        .map(|v| string(v, &child(path, name)).map(str::to_string))
        .transpose()
}

/// A boolean.
pub(crate) fn boolean(value: &Value, path: &str) -> Access<bool> {
    value
        .as_bool()
        .ok_or_else(|| mismatch(path, "a boolean", found(value)))
}

/// A finite number.
pub(crate) fn number(value: &Value, path: &str) -> Access<f64> {
    value
        .as_f64()
        .filter(|n| n.is_finite())
        .ok_or_else(|| mismatch(path, "a number", found(value)))
}

/// A non-negative integer by the integer rule of every input
/// (`run_check_documents::int`: `2.0` is 2, `2.5` is not an integer).
pub(crate) fn count(value: &Value, path: &str) -> Access<u64> {
    integer(value, path)
}

/// An integer of type `T` by the integer rule of every input
/// (`run_check_documents::int`): `expected a non-negative integer, found
/// number -3`.
pub(crate) fn integer<T: run_check_documents::int::Integer>(
    value: &Value,
    path: &str,
) -> Access<T> {
    use run_check_documents::int::what;
    match value {
        Value::Number(n) => match run_check_documents::int::of_number(n) {
            Some(whole) => run_check_documents::int::convert(whole, n)
                .map_err(|message| Problem::new(path, message)),
            None => Err(mismatch(path, what::<T>(), found(value))),
        },
        other => Err(mismatch(path, what::<T>(), found(other))),
    }
}

/// A non-negative integer that fits in `u32`.
pub(crate) fn count32(value: &Value, path: &str) -> Access<u32> {
    integer(value, path)
}

/// An array.
pub(crate) fn array<'a>(value: &'a Value, path: &str) -> Access<&'a [Value]> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| mismatch(path, "an array", found(value)))
}

/// `expected one of "a", "b", found FOUND` at `path`.
pub(crate) fn one_of(path: &str, words: &[&str], found: impl Display) -> Problem {
    let expected: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
    mismatch(path, &format!("one of {}", expected.join(", ")), found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_counted_outside_strings() {
        assert_eq!(values(b"0"), 1);
        assert_eq!(values(b"[0,0,0]"), 4);
        assert_eq!(
            values(br#"{"a": [1, 2], "b": "x,[{:\"]"}"#),
            6 + OBJECT_WEIGHT
        );
        let too_many = format!("[{}0]", "0,".repeat(MAX_VALUES));
        let err = parse_document(Path::new("big.json"), too_many.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "big.json: more than 1000000 JSON values, the limit for one input"
        );
        assert_eq!(
            parse_line(&too_many),
            Err("more than 1000000 JSON values, the limit for one input".into())
        );
        let fine = format!("[{}0]", "0,".repeat(1000));
        assert!(parse_document(Path::new("ok.json"), fine.as_bytes()).is_ok());
    }

    #[test]
    fn member_paths_quote_keys_that_are_not_identifiers() {
        assert_eq!(child("$", "votes"), "$.votes");
        assert_eq!(child("$", "_a1"), "$._a1");
        assert_eq!(child("$", "1a"), "$[\"1a\"]");
        assert_eq!(child("$", ""), "$[\"\"]");
        assert_eq!(child("$.x", "a\"b"), "$.x[\"a\\\"b\"]");
        assert_eq!(child("$", "候选"), "$[\"候选\"]");
    }

    #[test]
    fn encodings_and_syntax_errors() {
        let file = Path::new("in.json");
        assert_eq!(
            parse_document(file, b"\xEF\xBB\xBF{\"a\": 1}").unwrap()["a"],
            1
        );
        assert_eq!(parse_document(file, b"\xEF\xBB\xBF{}").unwrap(), json!({}));
        assert_eq!(
            parse_document(file, b"\xFF\xFE{").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(
            parse_document(file, b"\xFF\xFE{}").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(
            parse_document(file, b"{\n  \"a\": 1,\n}")
                .unwrap_err()
                .to_string(),
            "in.json:3:1: invalid JSON: trailing comma"
        );
        let file = Path::new("s.json");
        let err = parse_document(file, b"{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!(err.to_string(), "s.json:2:8: invalid JSON: expected value");
        let err = parse_document(file, b"").unwrap_err();
        assert!(
            err.to_string().starts_with("s.json:1:1: invalid JSON: EOF"),
            "{err}"
        );
        assert_eq!(kind(&Value::Null), "null");
        assert_eq!(kind(&json!([1])), "array");
    }

    #[test]
    fn lines_report_the_column() {
        assert_eq!(parse_line("{\"a\": [1]}"), Ok(json!({"a": [1]})));
        assert_eq!(
            parse_line("{\"a\": }"),
            Err("invalid JSON: expected value (column 7)".to_string())
        );
        assert_eq!(
            parse_line(""),
            Err("invalid JSON: EOF while parsing a value (column 1)".to_string())
        );
    }

    /// The message of a failed access.
    #[track_caller]
    fn message<T: std::fmt::Debug>(access: Access<T>) -> String {
        access.unwrap_err().message
    }

    #[test]
    fn accessors_name_the_path_and_the_type_found() {
        let doc = json!({"a": 1, "b": "x", "c": null, "d": [1], "e": -3, "f": 2.5});
        let o = object(&doc, "$").unwrap();
        assert_eq!(
            field(o, "$", "z").unwrap_err(),
            Problem::new("$.z", "missing required field")
        );
        assert_eq!(field(o, "$", "c"), Ok(&Value::Null));
        assert_eq!(optional(o, "c"), None);
        assert_eq!(optional(o, "a"), Some(&json!(1)));
        assert_eq!(
            object(&doc["d"], "$.d").unwrap_err(),
            Problem::new("$.d", "expected an object, found array")
        );
        for (found, expected) in [
            (
                message(string(&doc["a"], "$.a")),
                "a string, found number 1",
            ),
            (message(number(&doc["b"], "$.b")), "a number, found string"),
            (message(boolean(&doc["c"], "$.c")), "a boolean, found null"),
            (message(array(&doc["b"], "$.b")), "an array, found string"),
            (
                message(count(&doc["e"], "$.e")),
                "a non-negative integer, found number -3",
            ),
            (
                message(count(&doc["f"], "$.f")),
                "a non-negative integer, found number 2.5",
            ),
            (
                message(count(&doc["b"], "$.b")),
                "a non-negative integer, found string",
            ),
        ] {
            assert_eq!(found, format!("expected {expected}"));
        }
        assert_eq!(number(&doc["f"], "$.f"), Ok(2.5));
        assert_eq!(boolean(&json!(true), "$.t"), Ok(true));
        assert_eq!(array(&doc["d"], "$.d"), Ok(&[json!(1)][..]));
        assert_eq!(count(&doc["a"], "$.a"), Ok(1));
        // Integers in JSON Schema's sense: 2.0 is 2.
        assert_eq!(count(&json!(2.0), "$.n"), Ok(2));
        assert_eq!(count(&json!(9_007_199_254_740_992.0), "$.n"), Ok(1 << 53));
        assert!(count(&json!(1.9e19), "$.n").is_err());
        assert!(count(&json!(-0.5), "$.n").is_err());
        assert_eq!(
            count32(&json!(4_294_967_296_u64), "$.n").unwrap_err(),
            Problem::new(
                "$.n",
                "expected an integer from 0 to 4294967295, found number 4294967296"
            )
        );
        assert_eq!(count32(&json!(7), "$.n"), Ok(7));
        assert_eq!(opt_string(o, "$", "c"), Ok(None));
        assert_eq!(opt_string(o, "$", "z"), Ok(None));
        assert_eq!(opt_string(o, "$", "b"), Ok(Some("x".into())));
        assert_eq!(
            opt_string(o, "$", "a").unwrap_err(),
            Problem::new("$.a", "expected a string, found number 1")
        );
        assert_eq!(index(&child("$", "d"), 0), "$.d[0]");
    }

    #[test]
    fn one_of_and_found_values() {
        assert_eq!(
            one_of("$.s", &["pass"], "\"x\"").message,
            "expected one of \"pass\", found \"x\""
        );
        assert_eq!(found(&json!(2.0)), "number 2.0");
        assert_eq!(found(&json!(-3)), "number -3");
        assert_eq!(found(&json!("2")), "string");
        assert_eq!(
            mismatch("$.x", "an integer", found(&json!(1.5))),
            Problem::new("$.x", "expected an integer, found number 1.5")
        );
    }

    #[test]
    fn problems_become_config_errors_naming_file_and_path() {
        let problem = Problem::new("$.a[1]", "expected a string, found null");
        assert_eq!(
            problem
                .clone()
                .into_error(Path::new("in.json"), "")
                .to_string(),
            "in.json: $.a[1]: expected a string, found null"
        );
        let err = problem.into_error(Path::new("h.jsonl"), "line 3: ");
        assert_eq!(
            err.to_string(),
            "h.jsonl: line 3: $.a[1]: expected a string, found null"
        );
        assert_eq!(err.exit_code(), 2);
    }
}
