//! The dialogue of dxp.md §3, row by row, and every abnormal input, through the machine alone.
//!
//! Peer messages go in as bytes through the real framer and decoder; the time is a fake clock
//! moved by hand.

use std::time::{Duration, Instant};

use bytes::BytesMut;
use damx_rules::{Color, DrawReason, GameResult, Move, Position};
use damx_wire::{Framer, Name};

use super::*;
use crate::config::{
    DEFAULT_MAX_MINUTES, FollowerConfig, GameSettings, InitiatorConfig, NoiseBudget, SessionConfig,
};
use crate::convert::{move_to_wire, position_to_wire};
use crate::player::{FirstLegalPlayer, Player, RandomPlayer, StopSignal};

const US: &str = "damx test";

fn pad(name: &str) -> String {
    format!("{name:<32}")
}

/// A GAMEREQ from a peer called "Peer", the Follower (us) playing `color`.
fn gamereq(color: char, minutes: u16, limit: u16) -> String {
    format!("R01{}{color}{minutes:03}{limit:03}A", pad("Peer"))
}

/// A GAMEREQ with a set-up start.
fn gamereq_from(position: &Position, color: char, minutes: u16, limit: u16) -> String {
    let (to_move, board) = position_to_wire(position);
    format!(
        "R01{}{color}{minutes:03}{limit:03}B{}{board}",
        pad("Peer"),
        to_move.letter() as char
    )
}

fn gameacc(code: char) -> String {
    format!("A{}{code}", pad("Peer"))
}

/// The legal move of `position` from `from` to `to` (the first, if several).
fn legal(position: &Position, from: u8, to: u8) -> Move {
    *position
        .legal_moves()
        .iter()
        .find(|mv| mv.from().number() == from && mv.to().number() == to)
        .unwrap_or_else(|| panic!("no legal move {from}-{to} in {position}"))
}

/// What one call produced.
struct Outs(Vec<Output>);

impl Outs {
    fn sent(&self) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|output| match output {
                Output::Send(message) => Some(message.to_string()),
                _ => None,
            })
            .collect()
    }

    fn events(&self) -> Vec<&Event> {
        self.0
            .iter()
            .filter_map(|output| match output {
                Output::Event(event) => Some(event),
                _ => None,
            })
            .collect()
    }

    fn thinking(&self) -> Option<&ThinkRequest> {
        self.0.iter().find_map(|output| match output {
            Output::StartThinking(request) => Some(request),
            _ => None,
        })
    }

    fn stops_thinking(&self) -> bool {
        self.0.iter().any(|o| matches!(o, Output::StopThinking))
    }

    fn closes(&self) -> bool {
        self.0.iter().any(|o| matches!(o, Output::Close))
    }

    fn closed_because(&self) -> Option<&CloseReason> {
        self.events().into_iter().find_map(|event| match event {
            Event::Closed(reason) => Some(reason),
            _ => None,
        })
    }

    fn game_over(&self) -> Option<&GameRecord> {
        self.events().into_iter().find_map(|event| match event {
            Event::GameOver(record) => Some(&**record),
            _ => None,
        })
    }

    fn violations(&self) -> Vec<&Violation> {
        self.events()
            .into_iter()
            .filter_map(|event| match event {
                Event::Violation(violation) => Some(violation),
                _ => None,
            })
            .collect()
    }

    fn chats_sent(&self) -> Vec<String> {
        self.sent()
            .into_iter()
            .filter(|text| text.starts_with('C'))
            .collect()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

struct Harness {
    machine: PlayerMachine,
    now: Instant,
    ticket: Option<u64>,
}

impl Harness {
    fn new(config: SessionConfig) -> Harness {
        Harness::with_policy(config, TakeBackPolicy::Accept)
    }

    fn with_policy(config: SessionConfig, policy: TakeBackPolicy) -> Harness {
        Harness {
            machine: PlayerMachine::new(&config, Name::new(US).unwrap(), policy),
            now: Instant::now(),
            ticket: None,
        }
    }

    fn follower() -> Harness {
        let mut harness = Harness::new(SessionConfig::follower(FollowerConfig::default()));
        assert!(harness.start().is_empty());
        harness
    }

    fn initiator(games: Vec<GameSettings>) -> (Harness, Outs) {
        let mut harness = Harness::new(SessionConfig::initiator(InitiatorConfig { games }));
        let outs = harness.start();
        (harness, outs)
    }

    fn track(&mut self, outs: Vec<Output>) -> Outs {
        for output in &outs {
            match output {
                Output::StartThinking(request) => self.ticket = Some(request.ticket),
                Output::StopThinking => self.ticket = None,
                _ => {}
            }
        }
        Outs(outs)
    }

    fn start(&mut self) -> Outs {
        let outs = self.machine.start(self.now);
        self.track(outs)
    }

    fn input(&mut self, input: Input) -> Outs {
        let outs = self.machine.handle(self.now, input);
        self.track(outs)
    }

    /// Feeds raw bytes through the framer, one input per frame (or bad frame).
    fn feed(&mut self, bytes: &[u8]) -> Outs {
        let mut framer = Framer::new();
        let mut buf = BytesMut::from(bytes);
        let mut all = Vec::new();
        loop {
            let incoming = match framer.next_message(&mut buf) {
                Ok(Some(message)) => Incoming::Message(message),
                Ok(None) => break,
                Err(error) => Incoming::Bad(error),
            };
            all.extend(self.input(Input::Peer(incoming)).0);
        }
        Outs(all)
    }

    /// One message from the peer, as text.
    fn recv(&mut self, text: &str) -> Outs {
        self.feed(format!("{text}\0").as_bytes())
    }

    /// The peer plays `from`-`to`.
    fn their_move(&mut self, from: u8, to: u8) -> Outs {
        let mv = legal(&self.position(), from, to);
        let text = Message::from(move_to_wire(&mv, Duration::ZERO)).to_string();
        self.recv(&text)
    }

    /// Our player answers the current request with `mv`.
    fn choose(&mut self, mv: Option<Move>) -> Outs {
        let ticket = self.ticket.expect("we are thinking");
        self.input(Input::MoveChosen { ticket, mv })
    }

    /// Our player plays `from`-`to`.
    fn our_move(&mut self, from: u8, to: u8) -> Outs {
        let mv = legal(&self.position(), from, to);
        self.choose(Some(mv))
    }

    fn command(&mut self, command: Command) -> Outs {
        self.input(Input::Command(command))
    }

    /// Moves the clock on, then ticks.
    fn wait(&mut self, duration: Duration) -> Outs {
        self.now += duration;
        self.input(Input::Tick)
    }

    fn phase(&self) -> PhaseKind {
        self.machine.phase()
    }

    fn position(&self) -> Position {
        *self.machine.game().expect("a game runs").position()
    }

    fn ply(&self) -> usize {
        self.machine.game().expect("a game runs").ply()
    }
}

/// A Follower in a normal game, playing `color`, after GAMEREQ/GAMEACC.
fn follower_in_game(color: char) -> Harness {
    let mut harness = Harness::follower();
    let outs = harness.recv(&gamereq(color, 5, 0));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
    harness
}

// ---- Follower: GAMEREQ and GAMEACC ------------------------------------------------------

/// R (Follower white) -> A0, the game starts and we think at once (we move first).
#[test]
fn follower_accepts_and_moves_first_as_white() {
    let mut h = Harness::follower();
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
    assert!(
        h.machine.next_deadline().is_some(),
        "the idle time-out runs"
    );
    let outs = h.recv(&gamereq('W', 5, 40));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
    let Some(Event::GameStarted(info)) = outs.events().first().copied() else {
        panic!("game started first: {:?}", outs.events())
    };
    assert_eq!(
        (info.number, info.our_color, info.minutes, info.move_limit),
        (1, Color::White, 5, Some(40))
    );
    assert_eq!(
        (info.peer_name.as_str(), info.our_name.as_str()),
        ("Peer", US)
    );
    assert!(matches!(outs.0[1], Output::NewGame(_)));
    let request = outs.thinking().expect("we move first");
    assert_eq!(request.game.ply(), 0);
    assert_eq!(request.clock.our_remaining, Some(Duration::from_secs(300)));
    assert_eq!(request.clock.our_moves_to_go, Some(40));
    assert_eq!(h.phase(), PhaseKind::OurTurn);
}

/// R (Follower black) -> A0, and we wait for white's move.
#[test]
fn follower_as_black_waits() {
    let mut h = Harness::follower();
    let outs = h.recv(&gamereq('Z', 5, 0));
    assert!(outs.thinking().is_none());
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    let outs = h.their_move(32, 28);
    assert!(outs.thinking().is_some());
    assert_eq!(h.phase(), PhaseKind::OurTurn);
}

/// Thinking time 000 (pydraughts always sends it) is accepted: a game without a clock.
#[test]
fn follower_accepts_time_zero() {
    let mut h = Harness::follower();
    let outs = h.recv(&gamereq('W', 0, 0));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
    let request = outs.thinking().unwrap();
    assert_eq!(request.clock, ClockState::default());
}

/// Each refusal code: version -> A1, refusing all -> A3, unplayable start -> A2, filter -> A2;
/// the Follower keeps waiting for another GAMEREQ.
#[test]
fn follower_refusals() {
    let mut h = Harness::follower();
    let outs = h.recv(&gamereq('W', 5, 0).replacen("R01", "R02", 1));
    assert_eq!(outs.sent(), [format!("A{}1", pad(US))]);
    assert!(matches!(
        outs.events()[..],
        [Event::GameRefused {
            by: Side::Us,
            code: AcceptCode::VersionNotSupported,
            ..
        }]
    ));
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);

    // A start without a legal move for the side to move.
    let blocked: Position = "W:W46:B41,37".parse().unwrap();
    let outs = h.recv(&gamereq_from(&blocked, 'W', 5, 0));
    assert_eq!(outs.sent(), [format!("A{}2", pad(US))]);
    // A start the rules refuse: a black man on black's promotion row.
    let bad = format!("R01{}W005000BW{}", pad("Peer"), "e".repeat(45) + "zeeew");
    let outs = h.recv(&bad);
    assert_eq!(outs.sent(), [format!("A{}2", pad(US))]);
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
    // A playable set-up start is accepted.
    let setup: Position = "B:W31-50:B1-20".parse().unwrap();
    let outs = h.recv(&gamereq_from(&setup, 'W', 5, 0));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
    assert_eq!(h.phase(), PhaseKind::TheirTurn, "black starts there");

    let mut none = Harness::new(SessionConfig::follower(FollowerConfig {
        accept_games: false,
        ..FollowerConfig::default()
    }));
    none.start();
    assert_eq!(
        none.recv(&gamereq('W', 5, 0)).sent(),
        [format!("A{}3", pad(US))]
    );

    let filter: crate::GameFilter = std::sync::Arc::new(|request: &GameReq| {
        if request.minutes.get() < 1 {
            Err("no clock given".to_owned())
        } else {
            Ok(())
        }
    });
    let mut picky = Harness::new(SessionConfig::follower(FollowerConfig {
        filter: Some(filter),
        ..FollowerConfig::default()
    }));
    picky.start();
    let outs = picky.recv(&gamereq('W', 0, 0));
    assert_eq!(outs.sent(), [format!("A{}2", pad(US))]);
    assert!(matches!(
        &outs.events()[..],
        [Event::GameRefused { why: Some(why), .. }] if why == "no clock given"
    ));
    assert_eq!(picky.recv(&gamereq('W', 1, 0)).sent().len(), 1);
    assert_eq!(picky.phase(), PhaseKind::OurTurn);
}

