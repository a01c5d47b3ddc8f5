//! The command line: clap's derive structures, which the value parsers validate and each
//! command runs on, and their methods that build the library configurations. What each
//! command and option does is said once, in the help texts here (`damx --help`,
//! `damx COMMAND --help`).
//!
//! The overview lists the commands in groups by `display_order`, with room left in each group
//! for commands still to come: 10 playing (`play`, `demo`), 20 the engine as a DXP side
//! (`follow`, `initiate`), 30 the referee (`match`, `tournament`), 40 the DXP tools (`proxy`,
//! `decode`, `encode`), 50 the engine's tools (`analyse`, `perft`, `bench`, `egdb`), 60 `hub`.
//! Option groups are flattened into every command that takes them, so that an option means
//! the same everywhere: [`EngineArgs`] and [`EvalArgs`] here, the session groups in module
//! `session`, the series options in module `referee`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Args, Parser, Subcommand};
use damx_engine::egdb::EgdbLocation;
use damx_engine::pattern::PatternWeights;
use damx_engine::{BENCH_DEPTH, BenchOptions, EngineOptions, EvalKind, EvalParams, Limits};
use damx_rules::Position;
use damx_session::tournament::spec::parse_seconds;
use damx_session::words::Words;

use crate::cmd;
use crate::cmd::analyse::Subject;
use crate::input::Source;
use crate::log::{Level, level_from_counts};

mod egdb;
mod hub;
mod referee;
mod session;

pub(crate) use egdb::EgdbArgs;
pub(crate) use hub::HubArgs;
pub(crate) use referee::{MatchArgs, TournamentArgs};
pub(crate) use session::{DemoArgs, FollowArgs, InitiateArgs, PlayArgs, ProxyArgs};

/// The `damx` command line.
#[derive(Debug, Parser)]
#[command(
    name = "damx",
    version,
    about = "Play, debug and benchmark DamExchange (DXP) draughts programs",
    long_about = "Play, debug and benchmark DamExchange (DXP) draughts programs.\n\n\
        DXP is the TCP protocol with which international-draughts (10x10) programs play each \
        other. damx speaks it, checks it and comes with its own engine.",
    after_long_help = EXIT_CODES,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: GlobalArgs,

    #[command(subcommand)]
    pub(crate) command: Command,
}

const EXIT_CODES: &str = "\
Exit codes:
  0    success
  1    invalid input: a message, JSON line, PDN text or move did not parse (each one is named)
  2    usage: the command line is wrong
  3    I/O: a file, standard input or standard output failed
  4    the peer broke the protocol, refused every game, went silent, or the connection
       failed during a game (the games are saved)
  5    network: cannot listen (address in use) or connect (refused, unknown host)
  130  interrupted by Ctrl-C (143: SIGTERM, 129: SIGHUP); the running game was ended with a
       GAMEEND and saved";

/// Options every command takes.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Say more on standard error (-v: what is being done, -vv: debugging details)
    #[arg(short, long, action = ArgAction::Count, global = true, display_order = 100)]
    verbose: u8,

    /// Say less: only errors, no warnings, no progress display
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        display_order = 101
    )]
    quiet: bool,
}

impl GlobalArgs {
    /// The logging level these options choose.
    pub(crate) fn level(&self) -> Level {
        level_from_counts(u8::from(self.quiet), self.verbose)
    }
}

