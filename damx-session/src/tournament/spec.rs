//! Participant and SPRT specs as a user writes them: `--engine` values, a JSON file of
//! participants, `--sprt` options; the one reading of each that every front end shares.
//!
//! A participant is a list of `key=value` pairs separated by commas, in the manner of
//! cutechess-cli, read by [`ParticipantSpec`]'s `FromStr`; or a JSON array of objects with the
//! same keys ([`ParticipantSpec::parse_json_list`]; `cmd` may there be an array of words, and
//! values may contain commas):
//!
//! | key | for | meaning |
//! |---|---|---|
//! | `name=NAME` | all | the name in the event stream and the tables (one word; default: `damx`, `random`, `first`, or the program's file name) |
//! | `builtin` or `builtin=engine\|random\|first` | built-in | the damx engine (default), a random mover, or a first-legal-move player, run in process |
//! | `depth=N`, `nodes=N`, `movetime=S` | built-in engine | a fixed strength instead of the game clock |
//! | `threads=N`, `hash=MB` | built-in engine | its search threads and table size (default 1 and 64) |
//! | `contempt=N` | built-in engine | a draw scores `N` centi-men below zero for it (above for its opponent; default 0, from -100 to 100): positive avoids draws |
//! | `egdb=DIR` or `egdb=off` | built-in engine | its endgame databases (default: the default directory of `damx egdb`, when it holds any) |
//! | `eval=pattern\|hand`, `weights=FILE` | built-in engine | its evaluation: the pattern tables on the hand features (default), with the built-in weights or those of a file from `cargo xtask train fit`, or the hand features alone |
//! | `seed=N` | random mover | its seed |
//! | `hub:PROGRAM ARGS` or `hub=PROGRAM ARGS` | Hub engine | a Hub engine program, bridged to DXP in process (with `dir`, and `depth`, `nodes`, `movetime` for a fixed strength) |
//! | `option.NAME=VALUE` | Hub engine | sent as `set-param name=NAME value=VALUE` before `init` |
//! | `cmd=PROGRAM ARGS` | external | the command line (words split at blanks, quotes group); `{port}` is replaced by a free port |
//! | `dir=PATH` | external | its working directory (a relative program path is taken from it) |
//! | `connect=HOST:PORT` | external | it listens there and we connect (`127.0.0.1:{port}` for a port of its own per copy) |
//! | `listen` or `listen=HOST:PORT` | external | we listen (default 127.0.0.1 on a free port, given to it as `{port}`) and it connects |
//!
//! A participant with `connect` or `listen` but no `cmd` is a program already running.
//! [`name_participants`] gives each spec its tournament name; [`check_name`] holds the rules a
//! name keeps, which [`TournamentConfig::validate`](super::TournamentConfig::validate)
//! applies too.
//!
//! ```
//! use damx_session::tournament::spec::{ParticipantSpec, name_participants};
//! let specs: Vec<ParticipantSpec> = ["builtin,depth=2", "builtin=random"]
//!     .iter()
//!     .map(|text| text.parse().unwrap())
//!     .collect();
//! let names: Vec<String> = name_participants(specs).into_iter().map(|p| p.name).collect();
//! assert_eq!(names, ["damx", "random"]);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use damx_engine::egdb::SharedEgdb;
use damx_engine::pattern::PatternWeights;
use damx_engine::{EngineOptions, EvalKind, EvalParams, Limits};

use super::SprtConfig;
use crate::EnginePlayerOptions;
use crate::hub::HubPlayerOptions;
use crate::referee::{BuiltinPlayer, External, Participant, ParticipantKind, Reach};
use crate::words::Words;

/// A spec that does not read: what is wrong, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

impl From<String> for SpecError {
    fn from(message: String) -> SpecError {
        SpecError(message)
    }
}

impl From<&str> for SpecError {
    fn from(message: &str) -> SpecError {
        SpecError(message.to_owned())
    }
}

/// One participant as written, read but not yet named.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticipantSpec {
    /// The `name=` given, if any ([`name_participants`] fills in the others).
    pub name: Option<String>,
    /// Who plays.
    pub kind: ParticipantKind,
    /// The `egdb=` directory of a built-in engine as given (`off`: none); the databases are
    /// opened by [`ParticipantSpec::with_egdb`], which the front end calls with its loader.
    pub egdb: Option<PathBuf>,
}

