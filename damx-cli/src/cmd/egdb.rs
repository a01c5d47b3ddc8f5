//! `damx egdb`: build, inspect, probe and verify the endgame databases, and the loading of the
//! databases for the commands that run the engine.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use damx_engine::egdb::{
    self, BuildEvent, BuildOptions, Egdb, EgdbError, Material, SharedEgdb, VerifyEvent, Wdl,
};
use damx_rules::Position;

use crate::error::Error;
use crate::log::{info, note, problem};
use crate::progress::Progress;

/// What `damx egdb` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Build up to this many pieces.
    Build {
        /// The most pieces.
        pieces: u32,
    },
    /// Show the databases.
    Info,
    /// Probe a position.
    Probe {
        /// The position.
        position: Position,
    },
    /// Verify the databases.
    Verify {
        /// Only slices of at most this many pieces.
        pieces: Option<u32>,
    },
}

/// The validated configuration of `damx egdb`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// What to do.
    pub(crate) action: Action,
    /// The directory (`None`: the default one).
    pub(crate) dir: Option<PathBuf>,
}

/// The directory to use: the one given, else the default.
fn directory(dir: Option<&Path>) -> Result<PathBuf, Error> {
    dir.map(Path::to_path_buf)
        .or_else(egdb::default_dir)
        .ok_or_else(|| {
            Error::Usage(
                "no database directory: give --egdb DIR or set DAMX_EGDB (no home directory found)"
                    .into(),
            )
        })
}

fn egdb_error(error: EgdbError) -> Error {
    match error {
        EgdbError::Directory { path, source } => Error::file("read directory", &path, source),
        EgdbError::Write { path, source } => Error::file("write", &path, source),
        EgdbError::Memory { .. } => Error::Usage(error.to_string()),
        EgdbError::Dependency { .. } => Error::Invalid(error.to_string()),
    }
}

/// Runs `damx egdb`.
pub(crate) fn run(config: &Config, out: &mut impl Write) -> Result<(), Error> {
    let dir = directory(config.dir.as_deref())?;
    match &config.action {
        Action::Build { pieces } => build(&dir, *pieces, out),
        Action::Info => show_info(&dir, out),
        Action::Probe { position } => probe(&dir, position, out),
        Action::Verify { pieces } => verify(&dir, *pieces, out),
    }
}

/// Runs `work` on a thread of its own and writes the lines its observer queues as they come,
/// from this thread (clearing the progress line first); `what` names the work if it panics.
fn run_printing<T: Send>(
    lines: &Mutex<Vec<String>>,
    progress: &Mutex<Progress>,
    out: &mut dyn Write,
    what: &str,
    work: impl FnOnce() -> T + Send,
) -> Result<T, Error> {
    std::thread::scope(|scope| {
        let worker = scope.spawn(work);
        let flush = |out: &mut dyn Write| -> Result<(), Error> {
            let pending: Vec<String> =
                std::mem::take(&mut *lines.lock().unwrap_or_else(|e| e.into_inner()));
            if !pending.is_empty()
                && let Ok(mut progress) = progress.lock()
            {
                progress.clear();
            }
            for line in pending {
                writeln!(out, "{line}").map_err(write_err)?;
            }
            out.flush().map_err(write_err)
        };
        while !worker.is_finished() {
            flush(out)?;
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        flush(out)?;
        worker
            .join()
            .map_err(|_| Error::Invalid(format!("{what} failed unexpectedly")))
    })
}

fn write_err(error: std::io::Error) -> Error {
    Error::stdout(error)
}

/// The memory this machine has available, from /proc/meminfo where there is one.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The resident memory of this process, from /proc/self/status where there is one.
fn resident_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn mib(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
    }
}

