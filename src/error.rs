//! The one error type of run-check. A failing *check* is never an `Error`: it is
//! data in the evidence. An `Error` means the run cannot be judged (exit 2).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use run_check_documents::exit_code;

/// Everything that stops run-check from producing a judgement.
#[derive(Debug)]
pub(crate) enum Error {
    /// checks.toml is missing, malformed or violates a rule of docs/checks-toml.md.
    Config {
        /// The config file as the user would name it.
        path: PathBuf,
        /// 1-based line and column of the offending item, when known.
        location: Option<(usize, usize)>,
        /// The key at fault, e.g. `check.timeout` of check `clippy`.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A JSON input (evidence, a task, votes, a judge history, retry state,
    /// an aggregator input) is malformed or breaks a rule; `key` is the
    /// JSON path.
    Input {
        /// The file as the user named it (`-` for stdin).
        path: PathBuf,
        /// 1-based line and column, when known.
        location: Option<(usize, usize)>,
        /// The JSON path at fault, e.g. `$.checks[0].exit_code`.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// What run-check needs from its environment failed: git could not say
    /// the worktree's status, a snapshot could not be taken.
    Environment(String),
    /// A file could not be read or written.
    Io {
        /// What run-check was doing, as a "failed to ..." fragment.
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Bad command-line usage that clap could not catch (e.g. `--only` naming no check).
    Usage(String),
    /// A bug or an environment failure that is not the user's input.
    Internal(String),
}

impl Error {
    /// The exit code this error maps to. All errors are ERROR (2) today; the
    /// single match keeps any future distinction in one place.
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            Error::Config { .. }
            | Error::Input { .. }
            | Error::Environment(_)
            | Error::Io { .. }
            | Error::Usage(_)
            | Error::Internal(_) => exit_code::ERROR,
        }
    }

    /// A config error at a byte span of `source`.
    pub(crate) fn config_at(
        path: &Path,
        source: &str,
        span: Option<std::ops::Range<usize>>,
        key: Option<String>,
        message: impl Into<String>,
    ) -> Error {
        Error::Config {
            path: path.to_path_buf(),
            location: span.map(|s| line_col(source, s.start)),
            key,
            message: message.into(),
        }
    }

    pub(crate) fn io(action: &'static str, path: &Path, source: io::Error) -> Error {
        Error::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config {
                path,
                location,
                key,
                message,
            }
            | Error::Input {
                path,
                location,
                key,
                message,
            } => {
                write!(f, "{}", path.display())?;
                if let Some((line, column)) = location {
                    write!(f, ":{line}:{column}")?;
                }
                write!(f, ": ")?;
                if let Some(key) = key {
                    write!(f, "{key}: ")?;
                }
                write!(f, "{}", crate::sanitize::one_line(message, usize::MAX))
            }
            Error::Io {
                action,
                path,
                source,
            } => write!(f, "failed to {action} `{}`: {source}", path.display()),
            Error::Usage(message) | Error::Environment(message) | Error::Internal(message) => {
                write!(f, "{message}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let text = "a = 1\nbb = 2\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        assert_eq!(line_col(text, 8), (2, 3));
        assert_eq!(line_col(text, 999), (3, 1));
    }

    #[test]
    fn config_error_is_one_line() {
        let err = Error::config_at(
            Path::new("checks.toml"),
            "x\ny = 1\n",
            Some(2..3),
            Some("settings.y".into()),
            "unknown\n  key",
        );
        assert_eq!(err.to_string(), "checks.toml:2:1: settings.y: unknown key");
        assert_eq!(err.exit_code(), 2);
    }

    /// A message may quote the file (a key a repository's checks.toml
    /// holds): its escapes never reach the terminal.
    #[test]
    fn config_error_is_shown_safely() {
        let err = Error::config_at(
            Path::new("checks.toml"),
            "x = 1\n",
            None,
            None,
            "unknown key `\u{1b}]0;title\u{7}a\u{1b}[2Jb`\n::error::c",
        );
        assert_eq!(
            err.to_string(),
            "checks.toml: unknown key `ab` \\::error::c"
        );
    }
}
