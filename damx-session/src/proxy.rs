//! A DXP proxy's log: what passes between two programs, frame by frame, with what each
//! frame means and what breaks the spec; as `damx proxy` prints it.
//!
//! [`relay`] copies the bytes of two connected streams to each other on threads of their
//! own, one direction each, as soon as they arrive (no reframing, no delay: a program's
//! merged or split frames reach the other as they were sent), and reports each chunk just
//! before it is forwarded, so that a log keeps the order of cause and effect.
//! [`ProxyLog`] takes those reports ([`Traffic`]), cuts each direction into frames with
//! damx-wire's framer, follows the dialogue with a [`Monitor`] and returns [`Entry`]s: one a
//! frame (time, direction, raw text, meaning), one a finding, one an end of stream, and a
//! summary at the end. Each entry reads as a text line ([`Entry::text`]) or a JSON object
//! ([`Entry::json`]). Findings are given at most [`FINDINGS_A_SECOND`] a second; the next one
//! given says how many were left out (the summary counts them all).
//!
//! ```
//! use std::time::Instant;
//!
//! use damx_session::monitor::Party;
//! use damx_session::proxy::{Entry, ProxyLog};
//!
//! let start = Instant::now();
//! let mut log = ProxyLog::new(start);
//! let entries = log.bytes(Party::A, b"R01Tester                          W005000A\0", start);
//! assert!(matches!(&entries[0], Entry::Frame { .. }));
//! assert_eq!(log.summary().text(), "1 frames from A, 0 from B, 0 findings");
//! ```

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded, select};
use damx_wire::{Escaped, Framer, Message, StreamError};
use serde_json::{Value, json};

use crate::driver::{Address, SessionError, accept_stream, connect_stream};
use crate::event::Command;
use crate::monitor::{Finding, Monitor, Observation, Party};
use crate::render::{PerSecond, describe_io};

/// How many findings are given a second.
pub const FINDINGS_A_SECOND: u32 = 5;

/// How many chunks read wait for the log before the copying waits.
const TRAFFIC_KEPT: usize = 256;

/// Once one program's stream has ended, how long the other has to close its own before the
/// proxy closes both (a program may keep a socket open after its peer has gone).
pub const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// What the copying threads of [`relay`] report.
#[derive(Debug)]
pub enum Traffic {
    /// Bytes from a party, about to be forwarded.
    Bytes(Party, Vec<u8>, Instant),
    /// A party's stream ended (`None`) or failed.
    End(Party, Option<io::Error>, Instant),
}

/// Copies `a` to `b` and `b` to `a` on threads of their own; what passes comes out of the
/// channel, which closes when both directions have ended. At the end of one party's stream
/// the other's write half is closed, so that it sees the end too. Bounded: a program that
/// floods the other makes its copy wait for the log, not memory grow.
///
/// # Errors
/// If the streams cannot be cloned.
pub fn relay(a: &TcpStream, b: &TcpStream) -> io::Result<Receiver<Traffic>> {
    for stream in [a, b] {
        let _ = stream.set_nodelay(true);
        // A program whose machine vanished is noticed (as an end of stream) within a minute.
        let _ = crate::connection::keepalive(stream);
    }
    let (traffic_tx, traffic) = bounded::<Traffic>(TRAFFIC_KEPT);
    spawn_copy(Party::A, a.try_clone()?, b.try_clone()?, traffic_tx.clone());
    spawn_copy(Party::B, b.try_clone()?, a.try_clone()?, traffic_tx);
    Ok(traffic)
}

