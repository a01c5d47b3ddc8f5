//! What a front end shows of the databases, decided once: which databases the engine loads
//! ([`EgdbLocation`], [`SharedEgdb::load`]), what a directory holds ([`Summary`]), the value
//! of a position and of each of its moves ([`ProbeReport`]), and the text of the build and
//! verification events and reports. Each is plain data with a `Display` of one or more lines.
//!
//! ```no_run
//! use damx_engine::egdb::{Egdb, EgdbLocation, SharedEgdb};
//!
//! let loaded = SharedEgdb::load(&EgdbLocation::Default);
//! for note in &loaded.notes {
//!     eprintln!("{note}");
//! }
//! let egdb = Egdb::open("/home/me/.cache/damx/egdb")?;
//! println!("{}", egdb.report(&"W:WK46:BK5".parse()?));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use damx_rules::{Color, Position};

use super::{
    BuildEvent, BuildOptions, BuildReport, Egdb, EgdbError, EgdbStats, Material, SharedEgdb, Value,
    VerifyEvent, VerifyReport, Wdl, default_dir,
};

/// A size in bytes, written in KiB below a MiB and in MiB above (`12.5 MiB`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 1 << 20 {
            write!(f, "{:.1} KiB", self.0 as f64 / 1024.0)
        } else {
            write!(f, "{:.1} MiB", self.0 as f64 / (1 << 20) as f64)
        }
    }
}

/// A figure in KiB from a `/proc` file, `None` where there is no such file or line.
fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory this machine has available, where the system says (Linux's `/proc/meminfo`).
pub fn available_memory() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:")
}

/// The resident memory of this process, where the system says (Linux's `/proc/self/status`).
pub fn resident_memory() -> Option<u64> {
    proc_kib("/proc/self/status", "VmRSS:")
}

impl BuildOptions {
    /// A build of `2..=pieces` pieces into `dir`, refused when it needs more memory than the
    /// machine has available.
    pub fn new(dir: impl Into<PathBuf>, pieces: u32) -> BuildOptions {
        BuildOptions {
            dir: dir.into(),
            pieces,
            memory_limit: available_memory(),
        }
    }
}

/// Which databases the engine uses: those of the default directory ([`default_dir`]) when it
/// holds any, none, or those of a directory named by the user. Parsed from `off` or a
/// directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EgdbLocation {
    /// The default directory, when it holds any slice; silent when it cannot be read.
    #[default]
    Default,
    /// No databases.
    Off,
    /// This directory; that it cannot be read or holds nothing is worth a note.
    Dir(PathBuf),
}

impl From<&Path> for EgdbLocation {
    fn from(path: &Path) -> EgdbLocation {
        if path.as_os_str() == "off" {
            EgdbLocation::Off
        } else {
            EgdbLocation::Dir(path.to_path_buf())
        }
    }
}

impl FromStr for EgdbLocation {
    type Err = Infallible;

    fn from_str(text: &str) -> Result<EgdbLocation, Infallible> {
        Ok(EgdbLocation::from(Path::new(text)))
    }
}

impl EgdbLocation {
    /// The directory to open: the one named, or the default one when it exists; `None` when
    /// off.
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            EgdbLocation::Default => default_dir().filter(|dir| dir.is_dir()),
            EgdbLocation::Off => None,
            EgdbLocation::Dir(dir) => Some(dir.clone()),
        }
    }
}

/// What loading the databases for the engine says, one line each.
#[derive(Debug)]
pub enum LoadNote {
    /// A file that cannot be used was skipped (the file and why).
    Skipped(String),
    /// A directory named by the user holds no slice file.
    Empty(PathBuf),
    /// A directory named by the user cannot be read.
    Unreadable(EgdbError),
    /// The databases in use.
    Loaded {
        /// The directory.
        dir: PathBuf,
        /// What it holds.
        stats: EgdbStats,
    },
}

impl LoadNote {
    /// Whether the note tells of something wrong (the others say what is in use).
    pub fn is_problem(&self) -> bool {
        !matches!(self, LoadNote::Loaded { .. })
    }
}

