//! Running a session: the [`PlayerMachine`] over a [`Connection`], with the player on a worker thread.
//!
//! [`run_session`] is one `crossbeam_channel::select!` loop over the peer's frames, the
//! player's answers, the user's commands and the machine's next deadline. The player thinks on
//! its own thread, so a CHAT, BACKREQ or GAMEEND from the peer is handled at once while it
//! thinks (a BACKREQ or GAMEEND stops the thinking through its [`StopSignal`]). A player that
//! panics is reported and gives up the game; the session goes on.
//!
//! [`connect`], [`accept`] and [`run`] set up the connection for either socket direction,
//! IPv4 or IPv6; [`play_loopback`] runs two sessions against each other over TCP on the
//! loopback interface in one process.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, at, never, select, unbounded};
use damx_rules::Move;
use damx_wire::Name;

use crate::config::{RecordOptions, SessionConfig};
use crate::connection::{Connection, ConnectionOptions, Transcript};
use crate::event::{CloseReason, Command, Direction, Event, ViolationAction};
use crate::machine::{Incoming, Input, Output, PlayerMachine, ThinkRequest};
use crate::player::{GameInfo, Player, StopSignal};
use crate::record::{GameRecord, pdn_date, save};

/// How long the end of a session waits for the last frames to go out and for the peer to
/// close its end.
const LINGER: Duration = Duration::from_secs(2);

/// How often a listening socket checks the control channel while it waits for a connection.
const ACCEPT_POLL: Duration = Duration::from_millis(50);

/// What a session did, when it is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionReport {
    /// The peer's address.
    pub peer: Option<SocketAddr>,
    /// Every game played (finished or broken off), in order; empty unless
    /// [`SessionConfig::keep_games`].
    pub games: Vec<GameRecord>,
    /// The PDN files written.
    pub saved: Vec<PathBuf>,
    /// How many protocol violations were reported (tolerated quirks not counted).
    pub violations: usize,
    /// How many games could not be saved ([`Event::RecordFailed`]).
    pub records_failed: usize,
    /// Why the session ended.
    pub close_reason: CloseReason,
}

impl SessionReport {
    /// The report of a session that ended before a connection was made.
    pub fn unconnected(close_reason: CloseReason) -> SessionReport {
        SessionReport {
            peer: None,
            games: Vec::new(),
            saved: Vec::new(),
            violations: 0,
            records_failed: 0,
            close_reason,
        }
    }

    /// The report without the records of all but its last game (the one a lost connection
    /// broke off, if one did) and without the names of the files saved: what a server keeps
    /// of a finished session. [`SessionReport::outcome`] says the same of it as of the whole.
    pub fn summary(&self) -> SessionReport {
        SessionReport {
            peer: self.peer,
            games: self.games.last().cloned().into_iter().collect(),
            saved: Vec::new(),
            violations: self.violations,
            records_failed: self.records_failed,
            close_reason: self.close_reason.clone(),
        }
    }

    /// What went wrong with the peer in these sessions, in words (`None`: nothing): it broke
    /// the protocol (the violations of all of them counted), the connection failed, it went
    /// silent, asked for no game within the idle time-out, refused the games, or the
    /// connection was lost in the middle of a game.
    pub fn trouble<'a>(reports: impl IntoIterator<Item = &'a SessionReport>) -> Option<String> {
        let mut violations = 0;
        let mut why = None;
        for report in reports {
            violations += report.violations;
            why = why.or_else(|| report.close_trouble());
        }
        match violations {
            0 => why,
            n => Some(format!(
                "the peer broke the protocol ({n} violation{} reported above)",
                if n == 1 { "" } else { "s" }
            )),
        }
    }

    /// What these sessions come to for the front end that ran them, the first that applies:
    /// games that could not be saved, a session aborted, trouble with the peer
    /// ([`SessionReport::trouble`]); else done.
    pub fn outcome<'a>(reports: impl IntoIterator<Item = &'a SessionReport>) -> Outcome {
        let reports: Vec<&SessionReport> = reports.into_iter().collect();
        let failed = reports.iter().map(|report| report.records_failed).sum();
        if failed > 0 {
            return Outcome::RecordsFailed(failed);
        }
        let aborted = |report: &&SessionReport| report.close_reason == CloseReason::Aborted;
        if reports.iter().any(aborted) {
            return Outcome::Aborted;
        }
        SessionReport::trouble(reports).map_or(Outcome::Done, Outcome::Trouble)
    }

    /// What an Initiator's series of `planned` games lacks, in words (`None`: nothing): a
    /// Follower that answered every request with `A…2` ended it without a game, or one that
    /// closed between games (a busy server's refusal, for one) left it unfinished.
    pub fn unfinished_series(&self, planned: usize) -> Option<String> {
        let played = self.games.len();
        match self.close_reason {
            CloseReason::SeriesComplete if played == 0 => {
                Some("the peer refused every game".to_owned())
            }
            CloseReason::PeerClosed if played < planned => Some(format!(
                "the peer closed the connection after {played} of {planned} games"
            )),
            _ => None,
        }
    }

    /// What the way this session ended says went wrong, if anything.
    fn close_trouble(&self) -> Option<String> {
        match &self.close_reason {
            CloseReason::ConnectionFailed(why) => Some(format!("the connection failed: {why}")),
            CloseReason::PeerSilent => Some("the peer went silent".to_owned()),
            CloseReason::Idle => Some("no game was requested within the idle time-out".to_owned()),
            CloseReason::Refused(code) => Some(format!("the peer refused the games ({code})")),
            _ => self
                .games
                .iter()
                .find(|game| matches!(game.termination, crate::record::Termination::ConnectionLost))
                .map(|game| format!("the connection was lost during game {}", game.number)),
        }
    }
}

