//! `cargo xtask egdb-crosscheck`: damx's endgame databases against Scan 2.0's win/loss/draw
//! bitbases, an independent check of the generator, run by hand and never in CI.
//!
//! Scan's tables are read by a reader of our own, written from the file format alone:
//!
//! - A directory per piece count (`2/`, `3/`, ...) holds one file per material seen from the
//!   side to move, named by four digits: the mover's men, the other side's men, the mover's
//!   kings, the other side's kings (`1002`: a man to move against two kings).
//! - A file is a run-length code, one byte per run: `byte % 3` is the value for the side to
//!   move (0 draw, 1 loss, 2 win) and `round(1.2^(byte / 3))` the length of the run. Positions
//!   where the side to move must capture are stored too, but with whatever value made the runs
//!   longest, so they are not compared (their value follows from the captures).
//! - The index is a mixed radix over four combinations, the mover's men first: the mover's
//!   men among the 45 squares off its promotion row, the other side's men likewise (the two
//!   may overlap: such indices are no position and hold no value), then the
//!   mover's kings among the squares the men leave free and the other side's kings among the
//!   rest. Each combination is ranked in the combinatorial number system over an ordered list
//!   of squares; with White to move White's pieces are ranked from square 50 down and Black's
//!   from square 1 up. With Black to move the board is turned (square `s` is `51 - s`) and the
//!   colours swapped, so one table answers both sides to move.
//!
//! Every index is therefore checked twice: as a position with White to move and as its
//! turned, colour-swapped twin with Black to move, which also checks that damx's tables are
//! symmetric. Men never stand on their own promotion row in either program's tables.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, anyhow, bail};
use damx_engine::egdb::{self, Egdb, Material, Wdl};
use damx_rules::{Bitboard, Color, Position, Square};
use rayon::prelude::*;

use crate::args;

pub(crate) const ARGS: &str = "--scan-dir DIR [--egdb DIR] [--pieces N]";

pub(crate) const ABOUT: &str = "\
by hand, never in CI: compare every position of Scan 2.0's win/loss/draw bitbases (DIR is
Scan's data/bb, holding 2/, 3/, 4/) with damx's databases (--egdb, default the directory of
`damx egdb`), both sides to move, positions with a capture pending left out; prints per slice the
positions compared and the disagreements with example FENs, and fails on any disagreement.
--pieces N stops at N pieces (default: as many as both have). Build damx's set first, e.g.
`damx egdb build --pieces 4 --dir /tmp/egdb4`.";

/// The most pieces Scan's index can hold.
const SCAN_MAX_PIECES: u32 = 6;

