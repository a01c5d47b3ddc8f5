//! The search seen from outside: legal answers under every kind of limit, the stop flag,
//! determinism, and the parallel search.

use std::time::Duration;

use damx_engine::{Clock, Engine, EngineOptions, Limits, Progress, Score, StopSignal};
use damx_rules::{Game, Position};

fn engine(threads: usize) -> Engine {
    Engine::new(EngineOptions {
        threads,
        hash_mb: 4,
        ..EngineOptions::default()
    })
}

fn game(fen: &str) -> Game {
    Game::new(fen.parse::<Position>().unwrap())
}

/// A small deterministic generator for random play.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Games of random moves, as positions to search from (with their histories).
fn random_games(count: usize, seed: u64) -> Vec<Game> {
    let mut rng = Lcg(seed);
    let mut games = Vec::new();
    for _ in 0..count {
        let mut game = Game::default();
        let plies = 10 + rng.below(90);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_moves();
            game.play(moves[rng.below(moves.len())]);
        }
        if game.outcome().is_none() {
            games.push(game);
        }
    }
    games
}

/// Whatever the limit, the answer is one of the legal moves and its principal variation
/// is a legal line.
#[test]
fn answers_are_legal_under_every_limit() {
    let mut engine = engine(1);
    let stop = StopSignal::new();
    let limits = [
        Limits::depth(3),
        Limits::nodes(2_000),
        Limits::move_time(Duration::from_millis(5)),
        Limits::clock(Clock {
            remaining: Duration::from_millis(200),
            moves_to_go: None,
        }),
    ];
    for (i, game) in random_games(40, 7).into_iter().enumerate() {
        let limits = &limits[i % limits.len()];
        let result = engine.search(&game, limits, &stop, &mut |_| {});
        let best = result.best_move.expect("a position with moves gets a move");
        assert!(game.position().is_legal(&best), "{}", game.position());
        assert_eq!(result.pv.first(), Some(&best));
        let mut line = game.clone();
        for mv in &result.pv {
            assert!(
                line.try_play(*mv).is_ok(),
                "pv {:?} in {}",
                result.pv,
                game.position()
            );
        }
    }
}

/// A side without moves gets no move and a lost score.
#[test]
fn no_move_no_answer() {
    let result = engine(1).search(
        &game("W:W41,46:B32,36,37"),
        &Limits::depth(5),
        &StopSignal::new(),
        &mut |_| {},
    );
    assert_eq!(result.best_move, None);
    assert_eq!(result.score, Score::loss_in(0));
}

/// With one thread, a search to a given depth visits the same nodes and finds the same move
/// every time, in a fresh engine and after `new_game`.
#[test]
fn one_thread_is_deterministic() {
    let game = game(
        "W:W26,27,31,32,34,35,37,40,42,44,46,47,48,49,50:B1,2,3,4,7,8,9,10,11,12,16,17,18,19,24",
    );
    let stop = StopSignal::new();
    let mut first = engine(1);
    let a = first.search(&game, &Limits::depth(8), &stop, &mut |_| {});
    let b = engine(1).search(&game, &Limits::depth(8), &stop, &mut |_| {});
    first.new_game();
    let c = first.search(&game, &Limits::depth(8), &stop, &mut |_| {});
    assert_eq!(
        (a.nodes, a.best_move, a.score),
        (b.nodes, b.best_move, b.score)
    );
    assert_eq!(
        (a.nodes, a.best_move, a.score),
        (c.nodes, c.best_move, c.score)
    );
    assert_eq!(a.depth, 8);
}

/// A node limit is exact with one thread.
#[test]
fn node_limit_is_exact_with_one_thread() {
    let result = engine(1).search(
        &Game::default(),
        &Limits::nodes(5_000),
        &StopSignal::new(),
        &mut |_| {},
    );
    assert_eq!(result.nodes, 5_000);
    assert!(result.best_move.is_some());
}

/// A stop raised before the search starts still gets a legal move back.
#[test]
fn stopped_before_start_still_answers() {
    let stop = StopSignal::new();
    stop.stop();
    let game = Game::default();
    let result = engine(1).search(&game, &Limits::default(), &stop, &mut |_| {});
    assert!(game.position().is_legal(&result.best_move.unwrap()));
}

/// An unlimited search, stopped from another thread, returns a legal move, with one thread
/// and with two.
#[test]
fn stop_from_another_thread() {
    for threads in [1, 2] {
        let mut engine = engine(threads);
        let stop = StopSignal::new();
        let stopper = stop.clone();
        let handle = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            stopper.stop();
        });
        let game = Game::default();
        let result = engine.search(&game, &Limits::default(), &stop, &mut |_| {});
        handle.join().unwrap();
        assert!(game.position().is_legal(&result.best_move.unwrap()));
        assert!(result.depth >= 1);
    }
}

/// The observer hears of every iteration in order, with the same move as the result at the
/// last one.
#[test]
fn progress_reports_each_iteration() {
    let mut reports: Vec<Progress> = Vec::new();
    let result = engine(1).search(
        &Game::default(),
        &Limits::depth(6),
        &StopSignal::new(),
        &mut |progress| reports.push(progress.clone()),
    );
    let depths: Vec<u32> = reports.iter().map(|p| p.depth).collect();
    assert_eq!(depths, [1, 2, 3, 4, 5, 6]);
    let last = reports.last().unwrap();
    assert_eq!(last.pv, result.pv);
    assert!(last.nodes <= result.nodes && last.nodes > 0);
}

/// Two threads reach the requested depth and answer with a legal move.
#[test]
fn two_threads_search_to_depth() {
    let mut engine = engine(2);
    assert_eq!(engine.threads(), 2);
    for game in random_games(6, 11) {
        let result = engine.search(&game, &Limits::depth(6), &StopSignal::new(), &mut |_| {});
        assert_eq!(result.depth, 6);
        assert!(game.position().is_legal(&result.best_move.unwrap()));
    }
}

/// Contempt moves the score of a draw: a king against a king is a draw that the five-move
/// rule ends within the search's depth, so the root scores exactly the draw, below zero for
/// the side that searches with contempt, above with negative contempt.
#[test]
fn contempt_scores_a_draw_for_the_side_that_searches() {
    let scores: Vec<Score> = [30, 0, -30]
        .into_iter()
        .map(|contempt| {
            let mut engine = Engine::new(EngineOptions {
                hash_mb: 4,
                contempt,
                ..EngineOptions::default()
            });
            let limits = Limits {
                depth: Some(16),
                ..Limits::default()
            };
            let game = game("W:WK26:BK25");
            engine
                .search(&game, &limits, &StopSignal::new(), &mut |_| {})
                .score
        })
        .collect();
    assert_eq!(scores, [Score(-30), Score(0), Score(30)]);
}
