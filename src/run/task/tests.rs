use super::*;
use crate::run::changes::ChangesError;
use crate::run::snapshot::OwnFiles;
use crate::test_git::git;
use serde_json::{Value, json};

/// A valid task; tests change one thing at a time.
fn valid() -> Value {
    json!({
        "id": "T-2026-02-02-001",
        "title": "Add the task contract",
        "description": "Load --task files so the verifier can judge scope.",
        "risk": "medium",
        "parallel_count": 2,
        "acceptance": {
            "commands": ["cargo test", "run-check --mode strict --format json"],
            "criteria": ["summary.all_checks_passed = true"]
        },
        "estimated_loc": 250,
        "files_involved": ["src/task.rs", "tests/task.rs"],
        "public_contracts_touched": "N/A"
    })
}

fn parse(value: &Value) -> Result<Task, Error> {
    from_slice(Path::new("task.json"), value.to_string().as_bytes())
}

/// `valid()` with `pointer` set to `new` (or removed when `None`).
fn with(pointer: &str, new: Option<Value>) -> Value {
    let mut task = valid();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = task.pointer_mut(parent).unwrap();
    match new {
        Some(new) => match parent {
            Value::Array(items) => items[key.parse::<usize>().unwrap()] = new,
            Value::Object(map) => {
                map.insert(key.to_string(), new);
            }
            _ => unreachable!(),
        },
        None => {
            parent.as_object_mut().unwrap().remove(key);
        }
    }
    task
}

#[track_caller]
fn error(task: &Value) -> String {
    let err = parse(task).expect_err("an error");
    assert_eq!(err.exit_code(), 2);
    let message = err.to_string();
    assert!(!message.contains('\n'), "one line: {message}");
    message
}

#[track_caller]
fn violations(task: &Value) -> Vec<(String, String)> {
    parse(task)
        .unwrap_or_else(|e| panic!("{e}"))
        .violations
        .into_iter()
        .map(|v| (v.field, v.message))
        .collect()
}

fn one(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_string(), message.to_string())]
}

#[test]
fn a_valid_task_has_no_violations_and_keeps_unknown_fields() {
    let mut value = valid();
    value["owner"] = json!({"team": "gate"});
    value["acceptance"]["notes"] = json!(1);
    let task = parse(&value).unwrap();
    assert_eq!(serde_json::to_value(&task.document).unwrap(), value);
    assert_eq!(task.violations, []);
    assert_eq!(task.document.id, "T-2026-02-02-001");
    assert_eq!(
        serde_json::to_value(contract(&task)).unwrap(),
        json!({"id": "T-2026-02-02-001", "valid": true, "violations": []})
    );
}

#[test]
fn missing_fields_are_errors_in_document_order() {
    for (pointer, path) in [
        ("/id", "$.id"),
        ("/title", "$.title"),
        ("/description", "$.description"),
        ("/risk", "$.risk"),
        ("/parallel_count", "$.parallel_count"),
        ("/acceptance", "$.acceptance"),
        ("/acceptance/commands", "$.acceptance.commands"),
        ("/acceptance/criteria", "$.acceptance.criteria"),
        ("/estimated_loc", "$.estimated_loc"),
        ("/files_involved", "$.files_involved"),
        ("/public_contracts_touched", "$.public_contracts_touched"),
    ] {
        assert_eq!(
            error(&with(pointer, None)),
            format!("task.json: {path}: missing required field")
        );
    }
    // Two problems: the first read is reported; a missing field is
    // known at the end of its object.
    let mut task = with("/estimated_loc", Some(json!("many")));
    task.as_object_mut().unwrap().remove("title");
    assert_eq!(
        error(&task),
        "task.json: $.estimated_loc: expected a non-negative integer, found string"
    );
}

