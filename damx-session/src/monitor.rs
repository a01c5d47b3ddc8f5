//! A passive follower of a DXP dialogue between two other programs: it reads what each one
//! sends, keeps the game with the rules, and says what breaks the spec (dxp.md §3).
//!
//! A proxy between two programs feeds every frame to [`Monitor::frame`] with the party that
//! sent it ([`Party::A`] or [`Party::B`], however the caller names its two ends), and the
//! end of each party's stream to [`Monitor::closed`]. Each call returns an [`Observation`]:
//! what the frame means for the game in words (`game 1: 12... 19x28`) and the
//! [`Finding`]s, if any. The monitor never sends, never blocks and never panics; whatever a
//! party sends, it keeps following.
//!
//! What it flags ([`FindingKind`]):
//!
//! - a frame that is not a DXP message (bad framing, undecodable);
//! - a message out of state: a GAMEACC without a GAMEREQ, a GAMEREQ from the Follower or
//!   during a game, a MOVE outside a game, a BACKACC without a BACKREQ, a second GAMEEND
//!   before the acknowledgement, a GAMEEND between games;
//! - a MOVE or a first GAMEEND out of turn (a GAMEEND that answers the opponent's illegal or
//!   out-of-turn MOVE may come at any time);
//! - an illegal MOVE (matched by from, to and the set of captured squares, as the session
//!   does); the game goes on without it;
//! - a field the spec does not allow there: a GAMEACC `0` to a request of another protocol
//!   version or with an impossible start, an acknowledgement with a reason other than `0`;
//! - a first GAMEEND that is not acknowledged: the other party sends something else, or closes;
//! - anything but a CHAT after a GAMEEND handshake with stop code `1`;
//! - a connection closed in the middle of a game;
//! - with the frames' times ([`Monitor::frame_at`]): more bad frames, chats, take-back
//!   requests and findings at once (or in all) than the [`NoiseBudget`] allows, flagged once
//!   per party: the budget a damx player or referee would end the connection at.
//!
//! The Initiator is the party that sends the first GAMEREQ.
//!
//! ```
//! use damx_session::monitor::{FindingKind, Monitor, Party};
//! use damx_wire::decode;
//!
//! let mut monitor = Monitor::new();
//! let frames: [(Party, &[u8]); 3] = [
//!     (Party::A, b"R01Tornado voor Windows 4.0        W060000A"),
//!     (Party::B, b"Adamx                            0"),
//!     (Party::A, b"M0001322800"), // B plays white (W above), so this is not A's turn
//! ];
//! let mut findings = Vec::new();
//! for (party, frame) in frames {
//!     let observation = monitor.frame(party, decode(frame).as_ref().map_err(|e| e.to_string()));
//!     findings.extend(observation.findings);
//! }
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].kind, FindingKind::OutOfTurn);
//! assert_eq!(findings[0].by, Party::A);
//! ```

use std::fmt;
use std::time::Instant;

use damx_rules::{Color, Game};
use damx_wire::{AcceptCode, BackAccCode, EndReason, GameReq, Message, StopCode};

use crate::config::NoiseBudget;
use crate::convert::{back_request_ply, color_from_wire, start_position};
use crate::dialogue::{MoveFault, NoiseMeter, read_move};

/// One of the two programs of the dialogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Party {
    /// The one the caller calls A (a proxy: the program that connected to it).
    A,
    /// The other one (a proxy: the program it connected to).
    B,
}

impl Party {
    /// The other party.
    pub const fn other(self) -> Party {
        match self {
            Party::A => Party::B,
            Party::B => Party::A,
        }
    }

    /// `A` or `B`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Party::A => "A",
            Party::B => "B",
        }
    }
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of rule a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// A frame that is not a DXP message.
    BadFrame,
    /// A message the dialogue does not allow in its state.
    OutOfState,
    /// A MOVE, or a first GAMEEND, from the party that is not to move.
    OutOfTurn,
    /// A MOVE that is not legal in the game's position.
    IllegalMove,
    /// A field value the spec does not allow there.
    BadField,
    /// A first GAMEEND that was not acknowledged with a GAMEEND.
    MissingAck,
    /// A message after a handshake with stop code `1`.
    AfterStop,
    /// The connection was closed during a game.
    ClosedInGame,
    /// More noise than the [`NoiseBudget`] allows.
    Noise,
}

