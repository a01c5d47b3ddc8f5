//! Matches and tournaments between DXP programs: schedules, openings, several games at once,
//! scores, Elo, the SPRT, records, and resuming.
//!
//! [`run_tournament`] plays a [`TournamentConfig`]: a match between two participants (a number
//! of games, or an SPRT), a round robin, or a gauntlet. Each game is refereed by
//! [`play_game`]; `concurrency` workers play at once, each with
//! its own copies of the two programs of its game, kept connected from one game to the next
//! while they are needed (a copy the next game does not need is closed, then killed after the
//! grace; the games running when the schedule runs out send stop code `1` in their GAMEEND). A copy that crashed, went silent or lost its connection is stopped and a fresh one
//! started for its next game (a `RESTART` event); a program that cannot be started forfeits
//! its games (`no-start`), and the series goes on.
//!
//! What comes out:
//!
//! - the event stream ([`TournamentEvent`], one line each; its words are in [`event`]) on a
//!   channel, in the order things happen;
//! - each finished game appended to the PDN file and, as a JSON line ([`GameLine`]), to the
//!   results file, at once, so that an interrupted run loses nothing that was finished;
//! - a [`TournamentReport`]: standings with points (2/1/0), wins, draws, losses and Elo with
//!   its 95% margin, the count of each reason games ended, and the SPRT's standing.
//!
//! Openings: each opening is played twice, colours swapped ([`schedule`]); the built-in
//! ballots are [`damx_engine::openings`]'s, shuffled by a seed.
//!
//! Interrupting: [`TournamentControl::finish`] starts no new game and lets the running ones
//! end; [`TournamentControl::abort`] also ends the running games at once (their results are
//! `*` and not recorded). Resuming ([`TournamentConfig::resume`]) reads the results file, checks
//! that its games belong to this schedule (same number, players and opening), counts them, and
//! plays only the others: the schedule is a function of the options, so game numbers are
//! stable.
//!
//! ```no_run
//! use damx_session::referee::{BuiltinPlayer, Participant, ParticipantKind};
//! use damx_session::tournament::{
//!     Format, Opening, TournamentConfig, TournamentControl, run_tournament,
//! };
//!
//! let player = |name: &str, seed| Participant {
//!     name: name.to_owned(),
//!     kind: ParticipantKind::Builtin(BuiltinPlayer::Random { seed }),
//! };
//! let config = TournamentConfig {
//!     participants: vec![player("one", 1), player("two", 2)],
//!     format: Format::Match,
//!     games: Some(4),
//!     openings: vec![Opening::initial()],
//!     ..TournamentConfig::default()
//! };
//! let (events, lines) = crossbeam_channel::unbounded();
//! let report = run_tournament(&config, &TournamentControl::new(), &events)?;
//! drop(events);
//! for line in lines {
//!     println!("{line}");
//! }
//! assert_eq!(report.games.len(), 4);
//! # Ok::<(), damx_session::tournament::TournamentError>(())
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;

use crossbeam_channel::{Sender, unbounded};
use damx_engine::gauntlet::Tally;
use damx_rules::{Color, GameResult};

use crate::referee::{
    GameReport, GameSetup, Instance, Participant, Reason, RefereeConfig, RefereeEvent,
    StartOptions, play_game,
};

/// Stops a running series from another thread (a Ctrl-C handler): the referee's control,
/// shared by every game of the series.
pub use crate::referee::RefereeControl as TournamentControl;

pub mod event;
mod openings;
mod results;
pub mod schedule;
pub mod spec;
mod stats;
pub mod table;

pub use event::{EndKind, TournamentEvent};
pub use openings::{LoadOpeningsError, Opening, OpeningSource, OpeningsError};
pub use results::{GameLine, ResultsError};
pub use schedule::{Format, Schedule, ScheduledGame, shuffled};
pub use stats::{Hypothesis, PairBook, Pentanomial, SprtConfig, SprtStatus, Standing, standings};

/// Everything a match or tournament needs.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// The PDN `Event` tag.
    pub name: String,
    /// Who plays (a match takes exactly two; the first is the one under test).
    pub participants: Vec<Participant>,
    /// How they are paired.
    pub format: Format,
    /// Games in all for a match (`None` with an SPRT: until it decides), games per pairing
    /// for a round robin or gauntlet (`None`: 2).
    pub games: Option<u32>,
    /// Run a match as an SPRT.
    pub sprt: Option<SprtConfig>,
    /// The openings, in the order they are used (each twice, colours swapped).
    pub openings: Vec<Opening>,
    /// How each game is refereed.
    pub referee: RefereeConfig,
    /// How programs are started and stopped.
    pub start: StartOptions,
    /// Games at once (at least 1).
    pub concurrency: usize,
    /// The PDN file every game is appended to.
    pub pdn: Option<PathBuf>,
    /// The results file (JSON lines), appended to.
    pub results: Option<PathBuf>,
    /// Read the results file first and play only the games it does not have.
    pub resume: bool,
    /// Report every move (`MOVE` events).
    pub moves: bool,
    /// Keep every finished game's line for [`TournamentReport::games`]. Off, the series keeps
    /// only its tallies and counts, so that a long schedule takes no memory per game played
    /// (`damx match` turns it on only for `--json`, which prints the lines at the end).
    pub keep_games: bool,
}

