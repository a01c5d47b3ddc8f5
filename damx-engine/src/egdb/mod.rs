//! Endgame databases that damx builds itself: the value of every position with few pieces.
//!
//! A database is a directory of slice files, one per material (`KKM-K.egdb`: White's kings and
//! men, then Black's; see [`Material`]). [`build`] computes them by retrograde analysis, the
//! smaller slices first, on all cores; [`Egdb::open`] loads them, reporting every file it cannot
//! use by name instead of failing, and [`Egdb::probe`] answers the value of a position with the
//! side to move: win, draw or loss by the rules of the game without its draw-rule counters.
//! [`verify`] checks every stored value against the values of its successors.
//!
//! Values. Every slice stores win/draw/loss for both sides to move. Slices of up to
//! [`DISTANCE_PIECES`] pieces, and kings-only slices of any size, also store the distance to
//! conversion: the plies until the winner captures or promotes into a won position of a smaller
//! slice (or the loser runs out of moves), capped at 127. That is what lets the engine make
//! progress within the 16- and 5-move rules, which all concern four pieces or fewer; the
//! larger slices with men keep win/draw/loss only, a quarter of the size after compression.
//! There the search finds the progress itself (men advancing, captures): in a search that
//! starts within the databases their wins do not end a line ([`play`]).
//!
//! Positions where the side to move must capture are not stored (their value follows from the
//! captures: [`Egdb::value`] resolves them, [`Egdb::probe`] answers `None`), which keeps the
//! files small.
//!
//! ```no_run
//! use damx_engine::egdb::{Egdb, Wdl};
//! use damx_rules::Position;
//!
//! let egdb = Egdb::open("/home/me/.cache/damx/egdb")?;
//! for problem in egdb.problems() {
//!     eprintln!("skipped: {problem}");
//! }
//! let position: Position = "W:WK46,K47,K48:BK5".parse()?;
//! assert_eq!(egdb.probe(&position), Some(Wdl::Win));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod format;
mod material;
pub mod play;
mod report;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use damx_rules::Position;

pub use build::{
    BuildEvent, BuildOptions, BuildReport, VerifyEvent, VerifyReport, build, build_memory_estimate,
    verify,
};
pub use format::{FORMAT_VERSION, FormatError};
pub use material::{MAX_SLICE_PIECES, Material, ParseMaterialError};
pub use play::SharedEgdb;
pub use report::{
    Bytes, EgdbLocation, LoadNote, Loaded, MissingEgdb, PiecesSummary, ProbeReport, Summary,
    Unknown, WorkEvent, available_memory, resident_memory,
};

use format::SliceFile;

/// Slices of at most this many pieces store distances (and kings-only slices of any size).
pub const DISTANCE_PIECES: u32 = 4;

/// The file name extension of a slice.
pub const EXTENSION: &str = "egdb";

/// Whether slices of `material` store distances to conversion.
pub fn stores_distances(material: Material) -> bool {
    material.pieces() <= DISTANCE_PIECES || material.men() == 0
}

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The value for the other side.
    #[must_use]
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// The longest distance a slice stores; a stored 127 means "127 plies or more".
pub const DISTANCE_CAP: u32 = 127;

/// A value with its distance to conversion where the slice stores one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Value {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// For a win or a loss: the plies until the winner captures or promotes into a won
    /// position of a smaller slice, or the loser is left without a move (0: the side to move
    /// has no move now), at most [`DISTANCE_CAP`]. `None` where the slice stores no distances,
    /// and for draws.
    pub plies: Option<u32>,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.wdl)?;
        match self.plies {
            Some(plies) if plies >= DISTANCE_CAP => {
                write!(f, " ({DISTANCE_CAP} or more plies to conversion)")
            }
            Some(1) => write!(f, " (1 ply to conversion)"),
            Some(plies) => write!(f, " ({plies} plies to conversion)"),
            None => Ok(()),
        }
    }
}

/// Decodes a stored value byte.
pub(crate) fn decode_value(byte: u8, distances: bool) -> Value {
    let (wdl, plies) = match byte {
        0 => {
            return Value {
                wdl: Wdl::Draw,
                plies: None,
            };
        }
        1..=127 => (Wdl::Win, byte as u32),
        _ => (Wdl::Loss, byte as u32 - 128),
    };
    Value {
        wdl,
        plies: distances.then_some(plies),
    }
}

/// Where values of positions come from: a loaded database, or the tables of a build.
pub(crate) trait Values {
    /// The stored byte of `index` in the slice of `material`, and whether that slice stores
    /// distances; `None` if the slice is not available.
    fn stored(&self, material: Material, index: u64) -> Option<(u8, bool)>;
}