impl FindingKind {
    /// A stable snake-case word for logs and JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::BadFrame => "bad_frame",
            FindingKind::OutOfState => "out_of_state",
            FindingKind::OutOfTurn => "out_of_turn",
            FindingKind::IllegalMove => "illegal_move",
            FindingKind::BadField => "bad_field",
            FindingKind::MissingAck => "missing_ack",
            FindingKind::AfterStop => "after_stop",
            FindingKind::ClosedInGame => "closed_in_game",
            FindingKind::Noise => "noise",
        }
    }
}

/// Something a party did that the spec does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The kind of rule broken.
    pub kind: FindingKind,
    /// The party that broke it.
    pub by: Party,
    /// What happened, in words.
    pub what: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.by, self.what)
    }
}

/// What one frame (or the end of a stream) meant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    /// Its meaning for the dialogue in words (`game 1 starts: A white, B black`,
    /// `game 1: 12... 19x28`), when there is one.
    pub note: Option<String>,
    /// What broke the spec.
    pub findings: Vec<Finding>,
}

impl Observation {
    fn note(text: impl Into<String>) -> Observation {
        Observation {
            note: Some(text.into()),
            findings: Vec::new(),
        }
    }

    fn flagged(kind: FindingKind, by: Party, what: impl Into<String>) -> Observation {
        let mut observation = Observation::default();
        observation.flag(kind, by, what);
        observation
    }

    fn flag(&mut self, kind: FindingKind, by: Party, what: impl Into<String>) {
        self.findings.push(Finding {
            kind,
            by,
            what: what.into(),
        });
    }
}

/// A game being followed.
#[derive(Clone, Debug)]
struct Followed {
    number: u32,
    /// The party playing white.
    white: Party,
    game: Game,
    /// A BACKREQ waiting for its answer: who asked, and the ply asked for.
    backreq: Option<(Party, usize)>,
    /// A GAMEREQ sent during the game, waiting for its (refusing) GAMEACC.
    stray_request: bool,
    /// The party that sent an illegal or out-of-turn MOVE since the last legal one: its
    /// opponent may then end the game at once (as damx does), whoever is to move.
    offender: Option<Party>,
}

impl Followed {
    fn party_of(&self, color: Color) -> Party {
        if color == Color::White {
            self.white
        } else {
            self.white.other()
        }
    }

    fn color_of(&self, party: Party) -> Color {
        if party == self.white {
            Color::White
        } else {
            Color::Black
        }
    }

    fn to_move(&self) -> Party {
        self.party_of(self.game.position().side_to_move())
    }
}

/// A GAMEREQ waiting for its GAMEACC.
#[derive(Clone, Debug)]
struct Request {
    number: u32,
    initiator: Party,
    request: GameReq,
}

/// Where the dialogue stands.
#[derive(Clone, Debug)]
enum Phase {
    /// Between games: the Initiator may send a GAMEREQ.
    Idle,
    /// A GAMEREQ waits for its GAMEACC.
    Requested(Request),
    /// A game runs.
    Playing(Followed),
    /// `first` sent the first GAMEEND; the other party owes the acknowledgement.
    Ending {
        first: Party,
        stop: bool,
        followed: Followed,
    },
    /// A handshake with stop code `1` is over: only CHATs may follow.
    Stopped,
}

/// Follows a DXP dialogue between two parties; see the module documentation.
#[derive(Clone, Debug)]
pub struct Monitor {
    phase: Phase,
    initiator: Option<Party>,
    games: u32,
    closed: [bool; 2],
    /// Each party's noise, and whether it was flagged.
    noise: [(NoiseMeter, bool); 2],
}

impl Default for Monitor {
    fn default() -> Monitor {
        Monitor::new()
    }
}