#[test]
fn wrong_types_name_the_json_path() {
    let cases = [
        ("/id", json!(7), "$.id: expected a string, found number 7"),
        (
            "/title",
            json!(null),
            "$.title: expected a string, found null",
        ),
        (
            "/description",
            json!(["a"]),
            "$.description: expected a string, found array",
        ),
        (
            "/risk",
            json!("extreme"),
            "$.risk: expected one of \"low\", \"medium\", \"high\", found \"extreme\"",
        ),
        (
            "/risk",
            json!("High"),
            "$.risk: expected one of \"low\", \"medium\", \"high\", found \"High\"",
        ),
        (
            "/risk",
            json!(3),
            "$.risk: expected a string, found number 3",
        ),
        (
            "/parallel_count",
            json!("2"),
            "$.parallel_count: expected an integer, found string",
        ),
        (
            "/parallel_count",
            json!(2.5),
            "$.parallel_count: expected an integer, found number 2.5",
        ),
        (
            "/acceptance",
            json!(["run-check --mode strict --format json"]),
            "$.acceptance: expected an object, found array",
        ),
        (
            "/acceptance/commands",
            json!("run-check --mode strict --format json"),
            "$.acceptance.commands: expected an array, found string",
        ),
        (
            "/acceptance/commands/1",
            json!(42),
            "$.acceptance.commands[1]: expected a string, found number 42",
        ),
        (
            "/acceptance/criteria",
            json!(true),
            "$.acceptance.criteria: expected a string or an array of strings, found boolean",
        ),
        (
            "/acceptance/criteria/0",
            json!({"text": "x"}),
            "$.acceptance.criteria[0]: expected a string, found object",
        ),
        (
            "/estimated_loc",
            json!("250"),
            "$.estimated_loc: expected a non-negative integer, found string",
        ),
        (
            "/estimated_loc",
            json!(-1),
            "$.estimated_loc: expected a non-negative integer, found number -1",
        ),
        (
            "/estimated_loc",
            json!(-1.0),
            "$.estimated_loc: expected a non-negative integer, found number -1.0",
        ),
        (
            "/estimated_loc",
            json!(0.1),
            "$.estimated_loc: expected a non-negative integer, found number 0.1",
        ),
        (
            "/files_involved",
            json!("src/task.rs"),
            "$.files_involved: expected an array, found string",
        ),
        (
            "/files_involved/1",
            json!(null),
            "$.files_involved[1]: expected a string, found null",
        ),
        (
            "/public_contracts_touched",
            json!(null),
            "$.public_contracts_touched: expected a string or an array of strings, found null",
        ),
        (
            "/public_contracts_touched",
            json!(["cli", 2]),
            "$.public_contracts_touched[1]: expected a string, found number 2",
        ),
    ];
    for (pointer, new, expected) in cases {
        assert_eq!(
            error(&with(pointer, Some(new))),
            format!("task.json: {expected}"),
            "{pointer}"
        );
    }
    assert_eq!(
        error(&json!([valid()])),
        "task.json: $: expected an object, found array"
    );
}

#[test]
fn unparsable_files_name_line_and_column() {
    let path = Path::new("runs/T-1/task.json");
    let err = from_slice(path, b"{\n  \"id\": \"T-1\",\n}\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "runs/T-1/task.json:3:1: invalid JSON: trailing comma"
    );
    assert_eq!(
        from_slice(path, b"").unwrap_err().to_string(),
        "runs/T-1/task.json:1:1: invalid JSON: EOF while parsing a value"
    );
    assert_eq!(
        from_slice(path, format!("{} {{}}", valid()).as_bytes())
            .unwrap_err()
            .to_string(),
        format!(
            "runs/T-1/task.json:1:{}: invalid JSON: trailing characters",
            valid().to_string().len() + 2
        )
    );
    assert_eq!(
        from_slice(path, b"\xFF\xFE{\0}\0").unwrap_err().to_string(),
        "runs/T-1/task.json: the file is UTF-16 encoded; save it as UTF-8"
    );
    // A UTF-8 byte order mark is skipped.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(valid().to_string().bytes());
    assert_eq!(from_slice(path, &bom).unwrap(), parse(&valid()).unwrap());
}

#[test]
fn an_unreadable_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let err = load(&missing).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "failed to read task file `{}`: ",
            missing.display()
        )),
        "{err}"
    );
    assert_eq!(err.exit_code(), 2);
    assert!(matches!(load(dir.path()), Err(Error::Io { .. })));

    let file = dir.path().join("task.json");
    std::fs::write(&file, valid().to_string()).unwrap();
    assert_eq!(load(&file).unwrap(), parse(&valid()).unwrap());
}

#[test]
fn estimated_loc_boundary() {
    assert_eq!(violations(&with("/estimated_loc", Some(json!(0)))), []);
    assert_eq!(violations(&with("/estimated_loc", Some(json!(400)))), []);
    assert_eq!(
        violations(&with("/estimated_loc", Some(json!(401)))),
        one("estimated_loc", "401 exceeds the hard limit of 400")
    );
    // Beyond i64: still an integer, still a violation.
    assert_eq!(
        violations(&with("/estimated_loc", Some(json!(u64::MAX)))),
        one(
            "estimated_loc",
            "18446744073709551615 exceeds the hard limit of 400"
        )
    );
}

