//! A Follower that serves several connections at once: one session a connection, on its own
//! thread, with its own player.
//!
//! [`serve`] accepts connections until it is told to stop. Past
//! [`ServerConfig::max_sessions`] running sessions, a new connection gets one CHAT saying so
//! and is closed. Everything the sessions report comes out as [`ServerEvent`]s tagged with the
//! session's number. A [`Command`] sent to the server goes to every running session:
//! [`Command::Stop`] also stops accepting and lets each session end its game on its turn
//! (GAMEEND with stop code `1`), then `serve` returns when the last one is over;
//! [`Command::Abort`] closes them all at once.
//!
//! The server stays up whatever happens to a connection: an error from `accept()` (out of
//! file descriptors, `EMFILE`/`ENFILE`, or anything else) is reported as
//! [`ServerEvent::AcceptFailed`] and accepting pauses for a moment, from [`ACCEPT_BACKOFF_MIN`]
//! doubling up to [`ACCEPT_BACKOFF_MAX`], then resumes. [`ServerConfig::max_sessions`] is capped
//! so that the running sessions cannot use up the process's descriptors
//! ([`descriptor_capacity`]; [`ServerEvent::Capped`] says so). The accepting thread only
//! accepts, refuses without waiting, and starts threads: a session's player takes its memory
//! when a game starts, on the session's own thread.
//!
//! With a transcript configured, each session writes its own: `follow.jsonl` becomes
//! `follow-1.jsonl`, `follow-2.jsonl`, ...

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, unbounded};
use damx_wire::{Chat, Message};
use serde::{Serialize, Serializer};
use serde_json::json;

use crate::config::{RoleConfig, SessionConfig};
use crate::connection::Connection;
use crate::driver::{SessionError, SessionReport, connection_options, run_session};
use crate::event::{CloseReason, Command, Event};
use crate::player::Player;

/// The DXP port (dxp.md §1).
pub const DEFAULT_PORT: u16 = 27531;

/// The first pause after a failed `accept()`.
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(50);

/// The longest pause after failed `accept()`s in a row.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The descriptors one session holds: the socket and its three clones (reader, writer, half
/// close) and a transcript or record file.
const DESCRIPTORS_PER_SESSION: u64 = 5;

/// Descriptors kept for everything else (the listener, standard streams, records, the refusal
/// of a connection past the limit).
const DESCRIPTORS_KEPT: u64 = 32;

/// How often the server checks for commands and finished sessions while it waits for
/// connections.
const POLL: Duration = Duration::from_millis(50);

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The configuration of each session (its role is made a Follower if it is not one).
    pub session: SessionConfig,
    /// How many sessions may run at once.
    pub max_sessions: usize,
    /// Stop after this many games in all: the session that plays the last one ends it with
    /// stop code `1` (its [`FollowerConfig::max_games`](crate::FollowerConfig::max_games) is
    /// at most this), then the server stops listening and stops the other sessions, each at
    /// the end of its game.
    pub max_games: Option<u32>,
}

impl Default for ServerConfig {
    /// Default Follower sessions, at most 4 at once.
    fn default() -> ServerConfig {
        ServerConfig {
            session: SessionConfig::default(),
            max_sessions: 4,
            max_games: None,
        }
    }
}

/// What the server reports.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// Listening on this address.
    Listening(SocketAddr),
    /// A connection became session `id`.
    Accepted {
        /// The session's number, from 1.
        id: u64,
        /// The peer.
        peer: Option<SocketAddr>,
    },
    /// A connection was refused because `max_sessions` were running.
    Refused {
        /// The peer.
        peer: Option<SocketAddr>,
        /// How many sessions were running.
        running: usize,
    },
    /// `accept()` failed; accepting resumes after `retry_in`.
    AcceptFailed {
        /// What failed.
        error: String,
        /// How long accepting pauses.
        retry_in: Duration,
    },
    /// [`ServerConfig::max_sessions`] was lowered to what the descriptor limit allows.
    Capped {
        /// The sessions asked for.
        asked: usize,
        /// The sessions allowed.
        allowed: usize,
        /// The process's limit on open files.
        descriptors: u64,
    },
    /// Something session `id` reported.
    Session {
        /// The session.
        id: u64,
        /// What it reported.
        event: Event,
    },
    /// Session `id` is over.
    Ended {
        /// The session.
        id: u64,
        /// What it did.
        report: SessionReport,
    },
}

