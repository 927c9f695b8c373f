use run_check_documents::candidates::Candidate as Entry;

use super::after::changeset_text;
use super::gate::verdict_of;
use super::inputs::safe_component;
use super::rank;
use crate::agent::gate::Ended;
use crate::aggregate::judge;
use crate::run::changes::FileChange;
use run_check_documents::exit_code;

#[test]
fn ids_must_be_one_safe_folder_name() {
    for bad in ["", " ", ".", "..", "a/b", "a\\b", "c:", "x\ny", "../x"] {
        assert!(safe_component(bad).is_err(), "{bad:?}");
    }
    for good in ["c1", "impl-2", "T-42", "é"] {
        assert!(safe_component(good).is_ok(), "{good:?}");
    }
}

fn entry(id: &str, passed: bool, score: Option<f64>, loc: Option<u64>) -> Entry {
    Entry {
        id: id.into(),
        rank: 0,
        passed,
        exit_code: if passed { 0 } else { 1 },
        banner: String::new(),
        overall_score: score,
        route: judge::verdict::Route::default(),
        retry_decision: None,
        files_changed: None,
        loc_changed: loc,
        dir: String::new(),
    }
}

#[test]
fn ranking_is_passed_score_lines_id() {
    let mut entries = vec![
        entry("e", false, None, Some(1)),
        entry("d", false, Some(90.0), Some(5)),
        entry("c", true, Some(80.0), None),
        entry("b", true, Some(80.0), Some(10)),
        entry("a", true, Some(80.0), Some(10)),
        entry("f", true, Some(95.0), Some(400)),
    ];
    rank(&mut entries);
    let order: Vec<(&str, u32)> = entries.iter().map(|e| (e.id.as_str(), e.rank)).collect();
    assert_eq!(
        order,
        [("f", 1), ("a", 2), ("b", 3), ("c", 4), ("d", 5), ("e", 6)]
    );
}

/// A gate's evidence as it would print it, and its exit code.
fn printed() -> (Vec<u8>, i32) {
    let evidence = crate::aggregate::judge::tests::evidence_with(vec![], vec![]);
    let code = evidence.summary.exit_code;
    (serde_json::to_vec(&evidence).unwrap(), code)
}

fn gated(ended: Ended, output: Result<&[u8], &str>) -> (i32, String, bool) {
    let output = output.map(<[u8]>::to_vec).map_err(str::to_string);
    let gated = verdict_of(ended, output, "error: the last line".into());
    (gated.code, gated.last_line, gated.evidence.is_some())
}

#[test]
fn the_verdict_is_the_gate_s_own_exit_status() {
    let (bytes, code) = printed();
    let other = if code == exit_code::PASS {
        exit_code::FAIL
    } else {
        exit_code::PASS
    };
    // Exited by itself, as its evidence says: its verdict.
    assert_eq!(
        gated(Ended::Code(code), Ok(&bytes)),
        (code, "error: the last line".into(), true)
    );
    // Killed: whatever its output holds is no verdict, and no result.
    assert_eq!(
        gated(Ended::Killed("killed by signal 9".into()), Ok(&bytes)),
        (
            2,
            "no verdict: the gate was killed by signal 9 before it finished".into(),
            false
        )
    );
    // Its exit code and its evidence disagree.
    assert_eq!(
        gated(Ended::Code(other), Ok(&bytes)),
        (
            2,
            format!("no verdict: the gate exited {other}, but its evidence says {code}"),
            false
        )
    );
    // A pass or a failure without evidence, or with a document that is
    // not one, is no result (exit 2, never 0 or 1).
    for exit in [0, 1] {
        assert_eq!(
            gated(Ended::Code(exit), Ok(b"")),
            (
                2,
                format!("no verdict: the gate exited {exit} but wrote no evidence"),
                false
            )
        );
        let (code, line, kept) = gated(Ended::Code(exit), Ok(b"{} {}"));
        assert_eq!((code, kept), (2, false));
        assert!(
            line.starts_with("no verdict: the gate's output is no evidence: "),
            "{line}"
        );
        assert_eq!(
            gated(Ended::Code(exit), Err("the gate's output: too large")),
            (2, "no verdict: the gate's output: too large".into(), false)
        );
    }
    // An error that stopped the gate keeps its own line and code.
    for exit in [2, 101, 130] {
        assert_eq!(
            gated(Ended::Code(exit), Ok(b"")),
            (exit, "error: the last line".into(), false)
        );
    }
}

#[test]
fn changeset_text_lists_binary_and_untracked_files() {
    let files = vec![
        FileChange {
            path: "a.rs".into(),
            lines: Some((3, 1)),
            untracked: false,
        },
        FileChange {
            path: "img.png".into(),
            lines: None,
            untracked: false,
        },
        FileChange {
            path: "new.txt".into(),
            lines: Some((2, 0)),
            untracked: true,
        },
    ];
    assert_eq!(
        changeset_text("HEAD", &Ok(files)),
        "changes against `HEAD`: 3 files, +5 -1\n     +3      -1  a.rs\n         \
         binary  img.png\n     +2      -0  new.txt (untracked)\n"
    );
}
