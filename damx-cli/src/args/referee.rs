//! The options of `match` and `tournament` and their conversion into a
//! [`TournamentConfig`].
//!
//! Participants come as repeated `--engine SPEC` options in the manner of cutechess-cli, each a
//! list of `key=value` pairs separated by commas, or from a JSON file (`--engines FILE`: an
//! array of objects with the same keys; `cmd` may there be an array of words, and values may
//! contain commas):
//!
//! | key | for | meaning |
//! |---|---|---|
//! | `name=NAME` | all | the name in the event stream and the tables (one word; default: `damx`, `random`, `first`, or the program's file name) |
//! | `builtin` or `builtin=engine\|random\|first` | built-in | the damx engine (default), a random mover, or a first-legal-move player, run in process |
//! | `depth=N`, `nodes=N`, `movetime=S` | built-in engine | a fixed strength instead of the game clock |
//! | `threads=N`, `hash=MB` | built-in engine | its search threads and table size (default 1 and 64) |
//! | `egdb=DIR` or `egdb=off` | built-in engine | its endgame databases (default: the default directory of `damx egdb`, when it holds any) |
//! | `eval=hand\|pattern`, `weights=FILE` | built-in engine | its evaluation: the hand features (default) or the pattern tables, with the built-in weights or those of a file from `cargo xtask train fit` |
//! | `seed=N` | random mover | its seed |
//! | `hub:PROGRAM ARGS` or `hub=PROGRAM ARGS` | Hub engine | a Hub engine program, bridged to DXP in process (with `dir`, and `depth`, `nodes`, `movetime` for a fixed strength) |
//! | `option.NAME=VALUE` | Hub engine | sent as `set-param name=NAME value=VALUE` before `init` |
//! | `cmd=PROGRAM ARGS` | external | the command line (words split at blanks, quotes group); `{port}` is replaced by a free port |
//! | `dir=PATH` | external | its working directory (a relative program path is taken from it) |
//! | `connect=HOST:PORT` | external | it listens there and we connect (`127.0.0.1:{port}` for a port of its own per copy) |
//! | `listen` or `listen=HOST:PORT` | external | we listen (default 127.0.0.1 on a free port, given to it as `{port}`) and it connects |
//!
//! A participant with `connect` or `listen` but no `cmd` is a program already running.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use damx_engine::egdb::{self, SharedEgdb};
use damx_engine::{EngineOptions, EvalParams, Limits};
use damx_session::EnginePlayerOptions;
use damx_session::hub::HubPlayerOptions;
use damx_session::referee::{
    Adjudication, AdjudicationMethod, BuiltinPlayer, ClaimPolicy, External, Participant,
    ParticipantKind, Reach, RefereeConfig, StartOptions,
};
use damx_session::tournament::{Format, Opening, SprtConfig, TournamentConfig, shuffled};

use super::hub::program_name;
use super::parse_seconds;
use crate::cmd;
use crate::error::Error;

/// One `--engine` value, read but not yet named.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EngineSpec {
    name: Option<String>,
    kind: ParticipantKind,
}

/// The keys a spec may use, for error messages.
const KEYS: &str = "name, builtin, hub, option.NAME, depth, nodes, movetime, threads, hash, \
                    egdb, eval, weights, seed, cmd, dir, connect, listen";

/// Reads `key=value,key=value,...` (a key alone stands for a flag).
pub(crate) fn parse_engine(text: &str) -> Result<EngineSpec, String> {
    let pairs = text.split(',').map(|item| {
        if let Some(command) = item.trim_start().strip_prefix("hub:") {
            return ("hub".to_owned(), Some(command.trim().to_owned()));
        }
        match item.split_once('=') {
            Some((key, value)) => (key.trim().to_owned(), Some(value.trim().to_owned())),
            None => (item.trim().to_owned(), None),
        }
    });
    let mut builder = SpecBuilder::default();
    for (key, value) in pairs {
        if key.is_empty() {
            continue;
        }
        builder.set(&key, value, None)?;
    }
    builder.finish()
}

