//! Matches and tournaments over real sockets on 127.0.0.1, with built-in players and with
//! deliberately broken external programs (tests/programs/broken_follower.py, run by python3):
//! every game is refereed to a verdict, forfeits carry the right reason, broken programs are
//! restarted, nothing is lost, and an interrupted run resumes without playing a game twice.
//! Every test runs under a hard time limit.

use std::collections::BTreeSet;
use std::fs;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::thread;
use std::time::Duration;

use crossbeam_channel::unbounded;
use damx_engine::{EngineOptions, Limits};
use damx_session::EnginePlayerOptions;
use damx_session::referee::{
    Adjudication, AdjudicationMethod, BuiltinPlayer, External, Participant, ParticipantKind, Reach,
    Reason, RefereeConfig, StartOptions,
};
use damx_session::tournament::spec::{ParticipantSpec, name_participants};
use damx_session::tournament::{
    EndKind, Format, GameLine, Opening, TournamentConfig, TournamentControl, TournamentEvent,
    TournamentReport, run_tournament,
};

/// Runs `test` on its own thread and fails if it takes longer than `limit`.
fn bounded<T: Send + 'static>(limit: Duration, test: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = unbounded();
    thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(test)));
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the test did not finish within {limit:?}"),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damx-tournament-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn engine(name: &str, depth: u32) -> Participant {
    Participant {
        name: name.to_owned(),
        kind: ParticipantKind::Builtin(BuiltinPlayer::Engine(Box::new(EnginePlayerOptions {
            engine: EngineOptions {
                hash_mb: 2,
                ..EngineOptions::default()
            },
            fixed: Some(Limits::depth(depth)),
            ..EnginePlayerOptions::default()
        }))),
    }
}

fn random(name: &str, seed: u64) -> Participant {
    Participant {
        name: name.to_owned(),
        kind: ParticipantKind::Builtin(BuiltinPlayer::Random { seed }),
    }
}

/// The broken program in `mode`, reached by connecting (it listens on `{port}`) or by
/// listening (it connects to our `{port}`).
fn broken(mode: &str, we_listen: bool) -> Participant {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/broken_follower.py"
    );
    let how = if we_listen { "--connect" } else { "--listen" };
    Participant {
        name: mode.to_owned(),
        kind: ParticipantKind::External(External {
            command: ["python3", script, mode, how, "{port}"]
                .map(str::to_owned)
                .to_vec(),
            dir: Some(std::env::temp_dir()),
            reach: if we_listen {
                Reach::Listen(SocketAddr::from(([127, 0, 0, 1], 0)))
            } else {
                Reach::Connect("127.0.0.1:{port}".to_owned())
            },
        }),
    }
}

/// Quick settings: no clock, a 1 s silence limit, a short cap adjudicated by material, no gap
/// between frames, a short grace to stop programs.
fn quick(participants: Vec<Participant>, format: Format, games: u32) -> TournamentConfig {
    TournamentConfig {
        name: "test".into(),
        participants,
        format,
        games: Some(games),
        referee: RefereeConfig {
            minutes: 0,
            move_timeout: Some(Duration::from_secs(1)),
            reply_timeout: Duration::from_secs(5),
            adjudication: Adjudication {
                max_moves: Some(30),
                method: AdjudicationMethod::Material { margin: 2 },
            },
            ..RefereeConfig::default()
        },
        start: StartOptions {
            grace: Duration::from_millis(300),
            frame_gap: Duration::ZERO,
            ..StartOptions::default()
        },
        ..TournamentConfig::default()
    }
}

/// Runs the series on this thread; returns the report and every event line.
fn run(config: &TournamentConfig, control: &TournamentControl) -> (TournamentReport, Vec<String>) {
    let (events, lines) = unbounded();
    let report = run_tournament(config, control, &events).expect("the series runs");
    drop(events);
    (
        report,
        lines.iter().map(|event| event.to_string()).collect(),
    )
}

fn lines_starting<'a>(lines: &'a [String], word: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|line| line.split(' ').next() == Some(word))
        .map(String::as_str)
        .collect()
}

