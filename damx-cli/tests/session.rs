//! Runs the real `damx` binary for the session commands (`follow`, `initiate`, `demo`, `play`,
//! `proxy`): real processes over real sockets on 127.0.0.1 (port 0, so tests never collide),
//! each with a hard time limit, checking what they print, the files they write and their exit
//! codes. Engines search one or two plies deep so that whole games take a second or two.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::thread;
use std::time::Duration;

use damx_rules::GameResult;

mod common;
use common::{Damx, LIMIT, TempDir, games_in};

/// A port of 127.0.0.1 that nothing listens on (as far as can be known).
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Engines that finish a game in a second or two.
const QUICK: &str = "--depth 2 --hash 4 --pace 2";

// ---------------------------------------------------------------------------------------------
// follow and initiate

/// `follow` listens and `initiate` connects: two damx processes play a complete game, both
/// show it, both end with 0, and the Initiator's PDN has the game with a result by the rules.
#[test]
fn follow_and_initiate_play_a_complete_game() {
    let dir = TempDir::new("follow-initiate");
    let pdn = dir.path("games.pdn");
    let mut follower = Damx::line(&format!(
        "follow --listen 127.0.0.1:0 --games 1 --name Follower {QUICK}"
    ));
    let port = follower.listening_port().to_string();
    let address = format!("127.0.0.1:{port}");
    let initiator = Damx::line(&format!(
        "initiate --connect {address} --name Initiator --pdn {pdn} {QUICK}"
    ));
    let (code, out, errors) = initiator.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    assert!(
        out.contains("game 1: Initiator (white) - Follower (black)"),
        "{out}"
    );
    assert!(out.contains("   1.   "), "one line a move: {out}");
    assert!(out.contains("game 1 over: "), "{out}");
    assert!(out.contains(&format!("saved {pdn}")), "{out}");
    let (code, out, errors) = follower.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    assert!(out.contains("game 1 over: "), "{out}");

    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game.tag("White"), Some("Initiator"));
    assert_eq!(game.tag("Black"), Some("Follower"));
    assert_ne!(game.result, GameResult::Unfinished, "a complete game");
    let played = game.to_game().expect("every move legal");
    assert!(played.outcome().is_some(), "ended by the rules");
}

/// The other socket direction: `initiate` listens and `follow` connects. Two games with a move
/// limit, damx-initiate black in both (`--color black`), the Follower's PDN in a directory.
/// A records directory that cannot be written is refused before any game (exit code 3); a
/// record that cannot be saved once games run makes the command exit with code 3 too.
#[test]
fn records_that_cannot_be_saved_exit_3() {
    let dir = TempDir::new("unsaved");
    let blocker = dir.path("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let under_a_file = format!("{blocker}/games");
    let refused = Damx::line(&format!(
        "follow --listen 127.0.0.1:0 --pdn {under_a_file} {QUICK}"
    ));
    let (code, out, errors) = refused.finish();
    assert_eq!(code, 3, "{out}\n{errors}");
    assert!(errors.contains("cannot create"), "{errors}");

    // The directory is there at the start, and a file by the time the game ends.
    let games = dir.path("games");
    let mut follower = Damx::line(&format!(
        "follow --listen 127.0.0.1:0 --games 1 --pdn {games} {QUICK}"
    ));
    let port = follower.listening_port().to_string();
    std::fs::remove_dir(&games).unwrap();
    std::fs::write(&games, "in the way").unwrap();
    let initiator = Damx::line(&format!("initiate --connect 127.0.0.1:{port} {QUICK}"));
    let (code, out, errors) = initiator.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let (code, out, errors) = follower.finish();
    assert_eq!(code, 3, "{out}\n{errors}");
    assert!(errors.contains("could not be saved"), "{errors}");
}

#[test]
fn initiate_listens_and_follow_connects() {
    let dir = TempDir::new("initiate-listens");
    let records = dir.path("records");
    let mut initiator = Damx::line(&format!(
        "initiate --listen 127.0.0.1:0 --games 2 --moves 6 --color black --name Initiator --json {QUICK}"
    ));
    let listening = initiator.expect("listening", |line| line.contains("\"listening\""));
    let value: serde_json::Value = serde_json::from_str(&listening).unwrap();
    let address = value["address"].as_str().unwrap().to_owned();
    let follower = Damx::line(&format!(
        "follow --connect {address} --name Follower --pdn {records} {QUICK}"
    ));
    let (code, out, errors) = initiator.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let over: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["type"] == "game_over").collect();
    assert_eq!(over.len(), 2, "{out}");
    assert!(
        over.iter()
            .all(|e| e["black"] == "Initiator" && e["white"] == "Follower")
    );
    assert_eq!(
        over[0]["moves"].as_array().unwrap().len(),
        12,
        "6 moves each"
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "move" && e["by"] == "us")
    );
    let (code, out, errors) = follower.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let games = games_in(Path::new(&records));
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.tag("Black") == Some("Initiator")));
}

