//! The options of the session commands (`follow`, `initiate`, `demo`, `play`, `proxy`) and
//! their conversion into the configurations of damx-session.
//!
//! The groups are flattened into each command that needs them, so that an option means the
//! same everywhere: [`PeerArgs`] (where the other program is), [`DxpArgs`] (our side of the
//! dialogue), [`RecordArgs`] (PDN and transcript), [`StrengthArgs`] (a fixed depth or time per
//! move instead of the game clock) and [`ShowArgs`] (boards and JSON).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use damx_engine::Limits;
use damx_rules::{Color, Position};
use damx_session::render::RenderOptions;
use damx_session::{
    EnginePlayerOptions, FollowerConfig, PdnTarget, RecordOptions, Role, SeriesColors, SeriesPlan,
    ServerConfig, SessionConfig, Timeouts,
};

use super::{EngineArgs, words};
use crate::error::Error;
use crate::session::Side;
use damx_session::seat::Opponent;
use damx_session::tournament::OpeningSource;
use damx_session::tournament::spec::{Limit, LocalPlayer, Seconds, parse_seconds};
use damx_session::{Address, Endpoint, hash_per_session};

/// Where the other program is: we listen for it, or we connect to it.
#[derive(Debug, Args)]
pub(crate) struct PeerArgs {
    /// Listen on this address (HOST:PORT; an IPv6 address goes in brackets; port 0 picks a free one)
    #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
    listen: Option<Address>,

    /// Connect to the program listening on this address (HOST:PORT)
    #[arg(long, value_name = "ADDR")]
    connect: Option<Address>,
}

impl PeerArgs {
    /// The peer ([`Endpoint::given_or_default`]).
    fn peer(&self, listen_by_default: bool) -> Endpoint {
        let (listen, connect) = (self.listen.clone(), self.connect.clone());
        Endpoint::given_or_default(listen, connect, listen_by_default)
    }

    /// The peer if one was given.
    fn given(&self) -> Option<Endpoint> {
        (self.listen.is_some() || self.connect.is_some()).then(|| self.peer(true))
    }
}

/// How fast we write: `demo`, and every command with [`DxpArgs`].
#[derive(Debug, Args)]
pub(crate) struct PaceArgs {
    /// The least gap between two frames we send, in milliseconds (some clients lose a frame
    /// that arrives together with another; at most 10000)
    #[arg(long, value_name = "MS", default_value_t = SessionConfig::default().frame_gap.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pace: u64,
}

/// A name as DXP carries it: refused, not cut, when it does not fit.
fn dxp_name(text: &str) -> Result<String, String> {
    damx_wire::Name::new(text)
        .map(|_| text.to_owned())
        .map_err(|error| error.to_string())
}

/// Our side of the DXP dialogue.
#[derive(Debug, Args)]
pub(crate) struct DxpArgs {
    /// Our DXP name (at most 32 characters of printable ASCII)
    #[arg(long, value_name = "NAME", value_parser = dxp_name)]
    name: Option<String>,

    #[command(flatten)]
    pace: PaceArgs,

    /// Seconds to wait for an answer the peer owes at once (GAMEACC, the GAMEEND
    /// acknowledgement, BACKACC)
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().reply))]
    reply_timeout: Seconds,

    /// Seconds to wait for the peer's move in a game without a clock (0: no limit; with a
    /// clock the peer has its time plus 5 s)
    #[arg(long, value_name = "SECONDS", default_value_t = Limit(Timeouts::default().peer_move))]
    move_timeout: Limit,
}

impl DxpArgs {
    /// Applies these options to `config`.
    fn apply(&self, config: &mut SessionConfig) {
        config.name = self.name.clone();
        config.frame_gap = Duration::from_millis(self.pace.pace);
        config.timeouts.reply = self.reply_timeout.0;
        config.timeouts.peer_move = self.move_timeout.0;
    }
}

/// Where the games and the conversation are written.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// Save each game as PDN: a file ending in .pdn gets every game appended, anything else is
    /// a directory with one file per game
    #[arg(long, value_name = "PATH")]
    pdn: Option<PathBuf>,

    /// Log every frame in and out as JSON lines to this file (appended)
    #[arg(long, value_name = "FILE")]
    transcript: Option<PathBuf>,
}

impl RecordArgs {
    /// The record options, with `default_pdn` when no `--pdn` is given.
    fn records(&self, default_pdn: Option<&str>) -> RecordOptions {
        let pdn = self
            .pdn
            .clone()
            .or_else(|| default_pdn.map(PathBuf::from))
            .map(PdnTarget::from);
        RecordOptions {
            pdn,
            transcript: self.transcript.clone(),
            event: None,
        }
    }
}

