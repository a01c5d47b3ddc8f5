//! The options of `match` and `tournament` and their conversion into a
//! [`TournamentConfig`].
//!
//! Participants come as repeated `--engine SPEC` options or from a JSON file (`--engines
//! FILE`), read by [`ParticipantSpec`] (its module lists the keys); `--sprt` by
//! [`SprtConfig`]'s `FromStr`.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use damx_engine::egdb::SharedEgdb;
use damx_session::referee::{
    Adjudication, AdjudicationKind, AdjudicationMethod, ClaimPolicy, RefereeConfig, StartOptions,
};
use damx_session::tournament::spec::{ParticipantSpec, Seconds, name_participants, parse_seconds};
use damx_session::tournament::{Format, OpeningSource, SprtConfig, TournamentConfig};
use damx_session::words::Words;

use super::words;
use crate::cmd;
use crate::error::Error;

/// The longest `--engines` file read (a list of participants is a few KiB).
const MAX_ENGINES_FILE_BYTES: u64 = 1 << 20;

/// The databases of `--adjudicate egdb` ([`SharedEgdb::require`]), shared with the built-in
/// participants that use the same directory.
fn adjudication_egdb(explicit: Option<&Path>) -> Result<SharedEgdb, Error> {
    let (egdb, notes) = SharedEgdb::require(explicit).map_err(|error| {
        Error::Invalid(format!(
            "--adjudicate egdb: {error} (build them with `damx egdb build --pieces 4`, or give \
             --adjudicate-egdb DIR)"
        ))
    })?;
    cmd::egdb::show_notes(&notes);
    Ok(egdb)
}

/// What `match` and `tournament` share.
#[derive(Debug, Args)]
pub(crate) struct SeriesArgs {
    /// A participant, repeated: builtin[,depth=N,...] or cmd=PROGRAM ARGS,connect=HOST:PORT|listen (see --help)
    #[arg(long = "engine", value_name = "SPEC", value_parser = ParticipantSpec::from_str)]
    engines: Vec<ParticipantSpec>,

    /// Participants from a JSON file: an array of objects with the keys of --engine
    #[arg(long = "engines", value_name = "FILE")]
    engines_file: Option<PathBuf>,

    /// Thinking time per program for the whole game, in minutes (0: no clock)
    #[arg(long, value_name = "M", default_value_t = RefereeConfig::default().minutes,
          value_parser = clap::value_parser!(u16).range(0..=999))]
    minutes: u16,

    /// The DXP move limit of the time control, sent in the GAMEREQ (0: none)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=999))]
    moves: u16,

    /// A program that exceeds its time loses (otherwise time is only recorded)
    #[arg(long)]
    time_loss: bool,

    /// Seconds of tolerance before a loss on time
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(RefereeConfig::default().time_margin))]
    time_margin: Seconds,

    /// Seconds a program may take for one move before it forfeits as silent [default: its
    /// remaining time plus 30 s; 60 s without a clock]
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    move_timeout: Option<Duration>,

    /// Seconds to wait for a GAMEACC or a GAMEEND acknowledgement
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(RefereeConfig::default().reply_timeout))]
    reply_timeout: Seconds,

    /// Adjudicate once each side has made this many moves (0: never)
    #[arg(long, value_name = "N", default_value_t = Adjudication::DEFAULT_MAX_MOVES)]
    max_moves: u16,

    /// How adjudicated games are decided
    #[arg(long, value_name = "HOW", default_value_t = Adjudication::default().method.kind(),
          value_parser = words::<AdjudicationKind>())]
    adjudicate: AdjudicationKind,

    /// The depth of the engine's adjudication search
    #[arg(long, value_name = "N", default_value_t = Adjudication::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    adjudicate_depth: u32,

    /// The engine score (centi-men) from which the side ahead is given the win
    #[arg(long, value_name = "CENTI-MEN", default_value_t = Adjudication::DEFAULT_THRESHOLD.unsigned_abs())]
    adjudicate_score: u32,

    /// The material lead (a man 1, a king 3) that wins a material adjudication
    #[arg(long, value_name = "N", default_value_t = 2)]
    adjudicate_margin: u32,

    /// The endgame database directory of `--adjudicate egdb` [default: $DAMX_EGDB, else the
    /// cache directory's, as for `damx egdb`]
    #[arg(long, value_name = "DIR")]
    adjudicate_egdb: Option<PathBuf>,

    /// How a program's GAMEEND claiming a draw or a win (or giving no reason) is read
    #[arg(long, value_name = "HOW", default_value_t = ClaimPolicy::default(),
          value_parser = words::<ClaimPolicy>())]
    claims: ClaimPolicy,

    /// The openings: `ballots` (the built-in balanced ballots, shuffled by --seed), `start`, or
    /// a file of FEN lines or of PDN games (told apart by content); each is played twice,
    /// colours swapped
    #[arg(long, value_name = "SOURCE", default_value = "ballots")]
    openings: OpeningSource,

    /// The seed that orders the built-in ballots
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,

    /// Games at once [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    concurrency: Option<u32>,

    /// Append every game to this PDN file
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,

    /// Append every game's result to this file as a JSON line (what --resume reads)
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,

    /// Continue the series in --results: the games there are counted, not played again (the
    /// settings must be the same as when they were played)
    #[arg(long, requires = "results")]
    resume: bool,

    /// Also print each move as it is played (MOVE lines)
    #[arg(long)]
    print_moves: bool,

    /// The PDN Event tag
    #[arg(long, value_name = "NAME")]
    event: Option<String>,

    /// Write each external program's output to DIR/NAME.log
    #[arg(long, value_name = "DIR")]
    logs: Option<PathBuf>,

    /// Write every connection's frames as JSON lines to DIR/NAME-N.jsonl
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,

    /// Seconds a program may take to start and be connected
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(StartOptions::default().timeout))]
    start_timeout: Seconds,

    /// Seconds a program may take to exit when told to stop, before it is killed
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(StartOptions::default().grace))]
    grace: Seconds,

    /// The least gap between two frames sent to a program, in milliseconds (the referee sends
    /// one frame at a time in normal play, so none is needed by default; at most 10000)
    #[arg(long, value_name = "MS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pace: u64,

    /// Print the results as JSON lines (one per game, then the standings) instead of the
    /// event stream and the table
    #[arg(long)]
    json: bool,
}