/// A GAMEREQ during a game is answered A…2, reported, and the game goes on.
#[test]
fn gamereq_during_a_game_gets_a2() {
    let mut h = follower_in_game('Z');
    let outs = h.recv(&gamereq('W', 5, 0));
    assert_eq!(outs.sent(), [format!("A{}2", pad(US))]);
    let violations = outs.violations();
    assert_eq!(violations[0].action, ViolationAction::Answered);
    assert!(violations[0].raw.is_some());
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    assert!(h.their_move(32, 28).thinking().is_some());
}

/// Between games: a stray GAMEEND is tolerated silently (DXC100), other messages are told and
/// ignored, a CHAT is shown (Scan's late chat).
#[test]
fn between_games_strays() {
    let mut h = Harness::follower();
    let outs = h.recv("E00");
    assert!(outs.sent().is_empty());
    assert_eq!(outs.violations()[0].action, ViolationAction::Tolerated);
    assert!(!outs.violations()[0].told);
    let outs = h.recv("M0000322800");
    assert_eq!(outs.chats_sent().len(), 1);
    assert!(outs.violations()[0].told);
    for text in ["K0", "B001W", &gameacc('0')] {
        // Past the CHAT replies of one second.
        h.now += Duration::from_secs(1);
        assert_eq!(h.recv(text).chats_sent().len(), 1, "{text}");
    }
    let outs = h.recv("Cgood game");
    assert_eq!(outs.events(), [&Event::ChatReceived("good game".into())]);
    assert!(outs.sent().is_empty());
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
}

/// No first GAMEREQ within 10 s (by default): told, closed.
#[test]
fn follower_idle_timeout_closes() {
    let mut h = Harness::follower();
    assert!(h.wait(Duration::from_secs(9)).is_empty());
    let outs = h.wait(Duration::from_secs(2));
    assert!(outs.chats_sent()[0].contains("no GAMEREQ within 10 s"));
    assert_eq!(outs.chats_sent().len(), 1);
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::Idle));
    assert_eq!(h.phase(), PhaseKind::Closed);
    // Nothing more happens once closed.
    assert!(h.recv(&gamereq('W', 5, 0)).is_empty());
}