/// A fixed strength instead of the game clock.
#[derive(Debug, Args)]
pub(crate) struct StrengthArgs {
    /// Search each move this many plies deep instead of playing by the clock
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(damx_engine::MAX_DEPTH)))]
    depth: Option<u32>,

    /// Search each move for this many seconds (decimals allowed) instead of playing by the clock
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    time: Option<Duration>,
}

impl StrengthArgs {
    /// The fixed limits, if any; `default` a move when none is given.
    fn limits(&self, default: Option<Duration>) -> Option<Limits> {
        Limits::fixed_or(self.depth, None, self.time, default)
    }
}

/// How games are shown.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Draw the board after every N-th move (plies); alone, after every move
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        default_missing_value = "1",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    board: Option<u32>,

    /// Print the events as JSON lines instead of text
    #[arg(long)]
    json: bool,
}

impl ShowArgs {
    /// The display options; `default_board` when no `--board` is given (without either, `-v`
    /// draws a board after every move).
    fn show(&self, default_board: Option<u32>) -> RenderOptions {
        RenderOptions {
            json: self.json,
            board_every: self.board.or(default_board).map(|n| n as usize),
            numbered: false,
            movetext: false,
            detail: crate::log::level(),
        }
    }
}

/// The engine player for `engine` options and `fixed` limits.
fn engine_player(name: &str, engine: &EngineArgs, fixed: Option<Limits>) -> EnginePlayerOptions {
    EnginePlayerOptions {
        name: name.to_owned(),
        engine: engine.options(),
        fixed,
        ..EnginePlayerOptions::default()
    }
}

/// Our side in `follow` and `initiate`: who plays, the engine and its strength, the DXP
/// options, the records and the display.
#[derive(Debug, Args)]
pub(crate) struct SideArgs {
    /// Who plays: builtin (the damx engine) or hub:COMMAND (a Hub engine program, bridged to
    /// DXP; add ,option.NAME=VALUE to set its parameters)
    #[arg(long = "engine", value_name = "SPEC", default_value = "builtin")]
    player: LocalPlayer,

    #[command(flatten)]
    engine: EngineArgs,

    #[command(flatten)]
    strength: StrengthArgs,

    #[command(flatten)]
    dxp: DxpArgs,

    #[command(flatten)]
    records: RecordArgs,

    #[command(flatten)]
    show: ShowArgs,
}

impl SideArgs {
    /// Our side towards `peer`: `session` with the DXP and record options applied, the
    /// players and the display.
    fn side(&self, peer: Endpoint, mut session: SessionConfig) -> Side {
        self.dxp.apply(&mut session);
        session.records = self.records.records(None);
        let name = self.dxp.name.as_deref().unwrap_or("damx");
        Side {
            peer,
            session,
            hub: self
                .player
                .hub_options(self.dxp.name.as_deref(), self.strength.limits(None)),
            player: engine_player(name, &self.engine, self.strength.limits(None)),
            show: self.show.show(None),
        }
    }
}

// ---- follow ---------------------------------------------------------------------------------

/// `damx follow`.
#[derive(Debug, Args)]
pub(crate) struct FollowArgs {
    #[command(flatten)]
    peer: PeerArgs,

    /// How many connections to serve at once when listening (more are told so and closed)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    max_connections: u32,

    /// Stop after this many games in all
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,

    /// Refuse every game (GAMEACC code 3): a peer that only talks
    #[arg(long)]
    refuse_all: bool,

    /// Refuse games with less thinking time than this many minutes (GAMEACC code 2); a
    /// request without a clock (000) is refused too
    #[arg(long, value_name = "MINUTES")]
    min_minutes: Option<u16>,

    /// Seconds to wait for the next game request after a game before closing a connection
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().idle))]
    idle_timeout: Seconds,

    /// Seconds to wait for the first game request of a new connection (real programs send it
    /// at once)
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().first_request))]
    first_request_timeout: Seconds,

    /// Refuse games of more than this many minutes each (GAMEACC code 2): a silent peer holds
    /// a connection at most its clock plus 5 s
    #[arg(long, value_name = "MINUTES", default_value_t = damx_session::DEFAULT_MAX_MINUTES,
          value_parser = clap::value_parser!(u16).range(1..=999))]
    max_minutes: u16,

    #[command(flatten)]
    side: SideArgs,
}

