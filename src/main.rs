//! The `run-check` binary: everything lives in the library; this only maps the
//! outcome to a process exit code.

fn main() {
    let code = run_check::run(std::env::args_os());
    std::process::exit(code);
}
