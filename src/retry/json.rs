//! Reading untrusted JSON (evidence documents, the state file) with the JSON
//! path of every problem, so an error names exactly what is wrong
//! (`$.summary.exit_code: missing required field`). A view of one object
//! whose members are all required, built on the shared accessors of
//! [`crate::json_input`]; a member of the wrong type is named with its
//! value when it is a number (`expected a string, found number 3`). Nothing
//! here touches files.

use serde_json::{Map, Value};

use crate::json_input::{
    Access, child, closed, field, found, mismatch, object, schema_version, strings, word,
};

/// A JSON object and its path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Obj<'a> {
    /// `value` as an object at `path`.
    pub fn of(value: &'a Value, path: &'a str) -> Access<Obj<'a>> {
        Ok(Obj {
            map: object(value, path)?,
            path,
        })
    }

    /// The path of member `key`.
    pub fn path(&self, key: &str) -> String {
        child(self.path, key)
    }

    /// The document's `schema_version` (see [`schema_version`]).
    pub fn version(&self, what: &str, supported: u32) -> Access<()> {
        schema_version(self.map, what, u64::from(supported))
    }

    /// Rejects members not in `known` (see [`closed`]).
    pub fn only(&self, known: &[&str]) -> Access<()> {
        closed(self.map, self.path, known)
    }

    /// A required member.
    pub fn get(&self, key: &str) -> Access<&'a Value> {
        field(self.map, self.path, key)
    }

    /// A required string member.
    pub fn str(&self, key: &str) -> Access<&'a str> {
        self.typed(key, "a string", Value::as_str)
    }

    /// A required integer member, by the integer rule of every input
    /// (`2.0` is 2).
    pub fn int(&self, key: &str) -> Access<i64> {
        crate::json_input::integer(self.get(key)?, &self.path(key))
    }

    /// A required non-negative integer member, by the same rule.
    pub fn uint(&self, key: &str) -> Access<u64> {
        crate::json_input::integer(self.get(key)?, &self.path(key))
    }

    /// A required array member.
    pub fn array(&self, key: &str) -> Access<&'a [Value]> {
        self.typed(key, "an array", |v| v.as_array().map(Vec::as_slice))
    }

    /// A required array of strings.
    pub fn strings(&self, key: &str) -> Access<Vec<String>> {
        let items = self.array(key)?;
        Ok(strings(items, &self.path(key))?
            .into_iter()
            .map(str::to_string)
            .collect())
    }

    /// A required string member that is one of `words`.
    pub fn word<'w>(&self, key: &str, words: &[&'w str]) -> Access<&'w str> {
        self.str(key)?;
        word(self.get(key)?, &self.path(key), words)
    }

    /// The required member `key` as `get` reads it; another value is
    /// `expected WHAT, found ...`.
    fn typed<T>(
        &self,
        key: &str,
        what: &str,
        get: impl FnOnce(&'a Value) -> Option<T>,
    ) -> Access<T> {
        let value = self.get(key)?;
        get(value).ok_or_else(|| mismatch(&self.path(key), what, found(value)))
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
    fn numbers_of_the_wrong_type_are_named_with_their_value() {
        let value =
            json!({"s": 3, "w": 2.5, "i": 9_223_372_036_854_775_808_u64, "u": -3, "f": 1.0});
        let obj = Obj::of(&value, "$").unwrap();
        assert_eq!(
            obj.str("s").unwrap_err().message,
            "expected a string, found number 3"
        );
        assert_eq!(
            obj.word("w", &["y"]).unwrap_err().message,
            "expected a string, found number 2.5"
        );
        assert_eq!(
            obj.int("i").unwrap_err().message,
            "expected an integer from -9223372036854775808 to 9223372036854775807, \
             found number 9223372036854775808"
        );
        assert_eq!(
            obj.int("w").unwrap_err().message,
            "expected an integer, found number 2.5"
        );
        // The integer rule of every input: 1.0 is 1.
        assert_eq!(obj.uint("f"), Ok(1));
        assert_eq!(
            obj.uint("u").unwrap_err().message,
            "expected a non-negative integer, found number -3"
        );
        assert_eq!(obj.uint("s"), Ok(3));
        assert_eq!(obj.int("u"), Ok(-3));
        assert_eq!(
            Obj::of(&json!([]), "$").unwrap_err().message,
            "expected an object, found array"
        );
    }
}