/// What sessions came to ([`SessionReport::outcome`]); its `Display` says it in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing went wrong.
    Done,
    /// This many games could not be saved (each was an [`Event::RecordFailed`]).
    RecordsFailed(usize),
    /// A session was aborted ([`Command::Abort`]).
    Aborted,
    /// What went wrong with the peer.
    Trouble(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Done => f.write_str("done"),
            Outcome::RecordsFailed(n) => write!(
                f,
                "{n} game record{} could not be saved (reported above)",
                if *n == 1 { "" } else { "s" }
            ),
            Outcome::Aborted => f.write_str("aborted"),
            Outcome::Trouble(why) => f.write_str(why),
        }
    }
}

/// What can keep a session from starting.
#[derive(Debug)]
pub enum SessionError {
    /// Connecting to the peer failed.
    Connect {
        /// The address tried.
        address: String,
        /// Why.
        source: io::Error,
    },
    /// Listening or accepting failed.
    Listen {
        /// The address.
        address: String,
        /// Why.
        source: io::Error,
    },
    /// The transcript file could not be opened.
    Transcript {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The connection could not be set up.
    Connection(io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Connect { address, .. } => write!(f, "cannot connect to {address}"),
            SessionError::Listen { address, .. } => write!(f, "cannot listen on {address}"),
            SessionError::Transcript { path, .. } => {
                write!(f, "cannot open the transcript {}", path.display())
            }
            SessionError::Connection(_) => f.write_str("cannot set up the connection"),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Connect { source, .. }
            | SessionError::Listen { source, .. }
            | SessionError::Transcript { source, .. }
            | SessionError::Connection(source) => Some(source),
        }
    }
}

/// The sending half of a session's control channel, with a method per [`Command`]. Each
/// returns `false` when the session is over. Cloning gives another handle to the same session.
#[derive(Clone, Debug)]
pub struct Control(Sender<Command>);

impl Control {
    /// A handle and the receiver to give to [`run_session`] (or [`run`]).
    pub fn new() -> (Control, Receiver<Command>) {
        let (sender, receiver) = unbounded();
        (Control(sender), receiver)
    }

    /// Sends any command.
    pub fn send(&self, command: Command) -> bool {
        self.0.send(command).is_ok()
    }

    /// [`Command::Chat`].
    pub fn chat(&self, text: impl Into<String>) -> bool {
        self.send(Command::Chat(text.into()))
    }

    /// [`Command::EndGame`].
    pub fn end_game(&self, reason: damx_wire::EndReason) -> bool {
        self.send(Command::EndGame(reason))
    }

    /// [`Command::Stop`]: what Ctrl-C should do.
    pub fn stop(&self) -> bool {
        self.send(Command::Stop)
    }

    /// [`Command::TakeBack`].
    pub fn take_back(&self, ply: usize) -> bool {
        self.send(Command::TakeBack { ply })
    }

    /// [`Command::AnswerTakeBack`].
    pub fn answer_take_back(&self, accept: bool) -> bool {
        self.send(Command::AnswerTakeBack(accept))
    }

    /// [`Command::Abort`]: what a second Ctrl-C should do.
    pub fn abort(&self) -> bool {
        self.send(Command::Abort)
    }
}

/// Where the session's connection comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Connect to the program listening at this address.
    Connect(Address),
    /// Listen on this address and take the first connection.
    Listen(Address),
}

