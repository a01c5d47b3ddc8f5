//! Runs the real `damx` binary for the session commands (`follow`, `initiate`, `demo`, `play`,
//! `proxy`): real processes over real sockets on 127.0.0.1 (port 0, so tests never collide),
//! each with a hard time limit, checking what they print, the files they write and their exit
//! codes. Engines search one or two plies deep so that whole games take a second or two.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

use damx_rules::GameResult;

mod common;
use common::Expect::{Has, Is};
use common::{Damx, TempDir, games_in, json_lines, run};
/// A scripted peer on a raw socket: damx-session's, shared with its socket tests.
#[path = "../../damx-session/tests/common/raw_peer.rs"]
mod raw_peer;
use raw_peer::RawPeer;

/// A scripted peer connected to `address`.
fn scripted_peer(address: &str) -> RawPeer {
    RawPeer::new(TcpStream::connect(address).unwrap())
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
    let (follower, address) = Damx::listening(&format!("follow --games 1 --name Follower {QUICK}"));
    let initiator = Damx::line(&format!(
        "initiate --connect {address} --name Initiator --pdn {pdn} {QUICK}"
    ));
    let (out, _) = initiator.exits_with(0);
    for says in [
        "game 1: Initiator (white) - Follower (black)",
        "   1.   ",
        "game 1 over: ",
        &format!("saved {pdn}"),
    ] {
        assert!(out.contains(says), "{says}: {out}");
    }
    let (out, _) = follower.exits_with(0);
    assert!(out.contains("game 1 over: "), "{out}");
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("White"), Some("Initiator"));
    assert_eq!(games[0].tag("Black"), Some("Follower"));
    assert_ne!(games[0].result, GameResult::Unfinished, "a complete game");
    let played = games[0].to_game().expect("every move legal");
    assert!(played.outcome().is_some(), "ended by the rules");
}

/// The other socket direction: `initiate` listens and `follow` connects. Two games with a move
/// limit, damx-initiate black in both (`--color black`), its events as JSON lines, the
/// Follower's PDN in a directory.
#[test]
fn initiate_listens_and_follow_connects() {
    let dir = TempDir::new("initiate-listens");
    let records = dir.path("records");
    let (initiator, address) = Damx::listening(&format!(
        "initiate --games 2 --moves 6 --color black --name Initiator --json {QUICK}"
    ));
    let follower = Damx::line(&format!(
        "follow --connect {address} --name Follower --pdn {records} {QUICK}"
    ));
    let (out, _) = initiator.exits_with(0);
    let events = json_lines(&out);
    let over: Vec<_> = events.iter().filter(|e| e["type"] == "game_over").collect();
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
    follower.exits_with(0);
    let games = games_in(Path::new(&records));
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.tag("Black") == Some("Initiator")));
}

/// A records directory that cannot be written is refused before any game (exit code 3); a
/// record that cannot be saved once games run makes the command exit with code 3 too.
#[test]
fn records_that_cannot_be_saved_exit_3() {
    let dir = TempDir::new("unsaved");
    let blocker = dir.file("a-file", "not a directory");
    let refused = Damx::line(&format!(
        "follow --listen 127.0.0.1:0 --pdn {blocker}/games {QUICK}"
    ));
    let (_, errors) = refused.exits_with(3);
    assert!(errors.contains("cannot create"), "{errors}");
    // The same for a transcript whose directory takes no file, and for the person's game and
    // the demo, which would otherwise be played to their end and then lost.
    let refused = Damx::line(&format!(
        "follow --listen 127.0.0.1:0 --transcript {blocker}/t.jsonl {QUICK}"
    ));
    let (_, errors) = refused.exits_with(3);
    assert!(errors.contains("cannot write in"), "{errors}");
    for command in ["play", "demo"] {
        let refused = Damx::line(&format!("{command} --pdn {blocker}/games {QUICK}"));
        let (_, errors) = refused.exits_with(3);
        assert!(errors.contains("cannot create"), "{command}: {errors}");
    }

    // The directory is there at the start, and a file by the time the game ends.
    let games = dir.path("games");
    let (follower, address) = Damx::listening(&format!("follow --games 1 --pdn {games} {QUICK}"));
    std::fs::remove_dir(&games).unwrap();
    std::fs::write(&games, "in the way").unwrap();
    Damx::line(&format!("initiate --connect {address} {QUICK}")).exits_with(0);
    let (_, errors) = follower.exits_with(3);
    assert!(errors.contains("could not be saved"), "{errors}");
}

