//! Who plays: [`Participant`]s, and running copies of them ([`Instance`]s).
//!
//! - The built-in engine (or a random or first-legal mover, for baselines and tests, or a Hub
//!   engine program bridged by a [`HubPlayer`]) runs in this process as a DXP Follower on a
//!   loopback listener, with its own options, on a thread of its own; the referee connects to it and talks DXP to it as to any other program, so
//!   there is one code path and it is always exercised.
//! - An external program is a command line (its first word the program, relative to the
//!   working directory when one is given) and a way to reach it: [`Reach::Connect`] (it
//!   listens, we connect) or [`Reach::Listen`] (we listen, it connects). `{port}` in the
//!   command and in the address is replaced by a free port chosen for each copy, so several
//!   copies can run at once for concurrent games. A participant without a command is a program
//!   already running: we only connect (or wait for it to connect).
//!
//! [`Instance::start`] starts the process, waits (bounded) until the connection is made and
//! fails early if the process exits meanwhile. [`Instance::stop`] closes the connection, gives
//! the process [`StartOptions::grace`] to exit, and kills it after that. Dropping an instance
//! kills its process at once, so no program outlives a panic.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, unbounded};

use crate::config::{FollowerConfig, NoiseBudget, SessionConfig};
use crate::connection::{Connection, ConnectionOptions, Transcript};
use crate::driver::{Control, accept, run_session};
use crate::engine_player::{EnginePlayer, EnginePlayerOptions};
use crate::hub::{HubError, HubPlayer, HubPlayerOptions};
use crate::machine::Incoming;
use crate::player::{FirstLegalPlayer, Player, RandomPlayer};
use crate::process;

/// A program that takes part in matches and tournaments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    /// Its name in the event stream, the tables and the PDN: no blanks, no `=`.
    pub name: String,
    /// What it is.
    pub kind: ParticipantKind,
}

/// The built-in player, or an external program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParticipantKind {
    /// Runs in this process.
    Builtin(BuiltinPlayer),
    /// Runs as its own process (or is already running somewhere).
    External(External),
}

/// The players that run in process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuiltinPlayer {
    /// The damx engine with these options (its `name` is replaced by the participant's).
    Engine(Box<EnginePlayerOptions>),
    /// A random legal mover, from this seed (the same seed plays the same games).
    Random {
        /// The seed.
        seed: u64,
    },
    /// Always the first legal move.
    FirstLegal,
    /// A Hub engine program, spoken to over its standard input and output by a
    /// [`HubPlayer`](crate::hub::HubPlayer) in this process (its `name` is replaced by the
    /// participant's).
    Hub(Box<HubPlayerOptions>),
}

/// An external DXP program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct External {
    /// The program and its arguments; `{port}` in any of them is replaced. Empty: the program
    /// is already running and is only reached.
    pub command: Vec<String>,
    /// The working directory of the program (and the base of a relative program path).
    pub dir: Option<PathBuf>,
    /// How to reach it.
    pub reach: Reach,
}

/// Which side of the TCP connection the external program takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// It listens on this address (`host:port`, `{port}` replaced); we connect.
    Connect(String),
    /// We listen on this address (port 0: a free port, given to the command as `{port}`); it
    /// connects.
    Listen(SocketAddr),
}

impl Participant {
    /// Whether two copies of it could run at once without clashing over a fixed port.
    pub fn can_run_twice(&self) -> bool {
        match &self.kind {
            ParticipantKind::Builtin(_) => true,
            ParticipantKind::External(external) => match &external.reach {
                _ if external.command.is_empty() => true,
                Reach::Connect(address) => uses_port(address),
                Reach::Listen(address) => address.port() == 0,
            },
        }
    }
}

/// How instances are started and stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartOptions {
    /// How long a program may take to start and be connected.
    pub timeout: Duration,
    /// How long a program may take to exit once told to stop, before it is killed.
    pub grace: Duration,
    /// The least time between two frames sent to the program. The referee, an Initiator,
    /// sends a Follower one frame at a time in normal play (the gap matters for programs that
    /// lose a frame arriving with another, and those are Initiators), so none is needed by
    /// default; each frame within the gap would wait for it.
    pub frame_gap: Duration,
    /// Where the programs' standard output and error go, one `<name>.log` each (appended);
    /// `None`: discarded.
    pub log_dir: Option<PathBuf>,
    /// Where transcripts of every connection go, one `<name>-<n>.jsonl` per instance.
    pub transcript_dir: Option<PathBuf>,
}

