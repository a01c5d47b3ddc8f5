//! A one-line progress display on standard error, for work that takes a while.
//!
//! Shown only when standard error is a terminal and the level is not `-q`, so pipes, files
//! and the tests see nothing of it. The line is redrawn in place (carriage return, then
//! "erase to the end of the line"), at most ten times a second, and erased when the work is
//! done or the display is dropped, so it never mixes with the command's output.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::log::{self, Level};

/// The least time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

/// The progress line of one piece of work.
#[derive(Debug)]
pub(crate) struct Progress {
    enabled: bool,
    last_drawn: Option<Instant>,
    shown: bool,
}

impl Progress {
    /// A display that draws only on a terminal and when not quiet.
    pub(crate) fn new() -> Progress {
        Progress {
            enabled: std::io::stderr().is_terminal() && log::enabled(Level::Normal),
            last_drawn: None,
            shown: false,
        }
    }

    /// Redraws the line with the text `describe` gives, unless the last redraw was too
    /// recent (then `describe` is not called).
    pub(crate) fn update(&mut self, describe: impl FnOnce() -> String) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self
            .last_drawn
            .is_some_and(|last| now.duration_since(last) < REDRAW_EVERY)
        {
            return;
        }
        self.last_drawn = Some(now);
        self.shown = true;
        let mut stderr = std::io::stderr().lock();
        // A failing terminal is no reason to fail the work it reports on.
        let _ = write!(stderr, "\r{}\x1b[K", describe());
        let _ = stderr.flush();
    }

    /// Erases the line, so that what follows starts on a clean line.
    pub(crate) fn clear(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
            self.shown = false;
            self.last_drawn = None;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}