/// The commands, in the order the overview lists them (see the module docs for the plan).
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Play in the terminal against the built-in engine or a DXP program
    #[command(
        display_order = 10,
        after_long_help = PLAY_EXAMPLES,
        mut_arg("minutes", |arg| arg.help(
            "Thinking time per player for the whole game, in minutes (the GAMEREQ's clock; 0: \
             none) [default: 60]"
        )),
        mut_arg("color", |arg| arg.help(
            "The colour you play (the first game's, with alternate); the engine or program \
             gets the other one [default: white]"
        )),
    )]
    Play(PlayArgs),

    /// Watch two built-in engines play a complete DXP game over TCP on 127.0.0.1
    #[command(display_order = 11, after_long_help = DEMO_EXAMPLES)]
    Demo(DemoArgs),

    /// Run the built-in engine as a DXP Follower (listens on 127.0.0.1:27531 by default)
    #[command(display_order = 20, after_long_help = FOLLOW_EXAMPLES)]
    Follow(FollowArgs),

    /// Run the built-in engine as a DXP Initiator (connects to 127.0.0.1:27531 by default)
    #[command(display_order = 21, after_long_help = INITIATE_EXAMPLES)]
    Initiate(InitiateArgs),

    /// Referee a match between two DXP programs: N games, or an SPRT
    #[command(display_order = 30, after_long_help = MATCH_EXAMPLES)]
    Match(MatchArgs),

    /// Referee a round robin or a gauntlet among DXP programs, several games at once
    #[command(display_order = 31, after_long_help = TOURNAMENT_EXAMPLES)]
    Tournament(TournamentArgs),

    /// Relay between two DXP programs, logging every message and flagging what breaks the spec
    #[command(display_order = 40, after_long_help = PROXY_EXAMPLES)]
    Proxy(ProxyArgs),

    /// Turn DXP messages into JSON lines
    #[command(display_order = 41, after_long_help = DECODE_EXAMPLES,
        mut_arg("messages", |arg| arg.conflicts_with("frames")
            .help("DXP messages without their NUL (without any, lines are read from standard input)")),
        mut_arg("frames", |arg| arg
            .help("Read a raw stream of NUL-terminated frames, as sent over TCP, instead of lines")))]
    Decode(ConvertArgs),

    /// Turn JSON lines into DXP messages
    #[command(display_order = 42, after_long_help = ENCODE_EXAMPLES,
        mut_arg("messages", |arg| arg.value_name("JSON")
            .help("Messages as JSON objects (without any, lines are read from standard input)")),
        mut_arg("frames", |arg| arg
            .help("Write each message as a frame ending in a NUL, as sent over TCP, instead of a line")))]
    Encode(ConvertArgs),

    /// Search a position with the built-in engine
    #[command(display_order = 50, alias = "analyze", after_long_help = ANALYSE_EXAMPLES)]
    Analyse(AnalyseArgs),

    /// Count the leaf nodes of the legal-move tree (move generator check and speed)
    #[command(display_order = 51, after_long_help = PERFT_EXAMPLES)]
    Perft(PerftArgs),

    /// Run the engine's fixed benchmark: total nodes (its behaviour signature) and speed
    #[command(display_order = 52, after_long_help = BENCH_EXAMPLES)]
    Bench(BenchArgs),

    /// Build, inspect, probe and verify the endgame databases
    #[command(display_order = 53, after_long_help = egdb::EGDB_EXAMPLES)]
    Egdb(EgdbArgs),
    /// Run the built-in engine for a Hub client (a draughts GUI) on standard input and output
    #[command(display_order = 60, after_long_help = HUB_EXAMPLES)]
    Hub(HubArgs),
}

const HUB_EXAMPLES: &str = "\
Examples:
  damx hub
  damx hub --threads 2 --hash 256 --skill 8

