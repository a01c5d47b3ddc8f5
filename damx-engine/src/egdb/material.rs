//! Slices (one per material: white men and kings, black men and kings), their build order and
//! the perfect-hash index of a position within its slice.
//!
//! The index of a position is a combinatorial ranking, in this order: the side to move, White's
//! men among the 45 squares a white man can stand on (6..=50), Black's men among theirs
//! (1..=45), White's kings among the squares the men leave free and Black's kings among the
//! squares still free. Every index in `0..Material::positions()` names one board, except where a
//! white and a black man are ranked onto the same square (the only holes: the two men's
//! domains overlap, and ranking them jointly would cost a slower index for a few per cent of
//! space).

use std::fmt;
use std::str::FromStr;

use damx_rules::{Bitboard, Color, Position};

/// The most pieces a slice may hold (the index tables and material codes are sized for it).
pub const MAX_SLICE_PIECES: u32 = 7;

/// The padded layout bit of each square index (0..50), as `damx_rules::bitboard` lays it out.
pub(crate) const INDEX_TO_BIT: [u8; 50] = {
    let mut table = [0u8; 50];
    let mut i = 0;
    while i < 50 {
        table[i] = (i + i / 10 + 1) as u8;
        i += 1;
    }
    table
};

/// The square index (0..50) of each layout bit; 255 for bits that are not squares.
pub(crate) const BIT_TO_INDEX: [u8; 64] = {
    let mut table = [255u8; 64];
    let mut i = 0;
    while i < 50 {
        table[INDEX_TO_BIT[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// `BINOMIAL[n][k]` = n choose k, for n up to 50 and k up to the pieces of a slice.
const BINOMIAL: [[u64; 8]; 51] = {
    let mut table = [[0u64; 8]; 51];
    let mut n = 0;
    while n <= 50 {
        table[n][0] = 1;
        let mut k = 1;
        while k < 8 {
            table[n][k] = if n == 0 {
                0
            } else {
                table[n - 1][k - 1] + table[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    table
};

/// n choose k (k below 8).
#[inline(always)]
fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The squares a man may stand on: White's 6..=50, Black's 1..=45 (45 each).
const MAN_SQUARES: u32 = 45;

/// The dense form of a set: bit `i` for square index `i`.
#[inline(always)]
pub(crate) fn dense(bits: u64) -> u64 {
    let mut out = 0u64;
    let mut rest = bits;
    while rest != 0 {
        let bit = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << BIT_TO_INDEX[bit as usize];
    }
    out
}

/// The colex rank of the set of positions `set` (dense bits within a domain).
#[inline(always)]
fn rank_set(set: u64) -> u64 {
    let mut rank = 0;
    let mut rest = set;
    let mut k = 1;
    while rest != 0 {
        let p = rest.trailing_zeros();
        rest &= rest - 1;
        rank += binomial(p, k);
        k += 1;
    }
    rank
}

/// The set of `k` positions below `n` whose colex rank is `rank`.
#[inline(always)]
fn unrank_set(mut rank: u64, k: u32, n: u32) -> u64 {
    let mut set = 0u64;
    let mut top = n;
    for j in (2..=k).rev() {
        // The largest p below `top` with C(p, j) <= rank, by bisection: C(j - 1, j) = 0.
        let (mut low, mut high) = (j - 1, top - 1);
        while low < high {
            let middle = (low + high).div_ceil(2);
            if binomial(middle, j) <= rank {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        rank -= binomial(low, j);
        set |= 1 << low;
        top = low;
    }
    // C(p, 1) = p.
    if k >= 1 {
        set |= 1 << rank;
    }
    set
}

/// Positions within a domain of free squares: the index of each square of `set` among the
/// squares not in `taken` (both dense).
#[inline(always)]
fn squeeze(set: u64, taken: u64) -> u64 {
    let mut out = 0u64;
    let mut rest = set;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << (i - (taken & ((1u64 << i) - 1)).count_ones());
    }
    out
}

/// The inverse of [`squeeze`]: the squares (dense) at the given positions among the free ones.
#[inline(always)]
fn expand(positions: u64, taken: u64) -> u64 {
    let mut out = 0u64;
    let mut rest = positions;
    let mut free = !taken & ((1u64 << 50) - 1);
    let mut position = 0;
    while rest != 0 {
        let want = rest.trailing_zeros();
        rest &= rest - 1;
        while position < want {
            free &= free - 1;
            position += 1;
        }
        out |= free & free.wrapping_neg();
        free &= free - 1;
        position += 1;
    }
    out
}

/// The layout bits of a dense set.
#[inline(always)]
pub(crate) fn sparse(dense_set: u64) -> u64 {
    let mut out = 0u64;
    let mut rest = dense_set;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << INDEX_TO_BIT[i as usize];
    }
    out
}

/// The material of a slice: how many men and kings each side has.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Material {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl Material {
    /// The material of `position`.
    pub fn of(position: &Position) -> Material {
        let count = |set: Bitboard| set.count() as u8;
        Material {
            white_men: count(position.men(Color::White)),
            white_kings: count(position.kings(Color::White)),
            black_men: count(position.men(Color::Black)),
            black_kings: count(position.kings(Color::Black)),
        }
    }

    /// All pieces.
    pub const fn pieces(self) -> u32 {
        (self.white_men + self.white_kings + self.black_men + self.black_kings) as u32
    }

    /// All men.
    pub const fn men(self) -> u32 {
        (self.white_men + self.black_men) as u32
    }

    /// A code below 4096 that names the material (three bits a count).
    pub(crate) const fn code(self) -> usize {
        self.white_men as usize
            | (self.white_kings as usize) << 3
            | (self.black_men as usize) << 6
            | (self.black_kings as usize) << 9
    }

    /// Whether a slice can exist: both sides have pieces, at most [`MAX_SLICE_PIECES`] in all
    /// and at most 45 men a side (always true for so few pieces).
    pub const fn is_slice(self) -> bool {
        self.white_men + self.white_kings > 0
            && self.black_men + self.black_kings > 0
            && self.pieces() <= MAX_SLICE_PIECES
    }

    /// The boards of the slice for one side to move (holes included).
    pub fn boards(self) -> u64 {
        let men = self.men();
        binomial(MAN_SQUARES, self.white_men as u32)
            * binomial(MAN_SQUARES, self.black_men as u32)
            * binomial(50 - men, self.white_kings as u32)
            * binomial(50 - men - self.white_kings as u32, self.black_kings as u32)
    }

    /// The indices of the slice: both sides to move.
    pub fn positions(self) -> u64 {
        2 * self.boards()
    }

    /// Every slice of `min..=max` pieces in build order: by pieces, then by men (a capture
    /// leads to fewer pieces and a promotion to fewer men, so every slice a position can leave
    /// to comes first).
    pub fn all(min: u32, max: u32) -> Vec<Material> {
        let max = max.min(MAX_SLICE_PIECES);
        let mut all = Vec::new();
        for pieces in min.max(2)..=max {
            for men in 0..=pieces {
                for white_men in 0..=men {
                    let black_men = men - white_men;
                    for white_kings in 0..=pieces - men {
                        let black_kings = pieces - men - white_kings;
                        let material = Material {
                            white_men: white_men as u8,
                            white_kings: white_kings as u8,
                            black_men: black_men as u8,
                            black_kings: black_kings as u8,
                        };
                        if material.is_slice() {
                            all.push(material);
                        }
                    }
                }
            }
        }
        all
    }

    /// The index of `position`, which must have this material.
    #[inline]
    pub fn index(self, position: &Position) -> u64 {
        let white_men = dense(position.men(Color::White).bits());
        let black_men = dense(position.men(Color::Black).bits());
        let white_kings = dense(position.kings(Color::White).bits());
        let black_kings = dense(position.kings(Color::Black).bits());
        let men = white_men | black_men;
        let men_count = self.men();
        let mut index = rank_set(white_men >> 5);
        index = index * binomial(MAN_SQUARES, self.black_men as u32) + rank_set(black_men);
        index = index * binomial(50 - men_count, self.white_kings as u32)
            + rank_set(squeeze(white_kings, men));
        index = index
            * binomial(
                50 - men_count - self.white_kings as u32,
                self.black_kings as u32,
            )
            + rank_set(squeeze(black_kings, men | white_kings));
        match position.side_to_move() {
            Color::White => index,
            Color::Black => self.boards() + index,
        }
    }

    /// The position at `index`; `None` for a hole (two men on one square) or an index out of
    /// range.
    pub fn position(self, index: u64) -> Option<Position> {
        let boards = self.boards();
        if index >= 2 * boards {
            return None;
        }
        let (side, mut rest) = if index < boards {
            (Color::White, index)
        } else {
            (Color::Black, index - boards)
        };
        let men_count = self.men();
        let (wm, wk, bm, bk) = (
            self.white_men as u32,
            self.white_kings as u32,
            self.black_men as u32,
            self.black_kings as u32,
        );
        let black_king_domain = 50 - men_count - wk;
        let black_king_rank = rest % binomial(black_king_domain, bk);
        rest /= binomial(black_king_domain, bk);
        let white_king_rank = rest % binomial(50 - men_count, wk);
        rest /= binomial(50 - men_count, wk);
        let black_men_rank = rest % binomial(MAN_SQUARES, bm);
        let white_men_rank = rest / binomial(MAN_SQUARES, bm);
        let white_men = unrank_set(white_men_rank, wm, MAN_SQUARES) << 5;
        let black_men = unrank_set(black_men_rank, bm, MAN_SQUARES);
        if white_men & black_men != 0 {
            return None;
        }
        let men = white_men | black_men;
        let white_kings = expand(unrank_set(white_king_rank, wk, 50 - men_count), men);
        let black_kings = expand(
            unrank_set(black_king_rank, bk, black_king_domain),
            men | white_kings,
        );
        Position::from_pieces(
            Bitboard::from_bits(sparse(white_men)),
            Bitboard::from_bits(sparse(white_kings)),
            Bitboard::from_bits(sparse(black_men)),
            Bitboard::from_bits(sparse(black_kings)),
            side,
        )
        .ok()
    }
}

/// The position turned half a turn with the colours swapped: the same game with the sides'
/// roles exchanged, so it has the same value.
pub(crate) fn mirror(position: &Position) -> Option<Position> {
    let flip = |set: Bitboard| Bitboard::from_bits(sparse(dense(set.bits()).reverse_bits() >> 14));
    Position::from_pieces(
        flip(position.men(Color::Black)),
        flip(position.kings(Color::Black)),
        flip(position.men(Color::White)),
        flip(position.kings(Color::White)),
        !position.side_to_move(),
    )
    .ok()
}

impl Material {
    /// The material with the colours swapped.
    pub const fn mirrored(self) -> Material {
        Material {
            white_men: self.black_men,
            white_kings: self.black_kings,
            black_men: self.white_men,
            black_kings: self.white_kings,
        }
    }
}

impl fmt::Display for Material {
    /// `KKM-K`: White's kings and men, a dash, Black's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |kings: u8, men: u8| "K".repeat(kings as usize) + &"M".repeat(men as usize);
        write!(
            f,
            "{}-{}",
            side(self.white_kings, self.white_men),
            side(self.black_kings, self.black_men)
        )
    }
}

/// A material name that is not `K…M…-K…M…` with pieces on both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseMaterialError(String);

impl fmt::Display for ParseMaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a slice name such as KKM-K (kings, then men, for White and Black)",
            self.0
        )
    }
}

impl std::error::Error for ParseMaterialError {}

impl FromStr for Material {
    type Err = ParseMaterialError;

    fn from_str(text: &str) -> Result<Material, ParseMaterialError> {
        let error = || ParseMaterialError(text.to_string());
        let side = |part: &str| -> Option<(u8, u8)> {
            let kings = part.bytes().take_while(|&b| b == b'K').count();
            let men = part[kings..].bytes().take_while(|&b| b == b'M').count();
            (kings + men == part.len() && part.len() <= MAX_SLICE_PIECES as usize)
                .then_some((kings as u8, men as u8))
        };
        let (white, black) = text.split_once('-').ok_or_else(error)?;
        let (white_kings, white_men) = side(white).ok_or_else(error)?;
        let (black_kings, black_men) = side(black).ok_or_else(error)?;
        let material = Material {
            white_men,
            white_kings,
            black_men,
            black_kings,
        };
        material.is_slice().then_some(material).ok_or_else(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_round_trips_in_small_slices() {
        for material in Material::all(2, 3) {
            let mut holes = 0;
            for index in 0..material.positions() {
                match material.position(index) {
                    Some(position) => {
                        assert_eq!(Material::of(&position), material);
                        assert_eq!(material.index(&position), index, "{material} {position}");
                    }
                    None => holes += 1,
                }
            }
            // Holes only where a white and a black man share a square.
            let expected = if material.white_men == 1 && material.black_men == 1 {
                2 * 40 * material.boards() / (45 * 45)
            } else if material.white_men > 0 && material.black_men > 0 {
                holes
            } else {
                0
            };
            assert_eq!(holes, expected, "{material}");
        }
    }

    #[test]
    fn mirrored_positions_have_mirrored_material_and_moves() {
        let position: Position = "W:WK1,28,33:BK50,12".parse().unwrap();
        let mirrored = mirror(&position).unwrap();
        assert_eq!(mirrored, "B:WK1,39:BK50,18,23".parse().unwrap());
        assert_eq!(Material::of(&mirrored), Material::of(&position).mirrored());
        assert_eq!(mirror(&mirrored), Some(position));
        assert_eq!(mirrored.legal_moves().len(), position.legal_moves().len());
    }

    #[test]
    fn build_order_puts_dependencies_first() {
        let all = Material::all(2, 5);
        for (i, material) in all.iter().enumerate() {
            for earlier in &all[i + 1..] {
                assert!(
                    (earlier.pieces(), earlier.men()) >= (material.pieces(), material.men()),
                    "{earlier} after {material}"
                );
            }
        }
        assert_eq!(
            all.len(),
            all.iter().collect::<std::collections::HashSet<_>>().len()
        );
    }

    #[test]
    fn names_round_trip() {
        for material in Material::all(2, 5) {
            assert_eq!(material.to_string().parse::<Material>(), Ok(material));
        }
        assert_eq!("KKM-K".parse::<Material>().map(|m| m.pieces()), Ok(4));
        for bad in ["", "K", "K-", "-K", "MK-K", "KX-K", "KKKKKKKK-K"] {
            assert!(bad.parse::<Material>().is_err(), "{bad}");
        }
    }
}
