//! The dialogue of one connection, followed from outside (dxp.md §3): every message from
//! either end goes into an [`Observer`], which keeps the phase (no game, a GAMEREQ waiting,
//! a game with one side to move, a first GAMEEND waiting for its acknowledgement, stopped),
//! the position and a take-back request, and says what the message means ([`Meaning`]) and
//! which rules it breaks ([`Breach`]). It sends nothing and decides nothing: a role answers,
//! tolerates, ends or flags on top of it.
//!
//! The two ends are [`Party::A`] and [`Party::B`], however the caller names them; the
//! Initiator is the one that sends the first GAMEREQ.
//!
//! ```
//! use damx_session::dialogue::{Breach, Meaning, Observer, Party, Rule};
//! use damx_wire::decode;
//!
//! let mut observer = Observer::new();
//! let request = decode(b"R01Tornado voor Windows 4.0        W060000A").unwrap();
//! observer.observe(Party::A, &request);
//! let accept = decode(b"Adamx                            0").unwrap();
//! let started = observer.observe(Party::B, &accept);
//! assert!(matches!(started.meaning, Some(Meaning::Started { white: Party::B, .. })));
//! let early = observer.observe(Party::A, &decode(b"M0001322800").unwrap());
//! assert!(matches!(early.breaches[..], [Breach { rule: Rule::OutOfTurn, .. }]));
//! ```

use std::fmt;

use damx_rules::{Color, DrawReason, Game, GameResult, Move, Outcome, Position};
use damx_wire::{AcceptCode, BackAccCode, EndReason, GameEnd, GameReq, Message, StopCode};

use crate::convert::{
    MoveMatchError, back_request_ply, color_from_wire, match_move, start_position,
};
use crate::record::{Termination, win};

/// One of the two ends of the dialogue.
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

    /// `0` for A, `1` for B.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of rule a [`Breach`] (or a role's own finding) is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// A frame that is not a DXP message (bad framing, undecodable).
    BadFrame,
    /// A message the dialogue does not allow in its state: a GAMEACC without a GAMEREQ, a
    /// GAMEREQ from the Follower or during a game, a MOVE outside a game, a BACKACC without a
    /// BACKREQ, a second GAMEEND before the acknowledgement, a GAMEEND between games.
    OutOfState,
    /// A MOVE, or a first GAMEEND, from the party that is not to move (a GAMEEND that answers
    /// the opponent's illegal or out-of-turn MOVE may come at any time).
    OutOfTurn,
    /// A MOVE that is not legal in the game's position (matched by from, to and the set of
    /// captured squares); the game goes on without it.
    IllegalMove,
    /// A field value the spec does not allow there: a GAMEACC `0` to a request of another
    /// protocol version or with an impossible start, an acknowledgement with a reason other
    /// than `0`.
    BadField,
    /// A first GAMEEND that was not acknowledged with a GAMEEND: the other party sent
    /// something else, or closed.
    MissingAck,
    /// Anything but a CHAT after a GAMEEND handshake with stop code `1`.
    AfterStop,
    /// The connection was closed during a game.
    ClosedInGame,
    /// More bad frames, chats, take-back requests and breaches at once (or in all) than the
    /// [`NoiseBudget`](crate::config::NoiseBudget) allows.
    Noise,
}

impl Rule {
    /// A stable snake-case word for logs and JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::BadFrame => "bad_frame",
            Rule::OutOfState => "out_of_state",
            Rule::OutOfTurn => "out_of_turn",
            Rule::IllegalMove => "illegal_move",
            Rule::BadField => "bad_field",
            Rule::MissingAck => "missing_ack",
            Rule::AfterStop => "after_stop",
            Rule::ClosedInGame => "closed_in_game",
            Rule::Noise => "noise",
        }
    }
}

/// A rule of the dialogue that a message (or a close) broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    /// The kind of rule broken.
    pub rule: Rule,
    /// What happened, from the sender's side (`sent a MOVE outside a game`).
    pub what: String,
    /// For an illegal MOVE: why no legal move matches it.
    pub illegal: Option<MoveMatchError>,
}