/// Connecting where nobody listens is a network error (5), and so is listening on a port in
/// use, each said in one line; an address without a port is a usage error (2). A Follower at
/// its connection limit refuses a second Initiator with a CHAT and a close; the Initiator,
/// which played none of its games, says so and ends with the peer's code (4).
#[test]
fn network_errors_have_their_exit_codes() {
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let in_use = listener.local_addr().unwrap();
    let connect = format!("initiate --connect {closed}");
    let refused = format!("damx: cannot connect to {closed}: connection refused\n");
    run(&connect, 5, Has(&[]), Is(&refused));
    let listen = format!("follow --listen {in_use}");
    let taken = format!("damx: cannot listen on {in_use}: address already in use\n");
    run(&listen, 5, Has(&[]), Is(&taken));
    let (_, errors) = Damx::line("follow --connect localhost").exits_with(2);
    assert!(errors.contains("expected HOST:PORT"), "{errors}");

    let (mut follower, address) = Damx::listening("follow --max-connections 1");
    // The one connection allowed, held open without a word.
    let _first = TcpStream::connect(&address).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let (_, errors) = Damx::line(&format!("initiate --connect {address}")).exits_with(4);
    let says = "the peer closed the connection after 0 of 1 games";
    assert!(errors.contains(says), "{errors}");
    let _ = follower.child.kill();
}

// ---------------------------------------------------------------------------------------------
// demo and play

/// The demo plays a whole game over loopback TCP, shows moves and boards, prints the result
/// and where the PDN went; the PDN reads back with a result, the transcript has the frames.
/// With `-q` it says only how each game ended and where it was saved.
#[test]
fn demo_plays_a_complete_game_and_saves_it() {
    let dir = TempDir::new("demo");
    let (pdn, transcript) = (dir.path("demo.pdn"), dir.path("demo.jsonl"));
    let (out, _) = Damx::line(&format!(
        "demo --depth 2 --pace 2 --hash 4 --pdn {pdn} --transcript {transcript}"
    ))
    .exits_with(0);
    assert!(
        out.starts_with("damx demo: 1 DXP game over TCP on 127.0.0.1"),
        "{out}"
    );
    for says in [
        "damx initiator (white) - damx follower (black)",
        "46-50",
        "white  damx initiator",
        "game 1 over: ",
        "moves: 1. ",
        &format!("saved {pdn}"),
    ] {
        assert!(out.contains(says), "{says}: {out}");
    }
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    assert_ne!(games[0].result, GameResult::Unfinished);
    assert_eq!(games[0].tag("Event"), Some("damx demo"));
    let frames = json_lines(&std::fs::read_to_string(&transcript).unwrap());
    assert_eq!(frames[0]["dir"], "out");
    assert_eq!(frames[0]["message"]["type"], "gamereq");
    assert!(frames.len() > 10, "{frames:?}");

    let quiet = dir.path("quiet.pdn");
    let line = format!("demo -q --depth 1 --pace 0 --hash 4 --pdn {quiet}");
    let (out, errors) = Damx::line(&line).exits_with(0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("game 1 over: "), "{out}");
    assert_eq!(lines[1], format!("saved {quiet}"));
    assert!(errors.is_empty(), "{errors}");
}

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
    play.exits_with(0);
    let games = games_in(Path::new(&pdn));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("White"), Some("Tester"));
    assert_eq!(games[0].tag("Termination"), Some("white gave up"));
    let game = games[0].to_game().unwrap();
    assert_eq!(game.start().move_text(&game.moves()[0]), "16x43x30x2");
}