fn build(dir: &Path, pieces: u32, out: &mut impl Write) -> Result<(), Error> {
    let memory_limit = available_memory();
    info!(
        "building 2-{pieces} pieces in {} (about {} of memory needed)",
        dir.display(),
        mib(egdb::build_memory_estimate(pieces))
    );
    let progress = Mutex::new(Progress::new());
    let lines: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let current = Mutex::new((0usize, 0usize));
    // The progress line of the slice being built, skipped while another thread draws it.
    let show = |describe: &dyn Fn() -> String| {
        if let Ok(mut progress) = progress.try_lock() {
            let (ordinal, of) = *current.lock().unwrap_or_else(|e| e.into_inner());
            progress.update(|| format!("[{ordinal}/{of}] {}", describe()));
        }
    };
    let observer = |event: BuildEvent| match event {
        BuildEvent::Kept { material } => lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(format!("{material:<8} kept")),
        BuildEvent::Damaged { material, problem } => {
            problem!("{problem}: building {material} again");
        }
        BuildEvent::Started { ordinal, of, .. } => {
            *current.lock().unwrap_or_else(|e| e.into_inner()) = (ordinal, of);
        }
        BuildEvent::Scanned {
            material,
            done,
            positions,
        } => {
            show(&|| {
                format!(
                    "{material}: {positions} positions, first pass {}%",
                    done * 100 / positions.max(1)
                )
            });
        }
        BuildEvent::Layer {
            material,
            plies,
            decided,
            positions,
        } => {
            show(&|| {
                format!(
                    "{material}: {positions} positions, ply {plies}, {}% decided",
                    decided * 100 / positions.max(1)
                )
            });
        }
        BuildEvent::Finished {
            material,
            seconds,
            bytes,
            counts,
            longest,
        } => {
            if let Ok(mut progress) = progress.lock() {
                progress.clear();
            }
            lines
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!(
                    "{material:<8} built in {seconds:.1} s: {} positions, {} on disk, \
                 {} won / {} drawn / {} lost, longest {longest} plies",
                    material.positions(),
                    mib(bytes),
                    counts[0],
                    counts[1],
                    counts[2]
                ));
        }
    };
    let report = run_printing(&lines, &progress, out, "the build", || {
        egdb::build(
            &BuildOptions {
                dir: dir.to_path_buf(),
                pieces,
                memory_limit,
            },
            &observer,
        )
    })?;
    if let Ok(mut progress) = progress.lock() {
        progress.clear();
    }
    let report = report.map_err(egdb_error)?;
    writeln!(
        out,
        "2-{pieces} pieces in {}: {} slices built, {} kept, {} on disk, {:.1} s",
        dir.display(),
        report.built.len(),
        report.kept.len(),
        mib(report.bytes),
        report.seconds
    )
    .map_err(write_err)
}

fn open(dir: &Path) -> Result<Egdb, Error> {
    let egdb = Egdb::open(dir).map_err(egdb_error)?;
    for skipped in egdb.problems() {
        problem!("skipped {skipped}");
    }
    Ok(egdb)
}

fn show_info(dir: &Path, out: &mut impl Write) -> Result<(), Error> {
    let start = Instant::now();
    let egdb = open(dir)?;
    let load = start.elapsed();
    let stats = egdb.stats();
    let w = |out: &mut dyn Write, text: String| writeln!(out, "{text}").map_err(write_err);
    w(out, format!("directory      {}", dir.display()))?;
    w(
        out,
        format!(
            "slices         {} ({} positions), complete up to {} pieces",
            stats.slices, stats.positions, stats.complete_pieces
        ),
    )?;
    for pieces in 2..=stats.max_pieces {
        let slices: Vec<(Material, u64, bool)> = egdb
            .slices()
            .into_iter()
            .filter(|(m, _, _)| m.pieces() == pieces)
            .collect();
        let bytes: u64 = slices.iter().map(|s| s.1).sum();
        let positions: u64 = slices.iter().map(|s| s.0.positions()).sum();
        let distances = slices.iter().filter(|s| s.2).count();
        let missing = egdb.missing(pieces).len() - egdb.missing(pieces.saturating_sub(1)).len();
        w(
            out,
            format!(
                "{pieces} pieces       {} slices ({distances} with distances), {positions} positions, {}{}",
                slices.len(),
                mib(bytes),
                if missing > 0 {
                    format!(", {missing} missing")
                } else {
                    String::new()
                }
            ),
        )?;
    }
    w(
        out,
        format!(
            "memory         {} of files held, {} resident, loaded in {:.2} s",
            mib(stats.bytes),
            resident_memory().map_or("?".to_owned(), mib),
            load.as_secs_f64()
        ),
    )?;
    if let Some(cost) = probe_cost(&egdb) {
        w(
            out,
            format!("probe          {cost:.0} ns (average over quiet positions of every slice)"),
        )?;
    }
    if !egdb.problems().is_empty() {
        w(
            out,
            format!("skipped        {} files (see above)", egdb.problems().len()),
        )?;
    }
    Ok(())
}

/// The average time of one probe over a sample of positions of every slice.
fn probe_cost(egdb: &Egdb) -> Option<f64> {
    let mut sample = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (material, _, _) in egdb.slices() {
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
            answered += usize::from(std::hint::black_box(egdb.probe(position)).is_some());
        }
    }
    let elapsed = start.elapsed();
    (answered > 0).then(|| elapsed.as_nanos() as f64 / (rounds * sample.len()) as f64)
}

fn describe(value: Option<egdb::Value>) -> String {
    value.map_or("unknown".to_owned(), |v| v.to_string())
}

