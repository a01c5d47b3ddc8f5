//! The pattern evaluation: weights of small board regions, looked up by their contents, with
//! material, king terms and a few global features, fitted to the results of games played to
//! their end (`cargo xtask train`).
//!
//! # Regions
//!
//! The board's ten rows of five squares are covered by 28 overlapping regions of 8 squares:
//! four consecutive rows (a band: the seven bands start at rows 0 to 6; row 0 is squares
//! 1..=5) times two neighbouring squares of each row (positions 0-1, 1-2, 2-3 or 3-4 of the
//! five), so that every square lies in up to eight regions and every pair of neighbouring
//! rows is seen together by several bands. The bands starting at an even row come first
//! (regions 0..16): weights files of those 16 regions alone, written before the odd bands,
//! are read with the odd bands counting zero, and evaluated without looking them up. On the
//! board that is a patch four rows high and about four files wide, the shape of a formation
//! (a man with the men that back it up, a hook, a locked wing). Each square of a region is
//! empty, a man of the side seen from, or an opponent man (kings are left out of the regions
//! and counted by the king terms), so a region's contents are a number in base 3 below
//! `3^8 = 6561` that indexes its table of weights:
//!
//! `index = sum over k in 0..4 of (digit(row r+k, position c) + 3 digit(row r+k, position c+1)) * 9^k`
//!
//! with digit 0 for empty, 1 for an own man, 2 for an opponent man. The index is built from
//! the bitboards row by row without any per-square loop: one table gives, for the own and
//! opponent men of a row, the four `digit(c) + 3 digit(c + 1)` of that row side by side in
//! one word, and four rows' words weighted by `1, 9, 81, 729` add up to the indices of the
//! four regions of a band at once. Black's rows are read from the same bitboards through a
//! second table whose rows run backwards (the half turn reverses each row).
//!
//! Both sides share the tables: White's regions are read on the board as it stands, Black's on
//! the board turned half a turn with the colours swapped (the region set maps onto itself),
//! and the score is White's sum minus Black's. A position and its colour-swapped mirror image
//! therefore get opposite scores by construction.
//!
//! # Table sets
//!
//! Weights have one table set (both sides read it) or two ([`PatternWeights::sets`]): then the
//! side to move reads its regions in the first set and the other side in the second, so that
//! a formation can be worth more or less by who has the move (a hook that is about to be
//! exchanged, a man that will be taken unless it moves). The second set costs memory, not
//! time: each region is still looked up once a side.
//!
//! # Phases
//!
//! Every weight has an opening and an ending value; the evaluation blends the two sums by the
//! men on the board (40: all opening, 0: all ending), as the hand evaluation does, and then
//! pulls known drawish king endings towards zero with the same rules.
//!
//! # Global features
//!
//! Counted for each side (Black's through the turned board) and entered as White's minus
//! Black's ([`global_names`] in weight order): `man`, `king`, `runaway 1..5` (a man that many
//! rows from promotion with a free path and no opponent king), `king mobility` (the empty
//! squares its kings see), `king on long diagonal`, `sole kings` (kings when the opponent has
//! none), `threatened` (pieces an opponent man can take), `mobility` (forward steps of the
//! men), `balance` (the difference between the men on the left and the right half), and
//! `to move`.
//!
//! # Base
//!
//! The weights either stand alone ([`Base::Zero`]: the globals carry material and the rest)
//! or correct the hand evaluation ([`Base::Hand`]: the score is the hand evaluation of
//! [`crate::eval`] with its default weights plus the regions' sum, and the globals are not
//! used). A fit on a hand base shrinks every region it has seen too rarely towards the hand
//! evaluation instead of towards nothing, which matters in the positions a search visits and
//! no game reached.
//!
//! # Weights file (format version 3)
//!
//! Little-endian; the built-in file is `damx-engine/weights/pattern.dxw`.
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `DAMXPAT\0` |
//! | 8 | 2 | format version (3; version 2 files have one table set, version 1 files neither the base nor the sets, and are read as [`Base::Zero`]) |
//! | 10 | 2 | global features ([`GLOBAL_COUNT`]) |
//! | 12 | 2 | regions of one table set ([`REGIONS`], or [`EVEN_REGIONS`] for the even bands alone) |
//! | 14 | 2 | squares per region (8) |
//! | 16 | 4 | `N`, the region weights that are not zero |
//! | 20 | 2 | the base: 0 zero, 1 the hand evaluation (absent in version 1) |
//! | 22 | 2 | table sets, 1 or 2 (2 only with all the regions; zero in version 2, absent in version 1) |
//! | 24 | 4 per feature | each global feature's opening and ending weight (`i16`, `i16`) |
//! | then | 8 per entry | `N` entries: `u32` index (`(set * regions + region) * 6561 + contents`, strictly increasing), opening and ending weight (`i16`, `i16`) |
//! | end | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! Weights are in centi-men (a man is worth about 100). A file that is truncated, of another
//! version or shape, or whose checksum does not match is refused with a [`WeightsError`] that
//! says which.

use std::fmt;
use std::sync::{Arc, OnceLock};

use damx_rules::{Color, Position};

use crate::board::{self, LEFT_HALF, LONG_DIAGONAL, PROMOTION_CONE, RIGHT_HALF, mirror};
use crate::eval::{blend, draw_divisor_of};

/// The number of regions.
pub const REGIONS: usize = 28;
/// The regions of weights files written before the odd bands (read with the odd bands zero).
pub const EVEN_REGIONS: usize = 16;
/// The first row of each band of four rows: the even bands first, so that the first
/// [`EVEN_REGIONS`] regions are those of older files.
const BANDS: [usize; REGIONS / 4] = [0, 2, 4, 6, 1, 3, 5];

