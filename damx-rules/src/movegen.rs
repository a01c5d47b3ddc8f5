//! Legal move generation and counting on the padded bitboards.
//!
//! Everything here is written from the side to move's point of view (`own`, `opp`) and
//! specialised for White and Black through a const parameter, so the forward shifts of the men
//! are constants.
//!
//! Captures are found by a depth-first search that keeps the captured pieces on the board (they
//! block and cannot be jumped twice) and treats the capturing piece's start square as empty.
//! Only sequences of the greatest length found so far are kept (the majority rule). A king that
//! goes on capturing in the same direction does so from the first square behind the captured
//! piece only, which is both the square PDN writes and the reason the search does not produce the
//! same capture from every landing square of a run. Distinct paths with the same start, end and
//! captured set can then only arise when a capture takes at least [`DUPLICATE_MIN`] pieces (the
//! path must close a loop), so only those are checked against the list for duplicates.

use crate::bitboard::{
    ALL_BITS, DOWN_LEFT, DOWN_RIGHT, RAYS, UP_LEFT, UP_RIGHT, ray_until_blocked,
};
use crate::moves::{Move, MoveList};

/// The shortest capture that can be reached along two different paths.
pub(crate) const DUPLICATE_MIN: u32 = 4;

/// The two directions crossing `dir` (as a bit mask over directions).
const CROSSING: [u8; 4] = [
    1 << UP_LEFT | 1 << DOWN_RIGHT,
    1 << UP_RIGHT | 1 << DOWN_LEFT,
    1 << UP_LEFT | 1 << DOWN_RIGHT,
    1 << UP_RIGHT | 1 << DOWN_LEFT,
];

/// One step in `dir` without masking (callers intersect with a set of real squares).
#[inline(always)]
const fn shift(bits: u64, dir: usize) -> u64 {
    match dir {
        UP_RIGHT => bits >> 5,
        UP_LEFT => bits >> 6,
        DOWN_LEFT => bits << 5,
        _ => bits << 6,
    }
}

/// The pieces of one side about to move, as the generator sees them.
#[derive(Clone, Copy)]
pub(crate) struct Sides {
    pub(crate) own: u64,
    pub(crate) opp: u64,
    pub(crate) kings: u64,
}

impl Sides {
    #[inline(always)]
    fn empty(&self) -> u64 {
        ALL_BITS & !(self.own | self.opp)
    }
}

/// The men of `men` that can capture (in any of the four directions).
#[inline(always)]
fn man_capturers(men: u64, opp: u64, empty: u64) -> u64 {
    let mut found = men & (opp & empty << 5) << 5;
    found |= men & (opp & empty << 6) << 6;
    found |= men & (opp & empty >> 5) >> 5;
    found |= men & (opp & empty >> 6) >> 6;
    found
}

/// Whether one of the kings on `kings` can capture.
#[inline(always)]
fn king_can_capture(mut kings: u64, opp: u64, occupied: u64, empty: u64) -> bool {
    while kings != 0 {
        let at = kings.trailing_zeros() as usize;
        kings &= kings - 1;
        for (dir, rays) in RAYS.iter().enumerate() {
            let (_, blocker) = ray_until_blocked(rays[at], occupied, dir);
            let blocker = 1u64 << blocker;
            if blocker & opp != 0 && shift(blocker, dir) & empty != 0 {
                return true;
            }
        }
    }
    false
}

/// Whether the side to move has a capture.
#[inline]
pub(crate) fn has_capture(sides: Sides) -> bool {
    let empty = sides.empty();
    let men = sides.own & !sides.kings;
    man_capturers(men, sides.opp, empty) != 0
        || king_can_capture(
            sides.own & sides.kings,
            sides.opp,
            sides.own | sides.opp,
            empty,
        )
}

/// The state of one capture search.
struct Captures<'a> {
    list: &'a mut MoveList,
    /// The greatest number of pieces captured so far (0 before any capture).
    best: u32,
    /// The start square of the piece being searched.
    from: u32,
    opp: u64,
    /// Occupied squares without the capturing piece (captured pieces stay).
    occupied: u64,
    /// Empty squares, the capturing piece's start square included.
    empty: u64,
}

impl Captures<'_> {
    #[inline(always)]
    fn record(&mut self, to: u32, captured: u64, count: u32) {
        if count < self.best {
            return;
        }
        let mv = Move::from_bits(self.from, to, captured);
        if count > self.best {
            self.best = count;
            self.list.clear();
        } else if count >= DUPLICATE_MIN && self.list.contains(&mv) {
            return;
        }
        self.list.push(mv);
    }

    /// Continues a man's capture from `at` (a single bit).
    fn man(&mut self, at: u64, captured: u64, count: u32) {
        let available = self.opp & !captured;
        let mut found = false;
        for dir in 0..4 {
            let victim = shift(at, dir) & available;
            if victim != 0 {
                let landing = shift(victim, dir) & self.empty;
                if landing != 0 {
                    found = true;
                    self.man(landing, captured | victim, count + 1);
                }
            }
        }
        if !found && count > 0 {
            self.record(at.trailing_zeros(), captured, count);
        }
    }

    /// Continues a king's capture from bit `at`, trying the directions in `dirs`.
    fn king(&mut self, at: u32, captured: u64, count: u32, dirs: u8) {
        let available = self.opp & !captured;
        let mut found = false;
        for dir in 0..4 {
            if dirs & 1 << dir == 0 {
                continue;
            }
            let (_, victim) = ray_until_blocked(RAYS[dir][at as usize], self.occupied, dir);
            if available >> victim & 1 == 0 {
                continue;
            }
            let (landings, _) = ray_until_blocked(RAYS[dir][victim as usize], self.occupied, dir);
            if landings == 0 {
                continue;
            }
            found = true;
            let captured = captured | 1 << victim;
            // The square right behind the victim: only from there may the king go on straight.
            let nearest = if dir >= DOWN_LEFT {
                landings.trailing_zeros()
            } else {
                63 - landings.leading_zeros()
            };
            self.king(nearest, captured, count + 1, CROSSING[dir] | 1 << dir);
            let mut others = landings & !(1 << nearest);
            while others != 0 {
                let landing = others.trailing_zeros();
                others &= others - 1;
                self.king(landing, captured, count + 1, CROSSING[dir]);
            }
        }
        if !found && count > 0 {
            self.record(at, captured, count);
        }
    }
}

