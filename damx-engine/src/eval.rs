//! The static evaluation: a weighted sum of draughts knowledge, with weights fitted to game
//! results.
//!
//! Every feature is counted for White and for Black (Black's pieces through the board turned
//! half a turn, so that one piece of code serves both) and enters as White's count minus
//! Black's. Each feature has two weights, one for the opening (all 40 men on the board) and
//! one for the ending (no men left); the evaluation blends them by the number of men still on
//! the board. Some king endings are then scaled towards a draw by hand-written rules (below).
//!
//! The features ([`feature_names`] lists them in weight order):
//!
//! - `man`, `king`: material.
//! - `square 6` .. `square 50`: a man on that square, from its owner's side (Black's square
//!   `n` is White's `51 - n`). This one table carries tempo and development (how far the men
//!   have advanced), centre control and the back-row guard (the men on 46..50 that keep the
//!   opponent from breaking through), in the opening and in the ending separately.
//! - `balance`: the difference between the men on the left and the right half of the board.
//! - `mobility`: forward steps the men can make now; `king mobility`: the empty squares the
//!   kings see.
//! - `chain`: men backed by a piece diagonally behind them (formations, locked wings).
//! - `outpost supported` / `outpost loose`: a man on the opponent's side of the centre (its
//!   owner's row 5, squares 21..25 for White) with both squares behind it held, or not.
//! - `threatened`: pieces an opponent man could take right now (at a quiet position only the
//!   side to move can have them).
//! - `runaway 1` .. `runaway 5`: a man that many rows from promotion with nothing of the
//!   opponent in the triangle in front of it and no opponent king.
//! - `king on long diagonal`: a king on the main diagonal 46-5 (the lone king's fortress).
//! - `blocked`: men that cannot step forward (both squares ahead taken or off the board):
//!   locked wings and hooks.
//! - `sole kings`: having kings when the opponent has none (the first king is worth more than
//!   its material).
//! - `to move`: the side to move (tempo in the ending).
//!
//! The weights the engine plays with ([`EvalParams::default`]) are fitted to self-play results
//! by `cargo xtask tune` (logistic regression: the cross-entropy between each position's game
//! result and `sigmoid(k * evaluation)`, minimised over the weights with the man held at 100)
//! and written to `src/weights.rs`, whose header gives the exact command that produced them.
//! [`EvalParams::hand_set`] is the starting point of that fit.
//!
//! Endgame rules applied on top (scaling the score towards zero): kings against a lone king
//! are drawn with two kings or fewer, and with three when the lone king holds the long
//! diagonal; a lone king against at most three pieces including men, or two or more kings
//! against at most two more kings, is drawish.

use std::fmt;
use std::sync::Arc;

use damx_rules::{Color, Position};

use crate::board::{
    self, LEFT_HALF, LONG_DIAGONAL, PROMOTION_CONE, down_left, down_right, mirror, up_left,
    up_right,
};
use crate::pattern::{Base, PatternWeights};
use crate::score::Score;
use crate::weights;

/// Feature index of `man` (its weight, 100, is the unit of the scale).
pub const MAN: usize = 0;
/// Feature index of `king`.
const KING: usize = 1;
/// Feature index of `square 6`; square `n` is at `SQUARE + n - 6`.
const SQUARE: usize = 2;
const BALANCE: usize = SQUARE + 45;
const MOBILITY: usize = BALANCE + 1;
const KING_MOBILITY: usize = MOBILITY + 1;
const CHAIN: usize = KING_MOBILITY + 1;
const OUTPOST_SUPPORTED: usize = CHAIN + 1;
const OUTPOST_LOOSE: usize = OUTPOST_SUPPORTED + 1;
const THREATENED: usize = OUTPOST_LOOSE + 1;
/// Feature index of `runaway 1`; `runaway d` is at `RUNAWAY + d - 1`.
const RUNAWAY: usize = THREATENED + 1;
const LONG_DIAGONAL_KING: usize = RUNAWAY + 5;
const BLOCKED: usize = LONG_DIAGONAL_KING + 1;
const SOLE_KINGS: usize = BLOCKED + 1;
const TO_MOVE: usize = SOLE_KINGS + 1;

/// The number of features (and of weights per phase).
pub const FEATURE_COUNT: usize = TO_MOVE + 1;

/// The men on the board when the opening weights apply in full.
pub const PHASE_MAX: i32 = 40;

/// The feature names in weight order.
pub fn feature_names() -> &'static [&'static str; FEATURE_COUNT] {
    &FEATURE_NAMES
}