/// Reads a JSON array of participant objects.
fn parse_engines_json(text: &str) -> Result<Vec<EngineSpec>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| format!("not JSON: {error}"))?;
    let items = value
        .as_array()
        .ok_or("expected an array of participant objects")?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let object = item
                .as_object()
                .ok_or_else(|| format!("participant {}: expected an object", index + 1))?;
            let mut builder = SpecBuilder::default();
            for (key, value) in object {
                let failed = |message: String| format!("participant {}: {message}", index + 1);
                let (text, words) = match value {
                    serde_json::Value::Bool(true) => (None, None),
                    serde_json::Value::String(text) => (Some(text.clone()), None),
                    serde_json::Value::Number(number) => (Some(number.to_string()), None),
                    serde_json::Value::Array(words) => {
                        let words: Option<Vec<String>> = words
                            .iter()
                            .map(|word| word.as_str().map(str::to_owned))
                            .collect();
                        let words =
                            words.ok_or_else(|| failed(format!("{key}: expected strings")))?;
                        (None, Some(words))
                    }
                    _ => return Err(failed(format!("{key}: unexpected value {value}"))),
                };
                builder.set(key, text, words).map_err(failed)?;
            }
            builder
                .finish()
                .map_err(|e| format!("participant {}: {e}", index + 1))
        })
        .collect()
}

#[derive(Default)]
struct SpecBuilder {
    name: Option<String>,
    builtin: Option<String>,
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<Duration>,
    threads: Option<usize>,
    hash: Option<usize>,
    egdb: Option<PathBuf>,
    eval: Option<EvalParams>,
    seed: Option<u64>,
    cmd: Option<Vec<String>>,
    hub: Option<Vec<String>>,
    hub_params: Vec<(String, String)>,
    dir: Option<PathBuf>,
    reach: Option<Reach>,
}

impl SpecBuilder {
    fn set(
        &mut self,
        key: &str,
        value: Option<String>,
        words: Option<Vec<String>>,
    ) -> Result<(), String> {
        let needs =
            |value: Option<String>| value.ok_or_else(|| format!("{key} needs a value: {key}=..."));
        let number = |value: Option<String>| -> Result<u64, String> {
            let text = needs(value)?;
            text.parse()
                .map_err(|_| format!("{key}: expected a whole number, found {text:?}"))
        };
        match key {
            "name" => {
                let name = needs(value)?;
                if name.is_empty() || name.contains(char::is_whitespace) || name.contains('=') {
                    return Err(format!("name: {name:?} must be one word without '='"));
                }
                self.name = Some(name);
            }
            "builtin" => {
                let kind = value.unwrap_or_else(|| "engine".to_owned());
                if !matches!(kind.as_str(), "engine" | "random" | "first") {
                    return Err(format!(
                        "builtin: expected engine, random or first, found {kind:?}"
                    ));
                }
                self.builtin = Some(kind);
            }
            "depth" => self.depth = Some(number(value)?.clamp(1, 127) as u32),
            "nodes" => self.nodes = Some(number(value)?),
            "movetime" => self.movetime = Some(parse_seconds(&needs(value)?)?),
            "threads" => self.threads = Some(number(value)?.clamp(1, 1024) as usize),
            "hash" => self.hash = Some(number(value)?.clamp(1, 65_536) as usize),
            "egdb" => self.egdb = Some(PathBuf::from(needs(value)?)),
            "eval" => {
                let kind = needs(value)?;
                let eval = match kind.as_str() {
                    "hand" => EvalParams::default(),
                    "pattern" => EvalParams::pattern(),
                    _ => return Err(format!("eval: expected hand or pattern, found {kind:?}")),
                };
                if self.eval.as_ref().is_none_or(|e| e.patterns.is_none()) {
                    self.eval = Some(eval);
                }
            }
            "weights" => {
                let path = needs(value)?;
                let weights =
                    super::parse_weights(&path).map_err(|e| format!("weights: {path}: {e}"))?;
                self.eval = Some(EvalParams::with_patterns(weights));
            }
            "seed" => self.seed = Some(number(value)?),
            "cmd" => {
                let words = match words {
                    Some(words) => words,
                    None => split_words(&needs(value)?)?,
                };
                if words.is_empty() {
                    return Err("cmd: the command is empty".into());
                }
                self.cmd = Some(words);
            }
            "hub" => {
                let words = match words {
                    Some(words) => words,
                    None => split_words(&needs(value)?)?,
                };
                if words.is_empty() {
                    return Err("hub: the command is empty".into());
                }
                self.hub = Some(words);
            }
            "dir" => self.dir = Some(PathBuf::from(needs(value)?)),
            "connect" => {
                let address = needs(value)?;
                check_address(&address)?;
                self.reach = Some(Reach::Connect(address));
            }
            "listen" => {
                let address = match value {
                    None => std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                    Some(text) => text
                        .parse()
                        .map_err(|_| format!("listen: expected IP:PORT, found {text:?}"))?,
                };
                self.reach = Some(Reach::Listen(address));
            }
            _ if key.starts_with("option.") && key.len() > "option.".len() => {
                let name = key["option.".len()..].to_owned();
                self.hub_params.push((name, needs(value)?));
            }
            _ => return Err(format!("unknown key {key:?} (the keys are {KEYS})")),
        }
        Ok(())
    }

