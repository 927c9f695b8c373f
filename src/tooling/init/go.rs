//! The Go detector: a go.mod gets `go vet` and `go test` over every package,
//! and `go fmt` as the fix.

use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, argv, globs, is_file};

/// go.mod: `go vet` and `go test` over every package.
pub(super) fn detect(root: &Path, _notes: &mut Vec<String>) -> Option<Found> {
    if !is_file(root, "go.mod") {
        return None;
    }
    Some(Found {
        ecosystem: "Go".into(),
        files: vec!["go.mod".into()],
        checks: vec![
            Check::new("vet", &["go", "vet", "./..."], FAST_STRICT)
                .paths(globs(&["**/*.go", "go.mod", "go.sum"]))
                .parser("go"),
            Check::new("test", &["go", "test", "./..."], STRICT).parser("go"),
        ],
        fixes: vec![Fix {
            name: "fmt".into(),
            run: argv(&["go", "fmt", "./..."]),
        }],
        refused: Vec::new(),
    })
}
