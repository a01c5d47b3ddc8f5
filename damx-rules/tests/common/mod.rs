//! Random positions and games shared by the property tests.

#![allow(dead_code, unreachable_pub)]

use damx_rules::{Color, Move, Piece, Position, Setup, Square};

/// A small deterministic random source (a proptest seed drives it).
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random legal set-up: up to `max_per_side` pieces a side, each a king with probability
/// `king_percent` (and always on its own promotion row).
pub fn random_setup(rng: &mut Rng, max_per_side: usize, king_percent: u64) -> Setup {
    let side = if rng.next().is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let mut setup = Setup::empty(side);
    for color in [Color::White, Color::Black] {
        let pieces = 1 + rng.below(max_per_side);
        for _ in 0..pieces {
            let square = Square::from_index(rng.below(50)).unwrap();
            if setup.get(square).is_some() {
                continue;
            }
            let far_row = if color == Color::White { 0 } else { 9 };
            let piece = if rng.next() % 100 < king_percent || square.row() == far_row {
                Piece::King
            } else {
                Piece::Man
            };
            setup.set(square, Some((color, piece)));
        }
    }
    setup
}

/// A random game of up to `plies` random legal moves from `start`.
pub fn random_game(start: Position, rng: &mut Rng, plies: usize) -> Vec<Move> {
    let mut position = start;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let list = position.legal_moves();
        if list.is_empty() {
            break;
        }
        let mv = list[rng.below(list.len())];
        moves.push(mv);
        position = position.play(&mv);
    }
    moves
}

/// A start position: the initial one, or a random set-up (king-heavy or dense), by `kind`.
pub fn random_start(rng: &mut Rng, kind: u8) -> Position {
    match kind % 3 {
        0 => Position::initial(),
        1 => Position::from_setup(&random_setup(rng, 14, 60)).unwrap(),
        _ => Position::from_setup(&random_setup(rng, 20, 10)).unwrap(),
    }
}