    fn finish(self) -> Result<EngineSpec, String> {
        if self.hub.is_none() && !self.hub_params.is_empty() {
            return Err("option.NAME=VALUE is for hub participants".into());
        }
        if let Some(command) = self.hub {
            if self.builtin.is_some() || self.cmd.is_some() || self.reach.is_some() {
                return Err("a hub participant takes no builtin, cmd, connect or listen".into());
            }
            if self.threads.is_some() || self.hash.is_some() || self.seed.is_some() {
                return Err("threads, hash and seed are for builtin players".into());
            }
            let fixed = (self.depth.is_some() || self.nodes.is_some() || self.movetime.is_some())
                .then(|| Limits {
                    depth: self.depth,
                    nodes: self.nodes,
                    move_time: self.movetime,
                    ..Limits::default()
                });
            return Ok(EngineSpec {
                name: self.name,
                kind: ParticipantKind::Builtin(BuiltinPlayer::Hub(Box::new(HubPlayerOptions {
                    command,
                    dir: self.dir,
                    params: self.hub_params,
                    fixed,
                    ..HubPlayerOptions::default()
                }))),
            });
        }
        let external = self.cmd.is_some() || self.dir.is_some() || self.reach.is_some();
        let engine_keys = self.depth.is_some()
            || self.nodes.is_some()
            || self.movetime.is_some()
            || self.threads.is_some()
            || self.hash.is_some()
            || self.egdb.is_some()
            || self.eval.is_some()
            || self.seed.is_some();
        if self.builtin.is_some() && external {
            return Err(
                "a participant is builtin or external (cmd, dir, connect, listen), not both".into(),
            );
        }
        if external {
            if engine_keys {
                return Err(
                    "depth, nodes, movetime, threads, hash, eval, weights and seed are for builtin players".into(),
                );
            }
            let reach = self.reach.ok_or(
                "say how to reach the program: connect=HOST:PORT (it listens; 127.0.0.1:{port} for a free port) or listen (it connects to {port})",
            )?;
            return Ok(EngineSpec {
                name: self.name,
                kind: ParticipantKind::External(External {
                    command: self.cmd.unwrap_or_default(),
                    dir: self.dir,
                    reach,
                }),
            });
        }
        let kind = self.builtin.as_deref().unwrap_or("engine");
        let player = match kind {
            "random" => BuiltinPlayer::Random {
                seed: self.seed.unwrap_or(1),
            },
            "first" => BuiltinPlayer::FirstLegal,
            _ => {
                let fixed = (self.depth.is_some()
                    || self.nodes.is_some()
                    || self.movetime.is_some())
                .then(|| Limits {
                    depth: self.depth,
                    nodes: self.nodes,
                    move_time: self.movetime,
                    ..Limits::default()
                });
                let defaults = EngineOptions::default();
                BuiltinPlayer::Engine(Box::new(EnginePlayerOptions {
                    engine: EngineOptions {
                        threads: self.threads.unwrap_or(defaults.threads),
                        hash_mb: self.hash.unwrap_or(defaults.hash_mb),
                        egdb: cmd::egdb::for_engine(self.egdb.as_deref()),
                        eval: self.eval.unwrap_or(defaults.eval),
                        ..defaults
                    },
                    fixed,
                    ..EnginePlayerOptions::default()
                }))
            }
        };
        Ok(EngineSpec {
            name: self.name,
            kind: ParticipantKind::Builtin(player),
        })
    }
}

/// `HOST:PORT` where the port may be `{port}`.
fn check_address(text: &str) -> Result<(), String> {
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("connect: expected HOST:PORT, found {text:?}"))?;
    let port_ok = port == "{port}" || port.parse::<u16>().is_ok();
    if host.is_empty() || !port_ok {
        return Err(format!(
            "connect: expected HOST:PORT (the port may be {{port}}), found {text:?}"
        ));
    }
    Ok(())
}

