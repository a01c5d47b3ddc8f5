//! Sets of squares in a padded 64-bit layout.
//!
//! Square index `i` (number - 1) lives at bit `i + i / 10 + 1`. Every ten squares (two board
//! rows) leave one unused "ghost" bit (11, 22, 33, 44), and bit 0 and bits 55..=63 are unused
//! too. With that padding each diagonal step is a constant shift:
//!
//! | direction (White's view) | example   | shift |
//! |---|---|---|
//! | up-right (towards 5)     | 28 -> 23  | -5    |
//! | up-left (towards 1)      | 28 -> 22  | -6    |
//! | down-left (towards 46)   | 28 -> 32  | +5    |
//! | down-right (towards 50)  | 28 -> 33  | +6    |
//!
//! A step off the board lands on a ghost bit or outside bits 1..=54, and masking with
//! [`Bitboard::ALL`] drops it. Bits 0 and 63 are never squares, which lets ray scans use them
//! as sentinels.

use std::fmt;
use std::iter::FusedIterator;
use std::ops::{
    BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub, SubAssign,
};

use crate::square::Square;

/// The board bits of the padded layout: 50 squares.
pub(crate) const ALL_BITS: u64 = {
    let mut bits = 0u64;
    let mut i = 0;
    while i < 50 {
        bits |= 1 << bit_of_index(i);
        i += 1;
    }
    bits
};

/// The bit of square index `i` (0..50).
pub(crate) const fn bit_of_index(i: usize) -> u32 {
    (i + i / 10 + 1) as u32
}

/// For each bit 0..64 the square index living there (0 for bits that are not squares).
pub(crate) static BIT_TO_INDEX: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 50 {
        table[bit_of_index(i) as usize] = i as u8;
        i += 1;
    }
    table
};

/// The rows on which men promote: White's on 1..=5, Black's on 46..=50.
pub(crate) const WHITE_PROMOTION: u64 = row_bits(0);
pub(crate) const BLACK_PROMOTION: u64 = row_bits(9);

/// The bits of board row `row` (0..10).
pub(crate) const fn row_bits(row: usize) -> u64 {
    let mut bits = 0u64;
    let mut i = row * 5;
    while i < row * 5 + 5 {
        bits |= 1 << bit_of_index(i);
        i += 1;
    }
    bits
}

/// The four diagonal directions, in the order used by the ray tables.
/// Directions 0 and 1 go towards lower bits (White's forward), 2 and 3 towards higher bits.
pub(crate) const UP_RIGHT: usize = 0;
pub(crate) const UP_LEFT: usize = 1;
pub(crate) const DOWN_LEFT: usize = 2;
pub(crate) const DOWN_RIGHT: usize = 3;

/// One step of every bit of `bits` in direction `dir`, off-board steps dropped.
#[inline(always)]
pub(crate) const fn step(bits: u64, dir: usize) -> u64 {
    let shifted = match dir {
        UP_RIGHT => bits >> 5,
        UP_LEFT => bits >> 6,
        DOWN_LEFT => bits << 5,
        _ => bits << 6,
    };
    shifted & ALL_BITS
}

/// `RAYS[dir][bit]`: the squares seen from `bit` in direction `dir` on an empty board (the
/// start excluded). Bits that are not squares have empty rays.
pub(crate) static RAYS: [[u64; 64]; 4] = {
    let mut rays = [[0u64; 64]; 4];
    let mut dir = 0;
    while dir < 4 {
        let mut i = 0;
        while i < 50 {
            let start = bit_of_index(i);
            let mut ray = 0u64;
            let mut at = step(1 << start, dir);
            while at != 0 {
                ray |= at;
                at = step(at, dir);
            }
            rays[dir][start as usize] = ray;
            i += 1;
        }
        dir += 1;
    }
    rays
};