fn index(party: Party) -> usize {
    match party {
        Party::A => 0,
        Party::B => 1,
    }
}

impl Monitor {
    /// A monitor at the start of a connection, with the default [`NoiseBudget`].
    pub fn new() -> Monitor {
        Monitor::with_budget(NoiseBudget::default())
    }

    /// A monitor at the start of a connection that flags noise past `budget`.
    pub fn with_budget(budget: NoiseBudget) -> Monitor {
        let meter = (NoiseMeter::new(budget), false);
        Monitor {
            phase: Phase::Idle,
            initiator: None,
            games: 0,
            closed: [false; 2],
            noise: [meter.clone(), meter],
        }
    }

    /// The party that sent the first GAMEREQ, once one has.
    pub fn initiator(&self) -> Option<Party> {
        self.initiator
    }

    /// The position of the game running, if one is.
    pub fn game(&self) -> Option<&Game> {
        match &self.phase {
            Phase::Playing(followed) | Phase::Ending { followed, .. } => Some(&followed.game),
            _ => None,
        }
    }

    /// One frame from `from`: the decoded message, or why the frame is not one (any error
    /// that says so in words, such as a [`damx_wire::StreamError`]). Noise is not counted
    /// without a time: see [`Monitor::frame_at`].
    pub fn frame<E: fmt::Display>(
        &mut self,
        from: Party,
        frame: Result<&Message, E>,
    ) -> Observation {
        self.observe(from, frame).0
    }

    /// One frame from `from` that arrived at `now`, as [`Monitor::frame`] reads it, and
    /// counted against `from`'s noise budget.
    pub fn frame_at<E: fmt::Display>(
        &mut self,
        now: Instant,
        from: Party,
        frame: Result<&Message, E>,
    ) -> Observation {
        let (mut observation, noisy) = self.observe(from, frame);
        let findings = observation.findings.len() as u32;
        let (meter, flagged) = &mut self.noise[index(from)];
        if (noisy || findings > 0) && !meter.count(now, findings) && !*flagged {
            *flagged = true;
            observation.flag(FindingKind::Noise, from, meter.spent());
        }
        observation
    }

    /// What a frame means, and whether it is noise (a bad frame, a CHAT, a BACKREQ).
    fn observe<E: fmt::Display>(
        &mut self,
        from: Party,
        frame: Result<&Message, E>,
    ) -> (Observation, bool) {
        match frame {
            Ok(message) => (
                self.message(from, message),
                matches!(message, Message::Chat(_) | Message::BackReq(_)),
            ),
            Err(error) => (
                Observation::flagged(
                    FindingKind::BadFrame,
                    from,
                    format!("not a DXP message: {error}"),
                ),
                true,
            ),
        }
    }

    /// The end of `by`'s stream (it closed the connection, or its half of it).
    pub fn closed(&mut self, by: Party) -> Observation {
        let mut observation = Observation::default();
        if std::mem::replace(&mut self.closed[index(by)], true) {
            return observation;
        }
        match std::mem::replace(&mut self.phase, Phase::Idle) {
            Phase::Playing(followed) => {
                observation.flag(
                    FindingKind::ClosedInGame,
                    by,
                    format!("closed the connection during game {}", followed.number),
                );
                self.phase = Phase::Stopped;
            }
            Phase::Ending {
                first, followed, ..
            } if by != first => {
                observation.flag(
                    FindingKind::MissingAck,
                    by,
                    format!(
                        "closed the connection without acknowledging the GAMEEND of game {}",
                        followed.number
                    ),
                );
                self.phase = Phase::Stopped;
            }
            phase => {
                observation.note = Some(format!("{by} closed the connection"));
                self.phase = phase;
            }
        }
        observation
    }

