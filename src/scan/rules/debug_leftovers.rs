//! The `debug-leftovers` rule set: debug output (`dbg!`, `console.log`) and
//! debugger stops (`debugger`, `breakpoint()`, `set_trace()`) left in code.

use super::{Builtin, Verify};

/// The set's name.
pub(super) const DEBUG: &str = "debug-leftovers";

const DEBUG_PRINT_WHY: &str = "debug output in code that ships";
const DEBUG_STOP_WHY: &str = "it stops the program in a debugger";
const DEBUG_SUGGESTION: &str = "remove it before merging";

/// The set's rules.
pub(super) const RULES: &[Builtin] = &[
    Builtin {
        set: DEBUG,
        name: "rust-dbg",
        pattern: concat!(wb!(), r"dbg!\("),
        verify: Verify::Always,
        needles: &["dbg!("],
        what: "a `dbg!` macro left in",
        why: DEBUG_PRINT_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "js-console-log",
        pattern: concat!(wb!(), r"console\.log\("),
        verify: Verify::Always,
        needles: &["console.log("],
        what: "a `console.log` call left in",
        why: DEBUG_PRINT_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "js-debugger",
        pattern: concat!(wb!(), r"debugger[ \t]*;?[ \t]*$"),
        verify: Verify::LineStart,
        needles: &["debugger"],
        what: "a `debugger` statement left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "python-breakpoint",
        pattern: concat!(wb!(), r"breakpoint\(\)"),
        verify: Verify::FreeCall,
        needles: &["breakpoint()"],
        what: "a `breakpoint` call left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "python-pdb",
        pattern: concat!(wb!(), r"(?:i?pdb|pudb)\.set_trace\("),
        verify: Verify::Always,
        needles: &[".set_trace("],
        what: "a `set_trace` call left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
];

#[cfg(test)]
mod tests {
    use super::super::tests::{clean, found};

    #[test]
    fn debug_leftovers() {
        found("    let y = dbg!(a + b);", "debug-leftovers/rust-dbg");
        found(
            "console.log(\"here\", x);",
            "debug-leftovers/js-console-log",
        );
        found("  debugger;", "debug-leftovers/js-debugger");
        found("debugger", "debug-leftovers/js-debugger");
        found("    breakpoint()", "debug-leftovers/python-breakpoint");
        found("import pdb; pdb.set_trace()", "debug-leftovers/python-pdb");
        found("ipdb.set_trace()", "debug-leftovers/python-pdb");

        clean("mydbg!(x)");
        clean("console.error(\"failed\")");
        clean("def breakpoint():");
        clean("fn breakpoint() {}");
        clean("self.breakpoint()");
        clean("const debugger = 1;");
        clean("// then call the debugger;");
    }
}