impl Default for StartOptions {
    /// 10 s to start, 2 s to exit, no gap between frames, no logs, no transcripts.
    fn default() -> StartOptions {
        StartOptions {
            timeout: Duration::from_secs(10),
            grace: Duration::from_secs(2),
            frame_gap: Duration::ZERO,
            log_dir: None,
            transcript_dir: None,
        }
    }
}

/// Why a program could not be started or reached.
#[derive(Debug)]
pub enum LaunchError {
    /// The process could not be started.
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: io::Error,
    },
    /// A socket, a log or a transcript could not be set up.
    Io {
        /// What was being done.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// The process exited before the connection was made.
    Exited {
        /// Its exit status.
        status: String,
    },
    /// No connection within the start time-out.
    Timeout {
        /// What was awaited.
        what: String,
    },
    /// A Hub engine program did not start or did not answer its greeting.
    Hub(HubError),
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Spawn { program, source } => write!(f, "cannot start {program}: {source}"),
            LaunchError::Io { what, source } => write!(f, "cannot {what}: {source}"),
            LaunchError::Exited { status } => {
                write!(f, "the program exited before connecting ({status})")
            }
            LaunchError::Timeout { what } => write!(f, "{what}"),
            LaunchError::Hub(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LaunchError::Spawn { source, .. } | LaunchError::Io { source, .. } => Some(source),
            LaunchError::Hub(error) => Some(error),
            LaunchError::Exited { .. } | LaunchError::Timeout { .. } => None,
        }
    }
}

/// A running copy of a participant with its DXP connection.
pub struct Instance {
    name: String,
    connection: Option<Connection>,
    child: Option<Child>,
    builtin: Option<BuiltinThread>,
}

/// The thread of an in-process Follower.
struct BuiltinThread {
    control: Control,
    /// Disconnects when the thread ends.
    done: Receiver<()>,
}

/// Numbers the instances of this process (for transcript names).
static INSTANCES: AtomicU64 = AtomicU64::new(0);

impl Instance {
    /// Starts `participant` and connects to it.
    ///
    /// # Errors
    /// A [`LaunchError`] if the process cannot be started, exits early, or no connection is
    /// made within [`StartOptions::timeout`].
    pub fn start(
        participant: &Participant,
        options: &StartOptions,
    ) -> Result<Instance, LaunchError> {
        let number = INSTANCES.fetch_add(1, Ordering::Relaxed) + 1;
        let transcript = match &options.transcript_dir {
            Some(dir) => {
                let path = dir.join(format!("{}-{number}.jsonl", participant.name));
                let opened = fs::create_dir_all(dir).and_then(|()| Transcript::create(&path));
                Some(opened.map_err(|source| LaunchError::Io {
                    what: format!("open the transcript {}", path.display()),
                    source,
                })?)
            }
            None => None,
        };
        let connection_options = ConnectionOptions {
            frame_gap: options.frame_gap,
            transcript,
        };
        match &participant.kind {
            ParticipantKind::Builtin(player) => {
                start_builtin(&participant.name, player, options, connection_options)
            }
            ParticipantKind::External(external) => {
                start_external(&participant.name, external, options, connection_options)
            }
        }
    }

    /// The participant's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The connection to the program.
    ///
    /// # Panics
    /// Never: the connection is there from [`Instance::start`] until [`Instance::stop`],
    /// which consumes the instance.
    pub fn connection(&self) -> &Connection {
        self.connection
            .as_ref()
            .expect("an instance keeps its connection until it is stopped")
    }