impl fmt::Display for LoadNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("endgame databases: ")?;
        match self {
            LoadNote::Skipped(problem) => write!(f, "skipped {problem}"),
            LoadNote::Empty(dir) => write!(f, "no slice files in {}", dir.display()),
            LoadNote::Unreadable(error) => write!(f, "{error}; playing without"),
            LoadNote::Loaded { dir, stats } => write!(
                f,
                "{} slices up to {} pieces from {}",
                stats.slices,
                stats.max_pieces,
                dir.display()
            ),
        }
    }
}

/// The databases the engine loaded, and what loading them said (nothing when they were
/// already loaded).
#[derive(Debug, Default)]
pub struct Loaded {
    /// The databases, `None` when off, unreadable or empty.
    pub egdb: Option<SharedEgdb>,
    /// What to tell the user, once per directory and process.
    pub notes: Vec<LoadNote>,
}

impl SharedEgdb {
    /// The databases at `location`, loaded once per directory and process and shared by every
    /// engine after that (a tournament's participants hold one copy). Files that cannot be
    /// used are skipped with a note; a directory that cannot be read or holds nothing gives no
    /// databases, with a note when the user named it (with `--egdb DIR` or `$DAMX_EGDB`).
    pub fn load(location: &EgdbLocation) -> Loaded {
        // `$DAMX_EGDB` names a directory as much as `--egdb DIR` does.
        let named = match location {
            EgdbLocation::Dir(_) => true,
            EgdbLocation::Default => super::environment_dir().is_some(),
            EgdbLocation::Off => false,
        };
        let dir = match location {
            EgdbLocation::Off => return Loaded::default(),
            EgdbLocation::Dir(dir) => dir.clone(),
            EgdbLocation::Default => match default_dir() {
                Some(dir) => dir,
                None => return Loaded::default(),
            },
        };
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, Option<SharedEgdb>>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(egdb) = loaded.get(&dir) {
            return Loaded {
                egdb: egdb.clone(),
                notes: Vec::new(),
            };
        }
        let mut notes = Vec::new();
        let egdb = match Egdb::open(&dir) {
            Ok(egdb) => {
                let skipped = egdb
                    .problems
                    .iter()
                    .map(|p| LoadNote::Skipped(p.to_string()));
                notes.extend(skipped);
                let stats = egdb.stats();
                if stats.slices == 0 {
                    if named {
                        notes.push(LoadNote::Empty(dir.clone()));
                    }
                    None
                } else {
                    notes.push(LoadNote::Loaded {
                        dir: dir.clone(),
                        stats,
                    });
                    Some(SharedEgdb::new(egdb))
                }
            }
            Err(error) => {
                if named {
                    notes.push(LoadNote::Unreadable(error));
                }
                None
            }
        };
        loaded.insert(dir, egdb.clone());
        Loaded { egdb, notes }
    }
}

/// Why the databases that a use cannot do without are not there ([`SharedEgdb::require`]).
#[derive(Debug)]
pub enum MissingEgdb {
    /// No directory was given and there is no default one (no home directory).
    NoDirectory,
    /// The directory cannot be read.
    Unreadable {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory holds no usable slice.
    Empty {
        /// The directory.
        dir: PathBuf,
    },
}

impl fmt::Display for MissingEgdb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MissingEgdb::NoDirectory => {
                f.write_str("no endgame database directory: no home directory")
            }
            MissingEgdb::Unreadable { dir, source } => write!(
                f,
                "cannot read the endgame database directory {}: {source}",
                dir.display()
            ),
            MissingEgdb::Empty { dir } => {
                write!(f, "no endgame databases in {}", dir.display())
            }
        }
    }
}