/// As Follower on a listening socket, the person is asked about the peer's take-back request
/// and answers yes (BACKACC 0); the peer then ends the game and the session stops cleanly.
#[test]
fn play_answers_the_peers_take_back_request() {
    let dir = TempDir::new("play-follower");
    let pdn = dir.path("games");
    let (mut play, address) = Damx::listening(&format!(
        "play --role follower --name Person --pace 0 --pdn {pdn}"
    ));
    let mut peer = scripted_peer(&address);
    // The person plays black; the peer (white) opens with 32-28.
    peer.send(b"R01Scripted                        Z010000A\0");
    assert_eq!(peer.expect(""), "APerson                          0");
    peer.send(b"M0001322800\0");
    play.expect("your move", |line| line.starts_with("your move (black"));
    play.type_line("19-23");
    let reply = peer.expect("M");
    assert!(
        reply.starts_with('M') && reply.ends_with("192300"),
        "{reply}"
    );
    peer.send(b"B001W\0");
    play.expect("the question", |line| {
        line.contains("accept the take-back?")
    });
    play.type_line("yes");
    assert_eq!(peer.expect(""), "K0");
    play.expect("the take-back", |line| line.contains("taken back to ply 0"));
    peer.send(b"E01\0");
    assert_eq!(peer.expect(""), "E01");
    drop(peer);
    let (out, _) = play.exits_with(0);
    let over = "game 1 over: * (white ended the game without a reason)";
    assert!(out.contains(over), "{out}");
    assert_eq!(games_in(Path::new(&pdn)).len(), 1);
}

// ---------------------------------------------------------------------------------------------
// proxy

/// Between two damx processes the proxy forwards a whole dialogue, prints its log, flags
/// nothing, and exits 0 (what each line says: damx-session's proxy tests).
#[test]
fn proxy_logs_a_correct_dialogue() {
    let (follower, target) = Damx::listening(&format!("follow --games 1 {QUICK}"));
    let (proxy, address) = Damx::listening(&format!("proxy --connect {target}"));
    let line = format!("initiate --connect {address} --moves 8 {QUICK}");
    Damx::line(&line).exits_with(0);
    let (log, _) = proxy.exits_with(0);
    assert!(log.contains("game 1: 8... "), "{log}");
    assert!(!log.contains("!!") && log.ends_with("0 findings"), "{log}");
    follower.exits_with(0);
}

