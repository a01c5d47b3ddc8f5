//! One module per command. Each takes its parsed arguments and the output to write to,
//! and returns an [`Error`] that `main` turns into a message and an exit code.

use std::fmt::Display;
use std::io::Write;
use std::time::Duration;

use crossbeam_channel::{RecvTimeoutError, Sender, unbounded};
use damx_session::render::Line;
use serde::Serialize;

use crate::error::Error;
use crate::log::{info, note, problem};

pub(crate) mod analyse;
pub(crate) mod bench;
pub(crate) mod decode;
pub(crate) mod demo;
pub(crate) mod egdb;
pub(crate) mod encode;
pub(crate) mod follow;
pub(crate) mod hub;
pub(crate) mod initiate;
pub(crate) mod perft;
pub(crate) mod play;
pub(crate) mod proxy;
pub(crate) mod referee;

/// Counts the valid and invalid items of a conversion, which goes on past invalid ones.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    valid: usize,
    invalid: usize,
}

impl Tally {
    /// One item converted.
    pub(crate) fn valid(&mut self) {
        self.valid += 1;
    }

    /// One item refused; `report` names it on standard error.
    pub(crate) fn invalid(&mut self, report: impl FnOnce()) {
        self.invalid += 1;
        report();
    }

    /// Success if every item was valid, else the summary that makes the exit code 1.
    pub(crate) fn finish(self, done: &str) -> Result<(), Error> {
        let total = self.valid + self.invalid;
        info!("{} of {total} messages {done}", self.valid);
        match self.invalid {
            0 => Ok(()),
            invalid => Err(Error::Invalid(format!(
                "{invalid} of {total} messages could not be {done}"
            ))),
        }
    }
}

/// Runs `work` on a thread of its own and, on this thread, hands `on` each message the work
/// sends as it comes, and `None` every 100 ms without one (to redraw a progress line); returns
/// what the work returns once it has. A panic of the work surfaces here as the panic it is.
pub(crate) fn in_background<M: Send, T: Send>(
    work: impl FnOnce(&Sender<M>) -> T + Send,
    mut on: impl FnMut(Option<M>),
) -> T {
    let (sender, messages) = unbounded();
    std::thread::scope(|scope| {
        // The receiver lives until the work has returned and dropped its sender.
        let worker = scope.spawn(move || work(&sender));
        loop {
            match messages.recv_timeout(Duration::from_millis(100)) {
                Ok(message) => on(Some(message)),
                Err(RecvTimeoutError::Timeout) => on(None),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let outcome = worker.join();
        outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Writes the lines a session's [`Renderer`](damx_session::render::Renderer) makes of one
/// event: its output lines (text, or the event as a JSON line) on `out`, its notes and
/// problems on standard error. How much it shows is the level `-q`/`-v` chose.
pub(crate) fn write_lines(lines: Vec<Line>, out: &mut dyn Write) -> std::io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    for line in lines {
        match line {
            Line::Out(text) => writeln!(out, "{text}")?,
            Line::Note(text) => note!("{text}"),
            Line::Problem(text) => problem!("{text}"),
        }
    }
    out.flush()
}

/// Writes `report` as one line of JSON, or as its text.
pub(crate) fn print(
    out: &mut dyn Write,
    report: &(impl Display + Serialize),
    json: bool,
) -> Result<(), Error> {
    if json {
        serde_json::to_writer(&mut *out, report).map_err(|e| Error::stdout(e.into()))?;
        writeln!(out).map_err(Error::stdout)
    } else {
        writeln!(out, "{report}").map_err(Error::stdout)
    }
}