impl std::error::Error for MissingEgdb {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MissingEgdb::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl SharedEgdb {
    /// The databases in `dir`, else in the default directory, for a use that cannot do
    /// without them (a referee that adjudicates by them): [`SharedEgdb::load`], shared with
    /// the engines that use the same directory, with their absence an error. Gives the
    /// databases and what loading them said.
    ///
    /// # Errors
    /// No directory, one that cannot be read, or one without a usable slice.
    pub fn require(dir: Option<&Path>) -> Result<(SharedEgdb, Vec<LoadNote>), MissingEgdb> {
        let dir = dir
            .map(Path::to_path_buf)
            .or_else(default_dir)
            .ok_or(MissingEgdb::NoDirectory)?;
        if let Err(source) = std::fs::read_dir(&dir) {
            return Err(MissingEgdb::Unreadable { dir, source });
        }
        let loaded = SharedEgdb::load(&EgdbLocation::Dir(dir.clone()));
        match loaded.egdb {
            Some(egdb) => Ok((egdb, loaded.notes)),
            None => Err(MissingEgdb::Empty { dir }),
        }
    }
}

/// What the slices of one number of pieces hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PiecesSummary {
    /// The number of pieces.
    pub pieces: u32,
    /// Slices loaded.
    pub slices: usize,
    /// Of which store distances to conversion.
    pub distances: usize,
    /// Positions in them.
    pub positions: u64,
    /// Bytes of their files.
    pub bytes: u64,
    /// Slices of this many pieces not loaded.
    pub missing: usize,
}

/// What a database directory holds, what it costs in memory and how fast it answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The directory.
    pub dir: PathBuf,
    /// The totals.
    pub stats: EgdbStats,
    /// Per number of pieces, from 2.
    pub pieces: Vec<PiecesSummary>,
    /// The resident memory of the process, where the system says.
    pub resident: Option<u64>,
    /// The time it took to load.
    pub load: Duration,
    /// The average time of one probe, `None` without a slice to probe.
    pub probe: Option<Duration>,
    /// Files skipped.
    pub skipped: usize,
}

impl Egdb {
    /// Opens the databases in `dir` and summarises them, timing the load and the probes.
    pub fn open_summary(dir: &Path) -> Result<(Egdb, Summary), EgdbError> {
        let start = Instant::now();
        let egdb = Egdb::open(dir)?;
        let load = start.elapsed();
        let summary = egdb.summary(load);
        Ok((egdb, summary))
    }

    /// What the database holds, given the time it took to load.
    pub fn summary(&self, load: Duration) -> Summary {
        let slices = self.slices();
        let pieces = (2..=self.stats.max_pieces)
            .map(|pieces| {
                let of = || slices.iter().filter(|s| s.0.pieces() == pieces);
                PiecesSummary {
                    pieces,
                    slices: of().count(),
                    distances: of().filter(|s| s.2).count(),
                    positions: of().map(|s| s.0.positions()).sum(),
                    bytes: of().map(|s| s.1).sum(),
                    missing: self.missing(pieces).len()
                        - self.missing(pieces.saturating_sub(1)).len(),
                }
            })
            .collect();
        Summary {
            dir: self.dir.clone(),
            stats: self.stats,
            pieces,
            resident: resident_memory(),
            load,
            probe: self.probe_cost(),
            skipped: self.problems.len(),
        }
    }

