//! Board geometry on the rules crate's padded bitboard layout, seen from White.
//!
//! Square index `i` (number - 1) lives at bit `i + i / 10 + 1` (see `damx_rules::bitboard`).
//! Turning the board half a turn maps square `n` to `51 - n` and bit `b` to `55 - b`, so
//! Black's pieces can be evaluated with White's code after [`mirror`].

use damx_rules::Bitboard;

/// The fifty board bits.
pub(crate) const ALL: u64 = Bitboard::ALL.bits();

/// The board turned half a turn: Black's pieces seen as White's.
#[inline(always)]
pub(crate) const fn mirror(bits: u64) -> u64 {
    bits.reverse_bits() >> 8
}

/// One step towards White's promotion row, to the right (28 -> 23).
#[inline(always)]
pub(crate) const fn up_right(bits: u64) -> u64 {
    (bits >> 5) & ALL
}

/// One step towards White's promotion row, to the left (28 -> 22).
#[inline(always)]
pub(crate) const fn up_left(bits: u64) -> u64 {
    (bits >> 6) & ALL
}

/// One step towards White's back row, to the left (28 -> 32).
#[inline(always)]
pub(crate) const fn down_left(bits: u64) -> u64 {
    (bits << 5) & ALL
}

/// One step towards White's back row, to the right (28 -> 33).
#[inline(always)]
pub(crate) const fn down_right(bits: u64) -> u64 {
    (bits << 6) & ALL
}

/// The bit of square number `n` (1..=50).
pub(crate) const fn bit_of(n: usize) -> u32 {
    let i = n - 1;
    (i + i / 10 + 1) as u32
}

/// A set of square numbers as layout bits.
pub(crate) const fn squares(numbers: &[usize]) -> u64 {
    let mut bits = 0u64;
    let mut k = 0;
    while k < numbers.len() {
        bits |= 1 << bit_of(numbers[k]);
        k += 1;
    }
    bits
}

/// For each layout bit, the square number living there (0 for bits that are not squares).
pub(crate) const NUMBER_OF_BIT: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut n = 1;
    while n <= 50 {
        table[bit_of(n) as usize] = n as u8;
        n += 1;
    }
    table
};

/// The row of square `n`: 0 for 1..=5 (White's promotion row) to 9 for 46..=50.
pub(crate) const fn row_of(n: usize) -> usize {
    (n - 1) / 5
}

/// The column of square `n`: 0 (the a-file) to 9.
pub(crate) const fn column_of(n: usize) -> usize {
    let within = (n - 1) % 5;
    if row_of(n).is_multiple_of(2) {
        within * 2 + 1
    } else {
        within * 2
    }
}

/// The squares of columns 0..=4 (White's left half).
pub(crate) const LEFT_HALF: u64 = {
    let mut bits = 0u64;
    let mut n = 1;
    while n <= 50 {
        if column_of(n) < 5 {
            bits |= 1 << bit_of(n);
        }
        n += 1;
    }
    bits
};

/// The squares of columns 5..=9.
pub(crate) const RIGHT_HALF: u64 = ALL & !LEFT_HALF;

/// The squares of board row `row`.
pub(crate) const fn row_bits(row: usize) -> u64 {
    let mut bits = 0u64;
    let mut n = row * 5 + 1;
    while n <= row * 5 + 5 {
        bits |= 1 << bit_of(n);
        n += 1;
    }
    bits
}

/// The long diagonal 46-5.
pub(crate) const LONG_DIAGONAL: u64 = squares(&[46, 41, 37, 32, 28, 23, 19, 14, 10, 5]);

/// For a White man on each bit: the squares in front of it from which an opponent piece could
/// stop it on its way to promotion (the widening triangle ahead of it, one column wider on
/// each side than the man itself can reach). Empty for bits that are not squares.
pub(crate) const PROMOTION_CONE: [u64; 64] = {
    let mut cones = [0u64; 64];
    let mut n = 1;
    while n <= 50 {
        let (row, column) = (row_of(n), column_of(n));
        let mut cone = 0u64;
        let mut m = 1;
        while m <= 50 {
            let (r, c) = (row_of(m), column_of(m));
            if r < row {
                let reach = row - r + 1;
                let distance = c.abs_diff(column);
                if distance <= reach {
                    cone |= 1 << bit_of(m);
                }
            }
            m += 1;
        }
        cones[bit_of(n) as usize] = cone;
        n += 1;
    }
    cones
};

