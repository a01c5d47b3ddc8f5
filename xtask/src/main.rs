//! Developer tasks for the damx workspace, run as `cargo xtask <task>`.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("xtask: no tasks yet");
    ExitCode::from(2)
}