Speaks the Hub protocol (version 2, as Scan 3 and the Hub GUI use it) on standard input and \
output: register `damx hub` as the engine command in a Hub GUI, or drive it from pydraughts \
with HubEngine([\"damx\", \"hub\"]). The options are the first values of the Hub parameters \
threads, hash, contempt, egdb, weights and skill.";

const MATCH_EXAMPLES: &str = "\
Examples:
  damx match --engine builtin,depth=6,name=d6 --engine builtin,depth=4,name=d4 --games 20 --minutes 0
  damx match --engine 'cmd=./scan dxp {port},dir=engines/scan,connect=127.0.0.1:{port}' \\
             --engine builtin --minutes 1 --games 100 --pdn scan.pdn --results scan.jsonl
  damx match --engine builtin,name=new --engine builtin,name=old --sprt elo0=0,elo1=10

A participant (--engine, twice) is `builtin` (the damx engine in process; keys depth, nodes, \
movetime, threads, hash, eval=hand|pattern, weights=FILE; `builtin=random` or `builtin=first` for baselines) or an external \
DXP program: cmd=COMMAND, dir=DIR, and connect=HOST:PORT (it listens) or listen (it connects); \
{port} in the command and address is replaced by a free port. damx is the Initiator towards \
both, checks every move, keeps the clocks and adjudicates. Standard output is the event stream \
(one event a line: GAME, BEGIN, DISQUALIFICATION, RESULT, SCORES, SPRT, END, ...) then the \
table. Ctrl-C once finishes the running games, twice aborts them.";

const TOURNAMENT_EXAMPLES: &str = "\
Examples:
  damx tournament --engine builtin,depth=2 --engine builtin,depth=4 --engine builtin=random \\
                  --minutes 0 --games 4 --max-moves 80
  damx tournament --format gauntlet --engine builtin,name=damx \\
                  --engine 'cmd=moby {port},connect=127.0.0.1:{port}' \\
                  --engine 'cmd=./kingsrow --connect {port},listen' --concurrency 2 --pdn out.pdn
  damx tournament --engines engines.json --results t.jsonl --resume

Each game played at once (--concurrency) has its own copy of the programs: use {port} for \
external programs. See `damx match --help` for participants and the event stream.";

const PLAY_EXAMPLES: &str = "\
Examples:
  damx play
  damx play --color black --time 3
  damx play --connect 127.0.0.1:27531 --minutes 10
  damx play --listen 127.0.0.1:27531 --role follower

Against the built-in engine (the default) the game is a real DXP game over 127.0.0.1. Type \
moves as 32-28, 28x19 or a capture's landing path (27x38x49); a text that fits several \
captures lists them and asks which. Commands: moves, board, undo, chat TEXT, resign, draw \
(ends the game claiming a draw: DXP has no draw offer), quit, and yes/no to the opponent's \
take-back request; `help` lists them. --color, --games, --minutes, --moves and --start say what \
we ask for as Initiator. Games are saved in games/ unless --pdn says otherwise. \
The built-in engine takes 1 second a move unless --depth or --time says otherwise; your DXP \
name is your user name unless --name says otherwise.";

const PROXY_EXAMPLES: &str = "\
Examples:
  damx proxy --listen 127.0.0.1:27530 --connect 127.0.0.1:27531
  damx proxy --listen 127.0.0.1:27530 --connect 127.0.0.1:27531 --json > dxp-log.jsonl

Point the Initiator (A) at the --listen address; the proxy then connects to the program at \
--connect (B) and forwards every byte both ways unchanged, at once. Each frame is one log \
line: seconds since A connected, its direction (A>B or B>A), its text and what it means in the \
game; a line starting with !! flags what breaks the spec (a bad frame, a message out of turn \
or out of state, an illegal move, a missing GAMEEND acknowledgement). The exit code is 4 if \
anything was flagged.";

const DEMO_EXAMPLES: &str = "\
Examples:
  damx demo
  damx demo --time 1 --board 1
  damx demo --games 2 --depth 6 --pdn demo.pdn --transcript demo.jsonl

Two engines play over a real DXP connection on 127.0.0.1: one is the Initiator, the other the \
Follower on a free port. Each move is one line; the board and both clocks come every --board \
moves (10 unless --board says otherwise). Each engine takes 0.2 seconds a move unless --depth, \
--time or --minutes says otherwise. Games are saved in games/ (one PDN file a game) unless \
--pdn says otherwise. Ctrl-C ends the game properly and saves it; a second Ctrl-C aborts.";

const FOLLOW_EXAMPLES: &str = "\
Examples:
  damx follow
  damx follow --listen 0.0.0.0:27531 --max-connections 4 --pdn games/
  damx follow --connect 192.168.1.20:27531 --threads 2 --games 10 --json
  damx follow --depth 8 --transcript dxp.jsonl -v

Plays by the game clock of each GAMEREQ (a request without a clock: 1 s a move) unless \
--depth or --time fixes the strength. Each move is one line (with the board at -v or \
--board). With --transcript, each connection writes its own file (dxp-1.jsonl, dxp-2.jsonl, \
... when listening). Ctrl-C ends the running games properly (GAMEEND with stop code 1 on our \
turn) and saves them; a second Ctrl-C aborts.";

const INITIATE_EXAMPLES: &str = "\
Examples:
  damx initiate --games 2 --minutes 1
  damx initiate --connect 127.0.0.1:27532 --games 20 --ballots --pdn match.pdn
  damx initiate --listen 127.0.0.1:27531 --color black --start 'B:W31-50:B1-20'
  damx initiate --openings openings.pdn --games 10 --moves 75 --time 0.5

Ctrl-C ends the running game properly and saves it.";

const DECODE_EXAMPLES: &str = "\
Examples:
  damx decode M0012061100 'R01Tornado voor Windows 4.0        W060065A'
  printf 'E00\\nK1\\n' | damx decode
  damx decode --frames --file capture.bin

Each valid message becomes one JSON line on standard output; each invalid one is named on \
standard error (where it came from, its text, the message kind, the byte offset and what was \
wrong) and the exit code is 1. The valid ones are converted all the same.";

const ENCODE_EXAMPLES: &str = "\
Examples:
  damx encode '{\"type\":\"move\",\"seconds\":12,\"from\":6,\"to\":11,\"captured\":[]}'
  damx decode < messages.txt | damx encode
  damx encode --frames < messages.jsonl | nc 127.0.0.1 27531

The JSON shape is the one `damx decode` writes. Each valid line becomes one DXP message on \
standard output; each invalid one is named on standard error and the exit code is 1.";

const ANALYSE_EXAMPLES: &str = "\
Examples:
  damx analyse startpos --depth 12
  damx analyse 'W:W27,28,32,37,38:B12,13,14,17,19' --time 5 --threads 2
  damx analyse game.pdn --game 2 --ply 30 --json

One line is printed per completed depth; the last line is the best move.";

const PERFT_EXAMPLES: &str = "\
Examples:
  damx perft startpos 7
  damx perft 'W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38' 8 --divide
  damx perft startpos 10 --threads 2
  damx perft startpos 9 --json";

const BENCH_EXAMPLES: &str = "\
Examples:
  damx bench
  damx bench --depth 10 --threads 2 --json

The total node count is the engine's behaviour signature: it changes exactly when the search \
or the evaluation does (with one thread; several threads make it vary from run to run).";

/// `damx decode` and `damx encode`: the items to convert, and frames instead of lines. The
/// command sets the help of MESSAGE and `--frames`, which mean the one or the other.
#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The items (without any, lines are read from standard input or --file)
    #[arg(value_name = "MESSAGE", conflicts_with = "file")]
    messages: Vec<OsString>,

    /// Read from this file instead of standard input ("-" is standard input)
    #[arg(short, long, value_name = "PATH")]
    file: Option<PathBuf>,

    /// Frames ending in a NUL, as sent over TCP, instead of lines
    #[arg(long)]
    pub(crate) frames: bool,
}

impl ConvertArgs {
    /// Where the items come from.
    pub(crate) fn source(self) -> Source {
        Source::choose(self.messages, self.file)
    }
}

/// `damx perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// The position: a FEN such as "W:W31-50:B1-20", or "startpos"
    #[arg(value_parser = Position::from_fen_or_startpos)]
    pub(crate) position: Position,

    /// How many plies deep to count
    #[arg(value_parser = clap::value_parser!(u32).range(0..=64))]
    pub(crate) depth: u32,

    /// Also print the count below each legal move
    #[arg(long)]
    pub(crate) divide: bool,

    /// Count on N threads (the tree is split into subtrees counted at once)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(crate) threads: u16,

    /// Print one JSON object instead of text
    #[arg(long)]
    pub(crate) json: bool,
}