/// Copies `from`'s bytes to `to` as they come, reporting each chunk first.
fn spawn_copy(party: Party, mut from: TcpStream, mut to: TcpStream, traffic: Sender<Traffic>) {
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        let end = loop {
            match from.read(&mut chunk) {
                Ok(0) => break None,
                Ok(n) => {
                    // Reported before it is forwarded, so that an answer to these bytes can
                    // never be logged before them.
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

/// Runs a proxy between two programs: listens on `listen` for program A, connects to program
/// B at `b` (within 10 s), relays between them ([`relay`]) and logs it ([`ProxyLog`]), handing
/// `on` each entry as it comes, [`Entry::Listening`] and [`Entry::Connected`] first. Returns
/// the log once both streams have ended (or [`CLOSE_WAIT`] after the first did: then the
/// proxy closes the other), for its summary and findings; `None` when a
/// [`Command::Stop`] or [`Command::Abort`] came before A connected, or `on` failed at once. Either command once they
/// are connected shuts both connections, which ends the relay; so does `on` failing (nobody
/// reads the log any more).
///
/// # Errors
/// If the address cannot be listened on, accepting or connecting fails, or the relay cannot
/// be set up.
pub fn run_proxy(
    listen: &Address,
    b: &Address,
    control: &Receiver<Command>,
    mut on: impl FnMut(Entry) -> io::Result<()>,
) -> Result<Option<ProxyLog>, SessionError> {
    let listener = listen.bind()?;
    let local = listener
        .local_addr()
        .map_err(|source| SessionError::Listen {
            address: listen.to_string(),
            source,
        })?;
    if on(Entry::Listening { address: local }).is_err() {
        return Ok(None);
    }
    let accepted = accept_stream(&listener, control).map_err(|source| SessionError::Listen {
        address: local.to_string(),
        source,
    })?;
    let Some((a, a_address)) = accepted else {
        return Ok(None);
    };
    drop(listener);
    let mut log = ProxyLog::new(Instant::now());
    let b = connect_stream(b.to_string(), Duration::from_secs(10)).map_err(|source| {
        SessionError::Connect {
            address: b.to_string(),
            source,
        }
    })?;
    let b_address = b.peer_addr().ok();
    let mut going = on(Entry::Connected {
        a: a_address,
        b: b_address,
    })
    .is_ok();
    let shut = [
        a.try_clone().map_err(SessionError::Connection)?,
        b.try_clone().map_err(SessionError::Connection)?,
    ];
    let shut_both = || {
        for stream in &shut {
            let _ = stream.shutdown(Shutdown::Both);
        }
    };
    let traffic = relay(&a, &b).map_err(SessionError::Connection)?;
    if !going {
        shut_both();
    }
    let (done, finished) = bounded::<()>(0);
    thread::scope(|scope| {
        scope.spawn(|| {
            loop {
                select! {
                    recv(control) -> command => match command {
                        Ok(Command::Stop | Command::Abort) => break shut_both(),
                        // Nothing else means anything to a proxy.
                        Ok(_) => {}
                        Err(_) => break,
                    },
                    recv(finished) -> _ => break,
                }
            }
        });
        // Once a stream has ended, the other has CLOSE_WAIT to end too.
        let mut closing: Option<Instant> = None;
        loop {
            let item = match closing {
                None => traffic.recv().ok(),
                Some(deadline) => match traffic.recv_deadline(deadline) {
                    Ok(item) => Some(item),
                    Err(RecvTimeoutError::Timeout) => {
                        shut_both();
                        closing = Some(Instant::now() + CLOSE_WAIT);
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                },
            };
            let Some(item) = item else { break };
            if matches!(item, Traffic::End(..)) && closing.is_none() {
                closing = Some(Instant::now() + CLOSE_WAIT);
            }
            for entry in log.traffic(item, describe_io) {
                if going && on(entry).is_err() {
                    going = false;
                    shut_both();
                }
            }
        }
        drop(done);
    });
    Ok(Some(log))
}

/// One entry of the log; `t` is in seconds since the log's start, to the millisecond.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// [`run_proxy`] waits for program A on this address.
    Listening {
        /// The address (the port chosen when port 0 was asked for).
        address: SocketAddr,
    },
    /// Program A connected from `a`, and we connected to program B at `b`.
    Connected {
        /// A's address.
        a: SocketAddr,
        /// B's address, when the socket knows it.
        b: Option<SocketAddr>,
    },
    /// A frame from `from` (or bytes that are not one).
    Frame {
        /// When it arrived.
        t: f64,
        /// Who sent it.
        from: Party,
        /// Its bytes, quoted, escaped and cut after 127 bytes.
        raw: String,
        /// The message it decoded to.
        message: Option<Message>,
        /// Why it does not decode, when it is a frame (bytes that are not one say so in a
        /// finding).
        error: Option<String>,
        /// What it means in the dialogue.
        note: Option<String>,
    },
    /// Something that broke the spec.
    Finding {
        /// When.
        t: f64,
        /// What, and by whom.
        finding: Finding,
    },
    /// Findings not given, the rate being spent, before the next one.
    LeftOut {
        /// When.
        t: f64,
        /// How many.
        count: u64,
    },
    /// A party's stream ended, or failed with `error` (in words).
    Closed {
        /// When.
        t: f64,
        /// Whose stream.
        by: Party,
        /// Why it failed.
        error: Option<String>,
    },
    /// How many frames came from each party, and the findings in all.
    Summary {
        /// Frames from A and from B.
        frames: [usize; 2],
        /// Every finding, those left out included.
        findings: usize,
    },
}

impl Entry {
    /// The entry as a line of text (the programs' text escaped by the caller where it shows
    /// it on a terminal).
    pub fn text(&self) -> String {
        match self {
            Entry::Listening { address } => format!("listening on {address}"),
            Entry::Connected { a, b } => format!(
                "A = {a} (connected to us), B = {} (we connected)",
                b.map(|b| b.to_string()).unwrap_or_default()
            ),
            Entry::Frame {
                t,
                from,
                raw,
                error,
                note,
                ..
            } => {
                let meaning = note.clone().or_else(|| error.clone()).unwrap_or_default();
                format!("{t:>9.3}  {}  {raw:<46}  {meaning}", arrow(*from))
                    .trim_end()
                    .to_owned()
            }
            Entry::Finding { t, finding } => {
                format!("{t:>9.3}  !!    {} {}", finding.by, finding.what)
            }
            Entry::LeftOut { t, count } => {
                format!("{t:>9.3}  !!    ({count} more findings not shown)")
            }
            Entry::Closed { t, by, error } => match error {
                Some(why) => format!("{t:>9.3}  {}  connection failed: {why}", arrow(*by)),
                None => format!("{t:>9.3}  {}  end of stream", arrow(*by)),
            },
            Entry::Summary {
                frames: [a, b],
                findings,
            } => format!(
                "{a} frames from A, {b} from B, {findings} finding{}",
                if *findings == 1 { "" } else { "s" }
            ),
        }
    }

    /// The entry as one JSON object, its `type` one of `listening`, `connected`, `frame`,
    /// `finding`, `findings_left_out`, `closed` and `summary`.
    pub fn json(&self) -> Value {
        match self {
            Entry::Listening { address } => {
                json!({"type": "listening", "address": address.to_string()})
            }
            Entry::Connected { a, b } => json!({
                "type": "connected", "a": a.to_string(), "b": b.map(|b| b.to_string()),
            }),
            Entry::Frame {
                t,
                from,
                raw,
                message,
                error,
                note,
            } => json!({
                "type": "frame", "t": t, "from": from.as_str(), "to": from.other().as_str(),
                "raw": raw.trim_matches('"'),
                "message": message.as_ref().and_then(|m| serde_json::to_value(m).ok()),
                "error": error, "note": note,
            }),
            Entry::Finding { t, finding } => json!({
                "type": "finding", "t": t, "kind": finding.kind.as_str(),
                "by": finding.by.as_str(), "what": finding.what,
            }),
            Entry::LeftOut { t, count } => {
                json!({"type": "findings_left_out", "t": t, "count": count})
            }
            Entry::Closed { t, by, error } => {
                json!({"type": "closed", "t": t, "by": by.as_str(), "error": error})
            }
            Entry::Summary {
                frames: [a, b],
                findings,
            } => json!({
                "type": "summary", "frames_from_a": a, "frames_from_b": b,
                "findings": findings,
            }),
        }
    }
}

/// `A>B` or `B>A`.
fn arrow(party: Party) -> &'static str {
    match party {
        Party::A => "A>B",
        Party::B => "B>A",
    }
}

/// The log of one proxied connection; see the module docs.
#[derive(Debug)]
pub struct ProxyLog {
    start: Instant,
    monitor: Monitor,
    framers: [Framer; 2],
    buffers: [BytesMut; 2],
    frames: [usize; 2],
    findings: usize,
    given: PerSecond,
}

impl ProxyLog {
    /// A log whose times count from `start`.
    pub fn new(start: Instant) -> ProxyLog {
        ProxyLog {
            start,
            monitor: Monitor::new(),
            framers: [Framer::new(), Framer::new()],
            buffers: [BytesMut::new(), BytesMut::new()],
            frames: [0; 2],
            findings: 0,
            given: PerSecond::new(FINDINGS_A_SECOND),
        }
    }

    /// Every finding so far, those left out included.
    pub fn findings(&self) -> usize {
        self.findings
    }

    /// The entries of one report of [`relay`], the failure of a stream told in words by
    /// `describe`.
    pub fn traffic(
        &mut self,
        traffic: Traffic,
        describe: impl Fn(&io::Error) -> String,
    ) -> Vec<Entry> {
        match traffic {
            Traffic::Bytes(party, bytes, at) => self.bytes(party, &bytes, at),
            Traffic::End(party, error, at) => self.end(party, error.as_ref().map(describe), at),
        }
    }

    /// The entries of bytes from `party` that arrived at `at`: a frame each, with its
    /// findings.
    pub fn bytes(&mut self, party: Party, bytes: &[u8], at: Instant) -> Vec<Entry> {
        let side = index(party);
        self.buffers[side].extend_from_slice(bytes);
        let mut entries = Vec::new();
        loop {
            let entry = match self.framers[side].next_frame(&mut self.buffers[side]) {
                Ok(None) => break,
                Ok(Some(frame)) => {
                    let decoded = frame.decode().map_err(|error| StreamError::Decode {
                        error,
                        raw: frame.raw(),
                    });
                    let observation = self.monitor.frame_at(at, party, decoded.as_ref());
                    let raw = quoted(frame.as_bytes());
                    self.frame(party, at, raw, Some(decoded), observation)
                }
                Err(error) => {
                    let observation = self.monitor.frame_at(at, party, Err::<&_, _>(&error));
                    self.frame(party, at, quoted(error.raw().as_bytes()), None, observation)
                }
            };
            entries.extend(entry);
        }
        entries
    }

    /// The entries of the end of `party`'s stream at `at` (`error`: it failed, in words):
    /// what was left unframed, the end, and their findings.
    pub fn end(&mut self, party: Party, error: Option<String>, at: Instant) -> Vec<Entry> {
        let side = index(party);
        let mut entries = Vec::new();
        if let Some(error) = self.framers[side].finish(&mut self.buffers[side]) {
            let observation = self.monitor.frame_at(at, party, Err::<&_, _>(&error));
            let raw = quoted(error.raw().as_bytes());
            entries.extend(self.frame(party, at, raw, None, observation));
        }
        let observation = self.monitor.closed(party);
        let t = self.seconds(at);
        entries.push(Entry::Closed {
            t,
            by: party,
            error,
        });
        self.give_findings(t, observation.findings, &mut entries);
        entries
    }

    /// What the programs did wrong, in words (`None`: nothing): how many violations of the
    /// spec were flagged.
    pub fn trouble(&self) -> Option<String> {
        let s = if self.findings == 1 { "" } else { "s" };
        (self.findings > 0)
            .then(|| format!("{} violation{s} of the spec flagged above", self.findings))
    }

    /// The summary, once both streams have ended.
    pub fn summary(&self) -> Entry {
        Entry::Summary {
            frames: self.frames,
            findings: self.findings,
        }
    }

    fn frame(
        &mut self,
        party: Party,
        at: Instant,
        raw: String,
        decoded: Option<Result<Message, StreamError>>,
        observation: Observation,
    ) -> Vec<Entry> {
        self.frames[index(party)] += 1;
        let t = self.seconds(at);
        let (message, error) = match decoded {
            Some(Ok(message)) => (Some(message), None),
            Some(Err(error)) => (None, Some(error.to_string())),
            None => (None, None),
        };
        let mut entries = vec![Entry::Frame {
            t,
            from: party,
            raw,
            message,
            error,
            note: observation.note,
        }];
        self.give_findings(t, observation.findings, &mut entries);
        entries
    }

    /// Adds the findings to `entries`, at most [`FINDINGS_A_SECOND`] a second.
    fn give_findings(&mut self, t: f64, findings: Vec<Finding>, entries: &mut Vec<Entry>) {
        for finding in findings {
            self.findings += 1;
            let Some(count) = self.given.allow() else {
                continue;
            };
            if count > 0 {
                entries.push(Entry::LeftOut { t, count });
            }
            entries.push(Entry::Finding { t, finding });
        }
    }

    fn seconds(&self, at: Instant) -> f64 {
        (at.saturating_duration_since(self.start).as_secs_f64() * 1000.0).round() / 1000.0
    }
}

fn index(party: Party) -> usize {
    match party {
        Party::A => 0,
        Party::B => 1,
    }
}

/// Raw bytes quoted for the log ([`Escaped`]'s alternate form).
fn quoted(raw: &[u8]) -> String {
    format!("{:#}", Escaped(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game request and its acceptance read as two frames with their meaning; a frame
    /// that is no DXP message is one more frame and a finding; the end counts them all.
    #[test]
    fn frames_findings_and_summary() {
        let start = Instant::now();
        let mut log = ProxyLog::new(start);
        // Split across two chunks: framed when the terminator arrives.
        assert!(log.bytes(Party::A, b"R01Tester      ", start).is_empty());
        let request = log.bytes(Party::A, b"                    W005000A\0", start);
        let [Entry::Frame { message, note, .. }] = request.as_slice() else {
            panic!("{request:?}");
        };
        assert!(matches!(message, Some(Message::GameReq(_))));
        assert!(note.is_some());
        let bad = log.bytes(Party::B, b"Zzz\0", start);
        assert!(
            matches!(&bad[1], Entry::Finding { finding, .. } if finding.by == Party::B),
            "{bad:?}"
        );
        assert!(bad[0].text().contains("B>A  \"Zzz\""), "{}", bad[0].text());
        assert_eq!(bad[1].json()["kind"], "bad_frame");
        let end = log.end(Party::A, Some("reset by peer".into()), start);
        assert_eq!(
            end[0].text(),
            "    0.000  A>B  connection failed: reset by peer"
        );
        assert_eq!(log.summary().text(), "1 frames from A, 1 from B, 1 finding");
        let flagged = log.trouble();
        assert_eq!(
            flagged.as_deref(),
            Some("1 violation of the spec flagged above")
        );
        assert_eq!(ProxyLog::new(start).trouble(), None);
        assert_eq!(log.summary().json()["frames_from_b"], 1);
    }

    /// Findings are given a few a second; the next one says how many were left out, and
    /// the summary counts them all.
    #[test]
    fn findings_are_rate_limited() {
        let start = Instant::now();
        let mut log = ProxyLog::new(start);
        let mut entries = Vec::new();
        for _ in 0..50 {
            entries.extend(log.bytes(Party::A, b"?\0", start));
        }
        let given = entries
            .iter()
            .filter(|entry| matches!(entry, Entry::Finding { .. }))
            .count();
        assert_eq!(given, FINDINGS_A_SECOND as usize);
        assert!(log.findings() >= 50);
        assert_eq!(
            entries
                .iter()
                .filter(|e| matches!(e, Entry::Frame { .. }))
                .count(),
            50
        );
    }

    /// Raw bytes are quoted, escaped and cut.
    #[test]
    fn raw_bytes_are_quoted() {
        assert_eq!(quoted(b"C\"a\\b\x00\xff"), r#""C\"a\\b\x00\xff""#);
        assert!(quoted(&[b'C'; 130]).ends_with("\"... (130 bytes)"));
    }
}
