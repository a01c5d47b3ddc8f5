//! What the search must get right in draughts terms: shots that win material, breakthroughs,
//! the exact distance of forced wins, and the draw rules.
//!
//! The expected answers come from small independent searches written here on top of
//! `damx-rules` alone (a material-only minimax, a plain forced-win search), not from the
//! engine.

use damx_engine::{Engine, EngineOptions, Limits, Score, SearchFeatures, StopSignal};
use damx_rules::{Color, Game, Move, Outcome, Position};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        hash_mb: 8,
        ..EngineOptions::default()
    })
}

fn search(game: &Game, depth: u32) -> damx_engine::SearchResult {
    engine().search(game, &Limits::depth(depth), &StopSignal::new(), &mut |_| {})
}

fn position(fen: &str) -> Position {
    fen.parse().unwrap()
}

/// Material in tenths of a man (a king is three men) from the side to move.
fn material(position: &Position) -> i32 {
    let worth = |color: Color| {
        10 * position.men(color).count() as i32 + 30 * position.kings(color).count() as i32
    };
    let me = position.side_to_move();
    worth(me) - worth(!me)
}

/// A material-only minimax: `depth` quiet plies, captures always played out (they are
/// compulsory), no moves = loss.
fn material_minimax(position: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    let moves = position.legal_moves();
    if moves.is_empty() {
        return -10_000;
    }
    if depth == 0 && !moves[0].is_capture() {
        return material(position);
    }
    let mut best = i32::MIN + 1;
    for mv in moves.iter() {
        let next_depth = if mv.is_capture() { depth } else { depth - 1 };
        let score = -material_minimax(&position.play(mv), next_depth, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

fn material_after(position: &Position, mv: &Move, depth: u32) -> i32 {
    -material_minimax(&position.play(mv), depth - 1, -100_000, 100_000)
}

/// Shots from games: the side to move wins material (or promotes) by force in five plies,
/// which a three-ply look does not see. The engine plays a move that wins as much (or one that
/// wins the game outright), by default, with the search before its two-step reductions and
/// singular extension (both switched off), and with ProbCut scaled by depth.
#[test]
fn finds_shots_and_breakthroughs() {
    let before = SearchFeatures {
        singular_extension: false,
        stepped_reductions: false,
        ..SearchFeatures::default()
    };
    let scaled = SearchFeatures {
        scaled_probcut: true,
        ..SearchFeatures::default()
    };
    let search_with = |search: SearchFeatures, game: &Game, depth: u32| {
        let options = EngineOptions {
            hash_mb: 8,
            search,
            ..EngineOptions::default()
        };
        Engine::new(options).search(game, &Limits::depth(depth), &StopSignal::new(), &mut |_| {})
    };
    let shots = [
        // A two-for-one in the middle game, through a sacrifice.
        "W:W15,25,30,34,37,39,41,42,43,44,46,48:B1,2,3,4,12,13,14,21,22,23",
        "B:W27,28,34,35,37,38,40,43,44:B3,7,8,12,13,14,18,20,24,25",
        "B:W30,33,34,35,42:B2,4,12,14,18,19,24,25,32",
        "B:W16,21,47,49:B1,2,3,8,9,12,13,18,23,27,28,33,36",
        // Breakthroughs to promotion.
        "W:W19,34,37,38,41,44,45,48,49:B3,21,27",
        "W:W20,27,28,30,32,35,41,43,48,49:B4,16,18,21",
        "W:W23,24,27,33,47,48,49:B2,14,17,26",
    ];
    for fen in shots {
        let p = position(fen);
        let now = material(&p);
        let best = material_minimax(&p, 5, -100_000, 100_000);
        let shallow = material_minimax(&p, 3, -100_000, 100_000);
        assert!(best >= now + 20 && shallow < best, "{fen}: not a shot");
        let game = Game::new(p);
        for result in [
            search(&game, 10),
            search_with(before, &game, 10),
            search_with(scaled, &game, 10),
        ] {
            let mv = result.best_move.unwrap();
            // A move that wins less material may still win the game outright: then a deeper
            // search from the opponent's side finds it lost.
            let wins_the_game = || search(&Game::new(p.play(&mv)), 14).score.is_loss();
            assert!(
                material_after(&p, &mv, 5) == best || wins_the_game(),
                "{fen}: played {} (score {}), which wins less than {best} and not the game",
                p.move_text(&mv),
                result.score
            );
        }
    }
}

/// Whether the side to move wins within `plies` plies (by the rules of `Game`).
fn wins_within(game: &mut Game, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    for mv in game.position().legal_moves().iter() {
        game.play(*mv);
        let won = match game.outcome() {
            Some(Outcome::Win { .. }) => true,
            Some(Outcome::Draw(_)) => false,
            None => plies >= 2 && loses_within(game, plies - 1),
        };
        game.undo();
        if won {
            return true;
        }
    }
    false
}

fn loses_within(game: &mut Game, plies: u32) -> bool {
    for mv in game.position().legal_moves().iter() {
        game.play(*mv);
        let lost = match game.outcome() {
            Some(_) => false,
            None => wins_within(game, plies - 1),
        };
        game.undo();
        if !lost {
            return false;
        }
    }
    true
}

/// Forced wins are reported with their exact distance in plies: the engine's "win in N"
/// agrees with a plain search that finds a win in N plies and none in N - 2.
#[test]
fn win_distance_is_exact() {
    let cases = [
        ("W:WK24:B5", 3),
        ("W:WK38:B39", 3),
        ("W:WK7,13:B35", 3),
        ("W:W9,48:B10", 5),
        ("W:W38,40:B18", 5),
        ("W:WK3,23,K46:B25,30", 5),
        ("W:W49:B13", 7),
        ("W:W10:B6", 7),
        ("W:WK5,K25:B35,38", 7),
        ("W:W7,K11:B38", 9),
    ];
    for (fen, plies) in cases {
        let mut game = Game::new(position(fen));
        assert!(wins_within(&mut game, plies), "{fen}");
        assert!(!wins_within(&mut game, plies - 2), "{fen}");
        let result = search(&game, 14);
        assert_eq!(result.score, Score::win_in(plies as i32), "{fen}");
        // The losing side, a ply later, sees the loss one ply nearer.
        let mut after = game.clone();
        after.play(result.best_move.unwrap());
        let reply = search(&after, 14);
        assert_eq!(reply.score, Score::loss_in(plies as i32 - 1), "{fen}");
    }
}

fn king_move(game: &Game, from: u8, to: u8) -> Move {
    game.position()
        .legal_moves()
        .iter()
        .copied()
        .find(|mv| mv.from().number() == from && mv.to().number() == to && !mv.is_capture())
        .unwrap_or_else(|| panic!("{from}-{to} is not a quiet move in {}", game.position()))
}

/// Lost by material, the engine takes a draw by threefold repetition when one move gives it,
/// and scores it as a draw; without the history the same position is lost.
#[test]
fn takes_a_repetition_draw() {
    // Four White kings against one; White's king shuffles 47-42, Black's between 23, 28 and 32.
    let start = position("B:WK2,K3,K4,K47:BK23");
    let mut game = Game::new(start);
    for (from, to) in [
        (23, 28),
        (47, 42),
        (28, 23),
        (42, 47),
        (23, 28),
        (47, 42),
        (28, 32),
        (42, 47),
    ] {
        let mv = king_move(&game, from, to);
        game.play(mv);
    }
    assert_eq!(game.outcome(), None);
    // 32-28 now makes "Black king on 28, White's on 47, White to move" the third time.
    let draw = king_move(&game, 32, 28);
    let mut probe = game.clone();
    probe.play(draw);
    assert_eq!(probe.repetitions(), 3);

    let result = search(&game, 8);
    assert_eq!(result.best_move, Some(draw));
    assert_eq!(result.score, Score::DRAW);
    let fresh = search(&Game::new(*game.position()), 8);
    assert!(fresh.score.value() < -200, "{}", fresh.score);
}

/// Whether `mv` keeps the shuffle going: no capture, no third occurrence, and the opponent
/// keeps a reply that gives none either.
fn quiet_and_safe(game: &Game, mv: Move) -> bool {
    let mut probe = game.clone();
    probe.play(mv);
    let calm = |g: &Game| g.repetitions() < 3 && !g.position().has_capture();
    !mv.is_capture()
        && calm(&probe)
        && probe.position().legal_moves().iter().any(|reply| {
            let mut next = probe.clone();
            next.play(*reply);
            calm(&next)
        })
}

/// Plays quiet king moves (varied, no capture offered, nothing repeated three times) until the
/// 25-move count reaches `plies`.
fn king_shuffle(game: &mut Game, plies: usize) {
    let mut turn = 0;
    while game.reversible_plies() < plies {
        let moves = game.position().legal_moves();
        let mv = (0..moves.len())
            .map(|i| moves[(i + turn * 7) % moves.len()])
            .find(|mv| quiet_and_safe(game, *mv))
            .unwrap_or_else(|| panic!("no quiet king move in {}", game.position()));
        game.play(mv);
        turn += 1;
    }
}

/// Four kings against one win, but not when the 25-move rule ends the game first: with one
/// ply left the engine sees the draw.
#[test]
fn twenty_five_move_rule_cuts_off_the_win() {
    let start = position("W:WK45,K47,K48,K49:BK8");
    let won = search(&Game::new(start), 8);
    assert!(won.score.value() > 300, "{}", won.score);

    let mut game = Game::new(start);
    king_shuffle(&mut game, 49);
    assert_eq!(game.position().side_to_move(), Color::Black);
    // Black moves: the 50th ply ends the game.
    let result = search(&game, 8);
    assert_eq!(result.score, Score::DRAW);

    // With twenty plies left White still wins if it can: the score is not the draw.
    let mut early = Game::new(start);
    king_shuffle(&mut early, 20);
    let result = search(&early, 8);
    assert_ne!(result.score, Score::DRAW);
}