const FEATURE_NAMES: [&str; FEATURE_COUNT] = {
    const SQUARE_NAMES: [&str; 45] = [
        "square 6",
        "square 7",
        "square 8",
        "square 9",
        "square 10",
        "square 11",
        "square 12",
        "square 13",
        "square 14",
        "square 15",
        "square 16",
        "square 17",
        "square 18",
        "square 19",
        "square 20",
        "square 21",
        "square 22",
        "square 23",
        "square 24",
        "square 25",
        "square 26",
        "square 27",
        "square 28",
        "square 29",
        "square 30",
        "square 31",
        "square 32",
        "square 33",
        "square 34",
        "square 35",
        "square 36",
        "square 37",
        "square 38",
        "square 39",
        "square 40",
        "square 41",
        "square 42",
        "square 43",
        "square 44",
        "square 45",
        "square 46",
        "square 47",
        "square 48",
        "square 49",
        "square 50",
    ];
    let mut names = [""; FEATURE_COUNT];
    names[MAN] = "man";
    names[KING] = "king";
    let mut i = 0;
    while i < 45 {
        names[SQUARE + i] = SQUARE_NAMES[i];
        i += 1;
    }
    names[BALANCE] = "balance";
    names[MOBILITY] = "mobility";
    names[KING_MOBILITY] = "king mobility";
    names[CHAIN] = "chain";
    names[OUTPOST_SUPPORTED] = "outpost supported";
    names[OUTPOST_LOOSE] = "outpost loose";
    names[THREATENED] = "threatened";
    names[RUNAWAY] = "runaway 1";
    names[RUNAWAY + 1] = "runaway 2";
    names[RUNAWAY + 2] = "runaway 3";
    names[RUNAWAY + 3] = "runaway 4";
    names[RUNAWAY + 4] = "runaway 5";
    names[LONG_DIAGONAL_KING] = "king on long diagonal";
    names[BLOCKED] = "blocked";
    names[SOLE_KINGS] = "sole kings";
    names[TO_MOVE] = "to move";
    names
};

/// The evaluation weights, in centi-men per unit of each feature, for the opening and for the
/// ending.
///
/// [`EvalParams::default`] is the evaluation the engine plays with: the built-in pattern weights
/// on the hand features ([`EvalParams::pattern`]). [`EvalParams::tuned`] is the hand features
/// alone with their tuned weights, [`EvalParams::hand_set`] the starting point of their tuning.
/// Weights can be read from and written to a small text format (one `name mg eg` line per
/// feature) to compare weight sets in the gauntlet.
///
/// With [`EvalParams::patterns`] set, the engine evaluates with the pattern evaluation
/// ([`crate::pattern`]): those weights alone, or added to the hand features when their
/// [`Base`] is the hand evaluation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EvalParams {
    /// Opening weights, in [`feature_names`] order.
    pub opening: [i32; FEATURE_COUNT],
    /// Ending weights, in [`feature_names`] order.
    pub ending: [i32; FEATURE_COUNT],
    /// Pattern weights: when set, the pattern evaluation replaces the hand features or, on
    /// [`Base::Hand`], corrects them.
    pub patterns: Option<Arc<PatternWeights>>,
}

impl Default for EvalParams {
    /// The evaluation the engine plays with: [`EvalParams::pattern`].
    fn default() -> EvalParams {
        EvalParams::pattern()
    }
}

/// The evaluations a user chooses between (`--eval`, a participant's `eval=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EvalKind {
    /// The hand-written features with their tuned weights: [`EvalParams::tuned`].
    Hand,
    /// The pattern tables: [`EvalParams::pattern`].
    #[default]
    Pattern,
}

impl EvalParams {
    /// The evaluation a user chose: a pattern weights file when given (it implies the pattern
    /// evaluation), else the `kind` named.
    pub fn of_kind(kind: EvalKind, weights: Option<Arc<PatternWeights>>) -> EvalParams {
        match (weights, kind) {
            (Some(weights), _) => EvalParams::with_patterns(weights),
            (None, EvalKind::Pattern) => EvalParams::pattern(),
            (None, EvalKind::Hand) => EvalParams::tuned(),
        }
    }

    /// The hand features alone, with their tuned weights.
    pub fn tuned() -> EvalParams {
        EvalParams {
            opening: weights::OPENING,
            ending: weights::ENDING,
            patterns: None,
        }
    }

    /// The pattern evaluation with `weights` (on the tuned hand features when their base is
    /// the hand evaluation).
    pub fn with_patterns(weights: Arc<PatternWeights>) -> EvalParams {
        EvalParams {
            patterns: Some(weights),
            ..EvalParams::tuned()
        }
    }

