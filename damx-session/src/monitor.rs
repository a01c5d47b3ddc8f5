//! A passive follower of a DXP dialogue between two other programs: it reads what each one
//! sends, keeps the game with the rules, and says what breaks the spec (dxp.md §3).
//!
//! A proxy between two programs feeds every frame to [`Monitor::frame`] with the party that
//! sent it ([`Party::A`] or [`Party::B`], however the caller names its two ends), and the
//! end of each party's stream to [`Monitor::closed`]. Each call returns an [`Observation`]:
//! what the frame means for the game in words (`game 1: 12... 19x28`) and the
//! [`Finding`]s, if any. The monitor never sends, never blocks and never panics; whatever a
//! party sends, it keeps following. The rules are the dialogue's [`Observer`] (what it flags
//! is a [`FindingKind`], each described there); the monitor words what the observer says, and
//! flags noise with the frames' times ([`Monitor::frame_at`]), once per party, at the
//! [`NoiseBudget`] a damx player or referee would end the connection at.
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

use damx_rules::{Color, Game, Position};
use damx_wire::{EndReason, GameReq, Message};

use crate::config::NoiseBudget;
use crate::convert::{color_from_wire, start_position};
use crate::dialogue::{Meaning, NoiseMeter, Observed, Observer, is_noise};

pub use crate::dialogue::{Party, Rule as FindingKind};

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
    fn flag(&mut self, kind: FindingKind, by: Party, what: impl Into<String>) {
        let what = what.into();
        self.findings.push(Finding { kind, by, what });
    }
}

/// Follows a DXP dialogue between two parties; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Monitor {
    observer: Observer,
    /// Each party's noise, and whether it was flagged.
    noise: [(NoiseMeter, bool); 2],
}

impl Monitor {
    /// A monitor at the start of a connection, with the default [`NoiseBudget`].
    pub fn new() -> Monitor {
        Monitor::default()
    }

    /// A monitor at the start of a connection that flags noise past `budget`.
    pub fn with_budget(budget: NoiseBudget) -> Monitor {
        let meter = (NoiseMeter::new(budget), false);
        Monitor {
            observer: Observer::new(),
            noise: [meter.clone(), meter],
        }
    }

    /// The party that sent the first GAMEREQ, once one has.
    pub fn initiator(&self) -> Option<Party> {
        self.observer.initiator()
    }

    /// The position of the game running, if one is.
    pub fn game(&self) -> Option<&Game> {
        self.observer.game()
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
        let (meter, flagged) = &mut self.noise[from.index()];
        if !meter.count(now, noisy, findings) && !*flagged {
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
            Ok(message) => {
                let noisy = is_noise(message);
                let observed = self.observer.observe(from, message);
                (self.words(from, observed), noisy)
            }
            Err(error) => {
                let mut observation = Observation::default();
                let what = format!("not a DXP message: {error}");
                observation.flag(FindingKind::BadFrame, from, what);
                (observation, true)
            }
        }
    }

    /// The end of `by`'s stream (it closed the connection, or its half of it).
    pub fn closed(&mut self, by: Party) -> Observation {
        let observed = self.observer.closed(by);
        self.words(by, observed)
    }

    /// What `from`'s message (or close) meant, in words.
    fn words(&self, from: Party, observed: Observed) -> Observation {
        let mut observation = Observation {
            note: observed.meaning.map(|meaning| self.note(from, meaning)),
            findings: Vec::new(),
        };
        for breach in observed.breaches {
            observation.flag(breach.rule, from, breach.what);
        }
        observation
    }

    fn note(&self, from: Party, meaning: Meaning) -> String {
        let (number, game) = (self.observer.number(), self.observer.current());
        match meaning {
            Meaning::Chat(text) => format!("{from} chats: {text}"),
            Meaning::Requested { request } => {
                let settings = settings_words(from.other(), &request);
                format!("{from} asks for game {number}: {settings}")
            }
            Meaning::Refused { code } => {
                let digit = char::from(code.digit());
                format!("{from} refuses game {number} (code {digit})")
            }
            Meaning::Started { white, start, .. } => format!(
                "game {number} starts: {white} white, {} black, {} to move",
                white.other(),
                start.side_to_move()
            ),
            Meaning::StrayRefused => format!("{from} refuses the GAMEREQ during game {number}"),
            Meaning::Moved { before, mv } => {
                let first_black = game.start().side_to_move() == Color::Black;
                let move_number = (game.ply() + usize::from(first_black)).div_ceil(2);
                let dots = if before.side_to_move() == Color::White {
                    "."
                } else {
                    "..."
                };
                let text = before.move_text(&mv);
                let outcome = (game.outcome()).map_or_else(String::new, |o| format!(" ({o})"));
                format!("game {number}: {move_number}{dots} {text}{outcome}")
            }
            Meaning::Ended { reason } => {
                let stops = if self.observer.stopping() {
                    ", and stops"
                } else {
                    ""
                };
                format!(
                    "{from} ends game {number} ({}{stops})",
                    reason_words(reason)
                )
            }
            Meaning::Acknowledged => {
                let stops = if self.observer.stopping() {
                    ", the session stops"
                } else {
                    ""
                };
                let plies = game.ply();
                let unit = if plies == 1 { "ply" } else { "plies" };
                format!("{from} acknowledges: game {number} over after {plies} {unit}{stops}")
            }
            Meaning::BackRequested {
                move_number,
                color,
                ply,
                in_game,
            } => format!(
                "{from} asks to take back game {number} to move {move_number} with {color} to \
                 move (ply {ply}{})",
                if in_game { "" } else { ", not in the game" }
            ),
            Meaning::BackRefused { code } => {
                let digit = char::from(code.digit());
                format!("{from} refuses the take-back (code {digit})")
            }
            Meaning::TakenBack { ply, .. } => {
                let to_move = game.position().side_to_move();
                format!("{from} accepts: game {number} back to ply {ply}, {to_move} to move")
            }
            Meaning::Closed => format!("{from} closed the connection"),
        }
    }
}

/// A GAMEREQ's settings in words, `follower` being the party asked to play.
fn settings_words(follower: Party, request: &GameReq) -> String {
    let follower_color = color_from_wire(request.follower_color);
    let limit = match request.move_limit.limit() {
        Some(moves) => format!("{moves} moves"),
        None => "no move limit".to_owned(),
    };
    let start = match start_position(&request.start) {
        Ok(position) if position == Position::initial() => "normal start".to_owned(),
        Ok(position) => format!("start {}", position.to_fen()),
        Err(error) => error.to_string(),
    };
    let minutes = request.minutes.get();
    format!("{follower} plays {follower_color}, {minutes} min, {limit}, {start}")
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
                .any(|n| n.contains("game 1 over after 2 plies, the session stops")),
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
