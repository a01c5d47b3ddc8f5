//! Developer tasks for the damx workspace, run as `cargo xtask <task> [args]`.
//!
//! Each task is a module with a `run(args)` function, listed in [`TASKS`]; `cargo xtask help`
//! prints them. To add one, write the module and add a line to the table.

mod args;
mod ballots;
mod book;
mod chaos;
mod common;
mod conformance;
mod depth;
mod egdb_crosscheck;
mod endings;
mod fuzz_session;
mod fuzz_wire;
mod interop;
mod perft;
mod players;
mod strength;
mod train;
mod tune;
mod versus;

use std::process::ExitCode;

/// One developer task.
struct Task {
    /// The name on the command line.
    name: &'static str,
    /// The arguments it takes, for the help.
    args: &'static str,
    /// What it does, for the help (may span lines).
    about: &'static str,
    /// Runs it with the arguments after its name.
    run: fn(&[String]) -> anyhow::Result<()>,
    /// Whether it runs the engine in this process (self-play, training, searches): a debug
    /// build of the task runs it again as the optimised build, so that its games and time
    /// controls are those of the `damx` binary.
    engine: bool,
}

const TASKS: &[Task] = &[
    Task {
        name: "conformance",
        args: "",
        about: conformance::ABOUT,
        run: conformance::run,
        engine: false,
    },
    Task {
        name: "fuzz-wire",
        args: "[CASES]",
        about: fuzz_wire::ABOUT,
        run: fuzz_wire::run,
        engine: false,
    },
    Task {
        name: "chaos",
        args: chaos::ARGS,
        about: chaos::ABOUT,
        run: chaos::run,
        engine: false,
    },
    Task {
        name: "fuzz-session",
        args: fuzz_session::ARGS,
        about: fuzz_session::ABOUT,
        run: fuzz_session::run,
        engine: false,
    },
    Task {
        name: "strength",
        args: strength::ARGS,
        about: strength::ABOUT,
        run: strength::run,
        engine: true,
    },
    Task {
        name: "endings",
        args: endings::ARGS,
        about: endings::ABOUT,
        run: endings::run,
        engine: true,
    },
    Task {
        name: "depth",
        args: depth::ARGS,
        about: depth::ABOUT,
        run: depth::run,
        engine: true,
    },
    Task {
        name: "egdb-crosscheck",
        args: egdb_crosscheck::ARGS,
        about: egdb_crosscheck::ABOUT,
        run: egdb_crosscheck::run,
        engine: true,
    },
    Task {
        name: "book",
        args: book::ARGS,
        about: book::ABOUT,
        run: book::run,
        engine: true,
    },
    Task {
        name: "ballots",
        args: ballots::ARGS,
        about: ballots::ABOUT,
        run: ballots::run,
        engine: true,
    },
    Task {
        name: "train",
        args: train::ARGS,
        about: train::ABOUT,
        run: train::run,
        engine: true,
    },
    Task {
        name: "tune",
        args: tune::ARGS,
        about: tune::ABOUT,
        run: tune::run,
        engine: true,
    },
    Task {
        name: "perft",
        args: perft::ARGS,
        about: perft::ABOUT,
        run: perft::run,
        engine: false,
    },
    Task {
        name: "interop",
        args: interop::ARGS,
        about: interop::ABOUT,
        run: interop::run,
        engine: false,
    },
    Task {
        name: "versus",
        args: versus::ARGS,
        about: versus::ABOUT,
        run: versus::run,
        engine: false,
    },
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        print_help();
        return ExitCode::from(2);
    };
    if matches!(name.as_str(), "help" | "-h" | "--help") {
        // `help TASK` tells of that task alone.
        match args.get(1) {
            None => print_help(),
            Some(name) => match task_named(name) {
                Some(task) => print_task_help(task),
                None => return unknown_task(name),
            },
        }
        return ExitCode::SUCCESS;
    }
    let Some(task) = task_named(name) else {
        return unknown_task(name);
    };
    if args[1..].iter().any(|arg| arg == "--help" || arg == "-h") {
        print_task_help(task);
        return ExitCode::SUCCESS;
    }
    if task.engine && cfg!(debug_assertions) {
        // The optimised run prints its own errors; only its exit code is passed on.
        return match common::rerun_optimised(&args) {
            Ok(status) if status.success() => ExitCode::SUCCESS,
            Ok(status) => ExitCode::from(status.code().map_or(1, |code| code as u8)),
            Err(error) => {
                eprintln!("xtask {name}: {error:#}");
                ExitCode::FAILURE
            }
        };
    }
    match (task.run)(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask {name}: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn task_named(name: &str) -> Option<&'static Task> {
    TASKS.iter().find(|task| task.name == name)
}

/// Refuses `name` with the list of tasks.
fn unknown_task(name: &str) -> ExitCode {
    eprintln!("xtask: unknown task `{name}`\n");
    print_help();
    ExitCode::from(2)
}

/// The task's name and its arguments.
fn usage(task: &Task) -> String {
    format!("{} {}", task.name, task.args).trim_end().to_owned()
}

fn print_help() {
    println!("usage: cargo xtask <task> [args]\n\ntasks:");
    println!("  help [TASK]\n      this list, or what TASK does (also `cargo xtask TASK --help`)");
    for task in TASKS {
        println!("  {}", usage(task));
        for line in task.about.lines() {
            println!("      {line}");
        }
    }
}

/// The usage of `task` alone.
fn print_task_help(task: &Task) {
    println!("usage: cargo xtask {}\n", usage(task));
    for line in task.about.lines() {
        println!("{line}");
    }
}
