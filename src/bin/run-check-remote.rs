//! `run-check-remote`: the Remote Execution API client a gate runs as the
//! process of each `remote = true` check, a program of its own so that the
//! gate's binary carries no gRPC code and starts as it did.

fn main() {
    let code = run_check::run_remote_client(std::env::args_os().collect());
    std::process::exit(code);
}
