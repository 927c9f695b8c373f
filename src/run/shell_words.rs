//! A shell's command string (`sh -c "…"`) split as a POSIX shell splits it,
//! without running anything: words, quotes removed, and the simple commands
//! they form, so that `run/gate.rs` can tell which files the string runs.
//!
//! Understood: blanks between words; `'…'` (literal), `"…"` (with `\` before
//! `"`, `\`, `$` and `` ` ``), `\` outside quotes; `#` at a word's start to
//! the line's end; the operators `;`, `&`, `|`, `&&`, `||`, `(`, `)`, a line
//! end, `` ` `` and `$(` end a simple command; `<` and `>` (with a digit
//! before them, `>>`, `>&`, `<&`) a redirection, whose target is a word but
//! not an argument. Not understood (a word is taken as written): parameter
//! and arithmetic expansion, `{a,b}` braces, globs, here-documents. A word
//! that expands to something else names no file as written, so it is left
//! out where a file is looked for only by what it names.

/// What a command string holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// Every word, redirection targets included, in order.
    pub(crate) words: Vec<String>,
    /// The simple commands: each its words (no redirection, no leading
    /// `NAME=value` assignment), in order.
    pub(crate) commands: Vec<Vec<String>>,
}

/// Splits `text`.
pub(crate) fn split(text: &str) -> Script {
    let mut splitter = Splitter::default();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // A line continuation joins the lines.
                Some('\n') | None => {}
                Some(next) => splitter.push(next),
            },
            '\'' => {
                splitter.started = true;
                for next in chars.by_ref() {
                    if next == '\'' {
                        break;
                    }
                    splitter.push(next);
                }
            }
            '"' => {
                splitter.started = true;
                while let Some(next) = chars.next() {
                    match next {
                        '"' => break,
                        '\\' if chars.peek().is_some_and(|n| "\"\\$`\n".contains(*n)) => {
                            if let Some(escaped) = chars.next().filter(|n| *n != '\n') {
                                splitter.push(escaped);
                            }
                        }
                        _ => splitter.push(next),
                    }
                }
            }
            '#' if !splitter.started => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        splitter.end_command();
                        break;
                    }
                }
            }
            ' ' | '\t' => splitter.end_word(),
            '\n' | ';' | '&' | '|' | '(' | ')' | '`' => splitter.end_command(),
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                splitter.end_command();
            }
            '<' | '>' => {
                // `2>`: the digits were a file descriptor, not a word.
                if splitter.word.chars().all(|d| d.is_ascii_digit()) {
                    splitter.word.clear();
                    splitter.started = false;
                }
                splitter.end_word();
                while chars
                    .next_if(|n| matches!(n, '<' | '>' | '&' | '|'))
                    .is_some()
                {}
                splitter.redirect = true;
            }
            _ => splitter.push(c),
        }
    }
    splitter.end_command();
    splitter.script
}

#[derive(Default)]
struct Splitter {
    script: Script,
    /// The word being read.
    word: String,
    /// A quote opened the word (an empty `''` is a word).
    started: bool,
    /// The next word is a redirection's target.
    redirect: bool,
    /// The simple command being read.
    command: Vec<String>,
}

impl Splitter {
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.started = true;
    }

    fn end_word(&mut self) {
        if !self.started {
            return;
        }
        let word = std::mem::take(&mut self.word);
        self.started = false;
        self.script.words.push(word.clone());
        if std::mem::take(&mut self.redirect) {
            return;
        }
        if self.command.is_empty() && is_assignment(&word) {
            return;
        }
        self.command.push(word);
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect = false;
        if !self.command.is_empty() {
            let command = std::mem::take(&mut self.command);
            self.script.commands.push(command);
        }
    }
}

/// `NAME=value` before a command: an assignment, not the program.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(text: &str) -> Vec<Vec<&'static str>> {
        split(text)
            .commands
            .into_iter()
            .map(|c| {
                c.into_iter()
                    .map(|w| &*Box::leak(w.into_boxed_str()))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn words_and_commands_as_the_shell_splits_them() {
        assert_eq!(
            commands("scripts/lint.sh --strict"),
            [vec!["scripts/lint.sh", "--strict"]]
        );
        assert_eq!(
            commands(". env.sh && lint.sh"),
            [vec![".", "env.sh"], vec!["lint.sh"]]
        );
        assert_eq!(
            commands("set -e; A=1 B='x y' ./ci/run.sh \"a b\" 'c'\\ d|tee log\n# ./gone.sh\nx"),
            [
                vec!["set", "-e"],
                vec!["./ci/run.sh", "a b", "c d"],
                vec!["tee", "log"],
                vec!["x"],
            ]
        );
        assert_eq!(
            commands("(cd sub && ./t.sh) 2>err.txt; echo $(./v.sh)`./w.sh`"),
            [
                vec!["cd", "sub"],
                vec!["./t.sh"],
                vec!["echo"],
                vec!["./v.sh"],
                vec!["./w.sh"],
            ]
        );
        assert_eq!(commands("a \"q\\\"x\" ''"), [vec!["a", "q\"x", ""]]);
        assert_eq!(commands(""), Vec::<Vec<&str>>::new());
    }

    #[test]
    fn redirection_targets_are_words_but_not_arguments() {
        let script = split("./gen.sh >out.txt 2>>err.log <in.txt");
        assert_eq!(script.commands, [vec!["./gen.sh".to_string()]]);
        assert_eq!(script.words, ["./gen.sh", "out.txt", "err.log", "in.txt"]);
    }
}