/// A gauntlet of the engine against a random mover and three broken programs (reached both
/// ways): each broken program forfeits both its games with the right reason, the ones that
/// were disconnected are restarted for their second game, every game is in the PDN and the
/// results file exactly once, and the series completes.
#[test]
fn broken_programs_forfeit_and_are_restarted() {
    bounded(Duration::from_secs(90), || {
        let dir = temp_dir("broken");
        let mut config = quick(
            vec![
                engine("engine", 2),
                random("random", 7),
                broken("illegal", false),
                broken("silent", true),
                broken("crash", false),
            ],
            Format::Gauntlet { seeds: 1 },
            2,
        );
        config.pdn = Some(dir.join("games.pdn"));
        config.results = Some(dir.join("results.jsonl"));
        let (report, lines) = run(&config, &TournamentControl::new());

        assert_eq!(report.end, EndKind::Complete, "{lines:#?}");
        assert_eq!(report.games.len(), 8);
        let reason_of = |n: usize| report.games[n - 1].reason.as_str();
        assert_eq!(
            (3..=8).map(reason_of).collect::<Vec<_>>(),
            [
                "illegal-move",
                "illegal-move",
                "silent",
                "silent",
                "crash",
                "crash"
            ],
            "{lines:#?}"
        );
        for game in &report.games[2..] {
            let loser = if game.white == "engine" {
                &game.black
            } else {
                &game.white
            };
            assert_eq!(&game.disqualified, std::slice::from_ref(loser), "{game:?}");
            let engine_won = if game.white == "engine" { "2-0" } else { "0-2" };
            assert_eq!(game.result, engine_won, "{game:?}");
        }
        for crash in &report.games[6..] {
            assert!(crash.detail.contains("exited"), "{crash:?}");
            assert!(
                crash.plies >= 2,
                "the crash comes mid-game, after a move each"
            );
        }

        let disqualified = lines_starting(&lines, "DISQUALIFICATION");
        assert_eq!(disqualified.len(), 6, "{disqualified:#?}");
        assert!(disqualified[0].starts_with("DISQUALIFICATION 3 illegal illegal-move M0000010200"));
        let restarts = lines_starting(&lines, "RESTART");
        assert_eq!(restarts, ["RESTART silent silent", "RESTART crash crash"]);
        let participants = lines_starting(&lines, "PARTICIPANT");
        assert!(participants.contains(&"PARTICIPANT 3 illegal Broken illegal"));
        assert_eq!(lines.last().map(String::as_str), Some("END complete"));

        // Nothing lost: every game once in the results file and in the PDN.
        let results = fs::read_to_string(dir.join("results.jsonl")).unwrap();
        let numbers: Vec<u32> = GameLine::read_all(&results)
            .unwrap()
            .iter()
            .map(|line| line.game)
            .collect();
        assert_eq!(numbers, (1..=8).collect::<Vec<_>>());
        let pdn = fs::read_to_string(dir.join("games.pdn")).unwrap();
        let games = damx_rules::pdn::parse_games(&pdn).unwrap();
        assert_eq!(games.len(), 8);
        assert_eq!(
            games[2]
                .tag("Termination")
                .map(|t| t.starts_with("illegal-move")),
            Some(true)
        );

        let top = &report.standings[0];
        assert_eq!(top.name, "engine");
        assert!(top.points >= 12, "{:?}", report.standings);
        let _ = fs::remove_dir_all(&dir);
    });
}

/// A refusal forfeits the game; a program that cannot be started forfeits with `no-start` and
/// the series goes on.
#[test]
fn refusals_and_programs_that_do_not_start() {
    bounded(Duration::from_secs(60), || {
        let missing = Participant {
            name: "missing".into(),
            kind: ParticipantKind::External(External {
                command: vec!["/nonexistent/engine".into()],
                dir: None,
                reach: Reach::Connect("127.0.0.1:{port}".into()),
            }),
        };
        let config = quick(
            vec![random("random", 1), broken("refuse", true), missing],
            Format::Gauntlet { seeds: 1 },
            2,
        );
        let (report, lines) = run(&config, &TournamentControl::new());
        let reasons: Vec<&str> = report.games.iter().map(|g| g.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["refused", "refused", "no-start", "no-start"],
            "{lines:#?}"
        );
        assert!(
            report
                .games
                .iter()
                .all(|g| g.result != "1-1" && g.result != "*")
        );
        assert_eq!(report.standings[0].name, "random");
        assert_eq!(report.standings[0].points, 8);
        assert!(lines_starting(&lines, "DISQUALIFICATION")[2].contains("cannot start"));
    });
}