    /// The exit status of the process, if it exits within `wait` (`None` for a program that
    /// runs on, or one that is not a process of ours).
    pub fn exit_status(&mut self, wait: Duration) -> Option<String> {
        let child = self.child.as_mut()?;
        let deadline = Instant::now() + wait;
        loop {
            match process::try_wait(child) {
                Ok(Some(status)) => return Some(status.to_string()),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// Whether the program is still there between games: its process runs and its connection
    /// has not ended. Anything it sent since the last game is a stray message and is dropped
    /// (a queue's worth or a few: a program that floods cannot keep this look going).
    pub fn is_alive(&mut self) -> bool {
        if self.exit_status(Duration::ZERO).is_some() {
            return false;
        }
        let Some(connection) = &self.connection else {
            return false;
        };
        let queued = connection
            .incoming()
            .try_iter()
            .take(4 * crate::connection::INCOMING_KEPT);
        for item in queued {
            if matches!(item, Incoming::Closed | Incoming::Failed(_)) {
                return false;
            }
        }
        true
    }

    /// Closes the connection, gives the program `grace` to exit, then kills it.
    pub fn stop(mut self, grace: Duration) {
        if let Some(connection) = self.connection.take() {
            connection.close(grace.min(Duration::from_secs(1)));
        }
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + grace;
            loop {
                match process::try_wait(&mut child) {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        thread::sleep(Duration::from_millis(10));
                    }
                    _ => {
                        process::kill(&mut child);
                        break;
                    }
                }
            }
        }
        if let Some(builtin) = self.builtin.take() {
            builtin.control.abort();
            let _ = builtin.done.recv_timeout(grace);
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            process::kill(&mut child);
        }
        if let Some(builtin) = self.builtin.take() {
            builtin.control.abort();
        }
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instance")
            .field("name", &self.name)
            .field("pid", &self.child.as_ref().map(Child::id))
            .finish_non_exhaustive()
    }
}

fn start_builtin(
    name: &str,
    player: &BuiltinPlayer,
    options: &StartOptions,
    connection_options: ConnectionOptions,
) -> Result<Instance, LaunchError> {
    let io = |what: &str| {
        let what = what.to_owned();
        move |source| LaunchError::Io { what, source }
    };
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(io("listen on 127.0.0.1"))?;
    let address = listener.local_addr().map_err(io("listen on 127.0.0.1"))?;
    let mut config = SessionConfig::follower(FollowerConfig::default());
    config.name = Some(name.to_owned());
    // The referee keeps the clocks, ends the games and may leave a copy idle for long.
    config.frame_gap = Duration::ZERO;
    config.end_on_time = false;
    config.end_at_move_limit = false;
    config.timeouts.idle = Duration::from_secs(30 * 24 * 3600);
    config.timeouts.clock_grace = Duration::from_secs(24 * 3600);
    // One connection may play a whole series: keep no game (the referee records them).
    config.keep_games = false;
    // The peer is this referee, which may end many games at once before their first move
    // (an opponent that forfeits at once): nothing to budget.
    config.noise = NoiseBudget {
        burst: u32::MAX,
        per_second: u32::MAX,
        per_connection: u32::MAX,
        ..NoiseBudget::default()
    };
    let player: Box<dyn Player> = match player {
        BuiltinPlayer::Engine(engine) => Box::new(EnginePlayer::new(EnginePlayerOptions {
            name: name.to_owned(),
            ..(**engine).clone()
        })),
        BuiltinPlayer::Random { seed } => Box::new(RandomPlayer::new(name, *seed)),
        BuiltinPlayer::FirstLegal => Box::new(FirstLegalPlayer::new(name)),
        BuiltinPlayer::Hub(hub) => {
            let mut player = HubPlayer::new(HubPlayerOptions {
                name: name.to_owned(),
                ..(**hub).clone()
            });
            // Started now, so that a program that cannot start is reported as one that did
            // not start, not as a player that gives up every game.
            player.start().map_err(LaunchError::Hub)?;
            Box::new(player)
        }
    };
    let (control, commands) = Control::new();
    let (done_tx, done) = unbounded::<()>();
    thread::Builder::new()
        .name(format!("damx-builtin-{name}"))
        .spawn(move || {
            if let Ok(Some(connection)) = accept(&listener, &config, &commands) {
                let (events, _) = unbounded();
                run_session(connection, &config, player, commands, events);
            }
            drop(done_tx);
        })
        .map_err(io("start a thread"))?;
    let builtin = BuiltinThread { control, done };
    let connected = TcpStream::connect_timeout(&address, options.timeout)
        .and_then(|stream| Connection::tcp(stream, connection_options));
    match connected {
        Ok(connection) => Ok(Instance {
            name: name.to_owned(),
            connection: Some(connection),
            child: None,
            builtin: Some(builtin),
        }),
        Err(source) => {
            builtin.control.abort();
            Err(LaunchError::Io {
                what: format!("connect to the built-in player at {address}"),
                source,
            })
        }
    }
}

fn start_external(
    name: &str,
    external: &External,
    options: &StartOptions,
    connection_options: ConnectionOptions,
) -> Result<Instance, LaunchError> {
    let deadline = Instant::now() + options.timeout;
    let mut instance = Instance {
        name: name.to_owned(),
        connection: None,
        child: None,
        builtin: None,
    };
    let stream = match &external.reach {
        Reach::Connect(template) => {
            let port = if uses_port(template) || external.command.iter().any(|w| uses_port(w)) {
                free_port()?
            } else {
                0
            };
            let address = template.replace("{port}", &port.to_string());
            instance.child = spawn(name, external, port, options)?;
            loop {
                match connect_once(&address) {
                    Ok(stream) => break stream,
                    Err(error) => {
                        if let Some(status) = instance.exit_status(Duration::ZERO) {
                            return Err(LaunchError::Exited { status });
                        }
                        if Instant::now() >= deadline {
                            let waited = options.timeout.as_secs_f64();
                            return Err(LaunchError::Timeout {
                                what: format!(
                                    "no connection to {address} within {waited} s ({error})"
                                ),
                            });
                        }
                        thread::sleep(Duration::from_millis(50));
                    }
                }
            }
        }
        Reach::Listen(address) => {
            let io = |source| LaunchError::Io {
                what: format!("listen on {address}"),
                source,
            };
            let listener = TcpListener::bind(address).map_err(io)?;
            let port = listener.local_addr().map_err(io)?.port();
            listener.set_nonblocking(true).map_err(io)?;
            instance.child = spawn(name, external, port, options)?;
            loop {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).map_err(io)?;
                        break stream;
                    }
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(io(error)),
                }
                if let Some(status) = instance.exit_status(Duration::ZERO) {
                    return Err(LaunchError::Exited { status });
                }
                if Instant::now() >= deadline {
                    let waited = options.timeout.as_secs_f64();
                    return Err(LaunchError::Timeout {
                        what: format!("no connection on port {port} within {waited} s"),
                    });
                }
                thread::sleep(Duration::from_millis(20));
            }
        }
    };
    let connection =
        Connection::tcp(stream, connection_options).map_err(|source| LaunchError::Io {
            what: "set up the connection".to_owned(),
            source,
        })?;
    instance.connection = Some(connection);
    Ok(instance)
}