/// A scripted Initiator sends an illegal move through the proxy to `damx follow`: the proxy
/// forwards it, flags it, and exits 4; the Follower ends the game and exits 4 as well.
#[test]
fn proxy_flags_an_illegal_move() {
    let (follower, target) = Damx::listening(&format!("follow --games 1 {QUICK}"));
    let (proxy, address) = Damx::listening(&format!("proxy --json --connect {target}"));
    let mut peer = scripted_peer(&address);
    // We play white (the Follower black): R, then 32-26, which no man can do.
    peer.send(b"R01Scripted                        Z005000A\0");
    assert!(peer.expect("A").ends_with('0'), "accepted");
    peer.send(b"M0000322600\0");
    // The Follower tells us (CHAT) and ends the game (GAMEEND); we acknowledge.
    while !peer.expect("").starts_with('E') {}
    peer.send(b"E00\0");
    drop(peer);

    let (log, errors) = proxy.exits_with(4);
    let lines = json_lines(&log);
    let illegal = lines.iter().find(|line| line["type"] == "finding");
    let illegal = illegal.unwrap_or_else(|| panic!("a finding in {log}"));
    assert_eq!(
        (&illegal["kind"], &illegal["by"]),
        (&"illegal_move".into(), &"A".into())
    );
    assert!(
        lines
            .iter()
            .any(|line| line["raw"] == "M0000322600" && line["from"] == "A")
    );
    let flagged = "damx: 1 violation of the spec flagged above";
    assert!(errors.contains(flagged), "{errors}");
    let (out, _) = follower.exits_with(4);
    assert!(out.contains("violation: "), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C

/// The first Ctrl-C ends the running game properly: our GAMEEND with stop code 1 on our turn
/// (in the transcript), the game saved as unfinished, exit code 130; the Follower, asked to
/// stop, ends with 0. SIGTERM (`kill`, a service or container stopping) and SIGHUP (the
/// terminal closed) do the same with their own exit codes (143, 129).
#[test]
fn signals_end_the_game_with_a_gameend_and_save_it() {
    for (signal, code, name) in [
        ("INT", 130, "Ctrl-C"),
        ("TERM", 143, "SIGTERM"),
        ("HUP", 129, "SIGHUP"),
    ] {
        let dir = TempDir::new(&format!("sig{signal}"));
        let (pdn, transcript) = (dir.path("games.pdn"), dir.path("dxp.jsonl"));
        let (mut initiator, address) = Damx::listening(&format!(
            "initiate --games 3 --depth 1 --hash 4 --pace 100 --pdn {pdn} --transcript {transcript}"
        ));
        let follower = Damx::line(&format!("follow --connect {address} {QUICK}"));
        initiator.expect("a few moves", |line| line.starts_with("   3.   "));
        initiator.signal(signal);
        let (_, errors) = initiator.exits_with(code);
        assert!(errors.contains("damx: stopping"), "{errors}");
        assert!(
            errors.ends_with(&format!("damx: interrupted by {name}")),
            "{errors}"
        );
        let frames = json_lines(&std::fs::read_to_string(&transcript).unwrap());
        let gameend = |dir: &str| {
            let found = |frame: &&serde_json::Value| {
                frame["dir"] == dir && frame["message"]["type"] == "gameend"
            };
            frames.iter().find(found).map(|frame| frame["raw"].clone())
        };
        assert_eq!(gameend("out"), Some("E01".into()), "our GAMEEND");
        assert!(gameend("in").is_some(), "the acknowledgement");
        let games = games_in(Path::new(&pdn));
        assert_eq!(games.len(), 1, "only the interrupted game");
        assert_eq!(games[0].result, GameResult::Unfinished);
        let (out, _) = follower.exits_with(0);
        assert!(out.contains("the peer stopped"), "{out}");
    }
}

/// A standard error that has gone (the terminal closed, a pipe nobody reads) does not keep a
/// signal from stopping damx: SIGTERM still ends a waiting Follower with 143, though the
/// "stopping" note cannot be written.
#[cfg(unix)]
#[test]
fn signals_work_when_standard_error_has_gone() {
    use std::io::BufRead;
    let mut child = common::spawn(&["follow", "--listen", "127.0.0.1:0"]);
    drop(child.stderr.take());
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("listening on ") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "damx ended early");
    }
    let kill = |signal: &str| {
        std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap()
    };
    assert!(kill("-TERM").success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("SIGTERM did not stop damx with its standard error gone");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143));
}

/// Ctrl-C while waiting for a connection ends the wait at once, with exit code 130; in the
/// proxy it closes both connections, prints the summary and exits with 130.
#[test]
fn ctrl_c_stops_a_waiting_follower_and_the_proxy() {
    let (follower, target) = Damx::listening("follow");
    let (mut proxy, address) = Damx::listening(&format!("proxy --connect {target}"));
    let mut peer = scripted_peer(&address);
    peer.send(b"CHello\0");
    proxy.expect("the chat", |line| line.ends_with("A chats: Hello"));
    proxy.signal("INT");
    let (out, errors) = proxy.exits_with(130);
    assert!(
        out.ends_with("1 frames from A, 0 from B, 0 findings"),
        "{out}"
    );
    assert!(errors.contains("closing both connections"), "{errors}");
    drop(peer);
    follower.signal("INT");
    follower.exits_with(130);

    let (waiting, _) = Damx::listening("follow");
    waiting.signal("INT");
    waiting.exits_with(130);
}
