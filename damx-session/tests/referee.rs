//! One refereed game through the public API, over real sockets on 127.0.0.1: the built-in
//! engine against a DXP program that is already running (a damx session serving as Follower),
//! reached by connecting. Bounded in time.

use std::net::TcpListener;
use std::thread;
use std::time::Duration;

use crossbeam_channel::unbounded;
use damx_engine::{EngineOptions, Limits};
use damx_rules::{Color, Game, GameResult};
use damx_session::referee::{
    Adjudication, AdjudicationMethod, BuiltinPlayer, External, GameSetup, Instance, Participant,
    ParticipantKind, Reach, Reason, RefereeConfig, RefereeControl, RefereeEvent, StartOptions,
    play_game,
};
use damx_session::{
    Control, EnginePlayerOptions, FirstLegalPlayer, FollowerConfig, SessionConfig, accept,
    run_session,
};

/// The built-in engine (white) against a running Follower (black): every move is relayed
/// legally, the game ends with a verdict, both programs stay connected, and a second game on
/// the same connections works too.
#[test]
fn engine_against_a_running_program() {
    let (done, finished) = unbounded();
    thread::spawn(move || {
        // The "already running" program: a damx session as Follower, playing the first move.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let server = thread::spawn(move || {
            let mut config = SessionConfig::follower(FollowerConfig::default());
            config.frame_gap = Duration::ZERO;
            config.end_on_time = false;
            config.end_at_move_limit = false;
            let (_control, commands) = Control::new();
            let connection = accept(&listener, &config, &commands).unwrap().unwrap();
            let (events, _) = unbounded();
            let player = Box::new(FirstLegalPlayer::new("Running Program"));
            run_session(connection, &config, player, commands, events)
        });
        let engine = Participant {
            name: "engine".into(),
            kind: ParticipantKind::Builtin(BuiltinPlayer::Engine(Box::new(EnginePlayerOptions {
                engine: EngineOptions {
                    hash_mb: 2,
                    ..EngineOptions::default()
                },
                fixed: Some(Limits::depth(2)),
                ..EnginePlayerOptions::default()
            }))),
        };
        let running = Participant {
            name: "running".into(),
            kind: ParticipantKind::External(External {
                command: Vec::new(),
                dir: None,
                reach: Reach::Connect(address.to_string()),
            }),
        };
        let options = StartOptions {
            frame_gap: Duration::ZERO,
            ..StartOptions::default()
        };
        let mut white = Instance::start(&engine, &options).unwrap();
        let mut black = Instance::start(&running, &options).unwrap();
        let config = RefereeConfig {
            minutes: 0,
            move_timeout: Some(Duration::from_secs(5)),
            adjudication: Adjudication {
                max_moves: Some(60),
                method: AdjudicationMethod::Material { margin: 2 },
            },
            ..RefereeConfig::default()
        };
        let control = RefereeControl::new();
        let mut reports = Vec::new();
        for number in 1..=2 {
            let setup = GameSetup {
                number,
                names: ["engine".into(), "running".into()],
                start: None,
                stop_after: [false, number == 2],
            };
            let mut events = Vec::new();
            let report = play_game(
                &mut white,
                &mut black,
                &setup,
                &config,
                &control,
                &mut |event| events.push(event),
            );
            reports.push((report, events));
        }
        white.stop(Duration::from_secs(1));
        black.stop(Duration::from_secs(1));
        let session = server.join().unwrap();
        let _ = done.send((reports, session));
    });
    let (reports, session) = finished
        .recv_timeout(Duration::from_secs(60))
        .expect("two games within a minute");

    for (report, events) in &reports {
        assert!(
            report.verdict.disqualified.is_empty(),
            "{:?}",
            report.verdict
        );
        assert!(
            matches!(
                report.verdict.reason,
                Reason::NoMoves
                    | Reason::MoveCap
                    | Reason::Repetition
                    | Reason::KingMoves25
                    | Reason::Endgame16
                    | Reason::Endgame5
            ),
            "{:?}",
            report.verdict
        );
        assert_ne!(report.verdict.result, GameResult::Unfinished);
        let mut game = Game::default();
        for mv in &report.moves {
            game.try_play(*mv).expect("every recorded move is legal");
        }
        let moved = events
            .iter()
            .filter(|e| matches!(e, RefereeEvent::Moved { .. }))
            .count();
        assert_eq!(moved, report.moves.len());
        assert_eq!(
            report.dxp_names[Color::Black.index()].as_deref(),
            Some("Running Program")
        );
    }
    assert_eq!(
        reports[0].0.keep,
        [true, true],
        "both stay for the next game"
    );
    assert!(!reports[1].0.keep[1], "stop code 1 after the second");
    // The program saw both games and every move but the last, which ended each game.
    assert_eq!(session.games.len(), 2);
    for (game, (report, _)) in session.games.iter().zip(&reports) {
        assert!(report.moves.len() - game.moves.len() <= 1);
        assert_eq!(game.moves[..], report.moves[..game.moves.len()]);
    }
}