/// Each session's share of an engine hash table of `total` MiB when `sessions` may play at
/// once (at least 1 MiB), so that a server's memory stays what its user gave.
pub fn hash_per_session(total: usize, sessions: usize) -> usize {
    (total / sessions.max(1)).max(1)
}

/// A server's event as one JSON object, as a listening `damx follow --json` prints it:
/// `listening`, `accepted`, `refused_connection`, `accept_failed`, `capped`,
/// `session_ended`, and each session's [`Event`] with its `session` number beside it.
impl Serialize for ServerEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = match self {
            ServerEvent::Listening(address) => {
                json!({"type": "listening", "address": address.to_string()})
            }
            ServerEvent::Accepted { id, peer } => json!({
                "type": "accepted", "session": id, "peer": peer.map(|p| p.to_string()),
            }),
            ServerEvent::Refused { peer, running } => json!({
                "type": "refused_connection",
                "peer": peer.map(|p| p.to_string()).unwrap_or_default(), "running": running,
            }),
            ServerEvent::AcceptFailed { error, retry_in } => json!({
                "type": "accept_failed", "error": error,
                "retry_ms": u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
            }),
            ServerEvent::Capped {
                asked,
                allowed,
                descriptors,
            } => json!({
                "type": "capped", "asked": asked, "allowed": allowed, "descriptors": descriptors,
            }),
            ServerEvent::Session { id, event } => {
                let mut value = event.json();
                if let Some(object) = value.as_object_mut() {
                    object.insert("session".into(), (*id).into());
                }
                value
            }
            ServerEvent::Ended { id, report } => json!({
                "type": "session_ended", "session": id, "games": report.games.len(),
                "violations": report.violations, "reason": report.close_reason.to_string(),
            }),
        };
        value.serialize(serializer)
    }
}

/// What the server did, when it is over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerReport {
    /// Every session's report, by session number, summed up ([`SessionReport::summary`]: its
    /// last game only, so that a server that runs for long does not keep every game it
    /// played; each session's whole report comes with its [`ServerEvent::Ended`]).
    pub sessions: Vec<(u64, SessionReport)>,
    /// How many connections were refused.
    pub refused: usize,
}

/// Binds `address` (IPv4 or IPv6) and [`serve`]s it.
///
/// # Errors
/// If the address cannot be bound; see [`serve`].
pub fn serve_on(
    address: SocketAddr,
    config: &ServerConfig,
    players: impl FnMut() -> Box<dyn Player>,
    control: Receiver<Command>,
    events: Sender<ServerEvent>,
) -> Result<ServerReport, SessionError> {
    let listener = TcpListener::bind(address).map_err(|source| SessionError::Listen {
        address: address.to_string(),
        source,
    })?;
    serve(listener, config, players, control, events)
}

