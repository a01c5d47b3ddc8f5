//! What a session tells its user: [`Event`]s out, [`Command`]s in.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use damx_rules::{Color, Move, Position};
use damx_wire::{AcceptCode, BackAccCode, EndReason, RawBytes};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

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

/// In words: `ignored`, `answered`, `game ended`, `connection closed`, `tolerated`.
impl fmt::Display for ViolationAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ViolationAction::Ignored => "ignored",
            ViolationAction::Answered => "answered",
            ViolationAction::EndedGame => "game ended",
            ViolationAction::Closed => "connection closed",
            ViolationAction::Tolerated => "tolerated",
        })
    }
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
    /// We listen for the peer on this address (the port chosen when port 0 was asked for).
    Listening(SocketAddr),
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

impl Side {
    /// The word in JSON: `us` or `peer`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Us => "us",
            Side::Peer => "peer",
        }
    }
}

/// An event as one JSON object, the documented `--json` output of the session commands: its
/// `type` one of `listening`, `connected`, `frame`, `game_requested`, `game_refused`, `game_started`,
/// `move`, `chat`, `take_back_requested`, `take_back`, `take_back_refused`, `end_pending`,
/// `violation`, `player_error`, `game_over`, `record_saved`, `record_failed`,
/// `command_rejected` and `closed`, with the event's fields beside it. Positions are FEN,
/// moves notation, codes their snake-case names.
impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(serializer)
    }
}

/// A code (AcceptCode, BackAccCode, EndReason) by its snake-case name.
fn code<T: Serialize>(code: &T) -> Value {
    serde_json::to_value(code).unwrap_or(Value::Null)
}

impl Event {
    pub(crate) fn json(&self) -> Value {
        match self {
            Event::Connected { peer } => {
                json!({"type": "connected", "peer": peer.map(|p| p.to_string())})
            }
            Event::Frame { dir, text } => {
                json!({"type": "frame", "dir": dir.as_str(), "raw": text})
            }
            Event::GameRequested { number, settings } => json!({
                "type": "game_requested", "game": number,
                "our_color": settings.our_color.to_string(), "minutes": settings.minutes,
                "move_limit": settings.move_limit,
                "fen": settings.start.map(|p| p.to_fen()),
            }),
            Event::GameRefused {
                number,
                by,
                code: refusal,
                why,
            } => json!({
                "type": "game_refused", "game": number, "by": by.as_str(),
                "code": code(refusal), "why": why,
            }),
            Event::GameStarted(info) => json!({
                "type": "game_started", "game": info.number, "role": info.role.to_string(),
                "white": info.name_of(Color::White), "black": info.name_of(Color::Black),
                "our_color": info.our_color.to_string(), "minutes": info.minutes,
                "move_limit": info.move_limit, "fen": info.start.to_fen(),
            }),
            Event::MovePlayed(played) => json!({
                "type": "move", "game": played.number, "ply": played.ply,
                "by": played.by.as_str(), "color": played.color.to_string(),
                "move": played.text, "seconds": played.seconds,
                "fen": played.position.to_fen(),
            }),
            Event::ChatReceived(text) => json!({"type": "chat", "dir": "in", "text": text}),
            Event::ChatSent(text) => json!({"type": "chat", "dir": "out", "text": text}),
            Event::TakeBackRequested {
                number,
                ply,
                move_number,
                color,
            } => json!({
                "type": "take_back_requested", "game": number, "ply": ply,
                "move_number": move_number, "color": color.to_string(),
            }),
            Event::TakeBackDone {
                number,
                requested_by,
                ply,
                position,
            } => json!({
                "type": "take_back", "game": number, "by": requested_by.as_str(),
                "ply": ply, "fen": position.to_fen(),
            }),
            Event::TakeBackRefused {
                number,
                requested_by,
                code: answer,
            } => json!({
                "type": "take_back_refused", "game": number, "by": requested_by.as_str(),
                "code": code(answer),
            }),
            Event::EndPending { reason, stop } => json!({
                "type": "end_pending", "reason": code(reason), "stop": stop,
            }),
            Event::Violation(violation) => json!({
                "type": "violation", "what": violation.what,
                "raw": violation.raw.as_ref().map(|raw| raw.to_string()),
                "told": violation.told, "action": violation.action.to_string(),
            }),
            Event::PlayerError(error) => json!({"type": "player_error", "error": error}),
            Event::GameOver(record) => json!({
                "type": "game_over", "game": record.number, "white": record.white,
                "black": record.black, "result": record.result.as_str(),
                "termination": record.termination.to_string(),
                "moves": record.start.line_texts(&record.moves),
            }),
            Event::RecordSaved { number, path } => {
                json!({"type": "record_saved", "game": number, "path": path.display().to_string()})
            }
            Event::RecordFailed { number, error } => {
                json!({"type": "record_failed", "game": number, "error": error})
            }
            Event::CommandRejected { command, why } => {
                json!({"type": "command_rejected", "command": command, "why": why})
            }
            Event::Closed(reason) => json!({"type": "closed", "reason": reason.to_string()}),
            Event::Listening(address) => {
                json!({"type": "listening", "address": address.to_string()})
            }
        }
    }
}

#[cfg(test)]
impl MovePlayed {
    /// White's 32-28 from the start, 1.5 s, by `by`: an event for tests.
    pub(crate) fn opening(by: Side) -> MovePlayed {
        let start = Position::initial();
        let mv = start.parse_move("32-28").unwrap();
        MovePlayed {
            number: 1,
            ply: 1,
            by,
            color: Color::White,
            mv,
            text: "32-28".into(),
            seconds: 2,
            time: Duration::from_millis(1500),
            position: start.play(&mv),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON of the session commands, to the letter (it is documented output).
    #[test]
    fn events_as_json() {
        let played = Event::MovePlayed(MovePlayed::opening(Side::Peer));
        assert_eq!(
            serde_json::to_string(&played).unwrap(),
            r#"{"by":"peer","color":"white","fen":"B:W28,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20","game":1,"move":"32-28","ply":1,"seconds":2,"type":"move"}"#
        );
        let refused = Event::TakeBackRefused {
            number: 2,
            requested_by: Side::Us,
            code: BackAccCode::NotSupported,
        };
        assert_eq!(
            serde_json::to_string(&refused).unwrap(),
            r#"{"by":"us","code":"not_supported","game":2,"type":"take_back_refused"}"#
        );
        let violation = Event::Violation(Violation {
            what: "unreadable frame".into(),
            raw: None,
            told: true,
            action: ViolationAction::EndedGame,
        });
        assert_eq!(
            serde_json::to_value(&violation).unwrap()["action"],
            "game ended"
        );
    }
}
