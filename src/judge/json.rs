//! The judge's own value rules, built on the shared accessors of
//! [`crate::json_input`]: a score within `0..100` and one of a set of words.

use serde_json::Value;

use crate::json_input::{Access, Problem, kind, number, one_of};

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

/// One of `words` (exactly as written); another string is named in quotes
/// as it is (`found "x"`), another type by its [`kind`].
pub(crate) fn word<'a>(value: &Value, path: &str, words: &[&'a str]) -> Access<&'a str> {
    let found = match value {
        Value::String(s) => match words.iter().find(|w| **w == s.as_str()) {
            Some(w) => return Ok(w),
            None => format!("\"{s}\""),
        },
        other => kind(other).to_string(),
    };
    Err(one_of(path, words, found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_and_words() {
        let doc = json!({"b": "x", "d": [1]});
        assert_eq!(
            score(&json!(100.5), "$.s").unwrap_err().message,
            "expected a score within 0..100, found 100.5"
        );
        assert_eq!(score(&json!(100), "$.s"), Ok(100.0));
        assert_eq!(
            score(&doc["b"], "$.b").unwrap_err().message,
            "expected a number, found string"
        );
        assert_eq!(word(&json!("q"), "$.w", &["p", "q"]), Ok("q"));
        assert_eq!(
            word(&doc["b"], "$.b", &["p", "q"]).unwrap_err().message,
            "expected one of \"p\", \"q\", found \"x\""
        );
        assert_eq!(
            word(&doc["d"], "$.d", &["p"]).unwrap_err().message,
            "expected one of \"p\", found array"
        );
        assert_eq!(
            word(&json!("a\"b"), "$.w", &["p"]).unwrap_err().message,
            "expected one of \"p\", found \"a\"b\""
        );
    }
}
