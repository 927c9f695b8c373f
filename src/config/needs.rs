//! The `needs` graph, once every check is read: unknown names (forward
//! references included) and cycles, reported at the line of the check.

use std::collections::HashMap;

use crate::error::Error;

use super::CheckConfig;
use super::validate::Validator;

impl Validator<'_> {
    /// Unknown needs and cycles. Messages point at the line of the check.
    pub(super) fn needs(&self, checks: &[CheckConfig]) -> Result<(), Error> {
        let index: HashMap<&str, usize> = checks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        let at_line = |check: &CheckConfig, key: String, message: String| Error::Config {
            path: self.path.to_path_buf(),
            location: Some((check.line, 1)),
            key: Some(key),
            message,
        };
        for check in checks {
            for need in &check.needs {
                if !index.contains_key(need.as_str()) {
                    return Err(at_line(
                        check,
                        format!("`needs` of check `{}`", check.name),
                        format!("unknown check `{need}`"),
                    ));
                }
            }
        }
        // Depth-first search with colours; a grey node reached again is a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let mut colour = vec![Colour::White; checks.len()];
        let mut stack: Vec<usize> = Vec::new();
        fn visit(
            node: usize,
            checks: &[CheckConfig],
            index: &HashMap<&str, usize>,
            colour: &mut [Colour],
            stack: &mut Vec<usize>,
        ) -> Option<Vec<usize>> {
            colour[node] = Colour::Grey;
            stack.push(node);
            for need in &checks[node].needs {
                let next = index[need.as_str()];
                match colour[next] {
                    Colour::Grey => {
                        let start = stack.iter().position(|&n| n == next).unwrap_or(0);
                        let mut cycle = stack[start..].to_vec();
                        cycle.push(next);
                        return Some(cycle);
                    }
                    Colour::White => {
                        if let Some(cycle) = visit(next, checks, index, colour, stack) {
                            return Some(cycle);
                        }
                    }
                    Colour::Black => {}
                }
            }
            stack.pop();
            colour[node] = Colour::Black;
            None
        }
        for start in 0..checks.len() {
            if colour[start] == Colour::White
                && let Some(cycle) = visit(start, checks, &index, &mut colour, &mut stack)
            {
                let names: Vec<&str> = cycle.iter().map(|&i| checks[i].name.as_str()).collect();
                return Err(at_line(
                    &checks[cycle[0]],
                    format!("`needs` of check `{}`", checks[cycle[0]].name),
                    format!("cycle: {}", names.join(" -> ")),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::tests::{ALLOW, rejects};

    #[test]
    fn unknown_need_and_cycle() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"a\"\nrun = [\"true\"]\nneeds = [\"zz\"]\n"),
            "checks.toml:4:1: `needs` of check `a`: unknown check `zz`",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"a\"\nrun = [\"true\"]\nneeds = [\"b\"]\n\
                 [[check]]\nname = \"b\"\nrun = [\"true\"]\nneeds = [\"a\"]\n"
            ),
            "checks.toml:4:1: `needs` of check `a`: cycle: a -> b -> a",
        );
    }
}