/// What a message meant for the dialogue. The game it is about is [`Observer::number`], and
/// [`Observer::stopping`] says whether a GAMEEND asked to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[expect(missing_docs, reason = "each variant's documentation names its fields")]
pub enum Meaning {
    /// A CHAT with this text; it changes nothing.
    Chat(String),
    /// A GAMEREQ for the next game; its GAMEACC is due.
    Requested { request: GameReq },
    /// The game asked for was refused with `code`.
    Refused { code: AcceptCode },
    /// The game of `request` starts from `start`, `white` playing white.
    Started {
        white: Party,
        start: Position,
        request: GameReq,
    },
    /// The GAMEREQ during the game was refused; the game goes on.
    StrayRefused,
    /// The legal move `mv` was played from `before` (the rules may now end the game).
    Moved { before: Position, mv: Move },
    /// The first GAMEEND of the game, with its reason.
    Ended { reason: EndReason },
    /// The acknowledgement: the game is over (after a stop code `1`, only CHATs may follow).
    Acknowledged,
    /// A BACKREQ for `move_number` with `color` to move: the position at `ply`, which is in the
    /// game when `in_game`.
    BackRequested {
        move_number: u16,
        color: Color,
        ply: usize,
        in_game: bool,
    },
    /// A take-back was refused with `code`.
    BackRefused { code: BackAccCode },
    /// A take-back was accepted: the game is back at `ply`; `before` was to move.
    TakenBack { ply: usize, before: Color },
    /// The party closed its end, with no game at stake.
    Closed,
}

/// What one message (or close) meant, and the rules it broke.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// Its meaning, when it has one.
    pub meaning: Option<Meaning>,
    /// The rules it broke.
    pub breaches: Vec<Breach>,
}

impl Observed {
    fn meaning(meaning: Meaning) -> Observed {
        Observed {
            meaning: Some(meaning),
            breaches: Vec::new(),
        }
    }

    fn breach(rule: Rule, what: impl Into<String>) -> Observed {
        let mut observed = Observed::default();
        observed.push(rule, what);
        observed
    }

    fn push(&mut self, rule: Rule, what: impl Into<String>) {
        let (what, illegal) = (what.into(), None);
        self.breaches.push(Breach {
            rule,
            what,
            illegal,
        });
    }
}

/// A game being followed.
#[derive(Clone, Debug)]
struct Followed {
    /// The party playing white.
    white: Party,
    /// Each party's BACKREQ waiting for the other's answer: the ply asked for
    /// ([`Party::index`]).
    backreq: [Option<usize>; 2],
    /// A GAMEREQ sent during the game, waiting for its (refusing) GAMEACC.
    stray_request: bool,
    /// The party that sent an illegal or out-of-turn MOVE since the last legal one: its
    /// opponent may then end the game at once, whoever is to move.
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
}

/// Where the dialogue stands.
#[derive(Clone, Debug, Default)]
enum Phase {
    /// Between games: the Initiator may send a GAMEREQ.
    #[default]
    Idle,
    /// A GAMEREQ from `by` waits for its GAMEACC.
    Requested { by: Party, request: GameReq },
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

/// The dialogue of one connection, followed; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Observer {
    phase: Phase,
    /// The running game, or the last one (the normal start before the first).
    game: Game,
    initiator: Option<Party>,
    games: u32,
    closed: [bool; 2],
    /// The first ply of the game at which a draw rule applied since the last take-back, and
    /// which.
    drawn: Option<(usize, DrawReason)>,
}

impl Observer {
    /// An observer at the start of a connection.
    pub fn new() -> Observer {
        Observer::default()
    }

    /// An observer at the start of a connection whose Initiator is known: a GAMEREQ from the
    /// other party breaks the rules and asks for nothing.
    pub fn with_initiator(initiator: Party) -> Observer {
        Observer {
            initiator: Some(initiator),
            ..Observer::new()
        }
    }