/// Connecting where nobody listens is a network error (5), and so is listening on a port in
/// use; an address without a port is a usage error (2). Each says what failed in one line.
#[test]
fn network_errors_have_their_exit_codes() {
    let port = closed_port();
    let address = format!("127.0.0.1:{port}");
    let (code, _, errors) = Damx::line(&format!("initiate --connect {address}")).finish();
    assert_eq!(code, 5, "{errors}");
    assert_eq!(
        errors,
        format!("damx: cannot connect to {address}: connection refused")
    );

    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let (code, _, errors) = Damx::line(&format!("follow --listen {address}")).finish();
    assert_eq!(code, 5, "{errors}");
    assert_eq!(
        errors,
        format!("damx: cannot listen on {address}: address already in use")
    );

    let (code, _, errors) = Damx::line("follow --connect localhost").finish();
    assert_eq!(code, 2, "{errors}");
    assert!(errors.contains("expected HOST:PORT"), "{errors}");
}

/// A Follower at its connection limit refuses a second Initiator with a CHAT and a close; the
/// Initiator, which played none of its games, says so and ends with the peer's code (4).
#[test]
fn a_busy_follower_is_a_peer_error_for_the_initiator() {
    let mut follower = Damx::line("follow --listen 127.0.0.1:0 --max-connections 1");
    let address = format!("127.0.0.1:{}", follower.listening_port());
    // The one connection allowed, held open without a word.
    let _first = TcpStream::connect(&address).unwrap();
    thread::sleep(Duration::from_millis(200));
    let (code, _, errors) = Damx::line(&format!("initiate --connect {address}")).finish();
    assert_eq!(code, 4, "{errors}");
    assert!(
        errors.contains("the peer closed the connection after 0 of 1 games"),
        "{errors}"
    );
    let _ = follower.child.kill();
}

// ---------------------------------------------------------------------------------------------
// demo

/// The demo plays a whole game over loopback TCP, shows moves and boards, prints the result
/// and where the PDN went; the PDN reads back with a result, the transcript has the frames.
#[test]
fn demo_plays_a_complete_game_and_saves_it() {
    let dir = TempDir::new("demo");
    let pdn = dir.path("demo.pdn");
    let transcript = dir.path("demo.jsonl");
    let (code, out, errors) = Damx::line(&format!(
        "demo --depth 2 --pace 2 --hash 4 --pdn {pdn} --transcript {transcript}"
    ))
    .finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    assert!(
        out.starts_with("damx demo: 1 DXP game over TCP on 127.0.0.1"),
        "{out}"
    );
    assert!(
        out.contains("damx initiator (white) - damx follower (black)"),
        "{out}"
    );
    assert!(out.contains("46-50"), "a board is drawn: {out}");
    assert!(
        out.contains("white  damx initiator"),
        "with the clocks: {out}"
    );
    assert!(out.contains("game 1 over: "), "{out}");
    assert!(out.contains("moves: 1. "), "the move list: {out}");
    assert!(out.contains(&format!("saved {pdn}")), "{out}");
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    assert_ne!(games[0].result, GameResult::Unfinished);
    assert_eq!(games[0].tag("Event"), Some("damx demo"));
    let frames = std::fs::read_to_string(&transcript).unwrap();
    let first: serde_json::Value = serde_json::from_str(frames.lines().next().unwrap()).unwrap();
    assert_eq!(first["dir"], "out");
    assert_eq!(first["message"]["type"], "gamereq");
    assert!(frames.lines().count() > 10, "{frames}");
}