/// The value of `position`, resolving pending captures through the slices they lead to.
pub(crate) fn resolve(values: &impl Values, position: &Position) -> Option<Value> {
    let side = position.side_to_move();
    if position.pieces(side).is_empty() {
        return Some(Value {
            wdl: Wdl::Loss,
            plies: Some(0),
        });
    }
    if position.pieces(!side).is_empty() {
        return Some(Value {
            wdl: Wdl::Win,
            plies: Some(0),
        });
    }
    let material = Material::of(position);
    if !material.is_slice() {
        return None;
    }
    if position.has_capture() {
        // Every move converts: a win in one ply if some capture leaves the opponent lost.
        let mut unknown = false;
        let mut draw = false;
        for mv in position.legal_moves() {
            match resolve(values, &position.play(&mv)).map(|v| v.wdl) {
                Some(Wdl::Loss) => {
                    return Some(Value {
                        wdl: Wdl::Win,
                        plies: Some(1),
                    });
                }
                Some(Wdl::Draw) => draw = true,
                Some(Wdl::Win) => {}
                None => unknown = true,
            }
        }
        return if unknown {
            None
        } else if draw {
            Some(Value {
                wdl: Wdl::Draw,
                plies: None,
            })
        } else {
            Some(Value {
                wdl: Wdl::Loss,
                plies: Some(1),
            })
        };
    }
    let (byte, distances) = values.stored(material, material.index(position))?;
    Some(decode_value(byte, distances))
}

/// Why a database directory cannot be used at all (single files that cannot be used are
/// [`Problem`]s instead).
#[derive(Debug)]
pub enum EgdbError {
    /// The directory cannot be read.
    Directory {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The directory of a build cannot be created (or the path is a file).
    CreateDirectory {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A file cannot be written or renamed during a build.
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A slice a build needs is missing or unusable (it is built first, so only a file
    /// damaged during the build can cause this).
    Dependency {
        /// The slice being built.
        building: Material,
        /// What was wrong.
        problem: String,
    },
    /// The build needs more memory than the limit allows.
    Memory {
        /// The estimate in bytes.
        needed: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl fmt::Display for EgdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EgdbError::Directory { path, source } => {
                write!(
                    f,
                    "cannot read database directory {}: {source}",
                    path.display()
                )
            }
            EgdbError::CreateDirectory { path, source } => {
                write!(f, "cannot create directory {}: {source}", path.display())
            }
            EgdbError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            EgdbError::Dependency { building, problem } => {
                write!(f, "cannot build slice {building}: {problem}")
            }
            EgdbError::Memory { needed, limit } => write!(
                f,
                "building needs about {} MiB of memory, more than the {} MiB available",
                needed >> 20,
                limit >> 20
            ),
        }
    }
}

impl std::error::Error for EgdbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EgdbError::Directory { source, .. }
            | EgdbError::CreateDirectory { source, .. }
            | EgdbError::Write { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A file of a database directory that was skipped, and why.
#[derive(Debug)]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub kind: ProblemKind,
}

/// What is wrong with a skipped file.
#[derive(Debug)]
pub enum ProblemKind {
    /// The file cannot be read.
    Io(io::Error),
    /// The contents are damaged or of another format.
    Format(FormatError),
    /// The name is not a slice name.
    Name,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path.display())?;
        match &self.kind {
            ProblemKind::Io(error) => write!(f, "{error}"),
            ProblemKind::Format(error) => write!(f, "{error}"),
            ProblemKind::Name => write!(f, "not a slice name such as KKM-K.{EXTENSION}"),
        }
    }
}

/// What a database holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EgdbStats {
    /// Slices loaded.
    pub slices: usize,
    /// Positions (indices) in them.
    pub positions: u64,
    /// Bytes of the files, all held in memory.
    pub bytes: u64,
    /// The most pieces of a loaded slice.
    pub max_pieces: u32,
    /// The most pieces such that every slice of that many pieces or fewer is loaded.
    pub complete_pieces: u32,
}

/// A loaded endgame database: the slices of a directory, in memory, ready to probe from any
/// number of threads.
#[derive(Debug)]
pub struct Egdb {
    dir: PathBuf,
    slices: Vec<Option<SliceFile>>,
    problems: Vec<Problem>,
    stats: EgdbStats,
}

/// The file name of a slice.
pub fn file_name(material: Material) -> String {
    format!("{material}.{EXTENSION}")
}