impl Default for TournamentConfig {
    /// No participants yet, a match, 2 games per pairing, the normal start, one game at a
    /// time, no files.
    fn default() -> TournamentConfig {
        TournamentConfig {
            name: "damx match".to_owned(),
            participants: Vec::new(),
            format: Format::Match,
            games: None,
            sprt: None,
            openings: vec![Opening::initial()],
            referee: RefereeConfig::default(),
            start: StartOptions::default(),
            concurrency: 1,
            pdn: None,
            results: None,
            resume: false,
            moves: false,
            keep_games: true,
        }
    }
}

impl TournamentConfig {
    /// Games at once when a person gives no number: one per core (1 where that is unknown).
    pub fn default_concurrency() -> usize {
        std::thread::available_parallelism().map_or(1, usize::from)
    }

    /// A fingerprint (16 hexadecimal digits) of the options that shape a game's result: the
    /// referee's clock, move limit, time-loss rule, move time-out, claims policy and
    /// adjudication, and each participant's name and options. It is written with every game
    /// in the results file; resuming with other settings is refused. The number of games,
    /// the concurrency and the output files are not part of it.
    pub fn settings_key(&self) -> String {
        let referee = &self.referee;
        let mut text = format!(
            "minutes={} move-limit={} time-loss={} margin={:?} move-timeout={:?} claims={:?} \
             adjudication={:?}",
            referee.minutes,
            referee.move_limit,
            referee.time_loss,
            referee.time_margin,
            referee.move_timeout,
            referee.claims,
            referee.adjudication
        );
        for participant in &self.participants {
            text.push_str(&format!(" {}={:?}", participant.name, participant.kind));
        }
        // FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        format!("{hash:016x}")
    }

    /// The schedule these options give.
    pub fn schedule(&self) -> Schedule {
        let games = match self.format {
            Format::Match => self.games,
            Format::RoundRobin | Format::Gauntlet { .. } => Some(self.games.unwrap_or(2)),
        };
        Schedule::new(
            self.format,
            self.participants.len(),
            self.openings.len(),
            games,
        )
    }

    /// Checks the options against each other.
    ///
    /// # Errors
    /// A [`TournamentError::Config`] saying what does not fit.
    pub fn validate(&self) -> Result<(), TournamentError> {
        let fail = |message: String| Err(TournamentError::Config(message));
        let count = self.participants.len();
        match self.format {
            Format::Match if count != 2 => {
                return fail(format!("a match needs two participants, not {count}"));
            }
            Format::Match if self.games.is_none() && self.sprt.is_none() => {
                return fail("a match needs a number of games or an SPRT".into());
            }
            Format::RoundRobin if count < 2 => {
                return fail("a round robin needs at least two participants".into());
            }
            Format::Gauntlet { seeds } if seeds == 0 || seeds >= count => {
                return fail(format!(
                    "a gauntlet of {count} participants needs 1 to {} seeds",
                    count.saturating_sub(1)
                ));
            }
            _ => {}
        }
        if self.sprt.is_some() && self.format != Format::Match {
            return fail("an SPRT is for a match between two participants".into());
        }
        let mut seen = HashSet::new();
        for participant in &self.participants {
            let name = &participant.name;
            if let Err(error) = spec::check_name(name) {
                return fail(format!("the name {error}"));
            }
            if !seen.insert(name) {
                return fail(format!("two participants are called {name}"));
            }
            if self.concurrency > 1 && !participant.can_run_twice() {
                return fail(format!(
                    "{name} uses a fixed port: give it {{port}} or use --concurrency 1"
                ));
            }
        }
        if self.openings.is_empty() {
            return fail("no openings".into());
        }
        if self.concurrency == 0 {
            return fail("the concurrency must be at least 1".into());
        }
        if self.resume && self.results.is_none() {
            return fail("resuming needs a results file".into());
        }
        Ok(())
    }
}

/// Why a match or tournament could not run.
#[derive(Debug)]
pub enum TournamentError {
    /// The options do not fit together.
    Config(String),
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The results file does not read, or belongs to another schedule.
    Results {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for TournamentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TournamentError::Config(message) => f.write_str(message),
            TournamentError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TournamentError::Results { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for TournamentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TournamentError::Io { source, .. } => Some(source),
            TournamentError::Config(_) | TournamentError::Results { .. } => None,
        }
    }
}

/// What a series did.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentReport {
    /// Every finished game (resumed ones included), by number; empty unless
    /// [`TournamentConfig::keep_games`].
    pub games: Vec<GameLine>,
    /// How many games finished (resumed ones included).
    pub finished: u32,
    /// Finished games whose record (results line or PDN) could not be written; each file's
    /// first failure was reported by a `WARNING` event.
    pub records_failed: u32,
    /// The standings.
    pub standings: Vec<Standing>,
    /// How many games ended for each reason, in the order of [`Reason::ALL`].
    pub reasons: Vec<(Reason, u32)>,
    /// The SPRT's standing (SPRT mode only).
    pub sprt: Option<SprtStatus>,
    /// Why it ended.
    pub end: EndKind,
    /// Games in the schedule (`None` for an SPRT).
    pub scheduled: Option<u32>,
}