impl Endpoint {
    /// Where a person said the other program is: listening on `listen` or connecting to
    /// `connect`, else at the default DXP address, 127.0.0.1:27531 ([`DEFAULT_PORT`]),
    /// listened on when `listen_by_default` (a Follower) and connected to otherwise.
    ///
    /// [`DEFAULT_PORT`]: crate::server::DEFAULT_PORT
    pub fn given_or_default(
        listen: Option<Address>,
        connect: Option<Address>,
        listen_by_default: bool,
    ) -> Endpoint {
        let default = || Address::new("127.0.0.1", crate::server::DEFAULT_PORT);
        match (listen, connect) {
            (Some(address), _) => Endpoint::Listen(address),
            (None, Some(address)) => Endpoint::Connect(address),
            (None, None) if listen_by_default => Endpoint::Listen(default()),
            (None, None) => Endpoint::Connect(default()),
        }
    }
}

/// `HOST:PORT` as a person writes it (`localhost:27531`, `192.168.1.20:27531`,
/// `[::1]:27531`), checked for its form when read and resolved when used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    host: String,
    port: u16,
}

/// An address that does not read as `HOST:PORT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressError(String);

impl std::fmt::Display for AddressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AddressError {}

impl Address {
    /// The address `host`:`port`.
    pub fn new(host: &str, port: u16) -> Address {
        Address {
            host: host.to_owned(),
            port,
        }
    }

    /// The socket addresses the host resolves to (at least one).
    ///
    /// # Errors
    /// If the name does not resolve, or resolves to nothing.
    pub fn resolve(&self) -> io::Result<Vec<SocketAddr>> {
        let addresses: Vec<SocketAddr> =
            (self.host.as_str(), self.port).to_socket_addrs()?.collect();
        if addresses.is_empty() {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no address found"));
        }
        Ok(addresses)
    }

    /// A listening socket on the first address the host resolves to.
    ///
    /// # Errors
    /// [`SessionError::Listen`] if the host does not resolve or the socket cannot listen.
    pub fn bind(&self) -> Result<TcpListener, SessionError> {
        let failed = |source| SessionError::Listen {
            address: self.to_string(),
            source,
        };
        TcpListener::bind(self.resolve().map_err(failed)?[0]).map_err(failed)
    }
}

impl std::str::FromStr for Address {
    type Err = AddressError;

    /// Reads `HOST:PORT`, `[IPV6]:PORT` or `IPV6-ADDRESS:PORT` without resolving the host.
    fn from_str(text: &str) -> Result<Address, AddressError> {
        let text = text.trim();
        if let Ok(address) = text.parse::<SocketAddr>() {
            return Ok(Address::from(address));
        }
        let form = || AddressError(format!("expected HOST:PORT, found {text:?}"));
        let (host, port) = text.rsplit_once(':').ok_or_else(form)?;
        let port: u16 = port.parse().map_err(|_| {
            AddressError(format!(
                "expected a port number 0..65535 after the colon in {text:?}"
            ))
        })?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.contains(':') && !text.starts_with('[') {
            return Err(AddressError(format!(
                "expected [IPV6]:PORT (an IPv6 address with a port goes in brackets), found \
                 {text:?}"
            )));
        }
        if host.is_empty() || host.contains(char::is_whitespace) || host.contains(':') {
            return Err(form());
        }
        Ok(Address::new(host, port))
    }
}

impl From<SocketAddr> for Address {
    fn from(address: SocketAddr) -> Address {
        Address::new(&address.ip().to_string(), address.port())
    }
}

/// `HOST:PORT`, an IPv6 address in brackets.
impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// The connection options of `config`, with its transcript opened.
///
/// # Errors
/// If the transcript cannot be opened.
pub fn connection_options(config: &SessionConfig) -> Result<ConnectionOptions, SessionError> {
    let transcript = match &config.records.transcript {
        Some(path) => {
            Some(
                Transcript::create(path).map_err(|source| SessionError::Transcript {
                    path: path.clone(),
                    source,
                })?,
            )
        }
        None => None,
    };
    Ok(ConnectionOptions {
        frame_gap: config.frame_gap,
        transcript,
    })
}

/// Connects to `address` within `timeout` (each address it resolves to is tried in turn).
///
/// # Errors
/// If no address accepts the connection, or the transcript cannot be opened.
pub fn connect(
    address: impl ToSocketAddrs + std::fmt::Debug,
    config: &SessionConfig,
    timeout: Duration,
) -> Result<Connection, SessionError> {
    let shown = format!("{address:?}").trim_matches('"').to_owned();
    let failed = |source| SessionError::Connect {
        address: shown.clone(),
        source,
    };
    let stream = connect_stream(address, timeout).map_err(failed)?;
    let options = connection_options(config)?;
    Connection::tcp(stream, options).map_err(SessionError::Connection)
}

/// Connects to the first address `address` resolves to that answers within `timeout` (each
/// is tried in turn): the raw stream, for a front end that wants one (a proxy); [`connect`]
/// makes a [`Connection`] of it.
///
/// # Errors
/// If the name does not resolve or no address accepts the connection (the last error).
pub fn connect_stream(address: impl ToSocketAddrs, timeout: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address to connect to");
    for address in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&address, timeout) {
            Ok(stream) => return Ok(stream),
            Err(error) => last = error,
        }
    }
    Err(last)
}