/// With `-q` the demo says only how each game ended and where it was saved.
#[test]
fn a_quiet_demo_prints_only_the_result() {
    let dir = TempDir::new("demo-quiet");
    let pdn = dir.path("quiet.pdn");
    let (code, out, errors) =
        Damx::line(&format!("demo -q --depth 1 --pace 0 --hash 4 --pdn {pdn}")).finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("game 1 over: "), "{out}");
    assert_eq!(lines[1], format!("saved {pdn}"));
    assert!(errors.is_empty(), "{errors}");
}

// ---------------------------------------------------------------------------------------------
// play

/// A person's game through standard input against the built-in engine (what each line
/// gets: damx-session's seat tests): a capture text that fits two captures lists both and
/// takes a number, a chat, then resigning; the PDN has the chosen capture and says white
/// gave up.
#[test]
fn play_takes_moves_and_commands_from_standard_input() {
    let dir = TempDir::new("play");
    let pdn = dir.path("play.pdn");
    // White's king on 16 reaches 2 over 32, 33 and 8, or over 32, 34 and 8.
    let mut play = Damx::line(&format!(
        "play --start W:WK16,25:B8,32,33,34,45 --depth 1 --hash 4 --pace 0 --name Tester --pdn {pdn}"
    ));
    play.expect("your move", |line| line.starts_with("your move (white"));
    play.type_line("16x2");
    play.expect("the question", |line| line.contains("fits 2 captures"));
    play.expect("candidate 2", |line| line.trim_start().starts_with("2)"));
    play.type_line("2");
    play.expect("the capture", |line| line.contains("16x43x30x2"));
    play.expect("your next move", |line| line.starts_with("your move"));
    play.type_line("chat good luck");
    play.expect("the chat", |line| line == "chat to the peer: good luck");
    play.type_line("resign");
    play.expect("the result", |line| line.starts_with("game 1 over: 0-2"));
    let (code, out, errors) = play.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("White"), Some("Tester"));
    assert_eq!(games[0].tag("Termination"), Some("white gave up"));
    let game = games[0].to_game().unwrap();
    assert_eq!(game.start().move_text(&game.moves()[0]), "16x43x30x2");
}

/// Reads NUL-terminated frames from a raw socket, a scripted peer's way.
struct Frames {
    stream: TcpStream,
    pending: Vec<u8>,
}

impl Frames {
    fn new(stream: TcpStream) -> Frames {
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        Frames {
            stream,
            pending: Vec::new(),
        }
    }

    fn send(&mut self, frame: &str) {
        self.stream.write_all(frame.as_bytes()).unwrap();
        self.stream.write_all(b"\0").unwrap();
    }

    fn next(&mut self) -> String {
        let mut byte = [0u8; 1];
        loop {
            assert_eq!(
                self.stream.read(&mut byte).unwrap(),
                1,
                "the connection stays up"
            );
            if byte[0] == 0 {
                return String::from_utf8(std::mem::take(&mut self.pending)).unwrap();
            }
            self.pending.push(byte[0]);
        }
    }
}