/// Whether weights of `regions` regions a set in `sets` table sets can be read: all the
/// regions in one or two sets, or the even bands alone in one.
fn readable_regions(regions: usize, sets: usize) -> bool {
    match sets {
        1 => regions == REGIONS || regions == EVEN_REGIONS,
        2 => regions == REGIONS,
        _ => false,
    }
}

/// The most table sets weights have.
pub const MAX_SETS: usize = 2;
/// Squares per region.
pub const REGION_SQUARES: usize = 8;
/// Weights per region table: `3^8`.
pub const REGION_SIZE: usize = 6561;
/// The number of global features.
pub const GLOBAL_COUNT: usize = 14;
/// The weights file format version this build reads and writes.
pub const FORMAT_VERSION: u16 = 3;
/// The first bytes of a weights file.
pub const MAGIC: [u8; 8] = *b"DAMXPAT\0";
/// The longest weights file [`PatternWeights::load`] reads: 16 MiB, five times a file with
/// every weight of two table sets of the 28 regions set.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

const MAN: usize = 0;
const KING: usize = 1;
const RUNAWAY: usize = 2;
const KING_MOBILITY: usize = 7;
const LONG_DIAGONAL_KING: usize = 8;
const SOLE_KINGS: usize = 9;
const THREATENED: usize = 10;
const MOBILITY: usize = 11;
const BALANCE: usize = 12;
const TO_MOVE: usize = 13;

const GLOBAL_NAMES: [&str; GLOBAL_COUNT] = [
    "man",
    "king",
    "runaway 1",
    "runaway 2",
    "runaway 3",
    "runaway 4",
    "runaway 5",
    "king mobility",
    "king on long diagonal",
    "sole kings",
    "threatened",
    "mobility",
    "balance",
    "to move",
];

/// The global feature names in weight order.
pub fn global_names() -> &'static [&'static str; GLOBAL_COUNT] {
    &GLOBAL_NAMES
}

/// The first layout bit of board row `row` (five consecutive bits).
const fn row_shift(row: usize) -> u32 {
    (5 * row + row / 2 + 1) as u32
}

/// The region digits of one row, from its own men and its opponent men (5-bit masks, own in
/// bits 0..5 and opponent in bits 5..10 of the index): four 16-bit lanes, lane `c` holding
/// `digit(c) + 3 digit(c + 1)` (0..=8) with digit 0 for empty, 1 for own, 2 for opponent.
/// Four rows of these, weighted by `1, 9, 81, 729`, add up lane by lane to the indices of the
/// four regions of a band (at most 6560, so no lane overflows into the next).
const ROW_PAIRS: [u64; 1024] = row_pairs(false);

/// [`ROW_PAIRS`] of a row read backwards (the board turned half a turn reverses each row).
const ROW_PAIRS_REVERSED: [u64; 1024] = row_pairs(true);

const fn row_pairs(reversed: bool) -> [u64; 1024] {
    let mut table = [0u64; 1024];
    let mut index = 0;
    while index < 1024 {
        let mut digits = [0u64; 5];
        let mut p = 0;
        while p < 5 {
            let bit = if reversed { 4 - p } else { p };
            digits[p] = if index & (1 << (bit + 5)) != 0 {
                2
            } else if index & (1 << bit) != 0 {
                1
            } else {
                0
            };
            p += 1;
        }
        let mut lanes = 0u64;
        let mut c = 0;
        while c < 4 {
            lanes |= (digits[c] + 3 * digits[c + 1]) << (16 * c);
            c += 1;
        }
        table[index] = lanes;
        index += 1;
    }
    table
}

/// The 5-bit masks of `own` and `opp` on board row `row`, as an index of [`ROW_PAIRS`].
#[inline(always)]
fn row_index(own: u64, opp: u64, row: usize) -> usize {
    let shift = row_shift(row);
    (((own >> shift) & 31) | ((opp >> shift) & 31) << 5) as usize
}

/// The region indices of the [`BANDS`] from the [`ROW_PAIRS`] lanes of the ten rows.
#[inline(always)]
fn bands(rows: [u64; 10]) -> [u16; REGIONS] {
    let mut indices = [0u16; REGIONS];
    for (band, &r) in BANDS.iter().enumerate() {
        let lanes = rows[r] + 9 * rows[r + 1] + 81 * rows[r + 2] + 729 * rows[r + 3];
        for column in 0..4 {
            indices[band * 4 + column] = (lanes >> (16 * column)) as u16;
        }
    }
    indices
}

/// The contents of the regions, from the side whose men are `own`.
#[inline(always)]
pub(crate) fn region_indices(own: u64, opp: u64) -> [u16; REGIONS] {
    let rows: [u64; 10] = std::array::from_fn(|row| ROW_PAIRS[row_index(own, opp, row)]);
    bands(rows)
}

/// [`region_indices`] of the board turned half a turn: `region_indices(mirror(own),
/// mirror(opp))` without turning the board (row `r` of the turned board is row `9 - r` read
/// backwards).
#[inline(always)]
pub(crate) fn turned_region_indices(own: u64, opp: u64) -> [u16; REGIONS] {
    let rows: [u64; 10] =
        std::array::from_fn(|row| ROW_PAIRS_REVERSED[row_index(own, opp, 9 - row)]);
    bands(rows)
}