/// The keys a spec may use, for error messages.
const KEYS: &str = "name, builtin, hub, option.NAME, depth, nodes, movetime, threads, hash, \
                    contempt, egdb, eval, weights, seed, cmd, dir, connect, listen";

impl FromStr for ParticipantSpec {
    type Err = SpecError;

    /// Reads `key=value,key=value,...` (a key alone stands for a flag).
    fn from_str(text: &str) -> Result<ParticipantSpec, SpecError> {
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
}

impl ParticipantSpec {
    /// Reads a JSON array of participant objects.
    ///
    /// # Errors
    /// A [`SpecError`] naming the participant (from 1) and the key that does not read.
    pub fn parse_json_list(text: &str) -> Result<Vec<ParticipantSpec>, SpecError> {
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
            .collect::<Result<_, String>>()
            .map_err(SpecError)
    }

    /// A built-in engine's endgame databases: `load` gets the `egdb=` directory given (`None`:
    /// not given, so the default) and returns the databases to use. Other participants are
    /// returned unchanged.
    #[must_use]
    pub fn with_egdb(
        mut self,
        load: impl FnOnce(Option<&Path>) -> Option<SharedEgdb>,
    ) -> ParticipantSpec {
        if let ParticipantKind::Builtin(BuiltinPlayer::Engine(options)) = &mut self.kind {
            options.engine.egdb = load(self.egdb.as_deref());
        }
        self
    }
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
    contempt: Option<i32>,
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
                check_name(&name).map_err(|error| format!("name: {error}"))?;
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
            "depth" => {
                self.depth = Some(number(value)?.clamp(1, u64::from(damx_engine::MAX_DEPTH)) as u32)
            }
            "nodes" => self.nodes = Some(number(value)?),
            "movetime" => self.movetime = Some(parse_seconds(&needs(value)?).map_err(|e| e.0)?),
            "threads" => self.threads = Some(number(value)?.clamp(1, 1024) as usize),
            "hash" => self.hash = Some(number(value)?.clamp(1, 65_536) as usize),
            "contempt" => {
                let text = needs(value)?;
                let limit = damx_engine::MAX_CONTEMPT;
                let contempt = text
                    .parse::<i32>()
                    .ok()
                    .filter(|c| (-limit..=limit).contains(c))
                    .ok_or_else(|| {
                        format!("contempt: expected a whole number from -{limit} to {limit}, found {text:?}")
                    })?;
                self.contempt = Some(contempt);
            }
            "egdb" => self.egdb = Some(PathBuf::from(needs(value)?)),
            "eval" => {
                let kind = needs(value)?;
                let words = EvalKind::WORDS.iter();
                let Some(&(.., kind)) = words.clone().find(|(word, ..)| *word == kind) else {
                    return Err(format!("eval: expected hand or pattern, found {kind:?}"));
                };
                let eval = EvalParams::of_kind(kind, None);
                if self.eval.as_ref().is_none_or(|e| e.patterns.is_none()) {
                    self.eval = Some(eval);
                }
            }
            "weights" => {
                let path = needs(value)?;
                let weights = PatternWeights::load(Path::new(&path))
                    .map_err(|e| format!("weights: {path}: {e}"))?;
                self.eval = Some(EvalParams::with_patterns(Arc::new(weights)));
            }
            "seed" => self.seed = Some(number(value)?),
            "cmd" => {
                let words = match words {
                    Some(words) => words,
                    None => split_words(&needs(value)?).map_err(|e| e.0)?,
                };
                if words.is_empty() {
                    return Err("cmd: the command is empty".into());
                }
                self.cmd = Some(words);
            }
            "hub" => {
                let words = match words {
                    Some(words) => words,
                    None => split_words(&needs(value)?).map_err(|e| e.0)?,
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

    fn finish(self) -> Result<ParticipantSpec, SpecError> {
        if self.hub.is_none() && !self.hub_params.is_empty() {
            return Err("option.NAME=VALUE is for hub participants".into());
        }
        if let Some(command) = self.hub {
            if self.builtin.is_some() || self.cmd.is_some() || self.reach.is_some() {
                return Err("a hub participant takes no builtin, cmd, connect or listen".into());
            }
            if self.threads.is_some()
                || self.hash.is_some()
                || self.contempt.is_some()
                || self.seed.is_some()
            {
                return Err("threads, hash, contempt and seed are for builtin players".into());
            }
            let fixed = Limits::fixed(self.depth, self.nodes, self.movetime);
            return Ok(ParticipantSpec {
                name: self.name,
                egdb: None,
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
            || self.contempt.is_some()
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
                    "depth, nodes, movetime, threads, hash, contempt, eval, weights and seed are for builtin players".into(),
                );
            }
            let reach = self.reach.ok_or(
                "say how to reach the program: connect=HOST:PORT (it listens; 127.0.0.1:{port} for a free port) or listen (it connects to {port})",
            )?;
            return Ok(ParticipantSpec {
                name: self.name,
                egdb: None,
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
                let fixed = Limits::fixed(self.depth, self.nodes, self.movetime);
                let defaults = EngineOptions::default();
                BuiltinPlayer::Engine(Box::new(EnginePlayerOptions {
                    engine: EngineOptions {
                        threads: self.threads.unwrap_or(defaults.threads),
                        hash_mb: self.hash.unwrap_or(defaults.hash_mb),
                        eval: self.eval.unwrap_or(defaults.eval),
                        contempt: self.contempt.unwrap_or(defaults.contempt),
                        ..defaults
                    },
                    fixed,
                    ..EnginePlayerOptions::default()
                }))
            }
        };
        Ok(ParticipantSpec {
            name: self.name,
            kind: ParticipantKind::Builtin(player),
            egdb: self.egdb,
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
///
/// # Errors
/// A [`SpecError`] for an unbalanced quote.
pub fn split_words(text: &str) -> Result<Vec<String>, SpecError> {
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
        return Err(format!("cmd: unbalanced quote in {text:?}").into());
    }
    words.extend(word);
    Ok(words)
}

/// Names the specs: the given name, else a default; repeated names get `-2`, `-3`, ...
pub fn name_participants(specs: Vec<ParticipantSpec>) -> Vec<Participant> {
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
                    ParticipantKind::External(external) => {
                        file_stem(&external.command).unwrap_or_else(|| "program".to_owned())
                    }
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

/// The rules a participant's name keeps: one word without `=`, no control character (it is
/// printed in the event stream and the table), and no path separator nor `..` (it names the
/// program's log and transcript files).
///
/// # Errors
/// A [`SpecError`] saying so.
pub fn check_name(name: &str) -> Result<(), SpecError> {
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains('=') {
        return Err(format!("{name:?} must be one word without '='").into());
    }
    if name.contains(char::is_control) {
        return Err(format!("{name:?} must not hold control characters").into());
    }
    if name.contains(['/', '\\']) || name.contains("..") {
        return Err(format!("{name:?} must not hold '/', '\\' or '..' (it names files)").into());
    }
    Ok(())
}

/// Who plays our side of a DXP session (`damx follow --engine`, `initiate --engine`): the
/// damx engine, or a Hub engine program bridged to DXP; read as a participant spec is
/// (`builtin`, or `hub:COMMAND` with `option.NAME=VALUE`, `dir` and a fixed strength).
///
/// ```
/// use damx_session::tournament::spec::LocalPlayer;
/// let LocalPlayer::Hub(hub) = "hub:./bin/scan hub,option.book=false".parse().unwrap() else {
///     panic!("a hub player");
/// };
/// assert_eq!((hub.name.as_str(), hub.params.len()), ("scan", 1));
/// assert_eq!("builtin".parse(), Ok(LocalPlayer::Builtin));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalPlayer {
    /// The damx engine in process, as the session's own options configure it.
    Builtin,
    /// A Hub engine program, named after its file unless the spec says `name=`.
    Hub(Box<HubPlayerOptions>),
}

impl FromStr for LocalPlayer {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<LocalPlayer, SpecError> {
        if text.trim() == "builtin" {
            return Ok(LocalPlayer::Builtin);
        }
        let expected = || SpecError(format!("expected builtin or hub:COMMAND, found {text:?}"));
        let spec: ParticipantSpec = text.parse().map_err(|error| match text.contains("hub") {
            true => error,
            false => expected(),
        })?;
        let ParticipantKind::Builtin(BuiltinPlayer::Hub(mut options)) = spec.kind else {
            return Err(expected());
        };
        let name = spec.name.unwrap_or_else(|| program_name(&options.command));
        options.name = name.chars().take(32).collect();
        Ok(LocalPlayer::Hub(options))
    }
}

impl LocalPlayer {
    /// The Hub player's options, if it is one: named `name` when given, with the `fixed`
    /// limits when its spec gives none.
    pub fn hub_options(
        &self,
        name: Option<&str>,
        fixed: Option<Limits>,
    ) -> Option<HubPlayerOptions> {
        let LocalPlayer::Hub(options) = self else {
            return None;
        };
        let mut options = (**options).clone();
        if let Some(name) = name {
            options.name = name.chars().take(32).collect();
        }
        options.fixed = options.fixed.or(fixed);
        Some(options)
    }
}

/// The file name of a command's program, without its extension, blanks made `_`: `scan` for
/// `./bin/scan.exe hub`; `hub` for an empty command.
pub fn program_name(command: &[String]) -> String {
    file_stem(command)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "hub".to_owned())
}

fn file_stem(command: &[String]) -> Option<String> {
    command
        .first()
        .and_then(|program| Path::new(program).file_stem())
        .map(|stem| stem.to_string_lossy().replace(char::is_whitespace, "_"))
}

/// A number of seconds, more than 0 and at most a billion: `1.5`, `10`.
///
/// # Errors
/// A [`SpecError`] for anything else.
pub fn parse_seconds(text: &str) -> Result<Duration, SpecError> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, found {text:?}"))?;
    if !(seconds > 0.0 && seconds <= 1e9) {
        return Err(
            format!("expected more than 0 seconds and at most 1000000000, found {text:?}").into(),
        );
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A number of seconds as a person writes it ([`parse_seconds`]) and as it is written back,
/// the shortest decimal (`1.5`, `10`): what a front end's seconds options hold, so that their
/// defaults can be shown from the library's own (`Seconds(Timeouts::default().reply)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seconds(pub Duration);

impl FromStr for Seconds {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Seconds, SpecError> {
        parse_seconds(text).map(Seconds)
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// A time limit as a person writes it: a number of seconds ([`parse_seconds`]), or `0` for no
/// limit (`None`); written back the same way, so that a default such as
/// `Limit(Timeouts::default().peer_move)` shows as the user would type it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(pub Option<Duration>);

impl FromStr for Limit {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Limit, SpecError> {
        match text.trim().parse::<f64>() {
            Ok(0.0) => Ok(Limit(None)),
            _ => parse_seconds(text).map(|limit| Limit(Some(limit))),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("0"),
            Some(limit) => Seconds(limit).fmt(f),
        }
    }
}

/// `elo0=0,elo1=10,alpha=0.05,beta=0.05`, any subset, or nothing for the defaults.
impl FromStr for SprtConfig {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<SprtConfig, SpecError> {
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
                other => {
                    return Err(format!("unknown key {other:?} (elo0, elo1, alpha, beta)").into());
                }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_engine(text: &str) -> Result<ParticipantSpec, String> {
        text.parse().map_err(|e: SpecError| e.to_string())
    }

    fn sprt(text: &str) -> Result<SprtConfig, SpecError> {
        text.parse()
    }

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
        assert_eq!(evaluation("builtin,eval=hand"), Ok(EvalParams::tuned()));
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
        let spec = parse_engine("builtin,depth=3,threads=2,contempt=-15,name=quick").unwrap();
        assert_eq!(spec.name.as_deref(), Some("quick"));
        let ParticipantKind::Builtin(BuiltinPlayer::Engine(options)) = &spec.kind else {
            panic!("{spec:?}")
        };
        assert_eq!(options.fixed, Some(Limits::depth(3)));
        assert_eq!(options.engine.threads, 2);
        assert_eq!(options.engine.contempt, -15);

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
            ("builtin,contempt=101", "from -100 to 100"),
            ("cmd=prog,listen,contempt=10", "for builtin players"),
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
        let specs = ParticipantSpec::parse_json_list(
            r#"[{"name":"scan","cmd":["./scan","dxp, now"],"connect":"127.0.0.1:{port}"},
                {"builtin":true,"depth":2}]"#,
        )
        .unwrap();
        let ParticipantKind::External(external) = &specs[0].kind else {
            panic!()
        };
        assert_eq!(external.command, ["./scan", "dxp, now"]);
        assert!(matches!(specs[1].kind, ParticipantKind::Builtin(_)));
        assert!(ParticipantSpec::parse_json_list(r#"[{"depth":[1]}]"#).is_err());
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

    /// A name is one word that can be printed and can name a file: no blank, `=`, control
    /// character, path separator or `..`; from the command line and from a JSON list alike.
    #[test]
    fn names_that_cannot_be_printed_or_name_a_file_are_refused() {
        assert!(check_name("scan-2.0").is_ok());
        for bad in [
            "",
            "a b",
            "a=b",
            "a\u{1b}[31mRED",
            "../outside",
            "a/b",
            "a\\b",
            "x..y",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert!(parse_engine("builtin,name=../outside").is_err());
        let json = r#"[{"builtin":true,"name":"a\u001b[31mRED"}]"#;
        assert!(ParticipantSpec::parse_json_list(json).is_err());
    }

    /// SPRT options take any subset of their keys.
    #[test]
    fn sprt_options() {
        assert_eq!(sprt(""), Ok(SprtConfig::default()));
        let parsed = sprt("elo0=-2,elo1=3,alpha=0.1").unwrap();
        assert_eq!(
            (parsed.elo0, parsed.elo1, parsed.alpha, parsed.beta),
            (-2.0, 3.0, 0.1, 0.05)
        );
        assert!(sprt("elo0=5,elo1=1").is_err());
        assert!(sprt("alpha=0.7").is_err());
        assert!(sprt("gamma=1").is_err());
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

    /// Seconds take decimals; zero, negatives and words are refused.
    #[test]
    fn seconds_parse_with_decimals() {
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_seconds("10"), Ok(Duration::from_secs(10)));
        for bad in ["0", "-1", "soon", "NaN", "inf"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        for text in ["1.5", "10", "0.25", "600"] {
            assert_eq!(text.parse::<Seconds>().unwrap().to_string(), text);
        }
    }

    /// A limit is seconds as [`Seconds`] reads them, or 0 (also `0.0`) for none; negatives and
    /// words are refused, and each reads back as it was written.
    #[test]
    fn limits_are_seconds_or_zero_for_none() {
        assert_eq!("0".parse(), Ok(Limit(None)));
        assert_eq!(" 0.0 ".parse(), Ok(Limit(None)));
        assert_eq!("2.5".parse(), Ok(Limit(Some(Duration::from_millis(2500)))));
        for bad in ["-1", "-0.5", "never", "NaN", ""] {
            assert!(bad.parse::<Limit>().is_err(), "{bad}");
        }
        for text in ["0", "300", "0.25"] {
            assert_eq!(text.parse::<Limit>().unwrap().to_string(), text);
        }
    }

    /// `builtin`, `hub:COMMAND` and `hub=COMMAND` with options; anything else is refused.
    #[test]
    fn local_players() {
        assert_eq!("builtin".parse(), Ok(LocalPlayer::Builtin));
        let hub = |text: &str| match text.parse::<LocalPlayer>() {
            Ok(LocalPlayer::Hub(options)) => Ok((options.command, options.params)),
            Ok(other) => panic!("{other:?}"),
            Err(error) => Err(error),
        };
        assert_eq!(
            hub("hub:./scan hub"),
            Ok((vec!["./scan".into(), "hub".into()], vec![]))
        );
        assert_eq!(
            hub("hub='/opt/my engine/damx' hub,option.skill=5,option.egdb=/db"),
            Ok((
                vec!["/opt/my engine/damx".into(), "hub".into()],
                vec![("skill".into(), "5".into()), ("egdb".into(), "/db".into())]
            ))
        );
        assert!(hub("hub:scan,option.book").is_err());
        assert!(hub("hub:").is_err());
        assert!(hub("scan").is_err());
        assert!(hub("builtin=random").is_err());
        let player: LocalPlayer = "hub:./bin/scan.exe hub".parse().unwrap();
        let options = player.hub_options(None, Limits::fixed(Some(3), None, None));
        assert_eq!(options.as_ref().map(|o| o.name.as_str()), Some("scan"));
        assert_eq!(options.and_then(|o| o.fixed).and_then(|l| l.depth), Some(3));
        let named = player.hub_options(Some("Moby"), None).unwrap();
        assert_eq!(named.name, "Moby");
        assert_eq!(LocalPlayer::Builtin.hub_options(None, None), None);
    }
}