impl TournamentReport {
    /// The finished games whose record could not be written, in words (`None`: none).
    pub fn records_trouble(&self) -> Option<String> {
        (self.records_failed > 0).then(|| {
            format!(
                "{} of {} game records could not be saved (the first failure is reported above)",
                self.records_failed, self.finished
            )
        })
    }

    /// The JSON output of a series (`damx match --json`): each kept game's results line, then
    /// the standings line, each ending in a line break.
    pub fn json_lines(&self) -> String {
        let games = self.games.iter().map(GameLine::to_json);
        let standings = serde_json::to_string(self).unwrap_or_default();
        games.chain([standings]).map(|line| line + "\n").collect()
    }
}

/// The standings line of `damx match --json` and `damx tournament --json`: `type`
/// `standings`, `end`, `games`, each participant's rank, name, points, games, won, drawn,
/// lost, Elo and margin (one decimal; `null` when not finite), the count of each way games
/// ended, and in SPRT mode the `sprt` standing.
impl serde::Serialize for TournamentReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tenths = |x: f64| x.is_finite().then(|| (x * 10.0).round() / 10.0);
        let standings: Vec<serde_json::Value> = self
            .standings
            .iter()
            .map(|s| {
                serde_json::json!({
                    "rank": s.rank,
                    "name": s.name,
                    "points": s.points,
                    "games": s.tally.games(),
                    "won": s.tally.wins,
                    "drawn": s.tally.draws,
                    "lost": s.tally.losses,
                    "elo": s.elo.and_then(|e| tenths(e.elo)),
                    "elo_margin": s.elo.and_then(|e| tenths(e.margin)),
                })
            })
            .collect();
        let reasons: serde_json::Map<String, serde_json::Value> = self
            .reasons
            .iter()
            .map(|(reason, count)| (reason.word().to_owned(), (*count).into()))
            .collect();
        let mut summary = serde_json::json!({
            "type": "standings",
            "end": self.end.to_string(),
            "games": self.finished,
            "standings": standings,
            "reasons": reasons,
        });
        if let Some(sprt) = self.sprt {
            summary["sprt"] = serde_json::json!({
                "llr": sprt.llr,
                "lower": sprt.lower,
                "upper": sprt.upper,
                "verdict": sprt.verdict.map(|h| h.to_string()),
                "pairs": sprt.pairs.counts,
            });
        }
        summary.serialize(serializer)
    }
}

/// Plays the series; events go to `events` (a closed channel is fine), finished games to the
/// files.
///
/// # Errors
/// A [`TournamentError`] if the options do not fit, or a file cannot be read or written; once
/// games run, a failing file write is reported (a `WARNING` for the first failure of each
/// file) and counted in [`TournamentReport::records_failed`], and the series goes on.
pub fn run_tournament(
    config: &TournamentConfig,
    control: &TournamentControl,
    events: &Sender<TournamentEvent>,
) -> Result<TournamentReport, TournamentError> {
    config.validate()?;
    let schedule = config.schedule();
    let names: Vec<String> = config.participants.iter().map(|p| p.name.clone()).collect();
    let mut book = Book::new(config, &names);
    let mut records_failed = 0;
    let emit = |event: TournamentEvent| {
        let _ = events.send(event);
    };
    let resumed = if config.resume {
        resume(config, &schedule, &emit)?
    } else {
        check_fresh(config.results.as_deref())?
    };
    let mut files = Files::open(config)?;
    for game in schedule.games() {
        emit(game_event(config, &game));
    }
    let (done, stopped) = replay(&mut book, resumed, &emit);
    let dispatch = Dispatch {
        state: Mutex::new(DispatchState {
            next: 1,
            done,
            stopped,
        }),
        schedule: &schedule,
        control,
    };
    let (reports, inbox) = unbounded::<Report>();
    thread::scope(|scope| {
        for _ in 0..config.concurrency {
            let reports = reports.clone();
            let dispatch = &dispatch;
            scope.spawn(move || worker(config, dispatch, &reports));
        }
        drop(reports);
        // The coordinator: events in the order they come, files and scores per game.
        let settings = config.settings_key();
        let mut identified = vec![false; names.len()];
        for report in inbox {
            match report {
                Report::Event(event) => emit(event),
                Report::Identified { id, dxp_name } => {
                    if !std::mem::replace(&mut identified[id], true) {
                        emit(TournamentEvent::Participant {
                            id: id + 1,
                            name: names[id].clone(),
                            dxp_name,
                        });
                    }
                }
                Report::Finished(report, opening) => {
                    let line = GameLine {
                        settings: Some(settings.clone()),
                        ..GameLine::from_report(&report, &opening)
                    };
                    let (saved, decided) =
                        finished(config, &mut files, &mut book, &report, line, &emit);
                    if !saved {
                        records_failed += 1;
                    }
                    if decided {
                        dispatch.stop();
                    }
                }
            }
        }
    });
    let sprt = book.sprt_status();
    let end = end_kind(config, control, &schedule, &book, sprt);
    emit(TournamentEvent::End(end));
    let mut report = book.report(end, sprt, schedule.total());
    report.records_failed = records_failed;
    Ok(report)
}

