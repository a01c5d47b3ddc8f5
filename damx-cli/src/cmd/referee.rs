//! `damx match` and `damx tournament`: damx referees games between DXP programs.
//!
//! The series runs in damx-session ([`run_tournament`]) on its own thread; this one prints
//! the event stream on standard output as it comes (one event a line, flushed at once, words
//! in `damx_session::tournament::event`), keeps a progress line on a terminal's standard
//! error, and prints the final table after the `END` line. With `--json`, standard output gets,
//! at the end, each finished game as a JSON line (the results file's form, which `--results`
//! writes as the games finish) and, last, one line with the standings.
//!
//! Ctrl-C once: no new game starts and the running ones play to their end; twice: the running
//! games end at once (`*`, not recorded, so a `--resume` plays them again); three times: the
//! process ends. An interrupted series exits with code 130 (143 for
//! SIGTERM, 129 for SIGHUP); a finished one (or an SPRT that
//! decided) with 0, whatever the forfeits. `NOTE` lines (chats, and slips that change nothing)
//! are printed with `-v` only.

use std::io::Write;
use std::thread;
use std::time::Duration;

use crossbeam_channel::{RecvTimeoutError, unbounded};
use damx_session::Command;
use damx_session::tournament::{
    EndKind, TournamentConfig, TournamentControl, TournamentError, TournamentEvent,
    TournamentReport, run_tournament,
};

use crate::error::Error;
use crate::log::{Level, enabled, info, note};
use crate::progress::Progress;
use crate::session::{interrupted, on_interrupt_saying};

/// What `damx match` and `damx tournament` do.
#[derive(Debug)]
pub(crate) struct Config {
    /// The series.
    pub(crate) series: TournamentConfig,
    /// Results as JSON lines instead of the event stream and the table.
    pub(crate) json: bool,
}

/// Plays the series, printing as it goes.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let series = &config.series;
    info!(
        "{} participants, {} game(s) at once",
        series.participants.len(),
        series.concurrency
    );
    let control = TournamentControl::new();
    let route = control.clone();
    let first = "no new game starts, the running ones play to their end";
    on_interrupt_saying(first, move |command| match command {
        Command::Stop => route.finish(),
        Command::Abort => route.abort(),
        _ => {}
    });
    let (events_tx, events) = unbounded::<TournamentEvent>();
    let runner = {
        let mut series = series.clone();
        // Only --json needs the game lines at the end; without it a long series keeps no
        // memory per game.
        series.keep_games = config.json;
        let control = control.clone();
        thread::spawn(move || run_tournament(&series, &control, &events_tx))
    };
    let mut progress = Progress::new();
    let mut status = Status::default();
    let mut written = Ok(());
    loop {
        match events.recv_timeout(Duration::from_millis(200)) {
            Ok(event) => {
                status.see(&event);
                progress.clear();
                if written.is_ok() {
                    written = print_event(config, &event, out);
                }
                progress.update(|| status.line());
            }
            Err(RecvTimeoutError::Timeout) => progress.update(|| status.line()),
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    progress.clear();
    let report = runner
        .join()
        .map_err(|_| Error::Usage("the series stopped on an internal error".into()))?
        .map_err(series_error)?;
    written.map_err(Error::stdout)?;
    if config.json {
        for line in &report.games {
            writeln!(out, "{}", line.to_json()).map_err(Error::stdout)?;
        }
        serde_json::to_writer(&mut *out, &report).map_err(|e| Error::stdout(e.into()))?;
        writeln!(out).map_err(Error::stdout)?;
    } else {
        write_table(&report, out).map_err(Error::stdout)?;
    }
    if report.end == EndKind::Interrupted && interrupted() {
        if series.results.is_some() {
            note!("to play the rest, run the same command with --resume");
        }
        return Err(Error::Interrupted);
    }
    if report.records_failed > 0 {
        return Err(Error::Io {
            context: format!(
                "{} of {} game records could not be saved (the first failure is reported above)",
                report.records_failed, report.finished
            ),
            source: std::io::Error::other("write failed"),
        });
    }
    Ok(())
}

/// One event on standard output: its line, or with `--json` the finished game's JSON line.
fn print_event(
    config: &Config,
    event: &TournamentEvent,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if config.json {
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
        TournamentError::Results { path, message } => {
            Error::Invalid(format!("{}: {message}", path.display()))
        }
    }
}

/// What the progress line shows.
#[derive(Default)]
struct Status {
    scheduled: usize,
    finished: usize,
    running: usize,
    scores: String,
}

impl Status {
    fn see(&mut self, event: &TournamentEvent) {
        match event {
            TournamentEvent::Game { .. } => self.scheduled += 1,
            TournamentEvent::Resumed { .. } => self.finished += 1,
            TournamentEvent::Begin { .. } => self.running += 1,
            TournamentEvent::Result { .. } => {
                self.running = self.running.saturating_sub(1);
                self.finished += 1;
            }
            TournamentEvent::Scores(scores) => {
                self.scores = scores
                    .iter()
                    .map(|(name, points)| format!("{name} {points}"))
                    .collect::<Vec<_>>()
                    .join(", ");
            }
            _ => {}
        }
    }

    fn line(&self) -> String {
        let total = if self.scheduled > 0 {
            format!("/{}", self.scheduled)
        } else {
            String::new()
        };
        format!(
            "games {}{total}, {} running  {}",
            self.finished, self.running, self.scores
        )
    }
}

/// The final table, the reasons, and the SPRT's standing.
fn write_table(report: &TournamentReport, out: &mut dyn Write) -> std::io::Result<()> {
    let width = report
        .standings
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(out)?;
    writeln!(
        out,
        "{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>5}  {:>4}  {:>6}  Elo",
        "rank", "name", "points", "games", "won", "drawn", "lost", "score"
    )?;
    for standing in &report.standings {
        let tally = &standing.tally;
        let score = tally
            .score()
            .map_or("-".to_owned(), |score| format!("{:.1}%", 100.0 * score));
        let elo = standing.elo.map_or("-".to_owned(), |elo| elo.to_string());
        writeln!(
            out,
            "{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>5}  {:>4}  {:>6}  {elo}",
            standing.rank,
            standing.name,
            standing.points,
            tally.games(),
            tally.wins,
            tally.draws,
            tally.losses,
            score
        )?;
    }
    if !report.reasons.is_empty() {
        let reasons: Vec<String> = report
            .reasons
            .iter()
            .map(|(reason, count)| format!("{reason} {count}"))
            .collect();
        writeln!(out, "\ngames ended by: {}", reasons.join(", "))?;
    }
    if let Some(sprt) = report.sprt {
        let verdict = match sprt.verdict {
            Some(hypothesis) => format!("{} accepted", hypothesis.to_string().to_uppercase()),
            None => "no decision yet".to_owned(),
        };
        writeln!(
            out,
            "SPRT: LLR {:.2} (bounds {:.2}, {:.2}), {verdict}",
            sprt.llr, sprt.lower, sprt.upper
        )?;
    }
    out.flush()
}