/// Examples of disagreements printed per slice.
const EXAMPLES: usize = 5;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let (mut scan_dir, mut egdb_dir, mut pieces) = (None, None, None);
    for (name, value) in args::named(args, &["scan-dir", "egdb", "pieces"])? {
        match name {
            "scan-dir" => scan_dir = Some(PathBuf::from(value)),
            "egdb" => egdb_dir = Some(PathBuf::from(value)),
            _ => {
                let n: u32 = value
                    .parse()
                    .ok()
                    .filter(|n| (2..=SCAN_MAX_PIECES).contains(n))
                    .with_context(|| {
                        format!("--pieces must be 2 to {SCAN_MAX_PIECES}, not `{value}`")
                    })?;
                pieces = Some(n);
            }
        }
    }
    let scan_dir = scan_dir.context("--scan-dir DIR is required (Scan's data/bb directory)")?;
    let slices = scan_slices(&scan_dir)?;
    let egdb_dir = match egdb_dir {
        Some(dir) => dir,
        None => egdb::default_dir().context("no home directory: pass --egdb DIR")?,
    };
    // The error names the directory and its cause already.
    let egdb = Egdb::open(&egdb_dir).map_err(|error| anyhow!("damx's databases: {error}"))?;
    for problem in egdb.problems() {
        println!("damx skipped {problem}");
    }
    if egdb.stats().slices == 0 {
        bail!(
            "no damx slices in {} (build them with `damx egdb build --pieces 4 --dir {0}`)",
            egdb_dir.display()
        );
    }
    let max = pieces.unwrap_or(SCAN_MAX_PIECES).min(egdb.max_pieces());
    println!(
        "Scan 2.0 bitbases in {} against damx's databases in {} (up to {max} pieces)",
        scan_dir.display(),
        egdb_dir.display()
    );
    println!("Scan  damx: White to move / Black to move");
    let start = Instant::now();
    let mut total = Tally::default();
    let (mut compared_slices, mut skipped) = (0, Vec::new());
    for slice in slices.iter().filter(|s| s.pieces() <= max) {
        let (white, black) = (slice.material(Color::White), slice.material(Color::Black));
        if !egdb.has(white) || !egdb.has(black) {
            skipped.push(format!("{} ({white} / {black})", slice.name()));
            continue;
        }
        let values = read_scan_file(&scan_dir.join(slice.file()), slice.size())?;
        let tally = compare_slice(*slice, &values, &egdb);
        println!(
            "{}  {:<8} {:<8} {:>10} compared, {:>9} with a capture pending left out, \
             {} disagreements{}",
            slice.name(),
            white.to_string(),
            black.to_string(),
            tally.compared,
            tally.captures,
            tally.wrong,
            if tally.unknown > 0 {
                format!(", {} unknown to damx", tally.unknown)
            } else {
                String::new()
            }
        );
        for example in &tally.examples {
            println!("      {example}");
        }
        compared_slices += 1;
        total.add(tally);
    }
    if !skipped.is_empty() {
        println!("not in damx's databases, left out: {}", skipped.join(", "));
    }
    if compared_slices == 0 {
        bail!("no slice is in both tables");
    }
    println!(
        "{compared_slices} slices, {} positions compared ({} with a capture pending and {} \
         indices where men share a square left out), {} disagreements, {} unknown to damx, in \
         {:.1?}",
        total.compared,
        total.captures,
        total.impossible,
        total.wrong,
        total.unknown,
        start.elapsed()
    );
    println!(
        "positions with a capture pending: Scan's stored value is their value in {} of {} \
         (Scan resolves captures by search, so these runs are filler)",
        total.captures_agreeing, total.captures
    );
    if total.wrong > 0 || total.unknown > 0 {
        bail!(
            "{} disagreements and {} positions unknown to damx",
            total.wrong,
            total.unknown
        );
    }
    Ok(())
}

/// A material as Scan names it: counts seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ScanSlice {
    /// The mover's men.
    men: u32,
    /// The other side's men.
    other_men: u32,
    /// The mover's kings.
    kings: u32,
    /// The other side's kings.
    other_kings: u32,
}

impl ScanSlice {
    /// Parses a file name of four digits; `None` for anything else, and for materials that
    /// are not a position with a side to move that has pieces and an opponent that has some.
    fn parse(name: &str) -> Option<ScanSlice> {
        let digits: Vec<u32> = name
            .chars()
            .map(|c| c.to_digit(10))
            .collect::<Option<_>>()?;
        let &[men, other_men, kings, other_kings] = digits.as_slice() else {
            return None;
        };
        let slice = ScanSlice {
            men,
            other_men,
            kings,
            other_kings,
        };
        (men + kings > 0
            && other_men + other_kings > 0
            && men <= 5
            && other_men <= 5
            && slice.pieces() <= SCAN_MAX_PIECES)
            .then_some(slice)
    }

    fn pieces(self) -> u32 {
        self.men + self.other_men + self.kings + self.other_kings
    }

    fn name(self) -> String {
        format!(
            "{}{}{}{}",
            self.men, self.other_men, self.kings, self.other_kings
        )
    }

    fn file(self) -> PathBuf {
        Path::new(&self.pieces().to_string()).join(self.name())
    }