/// As Follower on a listening socket, the person is asked about the peer's take-back request
/// and answers yes (BACKACC 0); the peer then ends the game and the session stops cleanly.
#[test]
fn play_answers_the_peers_take_back_request() {
    let dir = TempDir::new("play-follower");
    let pdn = dir.path("games");
    let mut play = Damx::line(&format!(
        "play --listen 127.0.0.1:0 --role follower --name Person --pace 0 --pdn {pdn}"
    ));
    let port = play.listening_port();
    let mut peer = Frames::new(TcpStream::connect(("127.0.0.1", port)).unwrap());
    // The person plays black; the peer (white) opens with 32-28.
    peer.send("R01Scripted                        Z010000A");
    assert_eq!(peer.next(), "APerson                          0");
    peer.send("M0001322800");
    play.expect("your move", |line| line.starts_with("your move (black"));
    play.type_line("19-23");
    let reply = peer.next();
    assert!(
        reply.starts_with('M') && reply.ends_with("192300"),
        "{reply}"
    );
    peer.send("B001W");
    play.expect("the question", |line| {
        line.contains("accept the take-back?")
    });
    play.type_line("yes");
    assert_eq!(peer.next(), "K0");
    play.expect("the take-back", |line| line.contains("taken back to ply 0"));
    peer.send("E01");
    assert_eq!(peer.next(), "E01");
    drop(peer);
    let (code, out, errors) = play.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    assert!(
        out.contains("game 1 over: * (white ended the game without a reason)"),
        "{out}"
    );
    assert_eq!(games_in(Path::new(&pdn)).len(), 1);
}

// ---------------------------------------------------------------------------------------------
// proxy

/// Between two damx processes the proxy forwards a whole dialogue, prints its log, flags
/// nothing, and exits 0.
#[test]
fn proxy_logs_a_correct_dialogue() {
    let mut follower = Damx::line(&format!("follow --listen 127.0.0.1:0 --games 1 {QUICK}"));
    let follower_port = follower.listening_port();
    let target = format!("127.0.0.1:{follower_port}");
    let mut proxy = Damx::line(&format!("proxy --listen 127.0.0.1:0 --connect {target}"));
    let proxy_port = proxy.listening_port();
    let initiator = Damx::line(&format!(
        "initiate --connect 127.0.0.1:{proxy_port} --moves 8 {QUICK}"
    ));
    let (code, out, errors) = initiator.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    let (code, log, errors) = proxy.finish();
    assert_eq!(code, 0, "{log}\n{errors}");
    // What each line says: damx-session's proxy tests.
    assert!(log.contains("game 1: 8... "), "{log}");
    assert!(!log.contains("!!"), "{log}");
    assert!(log.ends_with("0 findings"), "{log}");
    let (code, _, errors) = follower.finish();
    assert_eq!(code, 0, "{errors}");
}

