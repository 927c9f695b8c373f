use super::*;

#[test]
fn a_revision_is_plain_characters_never_an_option() {
    for good in [
        "main",
        "HEAD~2",
        "origin/main",
        "a1b2c3",
        "main@{1}",
        "v1.0^{commit}",
    ] {
        assert_eq!(revision(good), Ok(good));
    }
    for bad in [
        "",
        "--output=/tmp/x",
        "-x",
        "main; touch pwned",
        "$(touch pwned)",
        "`id`",
        "a b",
        "a\nb",
        "a|b",
    ] {
        let err = revision(bad).unwrap_err();
        assert!(err.contains("nothing ran"), "{bad}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
    assert!(revision(&"a".repeat(MAX_REVISION + 1)).is_err());
}

#[test]
fn a_history_per_selection() {
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(history_name(Mode::Strict, &[]), "history-strict.jsonl");
    assert_eq!(history_name(Mode::Fast, &[]), "history-fast.jsonl");
    let ab = history_name(Mode::Strict, &names(&["a", "b"]));
    assert_eq!(ab, history_name(Mode::Strict, &names(&["b", "a", "a"])));
    assert_ne!(ab, history_name(Mode::Strict, &names(&["a"])));
    assert!(ab.starts_with("history-strict-only-") && ab.ends_with(".jsonl"));
}

#[test]
fn mode_is_one_of_two_words() {
    assert_eq!(mode(None), Ok(Mode::Strict));
    assert_eq!(mode(Some("fast")), Ok(Mode::Fast));
    let err = mode(Some("strict && rm -rf /\u{1b}[31m")).unwrap_err();
    assert!(!err.contains('\u{1b}'), "{err}");
}

#[test]
fn fit_lines_keeps_the_tail_or_the_head_within_the_bound() {
    let lines: Vec<String> = (0..1000).map(|i| format!("line {i}")).collect();
    let tail = fit_lines(&lines, 300, false);
    assert!(tail.chars().count() <= 300, "{}", tail.chars().count());
    assert!(tail.starts_with('['), "{tail}");
    assert!(tail.ends_with("line 999"), "{tail}");
    let head = fit_lines(&lines, 300, true);
    assert!(head.chars().count() <= 300);
    assert!(head.starts_with("line 0\n"), "{head}");
    assert!(head.ends_with("left out]"), "{head}");
    assert_eq!(fit_lines(&lines[..2], 300, true), "line 0\nline 1");
}

#[test]
fn fit_values_caps_by_size_and_count() {
    let values: Vec<Value> = (0..1000).map(|i| json!({"n": i})).collect();
    let (kept, omitted) = fit_values(values.clone(), 100);
    assert_eq!(kept.len() as u64 + omitted, 1000);
    assert!(Value::Array(kept).to_string().len() <= 100 + 2);
    let (kept, omitted) = fit_values(values, usize::MAX);
    assert_eq!(
        (kept.len(), omitted),
        (MAX_ITEMS, (1000 - MAX_ITEMS) as u64)
    );
}

#[test]
fn unknown_keys_and_tools_run_nothing() {
    // An executable that cannot exist: any attempt to run it would
    // show as "cannot start", not as the argument error.
    let gate = Gate::new(
        PathBuf::from("/nonexistent/run-check"),
        PathBuf::from("/nonexistent"),
        PathBuf::from("/nonexistent/state"),
        4000,
    );
    let args = |v: Value| v.as_object().cloned().unwrap_or_default();
    assert_eq!(gate.call("sh", args(json!({})), &|| false), None);
    let reply = gate
        .call(
            "run_checks",
            args(json!({"command": "touch pwned"})),
            &|| false,
        )
        .unwrap();
    assert!(reply.is_error);
    assert!(
        reply.text.contains("unknown field `command`"),
        "{}",
        reply.text
    );
    let reply = gate
        .call(
            "run_checks",
            args(json!({"changed_since": "--upload-pack=touch pwned"})),
            &|| false,
        )
        .unwrap();
    assert!(
        reply.is_error && reply.text.contains("nothing ran"),
        "{}",
        reply.text
    );
    let reply = gate
        .call("run_checks", args(json!({"only": "tests"})), &|| false)
        .unwrap();
    assert!(
        reply.is_error && reply.text.contains("`only`"),
        "{}",
        reply.text
    );
    let reply = gate.call("judge", args(json!({})), &|| false).unwrap();
    assert!(
        reply.is_error && reply.text.contains("no run yet"),
        "{}",
        reply.text
    );
    let reply = gate
        .call(
            "check_output",
            args(json!({"check": "x", "tail_lines": 0})),
            &|| false,
        )
        .unwrap();
    assert!(
        reply.is_error && reply.text.contains("no run yet"),
        "{}",
        reply.text
    );
}

#[test]
fn every_tool_declares_the_output_schema_of_its_result_type() {
    for definition in definitions() {
        let schema = &definition.output_schema;
        // MCP: an outputSchema is an object schema.
        assert_eq!(schema["type"], "object", "{}", definition.name);
        assert_eq!(
            Some(schema),
            run_check_documents::mcp::output_schema(definition.name).as_ref()
        );
    }
    let names: Vec<&str> = definitions().iter().map(|d| d.name).collect();
    assert_eq!(names, run_check_documents::mcp::TOOLS);
}
