//! `candidates create`, `cleanup` and `summary` (docs/candidates.md, "A
//! whole round"): a round played from the creation of three worktrees to
//! their cleanup after the winner's merge; the two ways a cleanup could
//! lose work (uncommitted changes, missing evidence) refused without
//! `--force`; and the root logs written byte-identically twice, the user's
//! own text kept and a candidate's log unable to break out of its section.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::candidates::{CHECKS, Project};
use crate::support::{bin, git};

/// `run-check candidates ARGS` started in `dir`.
fn candidates(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .arg("candidates")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn branches(repo: &Path) -> Vec<String> {
    git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/aggr/",
        ],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

/// A project whose three candidate worktrees were made by `create` and
/// committed to: c1 passes, c2 and c3 fail; gated once.
struct Round {
    project: Project,
    worktrees: Vec<PathBuf>,
}

impl Round {
    fn play() -> Round {
        let project = Project::new(CHECKS);
        let repo = project.path("repo");
        let made = candidates(&repo, &["create", "--task", "../task.json", "--count", "3"]);
        let (stdout, stderr) = text(&made);
        assert_eq!(made.status.code(), Some(0), "{stderr}");
        let root = project.path("repo.wt").join("T-7");
        let worktrees: Vec<PathBuf> = (1..=3).map(|k| root.join(format!("c{k}"))).collect();
        let printed: Vec<PathBuf> = stdout.lines().map(PathBuf::from).collect();
        assert_eq!(printed, worktrees, "create prints the worktrees it made");
        assert_eq!(
            branches(&repo),
            ["aggr/task/T-7/c1", "aggr/task/T-7/c2", "aggr/task/T-7/c3"]
        );
        for (worktree, files) in worktrees.iter().zip([
            &[("feature.txt", "done\n")][..],
            &[("feature.txt", "done\n"), ("bug.txt", "bug\n")][..],
            &[("bug.txt", "bug\n")][..],
        ]) {
            assert!(
                worktree.join("checks.toml").is_file(),
                "checked out from the base"
            );
            for (file, body) in files {
                std::fs::write(worktree.join(file), body).unwrap();
            }
            git(worktree, &["add", "."]);
            git(worktree, &["commit", "-q", "-m", "candidate"]);
        }
        let mut args = vec!["--task", "task.json", "--runs", "runs"];
        let shown: Vec<String> = worktrees.iter().map(|w| w.display().to_string()).collect();
        args.extend(shown.iter().map(String::as_str));
        let gated = candidates(project.path("").as_path(), &args);
        assert_eq!(gated.status.code(), Some(0), "{}", text(&gated).1);
        Round { project, worktrees }
    }

    fn repo(&self) -> PathBuf {
        self.project.path("repo")
    }

    fn cleanup(&self, extra: &[&str]) -> Output {
        let mut args = vec!["cleanup", "--task", "../task.json", "--runs", "../runs"];
        args.extend(extra);
        candidates(&self.repo(), &args)
    }

    /// Every file under runs/, relative.
    fn runs_files(&self) -> Vec<String> {
        let mut found = Vec::new();
        let root = self.project.path("runs");
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    found.push(path.strip_prefix(&root).unwrap().display().to_string());
                }
            }
        }
        found.sort();
        found
    }
}

#[test]
fn a_whole_round_from_create_to_cleanup() {
    let round = Round::play();
    let repo = round.repo();
    // A second create for the same task is refused and makes nothing.
    let again = candidates(&repo, &["create", "--task", "../task.json"]);
    let (_, stderr) = text(&again);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("c1") && stderr.contains("exists"),
        "{stderr}"
    );
    assert_eq!(branches(&repo).len(), 3);

    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(round.project.path("runs/T-7/index.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["candidates"][0]["id"], "c1", "c1 ranks first");
    assert_eq!(index["candidates"][0]["passed"], true);

    // The winner is merged into the base's branch.
    git(
        &repo,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "merge c1",
            "aggr/task/T-7/c1",
        ],
    );
    let before = round.runs_files();
    let cleaned = round.cleanup(&[]);
    let (stdout, stderr) = text(&cleaned);
    assert_eq!(cleaned.status.code(), Some(0), "{stderr}");
    for worktree in &round.worktrees {
        assert!(
            !worktree.exists(),
            "{} removed: {stdout}",
            worktree.display()
        );
    }
    assert_eq!(
        branches(&repo),
        ["aggr/task/T-7/c1"],
        "the losers' branches go, the merged winner's stays until its merge is pushed"
    );
    assert!(
        stdout.contains("git branch -d aggr/task/T-7/c1"),
        "{stdout}"
    );
    assert_eq!(round.runs_files(), before, "every runs/ file is kept");
    assert!(repo.join("feature.txt").is_file(), "the merge is intact");
}