/// Fills `list` with the legal captures (the majority rule applied); leaves it empty when there
/// is none. `man_capturers` must be the men that can capture.
#[inline(never)]
fn generate_captures(sides: Sides, man_capturers: u64, list: &mut MoveList) {
    let occupied = sides.own | sides.opp;
    let mut search = Captures {
        list,
        best: 0,
        from: 0,
        opp: sides.opp,
        occupied,
        empty: ALL_BITS & !occupied,
    };
    let mut men = man_capturers;
    while men != 0 {
        let at = men & men.wrapping_neg();
        men ^= at;
        search.from = at.trailing_zeros();
        search.occupied = occupied ^ at;
        search.empty = ALL_BITS & !search.occupied;
        search.man(at, 0, 0);
    }
    let mut kings = sides.own & sides.kings;
    while kings != 0 {
        let at = kings.trailing_zeros();
        kings &= kings - 1;
        search.from = at;
        search.occupied = occupied ^ 1 << at;
        search.empty = ALL_BITS & !search.occupied;
        search.king(at, 0, 0, 0b1111);
    }
}

/// Fills `list` with the legal moves of the side whose pieces are `sides.own`.
#[inline(always)]
pub(crate) fn generate<const WHITE: bool>(sides: Sides, list: &mut MoveList) {
    list.clear();
    let occupied = sides.own | sides.opp;
    let empty = ALL_BITS & !occupied;
    let men = sides.own & !sides.kings;
    let kings = sides.own & sides.kings;
    let capturing_men = man_capturers(men, sides.opp, empty);
    if capturing_men != 0 || king_can_capture(kings, sides.opp, occupied, empty) {
        generate_captures(sides, capturing_men, list);
        return;
    }
    let (left, right, back_left, back_right) = if WHITE {
        (UP_LEFT, UP_RIGHT, 6, 5)
    } else {
        (DOWN_LEFT, DOWN_RIGHT, -5, -6)
    };
    for (dir, back) in [(left, back_left), (right, back_right)] {
        let mut targets = shift(men, dir) & empty;
        while targets != 0 {
            let to = targets.trailing_zeros();
            targets &= targets - 1;
            list.push(Move::from_bits(to.wrapping_add_signed(back), to, 0));
        }
    }
    let mut kings = kings;
    while kings != 0 {
        let from = kings.trailing_zeros();
        kings &= kings - 1;
        for (dir, rays) in RAYS.iter().enumerate() {
            let (mut targets, _) = ray_until_blocked(rays[from as usize], occupied, dir);
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                list.push(Move::from_bits(from, to, 0));
            }
        }
    }
}

/// The number of legal moves, counted without listing quiet moves. `scratch` is used (and
/// overwritten) when the side to move has captures.
#[inline(always)]
pub(crate) fn count<const WHITE: bool>(sides: Sides, scratch: &mut MoveList) -> u64 {
    let occupied = sides.own | sides.opp;
    let empty = ALL_BITS & !occupied;
    let men = sides.own & !sides.kings;
    let kings = sides.own & sides.kings;
    let capturing_men = man_capturers(men, sides.opp, empty);
    if capturing_men != 0 || king_can_capture(kings, sides.opp, occupied, empty) {
        scratch.clear();
        generate_captures(sides, capturing_men, scratch);
        return scratch.len() as u64;
    }
    let mut total = if WHITE {
        (men >> 5 & empty).count_ones() + (men >> 6 & empty).count_ones()
    } else {
        (men << 5 & empty).count_ones() + (men << 6 & empty).count_ones()
    };
    let mut kings = kings;
    while kings != 0 {
        let from = kings.trailing_zeros() as usize;
        kings &= kings - 1;
        let mut reach = 0;
        for (dir, rays) in RAYS.iter().enumerate() {
            reach |= ray_until_blocked(rays[from], occupied, dir).0;
        }
        total += reach.count_ones();
    }
    u64::from(total)
}

/// Whether the side to move has any legal move (cheaper than listing them).
pub(crate) fn has_move<const WHITE: bool>(sides: Sides) -> bool {
    let empty = sides.empty();
    let men = sides.own & !sides.kings;
    let kings = sides.own & sides.kings;
    let forward = if WHITE {
        men >> 5 | men >> 6
    } else {
        men << 5 | men << 6
    };
    let king_steps = (0..4).fold(0, |all, dir| all | shift(kings, dir));
    (forward | king_steps) & empty != 0 || has_capture(sides)
}