    /// The pattern evaluation with the built-in weights (`damx-engine/weights/pattern.dxw`).
    pub fn pattern() -> EvalParams {
        EvalParams::with_patterns(PatternWeights::builtin())
    }

    /// Weights set by hand from draughts knowledge, before any tuning.
    pub fn hand_set() -> EvalParams {
        let mut opening = [0; FEATURE_COUNT];
        let mut ending = [0; FEATURE_COUNT];
        opening[MAN] = 100;
        ending[MAN] = 100;
        opening[KING] = 300;
        ending[KING] = 350;
        for n in 6..=50 {
            let (row, column) = (board::row_of(n) as i32, board::column_of(n) as i32);
            let advance = 9 - row;
            let centre = 4 - (2 * column - 9).abs() / 2;
            opening[SQUARE + n - 6] = 2 * centre + advance;
            ending[SQUARE + n - 6] = 4 * advance;
        }
        for n in [47, 48, 49] {
            opening[SQUARE + n - 6] += 8;
        }
        opening[BALANCE] = -3;
        opening[MOBILITY] = 2;
        ending[MOBILITY] = 2;
        opening[KING_MOBILITY] = 1;
        ending[KING_MOBILITY] = 2;
        opening[CHAIN] = 3;
        ending[CHAIN] = 1;
        opening[OUTPOST_SUPPORTED] = 6;
        opening[OUTPOST_LOOSE] = -4;
        opening[THREATENED] = -10;
        ending[THREATENED] = -10;
        let runaway = [200, 120, 70, 40, 20];
        for (d, value) in runaway.into_iter().enumerate() {
            opening[RUNAWAY + d] = value / 2;
            ending[RUNAWAY + d] = value;
        }
        ending[LONG_DIAGONAL_KING] = 20;
        opening[BLOCKED] = -3;
        ending[BLOCKED] = -5;
        opening[SOLE_KINGS] = 50;
        ending[SOLE_KINGS] = 50;
        ending[TO_MOVE] = 5;
        EvalParams {
            opening,
            ending,
            patterns: None,
        }
    }

    /// Reads weights written by [`EvalParams::to_text`]: one line per feature, the name, the
    /// opening weight and the ending weight; `#` starts a comment. Every feature must appear
    /// once.
    pub fn from_text(text: &str) -> Result<EvalParams, ParamsError> {
        let mut opening = [0; FEATURE_COUNT];
        let mut ending = [0; FEATURE_COUNT];
        let mut seen = [false; FEATURE_COUNT];
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let error = |kind| ParamsError {
                line: number + 1,
                kind,
            };
            let mut fields = line.rsplitn(3, char::is_whitespace);
            let (Some(end), Some(open), Some(name)) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(error(ParamsErrorKind::Malformed));
            };
            let name = name.trim();
            let index = FEATURE_NAMES
                .iter()
                .position(|known| *known == name)
                .ok_or_else(|| error(ParamsErrorKind::UnknownFeature(name.to_string())))?;
            if seen[index] {
                return Err(error(ParamsErrorKind::Duplicate(name.to_string())));
            }
            seen[index] = true;
            let weight = |text: &str| {
                text.parse::<i32>()
                    .ok()
                    .filter(|w| w.abs() <= MAX_WEIGHT)
                    .ok_or_else(|| error(ParamsErrorKind::BadWeight(text.to_string())))
            };
            opening[index] = weight(open)?;
            ending[index] = weight(end)?;
        }
        if let Some(missing) = seen.iter().position(|seen| !seen) {
            return Err(ParamsError {
                line: 0,
                kind: ParamsErrorKind::Missing(FEATURE_NAMES[missing].to_string()),
            });
        }
        Ok(EvalParams {
            opening,
            ending,
            patterns: None,
        })
    }

    /// The weights as text, one `name opening ending` line per feature.
    pub fn to_text(&self) -> String {
        let mut text = String::from("# feature, opening weight, ending weight (centi-men)\n");
        for (i, name) in FEATURE_NAMES.iter().enumerate() {
            text.push_str(&format!("{name} {} {}\n", self.opening[i], self.ending[i]));
        }
        text
    }
}

/// The largest weight [`EvalParams::from_text`] accepts: larger ones could overflow the sum.
pub const MAX_WEIGHT: i32 = 10_000;

/// A weights text that could not be read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParamsError {
    /// The 1-based line (0 when the error concerns the whole text).
    pub line: usize,
    /// What was wrong.
    pub kind: ParamsErrorKind,
}

