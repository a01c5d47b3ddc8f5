//! A damx session against a raw socket playing a scripted conversation: merged and split
//! frames, garbage, oversized frames, illegal and out-of-turn moves, a silent peer and a peer
//! that leaves mid-game. Each ends as the crate documents, the record is written, and nothing
//! hangs (every test runs under a hard time limit, every read has a deadline).

mod common;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use common::raw_peer::RawPeer;
use common::{bounded, drain, temp_dir};
use crossbeam_channel::{Receiver, unbounded};
use damx_rules::{Color, Game, GameResult, Move, Position};
use damx_session::{
    ClockState, CloseReason, Control, Event, FirstLegalPlayer, GameSettings, InitiatorConfig,
    PdnTarget, Player, SessionConfig, SessionReport, StopSignal, Termination, ViolationAction,
    accept, connect, run_session,
};

const LIMIT: Duration = Duration::from_secs(20);

/// A running damx session and what the test sees of it.
struct Damx {
    report: JoinHandle<SessionReport>,
    events: Receiver<Event>,
    control: Control,
    records: PathBuf,
}

impl Damx {
    fn finish(self) -> (SessionReport, Vec<Event>) {
        let events = drain(&self.events);
        let report = self.report.join().unwrap();
        (report, events)
    }
}

fn config(mut config: SessionConfig, name: &str) -> SessionConfig {
    config.frame_gap = Duration::ZERO;
    config.timeouts.reply = Duration::from_secs(5);
    config.records.pdn = Some(PdnTarget::Directory(temp_dir(name)));
    config
}

/// damx as a Follower, listening; the raw peer connects.
fn damx_follower(config: SessionConfig, player: Box<dyn Player>) -> (RawPeer, Damx) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (control, commands) = Control::new();
    let (events_tx, events) = unbounded();
    let records = pdn_dir(&config);
    let report = thread::spawn(move || {
        let connection = accept(&listener, &config, &commands).unwrap().unwrap();
        run_session(connection, &config, player, commands, events_tx)
    });
    let peer = RawPeer::new(TcpStream::connect(address).unwrap());
    let damx = Damx {
        report,
        events,
        control,
        records,
    };
    (peer, damx)
}

/// damx as an Initiator, connecting to the raw peer.
fn damx_initiator(config: SessionConfig, player: Box<dyn Player>) -> (RawPeer, Damx) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (control, commands) = Control::new();
    let (events_tx, events) = unbounded();
    let records = pdn_dir(&config);
    let report = thread::spawn(move || {
        let connection = connect(address, &config, Duration::from_secs(5)).unwrap();
        run_session(connection, &config, player, commands, events_tx)
    });
    let (stream, _) = listener.accept().unwrap();
    let damx = Damx {
        report,
        events,
        control,
        records,
    };
    (RawPeer::new(stream), damx)
}

fn pdn_dir(config: &SessionConfig) -> PathBuf {
    match &config.records.pdn {
        Some(PdnTarget::Directory(dir)) => dir.clone(),
        _ => PathBuf::new(),
    }
}

/// The one PDN record written, read back.
fn saved_game(damx_records: &PathBuf, report: &SessionReport) -> damx_rules::pdn::PdnGame {
    assert_eq!(report.saved.len(), 1, "one record written");
    assert!(report.saved[0].starts_with(damx_records));
    let text = std::fs::read_to_string(&report.saved[0]).unwrap();
    let mut games = damx_rules::pdn::parse_games(&text).unwrap();
    std::fs::remove_dir_all(damx_records).unwrap();
    games.remove(0)
}

fn pad(name: &str) -> String {
    format!("{name:<32}")
}

fn gamereq(color: char) -> String {
    format!("R01{}{color}000000A\0", pad("Raw"))
}

/// The wire text of the legal move `from`-`to` in `position`.
fn wire_move(position: &Position, from: u8, to: u8) -> String {
    let mv = position
        .legal_moves()
        .iter()
        .copied()
        .find(|mv| mv.from().number() == from && mv.to().number() == to)
        .unwrap();
    let captured: String = mv
        .captured()
        .iter()
        .map(|s| format!("{:02}", s.number()))
        .collect();
    format!("M0000{from:02}{to:02}{:02}{captured}\0", mv.capture_count())
}

/// Thinks until told to stop (a slow engine), so that the peer can act during our turn.
struct Sluggard;

impl Player for Sluggard {
    fn name(&self) -> &str {
        "Sluggard"
    }

