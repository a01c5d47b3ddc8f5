//! A connection: a pair of channels with a reader and a writer thread behind them.
//!
//! The reader thread reads the byte stream, splits it into frames with
//! [`damx_wire::Framer`] and decodes them; each message, bad frame, end of stream or read
//! error arrives on [`Connection::incoming`] as an [`Incoming`]. The writer thread encodes the
//! messages given to [`Connection::send`] and writes one frame at a time, at least
//! [`ConnectionOptions::frame_gap`] apart: pydraughts and DXC100 read whatever has arrived and
//! keep only the first frame, so two frames must not arrive together (dxp.md §6); the same gap
//! puts about 100 ms between a GAMEACC and a first MOVE. A write error also arrives as an
//! [`Incoming::Failed`]. Nothing here panics on what the peer sends, and the reader never holds
//! more than one frame's worth of unframed bytes.
//!
//! Both directions are bounded whatever the peer does: at most [`INCOMING_KEPT`] received
//! items wait for the session (past that the reader stops reading, and TCP slows the peer
//! down), and at most [`CHATS_QUEUED`] CHAT messages wait for the writer (more are dropped;
//! game messages never are).
//!
//! The same threads run over a [`TcpStream`] ([`Connection::tcp`]) or over an in-memory pipe
//! ([`Connection::pair`], for tests). Every frame in and out can be written to a
//! [`Transcript`].

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use crossbeam_channel::{Receiver, Sender, bounded, select, unbounded};
use damx_wire::{Framer, Message, StreamError};

use crate::event::Direction;
use crate::machine::Incoming;

/// How many received items wait for the session before the reader stops reading.
pub const INCOMING_KEPT: usize = 64;

/// How many CHAT messages may wait for the writer; more are dropped.
pub const CHATS_QUEUED: usize = 8;

/// How many notes of MOVE frames written [`Connection::moves_sent`] keeps while unread.
pub const MOVES_SENT_KEPT: usize = 64;

/// How a connection writes.
#[derive(Clone, Debug)]
pub struct ConnectionOptions {
    /// The least time between two frames written.
    pub frame_gap: Duration,
    /// Where every frame in and out is logged.
    pub transcript: Option<Transcript>,
}

impl Default for ConnectionOptions {
    /// 100 ms between frames, no transcript.
    fn default() -> ConnectionOptions {
        ConnectionOptions {
            frame_gap: Duration::from_millis(100),
            transcript: None,
        }
    }
}

/// How long a connection may be quiet before the kernel probes it with a TCP keepalive.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
/// The gap between two keepalive probes.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
/// Unanswered probes after which the kernel reports the connection as dead.
pub const KEEPALIVE_PROBES: u32 = 3;

/// Turns on TCP keepalive for `stream`: a peer whose machine vanished (power cut, cable
/// pulled, a NAT that forgot the connection) is noticed after [`KEEPALIVE_IDLE`] plus
/// [`KEEPALIVE_PROBES`] times [`KEEPALIVE_INTERVAL`] (60 s), as a read error, even where no
/// DXP deadline runs (our own turn, a long clock). [`Connection::tcp`] calls it; a program
/// that relays raw streams (`damx proxy`) calls it on both.
///
/// # Errors
/// If the system refuses the socket options.
pub fn keepalive(stream: &TcpStream) -> io::Result<()> {
    let settings = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL);
    #[cfg(not(any(windows, target_os = "openbsd", target_os = "haiku")))]
    let settings = settings.with_retries(KEEPALIVE_PROBES);
    socket2::SockRef::from(stream).set_tcp_keepalive(&settings)
}

/// What the writer thread is asked to do.
enum Outgoing {
    Message(Message),
    Close,
}

/// Closes the transport from any thread, so that a blocked read returns.
trait Shut: Send + Sync {
    fn shut(&self);
}

