//! `damx proxy` (what it does and logs: `damx proxy --help`): [`damx_session::proxy::run_proxy`]
//! relays and makes the log, this module prints it (with `-q` only the findings, the ends and
//! the summary) and routes Ctrl-C to it.

use std::io::{self, Write};

use damx_session::Control;
use damx_session::interrupt::interrupted;
use damx_session::proxy::{Entry, run_proxy};
use damx_session::render::escaped;

use crate::args::ProxyArgs;
use crate::error::Error;
use crate::log::{self, Level};
use crate::session::on_interrupt;

/// Relays one connection between the two programs and logs it.
pub(crate) fn run(config: &ProxyArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (control, commands) = Control::new();
    let route = control.clone();
    on_interrupt("no longer waiting for a connection", move |_| {
        route.stop();
    });
    let quiet = !log::enabled(Level::Normal);
    let mut written = Ok(());
    let mut write = |entry: Entry| {
        if let Entry::Connected { .. } = entry {
            let route = control.clone();
            on_interrupt("closing both connections", move |_| {
                route.stop();
            });
        }
        if quiet && matches!(entry, Entry::Frame { .. }) {
            return Ok(());
        }
        let result = if config.json {
            writeln!(out, "{}", entry.json())
        } else {
            // What the programs sent is data: no control character reaches the terminal, and
            // a line break in a chat cannot start a line of its own.
            writeln!(out, "{}", escaped(&entry.text()))
        }
        .and_then(|()| out.flush());
        if let Err(error) = &result {
            written = Err(io::Error::new(error.kind(), error.to_string()));
        }
        result
    };
    let log = run_proxy(&config.listen, &config.connect, &commands, &mut write)?;
    if let Some(log) = &log {
        let _ = write(log.summary());
    }
    written.map_err(Error::stdout)?;
    let Some(log) = log.filter(|_| !interrupted()) else {
        return Err(Error::Interrupted);
    };
    log.trouble().map_or(Ok(()), |why| Err(Error::Peer(why)))
}