/// Splits a command line at blanks; single or double quotes group words.
pub(super) fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(format!("cmd: unbalanced quote in {text:?}"));
    }
    words.extend(word);
    Ok(words)
}

/// Names the specs: the given name, else a default; repeated names get `-2`, `-3`, ...
fn name_participants(specs: Vec<EngineSpec>) -> Vec<Participant> {
    let mut taken: Vec<String> = specs.iter().filter_map(|s| s.name.clone()).collect();
    specs
        .into_iter()
        .map(|spec| {
            let name = spec.name.unwrap_or_else(|| {
                let base = match &spec.kind {
                    ParticipantKind::Builtin(BuiltinPlayer::Engine(_)) => "damx".to_owned(),
                    ParticipantKind::Builtin(BuiltinPlayer::Random { .. }) => "random".to_owned(),
                    ParticipantKind::Builtin(BuiltinPlayer::FirstLegal) => "first".to_owned(),
                    ParticipantKind::Builtin(BuiltinPlayer::Hub(hub)) => program_name(&hub.command),
                    ParticipantKind::External(external) => external
                        .command
                        .first()
                        .and_then(|program| Path::new(program).file_stem())
                        .map(|stem| stem.to_string_lossy().replace(char::is_whitespace, "_"))
                        .unwrap_or_else(|| "program".to_owned()),
                };
                let mut name = base.clone();
                let mut n = 1;
                while taken.contains(&name) {
                    n += 1;
                    name = format!("{base}-{n}");
                }
                taken.push(name.clone());
                name
            });
            Participant {
                name,
                kind: spec.kind,
            }
        })
        .collect()
}

/// The databases of `--adjudicate egdb`, loaded once and shared with the built-in
/// participants that use the same directory; refused when there are none.
fn adjudication_egdb(explicit: Option<&Path>) -> Result<SharedEgdb, Error> {
    let dir = explicit
        .map(Path::to_path_buf)
        .or_else(egdb::default_dir)
        .ok_or_else(|| {
            Error::Invalid(
                "--adjudicate egdb: no endgame database directory (no home directory; give \
                 --adjudicate-egdb DIR)"
                    .to_owned(),
            )
        })?;
    if let Err(error) = std::fs::read_dir(&dir) {
        return Err(Error::Invalid(format!(
            "--adjudicate egdb: cannot read the endgame database directory {}: {error} (build \
             them with `damx egdb build --pieces 4`, or give --adjudicate-egdb DIR)",
            dir.display()
        )));
    }
    cmd::egdb::for_engine(Some(&dir)).ok_or_else(|| {
        Error::Invalid(format!(
            "--adjudicate egdb: no endgame databases in {} (build them with `damx egdb build \
             --pieces 4`, or give --adjudicate-egdb DIR)",
            dir.display()
        ))
    })
}

/// How games are adjudicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum AdjudicateChoice {
    /// The built-in engine's search (--adjudicate-depth, --adjudicate-score)
    Engine,
    /// The endgame rules and the material count (--adjudicate-margin; a king counts 3 men)
    Material,
    /// Always a draw
    Draw,
    /// The endgame databases (--adjudicate-egdb): a game ends as soon as it reaches a quiet position within them; outside them, the engine's search with them
    Egdb,
}

/// How GAMEEND claims (draw, win, no reason) are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ClaimChoice {
    /// Adjudicate the position, as at the move cap
    Adjudicate,
    /// Take a draw or win claim at its word
    Trust,
    /// A claim the rules do not back loses for the claimant
    Strict,
}

/// What `match` and `tournament` share.
#[derive(Debug, Args)]
pub(crate) struct SeriesArgs {
    /// A participant, repeated: builtin[,depth=N,...] or cmd=PROGRAM ARGS,connect=HOST:PORT|listen (see --help)
    #[arg(long = "engine", value_name = "SPEC", value_parser = parse_engine)]
    engines: Vec<EngineSpec>,

    /// Participants from a JSON file: an array of objects with the keys of --engine
    #[arg(long = "engines", value_name = "FILE")]
    engines_file: Option<PathBuf>,

    /// Thinking time per program for the whole game, in minutes (0: no clock)
    #[arg(long, value_name = "M", default_value_t = 5, value_parser = clap::value_parser!(u16).range(0..=999))]
    minutes: u16,

    /// The DXP move limit of the time control, sent in the GAMEREQ (0: none)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=999))]
    moves: u16,