// ---- Initiator: GAMEREQ and GAMEACC -----------------------------------------------------

/// The GAMEREQ carries our name, the Follower's colour, minutes, limit and the start.
#[test]
fn initiator_requests_exact_bytes() {
    let (h, outs) = Harness::initiator(vec![GameSettings {
        our_color: Color::Black,
        minutes: 60,
        move_limit: 65,
        start: None,
    }]);
    assert_eq!(outs.sent(), [format!("R01{}W060065A", pad(US))]);
    assert!(matches!(
        outs.events()[..],
        [Event::GameRequested { number: 1, .. }]
    ));
    assert_eq!(h.phase(), PhaseKind::AwaitingGameAcc);

    let setup: Position = "B:W31-50:B1-20".parse().unwrap();
    let (_, outs) = Harness::initiator(vec![GameSettings {
        our_color: Color::White,
        minutes: 1,
        move_limit: 0,
        start: Some(setup),
    }]);
    assert_eq!(
        outs.sent(),
        [format!(
            "R01{}Z001000BZ{}",
            pad(US),
            "z".repeat(20) + &"e".repeat(10) + &"w".repeat(20)
        )]
    );
}

/// A0 starts the game: as white we think at once.
#[test]
fn initiator_game_starts_on_a0() {
    let (mut h, _) = Harness::initiator(vec![GameSettings::default()]);
    let outs = h.recv(&gameacc('0'));
    assert!(outs.sent().is_empty());
    let Some(Event::GameStarted(info)) = outs.events().first().copied() else {
        panic!()
    };
    assert_eq!(
        (info.peer_name.as_str(), info.our_color),
        ("Peer", Color::White)
    );
    assert!(outs.thinking().is_some());
}

/// A GAMEREQ from the Follower while ours waits for its answer is told and ignored: the A0
/// that follows starts our game.
#[test]
fn initiator_ignores_the_followers_gamereq() {
    let (mut h, _) = Harness::initiator(vec![GameSettings::default()]);
    assert!(h.recv(&gamereq('W', 5, 0)).violations()[0].told);
    let outs = h.recv(&gameacc('0'));
    assert!(matches!(outs.events()[..], [Event::GameStarted(_), ..]));
    assert_eq!(h.phase(), PhaseKind::OurTurn);
}

/// A2 skips to the next game of the plan; A1 and A3 end the session.
#[test]
fn initiator_handles_every_refusal() {
    let two = vec![
        GameSettings::default(),
        GameSettings {
            minutes: 10,
            ..GameSettings::default()
        },
    ];
    let (mut h, _) = Harness::initiator(two.clone());
    let outs = h.recv(&gameacc('2'));
    assert_eq!(outs.sent(), [format!("R01{}Z010000A", pad(US))]);
    assert!(matches!(
        outs.events()[0],
        Event::GameRefused {
            number: 1,
            by: Side::Peer,
            code: AcceptCode::GameNotAcceptable,
            ..
        }
    ));
    // The last one refused too: nothing left, close.
    let outs = h.recv(&gameacc('2'));
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::SeriesComplete));

    for (code, wire_code) in [
        ('1', AcceptCode::VersionNotSupported),
        ('3', AcceptCode::NoGames),
    ] {
        let (mut h, _) = Harness::initiator(two.clone());
        let outs = h.recv(&gameacc(code));
        assert!(outs.sent().is_empty());
        assert_eq!(
            outs.closed_because(),
            Some(&CloseReason::Refused(wire_code))
        );
    }
}

/// No GAMEACC within the reply time-out: told, closed. Out-of-place messages meanwhile are
/// told and ignored; a stray E is ignored.
#[test]
fn initiator_waits_for_gameacc_with_a_deadline() {
    let (mut h, _) = Harness::initiator(vec![GameSettings::default()]);
    assert_eq!(h.recv("M0000322800").chats_sent().len(), 1);
    assert!(h.recv("E00").sent().is_empty());
    assert!(h.recv(&gamereq('W', 5, 0)).violations()[0].told);
    assert_eq!(h.phase(), PhaseKind::AwaitingGameAcc);
    let outs = h.wait(Duration::from_secs(31));
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::PeerSilent));
}

// ---- moves ------------------------------------------------------------------------------

/// Our move goes out with the whole seconds of our turn; theirs is applied; stale answers of
/// our player are ignored.
#[test]
fn moves_alternate_with_times() {
    let mut h = follower_in_game('W');
    let stale = h.ticket.unwrap();
    h.now += Duration::from_millis(3_900);
    let outs = h.our_move(32, 28);
    assert_eq!(outs.sent(), ["M0003322800"]);
    let Some(Event::MovePlayed(played)) = outs.events().first().copied() else {
        panic!()
    };
    assert_eq!(
        (
            played.ply,
            played.by,
            played.color,
            played.seconds,
            played.text.as_str()
        ),
        (1, Side::Us, Color::White, 3, "32-28")
    );
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    assert!(
        h.machine.next_deadline().is_some(),
        "the clock runs for them"
    );
    // An answer for an old request changes nothing.
    let outs = h.input(Input::MoveChosen {
        ticket: stale,
        mv: Some(legal(&Position::initial(), 31, 27)),
    });
    assert!(outs.is_empty());
    let outs = h.their_move(19, 23);
    let request = outs.thinking().unwrap();
    assert_eq!(request.game.ply(), 2);
    assert_eq!(
        request.clock.our_remaining,
        Some(Duration::from_millis(296_100))
    );
}

/// A capture from the peer is accepted with its captured squares in any order.
#[test]
fn captures_in_jump_order_are_accepted() {
    // Black to move can take 28 and 37 from 23? Build: black man 23, white 28 and 38 ->
    // 23x32? Use a simple two-piece capture.
    let start: Position = "B:W28,38,49:B23,2".parse().unwrap();
    let mut h = Harness::follower();
    h.recv(&gamereq_from(&start, 'W', 5, 0));
    let capture = start.legal_moves()[0];
    assert_eq!(capture.capture_count(), 2);
    let mut squares: Vec<u8> = capture.captured().iter().map(|s| s.number()).collect();
    squares.reverse();
    let text = format!(
        "M0000{:02}{:02}02{:02}{:02}",
        capture.from().number(),
        capture.to().number(),
        squares[0],
        squares[1]
    );
    let outs = h.recv(&text);
    assert!(outs.violations().is_empty(), "{:?}", outs.violations());
    assert_eq!(h.ply(), 1);
}