/// Built-in players with different settings, two games at once: every game is played once,
/// each opening with both colours, the points add up, and no copy is reported restarted
/// (each worker runs copies of its own; one worker's copy closing at the end is not another's
/// restart).
#[test]
fn builtin_round_robin_with_concurrency() {
    bounded(Duration::from_secs(90), || {
        let mut config = quick(
            vec![
                engine("depth1", 1),
                engine("depth2", 2),
                random("random", 3),
            ],
            Format::RoundRobin,
            4,
        );
        config.concurrency = 2;
        config.openings = Opening::ballots()[..2].to_vec();
        config.moves = true;
        let (report, lines) = run(&config, &TournamentControl::new());
        assert_eq!(report.end, EndKind::Complete);
        assert_eq!(report.games.len(), 12);
        assert_eq!(report.finished, 12);
        assert_eq!(report.records_failed, 0);
        let numbers: BTreeSet<u32> = report.games.iter().map(|g| g.game).collect();
        assert_eq!(numbers.len(), 12);
        let points: u32 = report.standings.iter().map(|s| s.points).sum();
        let decided = report.games.iter().filter(|g| g.result != "*").count() as u32;
        assert_eq!(points, 2 * decided);
        assert_eq!(lines_starting(&lines, "BEGIN").len(), 12);
        assert_eq!(lines_starting(&lines, "RESULT").len(), 12);
        assert_eq!(lines_starting(&lines, "RESTART"), Vec::<&str>::new());
        let moves = lines_starting(&lines, "MOVE").len();
        let plies: usize = report.games.iter().map(|g| g.plies).sum();
        assert_eq!(moves, plies);
        for game in &report.games {
            assert_ne!(game.opening, "start");
            let mut replay = damx_rules::Game::default();
            for text in game
                .opening
                .split(',')
                .chain(game.moves.iter().map(String::as_str))
            {
                let mv = replay.position().parse_move(text).expect("a legal move");
                replay.play(mv);
            }
        }
    });
}