/// `--adjudicate egdb` over real sockets: two built-in engines start from four pieces with a
/// capture pending; the forced capture leaves three pieces, a quiet position within the 2–3-
/// piece databases (built here), and the referee ends the game there with their value.
#[test]
fn the_endgame_databases_decide_a_game_that_reaches_them() {
    use damx_engine::egdb::{BuildOptions, Egdb, SharedEgdb, build};

    let dir = std::env::temp_dir().join(format!("damx-referee-egdb-{}", std::process::id()));
    let options = BuildOptions {
        dir: dir.clone(),
        pieces: 3,
        memory_limit: None,
    };
    build(&options, &|_| {}).expect("the 2-3-piece build succeeds");
    let egdb = SharedEgdb::new(Egdb::open(&dir).expect("the databases open"));

    let (done, finished) = unbounded();
    thread::spawn(move || {
        let builtin = |name: &str| Participant {
            name: name.into(),
            kind: ParticipantKind::Builtin(BuiltinPlayer::Engine(Box::new(EnginePlayerOptions {
                engine: EngineOptions {
                    hash_mb: 2,
                    ..EngineOptions::default()
                },
                fixed: Some(Limits::depth(2)),
                ..EnginePlayerOptions::default()
            }))),
        };
        let options = StartOptions {
            frame_gap: Duration::ZERO,
            ..StartOptions::default()
        };
        let mut white = Instance::start(&builtin("first"), &options).unwrap();
        let mut black = Instance::start(&builtin("second"), &options).unwrap();
        let config = RefereeConfig {
            minutes: 0,
            move_timeout: Some(Duration::from_secs(5)),
            adjudication: Adjudication {
                max_moves: Some(60),
                method: AdjudicationMethod::Egdb {
                    egdb,
                    depth: 4,
                    threshold: 150,
                },
            },
            ..RefereeConfig::default()
        };
        let setup = GameSetup {
            number: 1,
            names: ["first".into(), "second".into()],
            start: Some("W:W28,40:B23,5".parse().unwrap()),
            stop_after: [true, true],
        };
        let mut events = Vec::new();
        let report = play_game(
            &mut white,
            &mut black,
            &setup,
            &config,
            &RefereeControl::new(),
            &mut |event| events.push(event),
        );
        white.stop(Duration::from_secs(1));
        black.stop(Duration::from_secs(1));
        let _ = done.send((report, events));
    });
    let (report, events) = finished
        .recv_timeout(Duration::from_secs(60))
        .expect("one game within a minute");
    let _ = std::fs::remove_dir_all(&dir);

    assert_eq!(report.verdict.reason, Reason::Egdb, "{:?}", report.verdict);
    assert_eq!(report.verdict.result, GameResult::WhiteWins);
    assert_eq!(
        report.verdict.detail,
        "endgame database: loss (6 plies to conversion) for black: white wins"
    );
    assert_eq!(report.moves.len(), 1, "decided after the forced capture");
    assert!(report.verdict.disqualified.is_empty());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RefereeEvent::Moved { text, .. } if text == "28x19")),
        "{events:?}"
    );
}
