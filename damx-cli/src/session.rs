//! What the session commands share: addresses, Ctrl-C, and the exit code a session earns.
//!
//! # Ctrl-C, SIGTERM and SIGHUP
//!
//! A session command routes Ctrl-C (SIGINT), and as well SIGTERM (`kill`, `systemctl stop`,
//! a container stopping) and SIGHUP (the terminal closed), to its session with
//! [`on_interrupt`]: the first
//! one asks the session to stop ([`Command::Stop`]: the running game ends with a GAMEEND with
//! stop code `1` on our turn, its record is saved, and the connection closes), the second one
//! aborts it ([`Command::Abort`]: the connection closes at once, the game is recorded as
//! aborted), a third one ends the process at once. Either way the command exits with the
//! conventional code of the first signal, 128 plus its number ([`interrupt_exit_code`]: 130
//! for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a process ended by it,
//! so that a script or a service manager can tell an interrupted series from a finished one.
//!
//! # The verdict
//!
//! [`verdict`] turns the sessions' reports into the command's result: the peer broke the
//! protocol, went silent, refused every game or lost the connection in the middle of a game:
//! exit code 4; interrupted: 128 + the signal; a game record that could not be saved: 3; otherwise
//! success. [`check_records`] refuses at the start a records directory that cannot be written.

use std::fmt;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

use std::path::{Path, PathBuf};

use damx_session::{
    CloseReason, Command, PdnTarget, RecordOptions, SessionError, SessionReport, Termination,
};

use crate::error::Error;
use crate::log::{debug, note};

/// `HOST:PORT` as given on the command line; resolved when the command runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    host: String,
    port: u16,
}

impl Address {
    /// The address `host`:`port`.
    pub(crate) fn new(host: &str, port: u16) -> Address {
        Address {
            host: host.to_owned(),
            port,
        }
    }

    /// Reads `HOST:PORT`, `[IPV6]:PORT` or `IPV6-ADDRESS:PORT` without resolving the host.
    pub(crate) fn parse(text: &str) -> Result<Address, String> {
        let text = text.trim();
        if let Ok(address) = text.parse::<SocketAddr>() {
            return Ok(Address::new(&address.ip().to_string(), address.port()));
        }
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err(format!("expected HOST:PORT, found {text:?}"));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| format!("expected a port number 0..65535 after the colon in {text:?}"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains(char::is_whitespace) || host.contains(':') {
            return Err(format!("expected HOST:PORT, found {text:?}"));
        }
        Ok(Address::new(host, port))
    }

    /// The socket addresses the host resolves to.
    pub(crate) fn resolve(&self) -> Result<Vec<SocketAddr>, Error> {
        let addresses: Vec<SocketAddr> = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|source| Error::Network {
                context: format!("cannot resolve {self}"),
                source,
            })?
            .collect();
        if addresses.is_empty() {
            return Err(Error::Network {
                context: format!("cannot resolve {self}"),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no address found"),
            });
        }
        Ok(addresses)
    }