/// One connection attempt to `address` (each address it resolves to, briefly).
fn connect_once(address: &str) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing");
    for resolved in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&resolved, Duration::from_millis(500)) {
            Ok(stream) => return Ok(stream),
            Err(error) => last = error,
        }
    }
    Err(last)
}

/// Starts the program, if there is one, with `{port}` replaced.
fn spawn(
    name: &str,
    external: &External,
    port: u16,
    options: &StartOptions,
) -> Result<Option<Child>, LaunchError> {
    let Some((program, args)) = external.command.split_first() else {
        return Ok(None);
    };
    let fill = |word: &String| word.replace("{port}", &port.to_string());
    // The working directory made absolute (against ours), so that the program path below
    // means the same before and after the child changes into it.
    let dir = external
        .dir
        .as_ref()
        .map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone()));
    let program_path = match &dir {
        // A relative path with a directory part is taken from the working directory.
        Some(dir) if program.contains('/') && Path::new(program).is_relative() => {
            dir.join(fill(program)).into_os_string()
        }
        _ => fill(program).into(),
    };
    let mut command = Command::new(&program_path);
    command.args(args.iter().map(fill)).stdin(Stdio::null());
    if let Some(dir) = &dir {
        command.current_dir(dir);
    }
    match &options.log_dir {
        Some(dir) => {
            let path = dir.join(format!("{name}.log"));
            let open = || {
                fs::create_dir_all(dir)?;
                let file = OpenOptions::new().create(true).append(true).open(&path)?;
                Ok::<_, io::Error>((file.try_clone()?, file))
            };
            let (out, err) = open().map_err(|source| LaunchError::Io {
                what: format!("open the log {}", path.display()),
                source,
            })?;
            command.stdout(out).stderr(err);
        }
        None => {
            command.stdout(Stdio::null()).stderr(Stdio::null());
        }
    }
    process::spawn(&mut command)
        .map(Some)
        .map_err(|source| LaunchError::Spawn {
            program: program_path.to_string_lossy().into_owned(),
            source,
        })
}