/// The squares strictly between `start` and the first occupied square along `dir` (or the board
/// edge), given the start's ray in that direction.
#[inline(always)]
pub(crate) const fn ray_until_blocked(ray: u64, occupied: u64, dir: usize) -> (u64, u32) {
    let blockers = ray & occupied;
    if dir >= DOWN_LEFT {
        // Towards higher bits: the nearest blocker is the lowest; bit 63 is a sentinel.
        let first = (blockers | 1 << 63).trailing_zeros();
        (ray & ((1u64 << first) - 1), first)
    } else {
        // Towards lower bits: the nearest blocker is the highest; bit 0 is a sentinel.
        let first = 63 - (blockers | 1).leading_zeros();
        (ray & (u64::MAX << first << 1), first)
    }
}

/// A set of squares.
///
/// Set operations (`&`, `|`, `^`, `-` for difference, `!` for complement within the 50
/// squares) are single instructions. [`Bitboard::bits`] exposes the padded layout described in
/// the module documentation for code that wants to shift boards itself.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bitboard(u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All fifty squares.
    pub const ALL: Bitboard = Bitboard(ALL_BITS);

    /// The set with the given layout bits; bits that are not squares are dropped.
    pub const fn from_bits(bits: u64) -> Bitboard {
        Bitboard(bits & ALL_BITS)
    }

    /// The layout bits (square index `i` at bit `i + i / 10 + 1`).
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The single-square set.
    pub const fn from_square(square: Square) -> Bitboard {
        Bitboard(1 << square.bit())
    }

    /// The number of squares in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set has no square.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `square` is in the set.
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.bit()) != 0
    }

    /// The set with `square` added.
    #[must_use]
    pub const fn with(self, square: Square) -> Bitboard {
        Bitboard(self.0 | 1 << square.bit())
    }

    /// The set with `square` removed.
    #[must_use]
    pub const fn without(self, square: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << square.bit()))
    }

    /// The lowest-numbered square, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_bit(self.0.trailing_zeros()))
        }
    }

    /// The squares in ascending order.
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }

    /// The board row `row` (0 = squares 1..=5, 9 = squares 46..=50); empty for rows above 9.
    pub const fn row(row: u8) -> Bitboard {
        if row < 10 {
            Bitboard(row_bits(row as usize))
        } else {
            Bitboard::EMPTY
        }
    }
}

impl From<Square> for Bitboard {
    fn from(square: Square) -> Bitboard {
        Bitboard::from_square(square)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(Square::number))
            .finish()
    }
}

macro_rules! set_operator {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            fn $assign_method(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

set_operator!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
set_operator!(BitOr, bitor, BitOrAssign, bitor_assign, |);
set_operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl SubAssign for Bitboard {
    fn sub_assign(&mut self, rhs: Bitboard) {
        self.0 &= !rhs.0;
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the fifty squares.
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL_BITS)
    }
}

/// The squares of a [`Bitboard`] in ascending order.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Square::from_bit(bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Squares {
    fn next_back(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let bit = 63 - self.0.leading_zeros();
        self.0 &= !(1 << bit);
        Some(Square::from_bit(bit))
    }
}