impl FollowArgs {
    /// Refuses options that contradict each other: a least clock above the greatest would
    /// refuse every game.
    pub(crate) fn check(&self) -> Result<(), Error> {
        match self.min_minutes {
            Some(min) if min > self.max_minutes => Err(Error::Usage(format!(
                "--min-minutes {min} is more than --max-minutes {}: every game would be refused",
                self.max_minutes
            ))),
            _ => Ok(()),
        }
    }

    /// Our side: the Follower's session, the players and the display. Listening, `--hash` is
    /// the total for all the games at once ([`hash_per_session`]).
    pub(crate) fn side(&self) -> Side {
        let mut session = SessionConfig::follower(FollowerConfig {
            accept_games: !self.refuse_all,
            max_games: self.games,
            filter: self.min_minutes.map(damx_session::config::min_minutes),
            max_minutes: self.max_minutes,
        });
        session.timeouts.idle = self.idle_timeout.0;
        session.timeouts.first_request = self.first_request_timeout.0;
        let mut side = self.side.side(self.peer.peer(true), session);
        if let Endpoint::Listen(_) = side.peer {
            let hash = &mut side.player.engine.hash_mb;
            *hash = hash_per_session(*hash, self.max_connections as usize);
        }
        side
    }

    /// The server of a listening Follower: our side's sessions, `--max-connections` at once and
    /// `--games` in all.
    pub(crate) fn server(&self, side: &Side) -> ServerConfig {
        ServerConfig {
            session: side.session.clone(),
            max_sessions: self.max_connections as usize,
            max_games: self.games,
        }
    }
}

/// The games we ask for as Initiator: `initiate`, `demo`, and `play` (as Initiator).
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    /// How many games to ask for
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10000))]
    games: u32,

    /// Thinking time per player for the whole game, in minutes (the GAMEREQ's clock; 0: none,
    /// which some programs ignore) [default: 5]
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u16).range(0..=999))]
    minutes: Option<u16>,

    /// Number of moves for the game, each side (0: no limit); either side may end the game there
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=999))]
    moves: u16,

    /// The colour the Initiator plays (the first game's, with alternate); the Follower gets the
    /// other one [default: alternate]
    #[arg(long, value_parser = words::<SeriesColors>())]
    color: Option<SeriesColors>,
}

impl PlanArgs {
    /// The plan, with the command's own clock and colour when none is given.
    fn plan(&self, minutes: u16, colors: SeriesColors) -> SeriesPlan {
        SeriesPlan {
            games: self.games,
            minutes: self.minutes.unwrap_or(minutes),
            move_limit: self.moves,
            colors: self.color.unwrap_or(colors),
        }
    }
}

// ---- initiate -------------------------------------------------------------------------------

/// `damx initiate`.
#[derive(Debug, Args)]
pub(crate) struct InitiateArgs {
    #[command(flatten)]
    peer: PeerArgs,

    #[command(flatten)]
    plan: PlanArgs,

    /// Start every game from this position (a FEN) instead of the normal start
    #[arg(long, value_name = "FEN", value_parser = Position::from_fen_or_startpos, conflicts_with_all = ["openings", "ballots"])]
    start: Option<Position>,

    /// Start the games from the positions of this file: FENs one a line, or PDN games (the
    /// position after each game's moves); each is played twice with colours swapped
    #[arg(long, value_name = "FILE", conflicts_with = "ballots")]
    openings: Option<PathBuf>,

    /// Start the games from the engine's built-in balanced openings, each played twice with
    /// colours swapped
    #[arg(long)]
    ballots: bool,

    #[command(flatten)]
    side: SideArgs,
}

impl InitiateArgs {
    /// Our side: the Initiator's session (its plan is made by the command), the players and
    /// the display.
    pub(crate) fn side(&self) -> Side {
        let session = SessionConfig::initiator(Default::default());
        self.side.side(self.peer.peer(false), session)
    }

    /// The games to ask for.
    pub(crate) fn plan(&self) -> SeriesPlan {
        self.plan.plan(5, SeriesColors::Alternate(Color::White))
    }

    /// Where the games start; `None`: the normal start (an openings file is read by the
    /// command).
    pub(crate) fn openings(&self) -> Option<OpeningSource> {
        match (self.start, &self.openings, self.ballots) {
            (Some(position), _, _) => Some(OpeningSource::Position(position)),
            (None, Some(path), _) => Some(OpeningSource::File(path.clone())),
            (None, None, true) => Some(OpeningSource::Ballots),
            (None, None, false) => None,
        }
    }
}