    /// The radices of the index, most significant first.
    fn radices(self) -> [u64; 4] {
        let men = self.men + self.other_men;
        [
            binomial(45, self.men),
            binomial(45, self.other_men),
            binomial(50 - men, self.kings),
            binomial(50 - men - self.kings, self.other_kings),
        ]
    }

    fn size(self) -> u64 {
        self.radices().iter().product()
    }

    /// damx's material of the positions of this slice with `side` to move.
    fn material(self, side: Color) -> Material {
        // The last index has the mover's men on the highest ranks and the other side's men on
        // the highest ranks, at opposite ends of the board: never a collision.
        let position = self
            .position(self.size() - 1, side)
            .expect("the last index is a position");
        Material::of(&position)
    }

    /// The position of `index` with `side` to move; `None` where the two sides' men would
    /// share a square.
    fn position(self, index: u64, side: Color) -> Option<Position> {
        let [_, other_men_radix, kings_radix, other_kings_radix] = self.radices();
        let mut rest = index;
        let other_kings_rank = rest % other_kings_radix;
        rest /= other_kings_radix;
        let kings_rank = rest % kings_radix;
        rest /= kings_radix;
        let other_men_rank = rest % other_men_radix;
        let men_rank = rest / other_men_radix;

        // With White to move: White's pieces ranked from square 50 down, Black's from 1 up.
        let down: Vec<u8> = (6..=50).rev().collect();
        let up: Vec<u8> = (1..=45).collect();
        let men = unrank(men_rank, self.men, &down);
        let other_men = unrank(other_men_rank, self.other_men, &up);
        if men.iter().any(|s| other_men.contains(s)) {
            return None;
        }
        let free: Vec<u8> = (1..=50u8)
            .filter(|s| !men.contains(s) && !other_men.contains(s))
            .collect();
        let free_down: Vec<u8> = free.iter().rev().copied().collect();
        let kings = unrank(kings_rank, self.kings, &free_down);
        let free: Vec<u8> = free.into_iter().filter(|s| !kings.contains(s)).collect();
        let other_kings = unrank(other_kings_rank, self.other_kings, &free);

        // With Black to move: the board turned and the colours swapped.
        let turn = |square: u8| match side {
            Color::White => square,
            Color::Black => 51 - square,
        };
        let board = |squares: &[u8]| {
            squares
                .iter()
                .filter_map(|&s| Square::new(turn(s)))
                .fold(Bitboard::EMPTY, Bitboard::with)
        };
        let (mover, other) = (
            (board(&men), board(&kings)),
            (board(&other_men), board(&other_kings)),
        );
        let ((white_men, white_kings), (black_men, black_kings)) = match side {
            Color::White => (mover, other),
            Color::Black => (other, mover),
        };
        Position::from_pieces(white_men, white_kings, black_men, black_kings, side).ok()
    }
}

/// The slices of Scan's directory, in order of piece count.
fn scan_slices(dir: &Path) -> anyhow::Result<Vec<ScanSlice>> {
    if !dir.is_dir() {
        bail!(
            "Scan's bitbase directory {} does not exist or is not a directory (pass Scan's \
             data/bb, which holds 2/, 3/, 4/)",
            dir.display()
        );
    }
    let mut slices = Vec::new();
    for pieces in 2..=SCAN_MAX_PIECES {
        let sub = dir.join(pieces.to_string());
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("reading {}", sub.display()))?;
            let name = entry.file_name();
            match name.to_str().and_then(ScanSlice::parse) {
                Some(slice) if slice.pieces() == pieces => slices.push(slice),
                _ => println!("not a Scan slice, ignored: {}", entry.path().display()),
            }
        }
    }
    if slices.is_empty() {
        bail!(
            "no Scan bitbase files under {} (expected 2/0011 and the like)",
            dir.display()
        );
    }
    slices.sort_by_key(|s| (s.pieces(), *s));
    Ok(slices)
}

/// Decodes a whole file into one value byte per index (0 draw, 1 loss, 2 win).
fn read_scan_file(path: &Path, size: u64) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    decode_runs(&bytes, size).with_context(|| format!("decoding {}", path.display()))
}

