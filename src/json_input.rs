//! Reading user-supplied JSON documents into the types of
//! `run-check-documents` (evidence for judge, merge and retry; the judge's
//! aggregator input, the retry state, vote inputs, task files) through
//! [`typed`] and [`evidence`], and JSON lines through [`parse_line`]. One
//! place for the input size budget and the user-facing error of a
//! document's problem (`FILE: $.checks[2].status: expected a string, found
//! number 3`), so every command words them the same way; the wording itself
//! and the one integer rule live in `run_check_documents::read` and `::int`.

use std::path::Path;

use serde_json::Value;

use crate::error::Error;
use run_check_documents::evidence::Evidence;

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

/// Reads a document of the `run-check-documents` crate (or a plain JSON
/// value) from `bytes`: a UTF-8 byte-order mark is skipped; UTF-16 and
/// syntax errors are one-line errors naming `file`, line and column, shape
/// errors name the JSON path; a document of more than [`MAX_VALUES`] values
/// is refused before it is parsed.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(file: &Path, bytes: &[u8]) -> Result<T, Error> {
    within_budget(file, bytes)?;
    run_check_documents::read::from_slice(bytes).map_err(|problem| from_problem(file, problem))
}

/// Reads an evidence document: the one reader of judge, merge and retry.
pub(crate) fn evidence(file: &Path, bytes: &[u8]) -> Result<Evidence, Error> {
    within_budget(file, bytes)?;
    Evidence::from_slice(bytes).map_err(|problem| from_problem(file, problem))
}

/// Reads the evidence file at `path` (within `bounded::JSON`) as
/// [`evidence`] does: `merge`'s inputs, `--timings` and `--baseline`.
pub(crate) fn evidence_file(path: &Path) -> Result<Evidence, Error> {
    let bytes = crate::bounded::read(path, crate::bounded::JSON)
        .map_err(|err| Error::io("read evidence", path, err))?;
    evidence(path, &bytes)
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
            run_check_documents::read::message(&err),
            err.column().max(1)
        )
    })
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
        let err = typed::<Value>(Path::new("big.json"), too_many.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "big.json: more than 1000000 JSON values, the limit for one input"
        );
        assert_eq!(
            parse_line(&too_many),
            Err("more than 1000000 JSON values, the limit for one input".into())
        );
        let fine = format!("[{}0]", "0,".repeat(1000));
        assert!(typed::<Value>(Path::new("ok.json"), fine.as_bytes()).is_ok());
    }

    #[test]
    fn encodings_and_syntax_errors() {
        let file = Path::new("in.json");
        assert_eq!(
            typed::<Value>(file, b"\xEF\xBB\xBF{\"a\": 1}").unwrap()["a"],
            1
        );
        assert_eq!(typed::<Value>(file, b"\xEF\xBB\xBF{}").unwrap(), json!({}));
        assert_eq!(
            typed::<Value>(file, b"\xFF\xFE{").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(
            typed::<Value>(file, b"\xFF\xFE{}").unwrap_err().to_string(),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        assert_eq!(
            typed::<Value>(file, b"{\n  \"a\": 1,\n}")
                .unwrap_err()
                .to_string(),
            "in.json:3:1: invalid JSON: trailing comma"
        );
        let file = Path::new("s.json");
        let err = typed::<Value>(file, b"{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!(err.to_string(), "s.json:2:8: invalid JSON: expected value");
        let err = typed::<Value>(file, b"").unwrap_err();
        assert!(
            err.to_string().starts_with("s.json:1:1: invalid JSON: EOF"),
            "{err}"
        );
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
}