    fn choose_move(&mut self, game: &Game, _: &ClockState, stop: &StopSignal) -> Option<Move> {
        for _ in 0..2_000 {
            if stop.is_stopped() {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
        game.position().legal_moves().first().copied()
    }
}

fn violations(events: &[Event]) -> Vec<&damx_session::Violation> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Violation(violation) => Some(violation),
            _ => None,
        })
        .collect()
}

/// Moby Dam sends GAMEACC and its first MOVE in one segment: both are handled, and damx
/// answers the move.
#[test]
fn gameacc_and_first_move_in_one_segment() {
    bounded(LIMIT, || {
        let settings = GameSettings {
            our_color: Color::Black,
            minutes: 0,
            ..GameSettings::default()
        };
        let config = config(
            SessionConfig::initiator(InitiatorConfig {
                games: vec![settings],
            }),
            "merged",
        );
        let (mut raw, damx) = damx_initiator(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.expect("R01damx");
        let first = wire_move(&Position::initial(), 32, 28);
        raw.send(format!("A{}0\0{first}", pad("Moby")).as_bytes());
        raw.expect("M");
        raw.send(b"E10\0");
        assert_eq!(raw.expect("E"), "E01", "the last game asks to stop");
        assert!(raw.rest().is_empty());
        drop(raw);
        let records = damx.records.clone();
        let (report, events) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::SeriesComplete);
        assert!(violations(&events).is_empty());
        let game = &report.games[0];
        assert_eq!(game.moves.len(), 2);
        assert_eq!(game.result, GameResult::BlackWins);
        assert_eq!(game.termination, Termination::GaveUp { by: Color::White });
        let saved = saved_game(&records, &report);
        assert_eq!(saved.moves, game.moves);
        assert_eq!(saved.tag("White"), Some("Moby"));
        assert_eq!(saved.tag("Termination"), Some("white gave up"));
    });
}

/// Many frames in one write and frames split byte by byte come out as the same dialogue; a
/// stray GAMEEND between games is tolerated without a word and not counted as a violation.
#[test]
fn many_frames_in_one_write_and_frames_split_byte_by_byte() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "chunks");
        let (mut raw, damx) = damx_follower(config, Box::new(FirstLegalPlayer::new("damx")));
        let records = damx.records.clone();
        // GAMEREQ (damx black), two chats and white's first move, in one write.
        let first = wire_move(&Position::initial(), 32, 28);
        let burst = format!("{}Chello\0Cagain\0{first}", gamereq('Z'));
        raw.send(burst.as_bytes());
        raw.expect(&format!("A{}0", pad("damx")));
        let reply = raw.expect("M");
        // The next GAMEEND one byte at a time.
        for byte in b"E00\0" {
            raw.send(&[*byte]);
            thread::sleep(Duration::from_millis(1));
        }
        raw.expect("E00");
        // A stray GAMEEND between games (DXC100 sends one): tolerated, not told, not counted.
        raw.send(b"E00\0");
        // A whole GAMEREQ byte by byte, then stop.
        for byte in gamereq('W').as_bytes() {
            raw.send(&[*byte]);
        }
        raw.expect("A");
        raw.expect("M");
        raw.send(b"E01\0");
        raw.expect("E01");
        assert!(raw.rest().is_empty());
        drop(raw);
        let (report, events) = damx.finish();
        assert!(reply.len() >= 11);
        let chats: Vec<&Event> = events
            .iter()
            .filter(|e| matches!(e, Event::ChatReceived(_)))
            .collect();
        assert_eq!(
            chats,
            [
                &Event::ChatReceived("hello".into()),
                &Event::ChatReceived("again".into())
            ]
        );
        assert_eq!(report.games.len(), 2);
        assert_eq!(report.close_reason, CloseReason::PeerStopped);
        assert_eq!(report.violations, 0);
        assert_eq!(report.saved.len(), 2);
        std::fs::remove_dir_all(&records).unwrap();
    });
}

