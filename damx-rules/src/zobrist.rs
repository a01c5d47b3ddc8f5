//! Zobrist keys: fixed pseudo-random numbers, one per (colour, piece, square) and one for Black
//! to move. They come from splitmix64 with a fixed seed, so keys are identical across builds and
//! machines (hashes may be stored or compared between programs of the same version).

use crate::square::{Color, Piece};

const SEED: u64 = 0x6461_6d78_2d72_756c; // "damx-rul"

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// `PIECE_KEYS[color * 2 + piece][bit]`, zero on bits that are not squares.
pub(crate) static PIECE_KEYS: [[u64; 64]; 4] = {
    let mut keys = [[0u64; 64]; 4];
    let mut state = SEED;
    let mut kind = 0;
    while kind < 4 {
        let mut bit = 0;
        while bit < 64 {
            let (next, key) = splitmix64(state);
            state = next;
            if crate::bitboard::ALL_BITS >> bit & 1 != 0 {
                keys[kind][bit] = key;
            }
            bit += 1;
        }
        kind += 1;
    }
    keys
};

/// Xor-ed into the key when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = splitmix64(SEED ^ 0xffff_ffff).1;

/// The key of one piece on one layout bit.
#[inline(always)]
pub(crate) const fn piece_key(color: Color, piece: Piece, bit: u32) -> u64 {
    PIECE_KEYS[color.index() * 2 + piece.index()][bit as usize & 63]
}

/// The xor of the keys of every square in `bits` for one colour and piece kind.
#[inline(always)]
pub(crate) fn keys_of(color: Color, piece: Piece, mut bits: u64) -> u64 {
    let table = &PIECE_KEYS[color.index() * 2 + piece.index()];
    let mut key = 0;
    while bits != 0 {
        key ^= table[bits.trailing_zeros() as usize];
        bits &= bits - 1;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is distinct and non-zero, so no two single-piece changes cancel out.
    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = PIECE_KEYS
            .iter()
            .flat_map(|row| row.iter().copied())
            .filter(|&k| k != 0)
            .collect();
        assert_eq!(all.len(), 200);
        all.push(BLACK_TO_MOVE);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 201);
    }
}
