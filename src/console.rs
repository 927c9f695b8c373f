//! The terminal (docs/running.md#on-a-terminal): whether stderr gets the
//! live view, whether a stream gets colour, and the colours.
//!
//! Colour follows the usual conventions, read once per decision:
//! `NO_COLOR` set and not empty disables it; else `CLICOLOR_FORCE` set,
//! not empty and not `0` forces it (even into a pipe); else `CLICOLOR=0`
//! disables it; else a stream is coloured when it is a terminal and `TERM`
//! is set and not `dumb`. The live view needs stderr to be a terminal,
//! `TERM` set and not `dumb`, and no `CI` (set and not empty); it is drawn
//! with ECMA-48 cursor movement, so on Windows stderr gets plain lines.

use std::ffi::OsString;
use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};
use run_check_documents::evidence::Status;

/// The environment variables the decisions read.
#[derive(Debug, Default, Clone)]
pub(crate) struct Env {
    no_color: Option<OsString>,
    clicolor_force: Option<OsString>,
    clicolor: Option<OsString>,
    term: Option<OsString>,
    ci: Option<OsString>,
}

impl Env {
    /// This process's environment.
    pub(crate) fn current() -> Env {
        Env::from_lookup(|name| std::env::var_os(name))
    }

    pub(crate) fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Env {
        Env {
            no_color: lookup("NO_COLOR"),
            clicolor_force: lookup("CLICOLOR_FORCE"),
            clicolor: lookup("CLICOLOR"),
            term: lookup("TERM"),
            ci: lookup("CI"),
        }
    }

    /// Whether a stream that is (`terminal`) or is not a terminal gets
    /// colour.
    pub(crate) fn colour(&self, terminal: bool) -> bool {
        let set = |v: &Option<OsString>| v.as_ref().is_some_and(|v| !v.is_empty());
        if set(&self.no_color) {
            return false;
        }
        if set(&self.clicolor_force) && self.clicolor_force.as_deref() != Some("0".as_ref()) {
            return true;
        }
        if self.clicolor.as_deref() == Some("0".as_ref()) {
            return false;
        }
        terminal && self.capable_terminal()
    }

    /// Whether a terminal stderr gets the live view.
    pub(crate) fn live(&self, terminal: bool) -> bool {
        let ci = self.ci.as_ref().is_some_and(|v| !v.is_empty());
        cfg!(unix) && terminal && !ci && self.capable_terminal()
    }

    /// `TERM` is set and is not `dumb`.
    fn capable_terminal(&self) -> bool {
        self.term
            .as_ref()
            .is_some_and(|t| !t.is_empty() && t != "dumb")
    }
}

/// Whether stderr gets the live view.
pub(crate) fn stderr_live() -> bool {
    Env::current().live(std::io::stderr().is_terminal())
}

/// Whether stderr gets colour.
pub(crate) fn stderr_colour() -> bool {
    Env::current().colour(std::io::stderr().is_terminal())
}

/// Whether stdout gets colour (a `text` report written there).
pub(crate) fn stdout_colour() -> bool {
    Env::current().colour(std::io::stdout().is_terminal())
}

/// Whether stdout is a terminal.
pub(crate) fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// The style of a status word.
pub(crate) fn status_style(status: Status) -> Style {
    let colour = |c: AnsiColor| Style::new().fg_color(Some(c.into())).bold();
    match status {
        Status::Pass => colour(AnsiColor::Green),
        Status::Fail => colour(AnsiColor::Red),
        Status::Error => colour(AnsiColor::Magenta),
        Status::Skip => colour(AnsiColor::Yellow),
    }
}

/// The style of a running check's `RUN`.
pub(crate) fn running_style() -> Style {
    Style::new().fg_color(Some(AnsiColor::Cyan.into())).bold()
}

/// `text` wrapped in `style`'s escape sequences.
pub(crate) fn paint(style: Style, text: &str) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_lookup(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn colour_follows_no_color_clicolor_force_and_clicolor() {
        let term = ("TERM", "xterm-256color");
        // A terminal is coloured, a pipe is not.
        assert!(env(&[term]).colour(true));
        assert!(!env(&[term]).colour(false));
        // NO_COLOR (not empty) wins over everything.
        assert!(!env(&[term, ("NO_COLOR", "1")]).colour(true));
        assert!(!env(&[term, ("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]).colour(true));
        assert!(env(&[term, ("NO_COLOR", "")]).colour(true));
        // CLICOLOR_FORCE (not empty, not 0) colours a pipe.
        assert!(env(&[("CLICOLOR_FORCE", "1")]).colour(false));
        assert!(env(&[("CLICOLOR_FORCE", "1"), ("CLICOLOR", "0")]).colour(false));
        assert!(!env(&[("CLICOLOR_FORCE", "0")]).colour(false));
        assert!(!env(&[("CLICOLOR_FORCE", "")]).colour(false));
        // CLICOLOR=0 disables; other values leave it to the terminal.
        assert!(!env(&[term, ("CLICOLOR", "0")]).colour(true));
        assert!(env(&[term, ("CLICOLOR", "1")]).colour(true));
        // A dumb or unknown terminal gets none.
        assert!(!env(&[("TERM", "dumb")]).colour(true));
        assert!(!env(&[]).colour(true));
    }

    #[test]
    fn the_live_view_needs_a_capable_terminal_outside_ci() {
        let term = ("TERM", "xterm");
        assert_eq!(env(&[term]).live(true), cfg!(unix));
        assert!(!env(&[term]).live(false));
        assert!(!env(&[term, ("CI", "true")]).live(true));
        assert_eq!(env(&[term, ("CI", "")]).live(true), cfg!(unix));
        assert!(!env(&[("TERM", "dumb")]).live(true));
        assert!(!env(&[]).live(true));
        // NO_COLOR turns off colour, not the live view.
        assert_eq!(env(&[term, ("NO_COLOR", "1")]).live(true), cfg!(unix));
    }

    #[test]
    fn painted_text_is_wrapped_in_sgr_sequences() {
        assert_eq!(
            paint(status_style(Status::Pass), " PASS"),
            "\u{1b}[1m\u{1b}[32m PASS\u{1b}[0m"
        );
        assert_eq!(
            paint(status_style(Status::Fail), "FAIL"),
            "\u{1b}[1m\u{1b}[31mFAIL\u{1b}[0m"
        );
    }
}