    /// The number of the game asked for last (from 1; 0 before the first GAMEREQ): the running
    /// game's, or the last one's.
    pub fn number(&self) -> u32 {
        self.games
    }

    /// The party that sent the first GAMEREQ, once one has.
    pub fn initiator(&self) -> Option<Party> {
        self.initiator
    }

    /// The running game, also while its GAMEEND handshake runs.
    pub fn game(&self) -> Option<&Game> {
        self.followed().map(|_| &self.game)
    }

    /// The running game, or the last one (the normal start before the first).
    pub fn current(&self) -> &Game {
        &self.game
    }

    /// How the rules end the running game (or the last one): its final position (no legal
    /// move, or a draw rule), or a draw rule met at an earlier position since the last
    /// take-back; `None` while the rules let it go on.
    pub fn rules_ending(&self) -> Option<(GameResult, Termination)> {
        let side_to_move = self.game.position().side_to_move();
        match self.game.outcome() {
            Some(outcome @ Outcome::Win { winner, .. }) => {
                Some((win(winner), Termination::of_outcome(outcome, side_to_move)))
            }
            Some(Outcome::Draw(reason)) => Some((GameResult::Draw, Termination::DrawRule(reason))),
            None => {
                (self.drawn).map(|(_, reason)| (GameResult::Draw, Termination::DrawRule(reason)))
            }
        }
    }

    /// Whether a GAMEEND of the last handshake carried stop code `1`: the session is over, or
    /// will be once the first GAMEEND is acknowledged.
    pub fn stopping(&self) -> bool {
        matches!(
            self.phase,
            Phase::Stopped | Phase::Ending { stop: true, .. }
        )
    }

    /// The GAMEEND that acknowledges the first GAMEEND of the handshake: reason `0`, and stop
    /// code `1` when that one asked to stop, or `stop`.
    pub fn acknowledgement(&self, stop: bool) -> GameEnd {
        super::game_end(EndReason::NoReason, stop || self.stopping())
    }

    /// The colour `party` plays in the running game.
    pub fn color_of(&self, party: Party) -> Option<Color> {
        let white = self.followed()?.white;
        Some(if party == white {
            Color::White
        } else {
            Color::Black
        })
    }

    /// The party to move, while a game runs (not during its GAMEEND handshake).
    pub fn to_move(&self) -> Option<Party> {
        match &self.phase {
            Phase::Playing(followed) => {
                Some(followed.party_of(self.game.position().side_to_move()))
            }
            _ => None,
        }
    }

    /// `by` stops waiting for the answer to its BACKREQ: a BACKACC that comes later answers
    /// nothing.
    pub fn withdraw_back_request(&mut self, by: Party) {
        if let Phase::Playing(followed) = &mut self.phase {
            followed.backreq[by.index()] = None;
        }
    }

    fn followed(&self) -> Option<&Followed> {
        match &self.phase {
            Phase::Playing(followed) | Phase::Ending { followed, .. } => Some(followed),
            _ => None,
        }
    }

    /// One message from `from`.
    pub fn observe(&mut self, from: Party, message: &Message) -> Observed {
        match message {
            Message::Chat(chat) => Observed::meaning(Meaning::Chat(chat.text().to_owned())),
            Message::GameReq(request) => self.game_request(from, request),
            Message::GameAcc(answer) => self.game_answer(from, answer.code),
            Message::Move(mv) => self.move_message(from, mv),
            Message::GameEnd(end) => self.game_end(from, end.reason, end.stop),
            Message::BackReq(request) => self.back_request_message(from, request),
            Message::BackAcc(answer) => self.back_answer(from, answer.code),
        }
    }