/// An illegal move: told, the game ends with our GAMEEND, the offender loses.
#[test]
fn illegal_move_ends_the_game() {
    let mut h = follower_in_game('Z');
    let outs = h.recv("M0000332700");
    let sent = outs.sent();
    assert_eq!(sent.len(), 2);
    assert!(
        sent[0].starts_with("Cerror: illegal move M0000332700"),
        "{sent:?}"
    );
    assert_eq!(sent[1], "E00");
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::BlackWins);
    assert!(matches!(
        &record.termination,
        Termination::IllegalMove { by: Color::White, raw, .. } if raw == "M0000332700"
    ));
    assert_eq!(outs.violations()[0].action, ViolationAction::EndedGame);
    assert_eq!(h.phase(), PhaseKind::AwaitingEndAck);
    // The acknowledgement; the Follower waits for the next game.
    let outs = h.recv("E00");
    assert!(outs.sent().is_empty());
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
}

/// A move out of turn ends the game the same way (and stops our thinking).
#[test]
fn move_out_of_turn_ends_the_game() {
    let mut h = follower_in_game('W');
    let outs = h.recv("M0000191400");
    assert!(outs.stops_thinking());
    assert_eq!(outs.sent()[1], "E00");
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::WhiteWins);
    assert!(matches!(
        record.termination,
        Termination::OutOfTurn {
            by: Color::Black,
            ..
        }
    ));
}

/// A frame that does not decode ends a running game; a broken CHAT and an empty frame do not.
#[test]
fn undecodable_frames() {
    let mut h = follower_in_game('Z');
    // An empty frame: reported, nothing else.
    let outs = h.feed(b"\0");
    assert!(outs.sent().is_empty());
    assert_eq!(outs.violations().len(), 1);
    // A chat with a byte above 127: reported, told, the game goes on.
    let outs = h.feed(b"Cvoil\xe0\0");
    assert_eq!(outs.chats_sent().len(), 1);
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    // Garbage: told, the game ends.
    let outs = h.feed(b"Xyz\0");
    assert_eq!(outs.sent().last().map(String::as_str), Some("E00"));
    let record = outs.game_over().unwrap();
    assert!(matches!(
        &record.termination,
        Termination::Undecodable { by: Color::White, raw, .. } if raw == "Xyz"
    ));
    assert_eq!(record.result, GameResult::BlackWins);
    // An oversized frame between games: told and ignored.
    h.recv("E00");
    let long = vec![b'C'; 300];
    let outs = h.feed(&[&long[..], b"\0"].concat());
    assert_eq!(outs.violations().len(), 1);
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
}

/// Our player giving up (no move) sends E with reason 1; an illegal choice is reported and
/// also gives up.
#[test]
fn our_player_gives_up_or_fails() {
    let mut h = follower_in_game('W');
    let outs = h.choose(None);
    assert_eq!(outs.sent(), ["E10"]);
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::BlackWins);
    assert_eq!(record.termination, Termination::GaveUp { by: Color::White });

    let mut h = follower_in_game('W');
    let bogus = Move::new(
        damx_rules::Square::new(33).unwrap(),
        damx_rules::Square::new(27).unwrap(),
        damx_rules::Bitboard::EMPTY,
    );
    let outs = h.choose(Some(bogus));
    assert_eq!(outs.sent(), ["E10"]);
    assert!(
        outs.events()
            .iter()
            .any(|e| matches!(e, Event::PlayerError(_)))
    );
    assert!(matches!(
        outs.game_over().unwrap().termination,
        Termination::PlayerFailed {
            by: Color::White,
            ..
        }
    ));
}

// ---- GAMEEND ----------------------------------------------------------------------------

/// On our turn without a legal move we send E1 instead of thinking; the rules decide.
#[test]
fn no_legal_move_on_our_turn() {
    let start: Position = "B:W46:B36,37".parse().unwrap();
    let mut h = Harness::follower();
    h.recv(&gamereq_from(&start, 'W', 5, 0));
    let outs = h.their_move(36, 41);
    assert!(outs.thinking().is_none());
    assert_eq!(outs.sent(), ["E10"]);
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::BlackWins);
    assert_eq!(
        record.termination,
        Termination::NoLegalMove {
            loser: Color::White
        }
    );
}

/// Two kings shuffling: the third repetition comes after the peer's move, and we end the game
/// with reason 2 on our turn.
#[test]
fn draw_rule_on_our_turn() {
    let start: Position = "W:WK36:BK1".parse().unwrap();
    let mut h = Harness::follower();
    h.recv(&gamereq_from(&start, 'W', 5, 0));
    let mut last = Outs(Vec::new());
    for _ in 0..2 {
        h.our_move(36, 41);
        h.their_move(1, 6);
        h.our_move(41, 36);
        last = h.their_move(6, 1);
    }
    assert_eq!(last.sent(), ["E20"]);
    let record = last.game_over().unwrap();
    assert_eq!(record.result, GameResult::Draw);
    assert_eq!(
        record.termination,
        Termination::DrawRule(DrawReason::Repetition)
    );
}

/// A draw reached on the peer's turn that the peer plays past is still ended on our turn.
#[test]
fn draw_the_peer_plays_past() {
    let start: Position = "B:WK36:BK1".parse().unwrap();
    let mut h = Harness::follower();
    h.recv(&gamereq_from(&start, 'W', 5, 0));
    // Black moves first; the third repetition arises after our 4th move.
    for _ in 0..2 {
        h.their_move(1, 6);
        h.our_move(36, 41);
        h.their_move(6, 1);
        h.our_move(41, 36);
    }
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    let outs = h.their_move(1, 6);
    assert_eq!(outs.sent(), ["E20"]);
    assert_eq!(outs.game_over().unwrap().result, GameResult::Draw);
}

/// Once each side made the game's number of moves, we end it on our turn with reason 0.
#[test]
fn move_limit() {
    let mut h = Harness::follower();
    h.recv(&gamereq('W', 5, 2));
    h.our_move(32, 28);
    h.their_move(19, 23);
    h.our_move(28, 19);
    let outs = h.their_move(14, 23);
    assert_eq!(outs.sent(), ["E00"]);
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::Unfinished);
    assert_eq!(record.termination, Termination::MoveLimit { moves: 2 });
}

/// The opponent past its time plus the grace: we end the game on our turn, it lost on time.
#[test]
fn opponent_out_of_time() {
    let mut h = Harness::follower();
    h.recv(&gamereq('Z', 1, 0));
    h.now += Duration::from_secs(64);
    // Within the grace: play on.
    assert!(h.their_move(32, 28).thinking().is_some());
    h.our_move(19, 23);
    h.now += Duration::from_secs(2);
    let outs = h.their_move(28, 19);
    assert_eq!(outs.sent(), ["E00"]);
    let record = outs.game_over().unwrap();
    assert_eq!(record.result, GameResult::BlackWins);
    assert_eq!(
        record.termination,
        Termination::TimeForfeit {
            loser: Color::White
        }
    );
}