/// The global feature counts of one side (seen as White on its own board).
#[inline(always)]
fn side_globals(
    counts: &mut [i32; GLOBAL_COUNT],
    men: u64,
    kings: u64,
    opp_men: u64,
    opp_kings: u64,
    sign: i32,
) {
    let own = men | kings;
    let opp = opp_men | opp_kings;
    let empty = board::ALL & !(own | opp);
    counts[MAN] += sign * men.count_ones() as i32;
    counts[KING] += sign * kings.count_ones() as i32;
    if opp_kings == 0 {
        // Men on rows 1..=5 (squares 6..=30) with nothing ahead that could stop them.
        let mut candidates = men
            & (board::row_bits(1)
                | board::row_bits(2)
                | board::row_bits(3)
                | board::row_bits(4)
                | board::row_bits(5));
        while candidates != 0 {
            let bit = candidates.trailing_zeros();
            candidates &= candidates - 1;
            if PROMOTION_CONE[bit as usize] & opp == 0 {
                let row = board::row_of(board::NUMBER_OF_BIT[bit as usize] as usize);
                counts[RUNAWAY + row - 1] += sign;
            }
        }
    }
    if kings != 0 {
        let occupied = own | opp;
        let mut rest = kings;
        let mut reach = 0;
        while rest != 0 {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            reach += board::king_reach(bit, occupied).count_ones();
        }
        counts[KING_MOBILITY] += sign * reach as i32;
        counts[LONG_DIAGONAL_KING] += sign * (kings & LONG_DIAGONAL).count_ones() as i32;
        if opp_kings == 0 {
            counts[SOLE_KINGS] += sign;
        }
    }
    let threatened = own
        & ((board::down_left(opp_men) & board::up_right(empty))
            | (board::down_right(opp_men) & board::up_left(empty))
            | (board::up_right(opp_men) & board::down_left(empty))
            | (board::up_left(opp_men) & board::down_right(empty)));
    counts[THREATENED] += sign * threatened.count_ones() as i32;
    let steps =
        (board::up_right(men) & empty).count_ones() + (board::up_left(men) & empty).count_ones();
    counts[MOBILITY] += sign * steps as i32;
    let left = (men & LEFT_HALF).count_ones() as i32;
    let right = (men & RIGHT_HALF).count_ones() as i32;
    counts[BALANCE] += sign * (left - right).abs();
}

/// The pieces as layout bits (see `damx_rules::bitboard`), for evaluating without a
/// [`Position`] (training data stores these).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Pieces {
    /// White's men.
    pub white_men: u64,
    /// White's kings.
    pub white_kings: u64,
    /// Black's men.
    pub black_men: u64,
    /// Black's kings.
    pub black_kings: u64,
    /// The side to move.
    pub side_to_move: Color,
}

impl Pieces {
    /// The pieces of `position`.
    pub fn of(position: &Position) -> Pieces {
        Pieces {
            white_men: position.men(Color::White).bits(),
            white_kings: position.kings(Color::White).bits(),
            black_men: position.men(Color::Black).bits(),
            black_kings: position.kings(Color::Black).bits(),
            side_to_move: position.side_to_move(),
        }
    }

    /// Men on the board, 0..=40.
    fn phase(&self) -> i32 {
        (self.white_men.count_ones() + self.black_men.count_ones()).min(40) as i32
    }

    fn globals(&self) -> [i32; GLOBAL_COUNT] {
        let mut counts = [0i32; GLOBAL_COUNT];
        side_globals(
            &mut counts,
            self.white_men,
            self.white_kings,
            self.black_men,
            self.black_kings,
            1,
        );
        side_globals(
            &mut counts,
            mirror(self.black_men),
            mirror(self.black_kings),
            mirror(self.white_men),
            mirror(self.white_kings),
            -1,
        );
        counts[TO_MOVE] = match self.side_to_move {
            Color::White => 1,
            Color::Black => -1,
        };
        counts
    }

    fn divisor(&self) -> i32 {
        draw_divisor_of(
            self.white_men,
            self.white_kings,
            self.black_men,
            self.black_kings,
        )
    }
}

/// What the pattern evaluation multiplies by its weights for one position (for training).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Terms {
    /// The global features, White's count minus Black's.
    pub globals: [i16; GLOBAL_COUNT],
    /// White's region contents (added).
    pub white: [u16; REGIONS],
    /// Black's region contents on the turned board (subtracted).
    pub black: [u16; REGIONS],
    /// Men on the board, 0..=[`PHASE_MAX`](crate::eval::PHASE_MAX): the opening weights count `phase / PHASE_MAX`.
    pub phase: u8,
    /// The score is divided by this (drawish endings; 1 otherwise).
    pub divisor: u8,
}

impl Terms {
    /// The terms of `pieces`.
    pub fn of(pieces: &Pieces) -> Terms {
        let globals = pieces.globals();
        Terms {
            globals: globals.map(|count| count as i16),
            white: region_indices(pieces.white_men, pieces.black_men),
            black: turned_region_indices(pieces.black_men, pieces.white_men),
            phase: pieces.phase() as u8,
            divisor: pieces.divisor() as u8,
        }
    }
}

/// The opening and ending sums of `tables` (see [`PatternWeights::tables`]: one table set,
/// or two of [`REGIONS`] regions) over the regions, White's minus Black's, with `side_to_move`
/// reading the first set.
#[inline(always)]
fn table_sums<T: Copy + Into<i32>>(
    tables: &[[T; 2]],
    white_men: u64,
    black_men: u64,
    side_to_move: Color,
) -> (i32, i32) {
    let white = region_indices(white_men, black_men);
    let black = turned_region_indices(black_men, white_men);
    let set = REGIONS * REGION_SIZE;
    let (white_tables, black_tables) = if tables.len() < 2 * set {
        (tables, tables)
    } else {
        let (first, second) = tables.split_at(set);
        match side_to_move {
            Color::White => (first, second),
            Color::Black => (second, first),
        }
    };
    let (mut opening, mut ending) = (0i32, 0i32);
    let regions = white_tables
        .chunks_exact(REGION_SIZE)
        .zip(black_tables.chunks_exact(REGION_SIZE))
        .zip(white)
        .zip(black);
    for (((white_table, black_table), white), black) in regions {
        let [wo, we] = white_table[white as usize];
        let [bo, be] = black_table[black as usize];
        opening += wo.into() - bo.into();
        ending += we.into() - be.into();
    }
    (opening, ending)
}