/// Reads back the results file of an interrupted run, then repairs the files: a cut last line
/// is removed, and the PDN games of this series that have no line are dropped. Nothing is
/// changed in a file that does not read as this series' results.
fn resume(
    config: &TournamentConfig,
    schedule: &Schedule,
    emit: &impl Fn(TournamentEvent),
) -> Result<BTreeMap<u32, GameLine>, TournamentError> {
    let resumed = read_resumed(config, schedule)?;
    if let Some(warning) = repair_cut_line(config.results.as_deref())? {
        emit(TournamentEvent::Warning(warning));
    }
    if let Some(warning) = prune_pdn(config.pdn.as_deref(), &config.name, &resumed)? {
        emit(TournamentEvent::Warning(warning));
    }
    Ok(resumed)
}

/// Counts the resumed games; returns their numbers, and whether the SPRT decided already.
fn replay(
    book: &mut Book<'_>,
    resumed: BTreeMap<u32, GameLine>,
    emit: &impl Fn(TournamentEvent),
) -> (HashSet<u32>, bool) {
    let mut done: HashSet<u32> = HashSet::new();
    for line in resumed.into_values() {
        emit(TournamentEvent::Resumed {
            number: line.game,
            result: line.game_result(),
            reason: line.game_reason().unwrap_or(Reason::Aborted),
        });
        done.insert(line.game);
        book.add(line);
    }
    let mut stopped = false;
    if !done.is_empty() {
        emit(TournamentEvent::Scores(book.scores()));
        if let Some(status) = book.sprt_status() {
            emit(TournamentEvent::Sprt(status));
            stopped = status.verdict.is_some();
        }
    }
    (done, stopped)
}

/// Records a finished game (an aborted one is only reported: it is played again on
/// resume); returns whether its record was saved, and whether the SPRT has now decided.
fn finished(
    config: &TournamentConfig,
    files: &mut Files,
    book: &mut Book<'_>,
    report: &GameReport,
    line: GameLine,
    emit: &impl Fn(TournamentEvent),
) -> (bool, bool) {
    if report.verdict.reason == Reason::Aborted {
        emit(TournamentEvent::Result {
            number: report.setup.number,
            result: GameResult::Unfinished,
            reason: Reason::Aborted,
            detail: "not recorded; it is played again on resume".to_owned(),
        });
        return (true, false);
    }
    let saved = files.write(config, report, &line, emit);
    emit(TournamentEvent::Result {
        number: line.game,
        result: report.verdict.result,
        reason: report.verdict.reason,
        detail: report.verdict.detail.clone(),
    });
    book.add(line);
    emit(TournamentEvent::Scores(book.scores()));
    let status = book.sprt_status();
    if let Some(status) = status {
        emit(TournamentEvent::Sprt(status));
    }
    (saved, status.is_some_and(|status| status.verdict.is_some()))
}

/// Why the series ended.
fn end_kind(
    config: &TournamentConfig,
    control: &TournamentControl,
    schedule: &Schedule,
    book: &Book<'_>,
    sprt: Option<SprtStatus>,
) -> EndKind {
    match sprt.and_then(|status| status.verdict) {
        Some(hypothesis) => EndKind::Sprt(hypothesis),
        None if control.is_finishing() => EndKind::Interrupted,
        None => match schedule.total() {
            Some(total) if book.finished >= total => EndKind::Complete,
            Some(_) => EndKind::Interrupted,
            None if config.games.is_some_and(|cap| book.finished >= cap) => EndKind::Complete,
            None => EndKind::Interrupted,
        },
    }
}

/// The `GAME` line of a scheduled game.
fn game_event(config: &TournamentConfig, game: &ScheduledGame) -> TournamentEvent {
    TournamentEvent::Game {
        number: game.number,
        white: config.participants[game.white].name.clone(),
        black: config.participants[game.black].name.clone(),
        opening: config.openings[game.opening].label.clone(),
    }
}

/// Refuses to append a fresh run to a results file that already has games.
fn check_fresh(results: Option<&Path>) -> Result<BTreeMap<u32, GameLine>, TournamentError> {
    if let Some(path) = results
        && fs::metadata(path).is_ok_and(|meta| meta.len() > 0)
    {
        return Err(TournamentError::Results {
            path: path.to_owned(),
            message: "the file has results already: resume it, or choose another file".into(),
        });
    }
    Ok(BTreeMap::new())
}

/// The longest results or PDN file a resumed tournament reads back (1 GiB: hundreds of
/// thousands of games).
const MAX_RECORD_BYTES: u64 = 1 << 30;

/// The bytes of a results or PDN file to resume from, `None` where there is none yet. Only a
/// regular file of at most [`MAX_RECORD_BYTES`] is read, so that a device or a FIFO named by
/// mistake is refused instead of filling the memory or waiting for ever.
fn read_record(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than {} MiB", MAX_RECORD_BYTES >> 20),
        ));
    }
    Ok(Some(bytes))
}

/// [`read_record`] as text (the files damx writes are UTF-8).
fn read_record_text(path: &Path) -> io::Result<Option<String>> {
    read_record(path)?
        .map(|bytes| {
            String::from_utf8(bytes)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
        })
        .transpose()
}