    /// The end of `by`'s stream (it closed the connection, or its half of it); a second close
    /// of the same party means nothing.
    pub fn closed(&mut self, by: Party) -> Observed {
        if std::mem::replace(&mut self.closed[by.index()], true) {
            return Observed::default();
        }
        let (rule, what) = match &self.phase {
            Phase::Playing(_) => (Rule::ClosedInGame, "during"),
            Phase::Ending { first, .. } if by != *first => {
                (Rule::MissingAck, "without acknowledging the GAMEEND of")
            }
            _ => return Observed::meaning(Meaning::Closed),
        };
        self.phase = Phase::Stopped;
        let number = self.games;
        Observed::breach(rule, format!("closed the connection {what} game {number}"))
    }

    fn game_request(&mut self, from: Party, request: &GameReq) -> Observed {
        let mut observed = Observed::default();
        let initiator = *self.initiator.get_or_insert(from);
        if initiator != from {
            observed.push(Rule::OutOfState, "sent a GAMEREQ, but it is the Follower");
        }
        let number = self.games;
        let (rule, when) = match &mut self.phase {
            Phase::Playing(followed) => {
                followed.stray_request = true;
                observed.push(
                    Rule::OutOfState,
                    format!("sent a GAMEREQ during game {number}"),
                );
                return observed;
            }
            Phase::Idle => return self.request_for(from, *request, observed),
            Phase::Requested { .. } => (
                Rule::OutOfState,
                format!("before game {number} was answered"),
            ),
            Phase::Ending { first, .. } if *first != from => {
                let when = format!("without acknowledging the GAMEEND of game {number}");
                (Rule::MissingAck, when)
            }
            Phase::Ending { .. } => {
                let when = format!("before its GAMEEND of game {number} was acknowledged");
                (Rule::OutOfState, when)
            }
            Phase::Stopped => (Rule::AfterStop, "after the session was stopped".to_owned()),
        };
        observed.push(rule, format!("sent a GAMEREQ {when}"));
        self.request_for(from, *request, observed)
    }

    /// `from`'s GAMEREQ asks for the next game, if `from` is the Initiator; `observed` so far.
    fn request_for(&mut self, from: Party, request: GameReq, mut observed: Observed) -> Observed {
        if self.initiator == Some(from) {
            self.games = self.games.saturating_add(1);
            self.phase = Phase::Requested { by: from, request };
            observed.meaning = Some(Meaning::Requested { request });
        }
        observed
    }

    fn game_answer(&mut self, from: Party, code: AcceptCode) -> Observed {
        match &mut self.phase {
            Phase::Requested { by, request } if *by != from => {
                let request = *request;
                self.phase = Phase::Idle;
                if code != AcceptCode::Accepted {
                    return Observed::meaning(Meaning::Refused { code });
                }
                self.start_game(from, request)
            }
            Phase::Playing(followed) if followed.stray_request && self.initiator != Some(from) => {
                followed.stray_request = false;
                if code == AcceptCode::Accepted {
                    let number = self.games;
                    let what = format!("accepted a GAMEREQ during game {number} (code 2 expected)");
                    Observed::breach(Rule::BadField, what)
                } else {
                    Observed::meaning(Meaning::StrayRefused)
                }
            }
            Phase::Requested { .. } => self.outside_game("sent a GAMEACC to its own GAMEREQ"),
            _ => self.outside_game("sent a GAMEACC without a GAMEREQ to answer"),
        }
    }

    /// `follower` accepted `request`: the game starts, if it can be played.
    fn start_game(&mut self, follower: Party, request: GameReq) -> Observed {
        let mut observed = Observed::default();
        let version = request.version.get();
        if version != 1 {
            let what = format!("accepted a GAMEREQ of protocol version {version:02}");
            observed.push(Rule::BadField, what);
        }
        let start = match start_position(&request.start) {
            Ok(start) => start,
            Err(error) => {
                let what = format!("accepted a game that cannot be played: {error}");
                observed.push(Rule::BadField, what);
                return observed;
            }
        };
        let white = match color_from_wire(request.follower_color) {
            Color::White => follower,
            Color::Black => follower.other(),
        };
        self.game = Game::new(start);
        self.drawn = None;
        self.phase = Phase::Playing(Followed {
            white,
            backreq: [None; 2],
            stray_request: false,
            offender: None,
        });
        observed.meaning = Some(Meaning::Started {
            white,
            start,
            request,
        });
        observed
    }