/// Waits for one connection on `listener`, checking `control` meanwhile: a [`Command::Stop`] or
/// [`Command::Abort`] gives `Ok(None)`.
///
/// # Errors
/// If accepting fails, or the transcript cannot be opened.
pub fn accept(
    listener: &TcpListener,
    config: &SessionConfig,
    control: &Receiver<Command>,
) -> Result<Option<Connection>, SessionError> {
    let shown = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let failed = |source| SessionError::Listen {
        address: shown.clone(),
        source,
    };
    let Some((stream, _)) = accept_stream(listener, control).map_err(failed)? else {
        return Ok(None);
    };
    let options = connection_options(config)?;
    Connection::tcp(stream, options)
        .map(Some)
        .map_err(SessionError::Connection)
}

/// Waits for one TCP connection on `listener` and returns it blocking, with the peer's
/// address, checking `control` meanwhile: a [`Command::Stop`] or [`Command::Abort`] gives
/// `Ok(None)`. For a front end that wants the raw stream (a proxy); [`accept`] makes a
/// [`Connection`] of it.
///
/// # Errors
/// If the listener fails.
pub fn accept_stream(
    listener: &TcpListener,
    control: &Receiver<Command>,
) -> io::Result<Option<(TcpStream, SocketAddr)>> {
    listener.set_nonblocking(true)?;
    loop {
        match listener.accept() {
            Ok((stream, peer)) => {
                stream.set_nonblocking(false)?;
                return Ok(Some((stream, peer)));
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        }
        match control.recv_timeout(ACCEPT_POLL) {
            Ok(Command::Stop | Command::Abort) => return Ok(None),
            // Nothing else means anything before a connection.
            Ok(_) | Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            // Nobody can stop us any more: keep waiting for a connection.
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                thread::sleep(ACCEPT_POLL);
            }
        }
    }
}

/// Waits on `listener` for one connection ([`accept`]) and runs the session over it
/// ([`run_session`]). A stop before anyone connected ends it with
/// [`CloseReason::StopRequested`], a failure to accept with [`CloseReason::ConnectionFailed`];
/// either way the report has no games.
pub fn accept_and_run(
    listener: &TcpListener,
    config: &SessionConfig,
    player: Box<dyn Player>,
    control: Receiver<Command>,
    events: Sender<Event>,
) -> SessionReport {
    match accept(listener, config, &control) {
        Ok(Some(connection)) => run_session(connection, config, player, control, events),
        Ok(None) => SessionReport::unconnected(CloseReason::StopRequested),
        Err(error) => SessionReport::unconnected(CloseReason::ConnectionFailed(error.to_string())),
    }
}

/// Runs a whole session over `endpoint`: connects (within 10 s) or listens ([`Event::Listening`]
/// says where) and takes the first connection, then [`run_session`].
///
/// # Errors
/// If the connection cannot be made; everything after that is in the report.
pub fn run(
    endpoint: &Endpoint,
    config: &SessionConfig,
    player: Box<dyn Player>,
    control: Receiver<Command>,
    events: Sender<Event>,
) -> Result<SessionReport, SessionError> {
    let connection = match endpoint {
        Endpoint::Connect(address) => {
            connect(address.to_string(), config, Duration::from_secs(10))?
        }
        Endpoint::Listen(address) => {
            let listener = address.bind()?;
            if let Ok(local) = listener.local_addr() {
                let _ = events.send(Event::Listening(local));
            }
            match accept(&listener, config, &control)? {
                Some(connection) => connection,
                None => {
                    let _ = events.send(Event::Closed(CloseReason::StopRequested));
                    return Ok(SessionReport::unconnected(CloseReason::StopRequested));
                }
            }
        }
    };
    Ok(run_session(connection, config, player, control, events))
}

/// One side of [`play_loopback`].
pub struct LoopbackSide {
    /// Its configuration.
    pub config: SessionConfig,
    /// Its player.
    pub player: Box<dyn Player>,
    /// Its commands.
    pub control: Receiver<Command>,
    /// Its events.
    pub events: Sender<Event>,
}