/// Garbage and an oversized frame between games are told and ignored; garbage during a game
/// ends it, the sender losing; the transcript logs it all.
#[test]
fn garbage_and_oversized_frames() {
    bounded(LIMIT, || {
        let mut config = config(SessionConfig::default(), "garbage");
        let transcript =
            std::env::temp_dir().join(format!("damx-session-garbage-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&transcript);
        config.records.transcript = Some(transcript.clone());
        let (mut raw, damx) = damx_follower(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.send(b"\x01\x02junk\0");
        raw.expect("Cerror: unreadable frame");
        raw.send(&[b'x'; 300]);
        raw.send(b"\0");
        raw.expect("Cerror: unreadable frame: frame longer than 127 bytes");
        raw.send(gamereq('W').as_bytes());
        raw.expect("A");
        raw.expect("M");
        raw.send(b"Q\xff\0");
        raw.expect("Cerror: unreadable frame");
        assert_eq!(raw.expect("E"), "E00");
        raw.send(b"E00\0");
        drop(raw);
        let records = damx.records.clone();
        let (report, events) = damx.finish();
        assert_eq!(report.violations, 3);
        let actions: Vec<ViolationAction> = violations(&events).iter().map(|v| v.action).collect();
        assert_eq!(
            actions,
            [
                ViolationAction::Ignored,
                ViolationAction::Ignored,
                ViolationAction::EndedGame
            ]
        );
        assert!(
            violations(&events)
                .iter()
                .all(|v| v.raw.is_some() && v.told)
        );
        let game = &report.games[0];
        assert_eq!(game.result, GameResult::WhiteWins);
        assert!(matches!(
            game.termination,
            Termination::Undecodable {
                by: Color::Black,
                ..
            }
        ));
        assert_eq!(report.close_reason, CloseReason::PeerClosed);
        let saved = saved_game(&records, &report);
        assert!(
            saved
                .tag("Termination")
                .unwrap()
                .starts_with("black sent an undecodable")
        );

        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&transcript)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        std::fs::remove_file(&transcript).unwrap();
        assert_eq!(lines[0]["dir"], "in");
        assert_eq!(lines[0]["raw"], "\\x01\\x02junk");
        assert!(lines[0]["error"].is_string());
        assert!(
            lines
                .iter()
                .any(|l| l["dir"] == "out" && l["message"]["type"] == "gameacc")
        );
        assert!(lines.iter().any(|l| l["raw"] == "E00" && l["dir"] == "in"));
    });
}

/// An illegal move: told, the game ends with E00, the offender loses, the record says why, and
/// the Follower waits for the next game.
#[test]
fn illegal_move() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "illegal");
        let (mut raw, damx) = damx_follower(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.send(gamereq('Z').as_bytes());
        raw.expect("A");
        raw.send(b"M0000332700\0");
        raw.expect("Cerror: illegal move M0000332700");
        raw.expect("E00");
        raw.send(b"E00\0");
        drop(raw);
        let records = damx.records.clone();
        let (report, _) = damx.finish();
        let game = &report.games[0];
        assert_eq!(game.result, GameResult::BlackWins);
        assert!(matches!(
            &game.termination,
            Termination::IllegalMove { by: Color::White, raw, .. } if raw == "M0000332700"
        ));
        assert_eq!(report.close_reason, CloseReason::PeerClosed);
        let saved = saved_game(&records, &report);
        assert!(saved.moves.is_empty());
        assert_eq!(saved.result, GameResult::BlackWins);
    });
}

/// A move while damx is thinking: its thinking stops, the game ends, the offender loses.
#[test]
fn move_out_of_turn() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "out-of-turn");
        let (mut raw, damx) = damx_follower(config, Box::new(Sluggard));
        raw.send(gamereq('Z').as_bytes());
        raw.expect("A");
        raw.send(wire_move(&Position::initial(), 32, 28).as_bytes());
        raw.send(b"M0000312700\0");
        raw.expect("Cerror: move M0000312700 out of turn");
        raw.expect("E00");
        raw.send(b"E01\0");
        assert!(raw.rest().is_empty());
        drop(raw);
        let records = damx.records.clone();
        let (report, _) = damx.finish();
        let game = &report.games[0];
        assert_eq!(game.moves.len(), 1);
        assert_eq!(game.result, GameResult::BlackWins);
        assert!(matches!(
            game.termination,
            Termination::OutOfTurn {
                by: Color::White,
                ..
            }
        ));
        assert_eq!(report.close_reason, CloseReason::PeerStopped);
        saved_game(&records, &report);
    });
}

