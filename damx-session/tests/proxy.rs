//! `proxy::run_proxy` over real sockets on 127.0.0.1: between two damx sessions it forwards a
//! whole series and logs every frame with its meaning, flags nothing, and says where it
//! listens and who connected; a stop ends the wait, or once connected both connections.

mod common;

use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use common::{bounded, connecting_initiator, listening_follower};
use crossbeam_channel::{Receiver, unbounded};
use damx_rules::Color;
use damx_session::proxy::{Entry, ProxyLog, run_proxy};
use damx_session::{Address, Command, Control, InitiatorConfig, SessionError};

const LIMIT: Duration = Duration::from_secs(30);

/// `run_proxy` on a free port of 127.0.0.1 towards program B at `b`, on a thread of its own,
/// and the entries it reports.
fn spawn_proxy(
    b: Address,
    commands: Receiver<Command>,
) -> (
    thread::JoinHandle<Result<Option<ProxyLog>, SessionError>>,
    Receiver<Entry>,
) {
    let (entries_tx, entries) = unbounded();
    let proxy = thread::spawn(move || {
        run_proxy(&"127.0.0.1:0".parse().unwrap(), &b, &commands, |entry| {
            let _ = entries_tx.send(entry);
            Ok(())
        })
    });
    (proxy, entries)
}

/// A game of eight moves each through the proxy: the log tells the request, the start, the
/// moves, the GAMEEND and its acknowledgement in words, and ends with no finding.
#[test]
fn the_log_of_a_correct_dialogue() {
    bounded(LIMIT, || {
        let (follower, follower_address) = listening_follower();
        let follower_address = Address::from(follower_address);
        let (_proxy_control, commands) = Control::new();
        let (proxy, entries) = spawn_proxy(follower_address, commands);
        let Ok(Entry::Listening { address }) = entries.recv() else {
            panic!("the proxy says where it listens first");
        };
        let plan = InitiatorConfig::series(1, Color::White, 0, 8, &[]);
        let initiator = connecting_initiator(address, plan);
        assert_eq!(initiator.games.len(), 1);
        let log = proxy.join().unwrap().unwrap().expect("A connected");
        follower.join().unwrap().unwrap();
        let lines: Vec<String> = entries.iter().map(|entry| entry.text()).collect();
        let text = lines.join("\n");
        assert!(lines[0].starts_with("A = 127.0.0.1:"), "{text}");
        for words in [
            "A asks for game 1: B plays black",
            "game 1 starts: A white, B black",
            "game 1: 1. ",
            "game 1: 8... ",
            "\"E01\"",
            "B acknowledges: game 1 over after 16 plies",
        ] {
            assert!(text.contains(words), "{words} in\n{text}");
        }
        assert!(!text.contains("!!"), "{text}");
        assert_eq!(log.findings(), 0);
        assert!(log.summary().text().ends_with(" 0 findings"));
    });
}

/// A stop while waiting for program A ends the wait: no log.
#[test]
fn a_stop_ends_the_wait() {
    bounded(LIMIT, || {
        let (control, commands) = Control::new();
        let (proxy, entries) = spawn_proxy("127.0.0.1:1".parse().unwrap(), commands);
        assert!(matches!(entries.recv(), Ok(Entry::Listening { .. })));
        control.stop();
        assert!(proxy.join().unwrap().unwrap().is_none());
    });
}

/// A stop once both programs are connected shuts both connections: both streams end, the
/// relay ends and the log comes back.
#[test]
fn a_stop_once_connected_shuts_both_connections() {
    bounded(LIMIT, || {
        let b = TcpListener::bind("127.0.0.1:0").unwrap();
        let b_address = Address::from(b.local_addr().unwrap());
        let (control, commands) = Control::new();
        let (proxy, entries) = spawn_proxy(b_address, commands);
        let Ok(Entry::Listening { address }) = entries.recv() else {
            panic!("the proxy says where it listens first");
        };
        let _a = TcpStream::connect(address).unwrap();
        let (_b, _) = b.accept().unwrap();
        assert!(matches!(entries.recv(), Ok(Entry::Connected { .. })));
        control.stop();
        let log = proxy.join().unwrap().unwrap().expect("both connected");
        assert_eq!(log.findings(), 0);
        let ends = entries
            .iter()
            .filter(|entry| matches!(entry, Entry::Closed { .. }))
            .count();
        assert_eq!(ends, 2);
    });
}

/// When A closes and B keeps its connection open, the proxy closes B after
/// [`CLOSE_WAIT`](damx_session::proxy::CLOSE_WAIT) and returns the log, with both streams
/// ended, instead of waiting for B for ever.
#[test]
fn a_program_that_stays_after_its_peer_left_is_closed() {
    bounded(LIMIT, || {
        let b = TcpListener::bind("127.0.0.1:0").unwrap();
        let b_address = Address::from(b.local_addr().unwrap());
        let (_control, commands) = Control::new();
        let (proxy, entries) = spawn_proxy(b_address, commands);
        let Ok(Entry::Listening { address }) = entries.recv() else {
            panic!("the proxy says where it listens first");
        };
        let a = TcpStream::connect(address).unwrap();
        let (_b, _) = b.accept().unwrap();
        assert!(matches!(entries.recv(), Ok(Entry::Connected { .. })));
        let left = std::time::Instant::now();
        drop(a);
        proxy.join().unwrap().unwrap().expect("both connected");
        let waited = left.elapsed();
        assert!(
            waited >= damx_session::proxy::CLOSE_WAIT - Duration::from_millis(100),
            "{waited:?}"
        );
        let ends = entries
            .iter()
            .filter(|entry| matches!(entry, Entry::Closed { .. }))
            .count();
        assert_eq!(ends, 2);
    });
}
