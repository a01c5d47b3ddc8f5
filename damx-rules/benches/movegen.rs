//! Legal-move generation speed, in positions a second, and the cost of `Game::play` + `undo`:
//! `cargo bench -p damx-rules --bench movegen`.
//!
//! The positions are fixed (benches/positions.txt: 100 middlegames, 100 king endgames) and the
//! runs check how many moves they generated or played, so a fast wrong generator fails here.

use std::time::Instant;

use damx_rules::pdn::parse_fen_list;
use damx_rules::{Game, MoveList, Position};

/// The legal moves of the middlegames and of the endgames (checked against the reference
/// generator in tests/reference.rs).
const MIDDLEGAME_MOVES: usize = 852;
const ENDGAME_MOVES: usize = 571;

fn run(name: &str, positions: &[Position], moves_each_round: usize, rounds: usize) {
    let mut list = MoveList::new();
    let mut moves = 0;
    let started = Instant::now();
    for _ in 0..rounds {
        for position in positions {
            position.legal_moves_into(&mut list);
            moves += list.len();
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(
        moves,
        moves_each_round * rounds,
        "{name}: wrong number of moves"
    );
    let generated = (positions.len() * rounds) as f64;
    println!(
        "{name:<11} {:>6.1} M positions/s  {:>6.1} ns/position  {:>6.1} M moves/s",
        generated / seconds / 1e6,
        seconds / generated * 1e9,
        moves as f64 / seconds / 1e6
    );
}

/// Plays and takes back every legal move of every position through a `Game`, as a search does.
fn play_undo(positions: &[Position], moves_each_round: usize, rounds: usize) {
    let lists: Vec<MoveList> = positions.iter().map(Position::legal_moves).collect();
    let mut games: Vec<Game> = positions.iter().map(|p| Game::new(*p)).collect();
    let mut played = 0;
    let mut checksum = 0u64;
    let started = Instant::now();
    for _ in 0..rounds {
        for (game, list) in games.iter_mut().zip(&lists) {
            for &mv in list.iter() {
                game.play(mv);
                checksum ^= game.position().hash();
                game.undo();
                played += 1;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(
        played,
        moves_each_round * rounds,
        "wrong number of moves played"
    );
    std::hint::black_box(checksum);
    println!(
        "game        {:>6.1} M play+undo/s  {:>6.1} ns each",
        played as f64 / seconds / 1e6,
        seconds / played as f64 * 1e9
    );
}

fn main() {
    let positions = parse_fen_list(include_str!("positions.txt")).expect("benchmark positions");
    assert_eq!(positions.len(), 200);
    let (middlegames, endgames) = positions.split_at(100);
    // `cargo test --benches` runs benchmarks without `--bench`: keep that quick.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        50_000
    } else {
        10
    };
    run("middlegame", middlegames, MIDDLEGAME_MOVES, rounds);
    run("endgame", endgames, ENDGAME_MOVES, rounds);
    play_undo(&positions, MIDDLEGAME_MOVES + ENDGAME_MOVES, rounds / 5);
}