/// What was wrong with a weights text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParamsErrorKind {
    /// A line is not `name opening ending`.
    Malformed,
    /// A name that is not a feature.
    UnknownFeature(String),
    /// A feature given twice.
    Duplicate(String),
    /// A weight that is not an integer within [`MAX_WEIGHT`].
    BadWeight(String),
    /// A feature that is not given.
    Missing(String),
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            ParamsErrorKind::Malformed => write!(f, "expected `name opening ending`"),
            ParamsErrorKind::UnknownFeature(name) => write!(f, "unknown feature `{name}`"),
            ParamsErrorKind::Duplicate(name) => write!(f, "feature `{name}` given twice"),
            ParamsErrorKind::BadWeight(text) => write!(f, "bad weight `{text}`"),
            ParamsErrorKind::Missing(name) => write!(f, "feature `{name}` missing"),
        }
    }
}

impl std::error::Error for ParamsError {}

/// Receives feature counts as the evaluation finds them.
trait Sink {
    fn add(&mut self, feature: usize, count: i32);
}

/// Sums weighted counts, for play.
struct Weighted<'a> {
    params: &'a EvalParams,
    opening: i32,
    ending: i32,
}

impl Sink for Weighted<'_> {
    #[inline(always)]
    fn add(&mut self, feature: usize, count: i32) {
        self.opening += self.params.opening[feature] * count;
        self.ending += self.params.ending[feature] * count;
    }
}

/// Keeps the counts, for tuning.
struct Counts([i32; FEATURE_COUNT]);

impl Sink for Counts {
    fn add(&mut self, feature: usize, count: i32) {
        self.0[feature] += count;
    }
}

/// The pieces as the evaluation sees them: White's and Black's men and kings, and how many of
/// each there are.
#[derive(Clone, Copy)]
struct Material {
    white_men: u64,
    white_kings: u64,
    black_men: u64,
    black_kings: u64,
    counts: PieceCounts,
}

/// The number of men and kings of each side.
#[derive(Clone, Copy)]
struct PieceCounts {
    white_men: i32,
    white_kings: i32,
    black_men: i32,
    black_kings: i32,
}

impl Material {
    #[inline(always)]
    fn of(position: &Position) -> Material {
        Material::from_bits(
            position.men(Color::White).bits(),
            position.kings(Color::White).bits(),
            position.men(Color::Black).bits(),
            position.kings(Color::Black).bits(),
        )
    }

    #[inline(always)]
    fn from_bits(white_men: u64, white_kings: u64, black_men: u64, black_kings: u64) -> Material {
        let count = |bits: u64| bits.count_ones() as i32;
        Material {
            white_men,
            white_kings,
            black_men,
            black_kings,
            counts: PieceCounts {
                white_men: count(white_men),
                white_kings: count(white_kings),
                black_men: count(black_men),
                black_kings: count(black_kings),
            },
        }
    }

    /// Men on the board, 0..=40.
    #[inline(always)]
    fn phase(&self) -> i32 {
        (self.counts.white_men + self.counts.black_men).min(40)
    }

    /// The divisor that pulls drawish endings towards zero (1 for everything else).
    #[inline(always)]
    fn divisor(&self) -> i32 {
        let PieceCounts {
            white_men: wm,
            white_kings: wk,
            black_men: bm,
            black_kings: bk,
        } = self.counts;
        let white_worth = wm + 3 * wk;
        let black_worth = bm + 3 * bk;
        // The weaker side must have a king to hold a draw.
        let (strong_men, strong_kings, weak_men, weak_kings, weak_bits) =
            if white_worth > black_worth {
                (wm, wk, bm, bk, self.black_kings)
            } else if black_worth > white_worth {
                (bm, bk, wm, wk, self.white_kings)
            } else {
                return 1;
            };
        if weak_kings == 0 {
            return 1;
        }
        let strong = strong_men + strong_kings;
        if weak_men == 0 && weak_kings == 1 {
            if strong_men == 0 {
                return match strong_kings {
                    ..=2 => 16,
                    3 if weak_bits & LONG_DIAGONAL != 0 => 16,
                    3 => 2,
                    _ => 1,
                };
            }
            if strong <= 3 {
                return 4;
            }
        }
        if weak_men == 0 && strong_men == 0 && strong_kings < weak_kings + 3 {
            return 8;
        }
        1
    }
}