/// Pattern weights: global feature weights and one table per region, each with an opening
/// and an ending value, in centi-men.
#[derive(Clone, PartialEq, Eq)]
pub struct PatternWeights {
    /// What the weights are added to.
    base: Base,
    /// `[opening, ending]` per global feature, in [`global_names`] order.
    globals: [[i16; 2]; GLOBAL_COUNT],
    /// `[opening, ending]` at `(set * regions + region) * REGION_SIZE + contents`.
    tables: Vec<[i16; 2]>,
    /// The same tables in bytes when every weight fits in one (fitted weights do, by far):
    /// half the memory, so that more of the tables stays in the processor's caches during a
    /// search. The evaluation reads these when they exist; they are equal to `tables`.
    compact: Option<Vec<[i8; 2]>>,
}

impl fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let used = self.tables.iter().filter(|w| **w != [0, 0]).count();
        f.debug_struct("PatternWeights")
            .field("base", &self.base)
            .field("globals", &self.globals)
            .field("region_weights_set", &used)
            .finish()
    }
}

/// What pattern weights are added to (see the module documentation).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Base {
    /// Nothing: the weights are the whole evaluation.
    #[default]
    Zero,
    /// The hand evaluation with its default weights; the globals are not used.
    Hand,
}

impl Base {
    fn code(self) -> u16 {
        match self {
            Base::Zero => 0,
            Base::Hand => 1,
        }
    }
}

static BUILTIN: OnceLock<Arc<PatternWeights>> = OnceLock::new();

/// The built-in weights file.
const BUILTIN_FILE: &[u8] = include_bytes!("../weights/pattern.dxw");

impl PatternWeights {
    /// Weights from the global weights and the region tables (`REGIONS * REGION_SIZE` pairs
    /// for one table set, twice as many for two, or `EVEN_REGIONS * REGION_SIZE` for the even
    /// bands alone), on [`Base::Zero`].
    pub fn from_parts(
        globals: [[i16; 2]; GLOBAL_COUNT],
        tables: Vec<[i16; 2]>,
    ) -> Option<PatternWeights> {
        let regions = tables.len() / REGION_SIZE;
        let shaped = tables.len().is_multiple_of(REGION_SIZE)
            && (readable_regions(regions, 1)
                || regions.is_multiple_of(2) && readable_regions(regions / 2, 2));
        shaped.then(|| PatternWeights::new(Base::Zero, globals, tables))
    }

    /// Weights from their parts, with the compact tables when the weights fit.
    fn new(base: Base, globals: [[i16; 2]; GLOBAL_COUNT], tables: Vec<[i16; 2]>) -> PatternWeights {
        let compact = tables
            .iter()
            .map(|&[opening, ending]| {
                Some([i8::try_from(opening).ok()?, i8::try_from(ending).ok()?])
            })
            .collect();
        PatternWeights {
            base,
            globals,
            tables,
            compact,
        }
    }

    /// The same weights on `base`.
    pub fn on_base(self, base: Base) -> PatternWeights {
        PatternWeights { base, ..self }
    }

    /// What the weights are added to.
    pub fn base(&self) -> Base {
        self.base
    }

    /// The global weights, `[opening, ending]` in [`global_names`] order.
    pub fn globals(&self) -> &[[i16; 2]; GLOBAL_COUNT] {
        &self.globals
    }

    /// The region tables, `[opening, ending]` at `(set * REGIONS + region) * REGION_SIZE +
    /// contents`: all [`REGIONS`] in each of [`sets`](Self::sets), or the first
    /// [`EVEN_REGIONS`] for weights of the even bands alone (the others count zero and are not
    /// looked up).
    pub fn tables(&self) -> &[[i16; 2]] {
        &self.tables
    }

    /// The table sets: 1 (both sides read it), or 2 (the side to move reads the first, the
    /// other side the second).
    pub fn sets(&self) -> usize {
        if self.tables.len() == MAX_SETS * REGIONS * REGION_SIZE {
            2
        } else {
            1
        }
    }

    /// The weights built into the engine (`damx-engine/weights/pattern.dxw`).
    pub fn builtin() -> Arc<PatternWeights> {
        BUILTIN
            .get_or_init(|| {
                Arc::new(
                    PatternWeights::from_bytes(BUILTIN_FILE).unwrap_or_else(|error| {
                        panic!("the built-in weights file is damaged: {error}")
                    }),
                )
            })
            .clone()
    }

    /// Reads a weights file (a regular file of at most [`MAX_FILE_BYTES`]).
    pub fn load(path: &std::path::Path) -> Result<PatternWeights, WeightsError> {
        let bytes = crate::files::read_data_file(path, MAX_FILE_BYTES)
            .map_err(|error| WeightsError::Io(error.to_string()))?;
        PatternWeights::from_bytes(&bytes)
    }