/// Plays `initiator` against `follower` over TCP on 127.0.0.1, each on its own thread; the
/// Follower listens (on a free port) unless `initiator_listens`. Returns both reports,
/// Initiator first.
///
/// # Errors
/// If the sockets cannot be set up.
pub fn play_loopback(
    initiator: LoopbackSide,
    follower: LoopbackSide,
    initiator_listens: bool,
) -> Result<(SessionReport, SessionReport), SessionError> {
    let local = SocketAddr::from(([127, 0, 0, 1], 0));
    let listener = TcpListener::bind(local).map_err(|source| SessionError::Listen {
        address: local.to_string(),
        source,
    })?;
    let address = listener
        .local_addr()
        .map_err(|source| SessionError::Listen {
            address: local.to_string(),
            source,
        })?;
    let (listening, connecting) = if initiator_listens {
        (initiator, follower)
    } else {
        (follower, initiator)
    };
    let listener_thread = thread::Builder::new()
        .name("dxp-loopback".into())
        .spawn(move || -> Result<SessionReport, SessionError> {
            let LoopbackSide {
                config,
                player,
                control,
                events,
            } = listening;
            let connection = accept(&listener, &config, &control)?;
            let connection = connection.ok_or_else(|| {
                SessionError::Connection(io::Error::other("stopped before a connection"))
            })?;
            Ok(run_session(connection, &config, player, control, events))
        })
        .map_err(SessionError::Connection)?;
    let LoopbackSide {
        config,
        player,
        control,
        events,
    } = connecting;
    let connected = connect(address, &config, Duration::from_secs(10))
        .map(|connection| run_session(connection, &config, player, control, events));
    let listened = listener_thread.join().unwrap_or_else(|_| {
        Err(SessionError::Connection(io::Error::other(
            "session panicked",
        )))
    });
    let (connected, listened) = (connected?, listened?);
    Ok(if initiator_listens {
        (listened, connected)
    } else {
        (connected, listened)
    })
}

/// The DXP name for `text`: printable ASCII (others become `?`), no leading blanks, at most 32
/// characters; `damx` if nothing is left.
pub fn dxp_name(text: &str) -> Name {
    let clean: String = text
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect::<String>()
        .trim_start()
        .chars()
        .take(damx_wire::NAME_LEN)
        .collect();
    Name::new(&clean).unwrap_or_else(|_| Name::new("damx").expect("a valid name"))
}

/// Runs the DXP dialogue over `connection` until it ends, with `player` on a worker thread,
/// taking commands from `control` and reporting to `events` (a closed events channel is fine:
/// the session goes on). Every game's record is saved as the configuration says.
///
/// It does not fail: what goes wrong on the connection ends the session and is in the report.
pub fn run_session(
    connection: Connection,
    config: &SessionConfig,
    player: Box<dyn Player>,
    control: Receiver<Command>,
    events: Sender<Event>,
) -> SessionReport {
    let name = dxp_name(config.name.as_deref().unwrap_or(player.name()));
    let policy = player.take_back_policy();
    let worker = Worker::spawn(player);
    let peer = connection.peer_addr();
    let mut driver = Driver {
        connection: &connection,
        worker,
        events,
        records: &config.records,
        keep_games: config.keep_games,
        report: SessionReport {
            peer,
            games: Vec::new(),
            saved: Vec::new(),
            violations: 0,
            records_failed: 0,
            close_reason: CloseReason::PeerClosed,
        },
    };
    driver.emit(Event::Connected { peer });
    let mut machine = PlayerMachine::new(config, name, policy);
    let outputs = machine.start(Instant::now());
    driver.carry_out(outputs);
    let mut control = control;
    let mut moves_sent = connection.moves_sent().clone();
    while !machine.is_closed() {
        let timer = machine.next_deadline().map(at).unwrap_or_else(never);
        let input = select! {
            recv(connection.incoming()) -> item => {
                let item = item.unwrap_or(Incoming::Closed);
                driver.show_incoming(&item);
                Input::Peer(item)
            }
            recv(driver.worker.answers) -> answer => match answer {
                Ok(Answer { ticket, mv, failure }) => {
                    if let Some(failure) = failure {
                        driver.emit(Event::PlayerError(failure));
                    }
                    Input::MoveChosen { ticket, mv }
                }
                // The worker cannot end while the driver holds its job channel.
                Err(_) => continue,
            },
            recv(control) -> command => match command {
                Ok(command) => Input::Command(command),
                Err(_) => {
                    control = never();
                    continue;
                }
            },
            recv(moves_sent) -> at => match at {
                Ok(at) => Input::MoveSent { at },
                // The writer has ended; the end of the stream comes through `incoming`.
                Err(_) => {
                    moves_sent = never();
                    continue;
                }
            },
            recv(timer) -> _ => Input::Tick,
        };
        let outputs = machine.handle(Instant::now(), input);
        driver.carry_out(outputs);
    }
    let report = SessionReport {
        close_reason: machine
            .close_reason()
            .cloned()
            .unwrap_or(CloseReason::PeerClosed),
        ..driver.report
    };
    driver.worker.finish();
    connection.close(LINGER);
    report
}

/// The side effects of the machine's outputs.
struct Driver<'a> {
    connection: &'a Connection,
    worker: Worker,
    events: Sender<Event>,
    records: &'a RecordOptions,
    /// [`SessionConfig::keep_games`].
    keep_games: bool,
    report: SessionReport,
}

