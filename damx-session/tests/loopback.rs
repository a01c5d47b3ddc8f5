//! Two damx sessions against each other over real sockets on the loopback interface: whole
//! series in both socket directions (so each role both listens and connects), take-backs
//! accepted and declined, chat both ways, a stop on request, and IPv6.

mod common;

use std::net::{SocketAddr, TcpListener};
use std::thread;
use std::time::Duration;

use common::{
    GatedPlayer, bounded, connecting_initiator, drain, listening_follower, quick, temp_dir,
    wait_for,
};
use crossbeam_channel::unbounded;
use damx_rules::{Color, GameResult};
use damx_session::{
    CloseReason, Command, Control, Event, FirstLegalPlayer, FollowerConfig, InitiatorConfig,
    LoopbackSide, PdnTarget, RandomPlayer, SessionConfig, SessionReport, Side, TakeBackPolicy,
    Termination, accept, connect, play_loopback, run_session,
};

const LIMIT: Duration = Duration::from_secs(30);

fn side(config: SessionConfig, player: Box<dyn damx_session::Player>) -> LoopbackSide {
    let (_control, commands) = Control::new();
    // The control handle is dropped: the session simply gets no commands.
    let (events, _) = unbounded();
    LoopbackSide {
        config,
        player,
        control: commands,
        events,
    }
}

/// Both reports describe the same games, each played to a result the rules give.
fn assert_same_games(initiator: &SessionReport, follower: &SessionReport, games: usize) {
    assert_eq!(initiator.games.len(), games, "{:?}", initiator.close_reason);
    assert_eq!(follower.games.len(), games);
    for (a, b) in initiator.games.iter().zip(&follower.games) {
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.result, b.result);
        assert_eq!(a.termination, b.termination);
        assert_eq!((&a.white, &a.black), (&b.white, &b.black));
        assert_ne!(a.result, GameResult::Unfinished, "{}", a.termination);
    }
    assert_eq!(initiator.violations + follower.violations, 0);
}