    /// Decodes a weights file (see the module documentation for the format).
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        // A file that does not start as one does is none, however short.
        if !bytes.starts_with(&MAGIC) && !MAGIC.starts_with(bytes) {
            return Err(WeightsError::NotAWeightsFile);
        }
        if bytes.len() < 10 {
            return Err(WeightsError::Truncated {
                expected: 10,
                found: bytes.len(),
            });
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let version = u16_at(8);
        let header = match version {
            1 => 20,
            2 | FORMAT_VERSION => 24,
            _ => {
                return Err(WeightsError::Version {
                    found: version,
                    supported: FORMAT_VERSION,
                });
            }
        };
        if bytes.len() < header {
            return Err(WeightsError::Truncated {
                expected: header,
                found: bytes.len(),
            });
        }
        let base = match (version, u16_at(header - 4)) {
            (1, _) | (_, 0) => Base::Zero,
            (_, 1) => Base::Hand,
            (_, code) => return Err(WeightsError::Malformed(format!("unknown base {code}"))),
        };
        let shape = (
            u16_at(10) as usize,
            u16_at(12) as usize,
            u16_at(14) as usize,
        );
        let regions = shape.1;
        let sets = if version == FORMAT_VERSION {
            u16_at(22) as usize
        } else {
            1
        };
        if shape.0 != GLOBAL_COUNT || !readable_regions(regions, sets) || shape.2 != REGION_SQUARES
        {
            return Err(WeightsError::Shape {
                globals: shape.0,
                regions: shape.1,
                squares: shape.2,
                sets,
            });
        }
        let entries = u32_at(16) as usize;
        if entries > sets * regions * REGION_SIZE {
            return Err(WeightsError::Malformed(format!(
                "{entries} region weights, at most {}",
                sets * regions * REGION_SIZE
            )));
        }
        let expected = header + 4 * GLOBAL_COUNT + 8 * entries + 4;
        if bytes.len() < expected {
            return Err(WeightsError::Truncated {
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(WeightsError::TrailingBytes {
                expected,
                found: bytes.len(),
            });
        }
        let stored = u32_at(expected - 4);
        let computed = crc32(&bytes[..expected - 4]);
        if stored != computed {
            return Err(WeightsError::Checksum { stored, computed });
        }
        let i16_at = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let mut globals = [[0i16; 2]; GLOBAL_COUNT];
        for (i, pair) in globals.iter_mut().enumerate() {
            let at = header + 4 * i;
            *pair = [i16_at(at), i16_at(at + 2)];
        }
        let mut tables = vec![[0i16; 2]; sets * regions * REGION_SIZE];
        let mut last: Option<u32> = None;
        for k in 0..entries {
            let at = header + 4 * GLOBAL_COUNT + 8 * k;
            let index = u32_at(at);
            if index as usize >= tables.len() || last.is_some_and(|last| index <= last) {
                return Err(WeightsError::Malformed(format!(
                    "region weight {k} has index {index}, out of order or range"
                )));
            }
            last = Some(index);
            tables[index as usize] = [i16_at(at + 4), i16_at(at + 6)];
        }
        Ok(PatternWeights::new(base, globals, tables))
    }

    /// Encodes the weights as a file (see the module documentation for the format).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(GLOBAL_COUNT as u16).to_le_bytes());
        let sets = self.sets();
        bytes.extend_from_slice(&((self.tables.len() / REGION_SIZE / sets) as u16).to_le_bytes());
        bytes.extend_from_slice(&(REGION_SQUARES as u16).to_le_bytes());
        let used: Vec<(usize, [i16; 2])> = self
            .tables
            .iter()
            .enumerate()
            .filter(|(_, w)| **w != [0, 0])
            .map(|(i, w)| (i, *w))
            .collect();
        bytes.extend_from_slice(&(used.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&self.base.code().to_le_bytes());
        bytes.extend_from_slice(&(sets as u16).to_le_bytes());
        for [opening, ending] in self.globals {
            bytes.extend_from_slice(&opening.to_le_bytes());
            bytes.extend_from_slice(&ending.to_le_bytes());
        }
        for (index, [opening, ending]) in used {
            bytes.extend_from_slice(&(index as u32).to_le_bytes());
            bytes.extend_from_slice(&opening.to_le_bytes());
            bytes.extend_from_slice(&ending.to_le_bytes());
        }
        let checksum = crc32(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// White's score of `pieces` before the phase blend: the opening and ending sums.
    #[inline(always)]
    fn sums(&self, pieces: &Pieces) -> (i32, i32) {
        let (mut opening, mut ending) = (0i32, 0i32);
        if self.base == Base::Zero {
            for (count, [o, e]) in pieces.globals().iter().zip(self.globals.iter()) {
                opening += count * i32::from(*o);
                ending += count * i32::from(*e);
            }
        }
        let (regions_opening, regions_ending) =
            self.region_sums(pieces.white_men, pieces.black_men, pieces.side_to_move);
        (opening + regions_opening, ending + regions_ending)
    }

    /// The regions' opening and ending sums, White's minus Black's.
    #[inline(always)]
    fn region_sums(&self, white_men: u64, black_men: u64, side_to_move: Color) -> (i32, i32) {
        match &self.compact {
            Some(compact) => table_sums(compact, white_men, black_men, side_to_move),
            None => table_sums(&self.tables, white_men, black_men, side_to_move),
        }
    }

    /// White's score of `pieces`: the phase blend of the sums, divided in drawish endings
    /// (without the base).
    #[inline]
    pub(crate) fn white_score(&self, position: &Position) -> i32 {
        let pieces = Pieces::of(position);
        let (opening, ending) = self.sums(&pieces);
        blend(opening, ending, pieces.phase(), pieces.divisor())
    }

    /// White's score by the regions alone (the part added to the hand evaluation on
    /// [`Base::Hand`]), for men on `white_men` and `black_men` with `side_to_move` and the
    /// material's `phase` and `divisor`.
    #[inline]
    pub(crate) fn regions_score(
        &self,
        white_men: u64,
        black_men: u64,
        side_to_move: Color,
        phase: i32,
        divisor: i32,
    ) -> i32 {
        let (opening, ending) = self.region_sums(white_men, black_men, side_to_move);
        blend(opening, ending, phase, divisor)
    }

    /// The evaluation from the side to move without the base, clamped below the win scores.
    #[cfg(test)]
    fn evaluate_raw(&self, position: &Position) -> i32 {
        let white = self
            .white_score(position)
            .clamp(-crate::Score::MAX_EVAL, crate::Score::MAX_EVAL);
        match position.side_to_move() {
            Color::White => white,
            Color::Black => -white,
        }
    }
}

/// A weights file that was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum WeightsError {
    /// The file could not be read.
    Io(String),
    /// The file does not start with the magic bytes.
    NotAWeightsFile,
    /// The file is shorter than its header says.
    Truncated {
        /// The length the header implies.
        expected: usize,
        /// The file's length.
        found: usize,
    },
    /// The file is longer than its header says.
    TrailingBytes {
        /// The length the header implies.
        expected: usize,
        /// The file's length.
        found: usize,
    },
    /// Another format version.
    Version {
        /// The file's version.
        found: u16,
        /// The version this build reads.
        supported: u16,
    },
    /// Another layout of features and regions.
    Shape {
        /// Global features in the file.
        globals: usize,
        /// Regions of one table set in the file.
        regions: usize,
        /// Squares per region in the file.
        squares: usize,
        /// Table sets in the file.
        sets: usize,
    },
    /// The checksum does not match the contents.
    Checksum {
        /// The checksum in the file.
        stored: u32,
        /// The checksum of the contents.
        computed: u32,
    },
    /// The contents are inconsistent.
    Malformed(String),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Io(error) => write!(f, "cannot read the weights file: {error}"),
            WeightsError::NotAWeightsFile => write!(f, "not a damx weights file (bad magic bytes)"),
            WeightsError::Truncated { expected, found } => {
                write!(
                    f,
                    "truncated weights file: {found} bytes, expected {expected}"
                )
            }
            WeightsError::TrailingBytes { expected, found } => {
                write!(
                    f,
                    "weights file has trailing bytes: {found} bytes, expected {expected}"
                )
            }
            WeightsError::Version { found, supported } => {
                write!(
                    f,
                    "weights file format version {found}, this build reads versions 1 to {supported}"
                )
            }
            WeightsError::Shape {
                globals,
                regions,
                squares,
                sets,
            } => write!(
                f,
                "weights file for {globals} global features and {sets} set(s) of {regions} regions of {squares} squares, this build has {GLOBAL_COUNT}, 1 or 2 sets of {REGIONS} (or one of {EVEN_REGIONS}) and {REGION_SQUARES}"
            ),
            WeightsError::Checksum { stored, computed } => write!(
                f,
                "weights file checksum mismatch: stored {stored:08x}, contents give {computed:08x}"
            ),
            WeightsError::Malformed(what) => write!(f, "malformed weights file: {what}"),
        }
    }
}

impl std::error::Error for WeightsError {}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
};

