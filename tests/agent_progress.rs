//! An agent that makes progress is not called stalled: the scripted agent
//! of tests/agent_hooks.rs, fixing one located problem per stop from the
//! feedback alone, against ONE check that reports every problem (so the
//! check fails, and scores 0, until the last one is fixed), with the
//! judge's defaults.

use serde_json::Value;

use crate::agent_hooks::scripted_agent;

/// The scripted agent on a project whose one check is `lint.py all`, with
/// `app` as its first attempt; its summary.
fn scripted(extra_config: &str, app: &str) -> Value {
    let checks = format!(
        "[settings]\nallow = [\"python3\"]\n{extra_config}\n[[check]]\nname = \"lint\"\n\
         run = [\"python3\", \"lint.py\", \"all\"]\n"
    );
    scripted_agent(&checks, "feedback", Some(app))
}

#[test]
fn three_problems_in_one_failing_check_are_three_blocks_then_finish() {
    // The check stays red (score 0) until the third fix: by score alone the
    // judge would call the third stop STALLED_SCORE and let the agent go
    // with a defect left.
    let result = scripted("", "x = 0\na = 1  # BUG\ny = 0\n\tb = 2\nz = 0\nc = 3   \n");
    assert_eq!(result["repairs"], 3, "{result}");
    assert_eq!(
        result["stops"], 4,
        "three blocks, then a stop let go: {result}"
    );
    assert_eq!(
        result["released"],
        Value::Null,
        "let go on FINISH: {result}"
    );
    assert_eq!(result["passed"], true, "no defect left: {result}");
}

#[test]
fn ten_problems_are_blocked_while_max_blocks_allows_then_the_user_is_told_how_many_are_left() {
    let app: String = (1..=10).map(|n| format!("v{n} = {n}  # BUG\n")).collect();
    let result = scripted(
        "\n[agent]\nmax_blocks = 8\n\n[judge]\nmax_iterations = 20\n",
        &app,
    );
    assert_eq!(result["repairs"], 8, "{result}");
    assert_eq!(result["stops"], 9, "{result}");
    assert_eq!(result["passed"], false, "{result}");
    let told = result["released"].as_str().expect("the user is told");
    assert!(told.contains("2 problems"), "{told}");
    assert!(told.contains("max_blocks"), "{told}");
}