    /// The average time of one probe over a sample of quiet positions of every slice; `None`
    /// when there is nothing to probe.
    pub fn probe_cost(&self) -> Option<Duration> {
        let mut sample = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for (material, _, _) in self.slices() {
            let mut found = 0;
            for _ in 0..2_000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if let Some(position) = material.position(seed % material.positions())
                    && !position.has_capture()
                {
                    sample.push(position);
                    found += 1;
                    if found == 200 {
                        break;
                    }
                }
            }
        }
        if sample.is_empty() {
            return None;
        }
        let rounds = (200_000 / sample.len()).max(1);
        let start = Instant::now();
        let mut answered = 0usize;
        for _ in 0..rounds {
            for position in &sample {
                answered += usize::from(std::hint::black_box(self.probe(position)).is_some());
            }
        }
        let probes = u32::try_from(rounds * sample.len()).unwrap_or(u32::MAX);
        (answered > 0).then(|| start.elapsed() / probes)
    }

    /// The value of `position` and of each of its moves, the best move first.
    pub fn report(&self, position: &Position) -> ProbeReport {
        let value = self.value(position);
        let pieces = position.occupied().count();
        let material = Material::of(position);
        let unknown = match value {
            Some(_) => None,
            None if pieces > self.max_pieces() => Some(Unknown::TooManyPieces {
                pieces,
                max: self.max_pieces(),
            }),
            None if material.is_slice() && !self.has(material) => Some(Unknown::MissingSlice {
                material,
                dir: self.dir.clone(),
            }),
            None => None,
        };
        let mut moves: Vec<(String, Option<Value>)> = match value {
            None => Vec::new(),
            Some(_) => position
                .legal_moves()
                .iter()
                .map(|mv| (position.move_text(mv), self.value(&position.play(mv))))
                .collect(),
        };
        // For the side to move: wins (the shortest first), draws, unknown, losses (the
        // longest first).
        let rank = |value: &Option<Value>| match value {
            None => (1, 0),
            Some(v) => match v.wdl.flip() {
                Wdl::Win => (3, -i64::from(v.plies.unwrap_or(0))),
                Wdl::Draw => (2, 0),
                Wdl::Loss => (0, i64::from(v.plies.unwrap_or(0))),
            },
        };
        moves.sort_by_key(|(_, value)| std::cmp::Reverse(rank(value)));
        ProbeReport {
            position: *position,
            value,
            moves,
            unknown,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = &self.stats;
        writeln!(f, "directory      {}", self.dir.display())?;
        write!(
            f,
            "slices         {} ({} positions), complete up to {} pieces",
            stats.slices, stats.positions, stats.complete_pieces
        )?;
        for line in &self.pieces {
            write!(
                f,
                "\n{} pieces       {} slices ({} with distances), {} positions, {}",
                line.pieces,
                line.slices,
                line.distances,
                line.positions,
                Bytes(line.bytes)
            )?;
            if line.missing > 0 {
                write!(f, ", {} missing", line.missing)?;
            }
        }
        let resident = self
            .resident
            .map_or("?".to_owned(), |bytes| Bytes(bytes).to_string());
        write!(
            f,
            "\nmemory         {} of files held, {resident} resident, loaded in {:.2} s",
            Bytes(stats.bytes),
            self.load.as_secs_f64()
        )?;
        if let Some(cost) = self.probe {
            write!(
                f,
                "\nprobe          {} ns (average over quiet positions of every slice)",
                cost.as_nanos()
            )?;
        }
        if self.skipped > 0 {
            write!(f, "\nskipped        {} files (see above)", self.skipped)?;
        }
        Ok(())
    }
}

/// Why the databases do not know a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// More pieces than the largest slice.
    TooManyPieces {
        /// The position's pieces.
        pieces: u32,
        /// The most pieces of a loaded slice.
        max: u32,
    },
    /// Its slice is not loaded.
    MissingSlice {
        /// The slice.
        material: Material,
        /// The directory.
        dir: PathBuf,
    },
}

impl fmt::Display for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unknown::TooManyPieces { pieces, max } => write!(
                f,
                "the position has {pieces} pieces, the databases at most {max}"
            ),
            Unknown::MissingSlice { material, dir } => {
                write!(f, "slice {material} is not in {}", dir.display())
            }
        }
    }
}

/// The value of a position and of each of its moves ([`Egdb::report`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeReport {
    /// The position.
    pub position: Position,
    /// Its value for the side to move, `None` when unknown.
    pub value: Option<Value>,
    /// Each legal move in notation and the value after it for the other side, the best for
    /// the side to move first (none when the position's value is unknown).
    pub moves: Vec<(String, Option<Value>)>,
    /// Why the value is unknown, where the databases can tell.
    pub unknown: Option<Unknown>,
}