/// The built-in engine's settings, shared by every command that runs it.
#[derive(Debug, Args)]
pub(crate) struct EngineArgs {
    /// Search threads
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,

    /// Transposition table size in MiB
    #[arg(
        long,
        value_name = "MB",
        default_value_t = EngineOptions::default().hash_mb as u32,
        value_parser = clap::value_parser!(u32).range(1..=65536)
    )]
    hash: u32,

    /// Score a draw N centi-men below zero for the engine (above for its opponent): positive
    /// avoids draws, against a weaker opponent; negative seeks them
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true,
        value_parser = clap::value_parser!(i32).range(-(damx_engine::MAX_CONTEMPT as i64)..=damx_engine::MAX_CONTEMPT as i64))]
    contempt: i32,

    /// Endgame databases to use ("off": none) [default: $DAMX_EGDB, else damx/egdb in the
    /// user's cache directory, when it holds any; see `damx egdb`]
    #[arg(long, value_name = "DIR")]
    egdb: Option<EgdbLocation>,

    #[command(flatten)]
    eval: EvalArgs,
}

impl EngineArgs {
    /// The engine options (the databases are loaded here, once per directory).
    pub(crate) fn options(&self) -> EngineOptions {
        EngineOptions {
            egdb: cmd::egdb::load(&self.egdb.clone().unwrap_or_default()),
            ..self.options_without_egdb()
        }
    }

