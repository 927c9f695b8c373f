//! The Go detector: a go.mod gets `go vet` and `go test` over every package,
//! and `go fmt` as the fix.

use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, globs, is_file};

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
                .parser("go")
                .comment("Every package builds and passes go vet's analyzers; the go parser locates each report at its file:line:col."),
            Check::new("test", &["go", "test", "./..."], STRICT)
                .parser("go")
                .comment("Every package's tests (go test runs vet's high-confidence checks too); the go parser names each failing test with its `file:line:` log. Since Go 1.16 go test never rewrites go.mod."),
        ],
        fixes: vec![Fix::new("fmt", &["go", "fmt", "./..."])],
        refused: Vec::new(),
    })
}