fn probe(dir: &Path, position: &Position, out: &mut impl Write) -> Result<(), Error> {
    let egdb = open(dir)?;
    let side = position.side_to_move();
    let w = |out: &mut dyn Write, text: String| writeln!(out, "{text}").map_err(write_err);
    let value = egdb.value(position);
    let how = if position.has_capture() {
        " (a capture is pending: valued through the captures)"
    } else {
        ""
    };
    w(out, format!("{position}"))?;
    w(out, format!("{side} to move: {}{how}", describe(value)))?;
    if value.is_none() {
        let material = Material::of(position);
        if position.occupied().count() > egdb.max_pieces() {
            note!(
                "the position has {} pieces, the databases at most {}",
                position.occupied().count(),
                egdb.max_pieces()
            );
        } else if material.is_slice() && !egdb.has(material) {
            note!("slice {material} is not in {}", dir.display());
        }
        return Ok(());
    }
    let mut moves: Vec<(String, Option<egdb::Value>)> = position
        .legal_moves()
        .iter()
        .map(|mv| (position.move_text(mv), egdb.value(&position.play(mv))))
        .collect();
    let rank = |value: &Option<egdb::Value>| match value {
        None => (1, 0),
        Some(v) => match v.wdl.flip() {
            Wdl::Win => (3, -(v.plies.unwrap_or(0) as i64)),
            Wdl::Draw => (2, 0),
            Wdl::Loss => (0, v.plies.unwrap_or(0) as i64),
        },
    };
    moves.sort_by_key(|(_, value)| std::cmp::Reverse(rank(value)));
    for (text, value) in moves {
        w(
            out,
            format!("  {text:<10} then {} to move: {}", !side, describe(value)),
        )?;
    }
    Ok(())
}

fn verify(dir: &Path, pieces: Option<u32>, out: &mut impl Write) -> Result<(), Error> {
    let progress = Mutex::new(Progress::new());
    let lines: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let start = Instant::now();
    let observer = |event: VerifyEvent| match event {
        VerifyEvent::Started {
            material,
            ordinal,
            of,
        } => {
            if let Ok(mut progress) = progress.lock() {
                progress.update(|| format!("[{ordinal}/{of}] verifying {material}"));
            }
        }
        VerifyEvent::Finished {
            material,
            checked,
            wrong,
        } => {
            lines
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!(
                    "{material:<8} {checked} positions checked, {}",
                    if wrong == 0 {
                        "all correct".to_owned()
                    } else {
                        format!("{wrong} WRONG")
                    }
                ));
        }
    };
    let report = run_printing(&lines, &progress, out, "the verification", || {
        egdb::verify(dir, pieces, 1, &observer)
    })?;
    let report = report.map_err(egdb_error)?;
    for skipped in &report.problems {
        problem!("skipped {skipped}");
    }
    for example in &report.examples {
        problem!("{example}");
    }
    writeln!(
        out,
        "{} slices, {} positions checked in {:.1} s: {} wrong, {} files unusable",
        report.slices,
        report.checked,
        start.elapsed().as_secs_f64(),
        report.wrong,
        report.problems.len()
    )
    .map_err(write_err)?;
    if report.is_ok() {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "the databases in {} did not verify",
            dir.display()
        )))
    }
}

/// The databases for the engine: the directory given (`off` turns them off), else the default
/// directory when it holds any. Loaded once per directory and shared; files that cannot be
/// used are reported once and skipped; a directory that cannot be read is reported when it was
/// asked for and ignored when it was the default.
pub(crate) fn for_engine(explicit: Option<&Path>) -> Option<SharedEgdb> {
    if explicit.is_some_and(|dir| dir.as_os_str() == "off") {
        return None;
    }
    let dir = explicit.map(Path::to_path_buf).or_else(egdb::default_dir)?;
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Option<SharedEgdb>>>> = OnceLock::new();
    let mut loaded = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    loaded
        .entry(dir.clone())
        .or_insert_with(|| match Egdb::open(&dir) {
            Ok(egdb) => {
                for skipped in egdb.problems() {
                    problem!("endgame databases: skipped {skipped}");
                }
                if egdb.stats().slices == 0 {
                    if explicit.is_some() {
                        problem!("endgame databases: no slice files in {}", dir.display());
                    }
                    return None;
                }
                info!(
                    "endgame databases: {} slices up to {} pieces from {}",
                    egdb.stats().slices,
                    egdb.max_pieces(),
                    dir.display()
                );
                Some(SharedEgdb::new(egdb))
            }
            Err(error) => {
                if explicit.is_some() {
                    problem!("endgame databases: {error}; playing without");
                }
                None
            }
        })
        .clone()
}