/// Expands Scan's run-length code, checking that it covers exactly `size` values.
fn decode_runs(bytes: &[u8], size: u64) -> anyhow::Result<Vec<u8>> {
    let runs: Vec<u64> = (0..85)
        .map(|i| (1.2f64.powi(i) + 0.5).floor() as u64)
        .collect();
    let mut values = Vec::with_capacity(usize::try_from(size)?);
    for (offset, &byte) in bytes.iter().enumerate() {
        let Some(&run) = runs.get(usize::from(byte / 3)) else {
            bail!("byte {byte} at offset {offset} is not a run code");
        };
        if values.len() as u64 + run > size {
            bail!("the runs pass the {size} positions of the slice at offset {offset}");
        }
        values.extend(std::iter::repeat_n(byte % 3, run as usize));
    }
    if values.len() as u64 != size {
        bail!(
            "the runs cover {} positions, the slice has {size}",
            values.len()
        );
    }
    Ok(values)
}

/// The squares of the combination of `pieces` elements of `order` whose rank in the
/// combinatorial number system is `rank`: the sum over the chosen positions `c1 < c2 < ...`
/// of `binomial(ci, i)`.
fn unrank(mut rank: u64, pieces: u32, order: &[u8]) -> Vec<u8> {
    let mut squares = Vec::with_capacity(pieces as usize);
    for i in (1..=pieces).rev() {
        let mut c = i - 1;
        while binomial(c + 1, i) <= rank {
            c += 1;
        }
        rank -= binomial(c, i);
        squares.push(order[c as usize]);
    }
    squares
}

/// The rank of a combination of positions in `order` (the inverse of [`unrank`]).
#[cfg(test)]
fn rank(squares: &[u8], order: &[u8]) -> u64 {
    let mut positions: Vec<u32> = squares
        .iter()
        .map(|s| order.iter().position(|o| o == s).unwrap() as u32)
        .collect();
    positions.sort_unstable();
    positions
        .iter()
        .zip(1..)
        .map(|(&c, i)| binomial(c, i))
        .sum()
}

fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc * u64::from(n - i) / u64::from(i + 1))
}

/// Counts of one slice or of all.
#[derive(Default)]
struct Tally {
    /// Indices where men share a square.
    impossible: u64,
    compared: u64,
    captures: u64,
    /// Positions with a capture pending whose stored value in Scan's table happens to be their
    /// value.
    captures_agreeing: u64,
    wrong: u64,
    unknown: u64,
    examples: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.impossible += other.impossible;
        self.compared += other.compared;
        self.captures += other.captures;
        self.captures_agreeing += other.captures_agreeing;
        self.wrong += other.wrong;
        self.unknown += other.unknown;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }
}

fn scan_wdl(value: u8) -> Wdl {
    match value {
        1 => Wdl::Loss,
        2 => Wdl::Win,
        _ => Wdl::Draw,
    }
}