/// A peer silent past its clock gets E with stop code 1 and the connection closes.
#[test]
fn silent_peer_with_a_clock() {
    let mut h = Harness::follower();
    h.recv(&gamereq('Z', 1, 0));
    assert!(h.wait(Duration::from_secs(64)).is_empty());
    let outs = h.wait(Duration::from_secs(2));
    let sent = outs.sent();
    assert!(sent[0].starts_with("Cerror: no move within"));
    assert_eq!(sent[1], "E01");
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::PeerSilent));
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::TimeForfeit {
            loser: Color::White
        }
    );
}

/// Without a clock the peer's move is due within 5 minutes by default; `None` waits as long as
/// it takes.
#[test]
fn silent_peer_without_a_clock() {
    let mut h = Harness::follower();
    h.recv(&gamereq('Z', 0, 0));
    assert_eq!(
        h.machine.next_deadline(),
        Some(h.now + Duration::from_secs(300))
    );
    let mut config = SessionConfig::follower(FollowerConfig::default());
    config.timeouts.peer_move = None;
    let mut h = Harness::new(config);
    h.start();
    h.recv(&gamereq('Z', 0, 0));
    assert_eq!(h.machine.next_deadline(), None);

    let mut config = SessionConfig::follower(FollowerConfig::default());
    config.timeouts.peer_move = Some(Duration::from_secs(10));
    let mut h = Harness::new(config);
    h.start();
    h.recv(&gamereq('Z', 0, 0));
    let outs = h.wait(Duration::from_secs(11));
    assert_eq!(outs.sent().last().map(String::as_str), Some("E01"));
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::Silent {
            by: Color::White,
            seconds: 11
        }
    );
}

/// The peer's time starts when our MOVE is written, not when we chose it: a move that waited
/// 4 s behind other frames leaves the peer its whole 10 s, and a note about an older move
/// changes nothing.
#[test]
fn the_peers_time_starts_when_our_move_is_sent() {
    let mut config = SessionConfig::follower(FollowerConfig::default());
    config.timeouts.peer_move = Some(Duration::from_secs(10));
    let mut h = Harness::new(config);
    h.start();
    assert!(h.recv(&gamereq('W', 0, 0)).thinking().is_some());
    let chosen = h.now;
    assert_eq!(h.our_move(32, 28).sent(), ["M0000322800"]);
    assert_eq!(
        h.machine.next_deadline(),
        Some(chosen + Duration::from_secs(10))
    );
    let sent = chosen + Duration::from_secs(4);
    assert!(h.input(Input::MoveSent { at: sent }).is_empty());
    assert_eq!(
        h.machine.next_deadline(),
        Some(sent + Duration::from_secs(10))
    );
    // An older note (of a move before this turn) is ignored.
    assert!(h.input(Input::MoveSent { at: chosen }).is_empty());
    assert_eq!(
        h.machine.next_deadline(),
        Some(sent + Duration::from_secs(10))
    );
    assert!(h.wait(Duration::from_secs(11)).game_over().is_none());
    let outs = h.wait(Duration::from_secs(3));
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::Silent {
            by: Color::Black,
            seconds: 10
        }
    );
}

/// The peer's E on its turn: we answer E00 (or E01 if it asked to stop) and the result follows
/// its reason.
#[test]
fn their_gameend_is_acknowledged() {
    let cases = [
        (
            "E10",
            "E00",
            GameResult::WhiteWins,
            PhaseKind::AwaitingGameReq,
        ),
        ("E20", "E00", GameResult::Draw, PhaseKind::AwaitingGameReq),
        (
            "E30",
            "E00",
            GameResult::BlackWins,
            PhaseKind::AwaitingGameReq,
        ),
        (
            "E00",
            "E00",
            GameResult::Unfinished,
            PhaseKind::AwaitingGameReq,
        ),
        ("E01", "E01", GameResult::Unfinished, PhaseKind::Closed),
    ];
    for (theirs, ours, result, phase) in cases {
        let mut h = follower_in_game('W');
        h.our_move(32, 28);
        let outs = h.recv(theirs);
        assert_eq!(outs.sent(), [ours], "{theirs}");
        assert_eq!(outs.game_over().unwrap().result, result, "{theirs}");
        assert_eq!(h.phase(), phase, "{theirs}");
        if phase == PhaseKind::Closed {
            assert_eq!(outs.closed_because(), Some(&CloseReason::PeerStopped));
        }
    }
}

/// A GAMEEND on our turn (pydraughts' quit) still ends the game: thinking stops, we answer,
/// it is reported but not told.
#[test]
fn their_gameend_on_our_turn() {
    let mut h = follower_in_game('W');
    let outs = h.recv("E01");
    assert!(outs.stops_thinking());
    assert_eq!(outs.sent(), ["E01"]);
    assert!(!outs.violations()[0].told);
    assert_eq!(outs.closed_because(), Some(&CloseReason::PeerStopped));
}

/// Our first E: the acknowledgement may carry any reason (pydraughts echoes ours); a CHAT
/// meanwhile is fine; a BACKREQ gets K2; a MOVE is told and ignored.
#[test]
fn our_gameend_and_its_acknowledgement() {
    let mut h = follower_in_game('W');
    let outs = h.command(Command::EndGame(EndReason::Draw));
    assert!(outs.stops_thinking());
    assert_eq!(outs.sent(), ["E20"]);
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::DrawDeclared { by: Color::White }
    );
    assert_eq!(h.recv("B001W").sent(), ["K2"]);
    assert_eq!(h.recv("M0000191400").chats_sent().len(), 1);
    assert_eq!(h.recv("Cok").events(), [&Event::ChatReceived("ok".into())]);
    let outs = h.recv("E21");
    assert!(outs.closes(), "their stop code 1 ends the session");
    assert_eq!(outs.closed_because(), Some(&CloseReason::PeerStopped));
}

/// GWD does not acknowledge: a GAMEREQ after our E is taken as the acknowledgement; no
/// acknowledgement at all lets the session go on after the reply time-out.
#[test]
fn missing_acknowledgement() {
    let mut h = follower_in_game('W');
    h.command(Command::EndGame(EndReason::NoReason));
    let outs = h.recv(&gamereq('Z', 5, 0));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
    assert_eq!(h.machine.games_started(), 2);
    assert_eq!(h.phase(), PhaseKind::TheirTurn);

    let mut h = follower_in_game('W');
    h.command(Command::EndGame(EndReason::NoReason));
    let outs = h.wait(Duration::from_secs(31));
    assert!(!outs.violations()[0].told);
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
}

