//! Building slices by retrograde analysis, and verifying them against their successors.
//!
//! A slice is solved in two steps, both spread over all cores with rayon:
//!
//! 1. Every position is generated from its index and its moves are looked at once. A move that
//!    leaves the slice (a capture, or a promotion: both lead to a slice built earlier) is
//!    valued from that slice; a position with no move is lost; a move that leads to a lost
//!    position wins. Every other position keeps a count of its moves that stay in the slice
//!    and whether a move out of it draws.
//! 2. Layer by layer of plies (each a bitmap of the positions decided at that distance), the
//!    positions decided last are unmoved: each predecessor (the other side's quiet moves
//!    played backwards, kept only where that side had no capture, since a capture would have
//!    been compulsory) of a lost position wins, and each predecessor of a won position loses
//!    one move from its count; at zero, with no drawing way out, it is lost. What is never
//!    decided is a draw.
//!
//! The layer at which a position is decided is its distance to conversion, exact because the
//! layers are processed in order.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU64, Ordering};
use std::time::Instant;

use damx_rules::{Bitboard, Color, MoveList, Position};
use rayon::prelude::*;

use super::format::{self, FormatError, SliceFile};
use super::material::{Material, mirror};
use super::{
    EgdbError, Problem, ProblemKind, Value, Values, Wdl, decode_value, file_name, load_slice,
    resolve, stores_distances,
};

/// What to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// The database directory (created if missing).
    pub dir: PathBuf,
    /// Build every slice of 2 up to this many pieces.
    pub pieces: u32,
    /// Refuse to start when [`build_memory_estimate`] is above this many bytes.
    pub memory_limit: Option<u64>,
}

/// What a build reports while it runs (from any of its threads).
#[derive(Clone, Debug, PartialEq)]
pub enum BuildEvent {
    /// A slice is already built and checked; it is not built again.
    Kept {
        /// The slice.
        material: Material,
    },
    /// A slice's file exists but cannot be used; it is built again.
    Damaged {
        /// The slice.
        material: Material,
        /// What is wrong with the file.
        problem: String,
    },
    /// A slice is being built.
    Started {
        /// The slice.
        material: Material,
        /// Its place in the build (1-based) and the number of slices to build.
        ordinal: usize,
        /// The number of slices this build makes.
        of: usize,
        /// Its positions.
        positions: u64,
    },
    /// Part of the first pass over a slice is done.
    Scanned {
        /// The slice.
        material: Material,
        /// Positions looked at.
        done: u64,
        /// All positions.
        positions: u64,
    },
    /// A layer of the retrograde pass is done.
    Layer {
        /// The slice.
        material: Material,
        /// The distance in plies just processed.
        plies: u32,
        /// Positions decided so far.
        decided: u64,
        /// All positions.
        positions: u64,
    },
    /// A slice is written.
    Finished {
        /// The slice.
        material: Material,
        /// Seconds it took.
        seconds: f64,
        /// The file's size.
        bytes: u64,
        /// Positions won, drawn and lost for the side to move (positions that are not stored
        /// not counted).
        counts: [u64; 3],
        /// The longest distance to conversion, in plies.
        longest: u32,
    },
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BuildReport {
    /// The database directory.
    pub dir: PathBuf,
    /// The most pieces of the build.
    pub pieces: u32,
    /// Slices built.
    pub built: Vec<Material>,
    /// Slices that were already there.
    pub kept: Vec<Material>,
    /// Seconds in all.
    pub seconds: f64,
    /// Bytes of the files of `2..=pieces` pieces.
    pub bytes: u64,
}

/// The memory a build of `2..=pieces` pieces needs, in bytes: three bytes and a quarter a
/// position of the largest slice while it is solved (state, move counter, two layer bitmaps),
/// the smaller slices decoded and the slices of the same size compressed (an eighth of a byte
/// a position is generous for win/draw/loss).
pub fn build_memory_estimate(pieces: u32) -> u64 {
    let largest = Material::all(pieces, pieces)
        .iter()
        .map(|m| m.positions())
        .max()
        .unwrap_or(0);
    let smaller: u64 = Material::all(2, pieces.saturating_sub(1))
        .iter()
        .map(|m| m.positions())
        .sum();
    let same: u64 = Material::all(pieces, pieces)
        .iter()
        .map(|m| m.positions())
        .sum();
    3 * largest + largest / 4 + smaller + same / 8 + (64 << 20)
}

/// One slice as a build or a verification holds it: the checked file, and its values decoded
/// where lookups are frequent (the slices with fewer pieces than the one being solved).
struct Stored {
    file: SliceFile,
    decoded: Option<Vec<u8>>,
}

/// The slices available to a build or a verification.
struct Tables {
    slices: Vec<Option<Stored>>,
}

impl Tables {
    fn new() -> Tables {
        Tables {
            slices: (0..4096).map(|_| None).collect(),
        }
    }

