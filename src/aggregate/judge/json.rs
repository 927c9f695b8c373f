//! The judge's own value rules, built on the shared accessors of
//! [`crate::json_input`]: a score within `0..100`.

use serde_json::Value;

use crate::json_input::{Access, Problem, number};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores() {
        let doc = json!({"b": "x"});
        assert_eq!(
            score(&json!(100.5), "$.s").unwrap_err().message,
            "expected a score within 0..100, found 100.5"
        );
        assert_eq!(score(&json!(100), "$.s"), Ok(100.0));
        assert_eq!(
            score(&doc["b"], "$.b").unwrap_err().message,
            "expected a number, found string"
        );
    }
}
