//! `damx`: play, debug and benchmark DamExchange (DXP) draughts programs. The commands, each
//! in a line, are [`args::Command`] (`damx --help`); [`args`] has the shared options.
//!
//! The binary is thin, in the manner of ripgrep: [`args`] parses the command line with clap
//! into validated arguments per command, each module of [`cmd`] does its work through
//! the library crates (damx-wire, damx-rules, damx-engine, damx-session) and writes to the
//! output it is given, and `main` turns an [`error::Error`] into one line on standard error
//! and an exit code. Only this crate prints; diagnostics go through [`log`] (`-q`, `-v`, `-vv`) and long
//! work shows a [`progress`] line when standard error is a terminal.
//!
//! ```text
//! $ damx decode M0012061100
//! {"type":"move","seconds":12,"from":6,"to":11,"captured":[]}
//! $ damx decode M0012x61100; echo $?
//! damx: argument 1: "M0012x61100": MOVE: byte 5: expected a digit, found 'x'
//! damx: 1 of 1 messages could not be decoded
//! 1
//! $ damx perft startpos 8
//! depth  8
//! nodes  6483961
//! time   0.031 s
//! speed  212081086 nodes/s
//! $ damx analyse startpos --depth 8 | tail -1
//! best move 31-27, score 0.00 at depth 8 (37640 nodes in 0.01 s)
//! ```
//!
//! The exit codes are listed by `damx --help` and mapped in [`error`].
#![forbid(unsafe_code)]

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;

mod args;
mod cmd;
mod error;
mod input;
mod log;
mod progress;
mod session;

use args::{Cli, Command};
use error::Error;

fn main() -> ExitCode {
    let cli = Cli::parse();
    log::set_level(cli.global.level());
    let result = run(cli.command);
    // A signal's route may still be telling the person what it did: it finishes first.
    damx_session::interrupt::settle();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => error.report(),
    }
}

/// Runs one command with standard output as its output.
fn run(command: Command) -> Result<(), Error> {
    log::debug!("{command:?}");
    let mut out = BufWriter::new(std::io::stdout().lock());
    let result = match command {
        Command::Decode(args) => cmd::decode::run(args.frames, &args.source(), &mut out),
        Command::Encode(args) => cmd::encode::run(args.frames, &args.source(), &mut out),
        Command::Analyse(args) => cmd::analyse::run(&args, &mut out),
        Command::Perft(args) => cmd::perft::run(&args, &mut out),
        Command::Bench(args) => cmd::bench::run(&args, &mut out),
        Command::Egdb(args) => cmd::egdb::run(&args.action, args.egdb, &mut out),
        Command::Hub(args) => cmd::hub::run(args.options(), &mut out),
        Command::Demo(args) => cmd::demo::run(&args, &mut out),
        Command::Follow(args) => cmd::follow::run(&args, &mut out),
        Command::Initiate(args) => cmd::initiate::run(&args, &mut out),
        Command::Play(args) => cmd::play::run(&args, &mut out),
        Command::Proxy(args) => cmd::proxy::run(&args, &mut out),
        Command::Match(args) => args
            .into_config()
            .and_then(|(series, json)| cmd::referee::run(&series, json, &mut out)),
        Command::Tournament(args) => args
            .into_config()
            .and_then(|(series, json)| cmd::referee::run(&series, json, &mut out)),
    };
    // Whatever the command wrote goes out before its error, if any, is reported.
    let flushed = out.flush().map_err(Error::stdout);
    result.and(flushed)
}