/// Serves connections on `listener` until [`Command::Stop`] or [`Command::Abort`] arrives on
/// `control` (or [`ServerConfig::max_games`] are played) and every session is over. `players` makes the player of each new session.
///
/// # Errors
/// If the listener fails (accepting, or switching it to non-blocking mode).
pub fn serve(
    listener: TcpListener,
    config: &ServerConfig,
    mut players: impl FnMut() -> Box<dyn Player>,
    control: Receiver<Command>,
    events: Sender<ServerEvent>,
) -> Result<ServerReport, SessionError> {
    let local = listener.local_addr().ok();
    let failed = |source: io::Error| SessionError::Listen {
        address: local.map(|a| a.to_string()).unwrap_or_default(),
        source,
    };
    listener.set_nonblocking(true).map_err(failed)?;
    if let Some(local) = local {
        let _ = events.send(ServerEvent::Listening(local));
    }
    let mut session_config = config.session.clone();
    if !matches!(session_config.role, RoleConfig::Follower(_)) {
        session_config.role = RoleConfig::Follower(Default::default());
    }
    if let (RoleConfig::Follower(follower), Some(games)) =
        (&mut session_config.role, config.max_games)
    {
        follower.max_games = Some(follower.max_games.map_or(games, |own| own.min(games)));
    }
    let mut games_played = 0;
    let max_sessions = session_limit(config, &events);
    let mut backoff = ACCEPT_BACKOFF_MIN;
    let mut paused_until: Option<Instant> = None;
    let (done_tx, done) = unbounded::<(u64, SessionReport)>();
    let mut running: HashMap<u64, Sender<Command>> = HashMap::new();
    let mut report = ServerReport::default();
    let mut next_id = 0;
    let mut listener = Some(listener);
    let mut control = Some(control);
    loop {
        // Finished sessions.
        while let Ok((id, session)) = done.try_recv() {
            running.remove(&id);
            games_played += session.games.len();
            if config
                .max_games
                .is_some_and(|games| games_played >= games as usize)
                && listener.take().is_some()
            {
                // The last game is played: the others end theirs and stop.
                for other in running.values() {
                    let _ = other.send(Command::Stop);
                }
            }
            report.sessions.push((id, session.summary()));
            let _ = events.send(ServerEvent::Ended {
                id,
                report: session,
            });
        }
        if listener.is_none() && running.is_empty() {
            report.sessions.sort_by_key(|(id, _)| *id);
            return Ok(report);
        }
        // New connections.
        if paused_until.is_some_and(|until| Instant::now() < until) {
            // Accepting pauses after an error.
        } else if let Some(socket) = &listener {
            paused_until = None;
            match socket.accept() {
                Ok((stream, peer)) => {
                    backoff = ACCEPT_BACKOFF_MIN;
                    if running.len() >= max_sessions {
                        refuse(stream, running.len());
                        report.refused += 1;
                        let _ = events.send(ServerEvent::Refused {
                            peer: Some(peer),
                            running: running.len(),
                        });
                    } else {
                        next_id += 1;
                        let id = next_id;
                        let commands = start_session(
                            id,
                            stream,
                            numbered_config(&session_config, id),
                            players(),
                            events.clone(),
                            done_tx.clone(),
                        );
                        running.insert(id, commands);
                        let _ = events.send(ServerEvent::Accepted {
                            id,
                            peer: Some(peer),
                        });
                    }
                    continue;
                }
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                // A connection that failed before we took it (reset, aborted): take the next.
                Err(error) if error.kind() == io::ErrorKind::ConnectionAborted => continue,
                // Out of descriptors or anything else: the server stays up and tries again.
                Err(error) => {
                    let _ = events.send(ServerEvent::AcceptFailed {
                        error: error.to_string(),
                        retry_in: backoff,
                    });
                    paused_until = Some(Instant::now() + backoff);
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                }
            }
        }
        // Commands for every session.
        if let Some(command) = next_command(&mut control) {
            if matches!(command, Command::Stop | Command::Abort) {
                listener = None;
            }
            for session in running.values() {
                let _ = session.send(command.clone());
            }
        }
    }
}

/// How many sessions may run at once: as configured (at least one), capped by the limit on
/// open files (said by a [`ServerEvent::Capped`]).
fn session_limit(config: &ServerConfig, events: &Sender<ServerEvent>) -> usize {
    let asked = config.max_sessions.max(1);
    match descriptor_capacity() {
        Some((allowed, descriptors)) if allowed < asked => {
            let _ = events.send(ServerEvent::Capped {
                asked,
                allowed,
                descriptors,
            });
            allowed
        }
        _ => asked,
    }
}

/// The next command for every session, waiting at most [`POLL`]; `control` becomes `None`
/// once its sender is gone.
fn next_command(control: &mut Option<Receiver<Command>>) -> Option<Command> {
    let Some(commands) = control else {
        thread::sleep(POLL);
        return None;
    };
    match commands.recv_timeout(POLL) {
        Ok(command) => Some(command),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => {
            *control = None;
            None
        }
    }
}

/// The configuration of session `id`: its transcript, if any, numbered.
fn numbered_config(config: &SessionConfig, id: u64) -> SessionConfig {
    let mut config = config.clone();
    config.records.transcript = config
        .records
        .transcript
        .as_deref()
        .map(|path| numbered(path, id));
    config
}

/// `path` with `-id` before its extension.
fn numbered(path: &Path, id: u64) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{id}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{id}"),
    };
    path.with_file_name(name)
}