/// Cuts a results file back to its last complete line when a write was cut short (a crash,
/// a full disk), so that the games appended next start on a line of their own; says so.
fn repair_cut_line(results: Option<&Path>) -> Result<Option<String>, TournamentError> {
    let Some(path) = results else { return Ok(None) };
    let io = |source| TournamentError::Io {
        path: path.to_owned(),
        source,
    };
    let Some(bytes) = read_record(path).map_err(io)? else {
        return Ok(None);
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(None);
    }
    let keep = bytes
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    let file = OpenOptions::new().write(true).open(path).map_err(io)?;
    file.set_len(keep as u64).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(Some(format!(
        "{}: the last line was cut short ({} bytes, a write interrupted); removed, that game \
         is played again",
        path.display(),
        bytes.len() - keep
    )))
}

/// Keeps in the PDN file only the games of this series (its `Event`) that the results file
/// has (by their `Round`), whole: a game written to the PDN whose results line was lost is
/// played again and must not appear twice, and a game cut short at the end is dropped. Games
/// of other events are left as they are. The file is rewritten through a temporary file and
/// a rename, so a crash leaves the old file or the new one; says what was dropped.
fn prune_pdn(
    pdn: Option<&Path>,
    event: &str,
    resumed: &BTreeMap<u32, GameLine>,
) -> Result<Option<String>, TournamentError> {
    let Some(path) = pdn else { return Ok(None) };
    let io = |source| TournamentError::Io {
        path: path.to_owned(),
        source,
    };
    let Some(text) = read_record_text(path).map_err(io)? else {
        return Ok(None);
    };
    let mut kept = String::with_capacity(text.len());
    let mut dropped = Vec::new();
    let mut seen = HashSet::new();
    let event_tag = event_tag(event);
    let games = pdn_games(&text);
    for (index, game) in games.iter().enumerate() {
        let round = game
            .lines()
            .find_map(|line| line.strip_prefix("[Round \""))
            .and_then(|rest| rest.split('"').next())
            .and_then(|number| number.parse::<u32>().ok());
        // A whole game ends with a blank line after its moves; only the last can be cut.
        let whole = game.ends_with("\n\n");
        let cut = !whole && index + 1 == games.len();
        if !cut && !game.lines().any(|line| line == event_tag) {
            kept.push_str(game);
            continue;
        }
        match round {
            Some(number) if whole && resumed.contains_key(&number) && seen.insert(number) => {
                kept.push_str(game);
            }
            _ => dropped.push(round.map_or_else(|| "?".to_owned(), |n| n.to_string())),
        }
    }
    if dropped.is_empty() {
        return Ok(None);
    }
    let temporary = path.with_extension("pdn.tmp");
    let written = fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(kept.as_bytes())?;
        file.sync_all()
    });
    written
        .and_then(|()| fs::rename(&temporary, path))
        .map_err(io)?;
    Ok(Some(format!(
        "{}: dropped game(s) {} that the results file does not have (cut short or written \
         before a crash); they are played again",
        path.display(),
        dropped.join(", ")
    )))
}

/// The `Event` tag line of this series' PDN games, as [`Files::write`] writes it.
fn event_tag(event: &str) -> String {
    let mut game = damx_rules::pdn::PdnGame::new(
        damx_rules::Position::initial(),
        Vec::new(),
        GameResult::Unfinished,
    );
    game.set_tag("Event", event);
    let text = game.to_string();
    text.lines()
        .find(|line| line.starts_with("[Event "))
        .unwrap_or_default()
        .to_owned()
}

/// The games of a PDN file as written by [`Files::write`]: each from its `[Event ` line to the
/// next one.
fn pdn_games(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("[Event ") {
            starts.push(at);
        }
        at += line.len();
    }
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts.push(text.len());
    starts
        .windows(2)
        .map(|pair| &text[pair[0]..pair[1]])
        .filter(|game| !game.trim().is_empty())
        .collect()
}

/// The games of the results file, checked against the schedule.
fn read_resumed(
    config: &TournamentConfig,
    schedule: &Schedule,
) -> Result<BTreeMap<u32, GameLine>, TournamentError> {
    let Some(path) = &config.results else {
        return Ok(BTreeMap::new());
    };
    let text = read_record_text(path)
        .map_err(|source| TournamentError::Io {
            path: path.clone(),
            source,
        })?
        .unwrap_or_default();
    let fail = |message: String| TournamentError::Results {
        path: path.clone(),
        message,
    };
    let settings = config.settings_key();
    let mut games = BTreeMap::new();
    for line in GameLine::read_all(&text).map_err(|error| fail(error.to_string()))? {
        let expected = schedule
            .game(line.game)
            .map(|game| game_event(config, &game));
        let found = TournamentEvent::Game {
            number: line.game,
            white: line.white.clone(),
            black: line.black.clone(),
            opening: line.opening.clone(),
        };
        if expected.as_ref() != Some(&found) {
            return Err(fail(format!(
                "game {} ({} - {}, {}) is not in this schedule: the options differ from the \
                 run that wrote the file",
                line.game, line.white, line.black, line.opening
            )));
        }
        if games.contains_key(&line.game) {
            return Err(fail(format!(
                "game {} has two lines: the file is not one run's results",
                line.game
            )));
        }
        if line.game_reason() == Some(Reason::Aborted) {
            return Err(fail(format!(
                "game {} is recorded as aborted, which no run writes (an aborted game is played \
                 again)",
                line.game
            )));
        }
        // Files written before the fingerprint existed have none; they are taken as they are.
        if line
            .settings
            .as_ref()
            .is_some_and(|found| *found != settings)
        {
            return Err(fail(format!(
                "game {} was played with other settings (the clock, move limit, claims, \
                 adjudication or a participant's options differ from the run that wrote the \
                 file): give the same ones to resume",
                line.game
            )));
        }
        games.insert(line.game, line);
    }
    Ok(games)
}

