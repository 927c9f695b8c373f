//! The task contract of `run-check --task`: one unit of work handed to a
//! coding agent. Integers follow the crate's rule (`2.0` is 2); one too big
//! for 64 bits is still an integer, over every limit.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::int;

/// A task contract (docs/task.md). Every field but `base` is required; unknown fields are allowed and kept. Limits (estimated_loc ≤ 400, files_involved ≤ 10, parallel_count 1..5, a `run-check --mode strict --format json` acceptance command, non-blank strings) are checked by run-check and reported as violations, not here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "run-check task contract")]
pub struct Task {
    /// Stable reference, e.g. `T-2026-02-02-001`.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// What to do and why (one intent).
    pub description: String,
    /// How risky the change is.
    #[serde(deserialize_with = "crate::read::word")]
    pub risk: Risk,
    /// Parallel candidate implementations (1..5; suggested: low 1, medium 2, high 3-5).
    #[serde(deserialize_with = "int::de")]
    pub parallel_count: i128,
    /// How the task is accepted.
    pub acceptance: Acceptance,
    /// Estimated lines changed (target 100-300, hard limit 400).
    #[serde(deserialize_with = "int::de")]
    pub estimated_loc: u128,
    /// Files expected to change (hard limit 10).
    pub files_involved: Vec<String>,
    /// Public interfaces or contracts changed: `"N/A"` if none, a description, or a list.
    pub public_contracts_touched: Texts,
    /// Optional: the git revision the change budget and `contracts.gate` are measured against when `--changed-since` is not given (e.g. the commit the task started from), so committed work counts.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "revision"
    )]
    #[schemars(with = "String", regex(pattern = r"\S"))]
    pub base: Option<String>,
    /// Fields run-check does not know, kept as given.
    #[serde(flatten)]
    #[schemars(skip)]
    pub unknown: Map<String, Value>,
}

/// `base`, when present: a string that is not blank (nor null).
fn revision<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let base = String::deserialize(deserializer)?;
    if base.trim().is_empty() {
        return Err(de::Error::custom(
            "must name a git revision, found an empty string",
        ));
    }
    Ok(Some(base))
}

/// `low`, `medium` or `high`.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
}

/// The commands and criteria a task is accepted by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Acceptance {
    /// Acceptance commands; must include `run-check --mode strict --format json`.
    pub commands: Vec<String>,
    /// Pass conditions (judged on the JSON evidence).
    pub criteria: Texts,
    /// Fields run-check does not know, kept as given.
    #[serde(flatten)]
    #[schemars(skip)]
    pub unknown: Map<String, Value>,
}

/// A string, or an array of strings.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[allow(missing_docs)]
pub enum Texts {
    One(String),
    Many(Vec<String>),
}

impl Texts {
    /// The strings, one or many.
    pub fn as_slice(&self) -> &[String] {
        match self {
            Texts::One(text) => std::slice::from_ref(text),
            Texts::Many(texts) => texts,
        }
    }
}

/// Not serde's untagged reading, whose error names no path inside the array.
impl<'de> Deserialize<'de> for Texts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Texts, D::Error> {
        struct TextsVisitor;
        impl<'de> Visitor<'de> for TextsVisitor {
            type Value = Texts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of strings")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Texts, E> {
                Ok(Texts::One(text.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Texts, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Texts::Many)
            }
        }
        deserializer.deserialize_any(TextsVisitor)
    }
}