    fn message(&mut self, from: Party, message: &Message) -> Observation {
        if let Message::Chat(chat) = message {
            return Observation::note(format!("{from} chats: {}", chat.text()));
        }
        match message {
            Message::GameReq(request) => self.game_request(from, request),
            Message::GameAcc(answer) => self.game_answer(from, answer.code),
            Message::Move(mv) => self.move_message(from, mv),
            Message::GameEnd(end) => self.game_end(from, end.reason, end.stop),
            Message::BackReq(request) => self.back_request(from, request),
            Message::BackAcc(answer) => self.back_answer(from, answer.code),
            Message::Chat(_) => Observation::default(),
        }
    }

    fn game_request(&mut self, from: Party, request: &GameReq) -> Observation {
        let mut observation = Observation::default();
        match self.initiator {
            Some(initiator) if initiator != from => observation.flag(
                FindingKind::OutOfState,
                from,
                "sent a GAMEREQ, but it is the Follower",
            ),
            Some(_) => {}
            None => self.initiator = Some(from),
        }
        let phase = std::mem::replace(&mut self.phase, Phase::Idle);
        match phase {
            Phase::Playing(mut followed) => {
                observation.flag(
                    FindingKind::OutOfState,
                    from,
                    format!("sent a GAMEREQ during game {}", followed.number),
                );
                followed.stray_request = true;
                self.phase = Phase::Playing(followed);
                return observation;
            }
            Phase::Requested(previous) => observation.flag(
                FindingKind::OutOfState,
                from,
                format!(
                    "sent a GAMEREQ before game {} was answered",
                    previous.number
                ),
            ),
            Phase::Ending {
                first, followed, ..
            } if first != from => observation.flag(
                FindingKind::MissingAck,
                from,
                format!(
                    "sent a GAMEREQ without acknowledging the GAMEEND of game {}",
                    followed.number
                ),
            ),
            Phase::Ending { followed, .. } => observation.flag(
                FindingKind::OutOfState,
                from,
                format!(
                    "sent a GAMEREQ before its GAMEEND of game {} was acknowledged",
                    followed.number
                ),
            ),
            Phase::Stopped => observation.flag(
                FindingKind::AfterStop,
                from,
                "sent a GAMEREQ after the session was stopped",
            ),
            Phase::Idle => {}
        }
        self.games += 1;
        let follower_color = color_from_wire(request.follower_color);
        let limit = match request.move_limit.limit() {
            Some(moves) => format!("{moves} moves"),
            None => "no move limit".to_owned(),
        };
        let start = match start_position(&request.start) {
            Ok(position) if position == damx_rules::Position::initial() => {
                "normal start".to_owned()
            }
            Ok(position) => format!("start {}", position.to_fen()),
            Err(error) => error.to_string(),
        };
        observation.note = Some(format!(
            "{from} asks for game {}: {} plays {follower_color}, {} min, {limit}, {start}",
            self.games,
            from.other(),
            request.minutes.get()
        ));
        self.phase = Phase::Requested(Request {
            number: self.games,
            initiator: from,
            request: *request,
        });
        observation
    }

