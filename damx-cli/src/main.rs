//! `damx`: play, referee, debug and benchmark DamExchange (DXP) draughts programs.
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("damx: no commands are available yet");
    ExitCode::from(2)
}
