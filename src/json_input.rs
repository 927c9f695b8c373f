//! Reading user-supplied JSON documents (task files, vote inputs, judge
//! inputs, retry state, shard evidence): one place for the encoding rules and
//! the one-line syntax errors, so every command words them the same way.

use std::path::Path;

use serde_json::Value;

use crate::error::Error;

/// Parses a JSON document: a UTF-8 byte-order mark is skipped; UTF-16 and
/// syntax errors are one-line errors naming `file`, line and column.
pub fn parse_document(file: &Path, bytes: &[u8]) -> Result<Value, Error> {
    let error = |location, message: String| Error::Config {
        path: file.to_path_buf(),
        location,
        key: None,
        message,
    };
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(error(
            None,
            "the file is UTF-16 encoded; save it as UTF-8".into(),
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|err| {
        error(
            Some((err.line(), err.column().max(1))),
            format!("invalid JSON: {}", syntax_message(&err)),
        )
    })
}

/// serde_json's message without its trailing ` at line L column C` (the
/// location is reported separately).
pub fn syntax_message(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    message
        .strip_suffix(&suffix)
        .unwrap_or(&message)
        .to_string()
}

/// The JSON type of `value`, for messages (`expected a string, found number`).
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_and_syntax_errors() {
        let file = Path::new("in.json");
        assert_eq!(
            parse_document(file, b"\xEF\xBB\xBF{\"a\": 1}").unwrap()["a"],
            1
        );
        assert_eq!(
            parse_document(file, b"\xFF\xFE{").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(
            parse_document(file, b"{\n  \"a\": 1,\n}")
                .unwrap_err()
                .to_string(),
            "in.json:3:1: invalid JSON: trailing comma"
        );
        assert_eq!(kind(&Value::Null), "null");
        assert_eq!(kind(&serde_json::json!([1])), "array");
    }
}