#[test]
fn integers_are_integers_in_json_schema_s_sense() {
    // The published schema's `"type": "integer"` accepts these, so the
    // loader does too (README: task contract).
    assert_eq!(violations(&with("/parallel_count", Some(json!(2.0)))), []);
    assert_eq!(violations(&with("/estimated_loc", Some(json!(100.0)))), []);
    assert_eq!(violations(&with("/estimated_loc", Some(json!(-0.0)))), []);
    assert_eq!(
        violations(&with("/parallel_count", Some(json!(6.0)))),
        one("parallel_count", "must be between 1 and 5, found 6")
    );
    // An integer too big for 64 bits is read as a float: a violation
    // (named by the integer the float holds), not an error.
    let task = valid().to_string().replace(
        "\"estimated_loc\":250",
        "\"estimated_loc\":1000000000000000000000000000000",
    );
    assert!(task.contains("1000000000000000000000000000000"), "{task}");
    let task: Value = serde_json::from_str(&task).unwrap();
    assert_eq!(
        violations(&task),
        one(
            "estimated_loc",
            "1000000000000000019884624838656 exceeds the hard limit of 400"
        )
    );
    assert_eq!(
        violations(&with("/parallel_count", Some(json!(1e300)))),
        one(
            "parallel_count",
            "must be between 1 and 5, found 170141183460469231731687303715884105727"
        )
    );
}

#[test]
fn files_involved_boundary() {
    let files = |n: usize| json!((0..n).map(|i| format!("src/f{i}.rs")).collect::<Vec<_>>());
    assert_eq!(violations(&with("/files_involved", Some(files(0)))), []);
    assert_eq!(violations(&with("/files_involved", Some(files(10)))), []);
    assert_eq!(
        violations(&with("/files_involved", Some(files(11)))),
        one("files_involved", "11 files exceed the hard limit of 10")
    );
}

#[test]
fn parallel_count_boundary_and_risk_is_only_a_suggestion() {
    for n in [1, 5] {
        assert_eq!(violations(&with("/parallel_count", Some(json!(n)))), []);
    }
    for n in [0, 6, -1] {
        assert_eq!(
            violations(&with("/parallel_count", Some(json!(n)))),
            one(
                "parallel_count",
                &format!("must be between 1 and 5, found {n}")
            )
        );
    }
    // The reference's low=1, medium=2, high=3-5 is a suggestion.
    let mut task = with("/risk", Some(json!("high")));
    task["parallel_count"] = json!(1);
    assert_eq!(violations(&task), []);
    let mut task = with("/risk", Some(json!("low")));
    task["parallel_count"] = json!(5);
    assert_eq!(violations(&task), []);
}

#[test]
fn blank_texts_are_violations() {
    for name in ["id", "title", "description"] {
        assert_eq!(
            violations(&with(&format!("/{name}"), Some(json!("  ")))),
            one(name, "must not be empty")
        );
    }
    for criteria in [json!(""), json!([]), json!(["", " "])] {
        assert_eq!(
            violations(&with("/acceptance/criteria", Some(criteria))),
            one("acceptance.criteria", "must state at least one criterion")
        );
    }
    assert_eq!(
        violations(&with("/acceptance/criteria", Some(json!("tests pass")))),
        []
    );
}

#[test]
fn public_contracts_touched_forms() {
    for ok in [
        json!("N/A"),
        json!("evidence JSON gains contracts.task"),
        json!(["evidence.contracts.task", "--task"]),
        json!(["N/A"]),
        json!(["--task", ""]),
    ] {
        assert_eq!(violations(&with("/public_contracts_touched", Some(ok))), []);
    }
    // As for `acceptance.criteria`: nothing stated is a violation, in
    // either form.
    for blank in [
        json!(""),
        json!(" "),
        json!([]),
        json!([""]),
        json!(["", " "]),
    ] {
        assert_eq!(
            violations(&with("/public_contracts_touched", Some(blank))),
            one(
                "public_contracts_touched",
                "must not be empty; use \"N/A\" when no public contract is touched"
            )
        );
    }
}

#[test]
fn violations_are_listed_in_schema_order_with_the_contract() {
    let mut task = valid();
    task["id"] = json!("");
    task["parallel_count"] = json!(6);
    task["acceptance"]["commands"] = json!(["cargo test"]);
    task["estimated_loc"] = json!(401);
    task["files_involved"] = json!(vec!["f"; 11]);
    let task = parse(&task).unwrap();
    assert_eq!(
        serde_json::to_value(contract(&task)).unwrap(),
        json!({"id": "", "valid": false, "violations": [
            {"field": "id", "message": "must not be empty"},
            {"field": "parallel_count", "message": "must be between 1 and 5, found 6"},
            {"field": "acceptance.commands",
             "message": "no command runs `run-check --mode strict --format json`"},
            {"field": "estimated_loc", "message": "401 exceeds the hard limit of 400"},
            {"field": "files_involved", "message": "11 files exceed the hard limit of 10"},
        ]})
    );
}

