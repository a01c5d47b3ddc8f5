//! Legal-move generation speed, in positions a second: `cargo bench -p damx-rules --bench movegen`.
//!
//! The positions are fixed (benches/positions.txt: 100 middlegames, 100 king endgames) and the
//! run checks the number of moves it generated, so a fast wrong generator fails here.

use std::time::Instant;

use damx_rules::pdn::parse_fen_list;
use damx_rules::{MoveList, Position};

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
}