/// The PDN and results files, open for appending.
struct Files {
    pdn: Option<(PathBuf, fs::File)>,
    results: Option<(PathBuf, fs::File)>,
    /// Whether a write to each (PDN, results) already failed and was reported.
    failed: [bool; 2],
}

impl Files {
    fn open(config: &TournamentConfig) -> Result<Files, TournamentError> {
        let open =
            |path: &Option<PathBuf>| -> Result<Option<(PathBuf, fs::File)>, TournamentError> {
                let Some(path) = path else { return Ok(None) };
                let io = |source| TournamentError::Io {
                    path: path.clone(),
                    source,
                };
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    crate::record::create_dir(parent).map_err(io)?;
                }
                let file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(io)?;
                Ok(Some((path.clone(), file)))
            };
        Ok(Files {
            pdn: open(&config.pdn)?,
            results: open(&config.results)?,
            failed: [false; 2],
        })
    }

    /// Appends a finished game to both files, the PDN first: the results line is what makes a
    /// game count as played when the tournament is resumed, so it is written once the game's
    /// record is. Whatever a crash or a full disk leaves between the two (a cut line, a game
    /// in the PDN that the results file lacks), resuming repairs ([`repair_cut_line`],
    /// [`prune_pdn`]). A file's first failure is reported as a
    /// warning in the stream, later ones only counted (a full disk must not stop the games,
    /// nor flood the log). Returns whether both were written.
    fn write(
        &mut self,
        config: &TournamentConfig,
        report: &GameReport,
        line: &GameLine,
        emit: &dyn Fn(TournamentEvent),
    ) -> bool {
        let referee = &config.referee;
        let pdn = line.to_pdn(report, &config.name, referee.minutes, referee.move_limit);
        let json = format!("{}\n", line.to_json());
        let mut saved = true;
        for ((file, text), failed) in [(&mut self.pdn, pdn), (&mut self.results, json)]
            .into_iter()
            .zip(&mut self.failed)
        {
            if let Some((path, file)) = file
                && let Err(error) = file.write_all(text.as_bytes()).and_then(|()| file.flush())
            {
                saved = false;
                if !*failed {
                    *failed = true;
                    emit(TournamentEvent::Warning(format!(
                        "cannot write {}: {error} (further failures are counted, not shown)",
                        path.display()
                    )));
                }
            }
        }
        saved
    }
}

/// The tallies, and the finished games where they are kept.
struct Book<'a> {
    names: &'a [String],
    index: HashMap<String, usize>,
    tallies: Vec<Tally>,
    finished: u32,
    reasons: HashMap<Reason, u32>,
    /// `Some` only with [`TournamentConfig::keep_games`].
    games: Option<BTreeMap<u32, GameLine>>,
    sprt: Option<SprtConfig>,
    /// The first participant's results by pairs of games (the SPRT's measure in a match).
    pairs: PairBook,
}

impl<'a> Book<'a> {
    fn new(config: &TournamentConfig, names: &'a [String]) -> Book<'a> {
        Book {
            names,
            index: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
            tallies: vec![Tally::default(); names.len()],
            finished: 0,
            reasons: HashMap::new(),
            games: config.keep_games.then(BTreeMap::new),
            sprt: config.sprt,
            pairs: PairBook::default(),
        }
    }

    fn add(&mut self, line: GameLine) {
        let sides = [
            (self.index.get(&line.white).copied(), Color::White),
            (self.index.get(&line.black).copied(), Color::Black),
        ];
        let result = line.game_result();
        for (id, color) in sides {
            let Some(id) = id else { continue };
            let won = match result {
                GameResult::Draw => None,
                GameResult::WhiteWins | GameResult::BlackWins => {
                    Some((result == GameResult::WhiteWins) == (color == Color::White))
                }
                GameResult::Unfinished => continue,
            };
            self.tallies[id].add(won);
            if id == 0 {
                // In a match games 2k - 1 and 2k (from 1) are one opening's pair.
                self.pairs.add(u64::from(line.game.saturating_sub(1)), won);
            }
        }
        self.finished += 1;
        if let Some(reason) = line.game_reason() {
            *self.reasons.entry(reason).or_default() += 1;
        }
        if let Some(games) = &mut self.games {
            games.insert(line.game, line);
        }
    }

    fn scores(&self) -> Vec<(String, u32)> {
        self.names
            .iter()
            .cloned()
            .zip(self.tallies.iter().map(Tally::points))
            .collect()
    }

    fn sprt_status(&self) -> Option<SprtStatus> {
        self.sprt.map(|sprt| sprt.status(&self.pairs.pentanomial()))
    }

    fn report(
        self,
        end: EndKind,
        sprt: Option<SprtStatus>,
        scheduled: Option<u32>,
    ) -> TournamentReport {
        let counts = self.reasons;
        TournamentReport {
            standings: standings(self.names, &self.tallies),
            reasons: Reason::ALL
                .into_iter()
                .filter_map(|reason| counts.get(&reason).map(|&n| (reason, n)))
                .collect(),
            games: self
                .games
                .map(|games| games.into_values().collect())
                .unwrap_or_default(),
            finished: self.finished,
            records_failed: 0,
            sprt,
            end,
            scheduled,
        }
    }
}

/// Hands out the games to the workers.
struct Dispatch<'a> {
    state: Mutex<DispatchState>,
    schedule: &'a Schedule,
    control: &'a TournamentControl,
}