impl Driver<'_> {
    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    fn show_incoming(&self, item: &Incoming) {
        let text = match item {
            Incoming::Message(message) => message.to_string(),
            Incoming::Bad(error) => error.raw().to_string(),
            Incoming::Closed | Incoming::Failed(_) => return,
        };
        self.emit(Event::Frame {
            dir: Direction::In,
            text,
        });
    }

    fn carry_out(&mut self, outputs: Vec<Output>) {
        for output in outputs {
            match output {
                Output::Send(message) => {
                    self.emit(Event::Frame {
                        dir: Direction::Out,
                        text: message.to_string(),
                    });
                    self.connection.send(message);
                }
                Output::NewGame(info) => self.worker.new_game(info),
                Output::StartThinking(request) => self.worker.think(request),
                Output::StopThinking => self.worker.stop(),
                Output::Event(Event::GameOver(mut record)) => {
                    let now = SystemTime::now();
                    record.site = self.report.peer.map(|peer| peer.to_string());
                    record.date = Some(pdn_date(now));
                    if self.keep_games {
                        self.report.games.push((*record).clone());
                    }
                    self.worker.game_over(&record);
                    let number = record.number;
                    let target = self.records.pdn.clone();
                    let event = self.records.event.as_deref().unwrap_or("DXP game");
                    let saved = target.map(|target| save(&record, &target, event, now));
                    self.emit(Event::GameOver(record));
                    match saved {
                        Some(Ok(path)) => {
                            self.report.saved.push(path.clone());
                            self.emit(Event::RecordSaved { number, path });
                        }
                        Some(Err(error)) => {
                            self.report.records_failed += 1;
                            self.emit(Event::RecordFailed {
                                number,
                                error: error.to_string(),
                            });
                        }
                        None => {}
                    }
                }
                Output::Event(event) => {
                    if let Event::Violation(violation) = &event
                        && violation.action != ViolationAction::Tolerated
                    {
                        self.report.violations += 1;
                    }
                    self.emit(event);
                }
                // The loop ends once the machine is closed; the connection closes after it.
                Output::Close => {}
            }
        }
    }
}

/// A request to the player's thread.
enum Job {
    NewGame(GameInfo),
    Think(Box<ThinkRequest>, StopSignal),
    GameOver(Box<GameRecord>),
}

/// The player's answer to a [`Job::Think`].
struct Answer {
    ticket: u64,
    mv: Option<Move>,
    /// Set when the player panicked.
    failure: Option<String>,
}

/// The player on its own thread.
struct Worker {
    jobs: Option<Sender<Job>>,
    answers: Receiver<Answer>,
    /// The stop signal of the thinking in progress.
    current: Option<StopSignal>,
    done: Receiver<()>,
    /// How long [`Worker::finish`] waits ([`Player::shutdown_grace`]).
    grace: Duration,
    /// Where the thread could not be started: the answers, all given up at once.
    unthreaded: Option<Sender<Answer>>,
}