    fn game_answer(&mut self, from: Party, code: AcceptCode) -> Observation {
        let mut observation = Observation::default();
        let phase = std::mem::replace(&mut self.phase, Phase::Idle);
        match phase {
            Phase::Requested(request) if request.initiator != from => {
                if code != AcceptCode::Accepted {
                    observation.note = Some(format!(
                        "{from} refuses game {} (code {})",
                        request.number,
                        char::from(code.digit())
                    ));
                    return observation;
                }
                let version = request.request.version.get();
                if version != 1 {
                    observation.flag(
                        FindingKind::BadField,
                        from,
                        format!("accepted a GAMEREQ of protocol version {version:02}"),
                    );
                }
                let start = match start_position(&request.request.start) {
                    Ok(position) => position,
                    Err(error) => {
                        observation.flag(
                            FindingKind::BadField,
                            from,
                            format!("accepted a game that cannot be played: {error}"),
                        );
                        return observation;
                    }
                };
                let follower_color = color_from_wire(request.request.follower_color);
                let white = if follower_color == Color::White {
                    from
                } else {
                    from.other()
                };
                observation.note = Some(format!(
                    "game {} starts: {white} white, {} black, {} to move",
                    request.number,
                    white.other(),
                    start.side_to_move()
                ));
                self.phase = Phase::Playing(Followed {
                    number: request.number,
                    white,
                    game: Game::new(start),
                    backreq: None,
                    stray_request: false,
                    offender: None,
                });
            }
            Phase::Playing(mut followed)
                if followed.stray_request && self.initiator != Some(from) =>
            {
                followed.stray_request = false;
                if code == AcceptCode::Accepted {
                    observation.flag(
                        FindingKind::BadField,
                        from,
                        format!(
                            "accepted a GAMEREQ during game {} (code 2 expected)",
                            followed.number
                        ),
                    );
                } else {
                    observation.note = Some(format!(
                        "{from} refuses the GAMEREQ during game {}",
                        followed.number
                    ));
                }
                self.phase = Phase::Playing(followed);
            }
            phase => {
                let what = if matches!(phase, Phase::Requested(_)) {
                    "sent a GAMEACC to its own GAMEREQ"
                } else {
                    "sent a GAMEACC without a GAMEREQ to answer"
                };
                observation.flag(self.stop_or(FindingKind::OutOfState, &phase), from, what);
                self.phase = phase;
            }
        }
        observation
    }

    fn move_message(&mut self, from: Party, mv: &damx_wire::Move) -> Observation {
        let mut observation = Observation::default();
        let Phase::Playing(followed) = &mut self.phase else {
            return match &self.phase {
                Phase::Ending { first, .. } if *first != from => Observation::flagged(
                    FindingKind::MissingAck,
                    from,
                    "sent a MOVE instead of acknowledging the GAMEEND",
                ),
                Phase::Ending { .. } => self.outside_game(from, "sent a MOVE after its GAMEEND"),
                _ => self.outside_game(from, "sent a MOVE outside a game"),
            };
        };
        let position = *followed.game.position();
        match read_move(&position, followed.to_move() == from, mv) {
            Ok(legal) => {
                let ply = followed.game.ply() + 1;
                let first = followed.game.start().side_to_move();
                let number = (ply + usize::from(first == Color::Black)).div_ceil(2);
                let dots = if position.side_to_move() == Color::White {
                    "."
                } else {
                    "..."
                };
                let mut note = format!(
                    "game {}: {number}{dots} {}",
                    followed.number,
                    position.move_text(&legal)
                );
                followed.game.play(legal);
                followed.offender = None;
                if let Some(outcome) = followed.game.outcome() {
                    note.push_str(&format!(" ({outcome})"));
                }
                observation.note = Some(note);
            }
            Err(fault) => {
                followed.offender = Some(from);
                let (kind, what) = match fault {
                    MoveFault::OutOfTurn => (
                        FindingKind::OutOfTurn,
                        format!(
                            "sent a MOVE in game {} when {} ({}) was to move",
                            followed.number,
                            followed.to_move(),
                            position.side_to_move()
                        ),
                    ),
                    MoveFault::Illegal(error) => (
                        FindingKind::IllegalMove,
                        format!(
                            "sent an illegal move in game {} ({} to move): {error}",
                            followed.number,
                            position.side_to_move()
                        ),
                    ),
                };
                observation.flag(kind, from, what);
            }
        }
        observation
    }