/// `opening` and `ending` blended by `phase` (men on the board) and divided by `divisor`.
#[inline(always)]
pub(crate) fn blend(opening: i32, ending: i32, phase: i32, divisor: i32) -> i32 {
    let white = (opening * phase + ending * (PHASE_MAX - phase)) / PHASE_MAX;
    // Most positions are not drawish: no division for them.
    if divisor == 1 { white } else { white / divisor }
}

/// The features of one side that are plain counts (everything but the men's squares and
/// runaways), for White or for Black seen as White. Both sides' counts share their weights, so
/// they enter the sum once, as White's minus Black's.
#[derive(Clone, Copy)]
struct SideCounts {
    balance: i32,
    mobility: i32,
    king_mobility: i32,
    long_diagonal_king: i32,
    chain: i32,
    blocked: i32,
    sole_kings: i32,
    outpost_supported: i32,
    outpost_loose: i32,
    threatened: i32,
}

impl SideCounts {
    /// Each count with the feature it is the value of.
    #[inline(always)]
    fn by_feature(self) -> [(usize, i32); 10] {
        [
            (BALANCE, self.balance),
            (MOBILITY, self.mobility),
            (KING_MOBILITY, self.king_mobility),
            (LONG_DIAGONAL_KING, self.long_diagonal_king),
            (CHAIN, self.chain),
            (BLOCKED, self.blocked),
            (SOLE_KINGS, self.sole_kings),
            (OUTPOST_SUPPORTED, self.outpost_supported),
            (OUTPOST_LOOSE, self.outpost_loose),
            (THREATENED, self.threatened),
        ]
    }
}

/// Counts the features of one side (White, or Black seen as White): the men's squares and
/// runaways go to `sink` with `sign` (1 for White, -1 for Black), the rest is returned.
/// `men_count` is the number of `own_men`.
#[inline(always)]
fn side_features<S: Sink>(
    sink: &mut S,
    own_men: u64,
    own_kings: u64,
    opp_men: u64,
    opp_kings: u64,
    men_count: i32,
    sign: i32,
) -> SideCounts {
    let own = own_men | own_kings;
    let opp = opp_men | opp_kings;
    let empty = board::ALL & !(own | opp);

    // A man runs away to promotion only while the opponent has no king to stop it.
    let runaways = opp_kings == 0;
    let mut men = own_men;
    while men != 0 {
        let bit = men.trailing_zeros() as usize;
        men &= men - 1;
        if let Some(feature) = SQUARE_FEATURE[bit] {
            sink.add(feature as usize, sign);
        }
        if runaways
            && let Some(feature) = RUNAWAY_FEATURE[bit]
            && PROMOTION_CONE[bit] & opp == 0
        {
            sink.add(feature as usize, sign);
        }
    }

    // The two halves cover the board: the right half holds the men the left does not.
    let left = (own_men & LEFT_HALF).count_ones() as i32;
    let balance = (left - (men_count - left)).abs();

    let mobility = count_two(up_right(own_men) & empty, up_left(own_men) & empty);

    let (king_mobility, long_diagonal_king) = if own_kings != 0 {
        let occupied = own | opp;
        let mut kings = own_kings;
        let mut reach = 0;
        while kings != 0 {
            let bit = kings.trailing_zeros();
            kings &= kings - 1;
            reach += board::king_reach(bit, occupied).count_ones();
        }
        (
            reach as i32,
            (own_kings & LONG_DIAGONAL).count_ones() as i32,
        )
    } else {
        (0, 0)
    };

    // A man at bit b is backed on the left by a piece at down_left(b), that is b is in
    // up_right(own).
    let backed_left = own_men & up_right(own);
    let backed_right = own_men & up_left(own);
    let chain = count_two(backed_left, backed_right);

    let can_step = down_left(empty) | down_right(empty);
    let blocked = (own_men & !can_step).count_ones() as i32;
    let sole_kings = i32::from(own_kings != 0 && opp_kings == 0);

    let outposts = own_men & board::row_bits(4);
    let supported = outposts & backed_left & backed_right;
    let outpost_supported = supported.count_ones() as i32;
    let outpost_loose = (outposts & !supported).count_ones() as i32;

    // Own pieces an opponent man next to them can jump: the man on one side, an empty square
    // on the other.
    let threatened = own
        & ((down_left(opp_men) & up_right(empty))
            | (down_right(opp_men) & up_left(empty))
            | (up_right(opp_men) & down_left(empty))
            | (up_left(opp_men) & down_right(empty)));
    SideCounts {
        balance,
        mobility,
        king_mobility,
        long_diagonal_king,
        chain,
        blocked,
        sole_kings,
        outpost_supported,
        outpost_loose,
        threatened: threatened.count_ones() as i32,
    }
}

