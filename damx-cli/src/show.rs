//! How the session commands print a session: the lines of
//! [`damx_session::render::Renderer`] (text, or every event as a JSON line) on standard
//! output, its notes and problems on standard error.
//!
//! With `-q` only the results, the violations, refusals and the files saved are shown; `-v`
//! adds the games asked for and a board after every move, `-vv` every frame in and out. JSON
//! (`--json`): one object a line, as `Event` and `ServerEvent` serialize, with a `session`
//! number from a server.

use std::io::{self, Write};

use damx_session::render::{Detail, Line, RenderOptions, Renderer};
use damx_session::{Event, ServerEvent};

use crate::log::{self, Level, note, problem};

/// How to show sessions.
pub(crate) type Options = RenderOptions;

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

/// Writes the events of one or more sessions.
pub(crate) struct Show {
    renderer: Renderer,
}

impl Show {
    /// A display with these options; `tagged` for a server's sessions.
    pub(crate) fn new(options: Options, tagged: bool) -> Show {
        Show {
            renderer: Renderer::new(options).tagged(tagged),
        }
    }

    /// One event of a server.
    pub(crate) fn server_event(
        &mut self,
        event: &ServerEvent,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        write(self.renderer.server_event(event), out)
    }

    /// One event of session `id` (`None` for the only session).
    pub(crate) fn event(
        &mut self,
        id: Option<u64>,
        event: &Event,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        write(self.renderer.event(id, event), out)
    }
}

/// Writes the output lines, logs the others.
fn write(lines: Vec<Line>, out: &mut dyn Write) -> io::Result<()> {
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
