//! `damx egdb`: build, inspect, probe and verify the endgame databases, and the loading of the
//! databases for the commands that run the engine. What is shown is decided in damx-engine's
//! `egdb` module; this module runs the work, prints it and keeps a progress line.

use std::io::Write;
use std::path::{Path, PathBuf};

use crossbeam_channel::Sender;
use damx_engine::egdb::{
    self, BuildOptions, Bytes, Egdb, EgdbError, EgdbLocation, LoadNote, SharedEgdb, WorkEvent,
};

use clap::Subcommand;
use damx_engine::egdb::MAX_SLICE_PIECES;
use damx_rules::Position;

use crate::error::Error;
use crate::log::{info, note, problem};
use crate::progress::Progress;

/// What `damx egdb` does.
#[derive(Debug, Subcommand)]
pub(crate) enum Action {
    /// Build every slice up to N pieces (finished slices are kept; an interrupted build resumes)
    #[command(after_long_help = BUILD_EXAMPLES)]
    Build {
        /// The most pieces on the board
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: u32,
    },
    /// Show what the databases hold, the files that cannot be used, and the cost of a probe
    #[command(after_long_help = INFO_EXAMPLES)]
    Info,
    /// The value of a position, and of each of its moves
    #[command(after_long_help = PROBE_EXAMPLES)]
    Probe {
        /// The position, as a FEN such as "W:WK46,K47,K48:BK5"
        #[arg(value_parser = Position::from_fen_or_startpos)]
        position: Position,
    },
    /// Check every stored position against its successors (exit code 1 unless all correct)
    #[command(after_long_help = VERIFY_EXAMPLES)]
    Verify {
        /// Only the slices of at most N pieces
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: Option<u32>,
    },
}

const BUILD_EXAMPLES: &str = "\
Examples:
  damx egdb build --pieces 4
  damx egdb build --pieces 5 --dir /data/egdb

Slices already built are kept, so the same command resumes an interrupted build; a piece count \
whose build would not fit in memory is refused with the estimate.";

const INFO_EXAMPLES: &str = "\
Examples:
  damx egdb info
  damx egdb info --dir /data/egdb";

const PROBE_EXAMPLES: &str = "\
Examples:
  damx egdb probe 'W:WK46,K47,K48:BK5'
  damx egdb probe 'B:W31,K5:BK46' --dir /data/egdb

A position outside the databases (too many pieces, a capture pending, a slice missing) is \
answered \"unknown\", with the reason.";

const VERIFY_EXAMPLES: &str = "\
Examples:
  damx egdb verify
  damx egdb verify --pieces 3 --dir /data/egdb";

fn egdb_error(error: EgdbError) -> Error {
    match error {
        EgdbError::Directory { path, source } => Error::file("read directory", &path, source),
        EgdbError::CreateDirectory { path, source } => {
            Error::file("create directory", &path, source)
        }
        EgdbError::Write { path, source } => Error::file("write", &path, source),
        EgdbError::Memory { .. } => Error::Usage(error.to_string()),
        EgdbError::Dependency { .. } => Error::Invalid(error.to_string()),
    }
}

/// Runs `damx egdb`: `action` in `dir` (`None`: the default one).
pub(crate) fn run(action: &Action, dir: Option<PathBuf>, out: &mut dyn Write) -> Result<(), Error> {
    let dir = dir.or_else(egdb::default_dir).ok_or_else(|| {
        Error::Usage(
            "no database directory: give --egdb DIR or set DAMX_EGDB (no home directory found)"
                .into(),
        )
    })?;
    match action {
        Action::Build { pieces } => build(dir, *pieces, out),
        Action::Info => {
            let (egdb, summary) = Egdb::open_summary(&dir).map_err(egdb_error)?;
            report_skipped(&egdb);
            writeln!(out, "{summary}").map_err(Error::stdout)
        }
        Action::Probe { position } => {
            let egdb = Egdb::open(&dir).map_err(egdb_error)?;
            report_skipped(&egdb);
            let report = egdb.report(position);
            if let Some(unknown) = &report.unknown {
                note!("{unknown}");
            }
            writeln!(out, "{report}").map_err(Error::stdout)
        }
        Action::Verify { pieces } => {
            let report = with_events(out, |observer| egdb::verify(&dir, *pieces, 1, observer))?
                .map_err(egdb_error)?;
            for skipped in &report.problems {
                problem!("skipped {skipped}");
            }
            for example in &report.examples {
                problem!("{example}");
            }
            writeln!(out, "{report}").map_err(Error::stdout)?;
            let failed = format!("the databases in {} did not verify", dir.display());
            report.is_ok().then_some(()).ok_or(Error::Invalid(failed))
        }
    }
}

fn report_skipped(egdb: &Egdb) {
    for skipped in egdb.problems() {
        problem!("skipped {skipped}");
    }
}

fn build(dir: PathBuf, pieces: u32, out: &mut dyn Write) -> Result<(), Error> {
    let estimate = Bytes(egdb::build_memory_estimate(pieces));
    info!(
        "building 2-{pieces} pieces in {} (about {estimate} of memory needed)",
        dir.display()
    );
    let options = BuildOptions::new(dir, pieces);
    let report = with_events(out, |observer| egdb::build(&options, observer))?;
    writeln!(out, "{}", report.map_err(egdb_error)?).map_err(Error::stdout)
}

/// Runs `work` in the background and shows the events its observer sends as they come: lines
/// on `out`, problems on standard error, the rest as the progress line of the current part
/// (`[3/16] KK-K: 1225 positions, ply 4, 80% decided`).
fn with_events<E: WorkEvent, T: Send>(
    out: &mut dyn Write,
    work: impl FnOnce(&(dyn Fn(E) + Sync)) -> T + Send,
) -> Result<T, Error> {
    let mut progress = Progress::new();
    let mut part = (0, 0);
    let mut written = Ok(());
    let work = |events: &Sender<E>| work(&|event| drop(events.send(event)));
    let outcome = super::in_background(work, |event| {
        let Some(event) = event else { return };
        part = event.starts().unwrap_or(part);
        if event.is_problem() {
            progress.clear();
            problem!("{event}");
        } else if event.is_line() {
            progress.clear();
            written = std::mem::replace(&mut written, Ok(()))
                .and_then(|()| writeln!(out, "{event}").and_then(|()| out.flush()));
        } else {
            progress.update(|| format!("[{}/{}] {event}", part.0, part.1));
        }
    });
    progress.clear();
    written.map_err(Error::stdout)?;
    Ok(outcome)
}

/// The databases for the engine at `location`, loaded once per directory
/// ([`SharedEgdb::load`]), with what loading them says on standard error.
pub(crate) fn load(location: &EgdbLocation) -> Option<SharedEgdb> {
    let loaded = SharedEgdb::load(location);
    show_notes(&loaded.notes);
    loaded.egdb
}

/// What loading the databases said: problems always, the rest with `-v`.
pub(crate) fn show_notes(notes: &[LoadNote]) {
    for line in notes {
        if line.is_problem() {
            problem!("{line}");
        } else {
            info!("{line}");
        }
    }
}

/// [`load`] for a directory given as a path (`off` turns them off), else the default one.
pub(crate) fn for_engine(explicit: Option<&Path>) -> Option<SharedEgdb> {
    load(&explicit.map_or(EgdbLocation::Default, EgdbLocation::from))
}