    fn move_message(&mut self, from: Party, mv: &damx_wire::Move) -> Observed {
        let followed = match &mut self.phase {
            Phase::Playing(followed) => followed,
            Phase::Ending { first, .. } if *first != from => {
                let what = "sent a MOVE instead of acknowledging the GAMEEND";
                return Observed::breach(Rule::MissingAck, what);
            }
            Phase::Ending { .. } => return self.outside_game("sent a MOVE after its GAMEEND"),
            _ => return self.outside_game("sent a MOVE outside a game"),
        };
        let (before, number) = (*self.game.position(), self.games);
        let color = before.side_to_move();
        // A MOVE counts only from the side to move, and only as a legal move.
        let to_move = followed.party_of(color);
        if to_move != from {
            followed.offender = Some(from);
            let what = format!("sent a MOVE in game {number} when {to_move} ({color}) was to move");
            return Observed::breach(Rule::OutOfTurn, what);
        }
        match match_move(&before, mv) {
            Ok(legal) => {
                self.game.play(legal);
                followed.offender = None;
                if self.drawn.is_none()
                    && let Some(Outcome::Draw(reason)) = self.game.outcome()
                {
                    self.drawn = Some((self.game.ply(), reason));
                }
                Observed::meaning(Meaning::Moved { before, mv: legal })
            }
            Err(error) => {
                followed.offender = Some(from);
                let what =
                    format!("sent an illegal move in game {number} ({color} to move): {error}");
                let mut observed = Observed::breach(Rule::IllegalMove, what);
                observed.breaches[0].illegal = Some(error);
                observed
            }
        }
    }

    fn game_end(&mut self, from: Party, reason: EndReason, stop: StopCode) -> Observed {
        let (number, stop) = (self.games, stop == StopCode::Stop);
        match &self.phase {
            Phase::Playing(followed) => {
                let mut observed = Observed::meaning(Meaning::Ended { reason });
                // One that answers the opponent's illegal or out-of-turn MOVE may come any time.
                let to_move = followed.party_of(self.game.position().side_to_move());
                if to_move != from && followed.offender != Some(from.other()) {
                    let what = format!("ended game {number} when it was not its turn");
                    observed.push(Rule::OutOfTurn, what);
                }
                let (first, followed) = (from, followed.clone());
                self.phase = Phase::Ending {
                    first,
                    stop,
                    followed,
                };
                observed
            }
            Phase::Ending {
                first, stop: asked, ..
            } if *first != from => {
                let mut observed = Observed::meaning(Meaning::Acknowledged);
                if reason != EndReason::NoReason {
                    let digit = char::from(reason.digit());
                    let what = format!(
                        "acknowledged the GAMEEND with reason {digit} (the spec asks for 0)"
                    );
                    observed.push(Rule::BadField, what);
                }
                self.phase = if stop || *asked {
                    Phase::Stopped
                } else {
                    Phase::Idle
                };
                observed
            }
            Phase::Ending { .. } => {
                let what = format!(
                    "sent a second GAMEEND before the first of game {number} was acknowledged"
                );
                Observed::breach(Rule::OutOfState, what)
            }
            _ => self.outside_game("sent a GAMEEND outside a game"),
        }
    }

    fn back_request_message(&mut self, from: Party, request: &damx_wire::BackReq) -> Observed {
        let Phase::Playing(followed) = &mut self.phase else {
            return self.outside_game("sent a BACKREQ outside a game");
        };
        let first = self.game.start().side_to_move();
        let color = color_from_wire(request.to_move);
        let move_number = request.move_number.get();
        let ply = back_request_ply(first, move_number, color);
        followed.backreq[from.index()] = Some(ply);
        let in_game = ply <= self.game.ply();
        Observed::meaning(Meaning::BackRequested {
            move_number,
            color,
            ply,
            in_game,
        })
    }