/// Stop on our turn: E01 now; the acknowledgement (or the peer closing) ends the session.
#[test]
fn stop_on_our_turn() {
    let mut h = follower_in_game('W');
    let outs = h.command(Command::Stop);
    assert_eq!(outs.sent(), ["E01"]);
    let outs = h.recv("E01");
    assert_eq!(outs.closed_because(), Some(&CloseReason::StopRequested));

    let mut h = follower_in_game('W');
    h.command(Command::Stop);
    let outs = h.input(Input::Peer(Incoming::Closed));
    assert_eq!(outs.closed_because(), Some(&CloseReason::StopRequested));
    assert!(outs.game_over().is_none(), "recorded already");
}

/// Stop (Ctrl-C) on their turn waits for our turn, then sends E01 without thinking.
#[test]
fn stop_on_their_turn_waits() {
    let mut h = follower_in_game('Z');
    let outs = h.command(Command::Stop);
    assert!(outs.sent().is_empty());
    assert!(matches!(
        outs.events()[..],
        [Event::EndPending { stop: true, .. }]
    ));
    let outs = h.their_move(32, 28);
    assert!(outs.thinking().is_none());
    assert_eq!(outs.sent(), ["E01"]);
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::Ended { by: Color::Black }
    );
}

/// Stop between games closes at once; EndGame with no game is rejected.
#[test]
fn commands_between_games() {
    let mut h = Harness::follower();
    let outs = h.command(Command::EndGame(EndReason::GiveUp));
    assert!(matches!(outs.events()[..], [Event::CommandRejected { .. }]));
    assert!(matches!(
        h.command(Command::TakeBack { ply: 0 }).events()[..],
        [Event::CommandRejected { .. }]
    ));
    let outs = h.command(Command::Stop);
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::StopRequested));
}

/// EndGame on their turn waits for our turn and carries the user's reason.
#[test]
fn end_game_on_their_turn_waits() {
    let mut h = follower_in_game('Z');
    assert!(
        h.command(Command::EndGame(EndReason::GiveUp))
            .sent()
            .is_empty()
    );
    let outs = h.their_move(32, 28);
    assert_eq!(outs.sent(), ["E10"]);
    assert_eq!(outs.game_over().unwrap().result, GameResult::WhiteWins);
}

/// Abort: the game is recorded as aborted and the connection closes without a GAMEEND.
#[test]
fn abort_mid_game() {
    let mut h = follower_in_game('W');
    let outs = h.command(Command::Abort);
    assert!(outs.stops_thinking());
    assert!(outs.sent().is_empty());
    assert_eq!(outs.game_over().unwrap().termination, Termination::Aborted);
    assert_eq!(outs.closed_because(), Some(&CloseReason::Aborted));
}

/// The connection lost during a game: recorded, closed.
#[test]
fn connection_lost_mid_game() {
    for (incoming, reason) in [
        (Incoming::Closed, CloseReason::PeerClosed),
        (
            Incoming::Failed("reset".into()),
            CloseReason::ConnectionFailed("reset".into()),
        ),
    ] {
        let mut h = follower_in_game('W');
        let outs = h.input(Input::Peer(incoming));
        assert!(outs.stops_thinking());
        let record = outs.game_over().unwrap();
        assert_eq!(record.termination, Termination::ConnectionLost);
        assert_eq!(record.result, GameResult::Unfinished);
        assert_eq!(outs.closed_because(), Some(&reason));
    }
}

/// Chats go out split and cleaned, come in at any time.
#[test]
fn chats_both_ways() {
    let mut h = follower_in_game('W');
    let outs = h.command(Command::Chat(format!("héllo {}", "x".repeat(130))));
    let sent = outs.sent();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].starts_with("Ch?llo xxx"));
    assert_eq!(sent[0].len(), 127);
    assert!(sent.iter().all(|s| s.len() <= 127));
    let outs = h.command(Command::Chat(String::new()));
    assert!(matches!(outs.events()[..], [Event::CommandRejected { .. }]));
    assert_eq!(
        h.recv("Chi there").events(),
        [&Event::ChatReceived("hi there".into())]
    );
    assert_eq!(h.phase(), PhaseKind::OurTurn, "a chat changes nothing");
}

// ---- take-backs -------------------------------------------------------------------------

/// A Follower (white) after four plies: 32-28 19-23 28x19 14x23; our turn.
fn four_plies() -> Harness {
    let mut h = follower_in_game('W');
    h.our_move(32, 28);
    h.their_move(19, 23);
    h.our_move(28, 19);
    h.their_move(14, 23);
    assert_eq!(h.ply(), 4);
    h
}

/// The peer's BACKREQ (2, W) = ply 2: accepted, our thinking restarts at that position.
#[test]
fn peer_take_back_accepted() {
    let mut h = four_plies();
    let outs = h.recv("B002W");
    assert!(outs.stops_thinking());
    assert_eq!(outs.sent(), ["K0"]);
    assert!(outs.events().iter().any(|e| matches!(
        e,
        Event::TakeBackDone {
            requested_by: Side::Peer,
            ply: 2,
            ..
        }
    )));
    assert_eq!(h.ply(), 2);
    assert_eq!(outs.thinking().unwrap().game.ply(), 2);
    // (2, Z) = ply 3: black to move there, so we wait.
    h.our_move(28, 19);
    let outs = h.recv("B002Z");
    assert_eq!(outs.sent(), ["K0"]);
    assert_eq!(h.ply(), 3);
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    // Back to the start (1, W), then a no-op (current ply).
    assert_eq!(h.recv("B001W").sent(), ["K0"]);
    assert_eq!(h.ply(), 0);
    assert_eq!(h.phase(), PhaseKind::OurTurn);
    assert_eq!(h.recv("B001W").sent(), ["K0"]);
}

/// A BACKREQ beyond the game is declined; the policies give K1/K2.
#[test]
fn peer_take_back_refusals() {
    let mut h = four_plies();
    assert_eq!(h.recv("B009W").sent(), ["K2"]);
    assert_eq!(h.ply(), 4);

    for (policy, answer) in [
        (TakeBackPolicy::NotSupported, "K1"),
        (TakeBackPolicy::Decline, "K2"),
    ] {
        let mut h =
            Harness::with_policy(SessionConfig::follower(FollowerConfig::default()), policy);
        h.start();
        h.recv(&gamereq('W', 5, 0));
        h.our_move(32, 28);
        let outs = h.recv("B001W");
        assert_eq!(outs.sent(), [answer]);
        assert_eq!(h.ply(), 1);
    }
}