struct DispatchState {
    /// The next game number to look at.
    next: u32,
    /// Games finished already (resumed).
    done: HashSet<u32>,
    /// No more games (the SPRT decided).
    stopped: bool,
}

impl Dispatch<'_> {
    /// The next game to play, if any.
    fn claim(&self) -> Option<ScheduledGame> {
        if self.control.is_finishing() {
            return None;
        }
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.stopped {
            return None;
        }
        let claimed = loop {
            let number = state.next;
            let Some(game) = self.schedule.game(number) else {
                break None;
            };
            state.next += 1;
            if !state.done.contains(&number) {
                break Some(game);
            }
        };
        // With nothing left to hand out, the running games are the last ones.
        let more = (state.next..)
            .map_while(|number| self.schedule.game(number))
            .any(|game| !state.done.contains(&game.number));
        if !more {
            self.control.last_games();
        }
        claimed
    }

    /// No more games (the SPRT decided): the running ones are the last.
    fn stop(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).stopped = true;
        self.control.last_games();
    }
}

/// What a worker tells the coordinator.
enum Report {
    Event(TournamentEvent),
    Identified { id: usize, dxp_name: String },
    Finished(Box<GameReport>, String),
}

/// Plays games until there are none left, with its own copies of the programs.
fn worker(config: &TournamentConfig, dispatch: &Dispatch<'_>, reports: &Sender<Report>) {
    let send = |report: Report| {
        let _ = reports.send(report);
    };
    let open_ended = dispatch.schedule.total().is_none();
    let mut pool = Pool {
        config,
        running: HashMap::new(),
        ended: HashMap::new(),
    };
    while let Some(game) = dispatch.claim() {
        pool.keep_only(&game);
        let names = [game.white, game.black].map(|id| config.participants[id].name.clone());
        if open_ended {
            send(Report::Event(game_event(config, &game)));
        }
        let (missing, problems) = pool.ready(&game, &names, &send);
        let setup = GameSetup {
            number: game.number,
            names: names.clone(),
            start: config.openings[game.opening].start,
            stop_after: [false, false],
        };
        send(Report::Event(TournamentEvent::Begin {
            number: game.number,
            white: names[0].clone(),
            black: names[1].clone(),
        }));
        let report = match pool.take(&game) {
            (Some(white), Some(black)) => pool.play(&game, &setup, [white, black], dispatch, &send),
            (white, black) => {
                // Keep the copy that did start for the next game.
                pool.put_back(&game, [white, black]);
                let report = GameReport::not_started(setup.clone(), &missing, &problems.join("; "));
                for &color in &report.verdict.disqualified {
                    send(Report::Event(TournamentEvent::Disqualification {
                        number: game.number,
                        name: names[color.index()].clone(),
                        reason: report.verdict.reason,
                        detail: report.verdict.detail.clone(),
                    }));
                }
                report
            }
        };
        let opening = config.openings[game.opening].label.clone();
        send(Report::Finished(Box::new(report), opening));
    }
    for (_, instance) in pool.running.drain() {
        instance.stop(config.start.grace);
    }
}

/// One worker's running copies of the participants, by id.
struct Pool<'a> {
    config: &'a TournamentConfig,
    running: HashMap<usize, Instance>,
    /// Why this worker's last copy of a participant ended, until the copy that replaces it
    /// starts (a RESTART). Other workers run copies of their own.
    ended: HashMap<usize, String>,
}