/// A three-game series in both socket directions: the Initiator's last GAMEEND asks to stop,
/// colours alternate, every game ends by the rules, and the PDN files read back as played.
#[test]
fn series_in_both_socket_directions() {
    bounded(LIMIT, || {
        for initiator_listens in [false, true] {
            let dir = temp_dir(&format!("series-{initiator_listens}"));
            let mut initiator_config = quick(SessionConfig::initiator(InitiatorConfig::series(
                3,
                Color::White,
                0,
                0,
                &[],
            )));
            initiator_config.records.pdn = Some(PdnTarget::Directory(dir.clone()));
            let follower_config = quick(SessionConfig::follower(FollowerConfig::default()));
            let (initiator, follower) = play_loopback(
                side(initiator_config, Box::new(RandomPlayer::new("Random", 7))),
                side(follower_config, Box::new(FirstLegalPlayer::new("First"))),
                initiator_listens,
            )
            .unwrap();
            assert_same_games(&initiator, &follower, 3);
            assert_eq!(initiator.close_reason, CloseReason::SeriesComplete);
            assert_eq!(follower.close_reason, CloseReason::PeerStopped);
            let whites: Vec<&str> = initiator.games.iter().map(|g| g.white.as_str()).collect();
            assert_eq!(whites, ["Random", "First", "Random"]);
            assert!(initiator.peer.is_some_and(|peer| peer.ip().is_loopback()));
            assert_eq!(initiator.saved.len(), 3);
            for (path, game) in initiator.saved.iter().zip(&initiator.games) {
                let text = std::fs::read_to_string(path).unwrap();
                let read = damx_rules::pdn::parse_games(&text).unwrap();
                assert_eq!(read[0].moves, game.moves);
                assert_eq!(read[0].result, game.result);
                assert_eq!(read[0].tag("Round"), Some(game.number.to_string().as_str()));
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
    });
}

/// A session told not to keep its games (`keep_games: false`, as a referee's built-in
/// participant is) plays the same series but its report holds none of them; records that
/// cannot be saved (a directory under a plain file) are counted, and the games go on.
#[test]
fn a_session_without_kept_games() {
    bounded(LIMIT, || {
        let dir = temp_dir("unsaved");
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("plain");
        std::fs::write(&plain, "").unwrap();
        let initiator_config = quick(SessionConfig::initiator(InitiatorConfig::series(
            3,
            Color::White,
            0,
            0,
            &[],
        )));
        let mut follower_config = quick(SessionConfig::follower(FollowerConfig::default()));
        follower_config.keep_games = false;
        follower_config.records.pdn = Some(PdnTarget::Directory(plain.join("games")));
        let (initiator, follower) = play_loopback(
            side(initiator_config, Box::new(RandomPlayer::new("Random", 7))),
            side(follower_config, Box::new(FirstLegalPlayer::new("First"))),
            false,
        )
        .unwrap();
        assert_eq!(initiator.games.len(), 3);
        assert!(follower.games.is_empty());
        assert_eq!(follower.close_reason, CloseReason::PeerStopped);
        assert_eq!((initiator.records_failed, follower.records_failed), (0, 3));
        assert!(follower.saved.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// Take-back accepted (K0) and declined (K2), chat both ways, and a stop asked on the peer's
/// turn that goes out as E01 on ours: all over a real socket, with the moves paced by hand.
#[test]
fn take_backs_chat_and_stop() {
    bounded(LIMIT, || {
        let (white, open_white) = GatedPlayer::new("White", TakeBackPolicy::Accept);
        let (black, open_black) = GatedPlayer::new("Black", TakeBackPolicy::Decline);
        let (i_control, i_commands) = Control::new();
        let (f_control, f_commands) = Control::new();
        let (i_events_tx, i_events) = unbounded();
        let (f_events_tx, f_events) = unbounded();
        let initiator = LoopbackSide {
            config: quick(SessionConfig::initiator(InitiatorConfig::series(
                1,
                Color::White,
                0,
                0,
                &[],
            ))),
            player: Box::new(white),
            control: i_commands,
            events: i_events_tx,
        };
        let follower = LoopbackSide {
            config: quick(SessionConfig::follower(FollowerConfig::default())),
            player: Box::new(black),
            control: f_commands,
            events: f_events_tx,
        };
        let match_thread = thread::spawn(move || play_loopback(initiator, follower, false));

        let ply_seen = |events: &crossbeam_channel::Receiver<Event>, ply: usize| {
            wait_for(events, |e| match e {
                Event::MovePlayed(m) if m.ply == ply => Some(()),
                _ => None,
            })
        };
        for ply in 1..=4 {
            let gate = if ply % 2 == 1 {
                &open_white
            } else {
                &open_black
            };
            gate.send(ply - 1).unwrap();
            ply_seen(&f_events, ply);
            ply_seen(&i_events, ply);
        }

        // White (the Initiator) is thinking; the Follower asks to go back to ply 2: accepted.
        assert!(f_control.take_back(2));
        let taken = |events: &crossbeam_channel::Receiver<Event>| {
            wait_for(events, |e| match e {
                Event::TakeBackDone {
                    requested_by, ply, ..
                } => Some((*requested_by, *ply)),
                _ => None,
            })
        };
        assert_eq!(taken(&f_events), (Side::Us, 2));
        assert_eq!(taken(&i_events), (Side::Peer, 2));

        // The Initiator asks to go back to the start: the Follower declines.
        assert!(i_control.take_back(0));
        let refused = wait_for(&i_events, |e| match e {
            Event::TakeBackRefused {
                requested_by, code, ..
            } => Some((*requested_by, *code)),
            _ => None,
        });
        assert_eq!(refused, (Side::Us, damx_wire::BackAccCode::Declined));

        // Chat both ways.
        assert!(i_control.chat("hello from white"));
        assert!(f_control.send(Command::Chat("hello from black".into())));
        let heard = |events: &crossbeam_channel::Receiver<Event>| {
            wait_for(events, |e| match e {
                Event::ChatReceived(text) => Some(text.clone()),
                _ => None,
            })
        };
        assert_eq!(heard(&f_events), "hello from white");
        assert_eq!(heard(&i_events), "hello from black");

        // The Follower stops on White's turn: it waits, then ends on its own turn.
        assert!(f_control.stop());
        wait_for(&f_events, |e| {
            matches!(e, Event::EndPending { stop: true, .. }).then_some(())
        });
        open_white.send(2).unwrap();

        let (initiator, follower) = match_thread.join().unwrap().unwrap();
        // Its one game played, the Initiator was done anyway.
        assert_eq!(initiator.close_reason, CloseReason::SeriesComplete);
        assert_eq!(follower.close_reason, CloseReason::StopRequested);
        assert_eq!(follower.games.len(), 1);
        let game = &follower.games[0];
        assert_eq!(game.moves.len(), 3, "two plies kept, one more played");
        assert_eq!(game.termination, Termination::Ended { by: Color::Black });
        assert_eq!(game.moves, initiator.games[0].moves);
        let rest = drain(&i_events);
        assert!(matches!(rest.last(), Some(Event::Closed(_))), "{rest:?}");
    });
}

/// A whole game over IPv6 (::1): the Follower listens, the Initiator connects.
#[test]
fn ipv6_loopback_game() {
    bounded(LIMIT, || {
        let listener = TcpListener::bind(SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, 0)))
            .expect("this machine has ::1");
        let address = listener.local_addr().unwrap();
        assert!(address.is_ipv6());
        let follower_config = quick(SessionConfig::follower(FollowerConfig::default()));
        let follower = thread::spawn(move || {
            let (_control, commands) = Control::new();
            let (events, _) = unbounded();
            let connection = accept(&listener, &follower_config, &commands)
                .unwrap()
                .unwrap();
            run_session(
                connection,
                &follower_config,
                Box::new(FirstLegalPlayer::new("Six")),
                commands,
                events,
            )
        });
        let config = quick(SessionConfig::initiator(InitiatorConfig::default()));
        let connection = connect(address, &config, Duration::from_secs(5)).unwrap();
        let (_control, commands) = Control::new();
        let (events, _) = unbounded();
        let initiator = run_session(
            connection,
            &config,
            Box::new(RandomPlayer::new("Four", 3)),
            commands,
            events,
        );
        let follower = follower.join().unwrap();
        assert_same_games(&initiator, &follower, 1);
        assert!(initiator.peer.unwrap().is_ipv6());
        assert_eq!(initiator.close_reason, CloseReason::SeriesComplete);
    });
}

/// The engine at a small fixed depth against a random player, over TCP, both colours: every
/// game is played out and the engine wins it.
#[test]
fn engine_game_over_tcp() {
    bounded(LIMIT, || {
        let engine = damx_session::EnginePlayer::new(damx_session::EnginePlayerOptions {
            name: "damx engine".into(),
            engine: damx_engine::EngineOptions {
                hash_mb: 4,
                ..damx_engine::EngineOptions::default()
            },
            fixed: Some(damx_engine::Limits::depth(3)),
            ..damx_session::EnginePlayerOptions::default()
        });
        let series = InitiatorConfig::series(2, Color::White, 0, 0, &[]);
        let (initiator, follower) = play_loopback(
            side(quick(SessionConfig::initiator(series)), Box::new(engine)),
            side(
                quick(SessionConfig::follower(FollowerConfig::default())),
                Box::new(RandomPlayer::new("Random", 11)),
            ),
            false,
        )
        .unwrap();
        assert_same_games(&initiator, &follower, 2);
        for game in &initiator.games {
            let engine_color = if game.white == "damx engine" {
                Color::White
            } else {
                Color::Black
            };
            let won = match engine_color {
                Color::White => GameResult::WhiteWins,
                Color::Black => GameResult::BlackWins,
            };
            assert_eq!(game.result, won, "{}", game.termination);
        }
    });
}

/// `run` with `Endpoint::Listen` says where it listens (the port chosen for port 0) before it
/// waits, and plays the series with the session that `run` with `Endpoint::Connect` brings
/// there.
#[test]
fn run_says_where_it_listens_and_plays_who_connects() {
    bounded(LIMIT, || {
        let (listening, address) = listening_follower();
        assert_ne!(address.port(), 0);
        let plan = InitiatorConfig::series(2, Color::White, 0, 0, &[]);
        let initiator = connecting_initiator(address, plan);
        let follower = listening.join().unwrap().expect("the listener is up");
        assert_same_games(&initiator, &follower, 2);
    });
}