/// Every index of a slice, both sides to move, against damx's probe.
fn compare_slice(slice: ScanSlice, values: &[u8], egdb: &Egdb) -> Tally {
    values
        .par_iter()
        .enumerate()
        .with_min_len(1 << 12)
        .fold(Tally::default, |mut tally, (index, &value)| {
            let scan = scan_wdl(value);
            for side in [Color::White, Color::Black] {
                let Some(position) = slice.position(index as u64, side) else {
                    tally.impossible += 1;
                    continue;
                };
                if position.has_capture() {
                    tally.captures += 1;
                    if egdb.value(&position).map(|v| v.wdl) == Some(scan) {
                        tally.captures_agreeing += 1;
                    }
                    continue;
                }
                tally.compared += 1;
                let damx = egdb.probe(&position);
                if damx == Some(scan) {
                    continue;
                }
                match damx {
                    None => tally.unknown += 1,
                    Some(_) => tally.wrong += 1,
                }
                if tally.examples.len() < EXAMPLES {
                    let mut line = String::new();
                    let damx = damx.map_or("unknown".to_string(), |v| v.to_string());
                    let _ = write!(line, "{position}  Scan {scan}, damx {damx}");
                    tally.examples.push(line);
                }
            }
            tally
        })
        .reduce(Tally::default, |mut a, b| {
            a.add(b);
            a
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let slice = ScanSlice::parse("1002").unwrap();
        assert_eq!(
            (slice.men, slice.other_men, slice.kings, slice.other_kings),
            (1, 0, 0, 2)
        );
        assert_eq!(slice.file(), Path::new("3/1002"));
        assert_eq!(slice.size(), 45 * 49 * 48 / 2);
        // A fifth digit, no piece for a side, three digits, a letter, seven pieces.
        for name in ["0110x", "0101", "1010", "110", "11a0", "0016"] {
            assert_eq!(ScanSlice::parse(name), None, "{name}");
        }
    }

    #[test]
    fn runs_decode_and_sizes_are_checked() {
        // Byte 0: one draw; 5: one win (a run of round(1.2^1) = 1); 7: one loss (a run of
        // round(1.2^2) = 1); 12: two draws (a run of round(1.2^4) = 2).
        assert_eq!(decode_runs(&[0, 5, 7, 12], 5).unwrap(), vec![0, 2, 1, 0, 0]);
        assert!(
            decode_runs(&[0, 5], 3)
                .unwrap_err()
                .to_string()
                .contains("cover 2")
        );
        assert!(
            decode_runs(&[12], 1)
                .unwrap_err()
                .to_string()
                .contains("pass")
        );
        assert!(
            decode_runs(&[255], 10)
                .unwrap_err()
                .to_string()
                .contains("not a run code")
        );
    }

    #[test]
    fn unrank_inverts_rank() {
        let order: Vec<u8> = (1..=20).collect();
        for pieces in 0..=3 {
            for r in 0..binomial(20, pieces) {
                let squares = unrank(r, pieces, &order);
                assert_eq!(squares.len(), pieces as usize);
                assert_eq!(rank(&squares, &order), r);
            }
        }
    }

    /// Every index of a slice gives a distinct position, and the twin with Black to move is the
    /// turned board with the colours swapped.
    #[test]
    fn indices_are_distinct_positions() {
        let slice = ScanSlice::parse("1110").unwrap();
        let mut seen = std::collections::HashSet::new();
        let mut impossible = 0;
        for index in 0..slice.size() {
            let Some(white) = slice.position(index, Color::White) else {
                assert_eq!(slice.position(index, Color::Black), None);
                impossible += 1;
                continue;
            };
            assert!(seen.insert(white), "index {index}: {white}");
            assert_eq!(white.men(Color::White).count(), 1);
            assert_eq!(white.kings(Color::White).count(), 1);
            assert_eq!(white.men(Color::Black).count(), 1);
            let black = slice.position(index, Color::Black).unwrap();
            for square in Square::all() {
                let turned = Square::new(51 - square.number()).unwrap();
                assert_eq!(
                    white.piece_at(square).map(|(c, p)| (!c, p)),
                    black.piece_at(turned)
                );
            }
        }
        // Men on the same square: the 40 squares both sides' men may stand on, times the 48
        // squares left for the king.
        assert_eq!(impossible, 40 * 48);
        // The first index: White's man on 50, Black's man on 1, White's king on the highest
        // free square, as the ranks start there.
        assert_eq!(
            slice.position(0, Color::White).unwrap().to_string(),
            "W:WK49,50:B1"
        );
        assert_eq!(slice.material(Color::White).to_string(), "KM-M");
        assert_eq!(slice.material(Color::Black).to_string(), "M-KM");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let error =
            run(&["--scan-dir".to_string(), "/nonexistent/scan/bb".to_string()]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("/nonexistent/scan/bb does not exist"),
            "{error}"
        );
    }
}