/// A peer that goes silent on its turn: told, E01, closed, recorded.
#[test]
fn silent_peer() {
    bounded(LIMIT, || {
        let mut config = config(SessionConfig::default(), "silent");
        config.timeouts.peer_move = Some(Duration::from_millis(300));
        let (mut raw, damx) = damx_follower(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.send(gamereq('Z').as_bytes());
        raw.expect("A");
        raw.expect("Cerror: no move within");
        raw.expect("E01");
        assert!(raw.rest().is_empty(), "closed");
        drop(raw);
        let records = damx.records.clone();
        let (report, _) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::PeerSilent);
        assert!(matches!(
            report.games[0].termination,
            Termination::Silent {
                by: Color::White,
                ..
            }
        ));
        saved_game(&records, &report);
    });
}

/// An Initiator whose peer never answers the GAMEREQ gives up after the reply time-out.
#[test]
fn silent_follower() {
    bounded(LIMIT, || {
        let mut config = config(SessionConfig::initiator(InitiatorConfig::default()), "mute");
        config.timeouts.reply = Duration::from_millis(300);
        let (mut raw, damx) = damx_initiator(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.expect("R");
        raw.expect("Cerror: no GAMEACC");
        assert!(raw.rest().is_empty());
        drop(raw);
        let (report, _) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::PeerSilent);
        assert!(report.games.is_empty());
    });
}

/// A peer that closes mid-game: the game is recorded as broken off, the session ends.
#[test]
fn peer_closes_mid_game() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "closes");
        let (mut raw, damx) = damx_follower(config, Box::new(Sluggard));
        raw.send(gamereq('Z').as_bytes());
        raw.expect("A");
        raw.send(wire_move(&Position::initial(), 32, 28).as_bytes());
        drop(raw);
        let records = damx.records.clone();
        let (report, events) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::PeerClosed);
        assert_eq!(report.games[0].termination, Termination::ConnectionLost);
        assert_eq!(report.games[0].result, GameResult::Unfinished);
        assert!(matches!(
            events.last(),
            Some(Event::Closed(CloseReason::PeerClosed))
        ));
        let saved = saved_game(&records, &report);
        assert_eq!(saved.result, GameResult::Unfinished);
        assert_eq!(saved.tag("Termination"), Some("connection lost"));
    });
}

/// A stop (Ctrl-C) on damx's turn: thinking stops, E01 goes out, the record is saved.
#[test]
fn stop_on_our_turn_over_a_socket() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "stop");
        let (mut raw, damx) = damx_follower(config, Box::new(Sluggard));
        raw.send(gamereq('W').as_bytes());
        raw.expect("A");
        assert!(damx.control.stop());
        raw.expect("E01");
        raw.send(b"E01\0");
        assert!(raw.rest().is_empty());
        drop(raw);
        let records = damx.records.clone();
        let (report, _) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::StopRequested);
        let saved = saved_game(&records, &report);
        assert_eq!(
            saved.tag("Termination"),
            Some("white ended the game without a reason")
        );
    });
}

/// A flood of empty frames in a game, over a socket: the game ends (GAMEEND with stop
/// code 1, the peer loses, the record saved), the connection closes, and what the session
/// reported stays small however much was sent.
#[test]
fn a_flood_ends_the_game_and_the_connection() {
    bounded(LIMIT, || {
        let config = config(SessionConfig::default(), "flood");
        let (mut raw, damx) = damx_follower(config, Box::new(FirstLegalPlayer::new("damx")));
        raw.send(gamereq('W').as_bytes());
        raw.expect("A");
        raw.expect("M");
        // 4 MiB of NULs, sent from another thread: the session stops reading once it
        // has closed, and the writes then fail.
        let mut writer = raw.stream.try_clone().unwrap();
        let flood = thread::spawn(move || {
            let chunk = vec![0u8; 64 * 1024];
            for _ in 0..64 {
                if writer.write_all(&chunk).is_err() {
                    return;
                }
            }
        });
        let frames = raw.rest();
        let _ = flood.join();
        assert!(frames.contains(&"E01".to_owned()), "{frames:?}");
        let chats = frames.iter().filter(|f| f.starts_with('C')).count();
        assert!(chats <= 8, "{chats} chats: {frames:?}");
        let (report, events) = damx.finish();
        assert_eq!(report.close_reason, CloseReason::Noise);
        assert_eq!(report.saved.len(), 1);
        assert!(matches!(
            report.games[0].termination,
            Termination::Noise { by: Color::Black }
        ));
        let violations = violations(&events).len();
        assert!((20..=30).contains(&violations), "{violations} violations");
        assert!(events.len() < 200, "{} events", events.len());
    });
}