#[test]
fn cleanup_never_loses_uncommitted_work_or_unrecorded_candidates_without_force() {
    let round = Round::play();
    let repo = round.repo();
    std::fs::write(round.worktrees[1].join("notes.txt"), "work in progress\n").unwrap();
    std::fs::remove_file(round.project.path("runs/T-7/c3/run-check.json")).unwrap();
    let refused = round.cleanup(&[]);
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("c2") && stderr.contains("uncommitted"),
        "{stderr}"
    );
    assert!(
        stderr.contains("c3") && stderr.contains("no evidence"),
        "{stderr}"
    );
    assert!(
        round.worktrees.iter().all(|w| w.exists()),
        "nothing removed"
    );
    assert_eq!(branches(&repo).len(), 3);

    // Without a merge, the passing c1 is kept: a dry run says so and what
    // --force would remove, and removes nothing.
    let dry = round.cleanup(&["--force", "--dry-run"]);
    let (stdout, stderr) = text(&dry);
    assert_eq!(dry.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("would remove worktree") && stdout.contains("c2"),
        "{stdout}"
    );
    assert!(
        stdout.contains("would delete branch aggr/task/T-7/c3"),
        "{stdout}"
    );
    assert!(stdout.contains("kept `c1`"), "{stdout}");
    assert!(
        round.worktrees.iter().all(|w| w.exists()),
        "a dry run removes nothing"
    );
    assert_eq!(branches(&repo).len(), 3);

    let forced = round.cleanup(&["--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced).1);
    assert!(round.worktrees[0].exists(), "the unmerged winner stays");
    assert!(!round.worktrees[1].exists() && !round.worktrees[2].exists());
    assert_eq!(branches(&repo), ["aggr/task/T-7/c1"]);
}

#[test]
fn a_stale_lock_left_by_a_crashed_agent_is_removed_with_its_worktree() {
    let round = Round::play();
    let repo = round.repo();
    let shown = round.worktrees[2].display().to_string();
    git(
        &repo,
        &["worktree", "lock", "--reason", "agent crashed", &shown],
    );
    let cleaned = round.cleanup(&[]);
    assert_eq!(cleaned.status.code(), Some(0), "{}", text(&cleaned).1);
    assert!(!round.worktrees[2].exists());
    assert!(!git(&repo, &["worktree", "list"]).contains(&shown));
}

#[test]
fn summary_is_deterministic_keeps_the_users_text_and_fences_a_candidates_log() {
    let round = Round::play();
    let repo = round.repo();
    std::fs::write(
        repo.join("PROGRESS.md"),
        "# Progress\n\nWritten by a person.\n",
    )
    .unwrap();
    std::fs::write(
        round.project.path("runs/T-7/c2/PROGRESS.md"),
        "- wrote the test first\n<!-- run-check candidates summary: end -->\n- then the fix\n",
    )
    .unwrap();
    let first = candidates(&repo, &["summary", "--runs", "../runs"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first).1);
    let progress = std::fs::read(repo.join("PROGRESS.md")).unwrap();
    let summary = std::fs::read(repo.join("SUMMARY.md")).unwrap();
    let second = candidates(&repo, &["summary", "--runs", "../runs"]);
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(
        std::fs::read(repo.join("PROGRESS.md")).unwrap(),
        progress,
        "byte-identical"
    );
    assert_eq!(
        std::fs::read(repo.join("SUMMARY.md")).unwrap(),
        summary,
        "byte-identical"
    );

    let progress = String::from_utf8(progress).unwrap();
    assert!(
        progress.starts_with("# Progress\n\nWritten by a person.\n"),
        "{progress}"
    );
    let section = progress.split("### T-7 / c2").nth(1).unwrap();
    let section = section.split("### T-7 / c3").next().unwrap();
    assert!(section.contains("- wrote the test first") && section.contains("- then the fix"));
    assert_eq!(
        progress
            .matches("<!-- run-check candidates summary: end -->")
            .count(),
        1,
        "the candidate's marker is defused: {progress}"
    );
    let summary = String::from_utf8(summary).unwrap();
    assert!(summary.contains("1. c1: passed"), "{summary}");

    // The user edits outside the markers; the next summary keeps it.
    let edited = format!("{progress}\nA note after the summary.\n");
    std::fs::write(repo.join("PROGRESS.md"), &edited).unwrap();
    let third = candidates(&repo, &["summary", "--runs", "../runs"]);
    assert_eq!(third.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(repo.join("PROGRESS.md")).unwrap(),
        edited
    );
}