/// Whether a command word or address asks for a port of its own.
fn uses_port(text: &str) -> bool {
    text.contains("{port}")
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> Result<u16, LaunchError> {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|source| LaunchError::Io {
            what: "find a free port".to_owned(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program that is not there fails to start with a clear message; one that exits at
    /// once is reported with its status, well before the time-out.
    #[test]
    fn start_failures_are_reported() {
        let missing = Participant {
            name: "missing".into(),
            kind: ParticipantKind::External(External {
                command: vec!["/nonexistent/dxp-program".into()],
                dir: None,
                reach: Reach::Listen(SocketAddr::from(([127, 0, 0, 1], 0))),
            }),
        };
        let error = Instance::start(&missing, &StartOptions::default()).unwrap_err();
        assert!(matches!(error, LaunchError::Spawn { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("cannot start /nonexistent/dxp-program")
        );

        let quitter = Participant {
            name: "quitter".into(),
            kind: ParticipantKind::External(External {
                command: vec!["sh".into(), "-c".into(), "exit 3".into()],
                dir: None,
                reach: Reach::Connect("127.0.0.1:{port}".into()),
            }),
        };
        let options = StartOptions {
            timeout: Duration::from_secs(20),
            ..StartOptions::default()
        };
        let started = Instant::now();
        let error = Instance::start(&quitter, &options).unwrap_err();
        assert!(matches!(error, LaunchError::Exited { .. }), "{error}");
        assert!(error.to_string().contains('3'), "{error}");
        assert!(started.elapsed() < options.timeout);
    }

    /// A program that connects and leaves is seen as gone between games; a built-in player
    /// stays.
    #[test]
    fn alive_between_games() {
        let leaver = Participant {
            name: "leaver".into(),
            kind: ParticipantKind::External(External {
                command: [
                    "python3",
                    "-c",
                    "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1]))).close()",
                    "{port}",
                ]
                .map(str::to_owned)
                .to_vec(),
                dir: None,
                reach: Reach::Listen(SocketAddr::from(([127, 0, 0, 1], 0))),
            }),
        };
        let mut instance = Instance::start(&leaver, &StartOptions::default()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while instance.is_alive() {
            assert!(Instant::now() < deadline, "the program left long ago");
            thread::sleep(Duration::from_millis(20));
        }
        instance.stop(Duration::from_millis(100));

        let builtin = Participant {
            name: "first".into(),
            kind: ParticipantKind::Builtin(BuiltinPlayer::FirstLegal),
        };
        let mut instance = Instance::start(&builtin, &StartOptions::default()).unwrap();
        thread::sleep(Duration::from_millis(50));
        assert!(instance.is_alive());
        instance.stop(Duration::from_secs(1));
    }

    /// Fixed ports cannot serve two copies at once; `{port}`, port 0 and the built-in can.
    #[test]
    fn which_participants_can_run_twice() {
        let external = |command: &[&str], reach| Participant {
            name: "p".into(),
            kind: ParticipantKind::External(External {
                command: command.iter().map(|w| w.to_string()).collect(),
                dir: None,
                reach,
            }),
        };
        let any = SocketAddr::from(([127, 0, 0, 1], 0));
        let fixed = SocketAddr::from(([127, 0, 0, 1], 27531));
        assert!(
            external(&["e", "{port}"], Reach::Connect("127.0.0.1:{port}".into())).can_run_twice()
        );
        assert!(!external(&["e"], Reach::Connect("127.0.0.1:27531".into())).can_run_twice());
        assert!(external(&["e"], Reach::Listen(any)).can_run_twice());
        assert!(!external(&["e"], Reach::Listen(fixed)).can_run_twice());
        assert!(external(&[], Reach::Connect("127.0.0.1:27531".into())).can_run_twice());
        let builtin = Participant {
            name: "b".into(),
            kind: ParticipantKind::Builtin(BuiltinPlayer::FirstLegal),
        };
        assert!(builtin.can_run_twice());
    }
}
