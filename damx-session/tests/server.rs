//! The Follower server: two sessions at once with a third refused, capacity freed when a
//! session ends, a stop that ends each game on its turn, IPv6, and a limit on the games.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use common::{bounded, quick, wait_for};
use crossbeam_channel::{Receiver, unbounded};
use damx_session::{
    CloseReason, Control, Endpoint, Event, FirstLegalPlayer, InitiatorConfig, RandomPlayer,
    ServerConfig, ServerEvent, ServerReport, SessionConfig, SessionError, SessionReport, run,
    serve,
};

const LIMIT: Duration = Duration::from_secs(30);

/// A server of first-legal-move players on `listener`: its control, its events and its thread.
fn start_server(
    listener: TcpListener,
    config: ServerConfig,
) -> (
    Control,
    Receiver<ServerEvent>,
    thread::JoinHandle<Result<ServerReport, SessionError>>,
) {
    let (control, commands) = Control::new();
    let (events_tx, events) = unbounded();
    let server = thread::spawn(move || {
        serve(
            listener,
            &config,
            || Box::new(FirstLegalPlayer::new("damx")),
            commands,
            events_tx,
        )
    });
    (control, events, server)
}

/// A damx Initiator asking the server at `address` for `games` games: its events and report.
fn play_series(address: SocketAddr, games: u32) -> (Receiver<Event>, SessionReport) {
    let (_control, commands) = Control::new();
    let (events_tx, events) = unbounded();
    let series = InitiatorConfig::series(games, damx_rules::Color::White, 0, 0, &[]);
    let report = run(
        &Endpoint::Connect(address.into()),
        &quick(SessionConfig::initiator(series)),
        Box::new(RandomPlayer::new("Client", 5)),
        commands,
        events_tx,
    )
    .unwrap();
    (events, report)
}

/// A raw client that frames what it reads.
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    fn connect(address: SocketAddr) -> Client {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    fn send(&mut self, text: &str) {
        self.stream.write_all(text.as_bytes()).unwrap();
        self.stream.write_all(b"\0").unwrap();
    }

    /// The next frame, `None` at the end of the stream.
    fn frame(&mut self) -> Option<String> {
        loop {
            if let Some(nul) = self.buf.iter().position(|&b| b == 0) {
                let frame: Vec<u8> = self.buf.drain(..=nul).collect();
                return Some(String::from_utf8_lossy(&frame[..nul]).into_owned());
            }
            let mut chunk = [0u8; 256];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => return None,
                Err(error) => panic!("nothing in time: {error}"),
            }
        }
    }

    /// Asks for a game in which the server plays black (so it waits for our move).
    fn start_game(&mut self) {
        self.send(&format!("R01{:<32}Z000000A", "Client"));
        let answer = self.frame().unwrap();
        assert!(answer.starts_with('A') && answer.ends_with('0'), "{answer}");
    }
}

fn accepted(events: &Receiver<ServerEvent>) -> u64 {
    wait_for_server(events, |e| match e {
        ServerEvent::Accepted { id, .. } => Some(*id),
        _ => None,
    })
}

fn wait_for_server<T>(
    events: &Receiver<ServerEvent>,
    mut pick: impl FnMut(&ServerEvent) -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let event = events
            .recv_deadline(deadline)
            .expect("a server event in time");
        if let Some(found) = pick(&event) {
            return found;
        }
    }
}