    fn insert(&mut self, file: SliceFile) {
        let code = file.material.code();
        self.slices[code] = Some(Stored {
            file,
            decoded: None,
        });
    }

    /// Decodes every slice of fewer pieces than `material`, and `material` itself if `also`
    /// (and drops the decoded values of the others); `Err` names a slice whose blocks do not
    /// decode.
    fn decode_below(&mut self, material: Material, also: bool) -> Result<(), Material> {
        for stored in self.slices.iter_mut().flatten() {
            let this = stored.file.material;
            if this.pieces() < material.pieces() || (also && this == material) {
                if stored.decoded.is_none() {
                    let values = stored.file.decode_all().ok_or(stored.file.material)?;
                    stored.decoded = Some(values);
                }
            } else {
                stored.decoded = None;
            }
        }
        Ok(())
    }
}

impl Values for Tables {
    fn stored(&self, material: Material, index: u64) -> Option<(u8, bool)> {
        let stored = self.slices.get(material.code())?.as_ref()?;
        let byte = match &stored.decoded {
            Some(values) => *values.get(index as usize)?,
            None => stored.file.value(index)?,
        };
        Some((byte, stored.file.distances))
    }
}

/// A set of positions of the slice being solved, one bit each, that threads add to.
struct Layer(Vec<AtomicU64>);

impl Layer {
    fn new(positions: usize) -> Layer {
        Layer(
            (0..positions.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    fn insert(&self, index: usize) {
        self.0[index / 64].fetch_or(1 << (index % 64), Ordering::Relaxed);
    }

    fn len(&self) -> u64 {
        self.0
            .iter()
            .map(|word| u64::from(word.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    fn clear(&mut self) {
        for word in &mut self.0 {
            *word.get_mut() = 0;
        }
    }
}

// The state of a position while its slice is solved: the value in the top two bits, a flag
// for positions that are not stored (holes, side to move must capture), the distance below.
const UNKNOWN: u16 = 0;
const WIN: u16 = 1 << 14;
const LOSS: u16 = 2 << 14;
const DRAW: u16 = 3 << 14;
const VALUE_MASK: u16 = 3 << 14;
const NOT_STORED: u16 = 1 << 13;
const DEPTH_MASK: u16 = NOT_STORED - 1;
// The move counter's top bit: a move out of the slice draws.
const DRAWING_EXIT: u8 = 0x80;

/// One diagonal step of every bit, off-board steps dropped (the layout of `damx_rules`).
#[inline(always)]
fn step(bits: u64, dir: usize) -> u64 {
    let shifted = match dir {
        0 => bits >> 5,
        1 => bits >> 6,
        2 => bits << 5,
        _ => bits << 6,
    };
    shifted & Bitboard::ALL.bits()
}

/// Calls `f` with every position from which a quiet move of the side that just moved, staying
/// in the slice, leads to `position` and in which that side had no capture.
#[inline]
fn for_each_predecessor(position: &Position, mut f: impl FnMut(&Position)) {
    let mover = !position.side_to_move();
    let empty = position.empty().bits();
    let men = position.men(mover).bits();
    let kings = position.kings(mover).bits();
    let (other_men, other_kings) = (position.men(!mover).bits(), position.kings(!mover).bits());
    let mut emit = |men: u64, kings: u64| {
        let (white_men, white_kings, black_men, black_kings) = match mover {
            Color::White => (men, kings, other_men, other_kings),
            Color::Black => (other_men, other_kings, men, kings),
        };
        let Ok(previous) = Position::from_pieces(
            Bitboard::from_bits(white_men),
            Bitboard::from_bits(white_kings),
            Bitboard::from_bits(black_men),
            Bitboard::from_bits(black_kings),
            mover,
        ) else {
            return;
        };
        if !previous.has_capture() {
            f(&previous);
        }
    };
    let mut rest = kings;
    while rest != 0 {
        let king = rest & rest.wrapping_neg();
        rest ^= king;
        for dir in 0..4 {
            let mut from = step(king, dir);
            while from & empty != 0 {
                emit(men, kings ^ king ^ from);
                from = step(from, dir);
            }
        }
    }
    // Men only move forward, so they came from one step back.
    let back = match mover {
        Color::White => [2, 3],
        Color::Black => [0, 1],
    };
    let mut rest = men;
    while rest != 0 {
        let man = rest & rest.wrapping_neg();
        rest ^= man;
        for dir in back {
            let from = step(man, dir);
            if from & empty != 0 {
                emit(men ^ man ^ from, kings);
            }
        }
    }
}

/// Solves one slice; the value bytes of every index.
fn solve(
    material: Material,
    tables: &Tables,
    observer: &(dyn Fn(BuildEvent) + Sync),
) -> Result<(Vec<u8>, [u64; 3], u32), EgdbError> {
    let positions = material.positions();
    let n = positions as usize;
    let state: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(UNKNOWN)).collect();
    let counters: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let scanned = AtomicU64::new(0);
    const CHUNK: usize = 1 << 14;

    // Pass 1: terminal positions, moves out of the slice, move counts. The positions decided
    // at distances 0 and 1 go into the first two layers of pass 2.
    let mut layer = Layer::new(n);
    let mut after = Layer::new(n);
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|chunk| {
        if failed.load(Ordering::Relaxed) {
            return;
        }
        let mut moves = MoveList::new();
        let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(n);
        let len = range.len() as u64;
        for i in range {
            let Some(position) = material.position(i as u64) else {
                state[i].store(DRAW | NOT_STORED, Ordering::Relaxed);
                continue;
            };
            position.legal_moves_into(&mut moves);
            if moves.is_empty() {
                state[i].store(LOSS, Ordering::Relaxed);
                layer.insert(i);
                continue;
            }
            let capture = moves[0].is_capture();
            let flag = if capture { NOT_STORED } else { 0 };
            let (mut inside, mut drawing, mut wins) = (0u8, false, false);
            for mv in moves.iter() {
                let next = position.play(mv);
                if !capture && Material::of(&next) == material {
                    inside += 1;
                    continue;
                }
                match resolve(tables, &next).map(|value| value.wdl) {
                    Some(Wdl::Loss) => {
                        wins = true;
                        break;
                    }
                    Some(Wdl::Draw) => drawing = true,
                    Some(Wdl::Win) => {}
                    None => {
                        failed.store(true, Ordering::Relaxed);
                        let mut failure = failure.lock().unwrap_or_else(|e| e.into_inner());
                        failure.get_or_insert_with(|| {
                            format!(
                                "the value of {next} (after {mv} in {position}) is not available"
                            )
                        });
                        return;
                    }
                }
            }
            let value = if wins {
                after.insert(i);
                WIN | 1
            } else if inside == 0 {
                if drawing {
                    DRAW
                } else {
                    after.insert(i);
                    LOSS | 1
                }
            } else {
                counters[i].store(
                    inside | if drawing { DRAWING_EXIT } else { 0 },
                    Ordering::Relaxed,
                );
                UNKNOWN
            };
            state[i].store(value | flag, Ordering::Relaxed);
        }
        let done = scanned.fetch_add(len, Ordering::Relaxed) + len;
        observer(BuildEvent::Scanned {
            material,
            done,
            positions,
        });
    });
    if let Some(problem) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(EgdbError::Dependency {
            building: material,
            problem,
        });
    }

    // Pass 2: layer by layer, unmove the positions decided at the current distance. A layer is
    // the set of positions decided while the one before was unmoved (pass 1 gives the first
    // two), kept as a bitmap: finding them costs a bit a position, not a look at each state.
    let mut depth: u16 = 0;
    let mut decided = 0u64;
    loop {
        let size = layer.len();
        if size == 0 && depth >= 1 {
            break;
        }
        decided += size;
        let next = (depth + 1).min(DEPTH_MASK);
        layer
            .0
            .par_iter()
            .enumerate()
            .with_min_len(16)
            .for_each(|(word, bits)| {
                let mut rest = bits.load(Ordering::Relaxed);
                while rest != 0 {
                    let q = word * 64 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let s = state[q].load(Ordering::Relaxed);
                    let won = s & VALUE_MASK == WIN;
                    let Some(position) = material.position(q as u64) else {
                        continue;
                    };
                    for_each_predecessor(&position, |previous| {
                        let p = material.index(previous) as usize;
                        let ps = state[p].load(Ordering::Relaxed);
                        if ps & VALUE_MASK != UNKNOWN {
                            return;
                        }
                        let flag = ps & NOT_STORED;
                        let settled = if !won {
                            state[p]
                                .compare_exchange(
                                    ps,
                                    WIN | next | flag,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                )
                                .is_ok()
                        } else {
                            counters[p].fetch_sub(1, Ordering::Relaxed) == 1
                                && state[p]
                                    .compare_exchange(
                                        ps,
                                        LOSS | next | flag,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                        };
                        if settled {
                            after.insert(p);
                        }
                    });
                }
            });
        std::mem::swap(&mut layer, &mut after);
        after.clear();
        observer(BuildEvent::Layer {
            material,
            plies: depth as u32,
            decided,
            positions,
        });
        depth += 1;
    }

    // Only the states are read from here on: give the counters and layers back before the
    // values are made, so that the peak stays within `build_memory_estimate`.
    drop(counters);
    drop(layer);
    drop(after);

    // The value bytes; positions not stored repeat the byte before them.
    let distances = stores_distances(material);
    let mut values = vec![0u8; n];
    let mut counts = [0u64; 3];
    let mut longest = 0u32;
    let mut previous = 0u8;
    for (i, cell) in state.iter().enumerate() {
        let s = cell.load(Ordering::Relaxed);
        if s & NOT_STORED != 0 {
            values[i] = previous;
            continue;
        }
        let plies = (s & DEPTH_MASK) as u32;
        let byte = match s & VALUE_MASK {
            WIN => {
                counts[0] += 1;
                longest = longest.max(plies);
                if distances { plies.min(127) as u8 } else { 1 }
            }
            LOSS => {
                counts[2] += 1;
                longest = longest.max(plies);
                128 + if distances { plies.min(127) as u8 } else { 0 }
            }
            _ => {
                counts[1] += 1;
                0
            }
        };
        values[i] = byte;
        previous = byte;
    }
    Ok((values, counts, longest))
}

/// The value bytes of a slice read off its mirror image (colours swapped, board turned), which
/// is built: the same game with the roles exchanged. Much cheaper than solving it again.
fn derive(material: Material, tables: &Tables) -> Result<(Vec<u8>, [u64; 3], u32), EgdbError> {
    let image = material.mirrored();
    let image_values = tables.slices[image.code()]
        .as_ref()
        .and_then(|stored| stored.file.decode_all())
        .ok_or_else(|| EgdbError::Dependency {
            building: material,
            problem: format!("its mirror image {image} is not available"),
        })?;
    let n = material.positions() as usize;
    const CHUNK: usize = 1 << 14;
    // `None` for the positions that are not stored.
    let looked_up: Vec<Option<u8>> = (0..n)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|i| {
            let position = material.position(i as u64)?;
            if position.has_capture() {
                return None;
            }
            let mirrored = mirror(&position)?;
            image_values.get(image.index(&mirrored) as usize).copied()
        })
        .collect();
    drop(image_values);
    let distances = stores_distances(material);
    let mut values = vec![0u8; n];
    let mut counts = [0u64; 3];
    let mut longest = 0;
    let mut previous = 0u8;
    for (slot, byte) in values.iter_mut().zip(looked_up) {
        let Some(byte) = byte else {
            *slot = previous;
            continue;
        };
        let value = decode_value(byte, distances);
        counts[match value.wdl {
            Wdl::Win => 0,
            Wdl::Draw => 1,
            Wdl::Loss => 2,
        }] += 1;
        longest = longest.max(value.plies.unwrap_or(0));
        *slot = byte;
        previous = byte;
    }
    Ok((values, counts, longest))
}

/// Removes the temporary files (`NAME.egdb.PID.tmp`, see [`write_atomically`]) that a build
/// ended by a signal or a crash left in `dir`: those of processes that no longer run. Where
/// the system cannot say whether a process runs (no `/proc`), they are left alone.
fn remove_stale_temporaries(dir: &Path) {
    let proc = Path::new("/proc/self");
    if !proc.exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_suffix(".tmp"))
            .and_then(|rest| rest.rsplit_once(".egdb."))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `bytes` to `path` so that a reader never sees half a file: a temporary name of this
/// process first (two builds in one directory never share one), flushed to the disk, then
/// renamed. An error about the temporary file names it, and removes it (a full disk must not
/// stay full of half a slice).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let named = |error: std::io::Error| {
        let _ = std::fs::remove_file(&temporary);
        std::io::Error::new(error.kind(), format!("{}: {error}", temporary.display()))
    };
    File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .map_err(named)?;
    std::fs::rename(&temporary, path).map_err(named)?;
    if let Some(dir) = path.parent() {
        // Makes the rename itself durable where the platform allows opening a directory.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

/// Builds every slice of `2..=options.pieces` pieces that the directory does not hold yet,
/// smaller slices first. Finished slices are kept (a build can be interrupted and started
/// again); a damaged file is built again.
pub fn build(
    options: &BuildOptions,
    observer: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildReport, EgdbError> {
    let start = Instant::now();
    let dir = &options.dir;
    let created = if dir.exists() && !dir.is_dir() {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "a file of that name is there",
        ))
    } else {
        std::fs::create_dir_all(dir)
    };
    created.map_err(|source| EgdbError::CreateDirectory {
        path: dir.clone(),
        source,
    })?;
    remove_stale_temporaries(dir);
    let materials = Material::all(2, options.pieces);
    let mut tables = Tables::new();
    let mut report = BuildReport {
        dir: dir.clone(),
        pieces: options.pieces,
        ..BuildReport::default()
    };
    let mut todo = Vec::new();
    for &material in &materials {
        let path = dir.join(file_name(material));
        if !path.exists() {
            todo.push(material);
            continue;
        }
        match load_slice(&path, material) {
            Ok(file) => {
                report.bytes += file.len() as u64;
                tables.insert(file);
                report.kept.push(material);
                observer(BuildEvent::Kept { material });
            }
            Err(kind) => {
                let problem = Problem { path, kind }.to_string();
                observer(BuildEvent::Damaged { material, problem });
                todo.push(material);
            }
        }
    }
    if !todo.is_empty() {
        // The slices to build read the kept ones whole, and a checksum shows only that a file
        // is as it was written: a kept file whose blocks do not decode is built again too.
        // (Checked only here: with nothing to build, the files are not read further.)
        let undecodable: Vec<Material> = (report.kept.iter().copied())
            .filter(|material| {
                tables.slices[material.code()]
                    .as_ref()
                    .is_some_and(|stored| stored.file.decode_all().is_none())
            })
            .collect();
        for material in undecodable {
            if let Some(stored) = tables.slices[material.code()].take() {
                report.bytes -= stored.file.len() as u64;
            }
            report.kept.retain(|&kept| kept != material);
            let kind = ProblemKind::Format(FormatError::Inconsistent("a block does not decode"));
            let path = dir.join(file_name(material));
            let problem = Problem { path, kind }.to_string();
            observer(BuildEvent::Damaged { material, problem });
            todo.push(material);
        }
        todo.sort_by_key(|material| materials.iter().position(|m| m == material));
    }
    if !todo.is_empty()
        && let Some(limit) = options.memory_limit
    {
        let needed = build_memory_estimate(options.pieces);
        if needed > limit {
            return Err(EgdbError::Memory { needed, limit });
        }
    }
    let of = todo.len();
    for (ordinal, &material) in todo.iter().enumerate() {
        let slice_start = Instant::now();
        observer(BuildEvent::Started {
            material,
            ordinal: ordinal + 1,
            of,
            positions: material.positions(),
        });
        tables
            .decode_below(material, false)
            .map_err(|bad| EgdbError::Dependency {
                building: material,
                problem: format!("the blocks of slice {bad} do not decode"),
            })?;
        let image = material.mirrored();
        let (values, counts, longest) =
            if image != material && tables.slices[image.code()].is_some() {
                derive(material, &tables)?
            } else {
                solve(material, &tables, observer)?
            };
        let bytes = format::encode(material, stores_distances(material), &values);
        drop(values);
        let path = dir.join(file_name(material));
        write_atomically(&path, &bytes).map_err(|source| EgdbError::Write {
            path: path.clone(),
            source,
        })?;
        let size = bytes.len() as u64;
        let file = SliceFile::parse(bytes, material).map_err(|error| EgdbError::Dependency {
            building: material,
            problem: format!("the file just written does not read back: {error}"),
        })?;
        tables.insert(file);
        report.bytes += size;
        report.built.push(material);
        observer(BuildEvent::Finished {
            material,
            seconds: slice_start.elapsed().as_secs_f64(),
            bytes: size,
            counts,
            longest,
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// What a verification reports while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyEvent {
    /// A slice is being checked.
    Started {
        /// The slice.
        material: Material,
        /// Its place (1-based) and the number of slices.
        ordinal: usize,
        /// The number of slices.
        of: usize,
    },
    /// A slice is checked.
    Finished {
        /// The slice.
        material: Material,
        /// Positions checked (stored positions only).
        checked: u64,
        /// Positions whose value does not follow from their successors.
        wrong: u64,
        /// Positions with a successor in a slice that is missing or unusable, so that their
        /// value cannot be checked.
        unverifiable: u64,
    },
}

/// The outcome of [`verify`].
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Slices checked.
    pub slices: usize,
    /// Positions checked.
    pub checked: u64,
    /// Positions whose stored value does not follow from their successors.
    pub wrong: u64,
    /// Positions with a successor in a slice that is missing or unusable (see `problems`),
    /// so that their value could not be checked.
    pub unverifiable: u64,
    /// The first few wrong ones, described.
    pub examples: Vec<String>,
    /// Files that could not be used at all.
    pub problems: Vec<Problem>,
    /// Seconds in all.
    pub seconds: f64,
}

impl VerifyReport {
    /// Whether everything checked out: no wrong value, none that could not be checked, no
    /// unusable file.
    pub fn is_ok(&self) -> bool {
        self.wrong == 0 && self.unverifiable == 0 && self.problems.is_empty()
    }
}

/// The value a position must have given the values of its successors; `Err` describes a
/// successor that has none.
fn expected_value(
    tables: &Tables,
    material: Material,
    position: &Position,
    moves: &MoveList,
) -> Result<Value, String> {
    if moves.is_empty() {
        return Ok(Value {
            wdl: Wdl::Loss,
            plies: Some(0),
        });
    }
    let mut best_win: Option<u32> = None;
    let mut worst_loss = 0u32;
    let mut drawing = false;
    for mv in moves.iter() {
        let next = position.play(mv);
        let Some(value) = resolve(tables, &next) else {
            return Err(format!("the value after {mv} ({next}) is not available"));
        };
        let plies = if Material::of(&next) == material {
            value.plies.map_or(1, |p| p + 1)
        } else {
            1
        };
        match value.wdl {
            Wdl::Loss => best_win = Some(best_win.map_or(plies, |best| best.min(plies))),
            Wdl::Draw => drawing = true,
            Wdl::Win => worst_loss = worst_loss.max(plies),
        }
    }
    Ok(match (best_win, drawing) {
        (Some(plies), _) => Value {
            wdl: Wdl::Win,
            plies: Some(plies),
        },
        (None, true) => Value {
            wdl: Wdl::Draw,
            plies: None,
        },
        (None, false) => Value {
            wdl: Wdl::Loss,
            plies: Some(worst_loss),
        },
    })
}

/// Checks every stored position of every slice in `dir` (of at most `pieces` pieces, if
/// given) against its successors: a win must have a move to a lost position, a loss only moves
/// to won ones, a draw no move to a lost position and one to a drawn one, and stored distances
/// must be one more than the best (for a win) or worst (for a loss) successor's. With `every`
/// above 1, only every `every`-th position of the slices of more than three pieces is checked
/// (a quicker sample; the smaller slices are always checked whole).
pub fn verify(
    dir: &Path,
    pieces: Option<u32>,
    every: u64,
    observer: &(dyn Fn(VerifyEvent) + Sync),
) -> Result<VerifyReport, EgdbError> {
    let start = Instant::now();
    let egdb = super::Egdb::open(dir)?;
    let mut report = VerifyReport {
        problems: Vec::new(),
        ..VerifyReport::default()
    };
    let max = pieces.unwrap_or(super::MAX_SLICE_PIECES);
    let mut tables = Tables::new();
    let mut present = Vec::new();
    for (material, _, _) in egdb.slices() {
        if material.pieces() > max {
            continue;
        }
        let path = dir.join(file_name(material));
        match load_slice(&path, material) {
            Ok(file) => {
                tables.insert(file);
                present.push(material);
            }
            Err(kind) => report.problems.push(Problem { path, kind }),
        }
    }
    report
        .problems
        .extend(egdb.problems.into_iter().filter(|p| {
            p.path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok())
                .is_none_or(|m| m.pieces() <= max)
        }));
    let of = present.len();
    for (ordinal, &material) in present.iter().enumerate() {
        observer(VerifyEvent::Started {
            material,
            ordinal: ordinal + 1,
            of,
        });
        if tables.decode_below(material, true).is_err() {
            report.problems.push(Problem {
                path: dir.join(file_name(material)),
                kind: ProblemKind::Format(format::FormatError::Inconsistent(
                    "blocks do not decode",
                )),
            });
            continue;
        }
        let distances = stores_distances(material);
        let wrong = AtomicU64::new(0);
        let unverifiable = AtomicU64::new(0);
        let checked = AtomicU64::new(0);
        let examples = Mutex::new(Vec::new());
        let tables = &tables;
        let step = if material.pieces() <= 3 {
            1
        } else {
            every.max(1)
        };
        (0..material.positions().div_ceil(step) as usize)
            .into_par_iter()
            .with_min_len(1 << 12)
            .for_each_init(MoveList::new, |moves, i| {
                let i = i as u64 * step;
                let Some(position) = material.position(i) else {
                    return;
                };
                position.legal_moves_into(moves);
                if moves.first().is_some_and(|mv| mv.is_capture()) {
                    return;
                }
                checked.fetch_add(1, Ordering::Relaxed);
                let Some((byte, _)) = tables.stored(material, i) else {
                    return;
                };
                let stored = decode_value(byte, distances);
                let problem = match expected_value(tables, material, &position, moves) {
                    Err(_) => {
                        // A slice it leads to is missing or unusable (reported as such).
                        unverifiable.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                    Ok(expected) => {
                        let capped = |v: Value| Value {
                            wdl: v.wdl,
                            plies: if distances {
                                v.plies.map(|p| p.min(super::DISTANCE_CAP))
                            } else {
                                None
                            },
                        };
                        (capped(expected) != stored).then(|| {
                            format!("stored {stored}, successors say {}", capped(expected))
                        })
                    }
                };
                if let Some(problem) = problem {
                    wrong.fetch_add(1, Ordering::Relaxed);
                    let mut examples = examples.lock().unwrap_or_else(|e| e.into_inner());
                    if examples.len() < 10 {
                        examples.push(format!("{material} {position}: {problem}"));
                    }
                }
            });
        let (checked, wrong) = (checked.into_inner(), wrong.into_inner());
        let unverifiable = unverifiable.into_inner();
        report.slices += 1;
        report.checked += checked;
        report.wrong += wrong;
        report.unverifiable += unverifiable;
        let examples = examples.into_inner().unwrap_or_else(|e| e.into_inner());
        let room = 10usize.saturating_sub(report.examples.len());
        report.examples.extend(examples.into_iter().take(room));
        observer(VerifyEvent::Finished {
            material,
            checked,
            wrong,
            unverifiable,
        });
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The temporary slice files of a build that no longer runs are removed; this process's
    /// own and files of other names are kept. (Only where `/proc` tells which processes run.)
    #[test]
    fn stale_temporary_files_are_removed() {
        let dir = std::env::temp_dir().join(format!("damx-egdb-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let own = dir.join(format!("K-K.egdb.{}.tmp", std::process::id()));
        // Beyond any pid the kernel hands out.
        let stale = dir.join("K-K.egdb.999999999.tmp");
        let other = dir.join("notes.tmp");
        for path in [&own, &stale, &other] {
            std::fs::write(path, b"x").unwrap();
        }
        remove_stale_temporaries(&dir);
        assert!(own.exists() && other.exists());
        assert_eq!(stale.exists(), !Path::new("/proc/self").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Win/draw/loss by plain value iteration over the whole slice until nothing changes: slow,
    /// but independent of the unmove generator and the move counters.
    fn iterate(material: Material, tables: &Tables) -> Vec<Option<Wdl>> {
        let n = material.positions() as usize;
        let mut values: Vec<Option<Wdl>> = vec![None; n];
        loop {
            let mut changed = false;
            for i in 0..n {
                if values[i].is_some() {
                    continue;
                }
                let Some(position) = material.position(i as u64) else {
                    values[i] = Some(Wdl::Draw);
                    continue;
                };
                let moves = position.legal_moves();
                let mut all_won = true;
                let mut wins = false;
                let mut drawing = false;
                for mv in moves.iter() {
                    let next = position.play(mv);
                    let value = if Material::of(&next) == material && !mv.is_capture() {
                        values[material.index(&next) as usize]
                    } else {
                        resolve(tables, &next).map(|v| v.wdl)
                    };
                    match value {
                        Some(Wdl::Loss) => wins = true,
                        Some(Wdl::Win) => {}
                        Some(Wdl::Draw) => {
                            drawing = true;
                            all_won = false;
                        }
                        None => all_won = false,
                    }
                }
                let _ = drawing;
                if wins {
                    values[i] = Some(Wdl::Win);
                    changed = true;
                } else if all_won {
                    values[i] = Some(Wdl::Loss);
                    changed = true;
                }
            }
            if !changed {
                return values;
            }
        }
    }

    fn compare(max: u32) {
        let dir =
            std::env::temp_dir().join(format!("damx-egdb-iterate-{}-{max}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let options = BuildOptions {
            dir: dir.clone(),
            pieces: max,
            memory_limit: None,
        };
        build(&options, &|_| {}).unwrap();
        let mut tables = Tables::new();
        for material in Material::all(2, max) {
            tables.insert(load_slice(&dir.join(file_name(material)), material).unwrap());
        }
        for material in Material::all(max, max) {
            compare_slice(&mut tables, material);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn compare_slice(tables: &mut Tables, material: Material) {
        {
            tables.decode_below(material, true).unwrap();
            let tables = &*tables;
            let naive = iterate(material, tables);
            for (i, naive) in naive.iter().enumerate() {
                let Some(position) = material.position(i as u64) else {
                    continue;
                };
                if position.has_capture() {
                    continue;
                }
                let stored = resolve(tables, &position).map(|v| v.wdl);
                assert_eq!(
                    stored,
                    Some(naive.unwrap_or(Wdl::Draw)),
                    "{material} {position}"
                );
            }
        }
    }

    /// `DAMX_EGDB_CHECK_DIR=DIR DAMX_EGDB_CHECK_SLICE=KKK-K cargo test --release -- --ignored`
    #[test]
    #[ignore = "by hand: compares one built slice with value iteration"]
    fn one_built_slice_agrees_with_value_iteration() {
        let dir = PathBuf::from(std::env::var("DAMX_EGDB_CHECK_DIR").unwrap());
        let material: Material = std::env::var("DAMX_EGDB_CHECK_SLICE")
            .unwrap()
            .parse()
            .unwrap();
        let mut tables = Tables::new();
        for m in Material::all(2, material.pieces()) {
            if let Ok(file) = load_slice(&dir.join(file_name(m)), m) {
                tables.insert(file);
            }
        }
        compare_slice(&mut tables, material);
    }

    #[test]
    fn retrograde_agrees_with_value_iteration_on_three_pieces() {
        compare(3);
    }

    #[test]
    #[ignore = "slow: run by hand with --ignored"]
    fn retrograde_agrees_with_value_iteration_on_four_pieces() {
        compare(4);
    }
}