impl Pool<'_> {
    /// Stops the copies `game` does not need: a worker runs two programs at most.
    fn keep_only(&mut self, game: &ScheduledGame) {
        for id in self.running.keys().copied().collect::<Vec<_>>() {
            if !game.involves(id)
                && let Some(instance) = self.running.remove(&id)
            {
                instance.stop(self.config.start.grace);
            }
        }
    }

    /// Starts (or restarts) the copies `game` needs; returns the colours that could not be
    /// started, and why.
    fn ready(
        &mut self,
        game: &ScheduledGame,
        names: &[String; 2],
        send: &impl Fn(Report),
    ) -> (Vec<Color>, Vec<String>) {
        let (mut missing, mut problems) = (Vec::new(), Vec::new());
        for (color, id) in [(Color::White, game.white), (Color::Black, game.black)] {
            // A copy that died between games is replaced before the game, not forfeited.
            if let Some(mut instance) = self.running.remove(&id) {
                if instance.is_alive() {
                    self.running.insert(id, instance);
                    continue;
                }
                instance.stop(self.config.start.grace);
                self.ended.insert(id, "exited".to_owned());
            }
            if let Some(why) = self.ended.remove(&id) {
                send(Report::Event(TournamentEvent::Restart {
                    name: names[color.index()].clone(),
                    why,
                }));
            }
            match Instance::start(&self.config.participants[id], &self.config.start) {
                Ok(instance) => {
                    self.running.insert(id, instance);
                }
                Err(error) => {
                    missing.push(color);
                    problems.push(format!("{}: {error}", names[color.index()]));
                    self.ended.insert(id, Reason::NoStart.word().to_owned());
                }
            }
        }
        (missing, problems)
    }

    /// The copies of `game`'s white and black, if they run.
    fn take(&mut self, game: &ScheduledGame) -> (Option<Instance>, Option<Instance>) {
        (
            self.running.remove(&game.white),
            self.running.remove(&game.black),
        )
    }

    /// Keeps the copies that run for the next game.
    fn put_back(&mut self, game: &ScheduledGame, instances: [Option<Instance>; 2]) {
        let [white, black] = instances;
        for (id, instance) in [(game.white, white), (game.black, black)] {
            if let Some(instance) = instance {
                self.running.insert(id, instance);
            }
        }
    }

    /// Referees `game` between `instances` (white, black); keeps the copies that can play on.
    fn play(
        &mut self,
        game: &ScheduledGame,
        setup: &GameSetup,
        instances: [Instance; 2],
        dispatch: &Dispatch<'_>,
        send: &impl Fn(Report),
    ) -> GameReport {
        let config = self.config;
        let [mut white, mut black] = instances;
        let mut on_event = |event: RefereeEvent| {
            if let Some(report) = translate(config, setup, event) {
                send(report);
            }
        };
        let report = play_game(
            &mut white,
            &mut black,
            setup,
            &config.referee,
            dispatch.control,
            &mut on_event,
        );
        let ids = [game.white, game.black];
        for (color, instance) in [(Color::White, white), (Color::Black, black)] {
            let id = ids[color.index()];
            if report.keep[color.index()] {
                self.running.insert(id, instance);
            } else {
                instance.stop(config.start.grace);
                let why = if report.verdict.disqualified.contains(&color) {
                    report.verdict.reason.word().to_owned()
                } else {
                    "closed".to_owned()
                };
                self.ended.insert(id, why);
            }
        }
        report
    }
}

/// The tournament's view of a referee event, if it has one.
fn translate(config: &TournamentConfig, setup: &GameSetup, event: RefereeEvent) -> Option<Report> {
    let name = |color: Color| setup.names[color.index()].clone();
    let id = |color: Color| {
        config
            .participants
            .iter()
            .position(|p| p.name == setup.names[color.index()])
    };
    Some(match event {
        RefereeEvent::Identified { color, name } => Report::Identified {
            id: id(color)?,
            dxp_name: name,
        },
        RefereeEvent::Moved {
            ply, text, millis, ..
        } if config.moves => Report::Event(TournamentEvent::Move {
            number: setup.number,
            ply,
            text,
            millis,
        }),
        RefereeEvent::Disqualified {
            color,
            reason,
            detail,
        } => Report::Event(TournamentEvent::Disqualification {
            number: setup.number,
            name: name(color),
            reason,
            detail,
        }),
        RefereeEvent::Chat { color, text } => Report::Event(TournamentEvent::Note {
            number: setup.number,
            name: name(color),
            text: format!("chat: {text}"),
        }),
        RefereeEvent::Note { color, what } => Report::Event(TournamentEvent::Note {
            number: setup.number,
            name: name(color),
            text: what,
        }),
        RefereeEvent::Moved { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::spec::{ParticipantSpec, name_participants};
    use super::*;

    /// A record to resume from is read only as a regular file: a missing one is no record, a
    /// directory (or a device, a FIFO) is refused, and text must be UTF-8.
    #[test]
    fn records_to_resume_are_regular_files() {
        let dir = std::env::temp_dir().join(format!("damx-record-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        assert!(read_record(&dir.join("missing")).unwrap().is_none());
        let error = read_record(&dir).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        let file = dir.join("results.jsonl");
        fs::write(&file, b"{}\n").unwrap();
        assert_eq!(read_record_text(&file).unwrap().as_deref(), Some("{}\n"));
        fs::write(&file, [0xff, b'\n']).unwrap();
        let error = read_record_text(&file).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        #[cfg(unix)]
        if let Ok(null) = fs::metadata("/dev/null") {
            assert!(!null.is_file());
            let error = read_record(Path::new("/dev/null")).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Options that do not fit together are refused, each saying what does not fit; two
    /// built-in participants make a match.
    #[test]
    fn configurations_that_do_not_fit_are_refused() {
        let config = |format: Format, engines: &[&str], concurrency: usize| {
            let specs = engines.iter().map(|spec| spec.parse::<ParticipantSpec>());
            TournamentConfig {
                format,
                participants: name_participants(specs.map(Result::unwrap).collect()),
                concurrency,
                games: Some(2),
                ..TournamentConfig::default()
            }
        };
        let fixed = "cmd=p,connect=127.0.0.1:27531";
        for (config, says) in [
            (
                config(Format::Match, &["builtin"], 1),
                "a match needs two participants, not 1",
            ),
            (
                config(Format::RoundRobin, &["builtin", fixed], 2),
                "p uses a fixed port: give it {port} or use --concurrency 1",
            ),
            (
                config(Format::RoundRobin, &["builtin"], 1),
                "at least two participants",
            ),
        ] {
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
        let players = ["builtin", "builtin"];
        assert!(config(Format::Match, &players, 2).validate().is_ok());
        assert!(TournamentConfig::default_concurrency() >= 1);
    }
}