    /// A program that exceeds its time loses (otherwise time is only recorded)
    #[arg(long)]
    time_loss: bool,

    /// Seconds of tolerance before a loss on time
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_seconds)]
    time_margin: Duration,

    /// Seconds a program may take for one move before it forfeits as silent [default: its
    /// remaining time plus 30 s; 60 s without a clock]
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    move_timeout: Option<Duration>,

    /// Seconds to wait for a GAMEACC or a GAMEEND acknowledgement
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    reply_timeout: Duration,

    /// Adjudicate once each side has made this many moves (0: never)
    #[arg(long, value_name = "N", default_value_t = 150)]
    max_moves: u16,

    /// How adjudicated games are decided
    #[arg(long, value_enum, value_name = "HOW", default_value_t = AdjudicateChoice::Engine)]
    adjudicate: AdjudicateChoice,

    /// The depth of the engine's adjudication search
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    adjudicate_depth: u32,

    /// The engine score (centi-men) from which the side ahead is given the win
    #[arg(long, value_name = "CENTI-MEN", default_value_t = 150)]
    adjudicate_score: u32,

    /// The material lead (a man 1, a king 3) that wins a material adjudication
    #[arg(long, value_name = "N", default_value_t = 2)]
    adjudicate_margin: u32,

    /// The endgame database directory of `--adjudicate egdb` [default: $DAMX_EGDB, else the
    /// cache directory's, as for `damx egdb`]
    #[arg(long, value_name = "DIR")]
    adjudicate_egdb: Option<PathBuf>,

    /// How a program's GAMEEND claiming a draw or a win (or giving no reason) is read
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ClaimChoice::Adjudicate)]
    claims: ClaimChoice,

    /// The openings: `ballots` (the built-in balanced ballots, shuffled by --seed), `start`, or
    /// a file of FEN lines or of PDN games (.pdn); each is played twice, colours swapped
    #[arg(long, value_name = "SOURCE", default_value = "ballots")]
    openings: String,

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
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    start_timeout: Duration,

    /// Seconds a program may take to exit when told to stop, before it is killed
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    grace: Duration,

    /// The least gap between two frames sent to a program, in milliseconds (the referee sends
    /// one frame at a time in normal play, so none is needed by default)
    #[arg(long, value_name = "MS", default_value_t = 0)]
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
            let text = std::fs::read_to_string(path).map_err(|e| Error::file("read", path, e))?;
            let more = parse_engines_json(&text)
                .map_err(|message| Error::Usage(format!("{}: {message}", path.display())))?;
            specs.extend(more);
        }
        let openings = match self.openings.as_str() {
            "ballots" => shuffled(Opening::ballots(), self.seed),
            "start" => vec![Opening::initial()],
            file => {
                let path = Path::new(file);
                let text =
                    std::fs::read_to_string(path).map_err(|e| Error::file("read", path, e))?;
                let pdn = path
                    .extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("pdn"));
                Opening::parse(&text, pdn)
                    .map_err(|error| Error::Invalid(format!("{}: {error}", path.display())))?
            }
        };
        let method = match self.adjudicate {
            AdjudicateChoice::Engine => AdjudicationMethod::Engine {
                depth: self.adjudicate_depth,
                threshold: self.adjudicate_score.min(10_000) as i32,
            },
            AdjudicateChoice::Material => AdjudicationMethod::Material {
                margin: self.adjudicate_margin,
            },
            AdjudicateChoice::Draw => AdjudicationMethod::Draw,
            AdjudicateChoice::Egdb => AdjudicationMethod::Egdb {
                egdb: adjudication_egdb(self.adjudicate_egdb.as_deref())?,
                depth: self.adjudicate_depth,
                threshold: self.adjudicate_score.min(10_000) as i32,
            },
        };
        let frame_gap = Duration::from_millis(self.pace);
        let referee = RefereeConfig {
            minutes: self.minutes,
            move_limit: self.moves,
            time_loss: self.time_loss,
            time_margin: self.time_margin,
            move_timeout: self.move_timeout,
            reply_timeout: self.reply_timeout,
            claims: match self.claims {
                ClaimChoice::Adjudicate => ClaimPolicy::Adjudicate,
                ClaimChoice::Trust => ClaimPolicy::Trust,
                ClaimChoice::Strict => ClaimPolicy::Strict,
            },
            adjudication: Adjudication {
                max_moves: (self.max_moves > 0).then_some(self.max_moves),
                method,
            },
            ..RefereeConfig::default()
        };
        let concurrency = self.concurrency.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            |n| n as usize,
        );
        let config = TournamentConfig {
            name: self.event.unwrap_or_else(|| default_event.to_owned()),
            participants: name_participants(specs),
            openings,
            referee,
            start: StartOptions {
                timeout: self.start_timeout,
                grace: self.grace,
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
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "", value_parser = parse_sprt)]
    sprt: Option<SprtConfig>,
}