    /// The engine options without the databases, for a front end that opens them later.
    pub(crate) fn options_without_egdb(&self) -> EngineOptions {
        EngineOptions {
            threads: usize::from(self.threads),
            hash_mb: self.hash as usize,
            eval: self.eval.params(),
            contempt: self.contempt,
            ..EngineOptions::default()
        }
    }

    /// The database directory the options name: `--egdb DIR`, or the default directory when it
    /// exists; `None` for `--egdb off`.
    pub(crate) fn egdb_dir(&self) -> Option<PathBuf> {
        self.egdb.clone().unwrap_or_default().dir()
    }
}

/// Which evaluation the built-in engine uses, for every command that runs it.
#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// The evaluation: pattern (region tables fitted to game results on top of the hand-written
    /// features, with the built-in weights unless --weights is given) or hand (the hand-written
    /// features alone)
    #[arg(long, value_name = "KIND", default_value = EvalKind::default().word(), value_parser = words::<EvalKind>())]
    eval: EvalKind,

    /// Pattern weights file (written by `cargo xtask train fit`); implies --eval pattern. A
    /// truncated or damaged file, or one of another format version, is refused
    #[arg(long, value_name = "FILE", value_parser = parse_weights)]
    weights: Option<Arc<PatternWeights>>,
}

impl EvalArgs {
    /// The evaluation weights.
    pub(crate) fn params(&self) -> EvalParams {
        EvalParams::of_kind(self.eval, self.weights.clone())
    }
}

/// The values of an option read by `T`'s [`Words`], each listed in the help with its meaning.
pub(crate) fn words<T: Words + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::WORDS
        .iter()
        .map(|&(word, meaning, _)| PossibleValue::new(word).help(meaning));
    PossibleValuesParser::new(values).try_map(|word| T::from_word(&word).ok_or("not a listed word"))
}

/// Reads a pattern weights file.
pub(crate) fn parse_weights(path: &str) -> Result<Arc<PatternWeights>, String> {
    PatternWeights::load(Path::new(path))
        .map(Arc::new)
        .map_err(|error| error.to_string())
}

/// `damx analyse`.
#[derive(Debug, Args)]
pub(crate) struct AnalyseArgs {
    /// A FEN, "startpos", or a PDN file ("-" reads PDN from standard input)
    #[arg(value_name = "POSITION", value_parser = parse_subject)]
    pub(crate) subject: Subject,

    /// The game of the PDN file to take (1 is the first)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) game: u32,

    /// Take the position after this many plies of the game instead of the last one
    #[arg(long, value_name = "PLIES")]
    pub(crate) ply: Option<usize>,