    fn game_end(&mut self, from: Party, reason: EndReason, stop: StopCode) -> Observation {
        let mut observation = Observation::default();
        let stops = stop == StopCode::Stop;
        let phase = std::mem::replace(&mut self.phase, Phase::Idle);
        match phase {
            Phase::Playing(followed) => {
                let answers_offence = followed.offender == Some(from.other());
                if followed.to_move() != from && !answers_offence {
                    observation.flag(
                        FindingKind::OutOfTurn,
                        from,
                        format!("ended game {} when it was not its turn", followed.number),
                    );
                }
                observation.note = Some(format!(
                    "{from} ends game {} ({}{})",
                    followed.number,
                    reason_words(reason),
                    if stops { ", and stops" } else { "" }
                ));
                self.phase = Phase::Ending {
                    first: from,
                    stop: stops,
                    followed,
                };
            }
            Phase::Ending {
                first,
                stop: first_stop,
                followed,
            } if first != from => {
                if reason != EndReason::NoReason {
                    observation.flag(
                        FindingKind::BadField,
                        from,
                        format!(
                            "acknowledged the GAMEEND with reason {} (the spec asks for 0)",
                            char::from(reason.digit())
                        ),
                    );
                }
                let stopped = first_stop || stops;
                observation.note = Some(format!(
                    "{from} acknowledges: game {} over after {} moves{}",
                    followed.number,
                    followed.game.ply(),
                    if stopped { ", the session stops" } else { "" }
                ));
                self.phase = if stopped { Phase::Stopped } else { Phase::Idle };
            }
            Phase::Ending {
                first,
                stop,
                followed,
            } => {
                observation.flag(
                    FindingKind::OutOfState,
                    from,
                    format!(
                        "sent a second GAMEEND before the first of game {} was acknowledged",
                        followed.number
                    ),
                );
                self.phase = Phase::Ending {
                    first,
                    stop,
                    followed,
                };
            }
            phase => {
                self.phase = phase;
                return self.outside_game(from, "sent a GAMEEND outside a game");
            }
        }
        observation
    }

    fn back_request(&mut self, from: Party, request: &damx_wire::BackReq) -> Observation {
        let Phase::Playing(followed) = &mut self.phase else {
            return self.outside_game(from, "sent a BACKREQ outside a game");
        };
        let mut observation = Observation::default();
        let first = followed.game.start().side_to_move();
        let color = color_from_wire(request.to_move);
        let ply = back_request_ply(first, request.move_number.get(), color);
        observation.note = Some(format!(
            "{from} asks to take back game {} to move {} with {color} to move (ply {ply}{})",
            followed.number,
            request.move_number.get(),
            if ply > followed.game.ply() {
                ", not in the game"
            } else {
                ""
            }
        ));
        followed.backreq = Some((from, ply));
        observation
    }

    fn back_answer(&mut self, from: Party, code: BackAccCode) -> Observation {
        let Phase::Playing(followed) = &mut self.phase else {
            return self.outside_game(from, "sent a BACKACC outside a game");
        };
        let mut observation = Observation::default();
        match followed.backreq.take() {
            Some((asker, ply)) if asker != from => {
                if code != BackAccCode::Accepted {
                    observation.note = Some(format!(
                        "{from} refuses the take-back (code {})",
                        char::from(code.digit())
                    ));
                } else if ply > followed.game.ply() {
                    observation.flag(
                        FindingKind::BadField,
                        from,
                        format!("accepted a take-back to ply {ply}, which is not in the game"),
                    );
                } else {
                    followed.game.truncate(ply);
                    observation.note = Some(format!(
                        "{from} accepts: game {} back to ply {ply}, {} to move",
                        followed.number,
                        followed.game.position().side_to_move()
                    ));
                }
            }
            other => {
                followed.backreq = other;
                observation.flag(
                    FindingKind::OutOfState,
                    from,
                    "sent a BACKACC without a BACKREQ to answer",
                );
            }
        }
        observation
    }

    /// A message that belongs in a game, out of one: out of state, or after the stop.
    fn outside_game(&self, from: Party, what: &str) -> Observation {
        Observation::flagged(
            self.stop_or(FindingKind::OutOfState, &self.phase),
            from,
            what,
        )
    }

    /// `kind`, or [`FindingKind::AfterStop`] once the session was stopped.
    fn stop_or(&self, kind: FindingKind, phase: &Phase) -> FindingKind {
        if matches!(phase, Phase::Stopped) {
            FindingKind::AfterStop
        } else {
            kind
        }
    }

    /// The colour `party` plays in the running game.
    pub fn color_of(&self, party: Party) -> Option<Color> {
        match &self.phase {
            Phase::Playing(followed) | Phase::Ending { followed, .. } => {
                Some(followed.color_of(party))
            }
            _ => None,
        }
    }
}