impl SeriesArgs {
    /// The configuration, with the format and games still to fill in.
    fn config(self, default_event: &str) -> Result<(TournamentConfig, bool), Error> {
        let mut specs = self.engines;
        if let Some(path) = &self.engines_file {
            let text = crate::input::read_short_text(path, MAX_ENGINES_FILE_BYTES)?;
            let more = ParticipantSpec::parse_json_list(&text)
                .map_err(|message| Error::Usage(format!("{}: {message}", path.display())))?;
            specs.extend(more);
        }
        let openings = self.openings.load(Some(self.seed))?;
        let method = AdjudicationMethod::of_kind(
            self.adjudicate,
            self.adjudicate_depth,
            self.adjudicate_score,
            self.adjudicate_margin,
            || adjudication_egdb(self.adjudicate_egdb.as_deref()),
        )?;
        let frame_gap = Duration::from_millis(self.pace);
        let referee = RefereeConfig {
            minutes: self.minutes,
            move_limit: self.moves,
            time_loss: self.time_loss,
            time_margin: self.time_margin.0,
            move_timeout: self.move_timeout,
            reply_timeout: self.reply_timeout.0,
            claims: self.claims,
            adjudication: Adjudication {
                max_moves: (self.max_moves > 0).then_some(self.max_moves),
                method,
            },
            ..RefereeConfig::default()
        };
        let concurrency =
            (self.concurrency).map_or_else(TournamentConfig::default_concurrency, |n| n as usize);
        let config = TournamentConfig {
            name: self.event.unwrap_or_else(|| default_event.to_owned()),
            participants: name_participants(
                specs
                    .into_iter()
                    .map(|spec| spec.with_egdb(cmd::egdb::for_engine))
                    .collect(),
            ),
            openings,
            referee,
            start: StartOptions {
                timeout: self.start_timeout.0,
                grace: self.grace.0,
                frame_gap,
                log_dir: self.logs,
                transcript_dir: self.transcripts,
            },
            concurrency,
            pdn: self.pdn,
            results: self.results,
            resume: self.resume,
            moves: self.print_moves,
            ..TournamentConfig::default()
        };
        Ok((config, self.json))
    }
}

/// `damx match`.
#[derive(Debug, Args)]
pub(crate) struct MatchArgs {
    #[command(flatten)]
    series: SeriesArgs,

    /// Games to play [default: 10; with --sprt: until the test decides]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,

    /// Run a sequential probability ratio test: elo0=E0,elo1=E1,alpha=A,beta=B (defaults
    /// 0, 10, 0.05, 0.05); the first --engine is the one under test
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "", value_parser = SprtConfig::from_str)]
    sprt: Option<SprtConfig>,
}

impl MatchArgs {
    /// The validated configuration, and whether to print JSON.
    pub(crate) fn into_config(self) -> Result<(TournamentConfig, bool), Error> {
        let (mut series, json) = self.series.config("damx match")?;
        series.format = Format::Match;
        series.sprt = self.sprt;
        series.games = match (self.games, self.sprt) {
            (Some(games), _) => Some(games),
            (None, Some(_)) => None,
            (None, None) => Some(10),
        };
        validated(series, json)
    }
}

/// `damx tournament`.
#[derive(Debug, Args)]
pub(crate) struct TournamentArgs {
    #[command(flatten)]
    series: SeriesArgs,

    /// How participants are paired
    #[arg(long, value_name = "FORMAT", default_value = Format::RoundRobin.word(), value_parser = words::<Format>())]
    format: Format,

    /// In a gauntlet, how many of the first participants play all the others
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    seeds: u32,

    /// Games per pairing (each opening twice, colours swapped)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
}

impl TournamentArgs {
    /// The validated configuration, and whether to print JSON.
    pub(crate) fn into_config(self) -> Result<(TournamentConfig, bool), Error> {
        let (mut series, json) = self.series.config("damx tournament")?;
        series.format = self.format.seeded(self.seeds as usize);
        series.games = Some(self.games);
        validated(series, json)
    }
}

fn validated(series: TournamentConfig, json: bool) -> Result<(TournamentConfig, bool), Error> {
    series
        .validate()
        .map_err(|error| Error::Usage(error.to_string()))?;
    Ok((series, json))
}
