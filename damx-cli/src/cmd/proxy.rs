//! `damx proxy`: sits between two DXP programs, forwards every byte unchanged, and logs each
//! message with its direction and time, flagging what breaks the spec.
//!
//! It listens on `--listen` for the first program (A), then connects to `--connect` (the
//! second program, B). Two threads copy the bytes, one direction each, as soon as they arrive
//! (no reframing, no delay: a program's merged or split frames reach the other as they were
//! sent). Each chunk also goes to this thread, just before it is forwarded (so the log keeps
//! the order of cause and effect), which cuts it into frames per direction with
//! damx-wire's framer and follows the dialogue with [`damx_session::monitor::Monitor`]: each
//! frame is one log line (`t`, direction, raw text, meaning), each finding one more line
//! (`!!`). When both directions have ended (or at Ctrl-C) it prints a summary; the exit code
//! is 4 if anything was flagged.
//!
//! With `-q` only the findings and the summary are written. Findings are written at most
//! [`FINDINGS_A_SECOND`] a second; the next one written says how many were left out (the
//! summary counts them all).

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use crossbeam_channel::{Receiver, Sender, bounded};
use damx_session::monitor::{Finding, Monitor, Observation, Party};
use damx_wire::{Framer, StreamError};
use serde_json::{Value, json};

use crate::error::Error;
use crate::input::Quoted;
use crate::log::{self, Level};
use crate::session::{interrupted, on_interrupt_saying, session_error};
use damx_session::{Address, Control, accept_stream, connect_stream};

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

/// What the copying threads report.
enum Traffic {
    /// Bytes from a party, already forwarded.
    Bytes(Party, Vec<u8>, Instant),
    /// A party's stream ended (or failed).
    End(Party, Option<io::Error>, Instant),
}