impl MatchArgs {
    /// The validated configuration.
    pub(crate) fn into_config(self) -> Result<cmd::referee::Config, Error> {
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

/// How a tournament pairs its participants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatChoice {
    /// Everyone against everyone
    RoundRobin,
    /// The first --seeds participants against all the others
    Gauntlet,
}

/// `damx tournament`.
#[derive(Debug, Args)]
pub(crate) struct TournamentArgs {
    #[command(flatten)]
    series: SeriesArgs,

    /// How participants are paired
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = FormatChoice::RoundRobin)]
    format: FormatChoice,

    /// In a gauntlet, how many of the first participants play all the others
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    seeds: u32,

    /// Games per pairing (each opening twice, colours swapped)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
}

impl TournamentArgs {
    /// The validated configuration.
    pub(crate) fn into_config(self) -> Result<cmd::referee::Config, Error> {
        let (mut series, json) = self.series.config("damx tournament")?;
        series.format = match self.format {
            FormatChoice::RoundRobin => Format::RoundRobin,
            FormatChoice::Gauntlet => Format::Gauntlet {
                seeds: self.seeds as usize,
            },
        };
        series.games = Some(self.games);
        validated(series, json)
    }
}

fn validated(series: TournamentConfig, json: bool) -> Result<cmd::referee::Config, Error> {
    series
        .validate()
        .map_err(|error| Error::Usage(error.to_string()))?;
    Ok(cmd::referee::Config { series, json })
}

