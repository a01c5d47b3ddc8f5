//! How the session commands print a session: the lines of
//! [`damx_session::render::Renderer`] (text, or every event as a JSON line) on standard
//! output, its notes and problems on standard error.
//!
//! With `-q` only the results, the violations, refusals and the files saved are shown; `-v`
//! adds the games asked for and a board after every move, `-vv` every frame in and out. JSON
//! (`--json`): one object a line, as `Event` and `ServerEvent` serialize, with a `session`
//! number from a server.

use std::io::{self, Write};

use damx_session::render::{Detail, Line};

use crate::log::{self, Level, note, problem};

/// How much the renderer shows at the level `-q`/`-v` chose.
pub(crate) fn detail() -> Detail {
    if log::enabled(Level::Debug) {
        Detail::Debug
    } else if log::enabled(Level::Verbose) {
        Detail::Verbose
    } else if log::enabled(Level::Normal) {
        Detail::Normal
    } else {
        Detail::Quiet
    }
}

/// Writes the renderer's output lines (of one event) and logs the others.
pub(crate) fn write(lines: Vec<Line>, out: &mut dyn Write) -> io::Result<()> {
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