impl ExactSizeIterator for Squares {}
impl FusedIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    fn set(numbers: &[u8]) -> Bitboard {
        numbers.iter().map(|&n| sq(n)).collect()
    }

    /// The layout holds exactly 50 squares, skipping the ghost bits and the sentinels.
    #[test]
    fn layout_has_fifty_squares_and_the_documented_ghosts() {
        assert_eq!(ALL_BITS.count_ones(), 50);
        for ghost in [0, 11, 22, 33, 44, 55, 63] {
            assert_eq!(ALL_BITS >> ghost & 1, 0, "bit {ghost} must not be a square");
        }
    }

    /// Each shift moves a square to its diagonal neighbour and drops steps off the board.
    #[test]
    fn steps_follow_the_diagonals() {
        let neighbours = |n: u8| -> [Vec<u8>; 4] {
            std::array::from_fn(|dir| {
                Bitboard(step(1 << sq(n).bit(), dir))
                    .iter()
                    .map(Square::number)
                    .collect()
            })
        };
        assert_eq!(neighbours(28), [vec![23], vec![22], vec![32], vec![33]]);
        assert_eq!(neighbours(1), [vec![], vec![], vec![6], vec![7]]);
        assert_eq!(neighbours(6), [vec![1], vec![], vec![], vec![11]]);
        assert_eq!(neighbours(5), [vec![], vec![], vec![10], vec![]]);
        assert_eq!(neighbours(15), [vec![], vec![10], vec![20], vec![]]);
        assert_eq!(neighbours(16), [vec![11], vec![], vec![], vec![21]]);
        assert_eq!(neighbours(46), [vec![41], vec![], vec![], vec![]]);
        assert_eq!(neighbours(50), [vec![45], vec![44], vec![], vec![]]);
    }

    /// The long diagonal 46..5 is one ray; rays stop at the edge.
    #[test]
    fn rays_cover_whole_diagonals() {
        let ray = Bitboard(RAYS[UP_RIGHT][sq(46).bit() as usize]);
        assert_eq!(ray, set(&[41, 37, 32, 28, 23, 19, 14, 10, 5]));
        let ray = Bitboard(RAYS[DOWN_RIGHT][sq(1).bit() as usize]);
        assert_eq!(ray, set(&[7, 12, 18, 23, 29, 34, 40, 45]));
        assert_eq!(RAYS[UP_LEFT][sq(1).bit() as usize], 0);
    }

    /// The blocked-ray helper stops before the nearest blocker in both bit directions.
    #[test]
    fn ray_until_blocked_stops_at_the_nearest_piece() {
        let from = sq(46).bit() as usize;
        let occupied = set(&[23, 10]).bits();
        let (free, blocker) = ray_until_blocked(RAYS[UP_RIGHT][from], occupied, UP_RIGHT);
        assert_eq!(Bitboard(free), set(&[41, 37, 32, 28]));
        assert_eq!(Square::from_bit(blocker), sq(23));
        let from = sq(5).bit() as usize;
        let (free, blocker) = ray_until_blocked(RAYS[DOWN_LEFT][from], occupied, DOWN_LEFT);
        assert_eq!(Bitboard(free), set(&[]));
        assert_eq!(Square::from_bit(blocker), sq(10));
        let (free, blocker) = ray_until_blocked(RAYS[DOWN_LEFT][from], 0, DOWN_LEFT);
        assert_eq!(Bitboard(free), set(&[10, 14, 19, 23, 28, 32, 37, 41, 46]));
        assert_eq!(blocker, 63);
        let from = sq(50).bit() as usize;
        let (free, blocker) = ray_until_blocked(RAYS[UP_LEFT][from], 0, UP_LEFT);
        assert_eq!(Bitboard(free), set(&[44, 39, 33, 28, 22, 17, 11, 6]));
        assert_eq!(blocker, 0);
    }

    /// Set operations stay inside the fifty squares.
    #[test]
    fn set_operations() {
        let a = set(&[1, 2, 3]);
        let b = set(&[3, 4]);
        assert_eq!(a | b, set(&[1, 2, 3, 4]));
        assert_eq!(a & b, set(&[3]));
        assert_eq!(a ^ b, set(&[1, 2, 4]));
        assert_eq!(a - b, set(&[1, 2]));
        assert_eq!((!a).count(), 47);
        assert_eq!(!Bitboard::ALL, Bitboard::EMPTY);
        assert!(a.contains(sq(2)) && !a.contains(sq(4)));
        assert_eq!(
            a.iter().rev().map(Square::number).collect::<Vec<_>>(),
            [3, 2, 1]
        );
        assert_eq!(Bitboard::row(9), set(&[46, 47, 48, 49, 50]));
        assert_eq!(format!("{:?}", b), "{3, 4}");
    }
}