/// `RAYS[direction][bit]`: the squares seen from a bit along a diagonal on an empty board,
/// nearest first in the direction of the shift (directions: up-right, up-left, down-left,
/// down-right).
pub(crate) const RAYS: [[u64; 64]; 4] = {
    let mut rays = [[0u64; 64]; 4];
    let mut n = 1;
    while n <= 50 {
        let start = 1u64 << bit_of(n);
        let mut dir = 0;
        while dir < 4 {
            let mut ray = 0u64;
            let mut at = step(start, dir);
            while at != 0 {
                ray |= at;
                at = step(at, dir);
            }
            rays[dir][bit_of(n) as usize] = ray;
            dir += 1;
        }
        n += 1;
    }
    rays
};

const fn step(bits: u64, dir: usize) -> u64 {
    match dir {
        0 => up_right(bits),
        1 => up_left(bits),
        2 => down_left(bits),
        _ => down_right(bits),
    }
}

/// The empty squares a king on `bit` sees along its four diagonals.
#[inline]
pub(crate) fn king_reach(bit: u32, occupied: u64) -> u64 {
    let mut reach = 0u64;
    for (dir, rays) in RAYS.iter().enumerate() {
        let ray = rays[bit as usize];
        let blockers = ray & occupied;
        reach |= if dir < 2 {
            // Towards lower bits: the nearest blocker is the highest.
            if blockers == 0 {
                ray
            } else {
                ray & !((1u64 << (63 - blockers.leading_zeros() + 1)) - 1)
            }
        } else if blockers == 0 {
            ray
        } else {
            ray & ((1u64 << blockers.trailing_zeros()) - 1)
        };
    }
    reach
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_rules::Square;

    fn set(numbers: &[usize]) -> u64 {
        squares(numbers)
    }

    /// The bit layout agrees with the rules crate's bitboards.
    #[test]
    fn layout_matches_the_rules_crate() {
        for square in Square::all() {
            let n = square.number() as usize;
            assert_eq!(Bitboard::from_square(square).bits(), 1 << bit_of(n));
            assert_eq!(NUMBER_OF_BIT[bit_of(n) as usize] as usize, n);
            assert_eq!(row_of(n), square.row() as usize);
            assert_eq!(column_of(n), square.column() as usize);
        }
        assert_eq!(ALL.count_ones(), 50);
    }

    /// Half a turn maps square n to 51 - n.
    #[test]
    fn mirror_turns_the_board() {
        for n in 1..=50 {
            assert_eq!(mirror(set(&[n])), set(&[51 - n]));
        }
        assert_eq!(mirror(LONG_DIAGONAL), LONG_DIAGONAL);
        assert_eq!(mirror(LEFT_HALF), RIGHT_HALF);
    }

    /// Steps follow the diagonals and drop off the board at the edges.
    #[test]
    fn steps() {
        assert_eq!(up_right(set(&[28])), set(&[23]));
        assert_eq!(up_left(set(&[28])), set(&[22]));
        assert_eq!(down_left(set(&[28])), set(&[32]));
        assert_eq!(down_right(set(&[28])), set(&[33]));
        assert_eq!(up_left(set(&[26])), 0);
        assert_eq!(up_right(set(&[5])), 0);
        assert_eq!(down_right(set(&[35])), 0);
        assert_eq!(up_right(set(&[15])), 0);
    }

    /// A king sees up to the first piece on each diagonal.
    #[test]
    fn king_reach_stops_at_pieces() {
        let bit = bit_of(28);
        assert_eq!(king_reach(bit, 0).count_ones(), 17);
        let reach = king_reach(bit, set(&[19, 33]));
        assert!(reach & set(&[23]) != 0 && reach & set(&[19, 14, 33, 39]) == 0);
        // 23; 22, 17, 11, 6; 32, 37, 41, 46; nothing towards 33.
        assert_eq!(reach.count_ones(), 9);
    }

    /// The cone of a man on 13 covers the squares ahead of it.
    #[test]
    fn promotion_cone() {
        let cone = PROMOTION_CONE[bit_of(13) as usize];
        assert_eq!(cone & set(&[8, 9, 2, 3, 4, 7, 10]), set(&[8, 9, 2, 3, 4]));
        assert_eq!(cone & set(&[13, 18, 19, 12, 14, 1, 5]), 0);
    }
}
