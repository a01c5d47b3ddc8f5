//! Diagnostics on standard error, filtered by the level that `-q`/`-v` choose.
//!
//! The libraries never print; only the binary talks to the person at the terminal, so a level
//! and four macros are all the logging it needs. Errors that end a command are not logged
//! here: `main` prints them (see [`crate::error`]). Per-item problems that do not stop the
//! command (an invalid line among valid ones) use [`problem!`], which shows at every level.

use std::sync::OnceLock;

/// How much the binary says, on standard error and in a session's display: the renderer's
/// [`Detail`](damx_session::render::Detail). `-q` (`Quiet`): problems only, no warnings, no
/// progress display; the default (`Normal`): problems, warnings and the progress display;
/// `-v` (`Verbose`): also what the command is doing (settings, counts); `-vv` (`Debug`): also
/// details for debugging.
pub(crate) use damx_session::render::Detail as Level;

/// The level for `quiet` times `-q` and `verbose` times `-v`.
pub(crate) fn level_from_counts(quiet: u8, verbose: u8) -> Level {
    match (quiet, verbose) {
        (q, _) if q > 0 => Level::Quiet,
        (_, 0) => Level::Normal,
        (_, 1) => Level::Verbose,
        _ => Level::Debug,
    }
}

static LEVEL: OnceLock<Level> = OnceLock::new();

/// Sets the level for the rest of the run (once; `Normal` until then).
pub(crate) fn set_level(level: Level) {
    let _ = LEVEL.set(level);
}

/// The level `-q`/`-v` chose.
pub(crate) fn level() -> Level {
    LEVEL.get().copied().unwrap_or_default()
}

/// Whether messages of `level` are shown.
pub(crate) fn enabled(level: Level) -> bool {
    self::level() >= level
}

/// Writes `text` and a newline to standard error. A standard error that has gone (a closed
/// terminal, a pipe nobody reads) loses the line but never stops the program, as
/// `eprintln!` would with a panic: the signal handler, among others, writes here.
pub(crate) fn line(text: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// A problem with one item of the input that does not stop the command: always shown.
macro_rules! problem {
    ($($arg:tt)*) => {
        $crate::log::line(format_args!("damx: {}", format_args!($($arg)*)))
    };
}

/// A warning or a hint the person should see: shown unless `-q`.
macro_rules! note {
    ($($arg:tt)*) => {
        if $crate::log::enabled($crate::log::Level::Normal) {
            $crate::log::line(format_args!("damx: {}", format_args!($($arg)*)));
        }
    };
}

/// What the command is doing: shown with `-v`.
macro_rules! info {
    ($($arg:tt)*) => {
        if $crate::log::enabled($crate::log::Level::Verbose) {
            $crate::log::line(format_args!("damx: {}", format_args!($($arg)*)));
        }
    };
}

/// Details for debugging: shown with `-vv`.
macro_rules! debug {
    ($($arg:tt)*) => {
        if $crate::log::enabled($crate::log::Level::Debug) {
            $crate::log::line(format_args!("damx: debug: {}", format_args!($($arg)*)));
        }
    };
}

pub(crate) use {debug, info, note, problem};

#[cfg(test)]
mod tests {
    use super::*;

    /// `-q` wins over `-v`, and each `-v` adds a level up to debug.
    #[test]
    fn counts_choose_the_level() {
        assert_eq!(level_from_counts(0, 0), Level::Normal);
        assert_eq!(level_from_counts(1, 0), Level::Quiet);
        assert_eq!(level_from_counts(1, 2), Level::Quiet);
        assert_eq!(level_from_counts(0, 1), Level::Verbose);
        assert_eq!(level_from_counts(0, 2), Level::Debug);
        assert_eq!(level_from_counts(0, 5), Level::Debug);
    }
}