/// With a limit of two: two clients get sessions, a third gets a CHAT and is closed; when one
/// session ends a new client is served; Stop ends every game on the server's turn.
#[test]
fn two_sessions_a_refusal_and_a_stop() {
    bounded(LIMIT, || {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let config = ServerConfig {
            session: quick(SessionConfig::default()),
            max_sessions: 2,
            ..ServerConfig::default()
        };
        let (control, events, server) = start_server(listener, config);
        let mut first = Client::connect(address);
        assert_eq!(accepted(&events), 1);
        let mut second = Client::connect(address);
        assert_eq!(accepted(&events), 2);
        first.start_game();
        second.start_game();

        let mut third = Client::connect(address);
        let busy = third.frame().unwrap();
        assert!(busy.starts_with("Cbusy: 2 games running"), "{busy}");
        assert_eq!(third.frame(), None, "closed after the chat");
        drop(third);
        wait_for_server(&events, |e| {
            matches!(e, ServerEvent::Refused { running: 2, .. }).then_some(())
        });

        // The first client stops: its session ends and frees a place.
        first.send("E01");
        assert_eq!(first.frame().as_deref(), Some("E01"));
        assert_eq!(first.frame(), None);
        drop(first);
        let ended = wait_for_server(&events, |e| match e {
            ServerEvent::Ended { id, report } => Some((*id, report.close_reason.clone())),
            _ => None,
        });
        assert_eq!(ended, (1, CloseReason::PeerStopped));
        let mut fourth = Client::connect(address);
        assert_eq!(accepted(&events), 3);
        fourth.start_game();

        // Stop: it is each client's turn, so each session waits for a move, then sends E01.
        assert!(control.stop());
        for mut client in [second, fourth] {
            client.send("M0000322800");
            let mut frame = client.frame().unwrap();
            while frame.starts_with('C') {
                frame = client.frame().unwrap();
            }
            assert_eq!(frame, "E01");
            client.send("E01");
            assert_eq!(client.frame(), None);
            drop(client);
        }
        let report = server.join().unwrap().unwrap();
        assert_eq!(report.refused, 1);
        let ids: Vec<u64> = report.sessions.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [1, 2, 3]);
        for (id, session) in &report.sessions[1..] {
            assert_eq!(session.close_reason, CloseReason::StopRequested, "{id}");
            assert_eq!(session.games[0].moves.len(), 1);
        }
        assert!(Client::connect_fails(address));
    });
}

impl Client {
    /// Whether nothing listens at `address` any more.
    fn connect_fails(address: SocketAddr) -> bool {
        TcpStream::connect_timeout(&address, Duration::from_secs(2)).is_err()
    }
}

/// The server on ::1, a damx Initiator connecting over IPv6 for a two-game series.
#[test]
fn server_on_ipv6() {
    bounded(LIMIT, || {
        let listener = TcpListener::bind("[::1]:0").expect("this machine has ::1");
        let address = listener.local_addr().unwrap();
        let config = ServerConfig {
            session: quick(SessionConfig::default()),
            ..ServerConfig::default()
        };
        let (control, events, server) = start_server(listener, config);
        let (seen, report) = play_series(address, 2);
        assert_eq!(report.games.len(), 2);
        assert!(report.peer.unwrap().is_ipv6());
        wait_for(&seen, |e| matches!(e, Event::Closed(_)).then_some(()));
        let ended = wait_for_server(&events, |e| match e {
            ServerEvent::Ended { report, .. } => Some(report.games.len()),
            _ => None,
        });
        assert_eq!(ended, 2);
        assert!(control.stop());
        let server_report = server.join().unwrap().unwrap();
        // The server keeps a summary of each session: its last game.
        assert_eq!(server_report.sessions.len(), 1);
        let kept = &server_report.sessions[0].1.games;
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].moves, report.games[1].moves);
    });
}

/// With `max_games` the session that plays the last game ends it with stop code 1, and the
/// server stops by itself once that session is over: no Stop needed.
#[test]
fn the_server_stops_after_its_games() {
    bounded(LIMIT, || {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let config = ServerConfig {
            session: quick(SessionConfig::default()),
            max_games: Some(1),
            ..ServerConfig::default()
        };
        let (_control, _events, server) = start_server(listener, config);
        let (_seen, report) = play_series(address, 3);
        assert_eq!(report.games.len(), 1);
        let server_report = server.join().unwrap().unwrap();
        assert_eq!(server_report.sessions.len(), 1);
        assert_eq!(server_report.sessions[0].1.games.len(), 1);
    });
}