    /// Search this many plies deep
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(damx_engine::MAX_DEPTH)))]
    depth: Option<u32>,

    /// Search for this many seconds (decimals allowed) [default without --depth or --nodes: 10]
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    time: Option<Duration>,

    /// Stop after about this many nodes
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,

    #[command(flatten)]
    pub(crate) engine: EngineArgs,

    /// Print JSON lines instead of text
    #[arg(long)]
    pub(crate) json: bool,
}

/// The time `analyse` searches when no limit is given.
const DEFAULT_ANALYSIS_TIME: Duration = Duration::from_secs(10);

impl AnalyseArgs {
    /// When the search stops.
    pub(crate) fn limits(&self) -> Limits {
        let default = Some(DEFAULT_ANALYSIS_TIME);
        Limits::fixed_or(self.depth, self.nodes, self.time, default).unwrap_or_default()
    }
}

/// `damx bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Search each benchmark position this many plies deep
    #[arg(
        long,
        value_name = "N",
        default_value_t = BENCH_DEPTH,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(damx_engine::MAX_DEPTH))
    )]
    depth: u32,

    /// Search threads (the node count is a signature with one only)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,

    /// Transposition table size in MiB
    #[arg(
        long,
        value_name = "MB",
        default_value_t = BenchOptions::default().hash_mb as u32,
        value_parser = clap::value_parser!(u32).range(1..=65536)
    )]
    hash: u32,

    #[command(flatten)]
    pub(crate) eval: EvalArgs,

    /// Print one JSON object instead of text
    #[arg(long)]
    pub(crate) json: bool,
}

impl BenchArgs {
    /// The engine's bench settings.
    pub(crate) fn options(&self) -> BenchOptions {
        BenchOptions {
            depth: self.depth,
            threads: usize::from(self.threads),
            hash_mb: self.hash as usize,
        }
    }
}

/// `startpos` or a FEN ([`Position::names_a_position`]), else a PDN file's path.
fn parse_subject(text: &str) -> Result<Subject, damx_rules::FenError> {
    if Position::names_a_position(text) {
        Position::from_fen_or_startpos(text).map(Subject::Position)
    } else {
        Ok(Subject::Pdn(PathBuf::from(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// clap's own consistency checks over every command and option.
    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `--move-timeout 0` is no limit, as its help says; without it the library's default holds.
    #[test]
    fn a_move_timeout_of_0_is_no_limit() {
        let peer_move = |options: &str| {
            let line = format!("damx follow --egdb off {options}");
            let cli = Cli::try_parse_from(line.split_whitespace()).unwrap();
            let Command::Follow(args) = cli.command else {
                panic!("not follow")
            };
            args.side().session.timeouts.peer_move
        };
        assert_eq!(peer_move("--move-timeout 0"), None);
        assert_eq!(peer_move("--move-timeout 2"), Some(Duration::from_secs(2)));
        let default = damx_session::Timeouts::default().peer_move;
        assert_eq!(peer_move(""), default);
        assert!(Cli::try_parse_from(["damx", "follow", "--move-timeout", "-1"]).is_err());
    }

    /// `--weights` takes a pattern weights file and refuses a damaged one, saying why (each
    /// kind of damage, and the evaluation each kind and file choose: damx-engine's tests);
    /// `--eval`'s default is the engine's default evaluation.
    #[test]
    fn weights_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("damx-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = PatternWeights::builtin().to_bytes();
        let bench = |bytes: &[u8]| {
            let path = dir.join("weights.dxw");
            std::fs::write(&path, bytes).unwrap();
            Cli::try_parse_from(["damx", "bench", "--weights", path.to_str().unwrap()])
        };
        assert!(bench(&good).is_ok());
        let damaged = [&good[..good.len() - 1], &[good[good.len() - 1] ^ 1]].concat();
        let error = bench(&damaged).unwrap_err().to_string();
        assert!(error.contains("checksum"), "{error}");
        let default = Cli::try_parse_from(["damx", "bench"]).unwrap();
        let Command::Bench(args) = default.command else {
            panic!("not bench")
        };
        assert_eq!(args.eval.params(), EvalParams::default());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