/// Policy Ask: the user is asked, answers yes (K0) or no (K2); no answer declines.
#[test]
fn peer_take_back_asks_the_user() {
    let ask = || {
        let mut h = Harness::with_policy(
            SessionConfig::follower(FollowerConfig::default()),
            TakeBackPolicy::Ask,
        );
        h.start();
        h.recv(&gamereq('W', 5, 0));
        h.our_move(32, 28);
        let outs = h.recv("B001W");
        assert!(outs.sent().is_empty());
        assert!(matches!(
            outs.events()[..],
            [Event::TakeBackRequested {
                ply: 0,
                move_number: 1,
                color: Color::White,
                ..
            }]
        ));
        h
    };
    let mut h = ask();
    assert_eq!(h.command(Command::AnswerTakeBack(true)).sent(), ["K0"]);
    assert_eq!(h.ply(), 0);
    let mut h = ask();
    assert_eq!(h.command(Command::AnswerTakeBack(false)).sent(), ["K2"]);
    assert_eq!(h.ply(), 1);
    let mut h = ask();
    assert_eq!(h.wait(Duration::from_secs(61)).sent(), ["K2"]);
    assert!(matches!(
        h.command(Command::AnswerTakeBack(true)).events()[..],
        [Event::CommandRejected { .. }]
    ));
}

/// Our BACKREQ: thinking stops until the answer; K0 restores, K2 resumes, no answer resumes.
#[test]
fn our_take_back() {
    let mut h = four_plies();
    let outs = h.command(Command::TakeBack { ply: 2 });
    assert_eq!(outs.sent(), ["B002W"]);
    assert!(outs.stops_thinking());
    assert!(matches!(
        h.command(Command::TakeBack { ply: 1 }).events()[..],
        [Event::CommandRejected { .. }]
    ));
    let outs = h.recv("K0");
    assert_eq!(h.ply(), 2);
    assert!(outs.thinking().is_some());

    let mut h = four_plies();
    h.command(Command::TakeBack { ply: 1 });
    assert_eq!(h.phase(), PhaseKind::OurTurn);
    let outs = h.recv("K2");
    assert!(matches!(
        outs.events()[..],
        [Event::TakeBackRefused {
            requested_by: Side::Us,
            code: BackAccCode::Declined,
            ..
        }]
    ));
    assert_eq!(h.ply(), 4);
    assert!(outs.thinking().is_some(), "thinking resumes");

    let mut h = four_plies();
    h.command(Command::TakeBack { ply: 1 });
    let outs = h.wait(Duration::from_secs(31));
    assert!(outs.violations()[0].told);
    assert!(outs.thinking().is_some());
    // A K0 after the time-out answers nothing: the request was withdrawn.
    let outs = h.recv("K0");
    let violations = outs.violations();
    assert_eq!(violations[0].what, "BACKACC without a BACKREQ");
    assert!(violations[0].told);
    assert!(!outs.stops_thinking());
    assert_eq!(h.ply(), 4);
    assert_eq!(h.phase(), PhaseKind::OurTurn);

    let mut h = four_plies();
    assert!(matches!(
        h.command(Command::TakeBack { ply: 5 }).events()[..],
        [Event::CommandRejected { .. }]
    ));
    assert!(h.recv("K0").violations()[0].told, "K without B");
}

/// A MOVE that crosses our BACKREQ is applied first; our move then waits for the answer.
#[test]
fn move_crossing_our_take_back() {
    let mut h = follower_in_game('W');
    h.our_move(32, 28);
    assert_eq!(h.command(Command::TakeBack { ply: 0 }).sent(), ["B001W"]);
    let outs = h.their_move(19, 23);
    assert!(outs.violations().is_empty());
    assert!(outs.thinking().is_none(), "held until the answer");
    assert_eq!(h.ply(), 2);
    let outs = h.recv("K0");
    assert_eq!(h.ply(), 0);
    assert!(outs.thinking().is_some());
}

// ---- series and whole games ---------------------------------------------------------------

/// The Initiator's series: after a game with stop code 0 the next R goes out at once; the last
/// game ends with our stop code 1.
#[test]
fn initiator_series() {
    let (mut h, _) = Harness::initiator(InitiatorConfig::series(2, Color::Black, 5, 0, &[]).games);
    h.recv(&gameacc('0'));
    assert_eq!(h.phase(), PhaseKind::TheirTurn);
    let outs = h.recv("E10");
    let sent = outs.sent();
    assert_eq!(sent[0], "E00", "games remain");
    assert_eq!(
        sent[1],
        format!("R01{}Z005000A", pad(US)),
        "colours alternate"
    );
    h.recv(&gameacc('0'));
    assert_eq!(h.phase(), PhaseKind::OurTurn);
    let outs = h.choose(None);
    assert_eq!(outs.sent(), ["E11"], "the last game asks to stop");
    let outs = h.recv("E00");
    assert_eq!(outs.closed_because(), Some(&CloseReason::SeriesComplete));
}

/// The Follower's maximum: the last game's acknowledgement asks to stop.
#[test]
fn follower_max_games() {
    let mut h = Harness::new(SessionConfig::follower(FollowerConfig {
        max_games: Some(1),
        ..FollowerConfig::default()
    }));
    h.start();
    h.recv(&gamereq('Z', 5, 0));
    let outs = h.recv("E00");
    assert_eq!(outs.sent(), ["E01"]);
    assert_eq!(outs.closed_because(), Some(&CloseReason::SeriesComplete));
}

/// Two machines wired to each other play whole series to the end, with real players: every
/// message one sends is what the other receives, both records agree and both close.
#[test]
fn two_machines_play_a_series() {
    let games = InitiatorConfig::series(3, Color::White, 0, 0, &[]).games;
    let mut initiator = Side2::new(
        SessionConfig::initiator(InitiatorConfig { games }),
        "Initiator",
        Box::new(RandomPlayer::new("Initiator", 1)),
    );
    let mut follower = Side2::new(
        SessionConfig::follower(FollowerConfig::default()),
        "Follower",
        Box::new(FirstLegalPlayer::new("Follower")),
    );
    let now = Instant::now();
    let mut to_follower: Vec<Message> = Vec::new();
    let mut to_initiator: Vec<Message> = Vec::new();
    initiator.run(now, |m| m.start(now), &mut to_follower);
    follower.run(now, |m| m.start(now), &mut to_initiator);
    for _ in 0..10_000 {
        if to_follower.is_empty() && to_initiator.is_empty() {
            break;
        }
        for message in std::mem::take(&mut to_follower) {
            let input = Input::Peer(Incoming::Message(message));
            follower.run(now, |m| m.handle(now, input), &mut to_initiator);
        }
        for message in std::mem::take(&mut to_initiator) {
            let input = Input::Peer(Incoming::Message(message));
            initiator.run(now, |m| m.handle(now, input), &mut to_follower);
        }
    }
    assert!(initiator.machine.is_closed() && follower.machine.is_closed());
    assert_eq!(
        initiator.machine.close_reason(),
        Some(&CloseReason::SeriesComplete)
    );
    assert_eq!(
        follower.machine.close_reason(),
        Some(&CloseReason::PeerStopped)
    );
    assert_eq!(initiator.records.len(), 3);
    for (a, b) in initiator.records.iter().zip(&follower.records) {
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.result, b.result);
        assert_eq!(
            (a.white.as_str(), a.black.as_str()),
            (b.white.as_str(), b.black.as_str())
        );
        assert_ne!(a.result, GameResult::Unfinished, "{}", a.termination);
        let mut replay = damx_rules::Game::new(a.start);
        for mv in &a.moves {
            replay.try_play(*mv).unwrap();
        }
        assert!(
            replay.outcome().is_some(),
            "played to the end: {}",
            a.termination
        );
    }
    assert_eq!(initiator.records[0].white, "Initiator");
    assert_eq!(initiator.records[1].white, "Follower");
}