/// Interrupted after two results, then resumed from the results file: the games of the first
/// run are not played again, and together the runs have every game once; a results file from
/// other settings or another schedule is refused.
#[test]
fn interrupt_and_resume() {
    bounded(Duration::from_secs(90), || {
        let dir = temp_dir("resume");
        let mut config = quick(vec![engine("a", 1), random("b", 5)], Format::Match, 6);
        config.results = Some(dir.join("results.jsonl"));
        config.pdn = Some(dir.join("games.pdn"));

        let control = TournamentControl::new();
        let (events, seen) = unbounded();
        let first = {
            let (config, control) = (config.clone(), control.clone());
            thread::spawn(move || run_tournament(&config, &control, &events).unwrap())
        };
        let mut results = 0;
        for event in seen {
            if matches!(event, TournamentEvent::Result { .. }) {
                results += 1;
                if results == 2 {
                    control.finish();
                }
            }
        }
        let first = first.join().unwrap();
        assert_eq!(first.end, EndKind::Interrupted);
        let played_first: BTreeSet<u32> = first.games.iter().map(|g| g.game).collect();
        assert!((2..6).contains(&played_first.len()), "{played_first:?}");

        // A fresh run refuses to append to a file with results.
        let (events, _) = unbounded();
        assert!(run_tournament(&config, &TournamentControl::new(), &events).is_err());

        config.resume = true;
        let (second, lines) = run(&config, &TournamentControl::new());
        assert_eq!(second.end, EndKind::Complete);
        assert_eq!(second.games.len(), 6);
        let begun: BTreeSet<u32> = lines_starting(&lines, "BEGIN")
            .iter()
            .map(|line| line.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        assert!(begun.is_disjoint(&played_first), "replayed: {begun:?}");
        assert_eq!(lines_starting(&lines, "RESUMED").len(), played_first.len());
        let text = fs::read_to_string(dir.join("results.jsonl")).unwrap();
        let mut numbers: Vec<u32> = GameLine::read_all(&text)
            .unwrap()
            .iter()
            .map(|l| l.game)
            .collect();
        numbers.sort_unstable();
        assert_eq!(numbers, (1..=6).collect::<Vec<_>>());
        let pdn = fs::read_to_string(dir.join("games.pdn")).unwrap();
        assert_eq!(damx_rules::pdn::parse_games(&pdn).unwrap().len(), 6);

        // A crash in the middle of the last write: the results line is cut short and the
        // game's PDN is there whole, with half of another after it. Resuming repairs both
        // with a warning, plays that game again, and has every game once.
        let results = dir.join("results.jsonl");
        let text = fs::read_to_string(&results).unwrap();
        let last = text.trim_end().rfind('\n').unwrap() + 1;
        let cut_game = GameLine::read_all(&text[last..]).unwrap()[0].game;
        fs::write(&results, &text[..last + 30]).unwrap();
        let pdn_text = fs::read_to_string(dir.join("games.pdn")).unwrap();
        let half = &pdn_text[..pdn_text.len() / 2];
        fs::write(dir.join("games.pdn"), format!("{pdn_text}{half}")).unwrap();
        let (third, lines) = run(&config, &TournamentControl::new());
        assert_eq!(third.end, EndKind::Complete);
        let warnings = lines_starting(&lines, "WARNING");
        assert_eq!(warnings.len(), 2, "{lines:?}");
        assert!(warnings[0].contains("cut short"), "{warnings:?}");
        let begun = lines_starting(&lines, "BEGIN");
        assert_eq!(begun.len(), 1, "{begun:?}");
        assert!(
            begun[0].starts_with(&format!("BEGIN {cut_game} ")),
            "{begun:?}"
        );
        let text = fs::read_to_string(&results).unwrap();
        let mut numbers: Vec<u32> = GameLine::read_all(&text)
            .unwrap()
            .iter()
            .map(|l| l.game)
            .collect();
        numbers.sort_unstable();
        assert_eq!(numbers, (1..=6).collect::<Vec<_>>());
        let pdn = fs::read_to_string(dir.join("games.pdn")).unwrap();
        let mut rounds: Vec<String> = damx_rules::pdn::parse_games(&pdn)
            .unwrap()
            .iter()
            .map(|game| game.tag("Round").unwrap().to_owned())
            .collect();
        rounds.sort_unstable();
        assert_eq!(rounds, ["1", "2", "3", "4", "5", "6"]);

        // A game of another event in the PDN file is left alone by a resume.
        let other_event = "[Event \"another event\"]\n[Round \"99\"]\n[Result \"*\"]\n\n*\n\n";
        let pdn_text = fs::read_to_string(dir.join("games.pdn")).unwrap();
        fs::write(dir.join("games.pdn"), format!("{other_event}{pdn_text}")).unwrap();
        let (fourth, _) = run(&config, &TournamentControl::new());
        assert_eq!(fourth.end, EndKind::Complete);
        let pdn = fs::read_to_string(dir.join("games.pdn")).unwrap();
        assert!(pdn.starts_with(other_event), "{pdn}");

        // Two lines for one game are refused, and the file is left as it is.
        let text = fs::read_to_string(&results).unwrap();
        let doubled = format!("{text}{}", text.lines().next().unwrap());
        fs::write(&results, &doubled).unwrap();
        let (events, _) = unbounded();
        let error = run_tournament(&config, &TournamentControl::new(), &events).unwrap_err();
        assert!(error.to_string().contains("two lines"), "{error}");
        assert_eq!(fs::read_to_string(&results).unwrap(), doubled);
        fs::write(&results, &text).unwrap();

        // A file that is no results file is refused before anything is cut from it.
        let mut unrelated = config.clone();
        let precious = dir.join("precious.txt");
        fs::write(&precious, "first line\nsecond line without its end").unwrap();
        unrelated.results = Some(precious.clone());
        let (events, _) = unbounded();
        assert!(run_tournament(&unrelated, &TournamentControl::new(), &events).is_err());
        assert_eq!(
            fs::read_to_string(&precious).unwrap(),
            "first line\nsecond line without its end"
        );

        // A results file from other settings is refused: another move cap...
        let mut other = config.clone();
        other.referee.adjudication.max_moves = Some(31);
        let (events, _) = unbounded();
        let error = run_tournament(&other, &TournamentControl::new(), &events).unwrap_err();
        assert!(error.to_string().contains("other settings"), "{error}");
        // ...or another schedule.
        config.participants.swap(0, 1);
        let (events, _) = unbounded();
        let error = run_tournament(&config, &TournamentControl::new(), &events).unwrap_err();
        assert!(
            error.to_string().contains("not in this schedule"),
            "{error}"
        );
        let _ = fs::remove_dir_all(&dir);
    });
}

/// An SPRT between a searching engine and a random mover accepts H1 and stops by itself; it
/// counts pairs of games.
#[test]
fn sprt_stops_when_it_decides() {
    bounded(Duration::from_secs(90), || {
        let mut config = quick(
            vec![engine("engine", 2), random("random", 9)],
            Format::Match,
            0,
        );
        config.games = Some(200);
        config.sprt = Some(damx_session::tournament::SprtConfig {
            elo0: 0.0,
            elo1: 200.0,
            alpha: 0.1,
            beta: 0.1,
        });
        let (report, lines) = run(&config, &TournamentControl::new());
        assert_eq!(
            report.end,
            EndKind::Sprt(damx_session::tournament::Hypothesis::H1),
            "{lines:#?}"
        );
        assert!(report.games.len() < 200, "{}", report.games.len());
        // The test counts pairs of games, one opening with colours swapped.
        let pairs = report.sprt.map_or(0, |sprt| sprt.pairs.pairs() as usize);
        assert!(
            pairs > 0 && pairs * 2 <= report.games.len(),
            "{pairs} pairs"
        );
        assert!(
            lines
                .iter()
                .any(|line| line.ends_with(" h1") && line.starts_with("SPRT "))
        );
        assert_eq!(lines.last().map(String::as_str), Some("END h1"));
        let games = lines_starting(&lines, "GAME").len();
        assert!(
            games >= report.games.len(),
            "GAME lines come as games are scheduled"
        );
    });
}

/// Abort ends the running game at once: it is reported `*`, not recorded.
#[test]
fn abort_ends_the_running_game() {
    bounded(Duration::from_secs(60), || {
        let mut config = quick(
            vec![engine("a", 1), broken("silent", true)],
            Format::Match,
            2,
        );
        config.referee.move_timeout = Some(Duration::from_secs(30));
        let control = TournamentControl::new();
        let (events, seen) = unbounded();
        let runner = {
            let (config, control) = (config.clone(), control.clone());
            thread::spawn(move || run_tournament(&config, &control, &events).unwrap())
        };
        let mut lines = Vec::new();
        for event in seen {
            if matches!(event, TournamentEvent::Begin { .. }) {
                // The silent program would hold the game for 30 s.
                thread::sleep(Duration::from_millis(200));
                control.abort();
            }
            lines.push(event.to_string());
        }
        let report = runner.join().unwrap();
        assert!(report.games.is_empty());
        assert_eq!(report.end, EndKind::Interrupted);
        assert!(
            lines.contains(
                &"RESULT 1 * aborted not recorded; it is played again on resume".to_owned()
            ),
            "{lines:#?}"
        );
        let _ = Reason::Aborted;
    });
}

/// The event stream of a deterministic match (players that do not search, one game at a
/// time), word for word.
#[test]
fn event_stream_snapshot() {
    let lines = bounded(Duration::from_secs(60), || {
        let first = Participant {
            name: "first".into(),
            kind: ParticipantKind::Builtin(BuiltinPlayer::FirstLegal),
        };
        let mut config = quick(vec![first, random("random", 11)], Format::Match, 4);
        config.referee.adjudication.max_moves = Some(20);
        config.openings = vec![
            Opening::initial(),
            Opening::from_position("W:W31-48:B3-20".parse().unwrap()),
        ];
        run(&config, &TournamentControl::new()).1
    });
    insta::assert_snapshot!(lines.join("\n"));
}

/// The standings line of `--json`, to the letter: Elo to one decimal, `null` where it is not
/// finite; records that could not be saved, in words.
#[test]
fn the_standings_serialize_as_one_json_line() {
    use damx_engine::gauntlet::{EloEstimate, Tally};
    use damx_session::tournament::{EndKind, Standing, TournamentReport};
    let standing = |rank, name: &str, wins, losses, elo| Standing {
        rank,
        name: name.to_owned(),
        points: 2 * wins,
        tally: Tally {
            wins,
            draws: 0,
            losses,
        },
        elo: Some(EloEstimate {
            elo,
            margin: f64::INFINITY,
        }),
    };
    let report = TournamentReport {
        games: Vec::new(),
        standings: vec![
            standing(1, "a", 1, 0, 123.456),
            standing(2, "b", 0, 1, -123.456),
        ],
        reasons: Vec::new(),
        sprt: None,
        end: EndKind::Complete,
        scheduled: Some(2),
        finished: 0,
        records_failed: 0,
    };
    assert_eq!(
        serde_json::to_string(&report).unwrap(),
        concat!(
            r#"{"end":"complete","games":0,"reasons":{},"standings":["#,
            r#"{"drawn":0,"elo":123.5,"elo_margin":null,"games":1,"lost":0,"name":"a","points":2,"rank":1,"won":1},"#,
            r#"{"drawn":0,"elo":-123.5,"elo_margin":null,"games":1,"lost":1,"name":"b","points":0,"rank":2,"won":0}"#,
            r#"],"type":"standings"}"#
        )
    );
    assert_eq!(report.records_trouble(), None);
    let standings = serde_json::to_string(&report).unwrap();
    assert_eq!(report.json_lines(), standings + "\n");
    let failed = TournamentReport {
        finished: 3,
        records_failed: 2,
        ..report
    };
    let trouble = "2 of 3 game records could not be saved (the first failure is reported above)";
    assert_eq!(failed.records_trouble().as_deref(), Some(trouble));
}

/// Without `keep_games` the report keeps no game line, only the counts: a long series takes
/// no memory per game. The tallies and reasons are the same.
#[test]
fn a_series_without_kept_games_counts_them() {
    bounded(Duration::from_secs(60), || {
        let mut config = quick(vec![engine("one", 1), random("two", 5)], Format::Match, 4);
        let (kept, _) = run(&config, &TournamentControl::new());
        config.keep_games = false;
        let (counted, _) = run(&config, &TournamentControl::new());
        assert_eq!(kept.games.len(), 4);
        assert!(counted.games.is_empty());
        assert_eq!(counted.finished, 4);
        assert_eq!(counted.end, EndKind::Complete);
        let games =
            |report: &TournamentReport| -> u32 { report.reasons.iter().map(|(_, n)| n).sum() };
        assert_eq!(games(&counted), 4);
        assert_eq!(games(&kept), 4);
        // The JSON output: a line a kept game, then the standings.
        let json = kept.json_lines();
        assert_eq!(json.lines().count(), 5, "{json}");
        assert!(
            json.lines()
                .last()
                .unwrap()
                .contains(r#""type":"standings""#)
        );
    });
}

/// A program given by a path relative to a relative working directory (`dir=`, here from the
/// package root where the tests run) starts: the directory is taken from where the series
/// runs, once, not again from inside itself. The program (the illegal-move script) is reached
/// and forfeits on the board, not for failing to start.
#[cfg(unix)]
#[test]
fn a_program_in_a_relative_directory_starts() {
    bounded(Duration::from_secs(60), || {
        let spec = "name=rel,cmd=./broken_follower.py illegal --connect {port},dir=tests/programs,\
                    listen";
        let rel = spec
            .parse::<ParticipantSpec>()
            .expect("an external participant");
        let mut participants = name_participants(vec![rel]);
        participants.push(engine("engine", 1));
        let (report, lines) = run(
            &quick(participants, Format::Match, 2),
            &TournamentControl::new(),
        );
        let reasons: Vec<&str> = report
            .games
            .iter()
            .map(|game| game.reason.as_str())
            .collect();
        assert_eq!(reasons, ["illegal-move", "illegal-move"], "{lines:#?}");
    });
}

/// An opponent that forfeits every game at once (an illegal first move) ends half the games
/// before the built-in player's first move, faster than a peer's noise budget allows: the
/// referee's own built-in player takes them all, and is never disconnected and restarted.
#[test]
fn instant_forfeits_do_not_disconnect_a_builtin_player() {
    bounded(Duration::from_secs(90), || {
        let participants = vec![random("random", 3), broken("illegal", false)];
        let config = quick(participants, Format::Match, 60);
        let (report, lines) = run(&config, &TournamentControl::new());
        assert_eq!(report.end, EndKind::Complete, "{lines:#?}");
        assert_eq!(report.games.len(), 60);
        assert!(lines_starting(&lines, "RESTART").is_empty(), "{lines:#?}");
        assert!(
            report
                .games
                .iter()
                .all(|game| game.reason == "illegal-move"),
            "{lines:#?}"
        );
    });
}

/// A Hub engine whose program cannot start is disqualified as one that did not start, with the
/// system's reason, not scored as a player that gives up its games.
#[test]
fn a_hub_engine_that_cannot_start_is_no_start() {
    bounded(Duration::from_secs(60), || {
        let hub = "hub:/nonexistent/damx-hub-engine,name=missing"
            .parse::<ParticipantSpec>()
            .expect("a Hub participant");
        let mut participants = name_participants(vec![hub]);
        participants.push(random("random", 1));
        let config = quick(participants, Format::Match, 1);
        let (_, lines) = run(&config, &TournamentControl::new());
        assert!(
            lines.iter().any(|line| line.starts_with("DISQUALIFICATION")
                && line.contains(" missing no-start ")
                && line.contains("cannot start /nonexistent/damx-hub-engine")),
            "{lines:#?}"
        );
        let results = lines_starting(&lines, "RESULT");
        assert!(!results.is_empty());
        assert!(
            results.iter().all(|line| line.contains("no-start")),
            "{results:#?}"
        );
    });
}

/// A Hub engine that crashes, hangs or sends a move that is not legal loses each game by
/// giving it up, in bounded time, and the match goes on to the end: no points, and the PDN
/// says it gave up.
#[cfg(unix)]
#[test]
fn broken_hub_engines_lose_their_games() {
    bounded(Duration::from_secs(120), || {
        let dir = temp_dir("broken-hub");
        for (kind, answer) in [
            ("crash", "exit 3"),
            ("hang", "sleep 60"),
            ("illegal", "echo 'done move=1-2'"),
        ] {
            let script = dir.join(format!("{kind}.sh"));
            fs::write(
                &script,
                format!(
                    "while read cmd rest; do case $cmd in hub) echo wait;; init) echo ready;; \
                     go) {answer};; quit) exit 0;; esac; done\n"
                ),
            )
            .unwrap();
            let spec = format!("hub:sh {},name={kind}", script.display());
            let hub = spec.parse::<ParticipantSpec>().expect("a Hub participant");
            let mut participants = name_participants(vec![hub]);
            participants.push(random("random", 1));
            let mut config = quick(participants, Format::Match, 1);
            config.referee.move_timeout = Some(Duration::from_secs(30));
            config.pdn = Some(dir.join(format!("{kind}.pdn")));
            let (_, lines) = run(&config, &TournamentControl::new());
            let scores = lines_starting(&lines, "SCORES");
            assert!(
                scores.last().unwrap().contains(&format!("{kind}=0 ")),
                "{kind}: {lines:?}"
            );
            assert!(lines.iter().any(|line| line == "END complete"), "{kind}");
            let record = fs::read_to_string(dir.join(format!("{kind}.pdn"))).unwrap();
            assert!(record.contains("gave up"), "{kind}: {record}");
        }
        let _ = fs::remove_dir_all(&dir);
    });
}
