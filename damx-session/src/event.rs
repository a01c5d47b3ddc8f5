//! What a session tells its user: [`Event`]s out, [`Command`]s in.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use damx_rules::{Color, Move, Position};
use damx_wire::{AcceptCode, BackAccCode, EndReason, RawBytes};

use crate::config::GameSettings;
use crate::player::GameInfo;
use crate::record::GameRecord;

/// Which end of the connection did something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// This session (its player or its user).
    Us,
    /// The program at the other end.
    Peer,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Us => "we",
            Side::Peer => "the peer",
        })
    }
}

/// The direction of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the peer.
    In,
    /// To the peer.
    Out,
}

impl Direction {
    /// `in` or `out`, as in the transcript.
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// A move as it was played, for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovePlayed {
    /// The game's number in the session.
    pub number: u32,
    /// The number of moves (plies) played, this one included.
    pub ply: usize,
    /// Who played it.
    pub by: Side,
    /// The colour that played it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// The move in notation (`32-28`, `28x19`).
    pub text: String,
    /// Seconds it took, as we measured it.
    pub seconds: u16,
    /// The time it took, as we measured it: ours from the start of our turn to our choice, the
    /// peer's from when our move was written to when its answer arrived.
    pub time: Duration,
    /// The position after it.
    pub position: Position,
}

/// What the session did about something the spec does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationAction {
    /// Nothing more than this report.
    Ignored,
    /// Answered as a well-behaved peer would (for example `A…2` to a GAMEREQ during a game).
    Answered,
    /// The running game was ended with a GAMEEND and recorded.
    EndedGame,
    /// The connection was closed.
    Closed,
    /// A known quirk of real programs (docs/spec/dxp.md §6, such as DXC100's stray GAMEEND
    /// between games): reported, but not held against the peer.
    Tolerated,
}

/// The peer did something the spec does not allow (or a stray message arrived).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What was wrong, in words.
    pub what: String,
    /// The frame's bytes, when a frame caused it.
    pub raw: Option<RawBytes>,
    /// Whether the peer was told by a CHAT.
    pub told: bool,
    /// What the session did.
    pub action: ViolationAction,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        if let Some(raw) = &self.raw {
            write!(f, " [{raw}]")?;
        }
        Ok(())
    }
}

/// Why a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// The Initiator played every game it planned, or the Follower its maximum.
    SeriesComplete,
    /// Our user asked to stop.
    StopRequested,
    /// The peer asked to stop (stop code `1`).
    PeerStopped,
    /// The peer refused games with `A…1` or `A…3`.
    Refused(AcceptCode),
    /// The peer closed the connection.
    PeerClosed,
    /// Reading or writing failed.
    ConnectionFailed(String),
    /// The peer sent nothing when it had to.
    PeerSilent,
    /// No GAMEREQ arrived within the idle time-out.
    Idle,
    /// The peer made more noise than the [`NoiseBudget`](crate::NoiseBudget) allows.
    Noise,
    /// Our user aborted the session.
    Aborted,
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::SeriesComplete => f.write_str("all games played"),
            CloseReason::StopRequested => f.write_str("stopped on request"),
            CloseReason::PeerStopped => f.write_str("the peer stopped"),
            CloseReason::Refused(code) => f.write_str(match code {
                AcceptCode::VersionNotSupported => {
                    "the peer refused games (protocol version not supported)"
                }
                AcceptCode::NoGames => "the peer refused games (no games at all)",
                AcceptCode::Accepted | AcceptCode::GameNotAcceptable => "the peer refused games",
            }),
            CloseReason::PeerClosed => f.write_str("the peer closed the connection"),
            CloseReason::ConnectionFailed(why) => write!(f, "connection failed: {why}"),
            CloseReason::PeerSilent => f.write_str("the peer went silent"),
            CloseReason::Idle => f.write_str("no game requested in time"),
            CloseReason::Noise => f.write_str("the peer sent too many bad frames or requests"),
            CloseReason::Aborted => f.write_str("aborted"),
        }
    }
}

