//! The instructions `agent install` writes for agents that read them: a
//! Claude Code skill and a Cursor rule. Short: what to run, how to read
//! the feedback, and never to weaken the gate to get green.

/// The line that marks a file as written by run-check: `uninstall` removes
/// only a file that has it, and `install` replaces no file without it
/// unless `--force`.
pub(crate) const MARKER: &str =
    "<!-- written by `run-check agent install`; `run-check agent uninstall` removes it -->";

/// What both files say after their front matter.
const BODY: &str = "\
# The run-check gate

This repository's verification gate is `run-check` (its checks are in
`checks.toml`). A hook runs the gate when you end your turn: while it is
red with a failure you introduced, you cannot stop, and the hook tells you
why.

- Run the gate yourself before you stop: `run-check --mode fast` while
  you work, `run-check` (strict) when you think you are done.
- Read the feedback top down: the first line is the verdict; then one line
  per new problem, `path:line[:col]: [check rule] message`, in the tool's
  own words, errors first; a failed check with no located error shows the
  last lines of its output; `next:` is the one next step; `evidence:` is
  the full record (`run-check agent feedback EVIDENCE --max-chars 100000`
  shows all of it).
- Fix the code, not the gate: never edit `checks.toml`, a baseline file,
  or the hook configuration, never add a `run-check: allow` marker, and
  never delete or skip a test to get green. Every such change is compared
  with the commit your session started on and reported to the user.
- When the feedback says `roll back`, undo the change that made a passing
  round fail before trying anything else.
- When the gate lets you stop without a pass (a missing tool, a broken
  config, no progress), say so plainly to the user.
";

/// `.claude/skills/run-check/SKILL.md`.
pub(crate) fn claude_skill() -> String {
    format!(
        "---\nname: run-check\ndescription: How to pass this repository's verification gate \
         (run-check) and read its feedback. Use before ending a turn that changed code.\n---\n\
         {MARKER}\n\n{BODY}"
    )
}

/// `.cursor/rules/run-check.mdc`.
pub(crate) fn cursor_rule() -> String {
    format!(
        "---\ndescription: How to pass this repository's verification gate (run-check) and read \
         its feedback\nalwaysApply: true\n---\n{MARKER}\n\n{BODY}"
    )
}
