//! Reading untrusted JSON (evidence documents, the state file) with the JSON
//! path of every problem, so an error names exactly what is wrong
//! (`$.summary.exit_code: missing required field`). Nothing here touches files.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;

pub(crate) use crate::json_input::{kind, parse_document as parse};

/// A problem at a JSON path (`$`, `$.points[2].phase`).
#[derive(Debug)]
pub(crate) struct Problem {
    /// The JSON path.
    pub path: String,
    /// What is wrong, one line.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The error naming `file` and the JSON path.
    pub fn into_error(self, file: &Path) -> Error {
        Error::Config {
            path: file.to_path_buf(),
            location: None,
            key: Some(self.path),
            message: self.message,
        }
    }
}

/// A JSON object and its path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Obj<'a> {
    /// `value` as an object at `path`.
    pub fn of(value: &'a Value, path: &'a str) -> Result<Obj<'a>, Problem> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(Problem::new(
                path,
                format!("expected an object, found {}", kind(other)),
            )),
        }
    }

    /// The path of member `key`.
    pub fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// Rejects members not in `known` (the first in document order).
    pub fn only(&self, known: &[&str]) -> Result<(), Problem> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(Problem::new(
                self.path(key),
                format!("unknown field (expected one of {})", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    /// A required member.
    pub fn get(&self, key: &str) -> Result<&'a Value, Problem> {
        self.map
            .get(key)
            .ok_or_else(|| Problem::new(self.path(key), "missing required field"))
    }

    /// A required string member.
    pub fn str(&self, key: &str) -> Result<&'a str, Problem> {
        match self.get(key)? {
            Value::String(text) => Ok(text),
            other => Err(self.expected(key, "a string", other)),
        }
    }

    /// A required boolean member.
    pub fn bool(&self, key: &str) -> Result<bool, Problem> {
        match self.get(key)? {
            Value::Bool(b) => Ok(*b),
            other => Err(self.expected(key, "a boolean", other)),
        }
    }

    /// A required integer member (`2.0` is not one).
    pub fn int(&self, key: &str) -> Result<i64, Problem> {
        match self.get(key)? {
            Value::Number(n) if n.is_i64() => Ok(n.as_i64().unwrap_or_default()),
            other => Err(self.expected(key, "an integer", other)),
        }
    }

    /// A required non-negative integer member.
    pub fn uint(&self, key: &str) -> Result<u64, Problem> {
        match self.get(key)? {
            Value::Number(n) if n.is_u64() => Ok(n.as_u64().unwrap_or_default()),
            other => Err(self.expected(key, "a non-negative integer", other)),
        }
    }

    /// A required array member.
    pub fn array(&self, key: &str) -> Result<&'a [Value], Problem> {
        match self.get(key)? {
            Value::Array(items) => Ok(items),
            other => Err(self.expected(key, "an array", other)),
        }
    }

    /// A required array of strings.
    pub fn strings(&self, key: &str) -> Result<Vec<String>, Problem> {
        let items = self.array(key)?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(text) => Ok(text.clone()),
                other => Err(Problem::new(
                    format!("{}[{i}]", self.path(key)),
                    format!("expected a string, found {}", kind(other)),
                )),
            })
            .collect()
    }

    /// A required string member that is one of `words`.
    pub fn word(&self, key: &str, words: &[&str]) -> Result<&'a str, Problem> {
        let text = self.str(key)?;
        if words.contains(&text) {
            Ok(text)
        } else {
            let expected: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
            Err(Problem::new(
                self.path(key),
                format!("expected one of {}, found {text:?}", expected.join(", ")),
            ))
        }
    }

    fn expected(&self, key: &str, what: &str, found: &Value) -> Problem {
        let found = match found {
            Value::Number(n) => format!("number {n}"),
            other => kind(other).to_string(),
        };
        Problem::new(self.path(key), format!("expected {what}, found {found}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_name_the_path() {
        let value = json!({"a": {"b": "x", "n": 1.5, "list": ["ok", 3]}});
        let root = Obj::of(&value, "$").unwrap();
        let a = root.get("a").unwrap();
        let a = Obj::of(a, "$.a").unwrap();
        let err = a.int("b").unwrap_err();
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            ("$.a.b", "expected an integer, found string")
        );
        let err = a.uint("n").unwrap_err();
        assert_eq!(
            err.message,
            "expected a non-negative integer, found number 1.5"
        );
        let err = a.strings("list").unwrap_err();
        assert_eq!(err.path, "$.a.list[1]");
        let err = a.str("missing").unwrap_err();
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            ("$.a.missing", "missing required field")
        );
        let err = a.only(&["b", "n"]).unwrap_err();
        assert_eq!(err.path, "$.a.list");
        let err = a.word("b", &["y", "z"]).unwrap_err();
        assert_eq!(err.message, "expected one of \"y\", \"z\", found \"x\"");
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let err = parse(Path::new("s.json"), b"{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!(err.to_string(), "s.json:2:8: invalid JSON: expected value");
        let err = parse(Path::new("s.json"), b"").unwrap_err();
        assert!(
            err.to_string().starts_with("s.json:1:1: invalid JSON: EOF"),
            "{err}"
        );
        assert!(parse(Path::new("s.json"), b"\xEF\xBB\xBF{}").is_ok());
    }
}
