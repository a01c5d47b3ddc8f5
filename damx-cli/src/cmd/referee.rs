//! `damx match` and `damx tournament`: damx referees games between DXP programs.
//!
//! The series runs in damx-session ([`run_tournament`]) on its own thread; this one prints
//! the event stream on standard output as it comes (one event a line, flushed at once, words
//! in `damx_session::tournament::event`), keeps a progress line on a terminal's standard
//! error ([`Status`]), and prints the final table ([`table`]) after the `END` line. With `--json`, standard output gets,
//! at the end, each finished game as a JSON line (the results file's form, which `--results`
//! writes as the games finish) and, last, one line with the standings.
//!
//! Ctrl-C (`damx match --help`) finishes the series, then aborts it ([`TournamentControl`]);
//! a finished series (or an SPRT that decided) exits with 0, whatever the forfeits. `NOTE`
//! lines (chats, and slips that change nothing) are printed with `-v` only.

use std::io::Write;

use damx_session::Command;
use damx_session::interrupt::interrupted;
use damx_session::tournament::table::{Status, table};
use damx_session::tournament::{
    EndKind, TournamentConfig, TournamentControl, TournamentError, TournamentEvent,
    TournamentReport, run_tournament,
};

use crate::error::Error;
use crate::log::{Level, enabled, info, note};
use crate::progress::Progress;
use crate::session::on_interrupt;

/// Plays the series, printing as it goes (with `json`, the results as JSON lines instead of
/// the event stream and the table).
pub(crate) fn run(series: &TournamentConfig, json: bool, out: &mut dyn Write) -> Result<(), Error> {
    info!(
        "{} participants, {} game(s) at once",
        series.participants.len(),
        series.concurrency
    );
    let control = TournamentControl::new();
    let route = control.clone();
    let first = "no new game starts, the running ones play to their end";
    on_interrupt(first, move |command| match command {
        Command::Stop => route.finish(),
        Command::Abort => route.abort(),
        _ => {}
    });
    // Only --json needs the game lines at the end; without it a long series keeps no memory
    // per game.
    let series_run = TournamentConfig {
        keep_games: json,
        ..series.clone()
    };
    let mut progress = Progress::new();
    let mut status = Status::default();
    let mut written = Ok(());
    let report = super::in_background(
        |events| run_tournament(&series_run, &control, events),
        |event| {
            if let Some(event) = event {
                status.see(&event);
                progress.clear();
                if written.is_ok() {
                    written = print_event(json, &event, out);
                    if written.is_err() {
                        // Nobody reads the stream any more (`| head`): no new game starts,
                        // the running ones end and are recorded.
                        control.finish();
                    }
                }
            }
            progress.update(|| status.line());
        },
    );
    progress.clear();
    let report = report.map_err(series_error)?;
    written.map_err(Error::stdout)?;
    print_report(json, &report, out)?;
    if report.end == EndKind::Interrupted && interrupted() {
        if series.results.is_some() {
            note!("to play the rest, run the same command with --resume");
        }
        return Err(Error::Interrupted);
    }
    match report.records_trouble() {
        Some(context) => Err(Error::records(context)),
        None => Ok(()),
    }
}

/// The end of the series: with `--json` each game's line and the standings, else the table.
fn print_report(json: bool, report: &TournamentReport, out: &mut dyn Write) -> Result<(), Error> {
    let text = if json {
        report.json_lines()
    } else {
        table(report)
    };
    write!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(Error::stdout)
}

/// One event on standard output: its line, or with `--json` the finished game's JSON line.
fn print_event(json: bool, event: &TournamentEvent, out: &mut dyn Write) -> std::io::Result<()> {
    if json {
        return Ok(());
    }
    if matches!(event, TournamentEvent::Note { .. }) && !enabled(Level::Verbose) {
        return Ok(());
    }
    writeln!(out, "{event}")?;
    out.flush()
}

/// The error of a series that could not run.
fn series_error(error: TournamentError) -> Error {
    match error {
        TournamentError::Config(message) => Error::Usage(message),
        TournamentError::Io { path, source } => Error::file("write", &path, source),
        results @ TournamentError::Results { .. } => Error::Invalid(results.to_string()),
    }
}