/// `elo0=0,elo1=10,alpha=0.05,beta=0.05`, any subset, or nothing for the defaults.
fn parse_sprt(text: &str) -> Result<SprtConfig, String> {
    let mut sprt = SprtConfig::default();
    for item in text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, found {item:?}"))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("{key}: expected a number, found {value:?}"))?;
        match key.trim() {
            "elo0" => sprt.elo0 = value,
            "elo1" => sprt.elo1 = value,
            "alpha" => sprt.alpha = value,
            "beta" => sprt.beta = value,
            other => return Err(format!("unknown key {other:?} (elo0, elo1, alpha, beta)")),
        }
    }
    if !(0.0..0.5).contains(&sprt.alpha)
        || !(0.0..0.5).contains(&sprt.beta)
        || sprt.alpha <= 0.0
        || sprt.beta <= 0.0
    {
        return Err("alpha and beta must be between 0 and 0.5".into());
    }
    if sprt.elo1 <= sprt.elo0 {
        return Err("elo1 must be greater than elo0".into());
    }
    Ok(sprt)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `eval=` and `weights=` choose the built-in engine's evaluation; a missing weights file
    /// is refused.
    #[test]
    fn evaluation_keys() {
        let evaluation = |text: &str| match parse_engine(text).map(|spec| spec.kind) {
            Ok(ParticipantKind::Builtin(BuiltinPlayer::Engine(options))) => Ok(options.engine.eval),
            Ok(_) => Err("not an engine".to_string()),
            Err(error) => Err(error),
        };
        assert_eq!(evaluation("builtin"), Ok(EvalParams::default()));
        assert_eq!(
            evaluation("builtin,eval=pattern"),
            Ok(EvalParams::pattern())
        );
        assert!(
            evaluation("builtin,eval=magic")
                .unwrap_err()
                .contains("hand or pattern")
        );
        let error = evaluation("builtin,weights=/nonexistent/w.dxw").unwrap_err();
        assert!(error.contains("cannot read"), "{error}");
        assert!(parse_engine("cmd=x,connect=127.0.0.1:1,eval=pattern").is_err());
    }

    /// Built-in and external specs read into participants; mistakes are named.
    #[test]
    fn engine_specs() {
        let spec = parse_engine("builtin,depth=3,threads=2,name=quick").unwrap();
        assert_eq!(spec.name.as_deref(), Some("quick"));
        let ParticipantKind::Builtin(BuiltinPlayer::Engine(options)) = &spec.kind else {
            panic!("{spec:?}")
        };
        assert_eq!(options.fixed, Some(Limits::depth(3)));
        assert_eq!(options.engine.threads, 2);

        let spec =
            parse_engine("cmd=./scan 'dxp mode' {port},dir=engines/scan,connect=127.0.0.1:{port}")
                .unwrap();
        let ParticipantKind::External(external) = &spec.kind else {
            panic!("{spec:?}")
        };
        assert_eq!(external.command, ["./scan", "dxp mode", "{port}"]);
        assert_eq!(external.reach, Reach::Connect("127.0.0.1:{port}".into()));
        assert_eq!(external.dir, Some(PathBuf::from("engines/scan")));
        assert!(matches!(
            parse_engine("cmd=prog,listen").unwrap().kind,
            ParticipantKind::External(External {
                reach: Reach::Listen(_),
                ..
            })
        ));
        assert!(matches!(
            parse_engine("builtin=random,seed=4").unwrap().kind,
            ParticipantKind::Builtin(BuiltinPlayer::Random { seed: 4 })
        ));

        for (bad, says) in [
            ("cmd=prog", "say how to reach"),
            ("builtin,cmd=prog,listen", "not both"),
            ("colour=red", "unknown key"),
            ("builtin,depth=deep", "whole number"),
            ("cmd=prog,connect=localhost", "HOST:PORT"),
            ("name=two words", "one word"),
        ] {
            let error = parse_engine(bad).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    /// The JSON file takes the same keys, with a command as an array of words.
    #[test]
    fn engines_file() {
        let specs = parse_engines_json(
            r#"[{"name":"scan","cmd":["./scan","dxp, now"],"connect":"127.0.0.1:{port}"},
                {"builtin":true,"depth":2}]"#,
        )
        .unwrap();
        let ParticipantKind::External(external) = &specs[0].kind else {
            panic!()
        };
        assert_eq!(external.command, ["./scan", "dxp, now"]);
        assert!(matches!(specs[1].kind, ParticipantKind::Builtin(_)));
        assert!(parse_engines_json(r#"[{"depth":[1]}]"#).is_err());
    }

    /// Default names come from the kind or the program; repeats are numbered.
    #[test]
    fn default_names() {
        let specs = [
            "builtin",
            "builtin,depth=2",
            "cmd=/opt/moby/mobydam {port},connect=127.0.0.1:{port}",
            "builtin,name=damx-2",
        ]
        .map(|s| parse_engine(s).unwrap())
        .to_vec();
        let names: Vec<String> = name_participants(specs)
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["damx", "damx-3", "mobydam", "damx-2"]);
    }

    /// SPRT options take any subset of their keys.
    #[test]
    fn sprt_options() {
        assert_eq!(parse_sprt(""), Ok(SprtConfig::default()));
        let sprt = parse_sprt("elo0=-2,elo1=3,alpha=0.1").unwrap();
        assert_eq!(
            (sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta),
            (-2.0, 3.0, 0.1, 0.05)
        );
        assert!(parse_sprt("elo0=5,elo1=1").is_err());
        assert!(parse_sprt("alpha=0.7").is_err());
        assert!(parse_sprt("gamma=1").is_err());
    }

    /// `hub:COMMAND` (or `hub=COMMAND`) is a Hub engine bridged in process, with a fixed
    /// strength if asked; keys of other kinds are refused with it.
    #[test]
    fn hub_participants() {
        let spec =
            parse_engine("hub:./scan hub,dir=engines/scan,depth=4,option.book=false").unwrap();
        let ParticipantKind::Builtin(BuiltinPlayer::Hub(options)) = &spec.kind else {
            panic!("{spec:?}");
        };
        assert_eq!(options.command, ["./scan", "hub"]);
        assert_eq!(options.dir, Some(PathBuf::from("engines/scan")));
        assert_eq!(options.fixed, Some(Limits::depth(4)));
        assert_eq!(options.params, [("book".to_owned(), "false".to_owned())]);
        assert!(parse_engine("builtin,option.book=false").is_err());
        let named = name_participants(vec![parse_engine("hub='my engine/scan.exe' hub").unwrap()]);
        assert_eq!(named[0].name, "scan");
        for bad in [
            "hub:",
            "hub:x,threads=2",
            "hub:x,cmd=y",
            "hub:x,builtin",
            "hub:x,listen",
        ] {
            assert!(parse_engine(bad).is_err(), "{bad}");
        }
    }
}