    /// Binds a listening socket on the first address the host resolves to.
    pub(crate) fn bind(&self) -> Result<TcpListener, Error> {
        let address = self.resolve()?[0];
        TcpListener::bind(address).map_err(|source| Error::Network {
            context: format!("cannot listen on {self}"),
            source,
        })
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Where the other program is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Peer {
    /// We listen, it connects.
    Listen(Address),
    /// It listens, we connect.
    Connect(Address),
}

/// The error for a session that could not start.
pub(crate) fn session_error(error: SessionError) -> Error {
    match error {
        SessionError::Transcript { path, source } => Error::file("open", &path, source),
        SessionError::Connect { address, source } => Error::Network {
            context: format!("cannot connect to {address}"),
            source,
        },
        SessionError::Listen { address, source } => Error::Network {
            context: format!("cannot listen on {address}"),
            source,
        },
        SessionError::Connection(source) => Error::Network {
            context: "cannot set up the connection".to_owned(),
            source,
        },
    }
}

/// How many game records could not be saved.
static RECORDS_FAILED: AtomicUsize = AtomicUsize::new(0);

/// Notes a game record that could not be saved: the command will exit with code 3.
pub(crate) fn record_failed() {
    RECORDS_FAILED.fetch_add(1, Ordering::SeqCst);
}

/// Checks, before any game, that the PDN records can be written: the directory (made if
/// needed) takes a new file, or the file can be opened for appending.
pub(crate) fn check_records(records: &RecordOptions) -> Result<(), Error> {
    let Some(target) = &records.pdn else {
        return Ok(());
    };
    let (dir, file) = match target {
        PdnTarget::Directory(dir) => (dir.clone(), None),
        PdnTarget::File(path) => (
            path.parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
            Some(path),
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|source| Error::file("create", &dir, source))?;
    if let Some(file) = file {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .map_err(|source| Error::file("write", file, source))?;
        return Ok(());
    }
    let probe = dir.join(format!(".damx-write-test-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|source| Error::file("write in", &dir, source))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// How many times Ctrl-C was pressed.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// What Ctrl-C does: sends a command to the running session (or server).
type Route = Box<dyn Fn(Command) + Send>;

static ROUTE: Mutex<Option<Route>> = Mutex::new(None);

/// What the first Ctrl-C does, as told on standard error.
const ENDS_THE_GAME: &str = "a running game ends on our turn and is saved";

/// What the first Ctrl-C says it does.
static FIRST_NOTE: Mutex<&str> = Mutex::new(ENDS_THE_GAME);

/// Sends Ctrl-C to `route` from now on: [`Command::Stop`] the first time, [`Command::Abort`]
/// the second; the third ends the process.
pub(crate) fn on_interrupt(route: impl Fn(Command) + Send + 'static) {
    on_interrupt_saying(ENDS_THE_GAME, route);
}

/// [`on_interrupt`], telling the person `first` at the first Ctrl-C (what it does).
pub(crate) fn on_interrupt_saying(first: &'static str, route: impl Fn(Command) + Send + 'static) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install_handler);
    if let Ok(mut note) = FIRST_NOTE.lock() {
        *note = first;
    }
    if let Ok(mut slot) = ROUTE.lock() {
        *slot = Some(Box::new(route));
    }
}

/// SIGINT's number, the signal of Ctrl-C (the same on every Unix; what Windows' Ctrl-C counts as).
const SIGINT: i32 = 2;

/// The signal that first interrupted the command; 0 before any.
static FIRST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Routes SIGINT, SIGTERM and SIGHUP to [`interrupted_now`] on a thread of their own.
#[cfg(unix)]
fn install_handler() {
    use signal_hook::consts::{SIGHUP, SIGTERM};
    let spawned =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).and_then(|mut signals| {
            std::thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || {
                    for signal in signals.forever() {
                        interrupted_now(signal);
                    }
                })
        });
    if let Err(error) = spawned {
        debug!("signals cannot be handled: {error}");
    }
}

/// Routes Ctrl-C to [`interrupted_now`].
#[cfg(not(unix))]
fn install_handler() {
    if let Err(error) = ctrlc::set_handler(|| interrupted_now(SIGINT)) {
        debug!("Ctrl-C cannot be handled: {error}");
    }
}

/// The exit code of an interrupted command: 128 plus the number of the first signal.
pub(crate) fn interrupt_exit_code() -> u8 {
    let signal = match FIRST_SIGNAL.load(Ordering::SeqCst) {
        0 => SIGINT,
        signal => signal,
    };
    u8::try_from(128 + signal.clamp(1, 127)).unwrap_or(crate::error::EXIT_INTERRUPTED)
}

/// What interrupted the command, in words: `Ctrl-C`, `SIGTERM`, `SIGHUP`.
pub(crate) fn interrupt_name() -> &'static str {
    match FIRST_SIGNAL.load(Ordering::SeqCst) {
        1 => "SIGHUP",
        15 => "SIGTERM",
        0 | SIGINT => "Ctrl-C",
        _ => "a signal",
    }
}

/// The signal handler (on the handler's own thread), for signal number `signal`.
fn interrupted_now(signal: i32) {
    let _ = FIRST_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let count = INTERRUPTS.fetch_add(1, Ordering::SeqCst) + 1;
    let command = match count {
        1 => {
            let first = FIRST_NOTE.lock().map(|note| *note).unwrap_or(ENDS_THE_GAME);
            note!("stopping: {first} (Ctrl-C again to abort)");
            Command::Stop
        }
        2 => {
            note!("aborting: closing the connection now (Ctrl-C again to quit at once)");
            Command::Abort
        }
        _ => std::process::exit(i32::from(interrupt_exit_code())),
    };
    if let Ok(slot) = ROUTE.lock()
        && let Some(route) = slot.as_ref()
    {
        route(command);
    }
}

/// Whether Ctrl-C was pressed.
pub(crate) fn interrupted() -> bool {
    INTERRUPTS.load(Ordering::SeqCst) > 0
}

/// The command's result after these sessions: see the module docs.
pub(crate) fn verdict<'a>(
    reports: impl IntoIterator<Item = &'a SessionReport>,
) -> Result<(), Error> {
    if interrupted() {
        return Err(Error::Interrupted);
    }
    let failed = RECORDS_FAILED.load(Ordering::SeqCst);
    if failed > 0 {
        return Err(Error::Io {
            context: format!(
                "{failed} game record{} could not be saved (reported above)",
                if failed == 1 { "" } else { "s" }
            ),
            source: std::io::Error::other("write failed"),
        });
    }
    let mut violations = 0;
    let mut trouble = None;
    for report in reports {
        violations += report.violations;
        let lost = report
            .games
            .iter()
            .find(|game| matches!(game.termination, Termination::ConnectionLost));
        let why = match &report.close_reason {
            CloseReason::ConnectionFailed(why) => Some(format!("the connection failed: {why}")),
            CloseReason::PeerSilent => Some("the peer went silent".to_owned()),
            CloseReason::Idle => Some("no game was requested within the idle time-out".to_owned()),
            CloseReason::Refused(code) => Some(format!(
                "the peer refused the games ({})",
                refusal_words(*code)
            )),
            CloseReason::Aborted => return Err(Error::Interrupted),
            _ => lost.map(|game| format!("the connection was lost during game {}", game.number)),
        };
        trouble = trouble.or(why);
    }
    match (violations, trouble) {
        (0, None) => Ok(()),
        (0, Some(why)) => Err(Error::Peer(why)),
        (n, _) => Err(Error::Peer(format!(
            "the peer broke the protocol ({n} violation{} reported above)",
            if n == 1 { "" } else { "s" }
        ))),
    }
}

/// A GAMEACC code in words.
pub(crate) fn refusal_words(code: damx_session::AcceptCode) -> &'static str {
    use damx_session::AcceptCode;
    match code {
        AcceptCode::Accepted => "accepted",
        AcceptCode::VersionNotSupported => "protocol version not supported",
        AcceptCode::GameNotAcceptable => "this game is not acceptable",
        AcceptCode::NoGames => "no games at all",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host and port are checked for their form only; IPv6 takes brackets.
    #[test]
    fn addresses_parse() {
        assert_eq!(
            Address::parse("127.0.0.1:27531"),
            Ok(Address::new("127.0.0.1", 27531))
        );
        assert_eq!(
            Address::parse("localhost:0"),
            Ok(Address::new("localhost", 0))
        );
        assert_eq!(Address::parse("[::1]:80"), Ok(Address::new("::1", 80)));
        assert_eq!(Address::new("::1", 80).to_string(), "[::1]:80");
        for bad in ["27531", "host:", "host:70000", ":80", "a b:1", "::1"] {
            assert!(Address::parse(bad).is_err(), "{bad}");
        }
    }
}