impl Egdb {
    /// Loads every slice file in `dir`. Files that cannot be used (unreadable, truncated,
    /// corrupt, of another version, misnamed) are skipped and listed in [`Egdb::problems`];
    /// an unfinished file of a build (`.tmp`) is ignored. Fails only when the directory cannot
    /// be read.
    pub fn open(dir: impl AsRef<Path>) -> Result<Egdb, EgdbError> {
        let dir = dir.as_ref().to_path_buf();
        let entries = std::fs::read_dir(&dir).map_err(|source| EgdbError::Directory {
            path: dir.clone(),
            source,
        })?;
        let mut egdb = Egdb {
            dir: dir.clone(),
            slices: (0..4096).map(|_| None).collect(),
            problems: Vec::new(),
            stats: EgdbStats::default(),
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == EXTENSION))
            .collect();
        paths.sort();
        for path in paths {
            let material = path
                .file_stem()
                .and_then(|stem| stem.to_str())
                .and_then(|stem| stem.parse::<Material>().ok());
            let Some(material) = material else {
                egdb.problems.push(Problem {
                    path,
                    kind: ProblemKind::Name,
                });
                continue;
            };
            match load_slice(&path, material) {
                Ok(slice) => egdb.insert(slice),
                Err(kind) => egdb.problems.push(Problem { path, kind }),
            }
        }
        Ok(egdb)
    }

    fn insert(&mut self, slice: SliceFile) {
        let material = slice.material;
        self.stats.slices += 1;
        self.stats.positions += slice.positions;
        self.stats.bytes += slice.len() as u64;
        self.stats.max_pieces = self.stats.max_pieces.max(material.pieces());
        self.slices[material.code()] = Some(slice);
        self.stats.complete_pieces = (2..=MAX_SLICE_PIECES)
            .take_while(|&n| {
                Material::all(n, n)
                    .iter()
                    .all(|m| self.slices[m.code()].is_some())
            })
            .last()
            .unwrap_or(0);
    }

    /// The directory the database was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files that were skipped, with the reason.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// What the database holds.
    pub fn stats(&self) -> EgdbStats {
        self.stats
    }

    /// The most pieces of a position the database may answer for (0 when empty).
    pub fn max_pieces(&self) -> u32 {
        self.stats.max_pieces
    }

    /// The loaded slices, in build order, with their file sizes and whether they store
    /// distances.
    pub fn slices(&self) -> Vec<(Material, u64, bool)> {
        Material::all(2, MAX_SLICE_PIECES)
            .into_iter()
            .filter_map(|m| {
                self.slices[m.code()]
                    .as_ref()
                    .map(|s| (m, s.len() as u64, s.distances))
            })
            .collect()
    }

    /// The slices of `2..=pieces` pieces that are not loaded.
    pub fn missing(&self, pieces: u32) -> Vec<Material> {
        Material::all(2, pieces)
            .into_iter()
            .filter(|m| self.slices[m.code()].is_none())
            .collect()
    }

    /// Whether the slice of `material` is loaded.
    pub fn has(&self, material: Material) -> bool {
        material.is_slice() && self.slices[material.code()].is_some()
    }

    /// Win, draw or loss for the side to move; `None` when the side to move must capture (the
    /// search resolves captures itself), when the position has too many pieces or its slice is
    /// not loaded.
    pub fn probe(&self, position: &Position) -> Option<Wdl> {
        self.probe_value(position).map(|value| value.wdl)
    }

    /// Like [`Egdb::probe`], with the distance to conversion where the slice stores one.
    pub fn probe_value(&self, position: &Position) -> Option<Value> {
        let side = position.side_to_move();
        let pieces = position.occupied().count();
        if pieces > self.stats.max_pieces
            || position.pieces(side).is_empty()
            || position.pieces(!side).is_empty()
            || position.has_capture()
        {
            return None;
        }
        let material = Material::of(position);
        let slice = self.slices[material.code()].as_ref()?;
        slice
            .value(material.index(position))
            .map(|byte| decode_value(byte, slice.distances))
    }

    /// The value of any position within the database, resolving pending captures (for the
    /// root of a search, adjudication and analysis); `None` when a slice it needs is missing.
    /// A side without pieces has lost.
    pub fn value(&self, position: &Position) -> Option<Value> {
        resolve(self, position)
    }
}

impl Values for Egdb {
    fn stored(&self, material: Material, index: u64) -> Option<(u8, bool)> {
        let slice = self.slices.get(material.code())?.as_ref()?;
        slice.value(index).map(|byte| (byte, slice.distances))
    }
}

/// Reads and checks one slice file.
fn load_slice(path: &Path, material: Material) -> Result<SliceFile, ProblemKind> {
    let limit = format::max_file_len(material);
    let bytes = crate::files::read_data_file(path, limit).map_err(ProblemKind::Io)?;
    SliceFile::parse(bytes, material).map_err(ProblemKind::Format)
}

/// The directory `$DAMX_EGDB` names, if it is set and not empty.
pub(crate) fn environment_dir() -> Option<PathBuf> {
    std::env::var_os("DAMX_EGDB")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// The default database directory: `$DAMX_EGDB` if set, else `damx/egdb` in the user's cache
/// directory (`$XDG_CACHE_HOME`, else `~/.cache`; `%LOCALAPPDATA%` on Windows). `None` when
/// no home can be found.
pub fn default_dir() -> Option<PathBuf> {
    let nonempty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = environment_dir() {
        return Some(dir);
    }
    let cache = if cfg!(windows) {
        nonempty("LOCALAPPDATA").map(PathBuf::from)
    } else {
        nonempty("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| nonempty("HOME").map(|home| PathBuf::from(home).join(".cache")))
    }?;
    Some(cache.join("damx").join("egdb"))
}