/// Everything a user interface may want to show, in the order it happened.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// The connection is up.
    Connected {
        /// The peer's address (none for an in-memory connection).
        peer: Option<SocketAddr>,
    },
    /// A frame went in or out, as text (printable ASCII, other bytes escaped).
    Frame {
        /// Its direction.
        dir: Direction,
        /// Its bytes, escaped.
        text: String,
    },
    /// We (the Initiator) sent a GAMEREQ.
    GameRequested {
        /// The number the game will have.
        number: u32,
        /// What we asked for.
        settings: GameSettings,
    },
    /// A GAMEREQ was refused.
    GameRefused {
        /// The number the game would have had.
        number: u32,
        /// Who refused: the peer (we are the Initiator) or we (the Follower).
        by: Side,
        /// The GAMEACC code.
        code: AcceptCode,
        /// Why, when we refused.
        why: Option<String>,
    },
    /// A game started: names, colours, time, move limit and start position.
    GameStarted(GameInfo),
    /// A move was played.
    MovePlayed(MovePlayed),
    /// The peer chatted.
    ChatReceived(String),
    /// We chatted.
    ChatSent(String),
    /// The peer asks to take back moves; answer with [`Command::AnswerTakeBack`].
    TakeBackRequested {
        /// The game's number.
        number: u32,
        /// The ply to go back to (that many moves stay played).
        ply: usize,
        /// The BACKREQ's move number.
        move_number: u16,
        /// The BACKREQ's colour to move.
        color: Color,
    },
    /// Moves were taken back.
    TakeBackDone {
        /// The game's number.
        number: u32,
        /// Who asked for it.
        requested_by: Side,
        /// The ply gone back to.
        ply: usize,
        /// The position there.
        position: Position,
    },
    /// A take-back request was answered with `K1` or `K2`.
    TakeBackRefused {
        /// The game's number.
        number: u32,
        /// Who asked for it.
        requested_by: Side,
        /// The answer.
        code: BackAccCode,
    },
    /// Our GAMEEND waits for our turn.
    EndPending {
        /// The reason it will carry.
        reason: EndReason,
        /// Whether it will ask to stop.
        stop: bool,
    },
    /// The peer broke the protocol.
    Violation(Violation),
    /// Our player misbehaved (for example, chose an illegal move).
    PlayerError(String),
    /// A game ended: its record, with the result and why.
    GameOver(Box<GameRecord>),
    /// A game's PDN record was written.
    RecordSaved {
        /// The game's number.
        number: u32,
        /// The file.
        path: PathBuf,
    },
    /// A game's PDN record could not be written.
    RecordFailed {
        /// The game's number.
        number: u32,
        /// Why.
        error: String,
    },
    /// A command could not be carried out.
    CommandRejected {
        /// The command, in words.
        command: String,
        /// Why.
        why: String,
    },
    /// The session ended.
    Closed(CloseReason),
}

/// What the user can ask of a running session (through its control channel).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Send a chat (split into several CHATs if longer than 126 characters; characters outside
    /// printable ASCII become `?`).
    Chat(String),
    /// End the current game with this reason on our turn (now, or when our turn comes).
    EndGame(EndReason),
    /// End the current game with stop code `1` on our turn and close; between games, close now.
    Stop,
    /// Ask the peer to go back to the position after `ply` moves (the BACKREQ names it by
    /// move number and colour). To take back our last move: the current ply less 2 on our
    /// turn, less 1 on the peer's ([`MovePlayed::ply`] tells the current ply).
    TakeBack {
        /// The number of moves that stay played.
        ply: usize,
    },
    /// Answer the peer's take-back request ([`Event::TakeBackRequested`]).
    AnswerTakeBack(bool),
    /// Close the connection now, without a GAMEEND; a running game is recorded as aborted.
    Abort,
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Chat(text) => write!(f, "chat {text:?}"),
            Command::EndGame(reason) => write!(f, "end the game ({reason:?})"),
            Command::Stop => f.write_str("stop"),
            Command::TakeBack { ply } => write!(f, "take back to ply {ply}"),
            Command::AnswerTakeBack(yes) => {
                write!(
                    f,
                    "{} the take-back",
                    if *yes { "accept" } else { "decline" }
                )
            }
            Command::Abort => f.write_str("abort"),
        }
    }
}
