//! `damx proxy`: sits between two DXP programs, forwards every byte unchanged, and logs each
//! message with its direction and time, flagging what breaks the spec.
//!
//! It listens on `--listen` for the first program (A), then connects to `--connect` (the
//! second program, B). [`damx_session::proxy::relay`] copies the bytes and
//! [`damx_session::proxy::ProxyLog`] makes the log: each frame is one line (`t`, direction,
//! raw text, meaning), each finding one more line (`!!`). When both directions have ended (or
//! at Ctrl-C) it prints a summary; the exit code is 4 if anything was flagged. With `-q` only
//! the findings, the ends and the summary are written.

use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use damx_session::proxy::{Entry, ProxyLog, relay};
use damx_session::render::escaped;
use damx_session::{Address, Control, accept_stream, connect_stream};
use serde_json::{Value, json};

use crate::error::{Error, describe_io};
use crate::log::{self, Level};
use crate::session::{interrupted, on_interrupt_saying, session_error};

/// What `damx proxy` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// Where the first program connects.
    pub(crate) listen: Address,
    /// Where the second program listens.
    pub(crate) connect: Address,
    /// JSON lines instead of text.
    pub(crate) json: bool,
}

/// Relays one connection between the two programs and logs it.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let listener = config.listen.bind().map_err(session_error)?;
    let local = listener.local_addr().map_err(|source| Error::Network {
        context: format!("cannot listen on {}", config.listen),
        source,
    })?;
    let json = config.json;
    let write = |out: &mut dyn Write, value: Value, text: String| {
        if json {
            writeln!(out, "{value}")
        } else {
            // What the programs sent is data: no control character reaches the terminal, and
            // a line break in a chat cannot start a line of its own.
            writeln!(out, "{}", escaped(&text))
        }
        .and_then(|()| out.flush())
        .map_err(Error::stdout)
    };
    write(
        out,
        json!({"type": "listening", "address": local.to_string()}),
        format!("listening on {local}"),
    )?;
    let (a, a_address) = wait_for_a(&listener, local)?;
    drop(listener);
    let mut log = ProxyLog::new(Instant::now());
    let b = connect(&config.connect)?;
    let b_address = b.peer_addr().ok().map(|address| address.to_string());
    write(
        out,
        json!({"type": "connected", "a": a_address.to_string(), "b": b_address}),
        format!(
            "A = {a_address} (connected to us), B = {} (we connected)",
            b_address.clone().unwrap_or_default()
        ),
    )?;
    let (shut_a, shut_b) = (clone(&a)?, clone(&b)?);
    // Ctrl-C from now on: shut both connections, which ends the copying.
    on_interrupt_saying("closing both connections", move |_| {
        let _ = shut_a.shutdown(Shutdown::Both);
        let _ = shut_b.shutdown(Shutdown::Both);
    });
    let traffic = relay(&a, &b).map_err(|source| Error::Network {
        context: "cannot set up the connection".to_owned(),
        source,
    })?;
    let quiet = !log::enabled(Level::Normal);
    for item in traffic {
        for entry in log.traffic(item, describe_io) {
            if !(quiet && matches!(entry, Entry::Frame { .. })) {
                write(out, entry.json(), entry.text())?;
            }
        }
    }
    let summary = log.summary();
    write(out, summary.json(), summary.text())?;
    if interrupted() {
        return Err(Error::Interrupted);
    }
    match log.findings() {
        0 => Ok(()),
        n => Err(Error::Peer(format!(
            "{n} violation{} of the spec flagged above",
            if n == 1 { "" } else { "s" }
        ))),
    }
}

/// Waits for program A on `listener`; Ctrl-C stops the wait.
fn wait_for_a(listener: &TcpListener, local: SocketAddr) -> Result<(TcpStream, SocketAddr), Error> {
    let (control, commands) = Control::new();
    on_interrupt_saying("no longer waiting for a connection", move |_| {
        control.stop();
    });
    accept_stream(listener, &commands)
        .map_err(|source| Error::Network {
            context: format!("cannot accept a connection on {local}"),
            source,
        })?
        .ok_or(Error::Interrupted)
}

fn clone(stream: &TcpStream) -> Result<TcpStream, Error> {
    stream.try_clone().map_err(|source| Error::Network {
        context: "cannot set up the connection".to_owned(),
        source,
    })
}

/// Connects to the second program (10 s at most).
fn connect(address: &Address) -> Result<TcpStream, Error> {
    connect_stream(address.to_string(), Duration::from_secs(10)).map_err(|source| Error::Network {
        context: format!("cannot connect to {address}"),
        source,
    })
}