/// Relays one connection between the two programs and logs it.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let listener = config.listen.bind().map_err(session_error)?;
    let local = listener.local_addr().map_err(|source| Error::Network {
        context: format!("cannot listen on {}", config.listen),
        source,
    })?;
    let mut log = Log {
        json: config.json,
        start: Instant::now(),
        findings: 0,
        frames: [0; 2],
        findings_written: None,
        findings_left_out: 0,
    };
    log.line(
        out,
        json!({"type": "listening", "address": local.to_string()}),
        || format!("listening on {local}"),
    )?;
    let (a, a_address) = wait_for_a(&listener, local)?;
    drop(listener);
    log.start = Instant::now();
    let b = connect(&config.connect)?;
    let b_address = b.peer_addr().ok();
    log.line(
        out,
        json!({"type": "connected", "a": a_address.to_string(),
               "b": b_address.map(|address| address.to_string())}),
        || {
            format!(
                "A = {a_address} (connected to us), B = {} (we connected)",
                b_address
                    .map(|address| address.to_string())
                    .unwrap_or_default()
            )
        },
    )?;
    let traffic = start_copying(&a, &b)?;
    watch(traffic, &mut log, out)?;
    log.summary(out)?;
    if interrupted() {
        return Err(Error::Interrupted);
    }
    match log.findings {
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

/// Copies A to B and B to A on threads of their own; what passes comes out of the channel.
fn start_copying(a: &TcpStream, b: &TcpStream) -> Result<Receiver<Traffic>, Error> {
    let _ = a.set_nodelay(true);
    let _ = b.set_nodelay(true);
    // A program whose machine vanished is noticed (as an end of stream) within a minute.
    let _ = damx_session::connection::keepalive(a);
    let _ = damx_session::connection::keepalive(b);

    // Ctrl-C from now on: shut both connections, which ends the copying.
    let (shut_a, shut_b) = (clone(a)?, clone(b)?);
    on_interrupt_saying("closing both connections", move |_| {
        let _ = shut_a.shutdown(Shutdown::Both);
        let _ = shut_b.shutdown(Shutdown::Both);
    });
    // Bounded: a program that floods the other makes its copy wait for the log, not memory
    // grow.
    let (traffic_tx, traffic) = bounded::<Traffic>(TRAFFIC_KEPT);
    spawn_copy(Party::A, clone(a)?, clone(b)?, traffic_tx.clone());
    spawn_copy(Party::B, clone(b)?, clone(a)?, traffic_tx);
    Ok(traffic)
}

/// Frames what passes, has the monitor judge each frame and each end, and logs them, until
/// both directions have ended.
fn watch(traffic: Receiver<Traffic>, log: &mut Log, out: &mut dyn Write) -> Result<(), Error> {
    let mut monitor = Monitor::new();
    let mut framers = [Framer::new(), Framer::new()];
    let mut buffers = [BytesMut::new(), BytesMut::new()];
    for item in traffic {
        match item {
            Traffic::Bytes(party, bytes, at) => {
                let side = index(party);
                buffers[side].extend_from_slice(&bytes);
                loop {
                    let (raw, observation) = match framers[side].next_frame(&mut buffers[side]) {
                        Ok(None) => break,
                        Ok(Some(frame)) => {
                            let decoded = frame.decode().map_err(|error| StreamError::Decode {
                                error,
                                raw: frame.raw(),
                            });
                            let observation = monitor.frame_at(at, party, decoded.as_ref());
                            (frame.as_bytes().to_vec(), (Some(decoded), observation))
                        }
                        Err(error) => {
                            let raw = error.raw().as_bytes().to_vec();
                            let observation = monitor.frame_at(at, party, Err::<&_, _>(&error));
                            (raw, (None, observation))
                        }
                    };
                    log.frame(out, party, at, &raw, observation.0.as_ref(), observation.1)?;
                }
            }
            Traffic::End(party, error, at) => {
                let side = index(party);
                if let Some(error) = framers[side].finish(&mut buffers[side]) {
                    let raw = error.raw().as_bytes().to_vec();
                    let observation = monitor.frame_at(at, party, Err::<&_, _>(&error));
                    log.frame(out, party, at, &raw, None, observation)?;
                }
                let observation = monitor.closed(party);
                log.end(out, party, at, error.as_ref(), observation)?;
            }
        }
    }
    Ok(())
}

fn index(party: Party) -> usize {
    match party {
        Party::A => 0,
        Party::B => 1,
    }
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

/// How many findings are written a second.
const FINDINGS_A_SECOND: u32 = 5;

/// How many chunks read wait for the log before the copying waits.
const TRAFFIC_KEPT: usize = 256;

/// Copies `from`'s bytes to `to` as they come, reporting each chunk first; at the end of
/// `from`, half-closes `to` so that the other program sees the end too.
fn spawn_copy(party: Party, mut from: TcpStream, mut to: TcpStream, traffic: Sender<Traffic>) {
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        let end = loop {
            match from.read(&mut chunk) {
                Ok(0) => break None,
                Ok(n) => {
                    // Logged before it is forwarded, so that an answer to these bytes can never
                    // be logged before them.
                    let _ =
                        traffic.send(Traffic::Bytes(party, chunk[..n].to_vec(), Instant::now()));
                    if let Err(error) = to.write_all(&chunk[..n]) {
                        break Some(error);
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => break Some(error),
            }
        };
        let _ = to.shutdown(Shutdown::Write);
        let _ = from.shutdown(Shutdown::Read);
        let _ = traffic.send(Traffic::End(party, end, Instant::now()));
    });
}

/// The log: text lines or JSON lines.
struct Log {
    json: bool,
    start: Instant,
    findings: usize,
    frames: [usize; 2],
    /// The second in which findings written are counted, and how many were written in it.
    findings_written: Option<(Instant, u32)>,
    /// Findings left out since the last one written.
    findings_left_out: u64,
}

impl Log {
    fn line(
        &self,
        out: &mut dyn Write,
        value: Value,
        text: impl FnOnce() -> String,
    ) -> Result<(), Error> {
        let written = if self.json {
            serde_json::to_writer(&mut *out, &value)
                .map_err(io::Error::from)
                .and_then(|()| writeln!(out))
        } else {
            // What the programs sent is data: no control character reaches the terminal, and
            // a line break in a chat cannot start a line of its own.
            writeln!(out, "{}", crate::show::escaped(&text()))
        };
        written.and_then(|()| out.flush()).map_err(Error::stdout)
    }

    fn seconds(&self, at: Instant) -> f64 {
        (at.saturating_duration_since(self.start).as_secs_f64() * 1000.0).round() / 1000.0
    }

    fn frame(
        &mut self,
        out: &mut dyn Write,
        party: Party,
        at: Instant,
        raw: &[u8],
        decoded: Option<&Result<damx_wire::Message, StreamError>>,
        observation: Observation,
    ) -> Result<(), Error> {
        self.frames[index(party)] += 1;
        let t = self.seconds(at);
        if !log::enabled(Level::Normal) {
            return self.findings(out, t, observation.findings);
        }
        let arrow = arrow(party);
        let quoted = Quoted(raw).to_string();
        let message = match decoded {
            Some(Ok(message)) => serde_json::to_value(message).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let error = match decoded {
            Some(Err(error)) => Some(error.to_string()),
            _ => None,
        };
        let note = observation.note.clone();
        self.line(
            out,
            json!({"type": "frame", "t": t, "from": party.as_str(), "to": party.other().as_str(),
                   "raw": quoted.trim_matches('"'), "message": message, "error": error,
                   "note": note}),
            || {
                let meaning = note.unwrap_or_else(|| error.clone().unwrap_or_default());
                format!("{t:>9.3}  {arrow}  {quoted:<46}  {meaning}")
                    .trim_end()
                    .to_owned()
            },
        )?;
        self.findings(out, t, observation.findings)
    }

    fn findings(
        &mut self,
        out: &mut dyn Write,
        t: f64,
        findings: Vec<Finding>,
    ) -> Result<(), Error> {
        for finding in findings {
            self.findings += 1;
            let now = Instant::now();
            let (since, written) = match self.findings_written {
                Some((since, written)) if now.duration_since(since) < Duration::from_secs(1) => {
                    (since, written)
                }
                _ => (now, 0),
            };
            if written >= FINDINGS_A_SECOND {
                self.findings_left_out += 1;
                self.findings_written = Some((since, written));
                continue;
            }
            self.findings_written = Some((since, written + 1));
            let left_out = std::mem::take(&mut self.findings_left_out);
            if left_out > 0 {
                self.line(
                    out,
                    json!({"type": "findings_left_out", "t": t, "count": left_out}),
                    || format!("{t:>9.3}  !!    ({left_out} more findings not shown)"),
                )?;
            }
            self.line(
                out,
                json!({"type": "finding", "t": t, "kind": finding.kind.as_str(),
                       "by": finding.by.as_str(), "what": finding.what}),
                || format!("{t:>9.3}  !!    {} {}", finding.by, finding.what),
            )?;
        }
        Ok(())
    }

    fn end(
        &mut self,
        out: &mut dyn Write,
        party: Party,
        at: Instant,
        error: Option<&io::Error>,
        observation: Observation,
    ) -> Result<(), Error> {
        let t = self.seconds(at);
        let why = error.map(crate::error::describe_io);
        self.line(
            out,
            json!({"type": "closed", "t": t, "by": party.as_str(), "error": why}),
            || match &why {
                Some(why) => format!("{t:>9.3}  {}  connection failed: {why}", arrow(party)),
                None => format!("{t:>9.3}  {}  end of stream", arrow(party)),
            },
        )?;
        self.findings(out, t, observation.findings)
    }

    fn summary(&self, out: &mut dyn Write) -> Result<(), Error> {
        let [a, b] = self.frames;
        self.line(
            out,
            json!({"type": "summary", "frames_from_a": a, "frames_from_b": b,
                   "findings": self.findings}),
            || {
                format!(
                    "{a} frames from A, {b} from B, {} finding{}",
                    self.findings,
                    if self.findings == 1 { "" } else { "s" }
                )
            },
        )
    }
}

fn arrow(party: Party) -> &'static str {
    match party {
        Party::A => "A>B",
        Party::B => "B>A",
    }
}