/// The number of set bits of `a` and `b` together. Both are board sets (at most 50 bits
/// each), so without a bit-count instruction their partial sums share one final step of the
/// software count.
#[cfg(not(target_feature = "popcnt"))]
#[inline(always)]
fn count_two(a: u64, b: u64) -> i32 {
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let a = a - ((a >> 1) & M1);
    let b = b - ((b >> 1) & M1);
    // Two-bit fields of at most 2, then four-bit fields of at most 4 each: 8 together.
    let sum = (a & M2) + ((a >> 2) & M2) + (b & M2) + ((b >> 2) & M2);
    let bytes = (sum & M4) + ((sum >> 4) & M4);
    (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as i32
}

/// The number of set bits of `a` and `b` together.
#[cfg(target_feature = "popcnt")]
#[inline(always)]
fn count_two(a: u64, b: u64) -> i32 {
    (a.count_ones() + b.count_ones()) as i32
}

/// For each layout bit, the `square n` feature of a man there (`None` off the board and on
/// squares 1..=5, where a man of its owner is a king).
const SQUARE_FEATURE: [Option<u8>; 64] = {
    let mut table = [None; 64];
    let mut n = 6;
    while n <= 50 {
        table[board::bit_of(n) as usize] = Some((SQUARE + n - 6) as u8);
        n += 1;
    }
    table
};

/// For each layout bit, the `runaway d` feature of a man there (squares 6..=30, `d` rows from
/// promotion; `None` elsewhere).
const RUNAWAY_FEATURE: [Option<u8>; 64] = {
    let mut table = [None; 64];
    let mut n = 6;
    while n <= 30 {
        table[board::bit_of(n) as usize] = Some((RUNAWAY + board::row_of(n) - 1) as u8);
        n += 1;
    }
    table
};

#[inline(always)]
fn all_features<S: Sink>(sink: &mut S, material: &Material, side_to_move: Color) {
    let counts = material.counts;
    let white = side_features(
        sink,
        material.white_men,
        material.white_kings,
        material.black_men,
        material.black_kings,
        counts.white_men,
        1,
    );
    let black = side_features(
        sink,
        mirror(material.black_men),
        mirror(material.black_kings),
        mirror(material.white_men),
        mirror(material.white_kings),
        counts.black_men,
        -1,
    );
    sink.add(MAN, counts.white_men - counts.black_men);
    sink.add(KING, counts.white_kings - counts.black_kings);
    for ((feature, white), (_, black)) in white.by_feature().into_iter().zip(black.by_feature()) {
        sink.add(feature, white - black);
    }
    sink.add(
        TO_MOVE,
        match side_to_move {
            Color::White => 1,
            Color::Black => -1,
        },
    );
}

/// [`draw_divisor`] of the pieces as layout bits (shared with the pattern evaluation).
#[inline]
pub(crate) fn draw_divisor_of(
    white_men: u64,
    white_kings: u64,
    black_men: u64,
    black_kings: u64,
) -> i32 {
    Material::from_bits(white_men, white_kings, black_men, black_kings).divisor()
}

/// The static evaluation of `position` with `params`, in centi-men from the side to move.
///
/// Meant for quiet positions (no capture for the side to move); elsewhere it is a rough guess.
pub fn evaluate_with(position: &Position, params: &EvalParams) -> Score {
    Score::centi_men(evaluate_raw(position, params))
}

/// The evaluation as a plain number, from the side to move, clamped below the win scores.
#[inline]
pub(crate) fn evaluate_raw(position: &Position, params: &EvalParams) -> i32 {
    let white = match &params.patterns {
        Some(patterns) => match patterns.base() {
            Base::Zero => patterns.white_score(position),
            Base::Hand => {
                // The two evaluations share the material, its phase and its divisor.
                let material = Material::of(position);
                let phase = material.phase();
                let divisor = material.divisor();
                hand_white(&material, position.side_to_move(), params, phase, divisor)
                    + patterns.regions_score(
                        material.white_men,
                        material.black_men,
                        position.side_to_move(),
                        phase,
                        divisor,
                    )
            }
        },
        None => {
            let material = Material::of(position);
            hand_white(
                &material,
                position.side_to_move(),
                params,
                material.phase(),
                material.divisor(),
            )
        }
    };
    let white = white.clamp(-Score::MAX_EVAL, Score::MAX_EVAL);
    match position.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// White's score by the hand features of `material` (whose phase and divisor are given).
#[inline]
fn hand_white(
    material: &Material,
    side_to_move: Color,
    params: &EvalParams,
    phase: i32,
    divisor: i32,
) -> i32 {
    let mut sink = Weighted {
        params,
        opening: 0,
        ending: 0,
    };
    all_features(&mut sink, material, side_to_move);
    blend(sink.opening, sink.ending, phase, divisor)
}

/// The features of one position, for tuning: what the evaluation multiplies by its weights.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Features {
    /// `(feature index, White's count minus Black's)` for every feature that is not zero.
    pub counts: Vec<(u16, i16)>,
    /// Men on the board, 0..=[`PHASE_MAX`]: the opening weights count `phase / PHASE_MAX`, the
    /// ending weights the rest.
    pub phase: i32,
    /// The evaluation is divided by this (drawish endings; 1 otherwise).
    pub divisor: i32,
}

impl Features {
    /// The features of `position`.
    pub fn of(position: &Position) -> Features {
        let material = Material::of(position);
        let mut counts = Counts([0; FEATURE_COUNT]);
        all_features(&mut counts, &material, position.side_to_move());
        Features {
            counts: counts
                .0
                .iter()
                .enumerate()
                .filter(|(_, count)| **count != 0)
                .map(|(i, count)| (i as u16, *count as i16))
                .collect(),
            phase: material.phase(),
            divisor: material.divisor(),
        }
    }

    /// The evaluation from White's side with real-valued weights (the tuner's model; with the
    /// integer weights of `params` it agrees with the engine up to rounding and the clamp).
    pub fn white_score(&self, opening: &[f64], ending: &[f64]) -> f64 {
        let phase = f64::from(self.phase) / f64::from(PHASE_MAX);
        let sum: f64 = self
            .counts
            .iter()
            .map(|&(i, count)| {
                let i = i as usize;
                f64::from(count) * (opening[i] * phase + ending[i] * (1.0 - phase))
            })
            .sum();
        sum / f64::from(self.divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    /// Two board sets' bits counted together are their counts added.
    #[test]
    fn count_two_adds_the_counts() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (a, b) = (state & board::ALL, state.rotate_left(29) & board::ALL);
            assert_eq!(count_two(a, b), (a.count_ones() + b.count_ones()) as i32);
        }
        assert_eq!(count_two(board::ALL, board::ALL), 100);
    }

    /// A weights file wins over the kind named; without one the kind chooses, and the default
    /// kind is the default evaluation.
    #[test]
    fn the_evaluation_is_chosen_by_kind_and_weights() {
        assert_eq!(
            EvalParams::of_kind(EvalKind::Hand, None),
            EvalParams::tuned()
        );
        let default = EvalParams::of_kind(EvalKind::default(), None);
        assert_eq!(default, EvalParams::default());
        let weights = PatternWeights::builtin();
        let chosen = EvalParams::of_kind(EvalKind::Hand, Some(weights.clone()));
        assert_eq!(chosen, EvalParams::with_patterns(weights));
    }

    /// On the hand base, pattern weights add their regions to the hand evaluation and leave
    /// their globals out: with empty regions the score is the hand evaluation's, and one
    /// region weight moves it by that weight.
    #[test]
    fn patterns_on_the_hand_base_correct_the_hand_evaluation() {
        let regions = crate::pattern::REGIONS * crate::pattern::REGION_SIZE;
        let empty = PatternWeights::from_parts(
            [[55, 77]; crate::pattern::GLOBAL_COUNT],
            vec![[0, 0]; regions],
        )
        .unwrap()
        .on_base(Base::Hand);
        let on_hand = EvalParams::with_patterns(Arc::new(empty.clone()));
        let fens = [
            "W:W31-50:B1-20",
            "B:W28,32,33,K46:B7,12,19",
            "W:W15,36,40:BK4,22",
        ];
        for fen in fens {
            let position = position(fen);
            assert_eq!(
                evaluate_with(&position, &on_hand),
                evaluate_with(&position, &EvalParams::tuned()),
                "{fen}"
            );
        }
        // White's man on 6 and Black's on 40 (11 on its turned board) fill region 0 in two
        // different ways, so a weight on White's contents alone counts once.
        let position = position("W:W6,47:B4,40");
        let terms = crate::pattern::Terms::of(&crate::pattern::Pieces::of(&position));
        assert_ne!(terms.white[0], terms.black[0]);
        let mut tables = empty.tables().to_vec();
        tables[usize::from(terms.white[0])] = [40, 40];
        let one = PatternWeights::from_parts(*empty.globals(), tables)
            .unwrap()
            .on_base(Base::Hand);
        let corrected = evaluate_with(&position, &EvalParams::with_patterns(Arc::new(one)));
        let hand = evaluate_with(&position, &EvalParams::tuned());
        assert_eq!(
            corrected.value() - hand.value(),
            40 / Material::of(&position).divisor()
        );
    }

    /// The start position is level, and both sides see a position and its half-turned copy
    /// the same way.
    #[test]
    fn colour_symmetry() {
        let params = EvalParams::hand_set();
        let start = Position::initial();
        let white_to_move = evaluate_raw(&start, &params);
        let black_to_move = evaluate_raw(&start.with_side_to_move(Color::Black), &params);
        assert_eq!(white_to_move, black_to_move);
        let pairs = [
            ("W:W28,32,33,K46:B7,12,19", "B:B23,19,18,K5:W44,39,32"),
            ("W:W15,36,40:BK4,22", "B:B36,15,11:WK47,29"),
        ];
        for (fen, mirrored) in pairs {
            assert_eq!(
                evaluate_raw(&position(fen), &params),
                evaluate_raw(&position(mirrored), &params),
                "{fen} vs {mirrored}"
            );
        }
    }

    /// More material scores higher; a king outweighs a man.
    #[test]
    fn material_counts() {
        let params = EvalParams::hand_set();
        let ahead = evaluate_raw(&position("W:W31-50:B1-19"), &params);
        assert!(ahead > 50, "{ahead}");
        let king = evaluate_raw(&position("W:WK50,31-49:B1-20"), &params);
        let man = evaluate_raw(&position("W:W31-50:B1-20"), &params);
        assert!(king > man + 100, "{king} vs {man}");
    }

    /// Two kings against one are scaled to near a draw; four against one are not.
    #[test]
    fn drawn_king_endings_are_scaled() {
        let params = EvalParams::hand_set();
        let two = evaluate_raw(&position("W:WK46,K50:BK5"), &params);
        let four = evaluate_raw(&position("W:WK46,K50,K47,K48:BK5"), &params);
        assert!(two.abs() < 60, "{two}");
        assert!(four > 500, "{four}");
    }

    /// The tuner's model and the engine's integer sum agree.
    #[test]
    fn features_reproduce_the_evaluation() {
        let params = EvalParams::hand_set();
        let opening: Vec<f64> = params.opening.iter().map(|&w| f64::from(w)).collect();
        let ending: Vec<f64> = params.ending.iter().map(|&w| f64::from(w)).collect();
        for fen in [
            "W:W31-50:B1-20",
            "B:W27,28,32,33,37,38,K3:B12,13,17,18,19,24",
            "W:W15,36,40,K10:BK4,22,26",
            "W:WK46,K50,K47:BK5",
        ] {
            let p = position(fen);
            let features = Features::of(&p);
            let model = features.white_score(&opening, &ending);
            let engine = evaluate_raw(&p, &params);
            let white = if p.side_to_move() == Color::White {
                engine
            } else {
                -engine
            };
            assert!(
                (model - f64::from(white)).abs() < 2.0,
                "{fen}: {model} vs {white}"
            );
        }
    }

    /// A runaway man is seen as such only with a free path.
    #[test]
    fn runaway_needs_a_free_path() {
        let free = Features::of(&position("W:W13,45:B1"));
        assert!(free.counts.contains(&((RUNAWAY + 1) as u16, 1)));
        let blocked = Features::of(&position("W:W13,45:B1,3"));
        assert!(
            !blocked
                .counts
                .iter()
                .any(|&(i, _)| (RUNAWAY..RUNAWAY + 5).contains(&(i as usize)))
        );
    }

    /// Weights survive the text round trip, and bad texts are refused with the line.
    #[test]
    fn params_text_round_trip() {
        let params = EvalParams::hand_set();
        assert_eq!(EvalParams::from_text(&params.to_text()), Ok(params.clone()));
        let text = params.to_text().replace("chain 3 1", "chain x 1");
        let error = EvalParams::from_text(&text).unwrap_err();
        assert_eq!(error.kind, ParamsErrorKind::BadWeight("x".into()));
        let text = params.to_text().replace("balance -3 0\n", "");
        assert_eq!(
            EvalParams::from_text(&text).unwrap_err().kind,
            ParamsErrorKind::Missing("balance".into())
        );
        let text = format!("{}nonsense 1 2\n", params.to_text());
        assert!(EvalParams::from_text(&text).is_err());
    }
}