#[test]
fn acceptance_commands_without_the_strict_gate() {
    assert_eq!(
        violations(&with("/acceptance/commands", Some(json!([])))),
        one(
            "acceptance.commands",
            "no command runs `run-check --mode strict --format json`"
        )
    );
}

/// The schema accepts exactly the task files `--task` loads (limits
/// are violations, not errors, so they pass both).
#[test]
fn the_schema_and_the_loader_agree() {
    let schema = run_check_documents::schema::by_name("task").unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let cases: Vec<(&str, Value)> = vec![
        ("/parallel_count", json!(2.0)),
        ("/parallel_count", json!(9)),
        ("/parallel_count", json!(1.5)),
        ("/parallel_count", json!("2")),
        ("/estimated_loc", json!(100.0)),
        ("/estimated_loc", json!(1e30)),
        ("/estimated_loc", json!(u64::MAX)),
        ("/estimated_loc", json!(-1)),
        ("/estimated_loc", json!(-1.0)),
        ("/estimated_loc", json!(0.5)),
        ("/risk", json!("High")),
        ("/risk", json!(3)),
        ("/acceptance/criteria", json!([])),
        ("/acceptance/criteria", json!([1])),
        ("/acceptance/commands", json!("x")),
        ("/acceptance/notes", json!(1)),
        ("/files_involved", json!(vec!["f"; 11])),
        ("/public_contracts_touched", json!([])),
        ("/public_contracts_touched", json!(null)),
        ("/title", json!("")),
        ("/owner", json!({"kept": true})),
        ("/base", json!("v1.2")),
        ("/base", json!("")),
        ("/base", json!("  ")),
        ("/base", json!(7)),
        ("/base", json!(null)),
    ];
    for (pointer, value) in cases {
        let task = with(pointer, Some(value.clone()));
        let schema_ok = validator.is_valid(&task);
        let loaded = parse(&task);
        assert_eq!(
            schema_ok,
            loaded.is_ok(),
            "{pointer} = {value}: schema {schema_ok}, loader {loaded:?}"
        );
    }
    // The big integer as a planner writes it, not through f64.
    let text = valid().to_string().replace(
        "\"estimated_loc\":250",
        "\"estimated_loc\":1000000000000000000000000000000",
    );
    let task: Value = serde_json::from_str(&text).unwrap();
    assert!(validator.is_valid(&task));
    assert!(from_slice(Path::new("t.json"), text.as_bytes()).is_ok());
}

/// `n` lines.
fn lines(n: usize) -> String {
    "x\n".repeat(n)
}

#[test]
fn change_budget_counts_files_and_lines_at_the_limits() {
    let budget_at = |root: &Path, base: &str| {
        let (repo, status) = crate::git::Opening::start(root)
            .unwrap()
            .finish_with(|_, _| ())
            .map(|(repo, status, ())| (repo, status))
            .unwrap();
        changes::changed(&repo, &status.unwrap(), root, base, &OwnFiles::default())
            .map(|changes| budget(&changes))
            .map(|budget| serde_json::to_value(budget).unwrap())
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("tracked.txt"), "a\nb\n").unwrap();
    std::fs::write(root.join(".gitignore"), "runs/\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let budget = |files: usize, loc: u64, exceeded: bool| {
        json!({"base": "HEAD", "files_changed": files, "loc_changed": loc,
               "max_files": 10, "max_loc": 400, "exceeded": exceeded})
    };
    assert_eq!(budget_at(&root, "HEAD").unwrap(), budget(0, 0, false));

    // 1 tracked line changed (2: one added, one deleted) + 9 untracked
    // files of 398 lines = 10 files, 400 lines: at the limits.
    std::fs::write(root.join("tracked.txt"), "a\nB\n").unwrap();
    std::fs::write(root.join("big.txt"), lines(390)).unwrap();
    for i in 0..8 {
        std::fs::write(root.join(format!("f{i}.txt")), lines(1)).unwrap();
    }
    // Ignored files never count.
    std::fs::create_dir(root.join("runs")).unwrap();
    std::fs::write(root.join("runs/task.json"), lines(1000)).unwrap();
    assert_eq!(budget_at(&root, "HEAD").unwrap(), budget(10, 400, false));

    // 401 lines.
    std::fs::write(root.join("big.txt"), lines(391)).unwrap();
    assert_eq!(budget_at(&root, "HEAD").unwrap(), budget(10, 401, true));

    // 11 files, 400 lines (an empty file is a changed file of 0 lines).
    std::fs::write(root.join("big.txt"), lines(390)).unwrap();
    std::fs::write(root.join("empty.txt"), "").unwrap();
    assert_eq!(budget_at(&root, "HEAD").unwrap(), budget(11, 400, true));

    assert!(matches!(
        budget_at(&root, "no-such-rev"),
        Err(ChangesError::BadRevision(_))
    ));
}