    fn back_answer(&mut self, from: Party, code: BackAccCode) -> Observed {
        let Phase::Playing(followed) = &mut self.phase else {
            return self.outside_game("sent a BACKACC outside a game");
        };
        match followed.backreq[from.other().index()].take() {
            None => Observed::breach(
                Rule::OutOfState,
                "sent a BACKACC without a BACKREQ to answer",
            ),
            Some(_) if code != BackAccCode::Accepted => {
                Observed::meaning(Meaning::BackRefused { code })
            }
            Some(ply) if ply > self.game.ply() => {
                let what = format!("accepted a take-back to ply {ply}, which is not in the game");
                Observed::breach(Rule::BadField, what)
            }
            Some(ply) => {
                let before = self.game.position().side_to_move();
                self.game.truncate(ply);
                self.drawn = self.drawn.filter(|(at, _)| *at <= ply);
                Observed::meaning(Meaning::TakenBack { ply, before })
            }
        }
    }

    /// A message that belongs in a game, out of one: out of state, or after the stop.
    fn outside_game(&self, what: &str) -> Observed {
        let stopped = matches!(self.phase, Phase::Stopped);
        let rule = if stopped {
            Rule::AfterStop
        } else {
            Rule::OutOfState
        };
        Observed::breach(rule, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_wire::decode;

    use Party::{A, B};

    /// Feeds `(party, frame)` pairs; returns what each meant.
    fn feed(observer: &mut Observer, frames: &[(Party, &str)]) -> Vec<Observed> {
        frames
            .iter()
            .map(|(party, text)| {
                let message = decode(text.as_bytes()).expect("a message");
                observer.observe(*party, &message)
            })
            .collect()
    }

    /// The rules `observed` says were broken, and how.
    fn said(observed: &Observed) -> Vec<(Rule, &str)> {
        let breaches = observed.breaches.iter();
        breaches
            .map(|breach| (breach.rule, &*breach.what))
            .collect()
    }

    /// Whose turn it is follows the moves from both ends; a take-back goes back to the
    /// position asked for and says who was to move before it.
    #[test]
    fn turns_and_take_backs() {
        let mut observer = Observer::new();
        let seen = feed(
            &mut observer,
            &[
                (A, "R01damx                            Z005000A"),
                (B, "Apeer                            0"),
            ],
        );
        assert!(matches!(
            seen[1].meaning,
            Some(Meaning::Started { white: A, .. })
        ));
        assert_eq!(observer.to_move(), Some(A));
        assert_eq!(observer.color_of(B), Some(Color::Black));
        let seen = feed(
            &mut observer,
            &[(A, "M0001322800"), (B, "M0001192300"), (A, "B001W")],
        );
        assert!(seen.iter().all(|seen| seen.breaches.is_empty()));
        assert_eq!(observer.to_move(), Some(A));
        assert!(matches!(
            seen[2].meaning,
            Some(Meaning::BackRequested {
                ply: 0,
                in_game: true,
                ..
            })
        ));
        let seen = feed(&mut observer, &[(B, "K0")]);
        assert_eq!(
            seen[0].meaning,
            Some(Meaning::TakenBack {
                ply: 0,
                before: Color::White,
            })
        );
        assert_eq!(observer.number(), 1);
        assert_eq!(observer.current().ply(), 0);
        let seen = feed(&mut observer, &[(A, "K0")]);
        assert_eq!(
            said(&seen[0]),
            [(
                Rule::OutOfState,
                "sent a BACKACC without a BACKREQ to answer"
            )]
        );
    }

    /// A draw rule met once still ends the game after the players play past it, until a
    /// take-back goes back before it.
    #[test]
    fn a_draw_rule_holds_until_a_take_back() {
        let start: Position = "B:WK36:BK1".parse().expect("a position");
        let name = damx_wire::Name::new("damx").expect("a name");
        let request = crate::dialogue::game_request(name, Color::Black, 5, 0, Some(&start));
        let mut observer = Observer::new();
        observer.observe(A, &Message::GameReq(request));
        feed(&mut observer, &[(B, "Apeer                            0")]);
        let shuffle = ["M0000010600", "M0000364100", "M0000060100", "M0000413600"];
        let players = [B, A, B, A];
        for _ in 0..2 {
            let frames: Vec<_> = players.into_iter().zip(shuffle).collect();
            assert!(
                feed(&mut observer, &frames)
                    .iter()
                    .all(|seen| seen.breaches.is_empty())
            );
        }
        let drawn = Some((
            GameResult::Draw,
            Termination::DrawRule(DrawReason::Repetition),
        ));
        assert_eq!(observer.rules_ending(), drawn);
        feed(&mut observer, &[(B, "M0000010600")]);
        assert_eq!(observer.rules_ending(), drawn, "played past");
        feed(&mut observer, &[(B, "B001W"), (A, "K0")]);
        assert_eq!(observer.current().ply(), 1);
        assert_eq!(observer.rules_ending(), None);
    }

    /// With the Initiator known, the Follower's GAMEREQ breaks the rules and asks for nothing:
    /// the Initiator's request still waits for its answer. A handshake with stop code `1`
    /// stops the dialogue from the first GAMEEND on.
    #[test]
    fn the_followers_gamereq_and_the_stop() {
        let mut observer = Observer::with_initiator(A);
        let seen = feed(
            &mut observer,
            &[
                (A, "R01damx                            Z005000A"),
                (B, "R01peer                            Z005000A"),
                (B, "Apeer                            0"),
            ],
        );
        assert_eq!(
            said(&seen[1]),
            [
                (Rule::OutOfState, "sent a GAMEREQ, but it is the Follower"),
                (
                    Rule::OutOfState,
                    "sent a GAMEREQ before game 1 was answered"
                ),
            ]
        );
        assert!(matches!(seen[2].meaning, Some(Meaning::Started { .. })));
        assert_eq!(observer.number(), 1);
        assert!(!observer.stopping());
        feed(&mut observer, &[(A, "E01")]);
        assert!(observer.stopping(), "once asked");
        feed(&mut observer, &[(B, "E00")]);
        assert!(observer.stopping() && observer.game().is_none());
    }

    /// A GAMEEND from the side not to move breaks the turn, unless it answers an offence;
    /// the acknowledgement ends the game, and a stray GAMEEND afterwards is out of a game.
    #[test]
    fn the_gameend_handshake() {
        let start = [
            (A, "R01damx                            Z005000A"),
            (B, "Apeer                            0"),
        ];
        let mut observer = Observer::new();
        feed(&mut observer, &start);
        let seen = feed(&mut observer, &[(B, "E00"), (A, "E20")]);
        assert_eq!(
            said(&seen[0]),
            [(Rule::OutOfTurn, "ended game 1 when it was not its turn")]
        );
        assert_eq!(
            said(&seen[1]),
            [(
                Rule::BadField,
                "acknowledged the GAMEEND with reason 2 (the spec asks for 0)"
            )]
        );
        assert!(observer.game().is_none());
        let seen = feed(&mut observer, &[(B, "E00")]);
        assert_eq!(seen[0].breaches[0].rule, Rule::OutOfState);

        let mut observer = Observer::new();
        feed(&mut observer, &start);
        let seen = feed(&mut observer, &[(B, "M0001322800"), (A, "E01"), (B, "E01")]);
        assert_eq!(
            said(&seen[0]),
            [(
                Rule::OutOfTurn,
                "sent a MOVE in game 1 when A (white) was to move"
            )]
        );
        assert!(seen[1].breaches.is_empty(), "it answers the offence");
        assert_eq!(seen[2].meaning, Some(Meaning::Acknowledged));
        assert!(observer.stopping());
        let seen = feed(
            &mut observer,
            &[(A, "R01damx                            Z005000A")],
        );
        assert_eq!(
            said(&seen[0]),
            [(
                Rule::AfterStop,
                "sent a GAMEREQ after the session was stopped"
            )]
        );
    }
}