impl Worker {
    fn spawn(mut player: Box<dyn Player>) -> Worker {
        let grace = player.shutdown_grace();
        let (jobs, job_rx) = unbounded::<Job>();
        let (answer_tx, answers) = unbounded();
        let (done_tx, done) = unbounded::<()>();
        let spawned = thread::Builder::new()
            .name("dxp-player".into())
            .spawn(move || {
                for job in job_rx {
                    match job {
                        Job::NewGame(info) => {
                            let _ = catch_unwind(AssertUnwindSafe(|| player.new_game(&info)));
                        }
                        Job::Think(request, stop) => {
                            let chosen = catch_unwind(AssertUnwindSafe(|| {
                                player.choose_move(&request.game, &request.clock, &stop)
                            }));
                            let (mv, failure) = match chosen {
                                Ok(mv) => (mv, None),
                                Err(_) => (None, Some("the player panicked".to_owned())),
                            };
                            let ticket = request.ticket;
                            if answer_tx
                                .send(Answer {
                                    ticket,
                                    mv,
                                    failure,
                                })
                                .is_err()
                            {
                                break;
                            }
                        }
                        Job::GameOver(record) => {
                            let _ = catch_unwind(AssertUnwindSafe(|| player.game_over(&record)));
                        }
                    }
                }
                // The player first: ending it may end a program it runs, which must happen
                // before `finish` sees the thread done.
                drop(player);
                drop(done_tx);
            });
        if spawned.is_err() {
            // Without a thread the player cannot move: every request is answered "give up".
            let (unthreaded, answers) = unbounded();
            return Worker {
                jobs: None,
                answers,
                current: None,
                done: never(),
                grace,
                unthreaded: Some(unthreaded),
            };
        }
        Worker {
            jobs: Some(jobs),
            answers,
            current: None,
            done,
            grace,
            unthreaded: None,
        }
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    fn new_game(&mut self, info: GameInfo) {
        self.send(Job::NewGame(info));
    }

    fn think(&mut self, request: ThinkRequest) {
        if let Some(answers) = &self.unthreaded {
            let _ = answers.send(Answer {
                ticket: request.ticket,
                mv: None,
                failure: Some("the player's thread could not be started".to_owned()),
            });
            return;
        }
        let stop = StopSignal::new();
        self.current = Some(stop.clone());
        self.send(Job::Think(Box::new(request), stop));
    }

    fn stop(&mut self) {
        if let Some(stop) = self.current.take() {
            stop.stop();
        }
    }

    fn game_over(&mut self, record: &GameRecord) {
        self.send(Job::GameOver(Box::new(record.clone())));
    }

    /// Stops any thinking and lets the thread end; waits the player's
    /// [`Player::shutdown_grace`] for it (a player that ignores its stop signal longer is left
    /// to finish on its own).
    fn finish(&mut self) {
        self.stop();
        self.jobs = None;
        let _ = self.done.recv_timeout(self.grace);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session's summary keeps its last game only and no file names, and says the same of
    /// the session as the whole report: here, that the connection was lost during game 3.
    #[test]
    fn a_summary_keeps_the_last_game_and_the_outcome() {
        let start = damx_rules::Position::initial();
        let game = |number, termination| GameRecord {
            number,
            role: crate::config::Role::Follower,
            white: "damx".into(),
            black: "peer".into(),
            our_color: damx_rules::Color::White,
            minutes: 1,
            move_limit: None,
            start,
            moves: vec![start.legal_moves()[0]],
            seconds: vec![1],
            result: damx_rules::GameResult::Unfinished,
            termination,
            site: None,
            date: None,
        };
        let whole = SessionReport {
            games: vec![
                game(1, crate::record::Termination::Aborted),
                game(2, crate::record::Termination::Aborted),
                game(3, crate::record::Termination::ConnectionLost),
            ],
            saved: vec!["1.pdn".into(), "2.pdn".into(), "3.pdn".into()],
            violations: 2,
            ..SessionReport::unconnected(CloseReason::PeerClosed)
        };
        let summary = whole.summary();
        assert_eq!(summary.games, whole.games[2..]);
        assert!(summary.saved.is_empty());
        assert_eq!(summary.violations, 2);
        assert_eq!(
            SessionReport::outcome([&summary]),
            SessionReport::outcome([&whole])
        );
        let lost = SessionReport {
            violations: 0,
            ..summary
        };
        assert_eq!(
            SessionReport::trouble([&lost]).as_deref(),
            Some("the connection was lost during game 3")
        );
    }

    /// A given address wins, listening before connecting; without one, the default address
    /// is listened on or connected to.
    #[test]
    fn an_endpoint_is_given_or_the_default() {
        let address = Address::new("10.0.0.1", 9);
        let default = Address::new("127.0.0.1", 27531);
        for (listen, connect, by_default, endpoint) in [
            (
                Some(&address),
                Some(&default),
                false,
                Endpoint::Listen(address.clone()),
            ),
            (
                None,
                Some(&address),
                true,
                Endpoint::Connect(address.clone()),
            ),
            (None, None, true, Endpoint::Listen(default.clone())),
            (None, None, false, Endpoint::Connect(default.clone())),
        ] {
            let given = Endpoint::given_or_default(listen.cloned(), connect.cloned(), by_default);
            assert_eq!(given, endpoint);
        }
    }

    /// The violations of all the sessions are counted and come first; otherwise the first
    /// session that ended in trouble says which; a clean end is no trouble. What sessions come
    /// to puts unsaved games first, then an abort, then the trouble.
    #[test]
    fn trouble_is_told_in_words() {
        let report = |violations, close_reason| SessionReport {
            violations,
            ..SessionReport::unconnected(close_reason)
        };
        let clean = report(0, CloseReason::SeriesComplete);
        assert_eq!(SessionReport::trouble([&clean]), None);
        let silent = report(0, CloseReason::PeerSilent);
        assert_eq!(
            SessionReport::trouble([&clean, &silent]).as_deref(),
            Some("the peer went silent")
        );
        let (one, two) = (
            report(1, CloseReason::PeerClosed),
            report(2, CloseReason::PeerSilent),
        );
        assert_eq!(
            SessionReport::trouble([&silent, &one, &two]).as_deref(),
            Some("the peer broke the protocol (3 violations reported above)")
        );
        let failed = SessionReport {
            records_failed: 2,
            ..report(1, CloseReason::Aborted)
        };
        let aborted = report(1, CloseReason::Aborted);
        assert_eq!(SessionReport::outcome([&clean]), Outcome::Done);
        let outcome = SessionReport::outcome([&silent, &failed]);
        assert_eq!(outcome, Outcome::RecordsFailed(2));
        let says = "2 game records could not be saved (reported above)";
        assert_eq!(outcome.to_string(), says);
        assert_eq!(SessionReport::outcome([&one, &aborted]), Outcome::Aborted);
        let trouble = SessionReport::outcome([&clean, &silent]);
        assert_eq!(trouble.to_string(), "the peer went silent");
        let refused = report(0, CloseReason::SeriesComplete);
        assert_eq!(
            refused.unfinished_series(2).as_deref(),
            Some("the peer refused every game")
        );
        assert_eq!(
            report(0, CloseReason::PeerClosed)
                .unfinished_series(2)
                .as_deref(),
            Some("the peer closed the connection after 0 of 2 games")
        );
        assert_eq!(
            report(0, CloseReason::PeerClosed).unfinished_series(0),
            None
        );
    }

    /// Host and port are checked for their form only; IPv6 takes brackets.
    #[test]
    fn addresses_are_read_by_their_form() {
        let read = |text: &str| text.parse::<Address>();
        assert_eq!(
            read("127.0.0.1:27531"),
            Ok(Address::new("127.0.0.1", 27531))
        );
        assert_eq!(read("localhost:0"), Ok(Address::new("localhost", 0)));
        assert_eq!(read("[::1]:80"), Ok(Address::new("::1", 80)));
        assert_eq!(Address::new("::1", 80).to_string(), "[::1]:80");
        for bad in ["27531", "host:", "host:70000", ":80", "a b:1", "::1"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let unbracketed = read("::1:5000").unwrap_err().to_string();
        assert!(unbracketed.contains("goes in brackets"), "{unbracketed}");
        let listener = Address::new("127.0.0.1", 0).bind().unwrap();
        assert!(listener.local_addr().unwrap().ip().is_loopback());
    }

    /// A stop while waiting for a connection ends the session without games.
    #[test]
    fn a_stop_before_anyone_connects_ends_the_session() {
        let listener = Address::new("127.0.0.1", 0).bind().unwrap();
        let (control, commands) = Control::new();
        control.stop();
        let report = accept_and_run(
            &listener,
            &SessionConfig::default(),
            Box::new(crate::FirstLegalPlayer::new("damx")),
            commands,
            unbounded().0,
        );
        assert_eq!(
            report,
            SessionReport::unconnected(CloseReason::StopRequested)
        );
    }
    use crate::player::ClockState;
    use damx_rules::Game;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    struct Waiter;
    impl Player for Waiter {
        fn name(&self) -> &str {
            "waiter"
        }
        fn choose_move(&mut self, _: &Game, _: &ClockState, stop: &StopSignal) -> Option<Move> {
            while !stop.is_stopped() {
                thread::sleep(Duration::from_millis(2));
            }
            None
        }
    }

    /// Stopping the thinking in progress makes the worker answer (with the ticket asked).
    #[test]
    fn worker_stops() {
        let mut worker = Worker::spawn(Box::new(Waiter));
        for ticket in 1..=3 {
            worker.think(ThinkRequest {
                ticket,
                game: Game::default(),
                clock: ClockState::default(),
            });
            thread::sleep(Duration::from_millis(20));
            worker.stop();
            let answer = worker.answers.recv_timeout(Duration::from_secs(5)).unwrap();
            assert_eq!(answer.ticket, ticket);
        }
        worker.finish();
    }

    /// A player that needs time to let go once stopped (a program to end) says so, and the
    /// worker's finish waits that long for it: here 1.5 s, more than the default second.
    #[test]
    fn finish_waits_for_the_players_grace() {
        struct Slow(Arc<AtomicBool>);
        impl Player for Slow {
            fn name(&self) -> &str {
                "slow"
            }
            fn choose_move(&mut self, _: &Game, _: &ClockState, stop: &StopSignal) -> Option<Move> {
                while !stop.is_stopped() {
                    thread::sleep(Duration::from_millis(2));
                }
                thread::sleep(Duration::from_millis(1500));
                None
            }
            fn shutdown_grace(&self) -> Duration {
                Duration::from_secs(4)
            }
        }
        impl Drop for Slow {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let released = Arc::new(AtomicBool::new(false));
        let mut worker = Worker::spawn(Box::new(Slow(Arc::clone(&released))));
        worker.think(ThinkRequest {
            ticket: 1,
            game: Game::default(),
            clock: ClockState::default(),
        });
        thread::sleep(Duration::from_millis(20));
        worker.finish();
        assert!(
            released.load(Ordering::SeqCst),
            "finish returned before the player let go"
        );
    }
}