impl Shut for TcpStream {
    fn shut(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

/// A DXP connection. Dropping it closes the transport at once; [`Connection::close`] first lets
/// the writer send what was queued.
pub struct Connection {
    incoming: Receiver<Incoming>,
    moves_sent: Receiver<Instant>,
    outgoing: Sender<Outgoing>,
    writer_done: Receiver<()>,
    shut: Arc<dyn Shut>,
    peer: Option<SocketAddr>,
    /// CHAT messages queued and not yet written.
    chats_queued: Arc<AtomicUsize>,
}

impl Connection {
    /// A connection over a connected TCP stream.
    ///
    /// # Errors
    /// If the stream cannot be cloned for the two threads.
    pub fn tcp(stream: TcpStream, options: ConnectionOptions) -> io::Result<Connection> {
        // Frames are small and each must go out at once.
        stream.set_nodelay(true)?;
        keepalive(&stream)?;
        let peer = stream.peer_addr().ok();
        let reader = stream.try_clone()?;
        let writer = stream.try_clone()?;
        let half_close = stream.try_clone()?;
        let finish_write = move || {
            let _ = half_close.shutdown(Shutdown::Write);
        };
        Ok(Connection::spawn(
            reader,
            writer,
            finish_write,
            Arc::new(stream),
            peer,
            options,
        ))
    }

    /// Two connections joined by in-memory pipes: what one sends, the other receives, as
    /// bytes through the same framing and decoding as a socket.
    pub fn pair(a: ConnectionOptions, b: ConnectionOptions) -> (Connection, Connection) {
        let (a_to_b, b_from_a) = unbounded();
        let (b_to_a, a_from_b) = unbounded();
        let end = |tx: Sender<Vec<u8>>, rx: Receiver<Vec<u8>>, options| {
            let (stop_tx, stop_rx) = unbounded::<()>();
            let shut = Arc::new(PipeShut(Mutex::new(Some(stop_tx))));
            let writer = PipeWriter(Arc::new(Mutex::new(Some(tx))));
            let finish = writer.clone();
            Connection::spawn(
                PipeReader {
                    data: rx,
                    stop: stop_rx,
                    pending: Vec::new(),
                },
                writer,
                move || finish.close(),
                shut,
                None,
                options,
            )
        };
        (end(a_to_b, a_from_b, a), end(b_to_a, b_from_a, b))
    }

    fn spawn(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        finish_write: impl FnOnce() + Send + 'static,
        shut: Arc<dyn Shut>,
        peer: Option<SocketAddr>,
        options: ConnectionOptions,
    ) -> Connection {
        let (incoming_tx, incoming) = bounded(INCOMING_KEPT);
        let (outgoing, outgoing_rx) = unbounded();
        let chats_queued = Arc::new(AtomicUsize::new(0));
        let chats_written = Arc::clone(&chats_queued);
        let (writer_done_tx, writer_done) = unbounded();
        let (moves_sent_tx, moves_sent) = bounded(MOVES_SENT_KEPT);
        let transcript = options.transcript.clone();
        let reader_tx = incoming_tx.clone();
        // A thread that cannot be started (no threads or memory left) fails the connection at
        // once, as a failed read would, instead of passing for a silent peer.
        let unstarted = incoming_tx.clone();
        let failed = move |error: io::Error| {
            let _ = unstarted.try_send(Incoming::Failed(format!("cannot start a thread: {error}")));
        };
        if let Err(error) = thread::Builder::new()
            .name("dxp-reader".into())
            .spawn(move || read_loop(reader, &reader_tx, transcript.as_ref()))
        {
            failed(error);
        }
        let gap = options.frame_gap;
        let transcript = options.transcript;
        let spawned_writer = thread::Builder::new()
            .name("dxp-writer".into())
            .spawn(move || {
                let sides = Sides {
                    incoming: &incoming_tx,
                    moves_sent: &moves_sent_tx,
                    chats_queued: &chats_written,
                };
                write_loop(writer, &outgoing_rx, gap, &sides, transcript.as_ref());
                finish_write();
                drop(writer_done_tx);
            });
        if let Err(error) = spawned_writer {
            failed(error);
        }
        Connection {
            incoming,
            moves_sent,
            outgoing,
            writer_done,
            shut,
            peer,
            chats_queued,
        }
    }

    /// What arrives from the peer, in order; [`Incoming::Closed`] or [`Incoming::Failed`] last.
    pub fn incoming(&self) -> &Receiver<Incoming> {
        &self.incoming
    }

    /// When each of our MOVE frames was written to the peer, in order: the peer's turn starts
    /// then, not when the move was queued behind other frames and the gap between them. While
    /// nobody reads them, the first [`MOVES_SENT_KEPT`] are kept and later ones dropped.
    pub fn moves_sent(&self) -> &Receiver<Instant> {
        &self.moves_sent
    }

    /// Queues a message for the writer (nothing happens once the connection is closed). A CHAT
    /// is dropped while [`CHATS_QUEUED`] others wait; returns whether the message was queued.
    pub fn send(&self, message: Message) -> bool {
        if matches!(message, Message::Chat(_))
            && self.chats_queued.fetch_add(1, Ordering::SeqCst) >= CHATS_QUEUED
        {
            self.chats_queued.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        self.outgoing.send(Outgoing::Message(message)).is_ok()
    }

    /// The peer's address, for a TCP connection.
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// Sends what was queued (waiting at most `linger` for it), tells the peer we are done
    /// (end of stream), gives the peer up to `linger` again to close its end (what it sends
    /// meanwhile is dropped; closing a socket with unread bytes would reset the connection),
    /// and closes.
    pub fn close(self, linger: Duration) {
        let _ = self.outgoing.send(Outgoing::Close);
        // The writer drops its end of this channel when it has finished.
        let _ = self.writer_done.recv_timeout(linger);
        let deadline = Instant::now() + linger;
        while let Ok(item) = self.incoming.recv_deadline(deadline) {
            if matches!(item, Incoming::Closed | Incoming::Failed(_)) {
                break;
            }
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shut.shut();
    }
}

fn read_loop(mut reader: impl Read, incoming: &Sender<Incoming>, transcript: Option<&Transcript>) {
    let mut framer = Framer::new();
    let mut buf = BytesMut::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    let end = loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => break Incoming::Closed,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => break Incoming::Failed(format!("read failed: {error}")),
        };
        buf.extend_from_slice(&chunk[..read]);
        loop {
            let item = match framer.next_message(&mut buf) {
                Ok(None) => break,
                Ok(Some(message)) => Incoming::Message(message),
                Err(error) => Incoming::Bad(error),
            };
            log_incoming(transcript, &item);
            if incoming.send(item).is_err() {
                return;
            }
        }
    };
    if let Some(error) = framer.finish(&mut buf) {
        let item = Incoming::Bad(StreamError::Frame(error));
        log_incoming(transcript, &item);
        let _ = incoming.send(item);
    }
    let _ = incoming.send(end);
}

fn log_incoming(transcript: Option<&Transcript>, item: &Incoming) {
    let Some(transcript) = transcript else { return };
    match item {
        Incoming::Message(message) => transcript.message(Direction::In, message),
        Incoming::Bad(error) => transcript.bad_frame(error),
        Incoming::Closed | Incoming::Failed(_) => {}
    }
}

/// Where the writer reports: a failure to the incoming stream, each MOVE written to its own.
struct Sides<'a> {
    incoming: &'a Sender<Incoming>,
    moves_sent: &'a Sender<Instant>,
    /// Counted down as each CHAT is written.
    chats_queued: &'a AtomicUsize,
}

fn write_loop(
    mut writer: impl Write,
    outgoing: &Receiver<Outgoing>,
    gap: Duration,
    sides: &Sides<'_>,
    transcript: Option<&Transcript>,
) {
    let mut last_write: Option<Instant> = None;
    while let Ok(Outgoing::Message(message)) = outgoing.recv() {
        if matches!(message, Message::Chat(_)) {
            let _ = sides
                .chats_queued
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
        if let Some(last) = last_write {
            let since = last.elapsed();
            if since < gap {
                thread::sleep(gap - since);
            }
        }
        // Logged before the write: once the frame is out, the peer's answer may be read and
        // logged at once, and the transcript must show the frame before its answer.
        if let Some(transcript) = transcript {
            transcript.message(Direction::Out, &message);
        }
        let frame = message.to_frame();
        if let Err(error) = writer.write_all(&frame).and_then(|()| writer.flush()) {
            let _ = sides
                .incoming
                .send(Incoming::Failed(format!("write failed: {error}")));
            return;
        }
        let written = Instant::now();
        last_write = Some(written);
        if matches!(message, Message::Move(_)) {
            // Full only when nobody reads them (a referee); the note is then not needed.
            let _ = sides.moves_sent.try_send(written);
        }
    }
}

// ---- in-memory pipes ----------------------------------------------------------------------

/// The writing end of an in-memory pipe; closing it is the end of stream for the reader.
#[derive(Clone)]
struct PipeWriter(Arc<Mutex<Option<Sender<Vec<u8>>>>>);

impl PipeWriter {
    fn close(&self) {
        if let Ok(mut sender) = self.0.lock() {
            sender.take();
        }
    }
}

impl Write for PipeWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let sender = self.0.lock().ok().and_then(|sender| sender.clone());
        match sender.map(|sender| sender.send(bytes.to_vec())) {
            Some(Ok(())) => Ok(bytes.len()),
            _ => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        // The writer thread's copy going away ends the stream, as a socket's close does.
        if Arc::strong_count(&self.0) == 1 {
            self.close();
        }
    }
}

/// The reading end of an in-memory pipe.
struct PipeReader {
    data: Receiver<Vec<u8>>,
    /// Disconnected when our side shuts the connection.
    stop: Receiver<()>,
    pending: Vec<u8>,
}

impl Read for PipeReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            select! {
                recv(self.data) -> bytes => match bytes {
                    Ok(bytes) => self.pending = bytes,
                    Err(_) => return Ok(0),
                },
                recv(self.stop) -> _ => return Ok(0),
            }
        }
        let n = out.len().min(self.pending.len());
        out[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// Shuts an in-memory end: its reader sees the end of stream.
struct PipeShut(Mutex<Option<Sender<()>>>);

impl Shut for PipeShut {
    fn shut(&self) {
        if let Ok(mut stop) = self.0.lock() {
            stop.take();
        }
    }
}

// ---- transcript ---------------------------------------------------------------------------

/// The conversation as JSON lines, one per frame:
/// `{"t":1.234,"dir":"in","raw":"M0012061100","message":{"type":"move",...}}`, or with
/// `"error"` instead of `"message"` for a frame that is not a message. `t` is seconds since the
/// transcript was opened; `raw` is the frame with bytes outside printable ASCII escaped as
/// `\xNN`. Lines are flushed as they are written. Writing is best effort: a full disk does not
/// stop a game.
#[derive(Clone)]
pub struct Transcript(Arc<Mutex<TranscriptFile>>);

struct TranscriptFile {
    out: BufWriter<Box<dyn Write + Send>>,
    start: Instant,
}

impl Transcript {
    /// Opens `path` for appending (creating it).
    ///
    /// # Errors
    /// If the file cannot be opened.
    pub fn create(path: &Path) -> io::Result<Transcript> {
        let file: File = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Transcript::from_writer(Box::new(file)))
    }

    /// A transcript written to any writer (for tests, or standard error).
    pub fn from_writer(writer: Box<dyn Write + Send>) -> Transcript {
        Transcript(Arc::new(Mutex::new(TranscriptFile {
            out: BufWriter::new(writer),
            start: Instant::now(),
        })))
    }

    fn message(&self, dir: Direction, message: &Message) {
        let json = serde_json::to_value(message).unwrap_or(serde_json::Value::Null);
        self.line(dir, &message.to_string(), "message", json);
    }

    fn bad_frame(&self, error: &StreamError) {
        let text = serde_json::Value::String(error.to_string());
        self.line(Direction::In, &error.raw().to_string(), "error", text);
    }

    fn line(&self, dir: Direction, raw: &str, key: &str, value: serde_json::Value) {
        let Ok(mut file) = self.0.lock() else { return };
        let t = file.start.elapsed().as_secs_f64();
        let mut line = serde_json::Map::new();
        line.insert("t".into(), serde_json::json!((t * 1000.0).round() / 1000.0));
        line.insert("dir".into(), dir.as_str().into());
        line.insert("raw".into(), raw.into());
        line.insert(key.into(), value);
        let _ = serde_json::to_writer(&mut file.out, &line);
        let _ = file.out.write_all(b"\n");
        let _ = file.out.flush();
    }
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transcript")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    const LIMIT: Duration = Duration::from_secs(5);

    fn quick() -> ConnectionOptions {
        ConnectionOptions {
            frame_gap: Duration::ZERO,
            transcript: None,
        }
    }

    fn message(text: &str) -> Message {
        damx_wire::decode(text.as_bytes()).unwrap()
    }

    fn next(connection: &Connection) -> Incoming {
        connection.incoming().recv_timeout(LIMIT).expect("in time")
    }

    /// What one end sends, the other receives, both ways; closing is the end of stream.
    #[test]
    fn in_memory_pair_carries_messages() {
        let (a, b) = Connection::pair(quick(), quick());
        a.send(message("R01Tornado voor Windows 4.0        W060065A"));
        b.send(message("CHello"));
        assert!(matches!(next(&b), Incoming::Message(Message::GameReq(_))));
        assert_eq!(next(&a), Incoming::Message(message("CHello")));
        a.close(Duration::from_millis(50));
        assert_eq!(next(&b), Incoming::Closed);
    }

    /// The writer keeps the gap between two frames it writes, so that two frames never arrive
    /// together, and notes when each MOVE was written (after the frames queued before it); a
    /// write error is reported as the end of the connection.
    #[test]
    fn writer_spaces_frames() {
        struct Clocked(Arc<Mutex<Vec<Instant>>>);
        impl Write for Clocked {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().push(Instant::now());
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let times = Arc::new(Mutex::new(Vec::new()));
        let (outgoing_tx, outgoing) = unbounded();
        let (incoming, _incoming_rx) = unbounded();
        let (moves_sent, moves_sent_rx) = bounded(MOVES_SENT_KEPT);
        let sides = Sides {
            incoming: &incoming,
            moves_sent: &moves_sent,
            chats_queued: &AtomicUsize::new(0),
        };
        for text in ["CFirst", "CSecond", "M0001322800"] {
            outgoing_tx.send(Outgoing::Message(message(text))).unwrap();
        }
        outgoing_tx.send(Outgoing::Close).unwrap();
        let gap = Duration::from_millis(30);
        write_loop(Clocked(times.clone()), &outgoing, gap, &sides, None);
        let times = times.lock().unwrap();
        assert_eq!(times.len(), 3, "one write per frame");
        for pair in times.windows(2) {
            assert!(pair[1] - pair[0] >= gap, "{:?}", pair[1] - pair[0]);
        }
        let sent: Vec<Instant> = moves_sent_rx.try_iter().collect();
        assert_eq!(sent.len(), 1, "one note, for the MOVE only");
        assert!(
            sent[0] >= times[2],
            "noted when it was written, after the two chats"
        );

        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (outgoing_tx, outgoing) = unbounded();
        let (incoming, incoming_rx) = unbounded();
        outgoing_tx.send(Outgoing::Message(message("E00"))).unwrap();
        let sides = Sides {
            incoming: &incoming,
            moves_sent: &moves_sent,
            chats_queued: &AtomicUsize::new(0),
        };
        write_loop(Broken, &outgoing, gap, &sides, None);
        assert!(matches!(incoming_rx.try_recv(), Ok(Incoming::Failed(_))));
    }

    /// Every TCP connection has keepalive on, with the documented timing.
    #[test]
    fn tcp_connections_have_keepalive() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let raw = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let probe = stream.try_clone().unwrap();
        let socket = socket2::SockRef::from(&probe);
        assert!(!socket.keepalive().unwrap(), "off until asked for");
        let connection = Connection::tcp(stream, quick()).unwrap();
        assert!(socket.keepalive().unwrap());
        #[cfg(target_os = "linux")]
        {
            assert_eq!(socket.tcp_keepalive_time().unwrap(), KEEPALIVE_IDLE);
            assert_eq!(socket.tcp_keepalive_interval().unwrap(), KEEPALIVE_INTERVAL);
            assert_eq!(socket.tcp_keepalive_retries().unwrap(), KEEPALIVE_PROBES);
        }
        drop(connection);
        drop(raw);
    }

    /// Over TCP: merged frames, split frames and garbage come out as messages and errors in
    /// order, the end of stream last.
    #[test]
    fn tcp_reader_frames_any_chunking() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let mut raw = TcpStream::connect(address).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let connection = Connection::tcp(stream, quick()).unwrap();
        assert_eq!(connection.peer_addr(), raw.local_addr().ok());
        raw.write_all(b"ATornado voor Windows 4.0        0\0M0012061100\0")
            .unwrap();
        for byte in b"E00\0Xx\0" {
            raw.write_all(&[*byte]).unwrap();
        }
        raw.write_all(b"M00").unwrap();
        drop(raw);
        assert!(matches!(
            next(&connection),
            Incoming::Message(Message::GameAcc(_))
        ));
        assert_eq!(next(&connection), Incoming::Message(message("M0012061100")));
        assert_eq!(next(&connection), Incoming::Message(message("E00")));
        assert!(matches!(
            next(&connection),
            Incoming::Bad(StreamError::Decode { .. })
        ));
        assert!(matches!(
            next(&connection),
            Incoming::Bad(StreamError::Frame(_))
        ));
        assert_eq!(next(&connection), Incoming::Closed);
        assert!(connection.incoming().try_recv().is_err(), "the end is last");
    }

    /// Dropping a TCP connection unblocks its reader and the peer sees the end of stream.
    #[test]
    fn dropping_closes_the_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut raw = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let connection = Connection::tcp(stream, quick()).unwrap();
        let incoming = connection.incoming().clone();
        drop(connection);
        raw.set_read_timeout(Some(LIMIT)).unwrap();
        let mut byte = [0u8; 1];
        assert_eq!(raw.read(&mut byte).unwrap(), 0);
        // The reader thread ends: its channel disconnects after at most a last item.
        let deadline = Instant::now() + LIMIT;
        while incoming.recv_deadline(deadline).is_ok() {}
        assert!(Instant::now() < deadline);
    }

    /// The transcript has one JSON line per frame with direction, raw bytes and the message
    /// or the error.
    #[test]
    fn transcript_lines() {
        #[derive(Clone)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let sink = Shared(Arc::new(Mutex::new(Vec::new())));
        let transcript = Transcript::from_writer(Box::new(sink.clone()));
        let (a, b) = Connection::pair(
            ConnectionOptions {
                frame_gap: Duration::ZERO,
                transcript: Some(transcript),
            },
            quick(),
        );
        a.send(message("E00"));
        assert!(matches!(next(&b), Incoming::Message(_)));
        b.send(message("K2"));
        assert!(matches!(next(&a), Incoming::Message(_)));
        b.close(Duration::from_millis(50));
        assert_eq!(next(&a), Incoming::Closed);
        a.close(Duration::from_millis(50));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0]["dir"], "out");
        assert_eq!(lines[0]["raw"], "E00");
        assert_eq!(lines[0]["message"]["type"], "gameend");
        assert_eq!(lines[1]["dir"], "in");
        assert_eq!(lines[1]["message"]["code"], "declined");
        assert!(lines[1]["t"].as_f64().unwrap() >= 0.0);
    }
}