/// Tells a connection we are full and closes it, without waiting: the frame fits in the
/// socket's send buffer of a new connection, and a peer that cannot take it is not told.
fn refuse(stream: TcpStream, running: usize) {
    let games = if running == 1 { "game" } else { "games" };
    let text = format!("busy: {running} {games} running, try again later");
    if let Ok(chat) = Chat::new(text) {
        let _ = stream.set_nonblocking(true);
        let _ = (&stream).write(&Message::Chat(chat).to_frame());
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// How many sessions the process's limit on open files allows, and that limit (`None` where
/// it cannot be read: the limit is read from `/proc/self/limits`, Linux only).
pub fn descriptor_capacity() -> Option<(usize, u64)> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let limit = open_files_limit(&limits)?;
    let allowed = limit.saturating_sub(DESCRIPTORS_KEPT) / DESCRIPTORS_PER_SESSION;
    Some((usize::try_from(allowed).unwrap_or(usize::MAX).max(1), limit))
}

/// The soft limit on open files in the text of `/proc/self/limits` (`None`: not found or
/// unlimited).
fn open_files_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Starts session `id` on its own thread; returns its command channel.
fn start_session(
    id: u64,
    stream: TcpStream,
    config: SessionConfig,
    player: Box<dyn Player>,
    server_events: Sender<ServerEvent>,
    done: Sender<(u64, SessionReport)>,
) -> Sender<Command> {
    let (commands_tx, commands) = unbounded();
    let (events_tx, events) = unbounded::<Event>();
    thread::Builder::new()
        .name(format!("dxp-forward-{id}"))
        .spawn(move || {
            for event in events {
                let _ = server_events.send(ServerEvent::Session { id, event });
            }
        })
        .ok();
    let done_on_failure = done.clone();
    let spawned = thread::Builder::new()
        .name(format!("dxp-session-{id}"))
        .spawn(move || {
            let report = match stream
                .set_nonblocking(false)
                .map_err(SessionError::Connection)
                .and_then(|()| connection_options(&config))
                .and_then(|options| {
                    Connection::tcp(stream, options).map_err(SessionError::Connection)
                }) {
                Ok(connection) => run_session(connection, &config, player, commands, events_tx),
                Err(error) => {
                    let reason = CloseReason::ConnectionFailed(error.to_string());
                    let _ = events_tx.send(Event::Closed(reason.clone()));
                    SessionReport::unconnected(reason)
                }
            };
            let _ = done.send((id, report));
        });
    if let Err(error) = spawned {
        // No thread: report the session as failed at once.
        let reason = CloseReason::ConnectionFailed(error.to_string());
        let report = SessionReport::unconnected(reason);
        let _ = done_on_failure.send((id, report));
    }
    commands_tx
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--hash` is shared by the games that may run at once, at least 1 MiB each.
    #[test]
    fn hash_is_shared_by_the_sessions() {
        assert_eq!(hash_per_session(64, 1), 64);
        assert_eq!(hash_per_session(64, 4), 16);
        assert_eq!(hash_per_session(64, 64), 1);
        assert_eq!(hash_per_session(64, 256), 1);
        assert_eq!(hash_per_session(100, 0), 100);
    }

    /// A server's events read as the JSON lines of `damx follow --json`, a session's with its
    /// number.
    #[test]
    fn server_events_as_json() {
        let listening = ServerEvent::Listening(SocketAddr::from(([127, 0, 0, 1], 27531)));
        assert_eq!(
            serde_json::to_string(&listening).unwrap(),
            r#"{"address":"127.0.0.1:27531","type":"listening"}"#
        );
        let chat = ServerEvent::Session {
            id: 3,
            event: Event::ChatReceived("hello".into()),
        };
        assert_eq!(
            serde_json::to_string(&chat).unwrap(),
            r#"{"dir":"in","session":3,"text":"hello","type":"chat"}"#
        );
        let refused = ServerEvent::Refused {
            peer: None,
            running: 1,
        };
        assert_eq!(
            serde_json::to_string(&refused).unwrap(),
            r#"{"peer":"","running":1,"type":"refused_connection"}"#
        );
    }

    /// The soft limit is the first number of the open files line; unlimited gives no cap.
    #[test]
    fn open_files_limit_is_read() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max cpu time              unlimited            unlimited            seconds   \n\
                    Max open files            1024                 1048576              files     \n";
        assert_eq!(open_files_limit(text), Some(1024));
        let unlimited =
            "Max open files            unlimited            unlimited            files\n";
        assert_eq!(open_files_limit(unlimited), None);
        assert_eq!(open_files_limit("nothing"), None);
        let (allowed, limit) = descriptor_capacity().expect("linux");
        assert!(allowed >= 1 && limit >= 1);
    }

    /// Transcript names get the session number before the extension.
    #[test]
    fn numbered_transcripts() {
        assert_eq!(
            numbered(Path::new("/tmp/follow.jsonl"), 3),
            PathBuf::from("/tmp/follow-3.jsonl")
        );
        assert_eq!(numbered(Path::new("log"), 12), PathBuf::from("log-12"));
    }
}
