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
//!
//! Two shortcuts keep the common cases cheap. When the side to move has no king and no man's
//! capture can go on after its first jump ([`ManJumps::all_single`]), the captures are listed, or
//! counted, straight from shifted boards without a search. And since the occupancy does not
//! change during a capture, a king's search first works out, per direction, the squares from
//! which a capture in that direction is possible at all ([`king_launch`]): hopeless directions
//! cost a bit test, and landing squares with nothing more to take end the capture without being
//! searched.

use crate::bitboard::{
    ALL_BITS, DOWN_LEFT, DOWN_RIGHT, RAYS, UP_LEFT, UP_RIGHT, ray_until_blocked,
};
use crate::moves::{Move, MoveList};

/// The shortest capture that can be reached along two different paths.
pub(crate) const DUPLICATE_MIN: u32 = 4;

/// The direction opposite to each direction.
const REVERSE: [usize; 4] = [DOWN_LEFT, DOWN_RIGHT, UP_RIGHT, UP_LEFT];

/// The two directions crossing each direction.
const CROSSING_PAIR: [[usize; 2]; 4] = [
    [UP_LEFT, DOWN_RIGHT],
    [UP_RIGHT, DOWN_LEFT],
    [UP_LEFT, DOWN_RIGHT],
    [UP_RIGHT, DOWN_LEFT],
];

/// The two directions crossing each direction, as a bit mask over directions.
const CROSSING: [u8; 4] = {
    let mut masks = [0; 4];
    let mut dir = 0;
    while dir < 4 {
        masks[dir] = 1 << CROSSING_PAIR[dir][0] | 1 << CROSSING_PAIR[dir][1];
        dir += 1;
    }
    masks
};

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

/// One-jump man captures, per direction: `launch[dir]` are the squares from which a man would
/// jump an opponent in direction `dir` onto an empty square, `from[dir]` the men standing there.
#[derive(Clone, Copy)]
struct ManJumps {
    launch: [u64; 4],
    from: [u64; 4],
}

impl ManJumps {
    #[inline(always)]
    fn new(men: u64, opp: u64, empty: u64) -> ManJumps {
        let launch = [
            (opp & empty << 5) << 5,
            (opp & empty << 6) << 6,
            (opp & empty >> 5) >> 5,
            (opp & empty >> 6) >> 6,
        ];
        ManJumps {
            launch,
            from: launch.map(|squares| squares & men),
        }
    }

    /// The men that can capture.
    #[inline(always)]
    fn capturers(&self) -> u64 {
        self.from[0] | self.from[1] | self.from[2] | self.from[3]
    }

    /// Whether no man capture can go on after its first jump, so that every capture takes
    /// exactly one piece. A man landing after a jump in direction `dir` could only go on in
    /// `dir` or the two crossing directions (going back means jumping the piece it has just
    /// taken, which stays on the board), and none of those can land on its start square, so
    /// the launch squares of the unchanged board answer the question for all men at once.
    #[inline(always)]
    fn all_single(&self) -> bool {
        let [up_right, up_left, down_left, down_right] = self.launch;
        let onward = [
            up_right | up_left | down_right,
            up_left | up_right | down_left,
            down_left | up_left | down_right,
            down_right | up_right | down_left,
        ];
        let mut continues = 0;
        for (dir, onward) in onward.into_iter().enumerate() {
            continues |= shift(shift(self.from[dir], dir), dir) & onward;
        }
        continues == 0
    }

    /// Lists the one-jump captures (when [`ManJumps::all_single`] holds and no king captures).
    #[inline(always)]
    fn push_single(&self, list: &mut MoveList) {
        for (dir, &from) in self.from.iter().enumerate() {
            let mut from = from;
            while from != 0 {
                let at = from & from.wrapping_neg();
                from ^= at;
                let victim = shift(at, dir);
                let landing = shift(victim, dir);
                list.push(Move::from_bits(
                    at.trailing_zeros(),
                    landing.trailing_zeros(),
                    victim,
                ));
            }
        }
    }

    /// The number of one-jump captures.
    #[inline(always)]
    fn count_single(&self) -> u32 {
        self.from.iter().map(|from| from.count_ones()).sum()
    }
}

/// The men of `men` that can capture (in any of the four directions).
#[inline(always)]
fn man_capturers(men: u64, opp: u64, empty: u64) -> u64 {
    ManJumps::new(men, opp, empty).capturers()
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
    /// For a king's search, see [`king_launch`].
    launch: [u64; 4],
}

/// `launch[dir]`: the empty squares from which a king going in `dir` meets an opponent piece
/// with an empty square right behind it. Captured pieces stay on the board until the capture
/// ends, so the occupancy, and with it this set, holds for a whole capture search. The search
/// only needs a superset: a square outside it cannot start a capture in that direction, a square
/// inside it is checked (it may promise a piece already taken).
#[inline(always)]
fn king_launch(opp: u64, empty: u64) -> [u64; 4] {
    let mut launch = [0; 4];
    for (dir, launch) in launch.iter_mut().enumerate() {
        let back = REVERSE[dir];
        let victims = opp & shift(empty, back);
        let mut reach = shift(victims, back) & empty;
        let mut frontier = reach;
        while frontier != 0 {
            frontier = shift(frontier, back) & empty;
            reach |= frontier;
        }
        *launch = reach;
    }
    launch
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
            if dirs & 1 << dir == 0 || self.launch[dir] >> at & 1 == 0 {
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
            let [across, across_back] = CROSSING_PAIR[dir];
            let mut onward = landings & (self.launch[across] | self.launch[across_back]);
            if self.launch[dir] >> nearest & 1 != 0 {
                onward |= 1 << nearest;
            }
            // Landing squares from which nothing more can be taken end the capture here.
            let mut ends = landings & !onward;
            while ends != 0 {
                let landing = ends.trailing_zeros();
                ends &= ends - 1;
                self.record(landing, captured, count + 1);
            }
            while onward != 0 {
                let landing = onward.trailing_zeros();
                onward &= onward - 1;
                let straight = if landing == nearest { 1 << dir } else { 0 };
                self.king(landing, captured, count + 1, CROSSING[dir] | straight);
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
        launch: [0; 4],
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
    if kings != 0 {
        // Computed once for all kings with every king's square counted as empty: a superset of
        // each king's own launch squares (where only its own start square is empty), which is
        // all the search needs.
        search.launch = king_launch(sides.opp, ALL_BITS & !(occupied ^ kings));
    }
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
    let jumps = ManJumps::new(men, sides.opp, empty);
    let capturing_men = jumps.capturers();
    if capturing_men != 0 || king_can_capture(kings, sides.opp, occupied, empty) {
        if kings == 0 && jumps.all_single() {
            jumps.push_single(list);
        } else {
            generate_captures(sides, capturing_men, list);
        }
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
    let jumps = ManJumps::new(men, sides.opp, empty);
    let capturing_men = jumps.capturers();
    if capturing_men != 0 || king_can_capture(kings, sides.opp, occupied, empty) {
        if kings == 0 && jumps.all_single() {
            return u64::from(jumps.count_single());
        }
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