/// A value, or `unknown`.
fn value_text(value: Option<Value>) -> String {
    value.map_or("unknown".to_owned(), |value| value.to_string())
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side: Color = self.position.side_to_move();
        writeln!(f, "{}", self.position)?;
        write!(f, "{side} to move: {}", value_text(self.value))?;
        if self.position.has_capture() {
            f.write_str(" (a capture is pending: valued through the captures)")?;
        }
        for (text, value) in &self.moves {
            write!(
                f,
                "\n  {text:<10} then {} to move: {}",
                !side,
                value_text(*value)
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for BuildEvent {
    /// One line: `KK-K     kept`, a slice's progress, or what it came to.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildEvent::Kept { material } => write!(f, "{:<8} kept", material.to_string()),
            BuildEvent::Damaged { material, problem } => {
                write!(f, "{problem}: building {material} again")
            }
            BuildEvent::Started {
                material,
                positions,
                ..
            } => write!(f, "{material}: {positions} positions"),
            BuildEvent::Scanned {
                material,
                done,
                positions,
            } => write!(
                f,
                "{material}: {positions} positions, first pass {}%",
                done * 100 / positions.max(&1)
            ),
            BuildEvent::Layer {
                material,
                plies,
                decided,
                positions,
            } => write!(
                f,
                "{material}: {positions} positions, ply {plies}, {}% decided",
                decided * 100 / positions.max(&1)
            ),
            BuildEvent::Finished {
                material,
                seconds,
                bytes,
                counts,
                longest,
            } => write!(
                f,
                "{:<8} built in {seconds:.1} s: {} positions, {} on disk, \
                 {} won / {} drawn / {} lost, longest {longest} plies",
                material.to_string(),
                material.positions(),
                Bytes(*bytes),
                counts[0],
                counts[1],
                counts[2]
            ),
        }
    }
}

/// How a front end shows an event of a long piece of work ([`build`](super::build),
/// [`verify`](super::verify)): a line of the report, a problem, or else progress within the
/// part (the slice) that the last event with [`WorkEvent::starts`] began.
pub trait WorkEvent: fmt::Display + Send {
    /// The part this event starts, as `(ordinal, of)` from 1, if it starts one.
    fn starts(&self) -> Option<(usize, usize)>;
    /// Whether it is a line of the report.
    fn is_line(&self) -> bool;
    /// Whether it tells of a problem.
    fn is_problem(&self) -> bool {
        false
    }
}

impl WorkEvent for BuildEvent {
    fn starts(&self) -> Option<(usize, usize)> {
        match self {
            BuildEvent::Started { ordinal, of, .. } => Some((*ordinal, *of)),
            _ => None,
        }
    }
    fn is_line(&self) -> bool {
        matches!(self, BuildEvent::Kept { .. } | BuildEvent::Finished { .. })
    }
    fn is_problem(&self) -> bool {
        matches!(self, BuildEvent::Damaged { .. })
    }
}

impl WorkEvent for VerifyEvent {
    fn starts(&self) -> Option<(usize, usize)> {
        match self {
            VerifyEvent::Started { ordinal, of, .. } => Some((*ordinal, *of)),
            VerifyEvent::Finished { .. } => None,
        }
    }
    fn is_line(&self) -> bool {
        matches!(self, VerifyEvent::Finished { .. })
    }
}

impl fmt::Display for BuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} pieces in {}: {} slices built, {} kept, {} on disk, {:.1} s",
            match self.pieces {
                2 => "2".to_owned(),
                pieces => format!("2-{pieces}"),
            },
            self.dir.display(),
            self.built.len(),
            self.kept.len(),
            Bytes(self.bytes),
            self.seconds
        )
    }
}