// ---- demo -----------------------------------------------------------------------------------

/// Where `demo` and `play` save their games when no `--pdn` is given.
const DEFAULT_PDN: &str = "games";

/// The time a move of the demo takes when nothing else is asked for.
const DEMO_MOVE_TIME: Duration = Duration::from_millis(200);

/// `damx demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    #[command(flatten)]
    plan: PlanArgs,

    #[command(flatten)]
    strength: StrengthArgs,

    #[command(flatten)]
    engine: EngineArgs,

    #[command(flatten)]
    pace: PaceArgs,

    #[command(flatten)]
    records: RecordArgs,

    #[command(flatten)]
    show: ShowArgs,
}

impl DemoArgs {
    /// The games the Initiator asks for. Without a clock of its own the demo still sends one:
    /// some programs ignore a request without it, and the fixed time a move stays far within it.
    pub(crate) fn plan(&self) -> SeriesPlan {
        self.plan.plan(5, SeriesColors::Alternate(Color::White))
    }

    /// The engine called `name`: a fixed strength with `--depth` or `--time`, else by the clock
    /// with `--minutes`, else a fixed time a move.
    pub(crate) fn player(&self, name: &str) -> EnginePlayerOptions {
        let default = self.plan.minutes.is_none().then_some(DEMO_MOVE_TIME);
        engine_player(name, &self.engine, self.strength.limits(default))
    }

    /// The Initiator's session (the Follower writes no records: one record a game).
    pub(crate) fn session(&self) -> SessionConfig {
        let mut session = SessionConfig::initiator(Default::default());
        session.role = self.plan().role(&[]);
        session.frame_gap = Duration::from_millis(self.pace.pace);
        session.records = self.records.records(Some(DEFAULT_PDN));
        session.records.event = Some("damx demo".to_owned());
        session
    }

    /// How the games are shown: a board every 10 moves, and the moves at the end.
    pub(crate) fn show(&self) -> RenderOptions {
        RenderOptions {
            movetext: true,
            ..self.show.show(Some(10))
        }
    }
}
// ---- play -----------------------------------------------------------------------------------

/// `damx play`.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    #[command(flatten)]
    peer: PeerArgs,

    /// Our role against another program (against the built-in engine we ask for the game)
    #[arg(long, default_value_t = Role::Initiator, value_parser = words::<Role>())]
    role: Role,

    #[command(flatten)]
    plan: PlanArgs,

    /// Start from this position (a FEN; as Initiator) instead of the normal start
    #[arg(long, value_name = "FEN", value_parser = Position::from_fen_or_startpos)]
    start: Option<Position>,

    #[command(flatten)]
    strength: StrengthArgs,

    #[command(flatten)]
    engine: EngineArgs,

    #[command(flatten)]
    dxp: DxpArgs,

    #[command(flatten)]
    records: RecordArgs,
}

/// The time a move of the built-in engine takes in `play` when nothing else is asked for.
const PLAY_MOVE_TIME: Duration = Duration::from_secs(1);

impl PlayArgs {
    /// Who the person plays: the built-in engine, or the program at `--connect` or `--listen`.
    pub(crate) fn opponent(&self) -> Opponent {
        match self.peer.given() {
            Some(endpoint) => Opponent::Program {
                endpoint,
                role: self.role,
            },
            None => {
                let fixed = self.strength.limits(Some(PLAY_MOVE_TIME));
                Opponent::Engine(Box::new(engine_player("damx", &self.engine, fixed)))
            }
        }
    }

    /// The person's session against `opponent`: the person's name, the DXP options, the
    /// records and, when the person asks for the games, the plan (the person's colour).
    pub(crate) fn session(&self, opponent: &Opponent) -> SessionConfig {
        let mut session = SessionConfig::default();
        self.dxp.apply(&mut session);
        session.records = self.records.records(Some(DEFAULT_PDN));
        let plan = self.plan.plan(60, SeriesColors::Fixed(Color::White));
        opponent.person_session(session, &plan, self.start)
    }
}

// ---- proxy ----------------------------------------------------------------------------------

/// `damx proxy`.
#[derive(Debug, Args)]
pub(crate) struct ProxyArgs {
    /// Listen on this address for the first program (HOST:PORT; port 0 picks a free one)
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: Address,

    /// Connect to the second program at this address once the first has connected
    #[arg(long, value_name = "ADDR")]
    pub(crate) connect: Address,

    /// Print JSON lines instead of text
    #[arg(long)]
    pub(crate) json: bool,
}