/// CRC-32 (IEEE 802.3, as in zip and PNG).
pub fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &byte| {
        CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    fn sample_weights() -> PatternWeights {
        let mut globals = [[0i16; 2]; GLOBAL_COUNT];
        globals[MAN] = [100, 100];
        globals[KING] = [300, 250];
        globals[TO_MOVE] = [3, 7];
        let mut tables = vec![[0i16; 2]; REGIONS * REGION_SIZE];
        for (i, w) in tables.iter_mut().enumerate().filter(|(i, _)| i % 7 == 0) {
            *w = [(i % 61) as i16 - 30, (i % 37) as i16 - 18];
        }
        PatternWeights::from_parts(globals, tables).unwrap()
    }

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    /// The region indices, square by square from the documented formula, for men on `own`
    /// and `opp` (disjoint board sets).
    fn indices_by_formula(own: u64, opp: u64) -> [u16; REGIONS] {
        let digit = |row: usize, position: usize| {
            let bit = 1u64 << (row_shift(row) as usize + position);
            u16::from(own & bit != 0) + 2 * u16::from(opp & bit != 0)
        };
        std::array::from_fn(|region| {
            let (band, column) = (region / 4, region % 4);
            (0..4)
                .map(|k| {
                    let row = BANDS[band] + k;
                    (digit(row, column) + 3 * digit(row, column + 1)) * 9u16.pow(k as u32)
                })
                .sum()
        })
    }

    /// The row tables give the formula's indices on many boards, and the turned indices are
    /// those of the turned board.
    #[test]
    fn region_indices_match_the_formula() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2_000 {
            let (a, b, sparse) = (next() & board::ALL, next() & board::ALL, next() & 1 == 1);
            // Full boards and thinned-out ones (fewer men, as later in a game).
            let (own, opp) = if sparse {
                (a & b, !a & b & next())
            } else {
                (a & !b, b & !a)
            };
            assert_eq!(region_indices(own, opp), indices_by_formula(own, opp));
            assert_eq!(
                turned_region_indices(own, opp),
                indices_by_formula(mirror(own), mirror(opp))
            );
        }
    }

    /// Region indices follow the documented formula on a few squares.
    #[test]
    fn region_index_formula() {
        // A White man on square 6 (row 1, position 0) is digit 1 of region 0 at 9^1.
        let t = Terms::of(&Pieces::of(&position("W:W6:BK50")));
        assert_eq!(t.white[0], 9);
        // A Black man on 2 (row 0, position 1): region 0 (positions 0-1) has 3 * 2 at 9^0,
        // region 1 (positions 1-2) has 2.
        let t = Terms::of(&Pieces::of(&position("W:W50:B2")));
        assert_eq!(t.white[0], 6);
        assert_eq!(t.white[1], 2);
        // Black's view of the same: its man on 2 is on square 49 of the turned board (row 9,
        // position 3), digit 1 of region 15 (rows 6-9, positions 3-4) at 9^3.
        assert_eq!(t.black[15], 729);
        // The start position: every region of White's is the same as Black's turned one.
        let t = Terms::of(&Pieces::of(&Position::initial()));
        let mut mirrored = t.black;
        mirrored.sort_unstable();
        let mut white = t.white;
        white.sort_unstable();
        assert_eq!(white, mirrored);
    }

    /// Weights that fit in a byte are read from the compact tables, wider ones from the full
    /// tables, and both give the sums of the full tables.
    #[test]
    fn compact_tables_sum_as_the_full_ones() {
        let narrow = sample_weights();
        assert!(
            narrow.compact.is_some(),
            "sample weights lie within -30..=30"
        );
        let mut tables = narrow.tables.clone();
        tables[7] = [200, -300];
        let wide = PatternWeights::from_parts(narrow.globals, tables).unwrap();
        assert!(wide.compact.is_none());
        for fen in [
            "W:W28,32,33,K46:B7,12,19",
            "B:W31,32,33,34,35,36,37,38,39,40:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
            "W:W21,22,23,24,25,26,27,28,29,30:B1,2,3,4,5,6,7,8,9,10",
        ] {
            let pieces = Pieces::of(&position(fen));
            for weights in [&narrow, &wide] {
                let side = pieces.side_to_move;
                assert_eq!(
                    weights.region_sums(pieces.white_men, pieces.black_men, side),
                    table_sums(&weights.tables, pieces.white_men, pieces.black_men, side),
                    "{fen}"
                );
            }
        }
        let start = Pieces::of(&Position::initial());
        assert_eq!(
            wide.region_sums(start.white_men, start.black_men, Color::White),
            narrow.region_sums(start.white_men, start.black_men, Color::White),
            "the changed entry (region 0, contents 7) is not on the start position"
        );
    }

    /// A position and its colour-swapped half-turned image are scored the same for the side
    /// to move.
    #[test]
    fn colour_symmetry() {
        let weights = sample_weights();
        let pairs = [
            ("W:W28,32,33,K46:B7,12,19", "B:B23,19,18,K5:W44,39,32"),
            ("W:W15,36,40:BK4,22", "B:B36,15,11:WK47,29"),
        ];
        for (fen, mirrored) in pairs {
            assert_eq!(
                weights.evaluate_raw(&position(fen)),
                weights.evaluate_raw(&position(mirrored)),
                "{fen}"
            );
        }
        let start = Position::initial();
        // Level but for the move: the side to move gets the same bonus either way.
        assert_eq!(weights.evaluate_raw(&start), 3);
        assert_eq!(
            weights.evaluate_raw(&start.with_side_to_move(Color::Black)),
            3
        );
    }

    #[test]
    fn file_round_trip() {
        let weights = sample_weights();
        let bytes = weights.to_bytes();
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(weights.clone()));
        let on_hand = weights.on_base(Base::Hand);
        assert_eq!(
            PatternWeights::from_bytes(&on_hand.to_bytes()).map(|w| w.base()),
            Ok(Base::Hand)
        );
        let builtin = PatternWeights::builtin();
        assert_eq!(
            PatternWeights::from_bytes(&builtin.to_bytes()).as_ref(),
            Ok(&*builtin)
        );
    }

    /// Damaged files are refused with the reason.
    #[test]
    fn damaged_files_are_refused() {
        let bytes = sample_weights().to_bytes();
        assert!(matches!(
            PatternWeights::from_bytes(&bytes[..bytes.len() - 1]),
            Err(WeightsError::Truncated { .. })
        ));
        assert!(matches!(
            PatternWeights::from_bytes(&bytes[..10]),
            Err(WeightsError::Truncated { .. })
        ));
        assert!(matches!(
            PatternWeights::from_bytes(&bytes[..3]),
            Err(WeightsError::Truncated { .. })
        ));
        // A short file of something else is not a weights file, rather than a truncated one.
        assert_eq!(
            PatternWeights::from_bytes(b"hi\n"),
            Err(WeightsError::NotAWeightsFile)
        );
        let mut other = bytes.clone();
        other[8] = 4;
        assert_eq!(
            PatternWeights::from_bytes(&other),
            Err(WeightsError::Version {
                found: 4,
                supported: 3
            })
        );
        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert!(matches!(
            PatternWeights::from_bytes(&flipped),
            Err(WeightsError::Checksum { .. })
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            PatternWeights::from_bytes(&longer),
            Err(WeightsError::TrailingBytes { .. })
        ));
        assert_eq!(
            PatternWeights::from_bytes(b"hello, world, hello"),
            Err(WeightsError::NotAWeightsFile)
        );
        let message = |bytes: &[u8]| PatternWeights::from_bytes(bytes).unwrap_err().to_string();
        assert!(message(&other).contains("version 4"));
        assert!(message(&bytes[..bytes.len() - 2]).contains("truncated"));
        assert!(message(&flipped).contains("checksum"));
    }

    /// Writes the checksum that `bytes` (a weights file altered by a test) now needs.
    fn fix_checksum(bytes: &mut [u8]) {
        let end = bytes.len() - 4;
        let checksum = crc32(&bytes[..end]);
        bytes[end..].copy_from_slice(&checksum.to_le_bytes());
    }

    /// A file of the even bands alone (written before the odd bands) is read, written back
    /// the same, and scores as the full tables with the odd bands zero.
    #[test]
    fn even_band_files_are_read() {
        let full = sample_weights();
        let even = PatternWeights::from_parts(
            full.globals,
            full.tables[..EVEN_REGIONS * REGION_SIZE].to_vec(),
        )
        .unwrap();
        let bytes = even.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[12], bytes[13]]), 16);
        let read = PatternWeights::from_bytes(&bytes).unwrap();
        assert_eq!(read, even);
        assert_eq!(read.to_bytes(), bytes);
        let mut tables = full.tables.clone();
        tables[EVEN_REGIONS * REGION_SIZE..].fill([0, 0]);
        let zeroed = PatternWeights::from_parts(full.globals, tables).unwrap();
        for fen in [
            "W:W28,32,33,K46:B7,12,19",
            "B:W31-50:B1-20",
            "W:W15,36,40:BK4,22",
        ] {
            let position = position(fen);
            assert_eq!(
                read.evaluate_raw(&position),
                zeroed.evaluate_raw(&position),
                "{fen}"
            );
        }
        let mut odd = bytes.clone();
        odd[12] = 20;
        fix_checksum(&mut odd);
        assert!(matches!(
            PatternWeights::from_bytes(&odd),
            Err(WeightsError::Shape { regions: 20, .. })
        ));
    }

    /// Weights of two table sets: the sample's set and a second one whose every entry differs.
    fn two_set_weights() -> PatternWeights {
        let one = sample_weights();
        let mut tables = one.tables.clone();
        tables.extend(one.tables.iter().map(|&[o, e]| [o / 2 + 5, e / 3 - 4]));
        PatternWeights::from_parts(one.globals, tables).unwrap()
    }

    /// With two table sets the side to move reads the first and the other side the second:
    /// a position scores as the sum of the two one-set halves split that way, a file of them
    /// round-trips, and colour symmetry still holds.
    #[test]
    fn two_table_sets() {
        let two = two_set_weights();
        assert_eq!(two.sets(), 2);
        assert_eq!(sample_weights().sets(), 1);
        let set = REGIONS * REGION_SIZE;
        let (first, second) = two.tables.split_at(set);
        // One side's opening and ending sums over `tables` (one set) by region contents.
        let side_sums = |tables: &[[i16; 2]], indices: [u16; REGIONS]| {
            indices
                .iter()
                .enumerate()
                .fold((0, 0), |(o, e), (region, &index)| {
                    let [wo, we] = tables[region * REGION_SIZE + index as usize];
                    (o + i32::from(wo), e + i32::from(we))
                })
        };
        for fen in [
            "W:W28,32,33,K46:B7,12,19",
            "B:W28,32,33,K46:B7,12,19",
            "B:W31-50:B1-20",
        ] {
            let pieces = Pieces::of(&position(fen));
            let (white, black) = (pieces.white_men, pieces.black_men);
            let (white_set, black_set) = match pieces.side_to_move {
                Color::White => (first, second),
                Color::Black => (second, first),
            };
            let w = side_sums(white_set, region_indices(white, black));
            let b = side_sums(black_set, turned_region_indices(black, white));
            assert_eq!(
                two.region_sums(white, black, pieces.side_to_move),
                (w.0 - b.0, w.1 - b.1),
                "{fen}"
            );
        }
        let bytes = two.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 2);
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(two.clone()));
        for (fen, mirrored) in [
            ("W:W28,32,33,K46:B7,12,19", "B:B23,19,18,K5:W44,39,32"),
            ("W:W15,36,40:BK4,22", "B:B36,15,11:WK47,29"),
        ] {
            assert_eq!(
                two.evaluate_raw(&position(fen)),
                two.evaluate_raw(&position(mirrored)),
                "{fen}"
            );
        }
        // On the level start position one table set gives the side to move its `to move`
        // weight alone; the second set makes the sides' regions differ.
        let start = Position::initial();
        let one = sample_weights();
        assert_ne!(
            two.evaluate_raw(&start),
            one.evaluate_raw(&start),
            "the second set is read"
        );
    }

    /// Two table sets need all the regions, and a file claiming three sets is refused.
    #[test]
    fn bad_table_sets_are_refused() {
        let mut three = sample_weights().to_bytes();
        three[22] = 3;
        fix_checksum(&mut three);
        assert!(matches!(
            PatternWeights::from_bytes(&three),
            Err(WeightsError::Shape { sets: 3, .. })
        ));
        let even = PatternWeights::from_parts(
            sample_weights().globals,
            sample_weights().tables[..EVEN_REGIONS * REGION_SIZE].to_vec(),
        )
        .unwrap();
        let mut two_even = even.to_bytes();
        two_even[22] = 2;
        fix_checksum(&mut two_even);
        assert!(matches!(
            PatternWeights::from_bytes(&two_even),
            Err(WeightsError::Shape {
                regions: 16,
                sets: 2,
                ..
            })
        ));
        assert!(
            PatternWeights::from_parts(
                sample_weights().globals,
                vec![[0, 0]; 2 * EVEN_REGIONS * REGION_SIZE]
            )
            .is_none(),
            "two sets of the even bands alone are not weights"
        );
        assert!(
            PatternWeights::from_parts(
                sample_weights().globals,
                vec![[0, 0]; (2 * REGIONS + 1) * REGION_SIZE]
            )
            .is_none(),
            "57 regions' tables are not two sets"
        );
    }

    /// A version 2 file (one table set, the field after the base zero) is read as it was.
    #[test]
    fn version_2_files_are_read() {
        let weights = sample_weights();
        let mut bytes = weights.to_bytes();
        bytes[8] = 2;
        bytes[22] = 0;
        fix_checksum(&mut bytes);
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(weights));
    }

    /// A version 1 file (no base) is read as weights on [`Base::Zero`].
    #[test]
    fn version_1_files_are_read() {
        let weights = sample_weights();
        let mut bytes = weights.to_bytes();
        bytes.truncate(bytes.len() - 4);
        bytes.drain(20..24);
        bytes[8] = 1;
        let checksum = crc32(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        assert_eq!(PatternWeights::from_bytes(&bytes), Ok(weights));
        let mut bad = sample_weights().on_base(Base::Hand).to_bytes();
        bad[20] = 9;
        fix_checksum(&mut bad);
        assert!(matches!(
            PatternWeights::from_bytes(&bad),
            Err(WeightsError::Malformed(_))
        ));
    }

    /// The built-in weights correct the hand evaluation, and with them more material still
    /// scores higher.
    #[test]
    fn builtin_weights_count_material() {
        assert_eq!(PatternWeights::builtin().base(), Base::Hand);
        let eval = crate::EvalParams::pattern();
        let score = |fen: &str| crate::evaluate_with(&position(fen), &eval).value();
        let (ahead, level) = (score("W:W31-50:B1-19"), score("W:W31-50:B1-20"));
        assert!(ahead > level + 50, "{ahead} vs {level}");
    }
}