impl fmt::Display for VerifyEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyEvent::Started { material, .. } => write!(f, "verifying {material}"),
            VerifyEvent::Finished {
                material,
                checked,
                wrong,
                unverifiable,
            } => {
                write!(f, "{:<8} {checked} positions checked", material.to_string())?;
                if *wrong == 0 && *unverifiable == 0 {
                    return f.write_str(", all correct");
                }
                if *wrong > 0 {
                    write!(f, ", {wrong} WRONG")?;
                }
                if *unverifiable > 0 {
                    write!(
                        f,
                        ", {unverifiable} not verifiable (a slice they lead to is missing or \
                         unusable)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} slices, {} positions checked in {:.1} s: {} wrong, {} not verifiable, {} files \
             unusable",
            self.slices,
            self.checked,
            self.seconds,
            self.wrong,
            self.unverifiable,
            self.problems.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes read in the unit that suits them.
    #[test]
    fn sizes_are_written_in_kib_or_mib() {
        assert_eq!(Bytes(512).to_string(), "0.5 KiB");
        assert_eq!(Bytes(3 << 20).to_string(), "3.0 MiB");
    }

    /// `off` turns the databases off; any other text names a directory.
    #[test]
    fn a_location_is_off_or_a_directory() {
        assert_eq!("off".parse(), Ok(EgdbLocation::Off));
        assert_eq!(
            "/data/egdb".parse(),
            Ok(EgdbLocation::Dir(PathBuf::from("/data/egdb")))
        );
        assert_eq!(EgdbLocation::Off.dir(), None);
        let loaded = SharedEgdb::load(&EgdbLocation::Off);
        assert!(loaded.egdb.is_none() && loaded.notes.is_empty());
    }

    /// A directory the user named that cannot be read is said once, and gives no databases.
    #[test]
    fn a_named_directory_that_cannot_be_read_is_said_once() {
        let location = EgdbLocation::Dir(PathBuf::from("/nonexistent/damx-egdb-load"));
        let loaded = SharedEgdb::load(&location);
        assert!(loaded.egdb.is_none());
        assert_eq!(loaded.notes.len(), 1);
        assert!(loaded.notes[0].is_problem());
        let text = loaded.notes[0].to_string();
        assert!(text.contains("/nonexistent/damx-egdb-load"), "{text}");
        assert!(text.ends_with("; playing without"), "{text}");
        assert!(SharedEgdb::load(&location).notes.is_empty());
        let empty = std::env::temp_dir().join(format!("damx-egdb-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let loaded = SharedEgdb::load(&EgdbLocation::Dir(empty.clone()));
        assert!(loaded.egdb.is_none());
        let text = loaded.notes[0].to_string();
        assert_eq!(
            text,
            format!("endgame databases: no slice files in {}", empty.display())
        );
        let required = SharedEgdb::require(Some(&empty)).unwrap_err().to_string();
        let unreadable = SharedEgdb::require(Some(Path::new("/nonexistent/damx-egdb-load")));
        let _ = std::fs::remove_dir(&empty);
        assert_eq!(
            required,
            format!("no endgame databases in {}", empty.display())
        );
        let unreadable = unreadable.unwrap_err().to_string();
        assert!(unreadable.starts_with("cannot read the endgame database directory /nonexistent"));
    }

    /// A slice kept or finished is a line of the report, a damaged file a problem, anything
    /// else progress; a started slice says its place.
    #[test]
    fn work_events_say_how_they_are_shown() {
        let material: Material = "KK-K".parse().unwrap();
        let kept = BuildEvent::Kept { material };
        assert!(kept.is_line() && !kept.is_problem() && kept.starts().is_none());
        let damaged = BuildEvent::Damaged {
            material,
            problem: "bad".into(),
        };
        assert!(damaged.is_problem() && !damaged.is_line());
        let started = BuildEvent::Started {
            material,
            ordinal: 3,
            of: 16,
            positions: 10,
        };
        assert_eq!(started.starts(), Some((3, 16)));
        assert!(!started.is_line() && !started.is_problem());
        let checking = VerifyEvent::Started {
            material,
            ordinal: 1,
            of: 2,
        };
        assert_eq!(checking.starts(), Some((1, 2)));
        assert!(!checking.is_line());
        let checked = VerifyEvent::Finished {
            material,
            checked: 5,
            wrong: 0,
            unverifiable: 0,
        };
        assert!(checked.is_line() && !checked.is_problem());
        assert!(
            checked
                .to_string()
                .ends_with("5 positions checked, all correct")
        );
        let unverifiable = VerifyEvent::Finished {
            material,
            checked: 5,
            wrong: 1,
            unverifiable: 3,
        };
        assert!(
            unverifiable
                .to_string()
                .ends_with("5 positions checked, 1 WRONG, 3 not verifiable (a slice they lead to is missing or unusable)"),
            "{unverifiable}"
        );
    }
}