/// One side of [`two_machines_play_a_series`]: a machine and its player, answering thinking
/// requests at once.
struct Side2 {
    machine: PlayerMachine,
    player: Box<dyn Player>,
    records: Vec<GameRecord>,
}

impl Side2 {
    fn new(config: SessionConfig, name: &str, player: Box<dyn Player>) -> Side2 {
        Side2 {
            machine: PlayerMachine::new(&config, Name::new(name).unwrap(), TakeBackPolicy::Accept),
            player,
            records: Vec::new(),
        }
    }

    fn run(
        &mut self,
        now: Instant,
        step: impl FnOnce(&mut PlayerMachine) -> Vec<Output>,
        to_peer: &mut Vec<Message>,
    ) {
        let mut pending = step(&mut self.machine);
        while !pending.is_empty() {
            let mut next = Vec::new();
            for output in pending {
                match output {
                    Output::Send(message) => to_peer.push(message),
                    Output::NewGame(info) => self.player.new_game(&info),
                    Output::StartThinking(request) => {
                        let mv = self.player.choose_move(
                            &request.game,
                            &request.clock,
                            &StopSignal::new(),
                        );
                        let input = Input::MoveChosen {
                            ticket: request.ticket,
                            mv,
                        };
                        next.extend(self.machine.handle(now, input));
                    }
                    Output::Event(Event::GameOver(record)) => self.records.push(*record),
                    _ => {}
                }
            }
            pending = next;
        }
    }
}

/// A flood of empty frames in a game ends it (GAMEEND with stop code 1, a record, the peer
/// loses) and closes the connection once the burst is spent; the errors told to the peer stay
/// within their rate.
#[test]
fn noise_flood_ends_the_game_and_the_connection() {
    let mut h = follower_in_game('Z');
    let burst = NoiseBudget::default().burst;
    let mut chats = 0;
    for _ in 0..burst {
        let outs = h.recv("");
        assert!(!outs.closes());
        chats += outs.chats_sent().len();
    }
    let outs = h.recv("");
    assert!(outs.sent().contains(&"E01".to_owned()), "{:?}", outs.sent());
    assert!(outs.closes());
    assert_eq!(outs.closed_because(), Some(&CloseReason::Noise));
    assert_eq!(
        outs.game_over().unwrap().termination,
        Termination::Noise { by: Color::White }
    );
    assert!(chats <= NoiseBudget::default().replies_per_second as usize);
    assert!(h.recv("").is_empty());
}

/// Noise at the budget's rate is tolerated for as long as it lasts; undecodable frames tell the
/// peer at most 5 times a second.
#[test]
fn noise_within_the_rate_goes_on() {
    let mut h = Harness::follower();
    for second in 0..60 {
        let mut told = 0;
        for noise in 0..NoiseBudget::default().per_second {
            let frame = if noise % 2 == 0 { "Cchat" } else { "x" };
            told += h.recv(frame).chats_sent().len();
            assert_eq!(h.phase(), PhaseKind::AwaitingGameReq, "second {second}");
        }
        assert!(told <= NoiseBudget::default().replies_per_second as usize);
        h.now += Duration::from_secs(1);
        if second == 20 {
            // Past the violations of a connection: 200 in all.
            break;
        }
    }
    let budget = NoiseBudget {
        per_connection: 3,
        ..NoiseBudget::default()
    };
    let mut config = SessionConfig::follower(FollowerConfig::default());
    config.noise = budget;
    let mut h = Harness::new(config);
    h.start();
    for _ in 0..3 {
        assert!(!h.recv("x").closes());
        h.now += Duration::from_secs(1);
    }
    assert_eq!(h.recv("x").closed_because(), Some(&CloseReason::Noise));
}

/// Games that bring no play are noise: a flood of requests the Follower refuses, or of games
/// the peer ends before their first move, closes the connection once the burst is spent; the
/// same at the budget's rate goes on.
#[test]
fn playless_games_are_noise() {
    let burst = NoiseBudget::default().burst as usize;
    let refused = gamereq('Z', DEFAULT_MAX_MINUTES + 1, 0);
    let mut h = Harness::follower();
    let mut answers = 0;
    for _ in 0..1000 {
        let outs = h.recv(&refused);
        answers += outs.sent().len();
        if outs.closes() {
            assert_eq!(outs.closed_because(), Some(&CloseReason::Noise));
            break;
        }
    }
    assert_eq!(h.phase(), PhaseKind::Closed);
    assert!(answers <= burst + 1, "{answers}");

    let mut h = Harness::follower();
    let mut games = 0;
    for _ in 0..1000 {
        let outs = h.recv(&gamereq('Z', 5, 0));
        if outs.closes() {
            break;
        }
        games += 1;
        if h.recv("E00").closes() {
            break;
        }
    }
    assert_eq!(h.phase(), PhaseKind::Closed);
    assert!(games <= burst + 1, "{games}");

    let mut h = Harness::follower();
    for _ in 0..100 {
        assert_eq!(h.recv(&refused).sent(), [format!("A{}2", pad(US))]);
        h.now += Duration::from_secs(1);
    }
    assert_eq!(h.phase(), PhaseKind::AwaitingGameReq);
}

/// A BACKREQ flood is answered until the burst is spent, then the game ends.
#[test]
fn take_back_flood_is_bounded() {
    let mut h = follower_in_game('Z');
    let mut answers = 0;
    for _ in 0..1000 {
        let outs = h.recv("B001W");
        answers += outs.sent().iter().filter(|s| s.starts_with('K')).count();
        if outs.closes() {
            break;
        }
    }
    assert_eq!(h.phase(), PhaseKind::Closed);
    assert!(
        answers <= NoiseBudget::default().burst as usize + 1,
        "{answers}"
    );
}

/// A game longer than the most accepted is refused with A…2.
#[test]
fn longest_game_accepted() {
    let mut h = Harness::follower();
    let outs = h.recv(&gamereq('Z', DEFAULT_MAX_MINUTES + 1, 0));
    assert_eq!(outs.sent(), [format!("A{}2", pad(US))]);
    let outs = h.recv(&gamereq('Z', DEFAULT_MAX_MINUTES, 0));
    assert_eq!(outs.sent(), [format!("A{}0", pad(US))]);
}