fn reason_words(reason: EndReason) -> &'static str {
    match reason {
        EndReason::NoReason => "no reason given",
        EndReason::GiveUp => "gives up",
        EndReason::Draw => "claims a draw",
        EndReason::Win => "claims a win",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_wire::decode;

    /// Feeds `(party, frame)` pairs; returns every finding and the notes.
    fn run(monitor: &mut Monitor, frames: &[(Party, &str)]) -> (Vec<Finding>, Vec<String>) {
        let mut findings = Vec::new();
        let mut notes = Vec::new();
        for (party, text) in frames {
            let decoded = decode(text.as_bytes());
            let observation = monitor.frame(*party, decoded.as_ref().map_err(|e| e.to_string()));
            findings.extend(observation.findings);
            notes.extend(observation.note);
        }
        (findings, notes)
    }

    fn kinds(findings: &[Finding]) -> Vec<(FindingKind, Party)> {
        findings.iter().map(|f| (f.kind, f.by)).collect()
    }

    const REQUEST_B_WHITE: &str = "R01Tornado voor Windows 4.0        W005000A";
    const ACCEPT: &str = "Adamx                            0";

    use Party::{A, B};

    /// The notes follow the game through a take-back to the handshake; only the illegal moves
    /// are flagged, each against its sender, and the game goes on without them.
    #[test]
    fn the_game_is_followed_and_illegal_moves_flagged() {
        let mut monitor = Monitor::new();
        let (findings, notes) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "M0001322800"),
                (A, "CHello"),
                (A, "M0001191400"), // black men move down: 19-14 is not a move
            ],
        );
        assert_eq!(kinds(&findings), [(FindingKind::IllegalMove, A)]);
        assert_eq!(monitor.initiator(), Some(A));
        assert!(
            notes[0].contains("A asks for game 1: B plays white"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("game 1 starts: B white, A black"),
            "{notes:?}"
        );
        assert_eq!(notes[2], "game 1: 1. 32-28");

        let mut monitor = Monitor::new();
        let (findings, notes) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "M0001322800"),
                (A, "M0001192300"),
                (B, "M0001282900"), // 28-29 is not a move
                (B, "M000128190123"),
                (A, "B001W"),
                (B, "K0"),
                (B, "M0001343000"),
                (A, "M0001192300"),
                (B, "E01"),
                (A, "E01"),
                (A, "CThanks for the game"),
            ],
        );
        assert_eq!(kinds(&findings), [(FindingKind::IllegalMove, B)]);
        assert!(
            notes.iter().any(|n| n.contains("back to ply 0")),
            "{notes:?}"
        );
        assert!(notes.iter().any(|n| n == "game 1: 1. 34-30"), "{notes:?}");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("game 1 over after 2 moves, the session stops")),
            "{notes:?}"
        );
    }

    /// Moves out of turn, a GAMEEND out of turn, a MOVE outside a game and bad frames are
    /// each flagged against their sender.
    #[test]
    fn turns_and_states_are_checked() {
        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[
                (A, "M0001322800"),
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (A, "M0001191400"),
                (B, "M0001322800"),
                (B, "E00"),
                (A, "E00"),
                (A, "E00"),
            ],
        );
        assert_eq!(
            kinds(&findings),
            [
                (FindingKind::OutOfState, A),
                (FindingKind::OutOfTurn, A),
                (FindingKind::OutOfTurn, B),
                (FindingKind::OutOfState, A),
            ]
        );
        // After an illegal move, its victim may end the game whoever is to move.
        let mut after_offence = Monitor::new();
        let (findings, _) = run(
            &mut after_offence,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "M0000322600"),
                (A, "CIllegal"),
                (A, "E00"),
                (B, "E00"),
            ],
        );
        assert_eq!(kinds(&findings), [(FindingKind::IllegalMove, B)]);
        let observation = monitor.frame(B, Err::<&Message, _>("byte 3: expected a digit"));
        assert_eq!(observation.findings[0].kind, FindingKind::BadFrame);
    }

    /// An acknowledgement that does not come is flagged when the other party sends something
    /// else or closes; a non-zero reason in an acknowledgement is flagged too.
    #[test]
    fn missing_acknowledgements_are_flagged() {
        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "E10"),
                (A, "M0001192300"),
                (A, "E10"),
            ],
        );
        assert_eq!(
            kinds(&findings),
            [(FindingKind::MissingAck, A), (FindingKind::BadField, A)]
        );

        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[(A, REQUEST_B_WHITE), (B, ACCEPT), (B, "E00")],
        );
        assert!(findings.is_empty());
        let closed = monitor.closed(A);
        assert_eq!(kinds(&closed.findings), [(FindingKind::MissingAck, A)]);

        // GWD: the Initiator sends the next GAMEREQ instead of acknowledging.
        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "E00"),
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
            ],
        );
        assert_eq!(kinds(&findings), [(FindingKind::MissingAck, A)]);
        assert!(monitor.game().is_some(), "the next game is followed");
    }

    /// After a handshake with stop code 1 only chats are allowed; closing in a game is
    /// flagged.
    #[test]
    fn after_a_stop_only_chats() {
        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, ACCEPT),
                (B, "E01"),
                (A, "E00"),
                (A, "CBye"),
                (A, REQUEST_B_WHITE),
            ],
        );
        assert_eq!(kinds(&findings), [(FindingKind::AfterStop, A)]);

        let mut monitor = Monitor::new();
        run(&mut monitor, &[(A, REQUEST_B_WHITE), (B, ACCEPT)]);
        let closed = monitor.closed(B);
        assert_eq!(kinds(&closed.findings), [(FindingKind::ClosedInGame, B)]);
        assert!(monitor.closed(B).findings.is_empty(), "reported once");
    }

    /// Noise past the budget is flagged once against its sender; within it, nothing.
    #[test]
    fn noise_past_the_budget_is_flagged_once() {
        let mut monitor = Monitor::new();
        run(&mut monitor, &[(A, REQUEST_B_WHITE), (B, ACCEPT)]);
        let now = Instant::now();
        let chat = decode(b"Chello").unwrap();
        let mut findings = Vec::new();
        for _ in 0..25 {
            let observation = monitor.frame_at(now, B, Ok::<_, String>(&chat));
            findings.extend(observation.findings);
        }
        assert_eq!(kinds(&findings), [(FindingKind::Noise, B)]);
        assert!(
            findings[0].what.starts_with("too much noise"),
            "{findings:?}"
        );
        let quiet = monitor.frame_at(now, A, Ok::<_, String>(&chat));
        assert!(quiet.findings.is_empty(), "A's budget is its own");
    }

    /// Requests from the Follower or during a game, answers without a request, and a GAMEACC
    /// 0 to another protocol version are flagged; a refused request starts no game.
    #[test]
    fn requests_and_answers_are_checked() {
        let mut monitor = Monitor::new();
        let (findings, _) = run(
            &mut monitor,
            &[
                (B, ACCEPT),
                (A, "R02Tornado voor Windows 4.0        W005000A"),
                (B, ACCEPT),
                (B, REQUEST_B_WHITE),
                (A, REQUEST_B_WHITE),
                (B, "Adamx                            2"),
            ],
        );
        assert_eq!(
            kinds(&findings),
            [
                (FindingKind::OutOfState, B),
                (FindingKind::BadField, B),
                (FindingKind::OutOfState, B),
                (FindingKind::OutOfState, B),
                (FindingKind::OutOfState, A),
            ]
        );
        assert!(monitor.game().is_some(), "the first game goes on");

        let mut monitor = Monitor::new();
        let (findings, notes) = run(
            &mut monitor,
            &[
                (A, REQUEST_B_WHITE),
                (B, "Adamx                            2"),
            ],
        );
        assert!(findings.is_empty());
        assert!(notes[1].contains("refuses game 1"), "{notes:?}");
        assert!(monitor.game().is_none());
    }
}