/// A scripted Initiator sends an illegal move through the proxy to `damx follow`: the proxy
/// forwards it, flags it, and exits 4; the Follower ends the game and exits 4 as well.
#[test]
fn proxy_flags_an_illegal_move() {
    let mut follower = Damx::line(&format!("follow --listen 127.0.0.1:0 --games 1 {QUICK}"));
    let target = format!("127.0.0.1:{}", follower.listening_port());
    let mut proxy = Damx::line(&format!(
        "proxy --listen 127.0.0.1:0 --json --connect {target}"
    ));
    let line = proxy.expect("listening", |line| line.contains("listening"));
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    let mut peer = Frames::new(TcpStream::connect(value["address"].as_str().unwrap()).unwrap());
    // We play white (the Follower black): R, then 32-26, which no man can do.
    peer.send("R01Scripted                        Z005000A");
    assert!(peer.next().ends_with('0'), "accepted");
    peer.send("M0000322600");
    // The Follower tells us (CHAT) and ends the game (GAMEEND); we acknowledge.
    while !peer.next().starts_with('E') {}
    peer.send("E00");
    drop(peer);

    let (code, log, errors) = proxy.finish();
    assert_eq!(code, 4, "{log}\n{errors}");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let illegal = lines
        .iter()
        .find(|line| line["type"] == "finding")
        .unwrap_or_else(|| panic!("a finding in {log}"));
    assert_eq!(illegal["kind"], "illegal_move");
    assert_eq!(illegal["by"], "A");
    assert!(
        lines
            .iter()
            .any(|line| line["raw"] == "M0000322600" && line["from"] == "A")
    );
    assert!(
        errors.contains("damx: 1 violation of the spec flagged above"),
        "{errors}"
    );
    let (code, out, _) = follower.finish();
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("violation: "), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C

/// The first Ctrl-C ends the running game properly: our GAMEEND with stop code 1 on our turn
/// (in the transcript), the game saved as unfinished, exit code 130; the Follower, asked to
/// stop, ends with 0.
#[test]
fn ctrl_c_ends_the_game_with_a_gameend_and_saves_it() {
    ends_the_game_with_a_gameend_and_saves_it("INT");
}

/// SIGTERM (`kill`, a service or container stopping) and SIGHUP (the terminal closed) do as
/// Ctrl-C does, with their own exit codes (143, 129).
#[test]
fn sigterm_and_sighup_end_the_game_with_a_gameend_and_save_it() {
    ends_the_game_with_a_gameend_and_saves_it("TERM");
    ends_the_game_with_a_gameend_and_saves_it("HUP");
}

fn ends_the_game_with_a_gameend_and_saves_it(signal: &str) {
    let dir = TempDir::new(&format!("sig{signal}"));
    let pdn = dir.path("games.pdn");
    let transcript = dir.path("dxp.jsonl");
    let mut initiator = Damx::line(&format!(
        "initiate --listen 127.0.0.1:0 --games 3 --depth 1 --hash 4 --pace 100 --pdn {pdn} --transcript {transcript}"
    ));
    let port = initiator.listening_port();
    let follower = Damx::line(&format!("follow --connect 127.0.0.1:{port} {QUICK}"));
    initiator.expect("a few moves", |line| line.starts_with("   3.   "));
    initiator.signal(signal);
    let (code, out, errors) = initiator.finish();
    let (expected_code, name) = match signal {
        "INT" => (130, "Ctrl-C"),
        "TERM" => (143, "SIGTERM"),
        "HUP" => (129, "SIGHUP"),
        _ => unreachable!("a signal this test sends"),
    };
    assert_eq!(code, expected_code, "{out}\n{errors}");
    assert!(errors.contains("damx: stopping"), "{errors}");
    assert!(
        errors.ends_with(&format!("damx: interrupted by {name}")),
        "{errors}"
    );
    let frames: Vec<serde_json::Value> = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let ours = frames
        .iter()
        .find(|frame| frame["dir"] == "out" && frame["message"]["type"] == "gameend")
        .expect("our GAMEEND");
    assert_eq!(ours["raw"], "E01");
    assert!(
        frames
            .iter()
            .any(|f| f["dir"] == "in" && f["message"]["type"] == "gameend")
    );
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1, "only the interrupted game");
    assert_eq!(games[0].result, GameResult::Unfinished);
    let (code, out, errors) = follower.finish();
    assert_eq!(code, 0, "{out}\n{errors}");
    assert!(out.contains("the peer stopped"), "{out}");
}

/// Ctrl-C while waiting for a connection ends the wait at once, with exit code 130.
#[test]
fn ctrl_c_stops_a_waiting_follower() {
    let mut follower = Damx::line("follow --listen 127.0.0.1:0");
    follower.listening_port();
    follower.interrupt();
    let (code, _, errors) = follower.finish();
    assert_eq!(code, 130, "{errors}");
}

/// Ctrl-C in the proxy closes both connections, prints the summary and exits with 130.
#[test]
fn ctrl_c_closes_the_proxy() {
    let mut follower = Damx::line("follow --listen 127.0.0.1:0");
    let target = format!("127.0.0.1:{}", follower.listening_port());
    let mut proxy = Damx::line(&format!("proxy --listen 127.0.0.1:0 --connect {target}"));
    let port = proxy.listening_port();
    let mut peer = Frames::new(TcpStream::connect(("127.0.0.1", port)).unwrap());
    peer.send("CHello");
    proxy.expect("the chat", |line| line.ends_with("A chats: Hello"));
    proxy.interrupt();
    let (code, out, errors) = proxy.finish();
    assert_eq!(code, 130, "{out}\n{errors}");
    assert!(
        out.ends_with("1 frames from A, 0 from B, 0 findings"),
        "{out}"
    );
    assert!(errors.contains("closing both connections"), "{errors}");
    drop(peer);
    follower.interrupt();
    assert_eq!(follower.finish().0, 130);
}
